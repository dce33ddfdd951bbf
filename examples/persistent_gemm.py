"""A persistent Hopper GEMM whose epilogue tile lives in the operand ring's
storage, like CUTLASS's SharedStorage union.

The A/B stages and the C staging tile are allocated up front and stay live
for the whole persistent loop, so Triton's allocator cannot overlap them by
liveness. With `ALIAS=True` the spec says they are never used at the same
time (`shared`); with `ALIAS=False` they sit side by side (`distinct`).
Operands stream into the ring with cp.async (`ASYNC=True`, STAGES - 1 tiles
in flight) or through registers (`ASYNC=False`).

    python examples/persistent_gemm.py          # compile, show the memory maps
    python benchmarks/gemm_alias.py            # on a GPU: correctness and speed
"""
import triton
import triton.language as tl

import tlx_alias as tlx


@triton.jit
def _halves(x, ROWS: tl.constexpr, COLS: tl.constexpr):
    """The left and right column halves of a (ROWS, COLS) tile."""
    return tl.split(tl.permute(tl.reshape(x, (ROWS, 2, COLS // 2)), (0, 2, 1)))


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr,
                ALIAS: tl.constexpr, NUM_SMS: tl.constexpr, ASYNC: tl.constexpr = True):
    # STAGES operand slots, and the C tile cut into STAGES column chunks so
    # that chunk j can share slot j's storage.
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
    a_ring = tlx.local_alloc((BM, BK), tl.float16, STAGES, reuse=spec)
    b_ring = tlx.local_alloc((BK, BN), tl.float16, STAGES, reuse=spec)
    c_chunks = tlx.local_alloc((BM, BN // STAGES), tl.float16, STAGES, reuse=spec)
    if ALIAS:
        spec.set_buffer_overlap(
            tlx.reuse_group(tlx.reuse_group(a_ring, b_ring, group_type=tlx.reuse_group_type.distinct),
                            c_chunks, group_type=tlx.reuse_group_type.shared))
    else:
        spec.set_buffer_overlap(
            tlx.reuse_group(a_ring, b_ring, c_chunks, group_type=tlx.reuse_group_type.distinct))

    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rc = tl.arange(0, BN // STAGES)
    k_tiles = tl.cdiv(K, BK)
    num_n = tl.cdiv(N, BN)
    num_tiles = tl.cdiv(M, BM) * num_n
    for tile in range(tl.program_id(0), num_tiles, NUM_SMS):
        off_m = (tile // num_n) * BM
        off_n = (tile % num_n) * BN
        a_ptrs = a_ptr + (off_m + rm)[:, None] * stride_am + rk[None, :]
        b_ptrs = b_ptr + rk[:, None] * stride_bk + (off_n + rn)[None, :]
        acc = tl.zeros((BM, BN), tl.float32)
        if ASYNC:
            # The commit token of each group in flight, oldest first: waiting
            # on the oldest with STAGES - 2 groups left pending lets triton's
            # wait analysis keep the pipeline full.
            pending = ()
            for s in tl.static_range(STAGES - 1):  # K is at least BK * (STAGES - 1)
                tlx.async_load(a_ptrs + s * BK, a_ring[s])
                tlx.async_load(b_ptrs + s * BK * stride_bk, b_ring[s])
                pending = pending + (tlx.async_load_commit_group(), )
            for k in range(k_tiles):
                tlx.async_load_wait_group(STAGES - 2, tokens=[pending[0]])  # tile k has landed
                slot = k % STAGES
                acc = tl.dot(tlx.local_load(a_ring[slot]), tlx.local_load(b_ring[slot]), acc)
                nxt = k + STAGES - 1  # refills the slot tile k - 1 used
                tlx.async_load(a_ptrs + nxt * BK, a_ring[nxt % STAGES], mask=nxt < k_tiles)
                tlx.async_load(b_ptrs + nxt * BK * stride_bk, b_ring[nxt % STAGES], mask=nxt < k_tiles)
                committed = tlx.async_load_commit_group()
                if STAGES == 2:
                    pending = (committed, )
                else:
                    pending = (pending[1], pending[2], committed)
            tlx.async_load_wait_group(0)
        else:
            for s in tl.static_range(STAGES - 1):
                tlx.local_store(a_ring[s], tl.load(a_ptrs + s * BK))
                tlx.local_store(b_ring[s], tl.load(b_ptrs + s * BK * stride_bk))
            for k in range(k_tiles):
                nxt = k + STAGES - 1
                more = nxt < k_tiles
                a_next = tl.load(a_ptrs + nxt * BK, mask=more, other=0.0)
                b_next = tl.load(b_ptrs + nxt * BK * stride_bk, mask=more, other=0.0)
                slot = k % STAGES
                acc = tl.dot(tlx.local_load(a_ring[slot]), tlx.local_load(b_ring[slot]), acc)
                tlx.local_store(a_ring[nxt % STAGES], a_next)
                tlx.local_store(b_ring[nxt % STAGES], b_next)
        # Epilogue: the operand slots are dead; C goes through its chunks.
        c = acc.to(tl.float16)
        if STAGES == 2:
            left, right = _halves(c, BM, BN)
            chunks = (left, right)
        else:  # STAGES == 4
            left, right = _halves(c, BM, BN)
            q0, q1 = _halves(left, BM, BN // 2)
            q2, q3 = _halves(right, BM, BN // 2)
            chunks = (q0, q1, q2, q3)
        for j in tl.static_range(STAGES):
            tlx.local_store(c_chunks[j], chunks[j])
            out = tlx.local_load(c_chunks[j])
            cols = off_n + j * (BN // STAGES) + rc
            tl.store(c_ptr + (off_m + rm)[:, None] * stride_cm + cols[None, :], out)


def smem_bytes(BM, BN, BK, STAGES, ALIAS):
    """What the spec needs (the layout engine's rule, for choosing configs)."""
    ring = (BM * BK + BK * BN) * 2
    chunk = BM * (BN // STAGES) * 2
    return STAGES * (max(ring, chunk) if ALIAS else ring + chunk)


def compile_for_sm90(BM=128, BN=256, BK=64, STAGES=4, ALIAS=True, NUM_SMS=132, ASYNC=True):
    from triton.backends.compiler import GPUTarget
    constexprs = dict(BM=BM, BN=BN, BK=BK, STAGES=STAGES, ALIAS=ALIAS, NUM_SMS=NUM_SMS, ASYNC=ASYNC)
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                 "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32",
                 **{name: "constexpr" for name in constexprs}}
    aligned = {(i, ): [["tt.divisibility", 16]] for i in range(9)}  # what a launch specializes
    src = triton.compiler.ASTSource(fn=gemm_kernel, signature=signature, constexprs=constexprs, attrs=aligned)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 8, "num_stages": 1})


if __name__ == "__main__":
    for alias in (True, False):
        kernel = compile_for_sm90(ALIAS=alias, STAGES=4 if alias else 2)
        print(f"ALIAS={alias}: {kernel.metadata.shared} bytes of shared memory")
        tlx.print_memory_map(kernel)
        print()

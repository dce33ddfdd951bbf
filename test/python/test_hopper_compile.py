"""The Hopper primitives compiled for sm_90 on the CPU: the PTX has the
instructions each one stands for, cp.async wait counts are kept as written,
and bad input is a CompilationError at the kernel's line."""
import math
import os
import re
import sys

import pytest
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

from conftest import ROOT, exact_views_by_default, expect_compilation_error, jit_from_body, wgmma_wait_events

import tlx_alias as tlx
from tlx_alias._triton_version import imported_triton_at_least

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples"))  # the example tests import them
import hopper_kernels as hk  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)


def compile_for_sm90(fn, signature, constexprs, **options):
    signature = dict(signature, **{name: "constexpr" for name in constexprs})
    attrs = {(i, ): [["tt.divisibility", 16]] for i, kind in enumerate(signature.values())
             if kind.startswith("*") or kind == "i32"}
    src = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
    return triton.compile(src, target=TARGET, options=options)


def ptx_count(kernel, instruction):
    """Occurrences of `instruction` (spaces match any whitespace) in the PTX."""
    pattern = r"\s+".join(re.escape(part) for part in instruction.split(" "))
    return len(re.findall(pattern, kernel.asm["ptx"]))


# async_descriptor_store_wait: triton 3.7 lowers ttng.async_tma_store_wait to
# a wait for the stores to have read shared memory, 3.8 to a wait for them to
# complete (stronger; the source may be reused after either).
TRITON_38 = imported_triton_at_least(3, 8)
STORE_WAIT = "cp.async.bulk.wait_group" if TRITON_38 else "cp.async.bulk.wait_group.read"
# The persistent GEMM's A, B and C rings: (offset, stride, buffer bytes) packed
# (3.7) and under exact views (3.8's rules: the interleaved layout takes 256
# KiB, more than sm_90 has, so ring by ring, C[i] on B[i]).
GEMM_PACKED = [(0, 49152, 16384), (16384, 49152, 32768), (0, 49152, 32768)]
GEMM_EXACT = [(131072, 16384, 16384), (0, 32768, 32768), (0, 32768, 32768)]

D64 = "tensordesc<fp16[64, 64]>"


def test_tma_into_aliased_slot():
    k = compile_for_sm90(hk.tma_into_aliased_slot, {"desc": D64, "out_ptr": "*fp16"}, dict(ROW=64, B=64, EVICT=""))
    assert ptx_count(k, "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes") == 1
    assert ptx_count(k, "mbarrier.try_wait") == 1
    assert ptx_count(k, "mbarrier.init.shared") == 1
    # pad (8 KiB) then the shared tile/scratch (16 KiB) at 16 KiB (a multiple
    # of scratch), a 32 KiB stride, two indices, plus the barrier.
    assert k.metadata.shared == 2 * 32768 + 8
    assert "tlx." not in k.asm["ttgir"]


def test_producer_consumer_tasks():
    k = compile_for_sm90(hk.producer_consumer_sum, {"desc": D64, "out_ptr": "*fp32"},
                         dict(NUM_TILES=6, B=64, STAGES=2, EMPTY="leader"))
    ttgir = k.asm["ttgir"]
    assert re.search(r"ttg.warp_specialize\(.*\) attributes \{.*requestedRegisters = array<i32: 232>", ttgir)
    assert "partition0(" in ttgir and "num_warps(4)" in ttgir
    # 8 warps in all leave 256 registers a thread: the partition gives back to 232.
    assert ptx_count(k, "setmaxnreg.dec.sync.aligned.u32 232") == 1
    assert ptx_count(k, "cp.async.bulk.tensor") >= 1
    assert ptx_count(k, "mbarrier.arrive") >= 1


@pytest.mark.parametrize("trans_b", [False, True])
def test_async_dot(trans_b):
    b_block = "tensordesc<fp16[128, 64]>" if trans_b else "tensordesc<fp16[64, 128]>"
    k = compile_for_sm90(hk.async_dot_tile, {"a_desc": D64, "b_desc": b_block, "out_ptr": "*fp32"},
                         dict(M=64, N=128, K=64, TRANS_B=trans_b))
    ttgir = k.asm["ttgir"]
    assert re.search(r"ttng.warp_group_dot .*isAsync = true", ttgir)
    assert "ttng.warp_group_dot_wait" in ttgir and "{pendings = 0 : i32}" in ttgir
    assert ptx_count(k, "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16") == 4
    assert ptx_count(k, "wgmma.wait_group.sync.aligned 0") == 1
    if trans_b:
        assert "transposed = true" in ttgir


def test_async_dot_split_between_registers_and_shared_memory():
    # A helper holding tlx ops is inlined (TLX's inliner interface, also inside
    # an async_task); local_trans keeps a slice's allocation shape; wgmma takes
    # A's first half from registers (ldmatrix) and chains the accumulator.
    k = compile_for_sm90(hk.async_dot_split_operand,
                         {"a_desc": "tensordesc<fp16[64, 128]>", "b_desc": "tensordesc<fp16[64, 128]>",
                          "out_ptr": "*fp32"}, dict(M=64, N=64, K=128, K_REGS=64))
    ttgir = k.asm["ttgir"]
    assert "tt.call" not in ttgir
    assert re.search(r"ttg.local_load .*!ttg.memdesc<64x64xf16, .*, 64x128> -> "
                     r"tensor<64x64xf16, #ttg.dot_op<\{opIdx = 0", ttgir)
    assert re.search(r"ttng.warp_group_dot %\S+, %\S+, %\S+ \{isAsync = true\} : tensor<64x64xf16, #ttg.dot_op",
                     ttgir)
    assert re.search(r"ttng.warp_group_dot .*: !ttg.memdesc<64x64xf16, #\w+, #smem, mutable, 64x128> \* "
                     r"!ttg.memdesc<64x64xf16, #\w+, #smem, mutable, 128x64>", ttgir)
    assert ptx_count(k, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16") == 8
    assert ptx_count(k, "ldmatrix.sync.aligned") >= 1


def test_tma_store():
    k = compile_for_sm90(hk.tma_store_tile, {"in_desc": D64, "out_desc": D64}, dict(B=64, EVICT=""))
    assert ptx_count(k, "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") == 1
    assert ptx_count(k, STORE_WAIT + " ") == 1
    assert ptx_count(k, "fence.proxy.async.shared::cta") >= 1


@triton.jit
def cp_async_ring(x_ptr, out_ptr, N: tl.constexpr, STAGES: tl.constexpr):
    ring = tlx.local_alloc((64, 64), tl.float16, STAGES)
    offs = tl.arange(0, 64)
    ptrs = x_ptr + offs[:, None] * 64 + offs[None, :]
    for i in tl.range(0, STAGES - 1):
        tlx.async_load(ptrs + i * 4096, ring[i])
        tlx.async_load_commit_group()
    acc = tl.zeros((64, 64), tl.float32)
    for k in tl.range(0, N, num_stages=0):
        tlx.async_load_wait_group(STAGES - 2)
        acc += tlx.local_load(ring[k % STAGES]).to(tl.float32)
        tlx.async_load(ptrs + (k + STAGES - 1) * 4096, ring[(k + STAGES - 1) % STAGES])
        tlx.async_load_commit_group()
    tl.store(out_ptr + offs[:, None] * 64 + offs[None, :], acc)


def test_async_load_wait_group_keeps_its_count():
    # Triton's pipeliner would make a tokenless wait `num = 0`.
    k = compile_for_sm90(cp_async_ring, {"x_ptr": "*fp16", "out_ptr": "*fp32"}, dict(N=8, STAGES=4))
    assert "ttg.async_wait {num = 2 : i32}" in k.asm["ttgir"]
    assert ptx_count(k, "cp.async.wait_group 2") == 1
    assert ptx_count(k, "cp.async.wait_group 0") == 0


def _compile_body(body, signature=None):
    fn = jit_from_body(body, "desc, out_ptr", {"tlx": tlx, "tl": tl, "triton": triton})
    return compile_for_sm90(fn, signature or {"desc": D64, "out_ptr": "*fp32"}, {})


BUF = "buf = tlx.local_alloc((64, 64), tl.float16, 2)\nbars = tlx.alloc_barriers(2)\n"
ERRORS = {
    "zero_barriers": ("tlx.alloc_barriers(0)", "ValueError", "num_barriers must be at least 1, got 0"),
    "not_a_barrier": (BUF + "tlx.barrier_wait(buf[0], 0)", "TypeError",
                      "barrier_wait expects an mbarrier .*got buffered_tensor"),
    "whole_barrier_allocation": (BUF + "tlx.barrier_arrive(bars)", "ValueError",
                                 "barrier_arrive needs one barrier: index the allocation first"),
    "tma_wrong_shape": ("small = tlx.local_alloc((32, 64), tl.float16, 1)\nbars = tlx.alloc_barriers(1)\n"
                        "tlx.async_descriptor_load(desc, small[0], [0, 0], bars[0])", "ValueError",
                        r"async_descriptor_load: buffer shape \(32, 64\) != descriptor block shape \(64, 64\)"),
    "tma_wrong_layout": ("b = tlx.local_alloc((64, 64), tl.float16, 1, layout=tlx.swizzled_shared_layout())\n"
                         "bars = tlx.alloc_barriers(1)\ntlx.async_descriptor_load(desc, b[0], [0, 0], bars[0])",
                         "ValueError", r"async_descriptor_load: TMA cannot copy a buffer of layout #ttg.swizzled_shared"),
    "tma_transposed_layout": ("b = tlx.local_alloc((64, 64), tl.float16, 1, "
                              "layout=tlx.nv_mma_shared_layout(128, transposed=True))\n"
                              "bars = tlx.alloc_barriers(1)\ntlx.async_descriptor_load(desc, b[0], [0, 0], bars[0])",
                              "ValueError", r"or a narrower tlx.nv_mma_shared_layout swizzle \(32, 64 or 128 bytes, "
                              r"not transposed\) that the 128-byte rows span"),
    "tma_cache_modifier": (BUF + "tlx.async_descriptor_load(desc, buf[0], [0, 0], bars[0], cache_modifier='.cg')",
                           "ValueError", "async_descriptor_load: a TMA load takes no cache_modifier \\(got '.cg'\\); its one "
                           "cache hint is eviction_policy"),
    "tma_eviction_policy": (BUF + "tlx.async_descriptor_load(desc, buf[0], [0, 0], bars[0], eviction_policy='last')",
                            "ValueError", "async_descriptor_load: eviction_policy must be 'evict_normal', 'evict_first' "
                            "or 'evict_last' \\(or ''\\), got 'last'"),
    "tma_offsets": (BUF + "tlx.async_descriptor_load(desc, buf[0], [0], bars[0])", "ValueError",
                    "async_descriptor_load: 1 offsets for a 2-D descriptor"),
    "dot_shape": ("a = tlx.local_alloc((64, 64), tl.float16, 1)\nb = tlx.local_alloc((32, 64), tl.float16, 1)\n"
                  "tlx.async_dot(a[0], b[0])", "ValueError",
                  "async_dot: A is 64x64 but B is 32x64: A's columns must equal B's rows"),
    "dot_dtype": ("a = tlx.local_alloc((64, 64), tl.float16, 1)\nb = tlx.local_alloc((64, 64), tl.bfloat16, 1)\n"
                  "tlx.async_dot(a[0], b[0])", "TypeError", "async_dot: A and B must have the same dtype"),
    "dot_small_m": ("a = tlx.local_alloc((32, 64), tl.float16, 1)\nb = tlx.local_alloc((64, 64), tl.float16, 1)\n"
                    "tlx.async_dot(a[0], b[0])", "ValueError", "wgmma needs M a multiple of 64"),
    "slice_not_power_of_two": ("a = tlx.local_alloc((64, 256), tl.float16, 1)\n"
                               "s = tlx.local_slice(a[0], [0, 64], [64, 192])", "ValueError",
                               r"local_slice: a shared-memory slice is a power of two in every dimension, "
                               r"got \(64, 192\)"),
    "task_outside_tasks": ("with tlx.async_task(num_warps=4):\n    pass", None,
                           "tlx.async_task must be directly inside `with tlx.async_tasks"),
    "statement_in_tasks": ("with tlx.async_tasks():\n    x = 1", None,
                           "only `with tlx.async_task\\(...\\)` blocks may appear directly inside"),
    "task_without_warps": ("with tlx.async_tasks():\n    with tlx.async_task(registers=232):\n        pass",
                           None, "async_task needs num_warps"),
    "bad_registers": ("with tlx.async_tasks():\n    with tlx.async_task(num_warps=4, registers=230):\n"
                      "        pass", None, "registers must be a multiple of 8"),
    "replica_id_outside": ("x = tlx.async_task_replica_id()", "ValueError",
                           "async_task_replica_id must be called inside"),
    "named_barrier_threads": ("tlx.named_barrier_wait(9, 100)", "ValueError",
                              "arrive_count must be a positive multiple of 32"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_input_is_a_compilation_error_at_the_line(name):
    body, error_type, message = ERRORS[name]
    expect_compilation_error(_compile_body, body, error_type, message)


def test_replicas_trace_with_constexpr_ids():
    body = ("bars = tlx.alloc_barriers(1)\n"
            "with tlx.async_tasks():\n"
            "    with tlx.async_task('default'):\n"
            "        pass\n"
            "    with tlx.async_task(num_warps=4, replicate=2, registers=232):\n"
            "        cid: tl.constexpr = tlx.async_task_replica_id()\n"
            "        if cid == 1:\n"
            "            tlx.barrier_arrive(bars[0])\n"
            "        tl.store(out_ptr + cid, cid * 1.0)\n")
    k = _compile_body(body)
    ttgir = k.asm["ttgir"]
    partitions = ttgir.split("partition1")
    # Only replica 1 arrives; each replica stores at its own index.
    assert "ttng.arrive_barrier" not in partitions[0].split("partition0")[1]
    assert "ttng.arrive_barrier" in partitions[1]
    assert "requestedRegisters = array<i32: 232, 232>" in ttgir


def test_aliased_persistent_ws_gemm_example():
    """examples/hopper_persistent_gemm.py: C tile i is laid over ring slot i
    (A then B), so 4 slots of 128x256x64 fit in 192 KiB; its unaliased twin
    needs 256 KiB at 4 slots, more than an sm_90 CTA has."""
    import hopper_persistent_gemm as example

    k = example.compile_for_sm90(STAGES=4, ALIAS=True)
    (spec, ) = tlx.memory_map(k)
    assert spec["size"] == 4 * 48 * 1024
    views = [(v["offset"], v["bytes_between_buffers"], v["buffer_bytes"]) for v in spec["views"]]
    assert views == (GEMM_EXACT if exact_views_by_default() else GEMM_PACKED)  # A, B, C
    assert spec["size"] < k.metadata.shared <= 232448
    assert example.compile_for_sm90(STAGES=4, ALIAS=False).metadata.shared > 232448
    assert example.compile_for_sm90(STAGES=3, ALIAS=False).metadata.shared <= 232448
    # one A and one B TMA load per k-step; each consumer stores its C half by half through one lent slot,
    # waiting for the first store to have read the slot before writing the second half
    assert ptx_count(k, "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes") == 2
    assert ptx_count(k, "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") == 4
    assert ptx_count(k, STORE_WAIT + " 0") == 4
    whole = example.compile_for_sm90(STAGES=4, ALIAS=True, C_SPLIT=1)  # a lent slot per consumer, one store
    assert ptx_count(whole, "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") == 2
    assert ptx_count(k, "wgmma.wait_group.sync.aligned 1") == 2
    assert ptx_count(k, "setmaxnreg.inc.sync.aligned.u32 232") >= 1


def test_aliased_persistent_ws_gemm_example_under_exact_views(monkeypatch):
    """The same kernel with triton 3.8's view rules (forced here): every
    buffer at a multiple of its size, so the interleaved layout needs a 64
    KiB stride, 256 KiB in all, more than sm_90 has: the tree is laid out
    ring by ring, B's ring first, A's after it, C[i] on B[i], the same 192
    KiB, and the memory map says so."""
    import hopper_persistent_gemm as example

    monkeypatch.setenv("TLX_ALIAS_EXACT_VIEWS", "1")
    k = example.compile_for_sm90(STAGES=4, ALIAS=True)
    (spec, ) = tlx.memory_map(k)
    assert spec["size"] == 4 * 48 * 1024
    views = [(v["offset"], v["bytes_between_buffers"], v["buffer_bytes"]) for v in spec["views"]]
    assert views == GEMM_EXACT  # A, B, C
    assert (spec["layout"], spec["interleaved_size"]) == ("rings", 4 * 64 * 1024)
    assert [v["expanded_shape"] for v in spec["views"]] == [[12, 128, 64], [6, 64, 256], [6, 128, 128]]
    assert spec["size"] < k.metadata.shared <= 232448
    assert "ttg.memdesc_reinterpret" in k.asm["ttgir"] and "memdesc<3x65536xi8" in k.asm["ttgir"]
    assert ptx_count(k, "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes") == 2


def test_aliased_flash_attention_example():
    """examples/hopper_flash_attention.py: O staging laid over Q buffer for
    buffer, so head dim 128 fits 3 K/V stages (unaliased: 2) and head dim
    256 fits BLOCK_N 64 (unaliased: 32); consumers ping-pong on named
    barriers 9 and 10."""
    import hopper_flash_attention as fa

    limit = 232448
    k = fa.compile_for_sm90(128, causal=True, alias=True, stages=3, q_buffers=1)
    (spec, ) = tlx.memory_map(k)
    assert [(v["name"], v["offset"], v["bytes_between_buffers"], v["num_buffers"]) for v in spec["views"]] == [
        ("q_tiles", 0, 16384, 2), ("o_tiles", 0, 16384, 2)]
    assert fa.smem_bytes(128, 128, 3, True) < k.metadata.shared <= limit
    assert fa.compile_for_sm90(128, alias=False, stages=3, q_buffers=1).metadata.shared > limit
    (spec, ) = tlx.memory_map(fa.compile_for_sm90(128))  # the default: two Q buffers a consumer, O over each
    assert [(v["name"], v["num_buffers"]) for v in spec["views"]] == [("q_tiles", 4), ("o_tiles", 4)]
    assert fa.compile_for_sm90(256, alias=True).metadata.shared <= limit
    assert fa.compile_for_sm90(256, alias=False, block_n=64).metadata.shared > limit
    # named barriers take their id in a register: 2 waits and 2 arrives a consumer, one bootstrap arrive
    assert len(re.findall(r"bar\.sync\s+%r", k.asm["ptx"])) == 4
    assert len(re.findall(r"bar\.arrive\s+%r", k.asm["ptx"])) == 5
    assert ptx_count(k, "wgmma.wait_group.sync.aligned 1") >= 1  # QK^T(j) overlaps PV(j - 1)
    assert ptx_count(k, STORE_WAIT + " 0") >= 1  # O read before Q's storage goes back


def op_sequence(ttgir, ttng_ops):
    """The names of the given ttng ops and of scf.for/if/yield, in the order
    they appear in `ttgir`, space-separated."""
    pattern = r"ttng\.(" + "|".join(ttng_ops) + r")\b|scf\.(for|if|yield)\b"
    return " ".join(m.group(0).split(".")[-1] for m in re.finditer(pattern, ttgir))


def test_flash_attention_hands_q_back_after_the_next_first_qk(monkeypatch, tmp_path):
    """With two Q buffers a consumer waits for the O store laid over its Q
    (and hands that buffer back) after the next tile's first QK^T, under
    the tile's `if`, and once more after its last tile; LATE_Q_HANDBACK=False
    waits at each tile's end. The hazard analysis finds nothing in either."""
    import hopper_flash_attention as fa

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # compile afresh: the analysis runs
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "error")
    ops = ("warp_group_dot_wait", "async_tma_store_wait", "async_tma_copy_local_to_global", "arrive_barrier")

    def consumer_ops(late):
        ttgir = fa.compile_for_sm90(128, late_q_handback=late).asm["ttgir"]
        consumer = ttgir[ttgir.index("partition0("):ttgir.index("partition1(")]  # replica 0
        return op_sequence(consumer, ops)

    assert consumer_ops(True) == (
        "for warp_group_dot_wait arrive_barrier if async_tma_store_wait arrive_barrier "  # tile t - 1's O store
        "for warp_group_dot_wait arrive_barrier warp_group_dot_wait arrive_barrier yield "
        "warp_group_dot_wait arrive_barrier if if async_tma_copy_local_to_global yield async_tma_store_wait")  # LSE, O: rows < N_CTX
    assert consumer_ops(False) == (
        "for warp_group_dot_wait arrive_barrier "
        "for warp_group_dot_wait arrive_barrier warp_group_dot_wait arrive_barrier yield "
        "warp_group_dot_wait arrive_barrier if if async_tma_copy_local_to_global async_tma_store_wait arrive_barrier yield")


def test_flash_attention_rings_of_their_own_depth(monkeypatch, tmp_path):
    """At head dim 256 O over Q leaves room for a third K stage beside two V
    stages (224 KiB of buffers); unaliased it is 288 KiB. The K and V rings
    keep their own phases, with and without ping-pong, and the hazard
    analysis finds nothing in either."""
    import hopper_flash_attention as fa
    from tlx_alias import _hazards
    from tlx_alias._triton import passes as _pipeline

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # compile afresh: the pass runs
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "error")
    limit = 232448
    assert fa.smem_bytes(256, 64, 3, True, v_stages=2) == 229376
    assert fa.smem_bytes(256, 64, 3, False, v_stages=2) > limit
    for pingpong in (True, False):
        k = fa.compile_for_sm90(256, causal=True, stages=3, v_stages=2, pingpong=pingpong)
        assert fa.smem_bytes(256, 64, 3, True, v_stages=2) < k.metadata.shared <= limit
        ttgir = k.asm["ttgir"]
        assert "!ttg.memdesc<3x64x256xf16" in ttgir and "!ttg.memdesc<2x64x256xf16" in ttgir
        assert "memdesc<3x1xi64" in ttgir  # k_fulls, k_empties
        module, context = _pipeline.parse_module(ttgir)
        assert _hazards.findings(module, context) == []
        named = len(re.findall(r"bar\.(?:sync|arrive)\s+%r", k.asm["ptx"]))
        # a wait and an arrive per wgmma issue: the first block, the diagonal's second (unrolled)
        # and the loop's, per consumer, and consumer 1's first arrive; without ping-pong none
        assert named == (13 if pingpong else 0)


def test_flash_attention_o_over_v_slots(monkeypatch, tmp_path):
    """O_STAGING "v": each consumer stages O in a V ring slot (O tile s over
    V slot s, 224 KiB with 2 K / 3 V stages at head dim 256; unaliased 288).
    The producer hands over two V ring entries after each tile's blocks with
    a plain arrive each; a consumer hands Q back right after its K/V loop
    (before the last PV), waits for its entry, stores O from it and releases
    the other consumer's entry, and waits for its own O store after the next
    tile's first QK^T (LATE_Q_HANDBACK) or at once. The hazard analysis
    finds nothing in either."""
    import hopper_flash_attention as fa

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # compile afresh: the analysis runs
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "error")
    limit = 232448
    ops = ("warp_group_dot_wait", "async_tma_store_wait", "async_tma_copy_local_to_global",
           "async_tma_copy_global_to_local", "arrive_barrier", "wait_barrier")

    for late in (True, False):
        k = fa.compile_for_sm90(256, v_stages=3, o_staging="v", late_q_handback=late)
        (spec, ) = tlx.memory_map(k)
        assert [(v["name"], v["offset"], v["bytes_between_buffers"], v["num_buffers"]) for v in spec["views"]] == [
            ("v_tiles", 0, 32768, 3), ("o_tiles", 0, 32768, 3)]
        assert fa.smem_bytes(256, 64, 2, True, v_stages=3, o_staging="v") < k.metadata.shared <= limit
        ttgir = k.asm["ttgir"]
        producer = ttgir[ttgir.index("ttg.warp_specialize"):ttgir.index("partition0(")]
        assert op_sequence(producer, ops) == (
            "for wait_barrier async_tma_copy_global_to_local wait_barrier async_tma_copy_global_to_local "  # Q
            "for wait_barrier async_tma_copy_global_to_local wait_barrier async_tma_copy_global_to_local yield "
            "wait_barrier arrive_barrier wait_barrier arrive_barrier yield")  # the two O entries
        consumer = ttgir[ttgir.index("partition0("):ttgir.index("partition1(")]  # replica 0
        loop = ("for wait_barrier wait_barrier warp_group_dot_wait arrive_barrier "
                "warp_group_dot_wait arrive_barrier yield ")
        epilogue = ("arrive_barrier "  # Q goes back
                    "wait_barrier warp_group_dot_wait arrive_barrier "  # the last PV
                    "if wait_barrier if async_tma_copy_local_to_global "  # LSE; O from its entry (rows < N_CTX)
                    "wait_barrier arrive_barrier ")  # the other consumer's entry
        first = "for wait_barrier wait_barrier warp_group_dot_wait arrive_barrier "
        if late:
            assert op_sequence(consumer, ops) == (first + "if async_tma_store_wait arrive_barrier " + loop + epilogue +
                                        "yield async_tma_store_wait")
        else:
            assert op_sequence(consumer, ops) == first + loop + epilogue + "async_tma_store_wait arrive_barrier yield"
    assert fa.smem_bytes(256, 64, 2, True, v_stages=3, o_staging="v") == 229376
    assert fa.smem_bytes(256, 64, 2, False, v_stages=3) > limit
    # at head dim 128 (BLOCK_N 128) an O tile takes half a V slot
    k = fa.compile_for_sm90(128, q_buffers=1, v_stages=3, o_staging="v")
    assert fa.smem_bytes(128, 128, 2, True, v_stages=3, o_staging="v") == 32768 + 5 * 32768
    assert fa.smem_bytes(128, 128, 2, True, v_stages=3, o_staging="v") < k.metadata.shared <= limit


@pytest.mark.parametrize("cluster", [1, 2])
def test_dynamic_order_in_clusters_asks_once_and_passes_the_answer(cluster, monkeypatch, tmp_path):
    """In a cluster only rank 0's producer adds to the counter; it writes the
    answer into its mailbox and rank 1's producer exchanges it for
    NO_ANSWER until it gets one: one atomic add and three exchanges (the
    counter's reset, the send, the receive) against one add and the reset
    in one CTA."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    import hopper_flash_attention as fa

    ptx = fa.compile_for_sm90(128, causal=True, tile_order="dynamic", cluster=cluster).asm["ptx"]
    assert ptx.count("atom.global.gpu.relaxed.add") == 1
    assert ptx.count("atom.global.gpu.relaxed.exch") == (3 if cluster == 2 else 1)


def test_flash_attention_pv_in_turn_moves_the_turn_handover(monkeypatch, tmp_path):
    """A consumer hands the turn on (bar.arrive on the next consumer's named
    barrier) after its QK^T, or with pv_in_turn after its PV too; the
    hazard analysis finds nothing in either."""
    import hopper_flash_attention as fa

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "error")

    def loop(pv_in_turn):
        ttgir = fa.compile_for_sm90(64, groups=3, consumer_registers=160, pv_in_turn=pv_in_turn).asm["ttgir"]
        consumer = ttgir[ttgir.index("partition0("):ttgir.index("partition1(")]
        body = consumer[consumer.rindex("scf.for"):]  # the tile's K/V loop
        ops = re.finditer(r"ttng\.(warp_group_dot|wait_barrier)\b|\"bar\.(sync|arrive)|scf\.yield", body)
        names = [m.group(0).strip('"').split(".")[-1] for m in ops]
        return " ".join(names[:names.index("yield")])

    assert loop(False) == "wait_barrier sync warp_group_dot arrive wait_barrier warp_group_dot"
    assert loop(True) == "wait_barrier sync warp_group_dot wait_barrier warp_group_dot arrive"


def test_flash_attention_q_columns_in_registers(monkeypatch, tmp_path):
    """Q_REG_COLS=64 at head dim 256: each consumer loads Q's first 64
    columns into registers once a tile (after its Q arrives), and every QK^T
    is three wgmmas into one accumulator: 64 columns from registers, then
    64 and 128 from shared memory (slices are powers of two); the hazard
    analysis finds nothing."""
    import hopper_flash_attention as fa

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # compile afresh: the analysis runs
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "error")
    ttgir = fa.compile_for_sm90(256, q_reg_cols=64, consumer_registers=240).asm["ttgir"]
    consumer = ttgir[ttgir.index("partition0("):ttgir.index("partition1(")]  # replica 0
    assert len(re.findall(r"ttg\.local_load .*-> tensor<64x64xf16, #ttg\.dot_op<\{opIdx = 0", consumer)) == 1
    # the A operand of each QK^T wgmma (the first block's, the loop's): registers, then two Q slices
    a_operands = re.findall(r"ttng\.warp_group_dot .*: (tensor<64x64xf16|!ttg\.memdesc<64x\d+xf16).* -> "
                            r"tensor<64x64xf32", consumer)
    assert a_operands == ["tensor<64x64xf16", "!ttg.memdesc<64x64xf16", "!ttg.memdesc<64x128xf16"] * 2
    base = fa.compile_for_sm90(256).asm["ttgir"]
    assert "ttg.local_load" not in base[base.index("partition0("):base.index("partition1(")]


@pytest.mark.parametrize("head_dim,block_n", [(128, 128), (256, 64)])
def test_flash_attention_causal_loop_holds_no_mask(monkeypatch, tmp_path, head_dim, block_n):
    """Causal: with DIAGONAL_FIRST the producer loads and the consumers run
    each tile's diagonal blocks (BLOCK_M // BLOCK_N of them) first, masked,
    before the K/V loop, which then compares no positions; in order, the
    loop masks (its last blocks). The hazard analysis finds nothing in either."""
    import hopper_flash_attention as fa

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # compile afresh: the analysis runs
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "error")

    def consumer_loop(diagonal_first):
        ttgir = fa.compile_for_sm90(head_dim, causal=True, diagonal_first=diagonal_first).asm["ttgir"]
        consumer = ttgir[ttgir.index("partition0("):ttgir.index("partition1(")]
        inner = consumer.index("scf.for %", consumer.index("scf.for %") + 1)
        return consumer[:inner], consumer[inner:consumer.index("scf.yield", inner)]

    mask = re.compile(rf"arith\.cmpi sge, %\w+, %\w+ : tensor<64x{block_n}xi32")
    before, loop = consumer_loop(True)
    assert not mask.search(loop) and len(mask.findall(before)) == 128 // block_n
    before, loop = consumer_loop(False)
    assert mask.search(loop)


def test_flash_attention_pv_wait_stays_after_the_softmax(tmp_path):
    """examples/hopper_flash_attention.py (head dim 128, not causal, leader
    arrives): in each consumer's loop, ptxas keeps the wait for P@V
    (wgmma.wait_group 0) after the softmax that overlaps it. With only the
    barrier analysis's bar.sync before the K-release arrive, ptxas hoisted
    that wait (and the V-release arrive) above the exp2s, serializing P@V and
    the softmax. (With thread arrives, no bar.sync, it hoists the wait to
    right after the row max, as FlashAttention-3's binary has it early too;
    measured faster nonetheless: docs/design/attention.md.)"""
    import hopper_flash_attention as fa

    events = wgmma_wait_events(fa.compile_for_sm90(128, thread_arrives=""), tmp_path)
    pairs = [i for i, e in enumerate(events) if e == "wait1" and i + 1 < len(events)]
    # both consumers' loops, and their last iteration's pending PV wait
    assert len(pairs) >= 2
    for i in pairs:
        if events[i + 1] != "wait0":  # a loop body: exp2s before the PV wait
            assert events[i + 1:i + 3] == ["exp2", "wait0"], events
    assert sum(events[i + 1] == "exp2" for i in pairs) == 2, events


def warps_of_layouts_by_task(ttgir):
    """{"default" | "partitionN": (its num_warps, {warps of each tensor layout it uses})}."""
    aliases = dict(re.findall(r"^(#\w+) = (#ttg\.\w+<.*>)$", ttgir, re.M))
    region = ttgir.split("ttg.warp_specialize(", 1)[1]
    tasks = {}
    for name, header, body in re.findall(r"^\s*(default|partition\d+)(.*?)\{\n(.*?)^\s*\}", region, re.M | re.S):
        num_warps = re.search(r"num_warps\((\d+)\)", header)
        layouts = {aliases[alias] for alias in re.findall(r"(#(?:blocked|mma)\d*)\b", body)}
        warps = {math.prod(int(d) for d in re.search(r"warpsPerCTA = \[([\d, ]+)\]", layout).group(1).split(","))
                 for layout in layouts}
        tasks[name] = (int(num_warps.group(1)) if num_warps else None, warps)
    return tasks


@pytest.mark.parametrize("kernel_warps, worker_warps", [(8, 4), (4, 8), (4, 4)])
def test_partitions_of_other_warp_counts_get_their_own_layouts(kernel_warps, worker_warps):
    # Triton's TTGIR conversion lays out every tensor for the kernel's warps;
    # each partition's tensors must be laid out for its own.
    k = compile_for_sm90(hk.partition_warps_round_trip, {"x_ptr": "*fp16", "out_ptr": "*fp32"},
                         dict(B=64, WORKER_WARPS=worker_warps), num_warps=kernel_warps)
    tasks = warps_of_layouts_by_task(k.asm["ttgir"])
    assert tasks == {"default": (None, {kernel_warps}), "partition0": (worker_warps, {worker_warps}),
                     "partition1": (1, set())}
    # Two warp groups split N: each issues m64n32k16.
    n = 64 if worker_warps == 4 else 32
    assert ptx_count(k, f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16") == 4

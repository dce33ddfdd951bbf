"""The ways of dQ in the flash-attention backward (examples/hopper_flash_attention_bwd.py): each Q block's
dQ = dS K from the consumers' dS^T, added to the fp32 dQ by atomics (add_dq_atomics), by each consumer's whole
partial in TMA reduce-adds (add_dq_partials), by half of the columns each (add_dq_halves) or by the consumers in
turns (add_dq_turns)."""
import triton
import triton.language as tl

import tlx_alias as tlx


@triton.jit
def red_add(ptrs, values):
    """*ptrs += values (fp32) without a return value, two adjacent columns
    at a time (red.global.add.v2.f32, sm_90), in the wgmma accumulator's own
    layout: tl.atomic_add would move the tile to a blocked layout through
    shared memory and fetch every old value."""
    tl.inline_asm_elementwise("red.global.add.v2.f32 [$2], {$4, $5};\n\tmov.b32 $0, 0;\n\tmov.b32 $1, 0;",
                              "=r,=r,l,l,f,f", [ptrs.to(tl.int64, bitcast=True), values], dtype=tl.int32,
                              is_pure=False, pack=2)


@triton.jit
def dq_ptrs(dq_ptr, row, cid: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr):
    """dQ's rows [row, row + BLOCK_M), consumer cid's half of its columns."""
    DQ_COLS: tl.constexpr = HEAD_DIM // 2
    offs_m = row + tl.arange(0, BLOCK_M)
    offs_d = cid * DQ_COLS + tl.arange(0, DQ_COLS)
    return dq_ptr + offs_m[:, None] * HEAD_DIM + offs_d[None, :]


@triton.jit
def dq_of_both_halves(ds, ds_tiles, k_tiles, b, cid: tl.constexpr, HEAD_DIM: tl.constexpr):
    """Stages this consumer's dS^T in buffer b (consumer c's half is
    ds_tiles[2 b + c]) and, once both halves are written (named barrier 9),
    issues cid's half of dQ's columns, dS K over both K halves."""
    HALF: tl.constexpr = 64
    DQ_COLS: tl.constexpr = HEAD_DIM // 2
    tlx.local_store(ds_tiles[b * 2 + cid], ds)
    tlx.fence_async_shared()
    tlx.named_barrier_wait(9, 256)  # both halves of dS^T are written
    k0 = tlx.local_slice(k_tiles[0], [0, cid * DQ_COLS], [HALF, DQ_COLS])
    k1 = tlx.local_slice(k_tiles[1], [0, cid * DQ_COLS], [HALF, DQ_COLS])
    dq = tlx.async_dot(tlx.local_trans(ds_tiles[b * 2]), k0)
    return tlx.async_dot(tlx.local_trans(ds_tiles[b * 2 + 1]), k1, dq)


@triton.jit
def add_dq_atomics(ds, ds_tiles, k_tiles, dk, dv, empty, dq_ptr, row, sm_scale, count, slot, cid: tl.constexpr,
                   HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, DS_OVER_DO: tl.constexpr, DQ_DEFER: tl.constexpr):
    """dQ's half of the columns (cid's) from both consumers' dS^T, staged
    in shared memory behind a named barrier, added to dQ with atomics
    (DQ_DEFER: returned, for the next step to add)."""
    if DS_OVER_DO:
        # dS^T goes over this dO slot: both consumers' dV and dP^T must be
        # done reading it (named barrier 8: both consumer warp groups)
        dv = tlx.async_dot_wait(1, dv)
        tlx.named_barrier_wait(8, 256)
        b = slot
    else:
        b = count % 2
    dq = dq_of_both_halves(ds, ds_tiles, k_tiles, b, cid, HEAD_DIM)
    dq = tlx.async_dot_wait(0, dq)
    dk = tlx.async_dot_wait(0, dk)
    dv = tlx.async_dot_wait(0, dv)
    tlx.barrier_arrive(empty)  # Q, dO, LSE, delta (and the dS^T over dO) are read
    dq = dq * sm_scale
    if not DQ_DEFER:
        red_add(dq_ptrs(dq_ptr, row, cid, HEAD_DIM, BLOCK_M), dq)
    return dk, dv, dq


@triton.jit
def add_dq_partials(ds, ds_tiles, dq_tiles, k_mine, dk, dv, empty, desc_dq, row, sm_scale, cid: tl.constexpr,
                    HEAD_DIM: tl.constexpr):
    """DQ_TMA: this consumer's whole dQ partial for the Q block, dS_c K_c
    (its 64 K rows: no other consumer's dS^T needed, no named barrier), 64
    columns at a time (32 accumulator registers, not 64 at head dim 128),
    each staged in an fp32 tile and added to dQ by a TMA reduce-add. dS^T
    lies over the first chunk's tile: written once the last step's
    reduces have read it, and that chunk is computed last."""
    CHUNKS: tl.constexpr = HEAD_DIM // 64
    ds_mine = ds_tiles[cid]
    tlx.async_descriptor_store_wait(0)
    tlx.local_store(ds_mine, ds)
    tlx.fence_async_shared()
    dk = tlx.async_dot_wait(0, dk)  # frees P^T's and dS^T's registers (dV's and dK's A) for dQ's accumulator
    dv = tlx.async_dot_wait(0, dv)
    tlx.barrier_arrive(empty)  # Q, dO, LSE, delta are read
    for j in tl.static_range(CHUNKS - 1, -1, -1):
        dq = tlx.async_dot(tlx.local_trans(ds_mine), tlx.local_slice(k_mine, [0, j * 64], [64, 64]))
        dq = tlx.async_dot_wait(0, dq)
        tlx.local_store(dq_tiles[cid * CHUNKS + j], dq * sm_scale)
        tlx.fence_async_shared()
        tlx.async_descriptor_store(desc_dq, dq_tiles[cid * CHUNKS + j], [row, j * 64], store_reduce="add")
    return dk, dv


@triton.jit
def add_dq_halves(ds, ds_tiles, dq_tiles, k_tiles, dk, dv, empty, desc_dq, row, sm_scale, count, cid: tl.constexpr,
                  HEAD_DIM: tl.constexpr):
    """DQ_HALVES: consumer cid's half of dQ's columns from both consumers'
    dS^T (double-buffered; a named barrier once both are written), added to
    dQ by one TMA reduce-add: half add_dq_partials's reduce traffic."""
    dq = dq_of_both_halves(ds, ds_tiles, k_tiles, count % 2, cid, HEAD_DIM)
    dk = tlx.async_dot_wait(2, dk)  # dV's and dK's wgmmas, issued before dQ's two, have read Q and dO
    dv = tlx.async_dot_wait(2, dv)
    tlx.barrier_arrive(empty)  # Q, dO, LSE, delta are read
    dq = tlx.async_dot_wait(0, dq)
    tlx.async_descriptor_store_wait(0)  # the last step's reduce-add has read the dQ tile
    dq_mine = dq_tiles[cid]
    tlx.local_store(dq_mine, dq * sm_scale)
    tlx.fence_async_shared()
    tlx.async_descriptor_store(desc_dq, dq_mine, [row, cid * (HEAD_DIM // 2)], store_reduce="add")
    return dk, dv


@triton.jit
def rows_over_all_banks(dq):
    """dQ's row 8 g + 4 h + l as the tile's row 8 g + 2 l + h (a relabelling of registers, no data moves). A
    half-warp's 64-bit stores from the wgmma accumulator cover rows l = 0..3 of a group of 8: in dQ's order the
    128-byte swizzle puts rows r and r ^ 1 on the same banks (2-way conflicts), here rows 0, 2, 4, 6 of the
    swizzle's 8 phases fill all 32. dq_rows_back puts the rows back when converting dQ."""
    M: tl.constexpr = dq.shape[0]
    D: tl.constexpr = dq.shape[1]
    return tl.reshape(tl.permute(tl.reshape(dq, [M // 8, 2, 4, D]), [0, 2, 1, 3]), [M, D])


@triton.jit
def dq_rows_back(dq_ptr, out_ptr, HEAD_DIM: tl.constexpr, ROWS: tl.constexpr):
    """rows_over_all_banks undone: out = the fp32 dQ in out's dtype, ROWS rows a program, its row 8 g + 4 h + l
    read from row 8 g + 2 l + h. As fast as a plain conversion; torch's strided copy took twice as long."""
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    held_in = rows - rows % 8 + rows % 4 * 2 + rows // 4 % 2
    cols = tl.arange(0, HEAD_DIM)[None, :]
    dq = tl.load(dq_ptr + held_in[:, None] * HEAD_DIM + cols)
    tl.store(out_ptr + rows[:, None] * HEAD_DIM + cols, dq.to(out_ptr.dtype.element_ty))


@triton.jit
def add_dq_turns(ds, ds_tiles, dq_tile, k_tiles, dk, dv, empty, desc_dq, row, sm_scale, count, zero,
                 b: tl.constexpr, cid: tl.constexpr):
    """DQ_TURNS: the consumers take turns (by the Q block's parity) computing
    its whole dQ = dS_0 K_0 + dS_1 K_1 from both halves of dS^T, one wgmma
    chain as wide as the head, staged in the fp32 dQ tile and added by one
    TMA reduce-add. The consumer whose turn it is issues its own half first
    and only then waits for the other's dS^T (the other is behind by its own
    last turn's chain: its half runs meanwhile). The other only arrives: its
    dS^T half is written, and its own last reduce-add has read the dQ tile
    (named barriers 9 and 10 by parity, so that it cannot run a turn ahead).
    zero: the step's _opaque_zero (the backward's file)."""
    buf = count % 2  # == b, computed: see _opaque_zero
    tlx.local_store(ds_tiles[buf * 2 + cid], ds)
    tlx.fence_async_shared()
    if b == cid:
        dk = tlx.async_dot_wait(0, dk)  # frees P^T's and dS^T's registers for dQ's accumulator
        dv = tlx.async_dot_wait(0, dv)
        tlx.barrier_arrive(empty)  # Q, dO, LSE, delta are read
        dq = tlx.async_dot(tlx.local_trans(ds_tiles[buf * 2 + cid]), k_tiles[zero + cid])
        tlx.named_barrier_wait(9 + b, 256)
        dq = tlx.async_dot(tlx.local_trans(ds_tiles[buf * 2 + 1 - cid]), k_tiles[zero + 1 - cid], dq)
        dq = tlx.async_dot_wait(0, dq)
        tlx.local_store(dq_tile, rows_over_all_banks(dq * sm_scale))
        tlx.fence_async_shared()
        tlx.async_descriptor_store(desc_dq, dq_tile, [row, 0], store_reduce="add")
    else:
        tlx.async_descriptor_store_wait(0)  # this consumer's last reduce-add has read the dQ tile
        tlx.named_barrier_arrive(9 + b, 256)
        dk = tlx.async_dot_wait(0, dk)
        dv = tlx.async_dot_wait(0, dv)
        tlx.barrier_arrive(empty)
    return dk, dv

"""The forward's online softmax (examples/hopper_flash_attention.py): one K/V
block's probabilities and row statistics, P to 16 bits, and the
accumulator's rescale that a warp skips where no row's max moved."""
import triton
import triton.language as tl


@triton.jit
def causal_mask(qk, offs_m, kv_start, BLOCK_N: tl.constexpr, MASK: tl.constexpr):
    """qk with -inf above the diagonal; MASK: "" (none), "cols" or "lane"."""
    cols = tl.arange(0, BLOCK_N)
    if MASK == "cols":
        qk = tl.where(offs_m[:, None] >= (kv_start + cols)[None, :], qk, -float("inf"))
    elif MASK == "lane":
        # column j <= row - kv_start, as j - (j & 6) <= row - kv_start - (j & 6): in the wgmma layout
        # j & 6 is the thread's (lane % 4) * 2, so one side is a constant per element, the other one
        # value per row (the form above holds each thread's 32 column numbers in registers)
        lane_cols = cols & 6
        qk = tl.where((cols - lane_cols)[None, :] <= (offs_m - kv_start)[:, None] - lane_cols[None, :], qk,
                      -float("inf"))
    return qk


@triton.jit
def sums_like(l_i, p):
    """p's row sums in the form of the running sums l_i: whole rows' for
    l_i of shape [rows] (two shuffles a row a block), each thread's share
    for [rows, 8] (lane_sums: none; summed across the quad once, at the
    tile's end: row_sums_of)."""
    if len(l_i.shape) == 2:
        return lane_sums(p)
    else:
        return tl.sum(p, 1)


@triton.jit
def scaled(l_i, alpha):
    """The running sums l_i (either form, sums_like) times each row's alpha."""
    if len(l_i.shape) == 2:
        return l_i * alpha[:, None]
    else:
        return l_i * alpha


@triton.jit
def lane_sums(p):
    """p's row sums over each thread's own columns as [rows, 8]: column bits
    0-2 stay (in the wgmma layout a register bit and the quad's two lane
    bits, as an 8-column wgmma tile holds them), the higher ones (registers)
    are summed: no shuffles. FlashAttention-3 keeps its row sums so too."""
    rows: tl.constexpr = p.shape[0]
    cols: tl.constexpr = p.shape[1]
    return tl.sum(tl.reshape(p, [rows, cols // 8, 8]), 1)


@triton.jit
def row_sums_of(l_i):
    """Whole rows' sums of running sums in either form (sums_like)."""
    if len(l_i.shape) == 2:
        return tl.sum(l_i, 1)
    else:
        return l_i


@triton.jit
def online_softmax(qk, m_i, l_i, qk_scale, offs_m, kv_start, BLOCK_N: tl.constexpr, MASK: tl.constexpr,
                   LAZY: tl.constexpr = 0.0):
    """One block of online softmax in the log2 domain: the probabilities,
    the new row max and sum, and the factor that rescales the accumulator.
    MASK: "" (none) or the causal mask in its "cols" or "lane" form. LAZY > 0
    (the kernel's RESCALE_SKIP; -1 and 0 are no lazy rescale): a row's max
    moves only when the block's exceeds it by more than LAZY (P stays below
    2^LAZY, and alpha is exactly 1 where it did not move)."""
    qk = causal_mask(qk, offs_m, kv_start, BLOCK_N, MASK)
    m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
    if LAZY > 0:
        m_ij = tl.where(m_ij > m_i + LAZY, m_ij, m_i)
    p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
    alpha = tl.math.exp2(m_i - m_ij)
    l_i = scaled(l_i, alpha) + sums_like(l_i, p)
    return p, m_ij, l_i, alpha


@triton.jit
def block_softmax(qk, m_i, l_i, qk_scale, offs_m, kv_start, masked, BLOCK_N: tl.constexpr, P16: tl.constexpr,
                  HEAD_DIM: tl.constexpr, LAZY: tl.constexpr = 0.0):
    """online_softmax of a K/V block, with the causal mask where `masked`
    (known at compile time or not): its "lane" form where P is in 16 bits or
    at head dim 64, else "cols" (with P in 32 bits at head dims 128 and 256
    ptxas spilled in the K/V loop with "lane")."""
    if masked:
        p, m_i, l_i, alpha = online_softmax(qk, m_i, l_i, qk_scale, offs_m, kv_start, BLOCK_N,
                                            "lane" if P16 != "" or HEAD_DIM == 64 else "cols", LAZY)
    else:
        p, m_i, l_i, alpha = online_softmax(qk, m_i, l_i, qk_scale, offs_m, kv_start, BLOCK_N, "", LAZY)
    return p, m_i, l_i, alpha


@triton.jit
def to_16bit(p, dtype: tl.constexpr, HOW: tl.constexpr):
    """p.to(dtype); HOW "asm": two elements per cvt in inline asm, which LLVM
    cannot move: in the 192-row causal tile it turned phi(trunc, trunc) of
    the loops into a trunc of an fp32 phi, and each block swapped P's halves."""
    if HOW == "cast":
        return p.to(dtype)
    elif dtype == tl.bfloat16:
        return tl.inline_asm_elementwise("cvt.rn.bf16x2.f32 $0, $2, $1;", "=r,r,r", [p], dtype=tl.bfloat16,
                                         is_pure=True, pack=2)
    else:
        return tl.inline_asm_elementwise("cvt.rn.f16x2.f32 $0, $2, $1;", "=r,r,r", [p], dtype=tl.float16,
                                         is_pure=True, pack=2)


@triton.jit
def fast_log2(x):
    """log2 by the SFU (lg2.approx), where tl.math.log2 is libdevice's
    software log2f with branches: for the log-sum-exp's row sums, at least
    1 (the row max's own term), where its error is about 2^-22."""
    return tl.inline_asm_elementwise("lg2.approx.ftz.f32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True,
                                     pack=1)


def _rescale_asm(pack, wait=False):
    """acc * alpha for `pack` accumulator elements (operands: the outputs, acc
    tied to them, alpha broadcast), branched around by a warp where no row's
    alpha differs from 1; `wait`: each side first waits for the wgmmas in
    flight. In the wgmma accumulator a thread's elements 0 and 2 are its two
    rows. Returns (asm, constraints)."""
    muls = "".join(f"mul.f32 ${i}, ${i}, ${2 * pack + i}; " for i in range(pack))
    wait_pv = "wgmma.wait_group.sync.aligned 0; " if wait else ""
    skip = f"bra.uni DONE; SKIP: {wait_pv}DONE: " if wait else "SKIP: "
    asm = ("{ .reg .pred moved; "
           f"setp.neu.f32 moved, ${2 * pack}, 0f3F800000; setp.neu.or.f32 moved, ${2 * pack + 2}, 0f3F800000, moved; "
           f"vote.sync.any.pred moved, moved, 0xffffffff; @!moved bra.uni SKIP; {wait_pv}{muls}{skip}}}")
    return tl.constexpr(asm), tl.constexpr(",".join(["=r"] * pack + [str(i) for i in range(pack)] + ["r"] * pack))


def _rescale_after_asm(pack):
    """_rescale_asm(pack, wait=True) with `pack` more operands that it does
    not read: values computed before it (the first half's row sums), so
    that the exp2s that make them stay ahead of its branch."""
    asm, constraints = _rescale_asm(pack, wait=True)
    return asm, tl.constexpr(constraints.value + "," + ",".join(["r"] * pack))


_RESCALE_ASM_32, _RESCALE_CONSTRAINTS_32 = _rescale_asm(32)
_RESCALE_ASM_64, _RESCALE_CONSTRAINTS_64 = _rescale_asm(64)
_WAIT_RESCALE_ASM_32, _ = _rescale_asm(32, wait=True)
_WAIT_RESCALE_ASM_64, _ = _rescale_asm(64, wait=True)
_AFTER_RESCALE_ASM_32, _AFTER_RESCALE_CONSTRAINTS_32 = _rescale_after_asm(32)
_AFTER_RESCALE_ASM_64, _AFTER_RESCALE_CONSTRAINTS_64 = _rescale_after_asm(64)


@triton.jit
def rescale_moved(acc, alpha, WAIT_PV: tl.constexpr = False):
    """acc * alpha[:, None], left out by each warp whose rows' alpha are all
    exactly 1 (no row's running max moved in this block). A thread holds 32
    accumulator elements at head dim 64, 64 or 128 above: one or two votes.
    WAIT_PV: acc is still PV's accumulator in flight, and the asm waits for
    it on both sides of its branch (wgmma.wait_group 0), which ptxas cannot
    hoist above the softmax before the asm: it hoists a wait that stands
    alone there above all exp2s, and the softmax never overlaps its own PV."""
    alphas = tl.broadcast_to(alpha[:, None], acc.shape)
    # not pure with the wait: LLVM must leave it where the program put it
    if acc.shape[0] * acc.shape[1] // 128 == 32:
        return tl.inline_asm_elementwise(_WAIT_RESCALE_ASM_32 if WAIT_PV else _RESCALE_ASM_32,
                                         _RESCALE_CONSTRAINTS_32, [acc, alphas], dtype=tl.float32,
                                         is_pure=not WAIT_PV, pack=32)
    else:
        return tl.inline_asm_elementwise(_WAIT_RESCALE_ASM_64 if WAIT_PV else _RESCALE_ASM_64,
                                         _RESCALE_CONSTRAINTS_64, [acc, alphas], dtype=tl.float32,
                                         is_pure=not WAIT_PV, pack=64)


@triton.jit
def rescale_moved_after(acc, alpha, after):
    """rescale_moved(acc, alpha, WAIT_PV=True) placed after `after` (a row
    vector, or lane_sums' [rows, 8], that the asm takes and does not read)
    is computed."""
    alphas = tl.broadcast_to(alpha[:, None], acc.shape)
    if len(after.shape) == 2:  # column bits 0-2 of acc's layout hold the same lanes and registers
        rows: tl.constexpr = acc.shape[0]
        afters = tl.reshape(tl.broadcast_to(after[:, None, :], [rows, acc.shape[1] // 8, 8]), acc.shape)
    else:
        afters = tl.broadcast_to(after[:, None], acc.shape)
    if acc.shape[0] * acc.shape[1] // 128 == 32:
        return tl.inline_asm_elementwise(_AFTER_RESCALE_ASM_32, _AFTER_RESCALE_CONSTRAINTS_32, [acc, alphas, afters],
                                         dtype=tl.float32, is_pure=False, pack=32)
    else:
        return tl.inline_asm_elementwise(_AFTER_RESCALE_ASM_64, _AFTER_RESCALE_CONSTRAINTS_64, [acc, alphas, afters],
                                         dtype=tl.float32, is_pure=False, pack=64)


@triton.jit
def online_softmax_waiting_pv(qk, m_i, l_i, qk_scale, offs_m, kv_start, acc, masked, BLOCK_N: tl.constexpr,
                              LAZY: tl.constexpr):
    """online_softmax (causal mask in its "lane" form where `masked`) with
    PV's wait and the accumulator's rescale (rescale_moved_after) between
    the exp2s of the block's first half of columns and those of its second,
    as FlashAttention-3 waits for PV after a few of its exp2s: the first
    half overlaps PV, and the second may take the registers of the P that
    PV read. The halves are column bit BLOCK_N / 2, a register bit of the
    wgmma accumulator (split without shuffles; bit 0's split shuffled).
    Returns (p, m, l, acc)."""
    if masked:
        qk = causal_mask(qk, offs_m, kv_start, BLOCK_N, "lane")
    # online_softmax's row max, written out: as a function of its own it changed the default kernels' SASS
    m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
    if LAZY > 0:
        m_ij = tl.where(m_ij > m_i + LAZY, m_ij, m_i)
    alpha = tl.math.exp2(m_i - m_ij)
    rows: tl.constexpr = qk.shape[0]
    qk_first, qk_second = tl.split(tl.permute(tl.reshape(qk, [rows, 2, BLOCK_N // 2]), [0, 2, 1]))
    p_first = tl.math.exp2(qk_first * qk_scale - m_ij[:, None])
    sum_first = sums_like(l_i, p_first)
    acc = rescale_moved_after(acc, alpha, sum_first)
    p_second = tl.math.exp2(qk_second * qk_scale - m_ij[:, None])
    l_i = scaled(l_i, alpha) + sum_first + sums_like(l_i, p_second)
    p = tl.reshape(tl.permute(tl.join(p_first, p_second), [0, 2, 1]), [rows, BLOCK_N])
    return p, m_ij, l_i, acc

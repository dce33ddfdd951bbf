"""Which rows a program of the flash-attention backward (examples/hopper_flash_attention_bwd.py) runs: a whole
program (K/V rows of one head against its Q rows; in a cluster, neighbouring K/V blocks), or with the split tail
a piece of one (a share of its Q trips), whose dK and dV partial sums go to an fp32 workspace."""
import triton
import triton.language as tl

import tlx_alias as tlx
from hopper_flash_attention_bwd_dq import red_add


@triton.jit
def _q_range(n0, N_CTX, CAUSAL: tl.constexpr):
    """The Q rows that see K/V rows [n0, n0 + BLOCK_N): causal, from n0 on."""
    if CAUSAL:
        return n0, N_CTX
    else:
        return 0, N_CTX


@triton.jit
def program_rows(N_CTX, split_whole, split_pieces, workspace, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                 TRIP: tl.constexpr, CAUSAL: tl.constexpr, CLUSTER: tl.constexpr, SPLIT: tl.constexpr):
    """(n0, row0, lo, hi, piece, its workspace) of this program: K/V rows n0 of head row0 / N_CTX against the Q
    rows [lo, hi). SPLIT (a 1-D grid): the first split_whole programs are whole; program split_whole + k is
    piece k % split_pieces of whole program split_whole + k // split_pieces, a share of its Q trips that
    adds its dK and dV to that program's 2 x 128 x HEAD_DIM fp32 rows of the workspace (piece -1: whole)."""
    if SPLIT:
        pid = tl.program_id(0)
        extra = tl.maximum(pid - split_whole, 0)
        unit = tl.where(pid < split_whole, pid, split_whole + extra // split_pieces)
        piece = tl.where(pid < split_whole, -1, extra % split_pieces)
        n0 = unit % (N_CTX // 128) * 128
        row0 = unit // (N_CTX // 128) * N_CTX
        trips = N_CTX // (TRIP * BLOCK_M)
        lo = tl.where(piece < 0, 0, piece * trips // split_pieces * (TRIP * BLOCK_M))
        hi = tl.where(piece < 0, N_CTX, (piece + 1) * trips // split_pieces * (TRIP * BLOCK_M))
        return n0, row0, lo, hi, piece, workspace + extra // split_pieces * (2 * 128 * HEAD_DIM)
    else:
        n0 = (tl.program_id(0) * CLUSTER + tlx.cluster_cta_rank()) * 128
        lo, hi = _q_range(n0, N_CTX, CAUSAL)
        return n0, tl.program_id(1) * N_CTX, lo, hi, -1, workspace


@triton.jit
def add_partials(dk, dv, workspace, cid: tl.constexpr, HEAD_DIM: tl.constexpr):
    """A piece's dK and dV of this consumer's 64 rows, added (fp32 reductions in the accumulator's layout) to
    its program's rows of the workspace (dK's, then dV's: 128 x HEAD_DIM each)."""
    rows = cid * 64 + tl.arange(0, 64)
    offs = rows[:, None] * HEAD_DIM + tl.arange(0, HEAD_DIM)[None, :]
    red_add(workspace + offs, dk)
    red_add(workspace + 128 * HEAD_DIM + offs, dv)


@triton.jit
def persistent_tiles(tiles, CAUSAL: tl.constexpr):
    """How many of the `tiles` (K/V blocks of every head) this persistent program runs (tile_rows)."""
    if CAUSAL:
        return 2 * tl.cdiv(tiles // 2 - tl.program_id(0), tl.num_programs(0))
    else:
        return tl.cdiv(tiles - tl.program_id(0), tl.num_programs(0))


@triton.jit
def tile_rows(k, N_CTX, CAUSAL: tl.constexpr):
    """(n0, row0, lo, hi) of this persistent program's k-th tile: K/V rows n0 of head row0 / N_CTX against the
    Q rows [lo, hi). Program p of G runs tiles p, p + G, ... of the heads' tiles in order (non-causal, all alike);
    causal, pairs p, p + G, ..., pair j of a head its K/V blocks j and blocks - 1 - j, whose Q rows add up to
    N + 128: the same work each pair (the heads' tiles in order would give some programs the long ones)."""
    p = tl.program_id(0)
    blocks = N_CTX // 128
    if CAUSAL:
        pair = p + tl.num_programs(0) * (k // 2)
        j = pair % (blocks // 2)
        block = tl.where(k % 2 == 0, j, blocks - 1 - j)
        head = pair // (blocks // 2)
    else:
        tile = p + tl.num_programs(0) * k
        block = tile % blocks
        head = tile // blocks
    lo, hi = _q_range(block * 128, N_CTX, CAUSAL)
    return block * 128, head * N_CTX, lo, hi


def split_rows_back(dk, dv, workspace, whole, programs, blocks):
    """The split programs' dK and dV rows (programs whole, whole + 1, ...), their pieces' sums in the fp32
    workspace, into dk and dv ((batch, heads, N, head_dim); blocks 128-row K/V blocks a head)."""
    import torch
    split_blocks = torch.arange(whole, programs, device=dk.device)
    for grad, part in ((dk, 0), (dv, 1)):
        rows_of = grad.view(-1, blocks, 128, grad.shape[-1])
        rows_of[split_blocks // blocks, split_blocks % blocks] = workspace[:, part].to(grad.dtype)

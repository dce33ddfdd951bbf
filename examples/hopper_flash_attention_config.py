"""The host side of examples/hopper_flash_attention.py that picks its
configs: the defaults (measured on an H200: docs/design/attention.md),
the shared-memory budget of a config and the checks on attention()'s inputs."""
import numbers


def default_config(head_dim, alias=True):
    """(BLOCK_N, STAGES, Q_BUFFERS) at BLOCK_M = 128 (docs/design/attention.md):
    the fastest measured config that fits 227 KiB."""
    if head_dim <= 128:
        return 128, 2, 2
    return (64, 2, 1) if alias else (32, 2, 1)


def default_groups(head_dim, causal, n_ctx):
    """Consumer warp groups (64 tile rows each): three at head dim 64 from
    N = 2048 (causal, with tiles that end at N: +5.7% at 2048, +6% at 4096,
    +9% at 16384; non-causal +7% at 2048, +17-22% at 4096 and 16384). At
    N = 1024 two: 192-row tiles run 6 where 5⅓ would do (non-causal 2-4%
    slower than two groups, causal 12%)."""
    return 3 if head_dim == 64 and n_ctx >= 2048 else 2


def default_issue(head_dim, causal, n_ctx, cluster=1):
    """(p_16bit, pv_in_turn, thread_arrives, rescale_skip, late_pv_wait, lane_sums):
    whether P goes to 16 bits right after its softmax, whether a consumer's
    turn covers its PV as well as its QK^T (FlashAttention-3's order), which
    rings' slots the consumers hand back by every thread's own arrive (no
    warp-group bar.sync before it): "kqv", or "kq" (V by a leader's), the
    lazy rescale's threshold (a row's max moves only when a block's exceeds
    it by more than 8 powers of two) or False, and whether PV is waited for
    inside the lazy rescale, after the softmax, and whether each thread keeps
    its own share of the row sums. Measured on an H200, bf16,
    interleaved (docs/design/attention.md): P in 16 bits and PV in turn at
    head dim 64, +0.1-2% at every N; P in 16 bits for causal head dim 128
    (+10% at N = 1024, +0.5-4% at 4096; at 16384 -2% without the lazy
    rescale, +2-3% with it); elsewhere neither (P in 16 bits -2 to -4%
    at head dim 128 non-causal, PV in turn level or slower at 128 and 256).
    Thread arrives everywhere (geomean +0.6% over leader arrives, up to +3%
    causal), but V by a leader at head dim 256 non-causal in one CTA (+2 to
    +5% at N = 16384; in clusters of two every thread's own: +2.2-2.9% at
    N = 4096, 16384). The lazy rescale from N = 4096 at head dims 64
    (+0.3-2%), 128 (+1-2.5%; +2-5% at 16384) and 256 (+1.5-6%); with the
    late PV wait, which head dim 128 takes wherever it rescales lazily
    (+0.3-3.7%; at 256 -1 to -4%, at 64 causal -42%), at 128 from 2048
    (+5%), causal from 4096 (+2.5%; without it -5 to 0%); causal "half"
    (the wait amid the exp2s; SM cycles at head dim 64: -8.0% at N = 4096,
    -3.7% at 16384, non-causal +3-4%; at 128 causal level at 4096, -2.3% at
    16384). Row sums by lane causal at head dims 64 and 128 (+2.6-5.5% at
    N = 4096 and 16384; SM cycles -3.3 to -4.4%) and at 256 non-causal
    (+0.8%, +2.2%); not at 256 causal (-1.8% at 4096) nor 128 non-causal
    (cycles +0.4%)."""
    arrives = "kq" if head_dim == 256 and not causal and cluster == 1 else "kqv"
    lazy = 8.0 if n_ctx >= ((4096 if causal else 2048) if head_dim == 128 else 4096) else False
    late = ("half" if causal else head_dim == 128) if lazy and head_dim <= 128 else False
    lanes = head_dim <= 128 if causal else head_dim == 256
    if head_dim == 64:
        return True, True, arrives, lazy, late, lanes
    return head_dim == 128 and causal, False, arrives, lazy, late, lanes


def default_cluster(head_dim, causal, n_ctx, tile_order, o_staging, num_pid_m):
    """CTAs per cluster (docs/design/attention.md, "Clusters of two CTAs"):
    two at head dim 128 from N = 4096 (causal from 8192), where rank 0's
    multicast of each K/V block into both CTAs measured +2-5% on an H200
    (causal +1.6-2.4%, -3% at 4096), and at head dim 256 from N = 4096
    (causal +1.4-5.5%, non-causal with every thread's own arrives +2.2-2.9%,
    once the relayed remote arrive lost its GPU-scope fence; -5% at 2048);
    one elsewhere (head dim 64 level non-causal and -3 to -5% causal)."""
    fits = tile_order in ("rows", "table") and o_staging == "q" and num_pid_m % 2 == 0
    wanted = (head_dim == 128 and n_ctx >= (8192 if causal else 4096)) or (head_dim == 256 and n_ctx >= 4096)
    return 2 if fits and wanted else 1


def check_rescale_skip(option):
    """rescale_skip as the kernel's RESCALE_SKIP: -1 off, 0 the exact skip,
    > 0 the lazy rescale's threshold; a ValueError for anything else (above
    15, fp16's P would overflow)."""
    if option is False or option is True:
        return 0.0 if option else -1.0
    if isinstance(option, numbers.Real) and 0 < option <= 15:
        return float(option)
    raise ValueError(f"attention: rescale_skip must be True, False or a lazy rescale's threshold in powers of two "
                     f"(0 < threshold <= 15), got {option!r}")


def check_late_pv_wait(option, rescale_skip, p_16bit=True, groups=2):
    """late_pv_wait as the kernel's LATE_PV_WAIT: the wait rides the
    rescale's vote (rescale_skip True or a threshold, as RESCALE_SKIP >= 0);
    "half" splits the softmax around it and takes P in 16 bits (p_16bit, or
    three consumer groups, which always keep P so)."""
    if option not in (True, False, "half"):
        raise ValueError(f"attention: late_pv_wait must be True, False or 'half', got {option!r}")
    if option and rescale_skip < 0:
        raise ValueError("attention: late_pv_wait waits for PV inside the rescale's skip, which needs rescale_skip "
                         "(True or a lazy rescale's threshold)")
    if option == "half" and not (p_16bit or groups == 3):
        raise ValueError("attention: late_pv_wait='half' takes P in 16 bits (p_16bit=True or groups=3)")
    return option


def check_flag(name, option):
    """An on/off option (lane_sums, l2_hints) as the kernel's constexpr."""
    if option not in (True, False):
        raise ValueError(f"attention: {name} must be True or False, got {option!r}")
    return option


def block_order(diagonal_first, kv_order, causal, block_m, block_n, head_dim=0):
    """The kernel's BLOCK_ORDER (_block_start): "ascending", or, for a causal
    tile whose diagonal spans whole K/V blocks, its diagonal (masked) blocks
    first and then the others ascending ("diagonal_first") or, with
    kv_order "descending", from the diagonal down to the first
    ("diagonal_first_descending", FlashAttention-3's order: the tiles of a
    head that start apart read a block near their ends, close in time).
    kv_order None: descending at head dim 256 where the diagonal comes first
    (an H200: DRAM 991 -> 813 MB, +2.2% at N = 4096; at 16384 with the
    table's groups of two heads, default_table_heads, 1867 -> 855 MB, +1.2%;
    level at head dim 128), else ascending."""
    diagonal_blocks_first = diagonal_first and causal and block_m % block_n == 0
    if kv_order is None:
        kv_order = "descending" if diagonal_blocks_first and head_dim == 256 else "ascending"
    if kv_order not in ("ascending", "descending"):
        raise ValueError(f"attention: kv_order must be 'ascending' or 'descending', got {kv_order!r}")
    if not diagonal_blocks_first:
        if kv_order == "descending":
            raise ValueError("attention: kv_order='descending' orders the K/V blocks after a causal tile's "
                             "diagonal: it needs causal=True, diagonal_first and tiles of whole K/V blocks")
        return "ascending"
    return "diagonal_first_descending" if kv_order == "descending" else "diagonal_first"


def check_thread_arrives(option):
    if option not in ("kqv", "kq", ""):
        raise ValueError(f"attention: thread_arrives must be 'kqv', 'kq' or '', got {option!r}")
    return option


def consumer_registers_for(groups, late_pv_wait, scheduled):
    """Registers a consumer thread gets (setmaxnreg) unless chosen: 160 with
    three consumer groups, 240 with a late PV wait (P and acc stay live
    through the softmax: +0.5-3% at head dim 128, docs/design/attention.md),
    else `scheduled` (default_schedule's choice)."""
    return 160 if groups == 3 else 240 if late_pv_wait else scheduled


def default_schedule(head_dim, n_ctx, alias=True, block_n=None, stages=None, v_stages=None, q_buffers=None):
    """The choices beyond default_config for a config left at it, as a dict
    (o_staging, v_stages or None, q_reg_cols, consumer_registers); the
    measurements behind them: docs/design/attention.md."""
    chosen = (block_n, stages, v_stages, q_buffers) != (None, None, None, None)
    if alias and head_dim == 256 and not chosen:
        if n_ctx <= 1024:
            return dict(o_staging="v", v_stages=3, q_reg_cols=0, consumer_registers=232)
        return dict(o_staging="q", v_stages=None, q_reg_cols=64, consumer_registers=240)
    return dict(o_staging="q", v_stages=None, q_reg_cols=0, consumer_registers=232)


def smem_bytes(head_dim, block_n, stages, alias, q_buffers=1, block_m=128, itemsize=2, v_stages=None,
               o_staging="q"):
    """Bytes of the kernel's buffers: the Q tiles, the K and V rings and
    the O tiles, which lie over Q (alias, o_staging "q"), over V slots
    ("v": a slot then holds the larger of a V block and an O tile) or beside
    them (unaliased: one O tile per consumer)."""
    q = block_m * head_dim * itemsize
    kv = block_n * head_dim * itemsize
    v_stages = v_stages or stages
    if alias and o_staging == "v":
        return q * q_buffers + stages * kv + v_stages * max(kv, q // 2)
    return q * (q_buffers if alias else q_buffers + 1) + (stages + v_stages) * kv


def check_inputs(q, k, v):
    import torch
    if k.shape != q.shape or v.shape != q.shape:
        raise ValueError(f"attention: q, k and v must have one shape, got {tuple(q.shape)}, {tuple(k.shape)}, "
                         f"{tuple(v.shape)}")
    if q.dtype not in (torch.float16, torch.bfloat16) or k.dtype != q.dtype or v.dtype != q.dtype:
        raise ValueError(f"attention: q, k and v must all be float16 or all bfloat16, got {q.dtype}, {k.dtype}, "
                         f"{v.dtype}")
    if q.shape[3] not in (64, 128, 256):
        raise ValueError(f"attention: head_dim must be 64, 128 or 256, got {q.shape[3]}")
    return q.shape

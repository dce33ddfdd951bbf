"""The host side of examples/hopper_flash_attention_bwd.py that picks its
configs: the defaults (measured on an H200: docs/design/attention_backward.md), the
candidates the benchmark measures beside them, the shared-memory budget of a
config, and attention_backward's options resolved and checked."""

BLOCK_N = 128  # K/V rows of a program: 64 per consumer warp group
SMEM_LIMIT = 232448  # sm_90's opt-in shared memory per block (227 KiB)
BARRIER_BYTES = 1024  # what the mbarriers beside the buffers may take


def default_config(head_dim, alias=True):
    """(BLOCK_M, STAGES, DS_OVER_DO): Q blocks of 64 rows and the deepest
    Q/dO ring up to 4 that fits 227 KiB (docs/design/attention_backward.md): at head
    dim 128 three stages aliased, two in the unaliased twin."""
    if head_dim <= 64:
        return 64, 4, False
    return (64, 3, False) if alias else (64, 2, False)


# Variants for benchmarks/attention_bwd.py to measure beside the default, and
# the head dims each is for (the GPU tests run each): LSE and delta through
# the ring (no global loads in the consumers, no spills in their loop at head
# dim 128); at 64 also each block's dQ atomics deferred behind the next
# block's S^T and dP^T (at 128 the held dQ spills); dQ through shared memory
# and a TMA reduce-add, each consumer its own whole-width partial, no named
# barrier (at 64 with LSE in the ring); dQ halves (the default before dQ
# turns; at 64 over 128-row Q blocks); a leader's arrive (after a warp-group
# bar.sync) for each slot's release; causal Q blocks taken ascending (the
# default before they were taken from the last down); persistent programs and
# one program a K/V block at every N (each the default at some N).
CANDIDATES = {
    "lse_smem": (dict(lse_smem=True, dq_halves=False, dq_turns=False), (64, 128)),
    "lse_smem_dq_defer": (dict(lse_smem=True, dq_defer=True), (64, )),
    "dq_tma": (dict(dq_tma=True, dq_halves=False, dq_turns=False), (64, 128)),
    "leader arrives": (dict(thread_arrives=False), (64, 128)),
    "dq_tma_lse_smem": (dict(dq_tma=True, lse_smem=True, dq_halves=False, dq_turns=False), (64, )),
    "dq_halves": (dict(dq_halves=True), (64, 128)),
    "q_ascending": (dict(q_descending=False), (64, 128)),
    "cluster": (dict(cluster=2), (64, 128)),  # non-causal
    "split_tail": (dict(split_tail=True), (64, 128)),  # non-causal (causal: the default)
    "persistent": (dict(persistent=True), (64, 128)),  # (the default up to N = 4096)
    "one program a block": (dict(persistent=False), (64, 128)),  # (the default from N = 8192)
}


def smem_bytes(head_dim, block_m, stages, alias, ds_over_do=False, itemsize=2, lse_smem=False, dq_tma=False,
               dq_halves=False, dq_turns=False):
    """Bytes of the kernel's buffers: K and V (BLOCK_N rows), the Q and dO
    rings, the dS^T tiles (two buffers of BLOCK_N x BLOCK_M, or over the dO
    slots: a slot then holds the larger of a dO tile and a dS^T tile; dq_tma:
    each consumer's over its fp32 BLOCK_M x head_dim dQ tile; dq_halves: beside
    a BLOCK_M x head_dim / 2 one; dq_turns: beside the BLOCK_M x head_dim
    one), the dK/dV staging (over K and V when aliased) and (lse_smem) the
    LSE and delta rings."""
    kv = BLOCK_N * head_dim * itemsize
    qo = block_m * head_dim * itemsize
    ds = BLOCK_N * block_m * itemsize
    if dq_halves or dq_turns:  # dS^T double-buffered, and BLOCK_M x head_dim fp32 of dQ tiles
        ds += block_m * head_dim // 2 * 4
    elif dq_tma:
        ds = max(block_m * head_dim * 4, ds // 2)  # a consumer's dQ tile, its dS^T over it: two below
    rings = stages * (qo + (max(qo, ds) if ds_over_do else qo)) + (0 if ds_over_do else 2 * ds)
    vectors = 2 * stages * block_m * 4 if lse_smem else 0
    return 2 * kv + rings + (0 if alias else 2 * kv) + vectors


def dq_tile_columns(head_dim, dq_halves, dq_turns):
    """The columns of one fp32 dQ tile (the TMA reduce-add's box): the whole
    head with dQ turns, half of it with dQ halves, else 64."""
    return head_dim if dq_turns else head_dim // 2 if dq_halves else 64


def _fits(head_dim, block_m, stages, alias, **options):
    return smem_bytes(head_dim, block_m, stages, alias, **options) + BARRIER_BYTES <= SMEM_LIMIT


def resolve_options(head_dim, alias=True, block_m=None, stages=None, ds_over_do=None, lse_smem=None, dq_defer=False,
                    dq_tma=None, dq_halves=None, dq_turns=None):
    """attention_backward's (block_m, stages, ds_over_do, lse_smem, dq_tma,
    dq_halves, dq_turns), its None's given their defaults; a ValueError names
    what does not go together."""
    default_m, default_stages, default_ds = default_config(head_dim, alias)
    ds_over_do = default_ds if ds_over_do is None else ds_over_do
    plain = not (ds_over_do or dq_defer) and False not in (dq_tma, lse_smem)  # the ways of dq_tma with LSE in the ring
    if dq_turns is None:  # where it fits (at head dim 128: aliased): 1.02-1.08x dQ halves on an H200
        dq_turns = (plain and block_m in (None, 64) and not dq_halves
                    and _fits(head_dim, 64, stages or default_stages, alias, lse_smem=True, dq_tma=True, dq_turns=True))
    if block_m is None and stages in (None, 2) and head_dim <= 64 and plain and not dq_turns and dq_halves is not False:
        block_m, stages = 128, 2  # dQ halves' tile at head dim 64: 1.01-1.04x 64-row blocks
    block_m, stages = block_m or default_m, stages or default_stages
    if dq_halves is None:  # where it fits (at head dim 128: aliased, dK over K and dV over V), with LSE in the ring
        dq_halves = (not dq_turns and plain
                     and _fits(head_dim, block_m, stages, alias, lse_smem=True, dq_tma=True, dq_halves=True))
    if lse_smem is None:  # at head dim 64 with dq_tma: 0.95-0.98x SDPA's backward against 0.85-0.90x
        lse_smem = (head_dim <= 64 or dq_halves or dq_turns) and not dq_defer
    if dq_tma is None:  # fits aliased, and unaliased at head dim 64
        fits = alias or head_dim <= 64
        dq_tma = dq_halves or dq_turns or (fits and not (ds_over_do or dq_defer or (lse_smem and head_dim > 64)))
    _check_options(head_dim, alias, block_m, stages, ds_over_do, lse_smem, dq_defer, dq_tma, dq_halves, dq_turns)
    return block_m, stages, ds_over_do, lse_smem, dq_tma, dq_halves, dq_turns


def resolve_q_order(causal, dq_defer=False, q_descending=None):
    """Whether a program takes its Q blocks from the last down: by default
    when causal (a head's programs then read the same Q and dO blocks
    together; 1.02-1.04x ascending on an H200), never with dq_defer (it adds
    each block's dQ in the next step, counting on ascending blocks)."""
    if q_descending is None:
        return causal and not dq_defer
    if q_descending and dq_defer:
        raise ValueError("attention_backward: dq_defer adds each Q block's dQ in the next step, from Q blocks taken "
                         "in ascending order: pass q_descending=False")
    return q_descending


def resolve_cluster(causal, n_ctx, cluster=None):
    """CTAs per cluster: 2 (neighbouring K/V blocks of a head sharing each
    Q/dO block's load) only non-causal, with an even number of 128-row K/V
    blocks; 1 by default."""
    if cluster in (None, 1):
        return 1
    if cluster != 2 or causal or n_ctx % 256:
        raise ValueError(f"attention_backward: cluster must be 1, or 2 for non-causal attention with N a multiple of "
                         f"256; got cluster={cluster}, causal={causal}, N={n_ctx}")
    return cluster


def tail_split(programs, num_sms, trips, causal, cluster=1, split_tail=None):
    """(whole programs, pieces per split program) where the programs past the
    last whole wave (programs % num_sms of them) run as one more wave of
    pieces (each a share of the Q trips), or None: without split_tail, causal
    (programs differ in length), in clusters, or where that would not make
    two pieces a program."""
    rest = programs % num_sms
    if not split_tail or causal or cluster > 1 or rest == 0:
        return None
    pieces = min(num_sms // rest, trips)
    return (programs - rest, pieces) if pieces >= 2 else None


def resolve_persistent(n_ctx, causal, alias, lse_smem, dq_turns, cluster=1, split=None, persistent=None):
    """Whether the backward runs persistent programs, each its share of the
    K/V blocks one after the other (the next block's K/V loading during the
    last one's epilogue, dK/dV staged over the dQ and dS^T tiles): by default
    up to N = 4096, where that is 1-2% faster on an H200, not beyond (2.6-3.1%
    slower at 16384: docs/design/attention_backward.md). It takes dQ turns
    with LSE in the ring, aliased, one CTA a cluster, no split tail, and
    causal an even number of 128-row K/V blocks (they go in pairs)."""
    why = ("dq_turns with lse_smem" if not (dq_turns and lse_smem) else "alias=True" if not alias else
           "one CTA a cluster" if cluster != 1 else "no split_tail" if split else
           "an even number of 128-row K/V blocks when causal (N a multiple of 256)" if causal and n_ctx % 256 else "")
    if persistent is None:
        return not why and n_ctx <= 4096
    if persistent and why:
        raise ValueError(f"attention_backward: persistent programs take {why}")
    return bool(persistent)


def _check_options(head_dim, alias, block_m, stages, ds_over_do, lse_smem, dq_defer, dq_tma, dq_halves, dq_turns):
    def refuse(message):
        raise ValueError("attention_backward: " + message)

    if block_m != 64 and (block_m != 128 or head_dim > 64):
        refuse(f"block_m must be 64, or 128 at head dim 64, got {block_m}")
    if block_m == 128 and dq_tma and not dq_halves:  # (with lse_smem it faults: docs/design/attention_backward.md)
        refuse("128-row Q blocks take dQ as halves (dq_halves) or by atomics")
    if ds_over_do and not alias:
        refuse("ds_over_do lays dS over the dO ring, which needs alias=True")
    if dq_tma and (ds_over_do or dq_defer):
        refuse("dq_tma goes without ds_over_do and dq_defer")
    if dq_halves and dq_turns:
        refuse("dq_halves and dq_turns are two ways of dQ: pass one")
    for name, value in (("dq_halves", dq_halves), ("dq_turns", dq_turns)):
        if value and not dq_tma:
            refuse(f"{name} is a way of dq_tma: pass dq_tma=True")
    options = dict(ds_over_do=ds_over_do, lse_smem=lse_smem, dq_tma=dq_tma, dq_halves=dq_halves, dq_turns=dq_turns)
    if not _fits(head_dim, block_m, stages, alias, **options):
        need = smem_bytes(head_dim, block_m, stages, alias, **options)
        refuse(f"this config needs {need} bytes of shared memory, over sm_90's {SMEM_LIMIT}"
               + ("" if alias else " (alias=True lays dK over K and dV over V)"))

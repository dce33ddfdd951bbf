"""Flash-attention forward on a Hopper GPU: the aliased example (O over Q)
and its unaliased twin against torch's SDPA for every head dim, causal and
not, fp16 and bf16; and the peer's Hopper attention tutorials run under
tlx_alias with only their imports changed (skipped without the peer's
tutorials: TLX_TUTORIALS or TLX_PEER_SITE, see test/support/tutorials.py)."""
import math
import os
import re
import sys

import pytest
import torch
import triton

import tlx_alias  # noqa: F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples"))
sys.path.insert(0, os.path.join(ROOT, "test", "support"))
import hopper_flash_attention as fa  # noqa: E402
import tutorials  # noqa: E402


@pytest.fixture(autouse=True)
def _allocator():
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))


def reference(q, k, v, causal, sm_scale):
    scores = (q.float() @ k.float().transpose(-1, -2)) * sm_scale
    if causal:
        n = q.shape[2]
        scores = scores.masked_fill(torch.ones(n, n, device=q.device, dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(scores, -1) @ v.float(), torch.logsumexp(scores, -1)


def check(alias, head_dim, causal, dtype, n, growing_scores=False, **options):
    torch.manual_seed(0)
    z, h = 2, 3  # 18-24 tiles on 5 CTAs: each CTA runs several tiles through the K/V ring and Q/O
    q, k, v = (torch.randn((z, h, n, head_dim), device="cuda", dtype=dtype) for _ in range(3))
    if growing_scores:  # later keys score up to 6x higher: row maxima keep growing, O keeps being rescaled
        k = (k.float() * torch.linspace(1, 6, n, device="cuda")[:, None]).to(dtype)
    sm_scale = 1.0 / math.sqrt(head_dim)
    out, lse = fa.attention(q, k, v, causal=causal, alias=alias, num_sms=5, return_lse=True, **options)
    ref_out, ref_lse = reference(q, k, v, causal, sm_scale)
    torch.testing.assert_close(out.float(), ref_out, rtol=2**-8 if dtype == torch.bfloat16 else 0,
                               atol=2e-2 if dtype == torch.bfloat16 else 4e-3)  # bf16: O's own rounding
    torch.testing.assert_close(lse, ref_lse, rtol=0, atol=1e-3)
    sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    # SDPA's output rounds to 16 bits too: a value may land one unit of the last place (2^-7 of it in bf16) apart
    torch.testing.assert_close(out.float(), sdpa.float(), rtol=2**-7 if dtype == torch.bfloat16 else 2**-10,
                               atol=3e-2 if dtype == torch.bfloat16 else 5e-3)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128, 256])
@pytest.mark.parametrize("alias", [True, False])
def test_attention_matches_reference(alias, head_dim, causal, dtype):
    check(alias, head_dim, causal, dtype, n=512)  # 4 row blocks: causal programs take them in pairs


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("alias, head_dim, stages", [(True, 64, 3), (False, 64, 3), (True, 128, 3), (False, 128, 2)])
def test_attention_single_q_buffer(alias, head_dim, stages, causal):
    check(alias, head_dim, causal, torch.float16, n=512, q_buffers=1, stages=stages)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim, block_n, stages, v_stages, q_buffers, late",
                         [(256, 64, 2, 3, 1, True), (256, 64, 2, 2, 1, True), (256, 64, 2, 3, 1, False),
                          (128, 128, 2, 2, 2, True), (64, 128, 2, 2, 1, True)])
def test_attention_o_over_v(head_dim, block_n, stages, v_stages, q_buffers, late, causal):
    """O staged over the V ring's slots: two V ring entries per tile go to the
    consumers' O tiles (at 128 an O tile takes half of its V slot)."""
    check(True, head_dim, causal, torch.float16, n=1024, o_staging="v", block_n=block_n, stages=stages,
          v_stages=v_stages, q_buffers=q_buffers, late_q_handback=late)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim, q_reg_cols, registers", [(256, 64, 240), (256, 32, 232), (128, 64, 232)])
def test_attention_q_columns_in_registers(head_dim, q_reg_cols, registers, causal):
    """QK^T with Q's first columns from registers (one RS and two or more SS
    wgmmas into one accumulator)."""
    check(True, head_dim, causal, torch.float16, n=1024, q_reg_cols=q_reg_cols, consumer_registers=registers)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_head_dim_256_default_from_2048(causal, dtype):
    """The default schedule at head dim 256 from N = 2048 (Q's first 64
    columns in registers, 240 registers); below it, O over V."""
    check(True, 256, causal, dtype, n=2048)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_growing_scores(causal, dtype):
    check(True, 128, causal, dtype, n=1024, growing_scores=True)


@pytest.mark.parametrize("diagonal_first", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128, 256])  # at 256 the diagonal spans two K/V blocks
def test_causal_attention_diagonal_block_first_or_last(head_dim, diagonal_first):
    check(True, head_dim, True, torch.float16, n=1024, diagonal_first=diagonal_first)


@pytest.mark.parametrize("growing_scores", [False, True])
@pytest.mark.parametrize("head_dim, options", [(64, {}), (128, {}), (128, dict(cluster=2)), (256, {}),
                                               (256, dict(cluster=2)), (128, dict(tile_order="dynamic", cluster=1)),
                                               (256, dict(tile_order="dynamic", cluster=2))])
def test_causal_attention_descending_kv_order(head_dim, options, growing_scores):
    """kv_order="descending": the diagonal's blocks, then the others from the
    diagonal down to the first (a cluster's diagonal in clusters), in the
    table's order and the dynamic one; with growing scores (later keys
    higher) a row's largest scores come first."""
    n = 2048 if head_dim == 256 else 1024  # 256 in clusters: O over Q from 2048; 64 diagonal first up to 1024
    check(True, head_dim, True, torch.bfloat16, n=n, growing_scores=growing_scores, kv_order="descending", **options)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n", [512, 768, 1024])  # 192-row tiles: the last has 128 rows, 192, or 64
def test_attention_three_consumer_groups(n, causal, dtype):
    """Three consumer warp groups (BLOCK_M 192, round-robin turns, 160
    registers): a last tile past N_CTX loads the next head's rows and stores none."""
    check(True, 64, causal, dtype, n=n, groups=3)


@pytest.mark.parametrize("growing_scores", [False, True])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [128, 256])
def test_attention_rescale_skip_changes_no_bit(head_dim, causal, growing_scores):
    """rescale_skip leaves out acc * alpha only where every alpha is 1: the
    same output, bit for bit, as the rescale on every block."""
    check(True, head_dim, causal, torch.bfloat16, n=1024, growing_scores=growing_scores, p_16bit=True,
          rescale_skip=True)
    q, k, v = (torch.randn((2, 3, 1024, head_dim), device="cuda", dtype=torch.bfloat16) for _ in range(3))
    options = dict(causal=causal, num_sms=5, p_16bit=True)
    assert torch.equal(fa.attention(q, k, v, rescale_skip=True, **options), fa.attention(q, k, v, **options))


@pytest.mark.parametrize("growing_scores", [False, True])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128, 256])
def test_attention_lazy_rescale(head_dim, causal, dtype, growing_scores):
    """rescale_skip=8: a row's running max moves only when a block's max
    exceeds it by more than 8 (P up to 2^8), and warps whose rows' maxima all
    stayed put skip the rescale; output and LSE still match the reference."""
    check(True, head_dim, causal, dtype, n=1024, growing_scores=growing_scores, rescale_skip=8.0)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_lazy_rescale_three_consumer_groups(causal):
    """The lazy rescale over 192-row tiles (head dim 64's default from N = 4096 non-causal)."""
    check(True, 64, causal, torch.bfloat16, n=768, growing_scores=True, groups=3, rescale_skip=8.0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim, groups, cluster", [(64, 2, 1), (64, 3, 1), (128, 2, 1), (128, 2, 2), (256, 2, 2)])
def test_attention_late_pv_wait(head_dim, groups, cluster, causal, dtype):
    """late_pv_wait: each consumer waits for its PV inside the lazy rescale's
    asm, after the softmax that overlaps it (head dim 128's default with the
    lazy rescale); rows whose max keeps growing, so that warps take both sides
    of the rescale's branch."""
    n = {3: 768, 2: 2048 if head_dim == 256 else 1024}[groups]  # head dim 256 stages O over V up to 1024
    check(True, head_dim, causal, dtype, n=n, growing_scores=True, groups=groups, cluster=cluster, rescale_skip=8.0,
          late_pv_wait=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim, groups, cluster", [(64, 3, 1), (64, 2, 1), (128, 2, 1), (128, 2, 2)])
def test_attention_half_late_pv_wait(head_dim, groups, cluster, causal, dtype):
    """late_pv_wait="half": PV waited for between the exp2s of a block's two
    halves of columns (split and joined again along column bit BLOCK_N / 2);
    growing row maxima take both sides of the rescale's branch."""
    check(True, head_dim, causal, dtype, n=768 if groups == 3 else 1024, growing_scores=True, groups=groups,
          cluster=cluster, p_16bit=True, rescale_skip=8.0, late_pv_wait="half")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim, options", [
    (64, dict(groups=3, p_16bit=True, pv_in_turn=True, rescale_skip=8.0)),
    (64, dict(groups=3, p_16bit=True, pv_in_turn=True, rescale_skip=8.0, late_pv_wait="half")),
    (64, dict(groups=2)), (128, dict(cluster=2, p_16bit=True, rescale_skip=8.0, late_pv_wait="half")),
    (128, dict(rescale_skip=8.0, late_pv_wait=True)), (256, dict(rescale_skip=8.0)),
    (256, dict(cluster=2, rescale_skip=8.0)), (128, dict(tile_order="dynamic", cluster=2))])
def test_attention_lane_sums(head_dim, options, causal, dtype):
    """lane_sums: each thread's share of the row sums, the quad's shares
    summed at the tile's end (output and LSE), with the PV wait before,
    amid or after the softmax, in one CTA and in clusters; rows whose max
    keeps growing rescale the shares too."""
    if options.get("tile_order") == "dynamic" and not causal:
        pytest.skip("the dynamic order is causal")
    n = 768 if options.get("groups") == 3 else 2048 if head_dim == 256 else 1024  # 256: O over Q from 2048
    check(True, head_dim, causal, dtype, n=n, growing_scores=True, lane_sums=True, **options)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim, options", [(64, {}), (128, dict(cluster=2)), (256, {}), (256, dict(cluster=2))])
def test_attention_l2_hints_change_no_bit(head_dim, options, causal):
    """l2_hints=True (K and V loaded at L2 evict_last priority, in clusters
    by rank 0's multicast, Q at evict_first) changes where lines stay, no
    bit of the output or LSE."""
    torch.manual_seed(0)
    n = 2048 if head_dim == 256 else 1024  # 256 in clusters: O over Q from 2048
    q, k, v = (torch.randn((2, 3, n, head_dim), device="cuda", dtype=torch.bfloat16) for _ in range(3))
    plain = fa.attention(q, k, v, causal=causal, num_sms=5, return_lse=True, **options)
    hinted = fa.attention(q, k, v, causal=causal, num_sms=5, return_lse=True, l2_hints=True, **options)
    assert torch.equal(plain[0], hinted[0]) and torch.equal(plain[1], hinted[1])
    ref_out, ref_lse = reference(q, k, v, causal, 1.0 / math.sqrt(head_dim))
    torch.testing.assert_close(hinted[0].float(), ref_out, rtol=2**-8, atol=2e-2)
    torch.testing.assert_close(hinted[1], ref_lse, rtol=0, atol=1e-3)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_late_pv_wait_changes_no_bit(causal):
    """The same output, bit for bit, with PV waited for after the softmax or
    before it (the exact skip: rescale_skip=True)."""
    q, k, v = (torch.randn((2, 3, 1024, 128), device="cuda", dtype=torch.bfloat16) for _ in range(3))
    options = dict(causal=causal, num_sms=5, rescale_skip=True)
    assert torch.equal(fa.attention(q, k, v, late_pv_wait=True, **options),
                       fa.attention(q, k, v, late_pv_wait=False, **options))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim, groups", [(64, 3), (64, 2), (128, 2), (256, 2)])
@pytest.mark.parametrize("pv_in_turn", [False, True])
def test_attention_turn_covers_pv_or_not(head_dim, groups, pv_in_turn, causal):
    """A consumer's turn ends after its QK^T or (pv_in_turn, FlashAttention-3's
    order) after its PV too, P in 16 bits; rows whose max keeps growing."""
    check(True, head_dim, causal, torch.bfloat16, n=768, growing_scores=True, groups=groups, p_16bit=True,
          pv_in_turn=pv_in_turn)


@pytest.mark.parametrize("tile_order", ["pairs", "table"])
@pytest.mark.parametrize("head_dim, groups, n", [(64, 2, 1024), (64, 3, 768), (128, 2, 1024), (256, 2, 512)])
def test_causal_attention_tile_orders(head_dim, groups, n, tile_order):
    """Causal tiles in pairs of equal cost, or from the host's table (longest
    first in groups of four heads, list-scheduled); 5 programs run 24-48
    tiles each, 192-row tiles with a last one past N among them."""
    check(True, head_dim, True, torch.bfloat16, n=n, groups=groups, tile_order=tile_order)


@pytest.mark.parametrize("head_dim, options", [(128, dict(table_heads=1)), (256, dict(table_heads=2, cluster=2)),
                                               (256, dict(table_heads=1, kv_order="descending"))])
def test_causal_attention_table_heads(head_dim, options):
    """table_heads: the table's groups start at one or two heads (FA3's
    sections: two heads' K/V at head dim 256 N = 16384 fill 32 MiB); every
    tile once, output and LSE."""
    check(True, head_dim, True, torch.bfloat16, n=2048, **options)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("head_dim, options", [
    (64, dict(groups=3)), (64, dict(groups=3, stages=4)), (64, dict(groups=2)), (128, {}),
    (128, dict(q_buffers=1, stages=3)), (256, {}), (256, dict(o_staging="v", v_stages=3)),
    (128, dict(rescale_skip=8.0, late_pv_wait=True, p_16bit=True)), (128, dict(cluster=2)),
    (128, dict(cluster=2, q_buffers=1, stages=3)), (256, dict(cluster=2, o_staging="q", rescale_skip=8.0))])
def test_causal_attention_dynamic_tile_order(head_dim, options, dtype):
    """Causal tiles taken from a counter in global memory as programs come
    free, each handed by the producer to the consumers beside its Q: every
    tile once (output and LSE of every row; six heads: a group of four and
    the last of two), with the Q ring in one or two buffers, two to four K/V
    stages, O over Q or V, and in clusters of two CTAs (rank 0 asks, rank 1
    takes the answer from a mailbox). Run twice with the same (cached)
    counter and mailboxes: had the first launch not set the counter back to
    0 or left an answer behind, the second's programs would find every tile
    past their first taken or run a stale one."""
    for _ in range(2):
        check(True, head_dim, True, dtype, n=768, growing_scores=True, tile_order="dynamic", **options)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim, options", [
    (64, dict(groups=3)), (64, dict(groups=2)), (128, dict(rescale_skip=8.0, late_pv_wait=True)),
    (128, dict(cluster=2, q_buffers=1, stages=3)), (256, {}), (256, dict(o_staging="v", v_stages=3)),
    (256, dict(cluster=2, o_staging="q", thread_arrives="kq")), (128, dict(tile_order="dynamic"))])
def test_attention_unchained_waits(head_dim, options, causal, tmp_path, monkeypatch):
    """TLX_ALIAS_UNCHAINED_WAITS=1 (tlx-unchained-waits-as-expects): the
    consumers' K/V waits without triton's bar.sync between two waits on one
    ring change no bit of output or LSE (each switch compiled afresh: it is
    not in triton's cache key), launch after launch; rows whose max keeps
    growing, 4-9 tiles a program through the rings."""
    if options.get("tile_order") == "dynamic" and not causal:
        pytest.skip("the dynamic order is causal")
    torch.manual_seed(0)
    q, k, v = (torch.randn((2, 3, 768, head_dim), device="cuda", dtype=torch.bfloat16) for _ in range(3))
    k = (k.float() * torch.linspace(1, 6, 768, device="cuda")[:, None]).to(torch.bfloat16)
    results = {}
    for switch in ("0", "1"):
        monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / switch))
        monkeypatch.setenv("TLX_ALIAS_UNCHAINED_WAITS", switch)
        results[switch] = [fa.attention(q, k, v, causal=causal, num_sms=5, return_lse=True, **options)
                           for _ in range(4)]
    chained_out, chained_lse = results["0"][0]
    for out, lse in results["0"][1:] + results["1"]:
        assert torch.equal(out, chained_out) and torch.equal(lse, chained_lse)
    ref_out, ref_lse = reference(q, k, v, causal, 1.0 / math.sqrt(head_dim))
    torch.testing.assert_close(chained_lse, ref_lse, rtol=0, atol=1e-3)
    torch.testing.assert_close(chained_out.float(), ref_out, rtol=2**-7, atol=2e-2)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim, options", [(64, dict(groups=3)), (128, {}), (256, {}),
                                               (256, dict(o_staging="v", v_stages=3))])
def test_attention_thread_or_leader_arrives(head_dim, options, causal):
    """The consumers release K, V and Q by every thread's arrive (warp
    barriers, the default) or by a leader's after a warp-group bar.sync."""
    for thread_arrives in ("kqv", "kq", ""):
        check(True, head_dim, causal, torch.bfloat16, n=768, growing_scores=True, thread_arrives=thread_arrives,
              **options)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("alias, head_dim, options", [
    (True, 64, dict(groups=3)), (True, 64, dict(groups=2)), (True, 128, {}), (False, 128, {}),
    (True, 128, dict(thread_arrives="", q_buffers=1, stages=3)), (True, 256, dict(o_staging="q"))])
def test_attention_in_clusters_of_two(alias, head_dim, options, dtype, causal):
    """Clusters of two CTAs (num_ctas=2) running two row blocks of one head:
    rank 0 multicasts each K/V block into both, after the other CTA's
    producer has told it (a remote arrive) that its consumers freed the slot;
    two clusters run 4-9 row-block pairs each through the rings (causal:
    both read the K/V blocks up to the second block's diagonal, the first
    CTA's last one wholly masked)."""
    check(alias, head_dim, causal, dtype, n=768, growing_scores=True, cluster=2, **options)


def test_attention_rejects_clusters_it_cannot_run():
    q = torch.randn((1, 2, 384, 64), device="cuda", dtype=torch.float16)
    message = ("cluster must be 1, or 2 with tile_order 'rows', 'table' or 'dynamic', O over Q and an even number "
               "of row blocks")
    with pytest.raises(ValueError, match=re.escape(message + "; got cluster=2, tile_order='table', o_staging='q', "
                                                             "3 row blocks")):
        fa.attention(q, q, q, causal=True, cluster=2, groups=2)
    with pytest.raises(ValueError, match=re.escape("got cluster=2, tile_order='pairs'")):
        fa.attention(q[:, :, :256], q[:, :, :256], q[:, :, :256], causal=True, cluster=2, tile_order="pairs")
    with pytest.raises(ValueError, match=re.escape("got cluster=2, tile_order='rows', o_staging='q', 3 row blocks")):
        fa.attention(q, q, q, cluster=2, groups=2)
    with pytest.raises(ValueError, match=re.escape("got cluster=4")):
        fa.attention(q, q, q, cluster=4, groups=2)


def test_attention_rejects_unknown_tile_order():
    q = torch.randn((1, 2, 384, 64), device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="tile_order must be 'rows', 'pairs', 'table' or 'dynamic', got 'lpt'"):
        fa.attention(q, q, q, causal=True, tile_order="lpt")
    with pytest.raises(ValueError, match=re.escape("tile_order='dynamic' is for causal attention")):
        fa.attention(q, q, q, tile_order="dynamic")
    with pytest.raises(ValueError, match=re.escape("got cluster=2, tile_order='dynamic', o_staging='v'")):
        fa.attention(q[:, :, :256], q[:, :, :256], q[:, :, :256], causal=True, cluster=2, tile_order="dynamic",
                     o_staging="v")
    with pytest.raises(ValueError, match=r"tile_order='pairs' is for causal attention with an even number of row "
                                         r"blocks, got 3 row blocks"):
        fa.attention(q, q, q, causal=True, tile_order="pairs", groups=2)


def test_causal_attention_odd_row_blocks():
    check(True, 128, True, torch.float16, n=384)  # 3 row blocks: no pairs, one tile at a time


def test_attention_rejects_ragged_sequence():
    q = torch.randn((1, 1, 200, 64), device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="the sequence length must be a multiple of 128, got 200"):
        fa.attention(q, q, q)


def test_attention_rejects_unknown_o_staging_or_q_columns():
    q = torch.randn((1, 1, 128, 64), device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="o_staging must be 'q' \\(O over Q\\) or 'v' \\(O over V slots\\), got 'k'"):
        fa.attention(q, q, q, o_staging="k")
    with pytest.raises(ValueError, match="o_staging='v' lays O over V slots, which needs alias=True"):
        fa.attention(q, q, q, o_staging="v", alias=False)
    with pytest.raises(ValueError, match=r"groups \(consumer warp groups\) must be 2 or 3 \(2 with O over V\), "
                                         r"got 4"):
        fa.attention(q, q, q, groups=4)
    with pytest.raises(ValueError, match=r"must be 2 or 3 \(2 with O over V\), got 3"):
        fa.attention(q, q, q, groups=3, o_staging="v")  # the O entries are handed between two consumers
    with pytest.raises(ValueError, match=r"q_reg_cols must be 0 or a power of two from 16 to head_dim \(64\), got 48"):
        fa.attention(q, q, q, q_reg_cols=48)


def _peer_tutorials_available():
    where = tutorials.tutorials_dir()
    return where is not None and os.path.isdir(where)


@pytest.mark.skipif(not _peer_tutorials_available(), reason="the peer's tutorials are not installed here")
@pytest.mark.parametrize("name", tutorials.HOPPER_ATTENTION)
def test_peer_attention_tutorial_under_tlx_alias(name):
    head_dim = 128  # the tutorials' configs have BLOCK_N = 128, and they assert BLOCK_N <= HEAD_DIM
    module = tutorials.load(name, for_tlx_alias=True)
    torch.manual_seed(0)
    q, k, v = (torch.randn((2, 4, 1024, head_dim), device="cuda", dtype=torch.float16) for _ in range(3))
    sm_scale = 1.0 / math.sqrt(head_dim)
    out = module.attention(q, k, v, sm_scale)
    sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=sm_scale)
    err = (out.float() - sdpa.float()).abs().max().item()
    print(f"{name} D={head_dim}: max abs error vs SDPA {err:.3g}")
    assert err < 5e-3

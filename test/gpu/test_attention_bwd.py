"""Flash-attention backward on a Hopper GPU (examples/hopper_flash_attention_bwd.py):
dQ, dK, dV of the aliased kernel and its unaliased twin against a float32
PyTorch reference and against SDPA's autograd, for head dims 64 and 128,
causal and not, fp16 and bf16, one K/V block and many (persistent programs by
default up to N = 4096, one program a block beyond); the same for each
candidate variant (fab.CANDIDATES); the autograd
Function through `out.backward()`; a few optimizer steps of a tiny attention
layer against the same layer on SDPA."""
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
import hopper_flash_attention as fa  # noqa: E402
import hopper_flash_attention_bwd as fab  # noqa: E402


@pytest.fixture(autouse=True)
def _allocator():
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))


def reference_grads(q, k, v, do, causal, sm_scale):
    """dQ, dK, dV of softmax(Q K^T * sm_scale) V in float32."""
    q32, k32, v32 = (t.detach().float().requires_grad_() for t in (q, k, v))
    scores = (q32 @ k32.transpose(-1, -2)) * sm_scale
    if causal:
        n = q.shape[2]
        scores = scores.masked_fill(torch.ones(n, n, device=q.device, dtype=torch.bool).triu(1), float("-inf"))
    out = torch.softmax(scores, -1) @ v32
    out.backward(do.float())
    return q32.grad, k32.grad, v32.grad


def sdpa_grads(q, k, v, do, causal):
    q, k, v = (t.detach().clone().requires_grad_() for t in (q, k, v))
    torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal).backward(do)
    return q.grad, k.grad, v.grad


def inputs(z, h, n, head_dim, dtype, seed=0):
    torch.manual_seed(seed)
    q, k, v, do = (torch.randn((z, h, n, head_dim), device="cuda", dtype=dtype) for _ in range(4))
    return q, k, v, do


def check(alias, head_dim, causal, dtype, n, z=2, h=3, **options):
    q, k, v, do = inputs(z, h, n, head_dim, dtype)
    sm_scale = 1.0 / math.sqrt(head_dim)
    o, lse = fa.attention(q, k, v, causal=causal, return_lse=True)
    grads = fab.attention_backward(q, k, v, o, do, lse, causal=causal, alias=alias, **options)
    ref = reference_grads(q, k, v, do, causal, sm_scale)
    sdpa = sdpa_grads(q, k, v, do, causal)
    for name, got, want, theirs in zip("QKV", grads, ref, sdpa):
        assert got.dtype == dtype and got.shape == q.shape
        ours = (got.float() - want).abs().max().item()
        sdpa_err = (theirs.float() - want).abs().max().item()
        print(f"d{name}: max abs error {ours:.3g} (SDPA's {sdpa_err:.3g})")
        # no more than twice SDPA's own error against float32, plus a little slack for tiny errors
        assert ours <= 2 * sdpa_err + (2e-2 if dtype == torch.bfloat16 else 3e-3), f"d{name}"
        torch.testing.assert_close(got.float(), want, rtol=5e-2, atol=6e-2 if dtype == torch.bfloat16 else 1e-2)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("alias", [True, False])
def test_backward_matches_reference(alias, head_dim, causal, dtype):
    check(alias, head_dim, causal, dtype, n=512)  # 4 K/V blocks, 8 Q blocks


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_backward_one_block(head_dim, causal):
    check(True, head_dim, causal, torch.float16, n=128)  # one K/V block: a causal program's every Q block masked


@pytest.mark.parametrize("causal", [False, True])
def test_backward_many_tiles(causal):
    check(True, 128, causal, torch.bfloat16, n=2048, z=1, h=2)  # 32 Q blocks through a 3-deep ring
    check(True, 64, causal, torch.bfloat16, n=2048, z=1, h=2)  # dQ turns: 16 trips of two Q blocks, a 4-deep ring
    check(True, 64, causal, torch.bfloat16, n=2048, z=1, h=2, dq_turns=False)  # 16 Q blocks of 128 rows


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_backward_unchained_waits(head_dim, causal, tmp_path, monkeypatch):
    """TLX_ALIAS_UNCHAINED_WAITS=1 (tlx-unchained-waits-as-expects) on the
    forward and backward, compiled afresh: many Q blocks through the rings."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TLX_ALIAS_UNCHAINED_WAITS", "1")
    check(True, head_dim, causal, torch.bfloat16, n=2048, z=1, h=2)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim, stages, ds_over_do", [(128, 4, True), (128, 5, True), (64, 4, True),
                                                          (128, 2, False), (64, 2, False)])
def test_backward_ring_depths_and_ds_over_do(head_dim, stages, ds_over_do, causal):
    """Other Q/dO ring depths; dS^T staged over the dO slot it came from."""
    check(True, head_dim, causal, torch.float16, n=1024, z=1, h=2, stages=stages, ds_over_do=ds_over_do)


# (the cluster candidate runs non-causal only: its own test below)
CANDIDATE_CASES = [(name, d) for name, (options, dims) in fab.CANDIDATES.items() for d in dims if "cluster" not in options]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("name, head_dim", CANDIDATE_CASES)
def test_candidates_match_reference(name, head_dim, causal, dtype):
    """The variants benchmarks/attention_bwd.py measures (fab.CANDIDATES):
    LSE and delta through the ring, dQ's atomics deferred a step, dQ by
    TMA reduce-adds (each consumer its own partial)."""
    check(True, head_dim, causal, dtype, n=512, **fab.CANDIDATES[name][0])


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("name, head_dim", CANDIDATE_CASES)
def test_candidates_many_tiles_and_one_block(name, head_dim, causal):
    """32 Q blocks through the ring (the deferred dQ carried over each),
    and a single K/V block (2 Q blocks: the last deferred dQ added after the loop)."""
    options = fab.CANDIDATES[name][0]
    check(True, head_dim, causal, torch.bfloat16, n=2048, z=1, h=2, **options)
    if causal and options.get("persistent"):  # (causal persistent programs take pairs of K/V blocks)
        n_rows = 256
    else:
        n_rows = 128
    check(True, head_dim, causal, torch.float16, n=n_rows, **options)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_backward_in_clusters_of_two(head_dim, dtype):
    """Clusters of two CTAs on neighbouring K/V blocks of a head: rank 0
    multicasts each Q/dO block (and LSE/delta) into both, after the other
    CTA's producer has told it its consumers freed the slot; 8 and 32 Q
    blocks through the ring."""
    check(True, head_dim, False, dtype, n=512, cluster=2)
    check(True, head_dim, False, dtype, n=2048, z=1, h=2, cluster=2)
    check(False, head_dim, False, dtype, n=512, cluster=2)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_backward_split_tail(head_dim, dtype):
    """The programs past the GPU's last whole wave run as pieces of their Q
    trips, adding dK and dV up in fp32: 24 programs all split (fewer than
    the SMs: 4 pieces each); at N = 8704, two heads, 136 programs on 132 SMs:
    132 whole and 4 in 33 pieces each."""
    check(True, head_dim, False, dtype, n=512, split_tail=True)
    check(True, head_dim, False, dtype, n=8704, z=1, h=2, split_tail=True)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_persistent_programs(head_dim, causal):
    """One program an SM, each its share of the K/V blocks (causal: pairs j, blocks - 1 - j of a head): fewer
    blocks than SMs (8 programs), and 768 blocks (384 causal pairs) on the GPU's SMs, some programs one more
    than others; against the reference, and dK, dV bit for bit those of one program a block."""
    check(True, head_dim, causal, torch.bfloat16, n=512, z=1, h=2, persistent=True)
    check(True, head_dim, causal, torch.float16, n=1024, z=2, h=48, persistent=True)
    q, k, v, do = inputs(2, 48, 1024, head_dim, torch.bfloat16)
    o, lse = fa.attention(q, k, v, causal=causal, return_lse=True)
    persistent = fab.attention_backward(q, k, v, o, do, lse, causal=causal, persistent=True)
    programs = fab.attention_backward(q, k, v, o, do, lse, causal=causal, persistent=False)
    for got, want in zip(persistent[1:], programs[1:]):
        assert torch.equal(got, want)


def test_persistent_programs_refuse_what_they_cannot_run():
    q, k, v, do = inputs(1, 2, 384, 64, torch.float16)
    o, lse = fa.attention(q, k, v, causal=True, return_lse=True)
    with pytest.raises(ValueError, match=re.escape(
            "persistent programs take an even number of 128-row K/V blocks when causal (N a multiple of 256)")):
        fab.attention_backward(q, k, v, o, do, lse, causal=True, persistent=True)
    with pytest.raises(ValueError, match=re.escape("persistent programs take one CTA a cluster")):
        fab.attention_backward(q[:, :, :256], k[:, :, :256], v[:, :, :256], o[:, :, :256], do[:, :, :256],
                               lse[:, :, :256].contiguous(), cluster=2, persistent=True)
    check(True, 64, True, torch.float16, n=384)  # (by default: one program a block)


def test_backward_rejects_clusters_it_cannot_run():
    q, k, v, do = inputs(1, 2, 384, 64, torch.float16)
    o, lse = fa.attention(q, k, v, return_lse=True)
    for causal, n_rows, cluster in ((True, 384, 2), (False, 384, 2), (False, 384, 3)):
        with pytest.raises(ValueError, match=re.escape(
                f"cluster must be 1, or 2 for non-causal attention with N a multiple of 256; got cluster={cluster}, "
                f"causal={causal}, N={n_rows}")):
            fab.attention_backward(q, k, v, o, do, lse, causal=causal, cluster=cluster)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_dq_tma_with_other_options(head_dim, causal):
    """dQ by TMA reduce-adds with a 2-deep ring; at head dim 64 (at 128
    they do not fit in shared memory) beside LSE through the ring, and in
    the unaliased twin, over three sequences of one head."""
    check(True, head_dim, causal, torch.float16, n=1024, z=1, h=2, dq_tma=True, stages=2)
    if head_dim == 64:
        check(True, head_dim, causal, torch.bfloat16, n=512, dq_tma=True, lse_smem=True)
        check(False, head_dim, causal, torch.bfloat16, n=256, z=3, h=1, dq_tma=True)


def test_dq_tma_rejects_ds_over_do_and_dq_defer():
    q = torch.randn((1, 1, 128, 64), device="cuda", dtype=torch.float16)
    lse = torch.zeros((1, 1, 128), device="cuda")
    for options in (dict(ds_over_do=True), dict(dq_defer=True)):
        with pytest.raises(ValueError, match="dq_tma goes without ds_over_do and dq_defer"):
            fab.attention_backward(q, q, q, q, q, lse, dq_tma=True, **options)


def test_backward_growing_scores():
    """Later keys score up to 6x higher: P spans many orders of magnitude."""
    q, k, v, do = inputs(1, 2, 1024, 128, torch.float16)
    k = (k.float() * torch.linspace(1, 6, 1024, device="cuda")[:, None]).to(torch.float16)
    o, lse = fa.attention(q, k, v, causal=True, return_lse=True)
    grads = fab.attention_backward(q, k, v, o, do, lse, causal=True)
    ref = reference_grads(q, k, v, do, True, 1.0 / math.sqrt(128))
    sdpa = sdpa_grads(q, k, v, do, True)
    for got, want, theirs in zip(grads, ref, sdpa):
        assert (got.float() - want).abs().max() <= 2 * (theirs.float() - want).abs().max() + 3e-3


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
def test_autograd_function(causal, dtype):
    q, k, v, do = inputs(2, 2, 256, 64, dtype)
    q, k, v = (t.requires_grad_() for t in (q, k, v))
    out = fab.attention(q, k, v, causal=causal)
    out.backward(do)
    ref = reference_grads(q, k, v, do, causal, 1.0 / math.sqrt(64))
    for got, want in zip((q.grad, k.grad, v.grad), ref):
        torch.testing.assert_close(got.float(), want, rtol=5e-2, atol=6e-2 if dtype == torch.bfloat16 else 1e-2)


def test_rejects_ragged_sequence_and_head_dim():
    q = torch.randn((1, 1, 200, 64), device="cuda", dtype=torch.float16)
    lse = torch.zeros((1, 1, 200), device="cuda")
    with pytest.raises(ValueError, match="the sequence length must be a multiple of 128, got 200"):
        fab.attention_backward(q, q, q, q, q, lse)
    q = torch.randn((1, 1, 128, 256), device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="head_dim must be 64 or 128, got 256"):
        fab.attention_backward(q, q, q, q, q, torch.zeros((1, 1, 128), device="cuda"))
    q = torch.randn((1, 1, 128, 128), device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="block_m must be 64, or 128 at head dim 64, got 128"):
        fab.attention_backward(q, q, q, q, q, torch.zeros((1, 1, 128), device="cuda"), block_m=128)
    q = torch.randn((1, 1, 128, 64), device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match=r"128-row Q blocks take dQ as halves \(dq_halves\) or by atomics"):
        fab.attention_backward(q, q, q, q, q, torch.zeros((1, 1, 128), device="cuda"), block_m=128, dq_tma=True,
                               dq_halves=False)


class TinyAttention(torch.nn.Module):
    """One attention layer: x -> softmax(q k^T / sqrt(d)) v -> linear."""

    def __init__(self, dim, heads, attend):
        super().__init__()
        self.heads, self.attend = heads, attend
        self.qkv = torch.nn.Linear(dim, 3 * dim, bias=False)
        self.out = torch.nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        b, n, dim = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, dim // self.heads).permute(2, 0, 3, 1, 4)
        y = self.attend(q.contiguous(), k.contiguous(), v.contiguous())
        return self.out(y.transpose(1, 2).reshape(b, n, dim))


@pytest.mark.parametrize("causal", [False, True])
def test_optimizer_steps_match_sdpa(causal):
    """Five Adam steps of a tiny attention layer in bf16: the losses with
    this kernel's forward and backward track those with SDPA's."""
    losses = {}
    for name, attend in (("tlx", lambda q, k, v: fab.attention(q, k, v, causal=causal)),
                         ("sdpa", lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(
                             q, k, v, is_causal=causal))):
        torch.manual_seed(0)
        model = TinyAttention(256, 2, attend).cuda().to(torch.bfloat16)
        x = torch.randn((2, 512, 256), device="cuda", dtype=torch.bfloat16)
        target = torch.randn((2, 512, 256), device="cuda", dtype=torch.bfloat16)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        losses[name] = []
        for _ in range(5):
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x).float(), target.float())
            loss.backward()
            optimizer.step()
            losses[name].append(loss.item())
    print(losses)
    assert losses["tlx"][-1] < losses["tlx"][0]  # it learns
    for ours, theirs in zip(losses["tlx"], losses["sdpa"]):
        assert abs(ours - theirs) <= 2e-2 * abs(theirs)

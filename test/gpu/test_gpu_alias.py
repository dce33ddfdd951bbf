"""Aliased buffers on a real GPU: what is written through one view is read back
through the views that alias it, bit for bit, at the offsets the compiler
reports. Run on an H100/H200 (see README: GPU tests)."""
import os

import pytest
import torch

import tlx_alias as tlx
import triton
import triton.language as tl

IDENTITY = tlx.swizzled_shared_layout()  # row-major, no swizzle: bytes are predictable
SHARED, DISTINCT = tlx.reuse_group_type.shared, tlx.reuse_group_type.distinct




class ByteImage:
    """The spec's storage as bytes, to predict what aliased views read."""

    def __init__(self, size):
        self.bytes = torch.zeros(size, dtype=torch.uint8)

    def write(self, offset, tensor):
        raw = tensor.detach().cpu().contiguous().view(-1).view(torch.uint8)
        self.bytes[offset:offset + raw.numel()] = raw

    def read(self, offset, dtype, shape):
        count = torch.Size(shape).numel() * torch.empty((), dtype=dtype).element_size()
        return self.bytes[offset:offset + count].clone().view(dtype).reshape(shape)


# Exact views (triton 3.8's rules, the default on every triton; packed views
# under 3.7 with TLX_ALIAS_EXACT_VIEWS=0) place every buffer at a multiple of
# its size: the packed constructions these tests aim at (slots, strides that
# are no multiple) do not arise.
EXACT_VIEWS = os.environ.get("TLX_ALIAS_EXACT_VIEWS") != "0"


def assert_exact_placement(views):
    for view in views:
        assert view["slot_bytes"] == 0, view
        assert view["offset"] % view["buffer_bytes"] == 0, view
        assert view["bytes_between_buffers"] % view["buffer_bytes"] == 0, view


def bits(t):
    return t.contiguous().view({1: torch.uint8, 2: torch.int16, 4: torch.int32}[t.element_size()])


# -- shared overlap: f32 written, read back as i32 and as f16 -------------------

@triton.jit
def shared_kernel(x_ptr, as_int_ptr, as_half_ptr, idx, B: tl.constexpr):
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
    a = tlx.local_alloc((B, B), tl.float32, 2, reuse=spec, layout=tlx.swizzled_shared_layout())
    b = tlx.local_alloc((B, B), tl.int32, 2, reuse=spec, layout=tlx.swizzled_shared_layout())
    c = tlx.local_alloc((B, 2 * B), tl.float16, 2, reuse=spec, layout=tlx.swizzled_shared_layout())
    spec.set_buffer_overlap(tlx.reuse_group(a, b, c, group_type=tlx.reuse_group_type.shared))
    r = tl.arange(0, B)[:, None]
    offs = r * B + tl.arange(0, B)[None, :]
    offs2 = r * (2 * B) + tl.arange(0, 2 * B)[None, :]
    tlx.local_store(a[idx], tl.load(x_ptr + offs))
    tl.store(as_int_ptr + offs, tlx.local_load(b[idx]))
    tl.store(as_half_ptr + offs2, tlx.local_load(c[idx]))


@pytest.mark.parametrize("idx", [0, 1])
def test_shared_views_alias_bit_for_bit(idx):
    B = 32
    x = torch.randn(B, B, device="cuda")
    as_int = torch.empty(B, B, dtype=torch.int32, device="cuda")
    as_half = torch.empty(B, 2 * B, dtype=torch.float16, device="cuda")
    shared_kernel[(1, )](x, as_int, as_half, idx, B=B)
    assert torch.equal(as_int, x.view(torch.int32))
    assert torch.equal(bits(as_half), bits(x.view(torch.float16).reshape(B, 2 * B)))


# -- distinct and nested overlaps, at every buffer index -----------------------

@triton.jit
def nested_kernel(qk_ptr, p_ptr, alpha_ptr, out_qk_ptr, out_p_ptr, out_alpha_ptr, B: tl.constexpr,
                  NUM: tl.constexpr):
    # QK shares with (P, alpha), which are distinct: the design's tree.
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
    qk = tlx.local_alloc((B, B), tl.float32, NUM, reuse=spec, layout=tlx.swizzled_shared_layout())
    p = tlx.local_alloc((B, B), tl.float16, NUM, reuse=spec, layout=tlx.swizzled_shared_layout())
    alpha = tlx.local_alloc((B, ), tl.float32, NUM, reuse=spec, layout=tlx.swizzled_shared_layout())
    spec.set_buffer_overlap(
        tlx.reuse_group(qk, tlx.reuse_group(p, alpha, group_type=tlx.reuse_group_type.distinct),
                        group_type=tlx.reuse_group_type.shared))
    rows = tl.arange(0, B)
    offs = rows[:, None] * B + tl.arange(0, B)[None, :]
    for i in tl.static_range(NUM):
        tlx.local_store(qk[i], tl.load(qk_ptr + i * B * B + offs))
    for i in tl.static_range(NUM):
        tlx.local_store(p[i], tl.load(p_ptr + i * B * B + offs))
        tlx.local_store(alpha[i], tl.load(alpha_ptr + i * B + rows))
    for i in tl.static_range(NUM):
        tl.store(out_qk_ptr + i * B * B + offs, tlx.local_load(qk[i]))
        tl.store(out_p_ptr + i * B * B + offs, tlx.local_load(p[i]))
        tl.store(out_alpha_ptr + i * B + rows, tlx.local_load(alpha[i]))


def test_nested_overlap_matches_the_memory_map():
    B, NUM = 32, 3
    qk = torch.randn(NUM, B, B, device="cuda")
    p = torch.randn(NUM, B, B, device="cuda").half()
    alpha = torch.randn(NUM, B, device="cuda")
    out_qk, out_p, out_alpha = torch.empty_like(qk), torch.empty_like(p), torch.empty_like(alpha)
    compiled = nested_kernel[(1, )](qk, p, alpha, out_qk, out_p, out_alpha, B=B, NUM=NUM)
    # P and alpha never clobber each other; both overwrite QK's bytes.
    assert torch.equal(bits(out_p), bits(p))
    assert torch.equal(out_alpha, alpha)
    (spec, ) = tlx.memory_map(compiled)
    qk_view, p_view, alpha_view = spec["views"]
    image = ByteImage(spec["size"])
    stride = qk_view["bytes_between_buffers"]
    for i in range(NUM):
        image.write(qk_view["offset"] + i * stride, qk[i])
    for i in range(NUM):
        image.write(p_view["offset"] + i * stride, p[i])
        image.write(alpha_view["offset"] + i * stride, alpha[i])
    expected = torch.stack([image.read(qk_view["offset"] + i * stride, torch.float32, (B, B))
                            for i in range(NUM)])
    assert torch.equal(bits(out_qk.cpu()), bits(expected))
    assert p_view["offset"] == 0 and alpha_view["offset"] == B * B * 2


@triton.jit
def distinct_kernel(x_ptr, y_ptr, out_x_ptr, out_y_ptr, B: tl.constexpr, NUM: tl.constexpr):
    # 16 KiB + 8 KiB per buffer: x's buffers are reached through 8 KiB slots.
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
    xs = tlx.local_alloc((B, B), tl.float32, NUM, reuse=spec)
    ys = tlx.local_alloc((B, B), tl.float16, NUM, reuse=spec)
    spec.set_buffer_overlap(tlx.reuse_group(xs, ys, group_type=tlx.reuse_group_type.distinct))
    offs = tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :]
    for i in range(NUM):  # runtime index
        tlx.local_store(xs[i], tl.load(x_ptr + i * B * B + offs))
        tlx.local_store(ys[i], tl.load(y_ptr + i * B * B + offs))
    for i in range(NUM):
        tl.store(out_x_ptr + i * B * B + offs, tlx.local_load(xs[i]))
        tl.store(out_y_ptr + i * B * B + offs, tlx.local_load(ys[i]))


def test_distinct_non_multiple_stride_keeps_every_buffer():
    B, NUM = 64, 2
    x = torch.randn(NUM, B, B, device="cuda")
    y = torch.randn(NUM, B, B, device="cuda").half()
    out_x, out_y = torch.empty_like(x), torch.empty_like(y)
    compiled = distinct_kernel[(1, )](x, y, out_x, out_y, B=B, NUM=NUM)
    assert torch.equal(out_x, x)
    assert torch.equal(bits(out_y), bits(y))
    views = tlx.memory_map(compiled)[0]["views"]
    if EXACT_VIEWS:
        assert_exact_placement(views)
    else:
        assert views[0]["slot_bytes"] == 8192 and views[1]["offset"] == 16384  # the non-multiple case


# -- runtime indices in loops, and views merged through control flow ----------

@triton.jit
def control_flow_kernel(x_ptr, out_ptr, NUM: tl.constexpr, B: tl.constexpr):
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
    a = tlx.local_alloc((B, B), tl.float32, NUM, reuse=spec, layout=tlx.swizzled_shared_layout())
    b = tlx.local_alloc((B, B), tl.float32, NUM, reuse=spec, layout=tlx.swizzled_shared_layout())
    pad = tlx.local_alloc((B, ), tl.float32, NUM, reuse=spec, layout=tlx.swizzled_shared_layout())
    # (a | b) then pad: a and b are padded views (offset 0, stride > buffer)
    spec.set_buffer_overlap(
        tlx.reuse_group(tlx.reuse_group(a, b, group_type=tlx.reuse_group_type.shared), pad,
                        group_type=tlx.reuse_group_type.distinct))
    offs = tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :]
    for i in range(NUM):
        tlx.local_store(a[i], tl.load(x_ptr + i * B * B + offs))
    view = a
    for i in range(NUM):
        if i % 2 == 1:  # a runtime condition merges a and b
            view = b
        else:
            view = a
        tl.store(out_ptr + i * B * B + offs, tlx.local_load(view[i]))


def test_runtime_indices_and_merged_views():
    B, NUM = 32, 4
    x = torch.randn(NUM, B, B, device="cuda")
    out = torch.empty_like(x)
    compiled = control_flow_kernel[(1, )](x, out, NUM=NUM, B=B)
    assert torch.equal(out, x)
    views = tlx.memory_map(compiled)[0]["views"]
    if EXACT_VIEWS:
        assert_exact_placement(views)
    else:
        assert views[0]["scale"] > 1 or views[0]["slot_bytes"]  # really padded


# -- NVMMA-swizzled operands at non-zero offsets feed wgmma --------------------

@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, NUM: tl.constexpr):
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
    scale = tlx.local_alloc((M, ), tl.float32, NUM, reuse=spec, layout=tlx.swizzled_shared_layout())
    a_tiles = tlx.local_alloc((M, K), tl.float16, NUM, reuse=spec)  # default: NVMMA 128B swizzle
    b_tiles = tlx.local_alloc((K, N), tl.float16, NUM, reuse=spec)
    spec.set_buffer_overlap(tlx.reuse_group(scale, a_tiles, b_tiles, group_type=tlx.reuse_group_type.distinct))
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    acc = tl.zeros((M, N), tl.float32)
    for i in range(NUM):
        tlx.local_store(a_tiles[i], tl.load(a_ptr + i * M * K + rm[:, None] * K + rk[None, :]))
        tlx.local_store(b_tiles[i], tl.load(b_ptr + i * K * N + rk[:, None] * N + rn[None, :]))
        tlx.local_store(scale[i], tl.full((M, ), 1.0, tl.float32) * (i + 1))
    for i in range(NUM):
        part = tl.dot(tlx.local_load(a_tiles[i]), tlx.local_load(b_tiles[i]))
        acc += part * tlx.local_load(scale[i])[:, None]
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def test_nvmma_tiles_at_offsets_feed_tl_dot():
    M = N = K = 64
    NUM = 2
    # small integers: fp16 products and fp32 sums are exact
    a = torch.randint(-3, 4, (NUM, M, K), device="cuda").half()
    b = torch.randint(-3, 4, (NUM, K, N), device="cuda").half()
    c = torch.empty(M, N, device="cuda")
    compiled = dot_kernel[(1, )](a, b, c, M=M, N=N, K=K, NUM=NUM)
    expected = sum((i + 1) * (a[i].float() @ b[i].float()) for i in range(NUM))
    assert torch.equal(c, expected)
    views = tlx.memory_map(compiled)[0]["views"]
    if EXACT_VIEWS:
        assert_exact_placement(views)
    else:
        assert views[1]["offset"] == 1024 and views[1]["alignment"] == 1024  # NVMMA at a non-zero offset
    assert "wgmma" in compiled.asm["ptx"]


# -- legacy reuse=buffered_tensor, and explicit padding ------------------------

@triton.jit
def legacy_kernel(x_ptr, out_ptr, B: tl.constexpr):
    a = tlx.local_alloc((B, B), tl.float32, 2, layout=tlx.swizzled_shared_layout())
    b = tlx.local_alloc((B, B), tl.int32, 2, reuse=a, layout=tlx.swizzled_shared_layout())
    offs = tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :]
    tlx.local_store(a[1], tl.load(x_ptr + offs))
    tl.store(out_ptr + offs, tlx.local_load(b[1]))


def test_legacy_reuse_aliases_at_offset_zero():
    B = 32
    x = torch.randn(B, B, device="cuda")
    out = torch.empty(B, B, dtype=torch.int32, device="cuda")
    with pytest.warns(DeprecationWarning):
        triton.knobs.compilation.always_compile = True
        try:
            legacy_kernel[(1, )](x, out, B=B)
        finally:
            triton.knobs.compilation.always_compile = False
    assert torch.equal(out, x.view(torch.int32))


@triton.jit
def padded_kernel(x_ptr, out_ptr, B: tl.constexpr, SIZE: tl.constexpr):
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem, buffer_size_bytes=SIZE)
    a = tlx.local_alloc((B, B), tl.float32, 2, reuse=spec, layout=tlx.swizzled_shared_layout())
    b = tlx.local_alloc((B, B), tl.float32, 2, reuse=spec, layout=tlx.swizzled_shared_layout())
    spec.set_buffer_overlap(tlx.reuse_group(a, b, group_type=tlx.reuse_group_type.distinct))
    offs = tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :]
    for i in range(2):
        tlx.local_store(a[i], tl.load(x_ptr + (2 * i) * B * B + offs))
        tlx.local_store(b[i], tl.load(x_ptr + (2 * i + 1) * B * B + offs))
    for i in range(2):
        tl.store(out_ptr + (2 * i) * B * B + offs, tlx.local_load(a[i]))
        tl.store(out_ptr + (2 * i + 1) * B * B + offs, tlx.local_load(b[i]))


def test_explicit_buffer_size_padding():
    B = 32
    x = torch.randn(4, B, B, device="cuda")
    out = torch.empty_like(x)
    compiled = padded_kernel[(1, )](x, out, B=B, SIZE=65536)  # needs 16 KiB, gets 64 KiB
    assert torch.equal(out, x)
    spec = tlx.memory_map(compiled)[0]
    assert spec["size"] == 65536 and spec["views"][0]["bytes_between_buffers"] == 32768
    assert compiled.metadata.shared >= 65536


# -- cp.async into a ring of aliased slots --------------------------------------

@triton.jit
def async_ring_kernel(x_ptr, out_ptr, TILES: tl.constexpr, B: tl.constexpr, STAGES: tl.constexpr):
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
    ring = tlx.local_alloc((B, B), tl.float16, STAGES, reuse=spec)
    stash = tlx.local_alloc((B, B // STAGES), tl.float16, STAGES, reuse=spec)
    spec.set_buffer_overlap(tlx.reuse_group(ring, stash, group_type=tlx.reuse_group_type.shared))
    offs = tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :]
    for s in tl.static_range(STAGES - 1):
        tlx.async_load(x_ptr + s * B * B + offs, ring[s])
        tlx.async_load_commit_group()
    total = tl.zeros((B, B), tl.float32)
    for k in range(TILES):
        tlx.async_load_wait_group(STAGES - 2)
        tile = tlx.local_load(ring[k % STAGES]).to(tl.float32)
        total += tile * (k + 1)
        nxt = k + STAGES - 1
        tlx.async_load(x_ptr + nxt * B * B + offs, ring[nxt % STAGES], mask=nxt < TILES)
        tlx.async_load_commit_group()
    tlx.async_load_wait_group(0)
    tl.store(out_ptr + offs, total)


def test_async_loads_through_a_ring():
    B, STAGES, TILES = 64, 4, 11
    x = torch.randint(-4, 5, (TILES, B, B), device="cuda").half()
    out = torch.empty(B, B, device="cuda")
    compiled = async_ring_kernel[(1, )](x, out, TILES=TILES, B=B, STAGES=STAGES)
    expected = sum((k + 1) * x[k].float() for k in range(TILES))
    assert torch.equal(out, expected)
    assert "cp.async" in compiled.asm["ptx"]


def test_persistent_gemm_variants_are_exact_enough():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
    from persistent_gemm import gemm_kernel
    M = N = K = 1024
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    expected = (a.float() @ b.float())
    for alias, use_async, stages in [(True, True, 4), (False, True, 2), (True, False, 4)]:
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        gemm_kernel[(8, )](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=128, BN=256, BK=64,
                           STAGES=stages, ALIAS=alias, NUM_SMS=8, ASYNC=use_async, num_warps=8)
        torch.testing.assert_close(c.float(), expected, atol=0.1, rtol=0.01)

"""Hand-written TTGIR with storage alias ops goes through tlx-lower and the rest
of triton's stages to a cubin for sm_90 (on the CPU); the kernel's shared
memory is exactly the size the lowering promises for each tree: the ideal
size with packed views, its rounding to whole buffers with exact views."""
import pytest

import tlx_alias  # noqa: F401  (registers the plugin and the stages hook)
import triton
from triton.backends.compiler import GPUTarget
from conftest import packed_views_verify
from ttgir_builder import Leaf, build_module, ideal_size, nvmma

TARGET = GPUTarget("cuda", 90, 32)


def compile_ttgir(tmp_path, text, name="k"):
    path = tmp_path / f"{name}.ttgir"
    path.write_text(text)
    return triton.compile(str(path), target=TARGET)


QK = Leaf((64, 64), "f32", 2)
P = Leaf((64, 64), "f16", 2)
ALPHA = Leaf((64,), "f32", 2)

# name: (tree, packed size, exact size). Packed views (triton 3.7 with
# TLX_ALIAS_EXACT_VIEWS=0) reach the ideal size of the tree; exact views (the
# default, triton 3.8's rules) start each buffer at a multiple of its own size
# and make the stride and the storage multiples of every buffer (the design's
# interleaved layout: these trees all fit sm_90, so none is laid out ring by
# ring).
CASES = {
    # a and b used at different times: the larger one.
    "shared": (("shared", Leaf((64, 64), "f32", 2), Leaf((64, 64), "bf16", 2)), 32768, 32768),
    # side by side: 16 KiB + 8 KiB per buffer (packed, the f32 view needs 8 KiB
    # slots; exact, the stride is rounded up to 32 KiB).
    "distinct": (("distinct", Leaf((64, 64), "f32", 2), Leaf((64, 64), "f16", 2)), 49152, 65536),
    # the design's flash-attention tree: QK shares with (P, alpha).
    "nested": (("shared", QK, ("distinct", P, ALPHA)), 32768, 32768),
    # three levels, distinct at the root.
    "three_levels": (("distinct", Leaf((32, 32), "f32", 3),
                      ("shared", Leaf((64, 32), "f16", 3), ("distinct", Leaf((16, 16), "f32", 3),
                                                            Leaf((128,), "i8", 3)))),
                     3 * (4096 + 4096), 3 * (4096 + 4096)),
    # NVMMA 128-byte swizzle needs 1024-byte alignment: packed, alpha's 256
    # bytes are followed by 768 bytes of padding; exact, the 8 KiB tile starts
    # at 8 KiB (a multiple of its size) and the stride is 16 KiB.
    "nvmma_alignment": (("distinct", Leaf((64,), "f32", 2), Leaf((64, 64), "f16", 2, nvmma(128, 16))),
                        2 * (1024 + 8192), 2 * 16384),
    # a single buffer; packed, the stride (4224) is no multiple of either
    # tile; exact, the storage is a multiple of the 4 KiB tile.
    "single_buffer": (("distinct", Leaf((32, 64), "f16", 1), Leaf((16,), "i32", 1)), 4096 + 128, 2 * 4096),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_shared_memory_is_the_exact_views_size(tmp_path, name):
    tree, _, expected = CASES[name]
    kernel = compile_ttgir(tmp_path, build_module(tree), name)
    assert kernel.metadata.shared == expected
    assert kernel.asm["cubin"]
    assert "tlx." not in kernel.asm["llir"]


def test_packed_views_reach_the_ideal_size_where_they_verify(tmp_path, monkeypatch):
    """TLX_ALIAS_EXACT_VIEWS=0: each tree in its ideal size under triton 3.7;
    triton 3.8 would reject packed views, so the option is refused there."""
    monkeypatch.setenv("TLX_ALIAS_EXACT_VIEWS", "0")
    for name, (tree, expected, _) in sorted(CASES.items()):
        assert ideal_size(tree) == expected  # the test's own model agrees
        if not packed_views_verify():
            with pytest.raises(RuntimeError, match="exact-views=false asks for packed views, "
                                                   "which only triton 3.7 verifies"):
                compile_ttgir(tmp_path, build_module(tree), name)
            continue
        kernel = compile_ttgir(tmp_path, build_module(tree), name)
        assert kernel.metadata.shared == expected, name
        assert kernel.asm["cubin"]


def test_runtime_index_compiles(tmp_path):
    tree = ("shared", QK, ("distinct", P, ALPHA))
    kernel = compile_ttgir(tmp_path, build_module(tree, constant_indices=False))
    assert kernel.metadata.shared == 32768
    # alpha lives at offset 8192 with 16 KiB between buffers: in 256-byte
    # slots that is index 64 * i + 32.
    ptx = kernel.asm["ptx"]
    assert ptx


def test_explicit_size_is_kept_as_padding(tmp_path):
    tree = ("shared", QK, P)
    kernel = compile_ttgir(tmp_path, build_module(tree, size=65536))
    assert kernel.metadata.shared == 65536


def test_no_overlap_spec_takes_the_largest_allocation(tmp_path):
    tree = ("shared", Leaf((64, 64), "f32", 2), Leaf((64, 64), "f16", 3))
    # Without set_buffer_overlap each allocation keeps its natural stride.
    kernel = compile_ttgir(tmp_path, build_module(tree, overlap=False, constant_indices=False))
    assert kernel.metadata.shared == max(2 * 16384, 3 * 8192)


def test_too_small_explicit_size_raises_with_the_diagnostic(tmp_path):
    tree = ("shared", QK, P)
    with pytest.raises(RuntimeError, match=r"storage_alias_spec size 16384 is too small, "
                                           r"requires at least 32768 bytes"):
        compile_ttgir(tmp_path, build_module(tree, size=16384))

"""What tensor-memory ops look like in the running triton: the register
layout of a tmem load/store (the function behind Gluon's
`get_tmem_reg_layout`, whose binding changed in 3.8) and the encodings and
attributes of `ttng.tmem_subslice` (changed in 3.8 and 3.9)."""
import re

from .._triton_version import imported_triton_at_least


def tmem_reg_layout(view, params, split, num_warps):
    """Gluon's register layout of a tmem load/store (32x32b), through the two
    spellings of its binding: triton 3.7 takes the layout's CTA split and a
    trailing CTA list; 3.8 the allocation shape, and a CGA layout instead."""
    from triton._C.libtriton.gluon_ir import compute_tmem_reg_layout
    from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout
    block = (int(params["blockM"]), int(params["blockN"]))
    col_stride, two_ctas = int(params.get("colStride", 1)), params.get("twoCTAs") == "true"
    shape = list(view.shape)
    if "cga_layout" in TensorMemoryLayout.__dataclass_fields__:  # triton 3.8
        if split != (1, 1):
            raise ValueError("CTA-split tensor-memory layouts are not supported with this triton")
        layout = TensorMemoryLayout(block, col_stride, two_ctas=two_ctas)
        alloc_shape = list(view.alloc_shape or shape)  # a slice's source's shape
        return compute_tmem_reg_layout(view.dtype, shape, alloc_shape, layout, num_warps, "32x32b")
    layout = TensorMemoryLayout(block, col_stride, split if split != (1, 1) else None, two_ctas)
    return compute_tmem_reg_layout(view.dtype, shape, layout, num_warps, "32x32b", [])


def slice_layout(layout_text, columns):
    """The encoding of a `columns`-wide slice of a tensor-memory buffer:
    triton 3.7 (as its Gluon) shrinks blockN to the slice; 3.8's verifier of
    `ttng.tmem_subslice` requires the source's encoding."""
    if imported_triton_at_least(3, 8):
        return layout_text
    match = re.search(r"blockN = (\d+)", layout_text)
    if match and int(match.group(1)) > columns:
        return layout_text.replace(match.group(0), f"blockN = {columns}")
    return layout_text


def subslice_attributes(first_column):
    """`ttng.tmem_subslice`'s attributes for a slice from `first_column`:
    triton 3.7/3.8 call the column `N`; 3.9 calls it `offset` and adds the
    sliced dimension `dim` (1: columns)."""
    if imported_triton_at_least(3, 9):
        return {"offset": f"{first_column} : i32", "dim": "1 : i32"}
    return {"N": f"{first_column} : i32"}

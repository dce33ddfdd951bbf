"""Register layouts for tensor-memory loads and stores.

A `ttng.tmem_load`/`ttng.tmem_store` moves data between tensor memory and
registers in a layout the tcgen05.ld/st messages produce: Triton's verifier
accepts only those. The frontend asks Triton for it, through the function
behind Gluon's `get_tmem_reg_layout` (32x32b messages: for blockM = 128,
thread t of warp w holds row 32*w + t, warps 4-7 of 8 taking the second half
of the columns; for blockM = 64, warp w holds rows 16*w..16*w+15, its lanes
16-31 the second half of the columns), and records it on the tlx op as
`tlx.tmem_reg_layout`; `tlx-convert-local-memory` builds the
tmem op in that layout and converts to or from what the neighbours use.
"""
import re

from .._compile_state import current_num_warps
from .._triton.tmem import tmem_reg_layout
from ..types import storage_kind
from .checks import require_tensor_memory

REG_LAYOUT_ATTR = "tlx.tmem_reg_layout"


def _encoding_params(layout_text):
    match = re.fullmatch(r"#ttng\.tensor_memory_encoding<(.*)>", layout_text.strip())
    if match is None:
        return None
    params = dict(re.findall(r"(\w+) = (\w+)", match.group(1)))
    if "blockM" not in params or "blockN" not in params:
        return None
    return params


def register_layout(view, num_warps, what):
    """`#ttg.linear<...>` text of the layout Triton gives a tmem load/store of
    the one buffer `view` run by `num_warps` warps."""
    params = _encoding_params(view.layout_text)
    if params is None:
        raise ValueError(f"{what}: tensor-memory buffers of layout {view.layout_text} have no register layout "
                         f"here (only #ttng.tensor_memory_encoding)")
    if num_warps < 4 or num_warps & (num_warps - 1):
        raise ValueError(f"{what}: tensor memory is accessed by whole warp groups: needs a power of two of at "
                         f"least 4 warps, the code runs on {num_warps}")
    split = (int(params.get("CTASplitM", 1)), int(params.get("CTASplitN", 1)))
    try:
        linear = tmem_reg_layout(view, params, split, num_warps)
    except Exception as error:  # triton's binding reports unsupported cases by raising
        linear, reason = None, f": {error}"
    else:
        reason = ""
    if linear is None:
        raise ValueError(f"{what}: triton has no tensor-memory register layout for a {list(view.shape)} "
                         f"{view.dtype} buffer of layout {view.layout_text} on {num_warps} warps{reason}")
    return (f"#ttg.linear<{{register = {linear.reg_bases}, lane = {linear.lane_bases}, "
            f"warp = {linear.warp_bases}, block = {linear.block_bases}}}>")


def access_attributes(view, what, semantic):
    """The tlx op's extra attributes for an access of `view`: none in shared
    memory; in tensor memory (after checking the target has it) the register
    layout."""
    if view.storage != storage_kind.tmem:
        return {}
    require_tensor_memory(what, semantic)
    return {REG_LAYOUT_ATTR: register_layout(view, current_num_warps(semantic), what)}

"""cp.async copies from global into shared memory, their groups and waits."""
from triton.language import core as tl_core

from .._triton import ir
from ..types import async_token
from .checks import single_buffer
from .memory import check_shape

ASYNC_TOKEN = "!ttg.async.token"


def _tokens(tokens):
    tokens = tl_core._unwrap_if_constexpr(tokens)
    if tokens is None:
        return []
    if isinstance(tokens, async_token):
        tokens = [tokens]
    return [tl_core._unwrap_if_constexpr(t).handle for t in tokens]


def pendings_count(pendings):
    """A wait's count of groups (or stores) left in flight."""
    if not isinstance(pendings, int) or pendings < 0:
        raise ValueError(f"pendings must be a non-negative compile-time integer, got {pendings!r}")
    return pendings


class CopySemantic:

    def async_load(self, src, result, mask, other):
        view = single_buffer(result, "async_load")
        src = self.triton.to_tensor(src)
        if not src.type.is_block() or not src.dtype.is_ptr():
            raise TypeError(f"async_load expects a tensor of pointers, got {src.type}")
        check_shape("async_load: pointer", src, view)
        if src.dtype.element_ty != view.dtype:
            raise ValueError(f"async_load: pointers to {src.dtype.element_ty} cannot fill a {view.dtype} buffer")
        operands, segments = [src.handle, view.handle], [1, 1, 0, 0]
        if mask is not None:
            mask = self.triton.to_tensor(mask)
            if not mask.type.is_block():
                mask = self.triton.splat(mask, list(view.shape))
            src, mask = self.triton.broadcast_impl_value(src, mask)
            operands.append(mask.handle)
            segments[2] = 1
        if other is not None:
            other = self.triton.to_tensor(other)
            if not other.type.is_block():
                other = self.triton.splat(other, list(view.shape))
            other = self.triton.cast(other, view.dtype)
            operands.append(other.handle)
            segments[3] = 1
        (token, ) = ir.create_op(self.builder, "tlx.async_load", operands, [ASYNC_TOKEN],
                                 {"operandSegmentSizes": f"array<i32: {', '.join(map(str, segments))}>"})
        return async_token(token)

    def async_load_commit_group(self, tokens):
        (token, ) = ir.create_op(self.builder, "ttg.async_commit_group", _tokens(tokens), [ASYNC_TOKEN])
        return async_token(token)

    def async_load_wait_group(self, pendings, tokens):
        pendings = pendings_count(pendings)
        handles = _tokens(tokens)
        (token, ) = ir.create_op(self.builder, "tlx.async_load_wait_group", handles, [ASYNC_TOKEN],
                                 {"pendings": f"{pendings} : i32"})
        return async_token(token)

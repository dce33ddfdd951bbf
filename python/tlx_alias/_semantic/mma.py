"""Asynchronous warp-group MMA (Hopper wgmma): async_dot / async_dot_wait."""
import triton.language as tl
from triton.language import core as tl_core

from .._triton import ir
from ..types import buffered_tensor, storage_kind, tensor_text
from .checks import scalar_i1
from .copies import pendings_count

_INPUT_TYPES = ("fp16", "bf16", "fp8e4nv", "fp8e5", "fp32", "int8")


def _operand(value, what, allow_tensor):
    value = tl_core._unwrap_if_constexpr(value)
    if isinstance(value, buffered_tensor):
        if value.num is not None:
            raise ValueError(f"async_dot: {what} needs one buffer: index the allocation first (buf[i])")
        if value.storage != storage_kind.smem:
            raise ValueError(f"async_dot: {what} in {value.storage.value} needs tcgen05 (sm_100); "
                             "on Hopper operands are in shared memory")
        return value, value.shape, value.dtype
    if allow_tensor and isinstance(value, tl.tensor) and value.type.is_block():
        return value, tuple(tl_core._unwrap_if_constexpr(d) for d in value.shape), value.dtype
    kinds = "a shared-memory buffer or a tensor" if allow_tensor else "a shared-memory buffer"
    raise TypeError(f"async_dot: {what} must be {kinds}, got {type(value).__name__}")


class MMASemantic:

    def async_dot(self, A, B, acc, use_acc, mBarriers, two_ctas, input_precision, out_dtype):
        a, a_shape, a_dtype = _operand(A, "A", allow_tensor=True)
        b, b_shape, b_dtype = _operand(B, "B", allow_tensor=False)
        if tl_core._unwrap_if_constexpr(mBarriers) or tl_core._unwrap_if_constexpr(two_ctas):
            raise ValueError("async_dot: mBarriers and two_ctas are tcgen05 (sm_100) features")
        if len(a_shape) != 2 or len(b_shape) != 2:
            raise ValueError(f"async_dot: expects 2-D operands, got A {a_shape} and B {b_shape}")
        (m, k), (k2, n) = a_shape, b_shape
        if k != k2:
            raise ValueError(f"async_dot: A is {m}x{k} but B is {k2}x{n}: A's columns must equal B's rows")
        if a_dtype != b_dtype:
            raise TypeError(f"async_dot: A and B must have the same dtype, got {a_dtype} and {b_dtype}")
        if a_dtype.name not in _INPUT_TYPES:
            raise TypeError(f"async_dot: wgmma takes {', '.join(_INPUT_TYPES)} inputs, got {a_dtype}")
        bits = a_dtype.primitive_bitwidth
        if m % 64 or n % 8 or (k * bits) % 256:
            raise ValueError(f"async_dot: wgmma needs M a multiple of 64, N of 8 and K of {256 // bits} "
                             f"for {a_dtype}, got M={m}, N={n}, K={k}")
        acc = tl_core._unwrap_if_constexpr(acc)
        out_dtype = tl_core._unwrap_if_constexpr(out_dtype)
        if acc is None:
            acc = self.triton.full([m, n], 0, out_dtype)
        elif isinstance(acc, buffered_tensor):
            raise ValueError("async_dot: a tensor-memory accumulator needs tcgen05 (sm_100); on Hopper "
                             "the accumulator is a register tensor")
        elif not isinstance(acc, tl.tensor) or tuple(tl_core._unwrap_if_constexpr(d) for d in acc.shape) != (m, n):
            shape = getattr(acc, "shape", None)
            raise ValueError(f"async_dot: accumulator must be a {m}x{n} tensor, got {shape}")
        precision = tl_core._unwrap_if_constexpr(input_precision)
        if precision is None:
            precision = "tf32" if a_dtype == tl.float32 else "ieee"
        precisions = ir.enum_cases("InputPrecision")
        if precision not in precisions:
            raise ValueError(f"async_dot: input_precision must be one of {sorted(precisions)}, got {precision!r}")
        operands = [a.handle, b.handle, acc.handle]
        use_acc = tl_core._unwrap_if_constexpr(use_acc)
        if use_acc is not None:
            operands.append(scalar_i1(use_acc, "use_acc", self.triton).handle)
        (handle, ) = ir.create_op(self.builder, "tlx.async_dot", operands, [tensor_text(acc.dtype, (m, n))],
                                  {"input_precision": ir.enum_attr("InputPrecision", precision)})
        return tl.tensor(handle, acc.type)

    def async_dot_wait(self, pendings, inp):
        pendings = pendings_count(pendings)
        inp = tl_core._unwrap_if_constexpr(inp)
        if not isinstance(inp, tl.tensor):
            raise TypeError(f"async_dot_wait expects the tensor an async_dot returned, got {type(inp).__name__}")
        (handle, ) = ir.create_op(self.builder, "tlx.async_dot_wait", [inp.handle], [str(inp.handle.get_type())],
                                  {"pendings": f"{pendings} : i32"})
        return tl.tensor(handle, inp.type)

"""The small ops: type queries, cluster and thread indices, the cycle
counter, cache prefetches and warp votes (most of them one inline-asm
instruction)."""
import triton.language as tl
from triton.language import core as tl_core

from .._compile_state import module_num_ctas
from .._triton import ir
from ..types import buffered_tensor
from .checks import constexpr_int, predicate_i32

PREFETCH_LEVELS = ("L1", "L2")


def _asm(semantic, asm, constraints, args, dtype, is_pure=False):
    """One inline-asm instruction, run once per element (of scalars: once)."""
    return tl_core.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, 1, _semantic=semantic)


class MiscSemantic:

    @staticmethod
    def dtype_of(v):
        if isinstance(v, tl.tensor):
            dtype = v.type.element_ty if v.type.is_block() else v.dtype
            return dtype.element_ty if dtype.is_ptr() else dtype
        if isinstance(v, tl_core.tensor_descriptor_base):
            return v.block_type.element_ty
        if isinstance(v, buffered_tensor):
            return v.dtype
        raise ValueError(f"dtype_of works on tensors, tensor descriptors and buffers, got {type(v).__name__}")

    @staticmethod
    def size_of(dtype):
        if not isinstance(dtype, tl.dtype):
            raise TypeError(f"size_of expects a dtype, got {type(dtype).__name__}")
        return tl.constexpr(dtype.primitive_bitwidth // 8)

    def cluster_cta_rank(self):
        if module_num_ctas(self.triton) == 1:
            return self.triton.to_tensor(0)
        return _asm(self.triton, "mov.u32 $0, %cluster_ctarank;", "=r", [], tl.int32, is_pure=True)

    def clock64(self):
        return _asm(self.triton, "mov.u64 $0, %clock64;", "=l", [], tl.int64)

    def thread_id(self, axis):
        if axis not in (0, 1, 2) or isinstance(axis, bool):
            raise ValueError(f"thread_id: axis must be 0, 1 or 2, got {axis!r}")
        return _asm(self.triton, f"mov.u32 $0, %tid.{'xyz'[axis]};", "=r", [], tl.int32, is_pure=True)

    def prefetch(self, pointer, level, mask, tensormap):
        ptr = self.triton.to_tensor(pointer)
        if not ptr.dtype.is_ptr():
            raise TypeError(f"prefetch expects a pointer or a tensor of pointers, got {ptr.dtype}")
        if tensormap:
            if mask is not None:
                raise ValueError("prefetch: tensormap=True takes no mask (it prefetches one descriptor)")
            if ptr.type.is_block():
                raise ValueError(f"prefetch: tensormap=True expects a scalar pointer to one descriptor, got {ptr.type}")
            return _asm(self.triton, "prefetch.tensormap [$1];\n\tmov.u32 $0, 0;", "=r,l", [ptr], tl.int32)
        if level not in PREFETCH_LEVELS:
            raise ValueError(f"prefetch: level must be 'L1' or 'L2', got {level!r}")
        instruction = f"prefetch.global.{level} [$1];"
        if mask is None:
            return _asm(self.triton, f"{instruction}\n\tmov.u32 $0, 0;", "=r,l", [ptr], tl.int32)
        keep = predicate_i32(mask, "prefetch's mask", self.triton)
        ptr, keep = self.triton.broadcast_impl_value(ptr, keep)
        asm = ("{\n\t.reg .pred keep;\n\tsetp.ne.b32 keep, $2, 0;\n"
               f"\t@keep {instruction}\n\t}}\n\tmov.u32 $0, 0;")
        return _asm(self.triton, asm, "=r,l,r", [ptr, keep], tl.int32)

    def vote_ballot_sync(self, mask, pred):
        mask = constexpr_int(mask, "vote_ballot_sync's mask", minimum=1)
        if mask > 0xFFFFFFFF:
            raise ValueError(f"vote_ballot_sync's mask is a 32-bit lane mask, got {mask:#x}")
        value = predicate_i32(pred, "vote_ballot_sync", self.triton)
        asm = ("{\n\t.reg .pred voted;\n\tsetp.ne.b32 voted, $1, 0;\n"
               f"\tvote.sync.ballot.b32 $0, voted, {mask:#x};\n\t}}")
        return _asm(self.triton, asm, "=r,r", [value], tl.int32)

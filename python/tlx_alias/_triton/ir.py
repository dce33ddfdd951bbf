"""IR value plumbing: creating ops at triton's `ir.builder` from Python
(through the tlx_alias._C shim), and reading the builder's state."""
import functools
import re

from .. import _C


def create_op(builder, name, operands=(), result_types=(), attributes=None):
    """Creates op `name` at the builder's insertion point and current source
    location, verifies it, and returns its results as `ir.value`s.

    Types and attributes are MLIR text. Verifier failures raise ValueError
    with the diagnostic (inside a kernel: a CompilationError at the line)."""
    # Placeholders: triton's classes are module_local, so _C cannot return
    # ir.values; it overwrites these (and erases the ops that made them).
    results = [builder.get_int32(0) for _ in result_types]
    _C.create_op(builder, name, list(operands), list(result_types), dict(attributes or {}), results)
    return results


@functools.lru_cache(maxsize=None)
def _all_enum_cases():
    return _C.enum_cases()


def enum_cases(enum):
    """{spelling: value} of a tlx enum, as TLXEnums.td defines it."""
    return _all_enum_cases()[enum]


def enum_attr(enum, case):
    """The attribute text of a tlx enum's case: enum_attr("StorageKind", "tmem")."""
    return f"{enum_cases(enum)[case]} : i32"


def kernel_line(builder):
    """(file, line) of the kernel source the builder is at, or None.

    The builder reports its location only as text, e.g.
    loc("b"("/path/kernel.py":10:46)): a name location around the line's."""
    match = re.search(r'"([^"]+)":(\d+):\d+', str(builder.get_loc()))
    return (match.group(1), int(match.group(2))) if match else None


def option(builder, name, default=None):
    """A compile option of the kernel being built (num_warps, arch, ...)."""
    return getattr(compile_options(builder), name, default)


def compile_options(builder):
    """The options of the compile `builder` builds for: one object per
    compile, shared by the builders of its callee functions."""
    return getattr(builder, "options", None)


# A `ttg.warp_specialize` region, built task by task (cpp/python/Builder.cpp).

def begin_warp_specialize(builder, partition_warps, registers):
    """Starts a warp_specialize whose partitions run on `partition_warps`;
    returns the region, to pass to the two calls below."""
    return _C.begin_warp_specialize(builder, partition_warps, registers)


def set_insertion_point_to_task(builder, region, index):
    """Builds from now on into task `index` (0: the default task)."""
    _C.set_insertion_point_to_task(builder, region, index)


def finish_warp_specialize(builder, region):
    """Closes the region (ValueError if its tasks do not verify)."""
    _C.finish_warp_specialize(builder, region)


# The warp_specialize partitions of a module whose warp count is not the
# kernel's, converted to TTGIR on their own (cpp/python/PartitionWarps.cpp).

def partition_warp_counts(module):
    """The warp counts of the module's warp_specialize partitions."""
    return _C.partition_warp_counts(module)


def detach_partitions(module, holder, warps):
    """Moves the partitions of `warps` warps into module `holder`."""
    _C.detach_partitions(module, holder, warps)


def attach_partitions(module, holder, warps):
    """Moves them back from `holder` (converted)."""
    _C.attach_partitions(module, holder, warps)

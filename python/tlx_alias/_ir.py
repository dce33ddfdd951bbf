"""Creating ops at triton's `ir.builder` from Python (through tlx_alias._C)."""
import functools

from . import _C


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

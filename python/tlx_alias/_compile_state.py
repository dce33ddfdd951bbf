"""What the compile running in this thread is tracing, beyond triton's own
state: the warps that run the code (the kernel's, or those of the
async_task partition being traced) and which replica of a task it is.

Set by the `with tlx.async_tasks()` visitor (warp_specialize.py), read by
the ops whose IR depends on it (tensor-memory access layouts, warp-barrier
arrive counts, async_task_replica_id)."""
import contextlib
import dataclasses
import threading

from ._triton import ir

_tasks = threading.local()  # stack of Running, per compiling thread


@dataclasses.dataclass
class Running:
    num_warps: int
    replica_id: int


def _stack():
    if not hasattr(_tasks, "stack"):
        _tasks.stack = []
    return _tasks.stack


def module_num_warps(semantic):
    """The kernel's warps (its num_warps option)."""
    return ir.option(semantic.builder, "num_warps", 4)


def module_num_ctas(semantic):
    """CTAs per cluster (the kernel's num_ctas option): each CTA is a whole
    program of one-CTA layouts, told apart by tlx.cluster_cta_rank()."""
    return ir.option(semantic.builder, "num_ctas", 1)


def current_num_warps(semantic):
    """The warps that run the code being traced."""
    stack = _stack()
    return stack[-1].num_warps if stack else module_num_warps(semantic)


def current_task():
    """The async_task being traced (a Running), or None outside of one."""
    stack = _stack()
    return stack[-1] if stack else None


@contextlib.contextmanager
def running(task):
    """Traces the body of async_task `task` (a Running)."""
    _stack().append(task)
    try:
        yield
    finally:
        _stack().pop()


def target_arch(semantic):
    """The architecture being compiled for (e.g. "sm90", "sm100"), or None
    where the compiler's options don't say."""
    arch = ir.option(semantic.builder, "arch")
    return arch if isinstance(arch, str) else None

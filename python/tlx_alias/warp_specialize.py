"""Warp specialization: `with tlx.async_tasks():` around `with
tlx.async_task(...)` blocks, each task running on its own warps.

They become one `ttg.warp_specialize`: the "default" task runs on the
kernel's warps, every other task (and each of its `replicate` copies) in a
partition of `num_warps` warps, with `registers` per thread requested through
setmaxnreg. Buffers and barriers allocated before the region are usable in
every task (the shim turns them into the partitions' captures). Each replica
is traced on its own, so `async_task_replica_id()` is a compile-time constant.

Triton's code generator visits a `with` body once; replicas need one visit
each, so tlx_alias._triton.codegen hands `async_tasks` blocks (only) to
`visit_async_tasks` here.
"""
import triton.language as tl
from triton.language import core as tl_core

from ._compile_state import Running, current_task, module_num_warps, running
from ._semantic.tasks import NESTED, NOT_A_TASK, async_task_arguments, partition_registers, region_problem
from ._triton import codegen, ir


class async_tasks:
    """`with tlx.async_tasks():` — a warp-specialized region; its body holds
    only `with tlx.async_task(...)` blocks."""

    def __init__(self, *args, exclusive=False, no_ending_cluster_sync=False, _semantic=None, **kwargs):
        pass

    def __enter__(self):
        raise RuntimeError("tlx.async_tasks() is handled by tlx_alias's code generator hook, which is not "
                           "installed (import tlx_alias before compiling)")

    def __exit__(self, *exc):
        return False


class async_task:
    """`with tlx.async_task("default"):` runs on the kernel's warps;
    `with tlx.async_task(num_warps=4, registers=232, replicate=2):` on
    partitions of their own."""

    def __init__(self, *args, _semantic=None, **kwargs):
        args = [tl_core._unwrap_if_constexpr(a) for a in args]
        kwargs = {k: tl_core._unwrap_if_constexpr(v) for k, v in kwargs.items()}
        checked = async_task_arguments(args, kwargs)
        self.is_default = checked.is_default
        self.num_warps = checked.num_warps
        self.registers = checked.registers
        self.replicate = checked.replicate

    def __enter__(self):
        raise ValueError("tlx.async_task must be directly inside `with tlx.async_tasks():`")

    def __exit__(self, *exc):
        return False


@tl_core.builtin
def async_task_replica_id(_semantic=None):
    """Which copy of a replicated async_task is being traced (constexpr)."""
    task = current_task()
    if task is None:
        raise ValueError("async_task_replica_id must be called inside a `with tlx.async_task(...)` block")
    return tl.constexpr(task.replica_id)


def _task_of(generator, stmt):
    if codegen.with_context(generator, stmt) is async_task:
        args, kwargs = codegen.with_arguments(generator, stmt)
        return async_task(*args, **kwargs)
    return None


def visit_async_tasks(generator, node):
    """Builds a `with tlx.async_tasks():` region: one ttg.warp_specialize,
    each task's body traced on the warps it runs on."""
    args, kwargs = codegen.with_arguments(generator, node)
    async_tasks(*args, **kwargs)
    if current_task() is not None:
        raise codegen.unsupported(generator, node, NESTED)
    tasks = []
    for stmt in node.body:
        task = _task_of(generator, stmt)
        if task is None:
            raise codegen.unsupported(generator, stmt, NOT_A_TASK)
        tasks.append((task, stmt))
    problem = region_problem(tasks)
    if problem is not None:
        raise codegen.unsupported(generator, problem[0] or node, problem[1])
    defaults = [t for t in tasks if t[0].is_default]
    partitions = [(task, stmt, r) for task, stmt in tasks if not task.is_default for r in range(task.replicate)]
    builder = generator.builder
    region = ir.begin_warp_specialize(builder, [task.num_warps for task, _, _ in partitions],
                                      partition_registers(partitions))
    module_warps = module_num_warps(generator.semantic)
    bodies = [(0, defaults[0][1], Running(module_warps, 0))] if defaults else []
    bodies += [(i + 1, stmt, Running(task.num_warps, r)) for i, (task, stmt, r) in enumerate(partitions)]
    for index, stmt, task in bodies:
        ir.set_insertion_point_to_task(builder, region, index)
        with running(task):
            codegen.visit_in_own_scope(generator, stmt.body)
    try:
        ir.finish_warp_specialize(builder, region)
    except ValueError as error:
        raise codegen.unsupported(generator, node, f"async_tasks: {error}") from None

"""Warp specialization: `with tlx.async_tasks():` around `with
tlx.async_task(...)` blocks, each task running on its own warps.

They become one `ttg.warp_specialize`: the "default" task runs on the
kernel's warps, every other task (and each of its `replicate` copies) in a
partition of `num_warps` warps, with `registers` per thread requested through
setmaxnreg. Buffers and barriers allocated before the region are usable in
every task (the shim turns them into the partitions' captures). Each replica
is traced on its own, so `async_task_replica_id()` is a compile-time constant.

Triton's code generator visits a `with` body once; replicas need one visit
each, so `install()` wraps `CodeGenerator.visit_With` (the one place that
touches triton's code generator) for `async_tasks` blocks only.
"""
import ast
import dataclasses
import threading

import triton.language as tl
from triton.language import core as tl_core

from . import _C

_tasks = threading.local()  # stack of _Running, per compiling thread


@dataclasses.dataclass
class _Running:
    num_warps: int
    replica_id: int


def _stack():
    if not hasattr(_tasks, "stack"):
        _tasks.stack = []
    return _tasks.stack


def _module_num_warps(semantic):
    return getattr(getattr(semantic.builder, "options", None), "num_warps", 4)


def current_num_warps(semantic):
    """The warps that run the code being traced."""
    stack = _stack()
    return stack[-1].num_warps if stack else _module_num_warps(semantic)


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
        self.is_default = False
        if args:
            if len(args) != 1 or args[0] != "default":
                raise ValueError("async_task takes \"default\" or keyword arguments (num_warps, registers, "
                                 f"replicate); task-id lists are not supported, got {args!r}")
            if "num_regs" in kwargs or "registers" in kwargs or "num_warps" in kwargs:
                raise ValueError("the default async_task runs on the kernel's warps and gets the registers "
                                 "the partitions leave: it takes no num_warps or registers")
            self.is_default = True
        unknown = set(kwargs) - {"num_warps", "num_regs", "registers", "replicate", "warp_group_start_id"}
        if unknown:
            raise TypeError(f"async_task got unexpected arguments {sorted(unknown)}")
        self.num_warps = kwargs.get("num_warps")
        self.registers = kwargs.get("registers", kwargs.get("num_regs"))
        self.replicate = kwargs.get("replicate", 1)
        if not self.is_default and not (isinstance(self.num_warps, int) and self.num_warps > 0):
            raise ValueError(f"async_task needs num_warps (a positive integer), got {self.num_warps!r}")
        if not isinstance(self.replicate, int) or self.replicate < 1:
            raise ValueError(f"async_task replicate must be a positive integer, got {self.replicate!r}")
        if self.is_default and self.replicate != 1:
            raise ValueError("the default async_task cannot be replicated")
        if self.registers is not None and (not isinstance(self.registers, int) or self.registers % 8
                                           or not 24 <= self.registers <= 256):
            raise ValueError(f"async_task registers must be a multiple of 8 in [24, 256], got {self.registers!r}")

    def __enter__(self):
        raise ValueError("tlx.async_task must be directly inside `with tlx.async_tasks():`")

    def __exit__(self, *exc):
        return False


@tl_core.builtin
def async_task_replica_id(_semantic=None):
    """Which copy of a replicated async_task is being traced (constexpr)."""
    stack = _stack()
    if not stack:
        raise ValueError("async_task_replica_id must be called inside a `with tlx.async_task(...)` block")
    return tl.constexpr(stack[-1].replica_id)


def _task_of(generator, stmt):
    if (isinstance(stmt, ast.With) and len(stmt.items) == 1 and isinstance(stmt.items[0].context_expr, ast.Call)
            and generator.visit(stmt.items[0].context_expr.func) is async_task):
        call = stmt.items[0].context_expr
        args = [generator.visit(a) for a in call.args]
        kwargs = dict(generator.visit(kw) for kw in call.keywords)
        return async_task(*args, **kwargs)
    return None


def _visit_async_tasks(generator, node):
    call = node.items[0].context_expr
    async_tasks(*[generator.visit(a) for a in call.args], **dict(generator.visit(kw) for kw in call.keywords))
    if _stack():
        raise generator._unsupported(node, "async_tasks cannot be nested in an async_task")
    tasks = []
    for stmt in node.body:
        task = _task_of(generator, stmt)
        if task is None:
            raise generator._unsupported(
                stmt, "only `with tlx.async_task(...)` blocks may appear directly inside `with tlx.async_tasks()`")
        tasks.append((task, stmt))
    defaults = [t for t in tasks if t[0].is_default]
    if len(defaults) > 1:
        raise generator._unsupported(defaults[1][1], "async_tasks has more than one default async_task")
    partitions = [(task, stmt, r) for task, stmt in tasks if not task.is_default for r in range(task.replicate)]
    if not partitions:
        raise generator._unsupported(node, "async_tasks needs at least one non-default async_task")
    registers = [task.registers for task, _, _ in partitions]
    if any(r is None for r in registers):
        registers = []  # triton's setmaxnreg needs every partition's count
    builder = generator.builder
    region = _C.begin_warp_specialize(builder, [task.num_warps for task, _, _ in partitions], registers)
    module_warps = _module_num_warps(generator.semantic)
    bodies = [(0, defaults[0][1], _Running(module_warps, 0))] if defaults else []
    bodies += [(i + 1, stmt, _Running(task.num_warps, r)) for i, (task, stmt, r) in enumerate(partitions)]
    for index, stmt, running in bodies:
        _C.set_insertion_point_to_task(builder, region, index)
        # Each task sees the names defined before the region, not another
        # task's (partitions do not share registers).
        saved = dict(generator.lscope), dict(generator.local_defs)
        _stack().append(running)
        try:
            generator.visit_compound_statement(stmt.body)
        finally:
            _stack().pop()
            generator.lscope, generator.local_defs = saved
    try:
        _C.finish_warp_specialize(builder, region)
    except ValueError as error:
        raise generator._unsupported(node, f"async_tasks: {error}") from None


_installed = False


def install():
    """Routes `with tlx.async_tasks()` in @triton.jit code to this module."""
    global _installed
    if _installed:
        return
    from triton.compiler.code_generator import CodeGenerator
    stock_visit_with = CodeGenerator.visit_With

    def visit_With(self, node):
        if len(node.items) == 1 and isinstance(node.items[0].context_expr, ast.Call):
            if self.visit(node.items[0].context_expr.func) is async_tasks:
                return _visit_async_tasks(self, node)
        return stock_visit_with(self, node)

    CodeGenerator.visit_With = visit_With
    _installed = True

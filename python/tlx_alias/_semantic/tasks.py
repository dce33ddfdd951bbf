"""Warp specialization's checks: an async_task's arguments, and the tasks
of one `with tlx.async_tasks()` region."""
import dataclasses


@dataclasses.dataclass
class TaskArguments:
    is_default: bool
    num_warps: object
    registers: object
    replicate: object


def async_task_arguments(args, kwargs):
    """Checks the (unwrapped) arguments of `tlx.async_task(...)`."""
    is_default = False
    if args:
        if len(args) != 1 or args[0] != "default":
            raise ValueError("async_task takes \"default\" or keyword arguments (num_warps, registers, "
                             f"replicate); task-id lists are not supported, got {args!r}")
        if "num_regs" in kwargs or "registers" in kwargs or "num_warps" in kwargs:
            raise ValueError("the default async_task runs on the kernel's warps and gets the registers "
                             "the partitions leave: it takes no num_warps or registers")
        is_default = True
    unknown = set(kwargs) - {"num_warps", "num_regs", "registers", "replicate", "warp_group_start_id"}
    if unknown:
        raise TypeError(f"async_task got unexpected arguments {sorted(unknown)}")
    num_warps = kwargs.get("num_warps")
    registers = kwargs.get("registers", kwargs.get("num_regs"))
    replicate = kwargs.get("replicate", 1)
    if not is_default and not (isinstance(num_warps, int) and num_warps > 0):
        raise ValueError(f"async_task needs num_warps (a positive integer), got {num_warps!r}")
    if not isinstance(replicate, int) or replicate < 1:
        raise ValueError(f"async_task replicate must be a positive integer, got {replicate!r}")
    if is_default and replicate != 1:
        raise ValueError("the default async_task cannot be replicated")
    if registers is not None and (not isinstance(registers, int) or registers % 8 or not 24 <= registers <= 256):
        raise ValueError(f"async_task registers must be a multiple of 8 in [24, 256], got {registers!r}")
    return TaskArguments(is_default, num_warps, registers, replicate)


NESTED = "async_tasks cannot be nested in an async_task"
NOT_A_TASK = "only `with tlx.async_task(...)` blocks may appear directly inside `with tlx.async_tasks()`"


def region_problem(tasks):
    """What makes a region of tasks (a list of (TaskArguments, statement))
    unbuildable, as (the statement to blame or None for the whole region,
    message); None if nothing."""
    defaults = [t for t in tasks if t[0].is_default]
    if len(defaults) > 1:
        return defaults[1][1], "async_tasks has more than one default async_task"
    if all(task.is_default for task, _ in tasks):
        return None, "async_tasks needs at least one non-default async_task"
    return None


def partition_registers(partitions):
    """The registers of each partition for setmaxnreg, or [] where any is
    unset (triton's setmaxnreg needs every partition's count)."""
    registers = [task.registers for task, _, _ in partitions]
    return [] if any(r is None for r in registers) else registers

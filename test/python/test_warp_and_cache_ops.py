"""vote_ballot_sync, clock64, thread_id and prefetch compiled for sm_90 on the CPU:
the PTX holds the instruction each stands for, as many times as the kernel
asks (clock reads are never merged), masks become predicates, and bad input
is a CompilationError at the kernel's line."""
import re

import triton
import triton.language as tl

from conftest import expect_compilation_error, jit_from_body
from test_hopper_compile import compile_for_sm90, ptx_count

import tlx_alias as tlx
import hopper_kernels as hk


def test_vote_ballot_sync_per_element_and_scalar():
    k = compile_for_sm90(hk.ballot_of_signs, {"x_ptr": "*fp32", "out_ptr": "*i32", "uniform_ptr": "*i32"},
                         dict(N=128), num_warps=4)
    # one ballot for the thread's element, one for the scalar predicate
    assert ptx_count(k, "vote.sync.ballot.b32") == 2
    assert ptx_count(k, "0xffffffff;") == 2


def test_clock64_reads_are_kept_apart():
    k = compile_for_sm90(hk.clock_around_loads, {"x_ptr": "*fp32", "out_ptr": "*fp32", "cycles_ptr": "*i64"},
                         dict(N=1024), num_warps=4)
    assert ptx_count(k, "mov.u64") >= 2 and k.asm["ptx"].count("%clock64") == 2


def test_thread_id_in_each_task():
    k = compile_for_sm90(hk.thread_ids_by_task, {"out_ptr": "*i32"}, {}, num_warps=4)
    # one inline-asm read in each task (triton's own reads print with a tab)
    assert len(re.findall(r"mov\.u32 %r\d+, %tid\.x;", k.asm["ptx"])) == 2


def test_prefetch_levels_and_mask():
    for level in ("L1", "L2"):
        k = compile_for_sm90(hk.prefetched_copy, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                             dict(N=256, LEVEL=level), num_warps=4)
        assert ptx_count(k, f"@keep prefetch.global.{level}") == 2  # 256 elements, 2 a thread, each masked


def _compile_body(body):
    fn = jit_from_body(body, "x_ptr, out_ptr", {"tlx": tlx, "tl": tl, "triton": triton})
    return compile_for_sm90(fn, {"x_ptr": "*fp32", "out_ptr": "*i32"}, {}, num_warps=4)


def test_prefetch_without_mask_and_of_a_tensormap():
    k = _compile_body("offs = tl.arange(0, 128)\ntlx.prefetch(x_ptr + offs)\ntlx.prefetch(x_ptr, tensormap=True)")
    assert ptx_count(k, "prefetch.global.L2") == 1 and "@keep" not in k.asm["ptx"]
    assert ptx_count(k, "prefetch.tensormap") == 1


ERRORS = {
    "ballot_mask_zero": ("tlx.vote_ballot_sync(0, tl.program_id(0) == 0)", "ValueError",
                         "vote_ballot_sync's mask must be at least 1, got 0"),
    "ballot_mask_wide": ("tlx.vote_ballot_sync(1 << 32, tl.program_id(0) == 0)", "ValueError",
                         "vote_ballot_sync's mask is a 32-bit lane mask, got 0x100000000"),
    "ballot_mask_runtime": ("m = tl.program_id(0)\ntlx.vote_ballot_sync(m, m == 0)", "ValueError",
                            "vote_ballot_sync's mask must be a compile-time integer"),
    "ballot_float": ("tlx.vote_ballot_sync(0xFFFFFFFF, tl.load(x_ptr))", "TypeError",
                     "vote_ballot_sync: the predicate must be a boolean or an integer, got fp32"),
    "thread_id_axis": ("t = tlx.thread_id(3)", "ValueError", "thread_id: axis must be 0, 1 or 2, got 3"),
    "prefetch_level": ("tlx.prefetch(x_ptr, level='L3')", "ValueError",
                       "prefetch: level must be 'L1' or 'L2', got 'L3'"),
    "prefetch_not_pointer": ("tlx.prefetch(tl.load(x_ptr))", "TypeError",
                             "prefetch expects a pointer or a tensor of pointers, got fp32"),
    "tensormap_block": ("tlx.prefetch(x_ptr + tl.arange(0, 4), tensormap=True)", "ValueError",
                        "prefetch: tensormap=True expects a scalar pointer to one descriptor"),
    "tensormap_mask": ("tlx.prefetch(x_ptr, tensormap=True, mask=True)", "ValueError",
                       "prefetch: tensormap=True takes no mask"),
}


def test_bad_input_is_a_compilation_error_at_the_line():
    for name, (body, error_type, message) in sorted(ERRORS.items()):
        text = expect_compilation_error(_compile_body, body, error_type, message)
        assert "tlx." in text, name  # the kernel line is quoted

"""PTX digests of every example configuration, compiled for sm_90 on the CPU:
the proof that a refactor left code generation alone.

    python test/support/ptx_digest.py > before.txt   # at the old commit
    python test/support/ptx_digest.py > after.txt    # at the new one
    diff before.txt after.txt

Each line: the config, the sha256 of the PTX as triton wrote it, and the
sha256 of the PTX without its debug information (.loc/.file directives, the
DWARF sections and the `$L__tmpN:` labels that only they refer to), which
only moves when a kernel's source lines or its inlined calls do."""
import hashlib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import hopper_flash_attention  # noqa: E402
import hopper_persistent_gemm  # noqa: E402
import memory_map  # noqa: E402
import persistent_gemm  # noqa: E402

DEBUG_LINE = re.compile(r"^\s*\.(loc|file)\b.*$\n?", re.M)
DEBUG_SECTION = re.compile(r"^\s*\.section\s+\.debug_\w+\s*\{.*?^\s*\}\s*$\n?", re.M | re.S)
DEBUG_LABEL = re.compile(r"^\$L__tmp\d+:\n", re.M)  # scope marks of inlined calls, for DWARF only


def without_debug_lines(ptx):
    return DEBUG_LABEL.sub("", DEBUG_SECTION.sub("", DEBUG_LINE.sub("", ptx)))


def memory_map_kernel():
    import triton
    from triton.backends.compiler import GPUTarget
    constexprs = {"BLOCK_M": 64, "BLOCK_N": 64, "NUM_BUFFERS": 2}
    signature = {"x_ptr": "*fp32", "out_ptr": "*fp32", **{k: "constexpr" for k in constexprs}}
    src = triton.compiler.ASTSource(fn=memory_map.softmax_rows, signature=signature, constexprs=constexprs)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32))


def configs():
    """(name, thunk compiling it): the configs each example's __main__ and
    tests compile, and the attention schedules attention() picks."""
    yield "memory_map", memory_map_kernel
    for alias, stages in ((True, 4), (False, 2)):
        for asynchronous in (True, False):
            yield (f"persistent_gemm ALIAS={alias} STAGES={stages} ASYNC={asynchronous}",
                   lambda a=alias, s=stages, y=asynchronous: persistent_gemm.compile_for_sm90(ALIAS=a, STAGES=s,
                                                                                             ASYNC=y))
    for alias, stages in ((True, 4), (False, 3)):
        yield (f"hopper_persistent_gemm ALIAS={alias} STAGES={stages}",
               lambda a=alias, s=stages: hopper_persistent_gemm.compile_for_sm90(ALIAS=a, STAGES=s))
    attention = hopper_flash_attention
    for head_dim in (64, 128, 256):
        for alias in (True, False):
            for causal in (False, True):
                yield (f"attention HEAD_DIM={head_dim} ALIAS={alias} CAUSAL={causal}",
                       lambda h=head_dim, a=alias, c=causal: attention.compile_for_sm90(h, causal=c, alias=a))
    yield ("attention HEAD_DIM=256 O over V", lambda: attention.compile_for_sm90(256, v_stages=3, o_staging="v"))
    yield ("attention HEAD_DIM=256 Q columns in registers",
           lambda: attention.compile_for_sm90(256, q_reg_cols=64, consumer_registers=240))
    yield ("attention HEAD_DIM=128 no pingpong, early handback, diagonal last",
           lambda: attention.compile_for_sm90(128, causal=True, pingpong=False, late_q_handback=False,
                                              diagonal_first=False))
    yield "attention HEAD_DIM=64 bf16", lambda: attention.compile_for_sm90(64, dtype="bf16")


def main():
    selected = sys.argv[1:]
    for name, compile_it in configs():
        if selected and not any(s in name for s in selected):
            continue
        ptx = compile_it().asm["ptx"]
        whole = hashlib.sha256(ptx.encode()).hexdigest()[:16]
        code = hashlib.sha256(without_debug_lines(ptx).encode()).hexdigest()[:16]
        print(f"{whole} {code}  {name}", flush=True)


if __name__ == "__main__":
    main()

"""The peer's (Meta TLX, fbtriton 3.7.4) Hopper tutorials compiled for sm_90
through tlx_alias on the CPU, for the hazard tests: each kernel with each
configuration its @triton.autotune lists, and the arguments a launch from
the tutorial's host code passes (read from that code: TMA block shapes from
its pre-hooks, contiguous fp16 inputs, unit strides specialized as a launch
does).

The tutorials are read from TLX_TUTORIALS (test/support/tutorials.py); none
of their text is in this repository. Without them the tests skip, naming
TLX_TUTORIALS, unless TLX_REQUIRE_PEER_TUTORIALS=1 (CI), where they fail."""
import contextlib
import inspect
import os
import sys

import pytest
import triton
from triton import knobs
from triton.backends.compiler import GPUTarget

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "support"))
import tutorials  # noqa: E402

TUTORIALS = tutorials.HOPPER_GEMM + tutorials.HOPPER_ATTENTION
TARGET = GPUTarget("cuda", 90, 32)
NUM_SMS = 132  # an H100's; only the persistent loops' stride

# What a launch passes besides a config: the head dim (the tutorials assert
# BLOCK_N (128) <= HEAD_DIM; 256 does not fit in shared memory), fp16, one
# K split, row-major inputs.
LAUNCH = dict(NUM_SMS=NUM_SMS, HEAD_DIM=128, FP8_OUTPUT=False, SPLIT_K=1, A_ROW_MAJOR=True, B_ROW_MAJOR=True)
UNIT_STRIDES = ("stride_ak", "stride_bn", "stride_cn")  # contiguous: specialized to 1


def _gemm_blocks(c, split_a):
    rows = c["BM"] // c["NUM_MMA_GROUPS"] if split_a else c["BM"]
    c_cols = c["BN"] // 2 if c.get("EPILOGUE_SUBTILE") else c["BN"]
    return {"a_desc": [rows, c["BK"]], "b_desc": [c["BK"], c["BN"] // c.get("NUM_CTAS", 1)],
            "c_desc": [rows, c_cols]}


def _attention_blocks(c):
    rows = c["BLOCK_M"] // c["NUM_MMA_GROUPS"]
    return {"desc_q": [rows, c["HEAD_DIM"]], "desc_k": [c["BLOCK_N"], c["HEAD_DIM"]],
            "desc_v": [c["BLOCK_N"], c["HEAD_DIM"]], "desc_o": [rows, c["HEAD_DIM"]]}


# The TMA block shapes each tutorial's pre-hook sets (the ping-pong GEMM's
# consumers take whole BM-row tiles, the others split A and C by MMA group).
BLOCKS = {
    "hopper_gemm_ws": lambda c: (_gemm_blocks(c, True) if "BM" in c else
                                 {"a_desc": [c["BLOCK_M"], c["BLOCK_K"]], "b_desc": [c["BLOCK_K"], c["BLOCK_N"]]}),
    "hopper-persistent-gemm-ws-pingpong": lambda c: _gemm_blocks(c, False),
    "hopper-persistent-gemm-ws-cooperative": lambda c: _gemm_blocks(c, True),
    **{name: _attention_blocks for name in tutorials.HOPPER_ATTENTION},
}


def require_tutorials():
    """Skips (or, with TLX_REQUIRE_PEER_TUTORIALS=1, fails) without them."""
    where = tutorials.tutorials_dir()
    if where is None:
        message = tutorials.MISSING + " (.ci/run fetches them)"
    elif all(os.path.isfile(os.path.join(where, name + ".py")) for name in TUTORIALS):
        return
    else:
        message = (f"the peer's Hopper tutorials are not in {where}: set TLX_TUTORIALS to fbtriton 3.7.4's "
                   "triton/language/extra/tlx/tutorials (.ci/run fetches them)")
    if os.environ.get("TLX_REQUIRE_PEER_TUTORIALS") == "1":
        pytest.fail(message)
    pytest.skip(message)


def group_free(config):
    """A config's identity without GROUP_SIZE_M: the group size maps tile ids
    to (pid_m, pid_n), i.e. TMA coordinates and pointers, never a buffer
    slot, a barrier or a phase, so configs differing only there have the
    same accesses and synchronization."""
    kwargs = {k: v for k, v in config.kwargs.items() if k != "GROUP_SIZE_M"}
    return tuple(sorted(kwargs.items())), config.num_warps, config.num_stages


def kernels(name, all_group_sizes=False):
    """[(kernel function, [triton.Config])] of a tutorial: every config of
    its autotune lists (one per group_free identity unless all_group_sizes)."""
    module = tutorials.load(name, kernels_only=True)
    result = []
    for kernel_name, configs in tutorials.autotune_configs(name).items():
        if not all_group_sizes:
            configs = list({group_free(c): c for c in reversed(configs)}.values())[::-1]
        result.append((getattr(module, kernel_name), configs))
    return result


class _TTGIR(Exception):
    """Carries the final TTGIR out of a compile stopped after it."""

    def __init__(self, text):
        super().__init__("stopped after TTGIR")
        self.text = text


@contextlib.contextmanager
def stop_after_ttgir():
    """Compiles stop after the TTGIR stage (where tlx-check-hazards runs, on
    the final TTGIR); LLVM, PTX and ptxas are most of a compile's time.
    Yields a list that gets each compile's TTGIR."""
    previous = knobs.runtime.add_stages_inspection_hook
    texts = []

    def hook(backend=None, stages=None, options=None, language=None, capability=None):
        if stages is None:  # the cache key: not the full compile's
            key, digest = previous() if previous else ("", "")
            return key + "stop-after-ttgir", digest + "stop-after-ttgir"
        if previous:
            previous(backend, stages, options, language, capability)

        def stop(module, metadata):
            texts.append(str(module))
            raise _TTGIR(texts[-1])

        names = list(stages)
        for later in names[names.index("ttgir") + 1:]:
            stages[later] = stop
            break

    knobs.runtime.add_stages_inspection_hook = hook
    try:
        yield texts
    finally:
        knobs.runtime.add_stages_inspection_hook = previous


def ttgir(name, fn, config):
    """The final TTGIR of the kernel with `config`, without the later
    stages (inside stop_after_ttgir)."""
    try:
        compile_kernel(name, fn, config)
    except _TTGIR as stopped:
        return stopped.text
    raise RuntimeError("compile_kernel ran past TTGIR: call it inside stop_after_ttgir()")


def compile_kernel(name, fn, config):
    """The kernel compiled for sm_90 as the tutorial's launch would, with
    `config`."""
    parameters = inspect.signature(fn.fn).parameters
    params = list(parameters)
    values = {**{k: v for k, v in LAUNCH.items() if k in params}, **config.kwargs}
    blocks = BLOCKS[name](values) if name in BLOCKS else {}
    signature, constexprs = {}, {}
    for p in params:
        if p in values:
            constexprs[p] = values[p]
        elif p in UNIT_STRIDES:
            constexprs[p] = 1
        elif p in blocks:
            signature[p] = "tensordesc<fp16[{}, {}]>".format(*blocks[p])
        elif p.endswith("_ptr"):
            signature[p] = "*fp16"
        elif p == "sm_scale":
            signature[p] = "fp32"
        elif p == "M" and "sm_scale" in params:  # attention's log-sum-exp output
            signature[p] = "*fp32"
        elif parameters[p].default is not inspect.Parameter.empty:
            constexprs[p] = parameters[p].default
        else:
            signature[p] = "i32"  # sizes, strides, offsets
    signature = {p: signature.get(p, "constexpr") for p in params}
    # Tensors and sizes from torch are 16-byte aligned / multiples of 16.
    attrs = {(i, ): [["tt.divisibility", 16]] for i, p in enumerate(params)
             if signature[p] in ("*fp16", "*fp32", "i32")}
    src = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
    return triton.compile(src, target=TARGET, options={"num_warps": config.num_warps,
                                                      "num_stages": config.num_stages})


def config_text(config):
    return ", ".join(f"{k}={v}" for k, v in config.kwargs.items()) + f", num_warps={config.num_warps}"

"""How long tlx-lower takes, against module size and against a real compile.

Generates TTGIR modules with N storage_alias_local_allocs (in specs of four,
two nested overlap trees each) and an index op per buffer, times
tlx-storage-alias-lowering and the whole tlx-lower on them, and compares with
triton's full compile (CPU, sm_90) of a real matmul kernel.

    python benchmarks/lowering_time.py [--sizes 10 100 1000 10000]
"""
import argparse
import os
import sys
import time

import tlx_alias
from tlx_alias._triton import passes as _pipeline

import triton
import triton.language as tl
from tlx_alias._triton.plugin import plugin_passes
from triton.backends.compiler import GPUTarget

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "python"))
from ttgir_builder import HEADER, Leaf  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)


def generate(num_allocs):
    """A module with num_allocs allocations: groups of 4 per spec."""
    leaves = [Leaf((64, 64), "f32", 2), Leaf((64, 64), "f16", 2), Leaf((64,), "f32", 2),
              Leaf((32, 64), "bf16", 2)]
    lines = [HEADER, "  tt.func public @k(%i: i32) {"]
    for s in range((num_allocs + 3) // 4):
        spec = f"%s{s}"
        ty = "!tlx.storage_alias_spec<smem>"
        lines.append(f"    {spec} = tlx.storage_alias_spec storage = smem : {ty}")
        for n, leaf in enumerate(leaves):
            lines.append(f"    %a{s}_{n} = tlx.storage_alias_local_alloc {spec} : {ty} -> {leaf.memdesc()}")
        t = [leaf.memdesc() for leaf in leaves]
        lines.append(f"    %d{s} = tlx.reuse_group(%a{s}_1, %a{s}_2, %a{s}_3) group_kind = distinct : "
                     f"({t[1]}, {t[2]}, {t[3]}) -> !tlx.reuse_group<distinct>")
        lines.append(f"    %g{s} = tlx.reuse_group(%a{s}_0, %d{s}) group_kind = shared : "
                     f"({t[0]}, !tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>")
        lines.append(f"    tlx.set_buffer_overlap({spec}, %g{s}) : ({ty}, !tlx.reuse_group<shared>) -> ()")
        for n, leaf in enumerate(leaves):
            lines.append(f"    %v{s}_{n} = ttg.memdesc_index %a{s}_{n}[%i] : {leaf.memdesc()} -> "
                         f"{leaf.buffer_memdesc()}")
    lines += ["    tt.return", "  }", "}"]
    return "\n".join(lines) + "\n"


def time_pass(text, add, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        module, context = _pipeline.parse_module(text)
        start = time.perf_counter()
        _pipeline.run_passes(module, add, context=context)
        best = min(best, time.perf_counter() - start)
    return best


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def full_compile_seconds(repeat=2):
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
           "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32",
           "stride_cm": "i32", "stride_cn": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
           "BLOCK_K": "constexpr"}
    consts = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}
    best = float("inf")
    for _ in range(repeat):
        src = triton.compiler.ASTSource(fn=matmul_kernel, signature=sig, constexprs=consts)
        os.environ["TRITON_ALWAYS_COMPILE"] = "1"
        start = time.perf_counter()
        triton.compile(src, target=TARGET, options={"num_stages": 3, "num_warps": 8})
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000, 10000])
    args = parser.parse_args()
    compile_s = full_compile_seconds()
    print(f"triton {triton.__version__}, tlx_alias {tlx_alias.__version__}")
    print(f"full compile of a 128x128x64 fp16 matmul (sm_90, CPU): {compile_s * 1e3:.1f} ms\n")
    print(f"{'allocs':>8} {'lowering ms':>12} {'tlx-lower ms':>13} {'us/alloc':>9} "
          f"{'x previous':>10}")
    previous = None
    per_kernel = time_pass(generate(4), lambda pm: plugin_passes.tlx_lower(pm, []), repeat=5)
    for n in args.sizes:
        text = generate(n)
        lowering = time_pass(text, lambda pm: plugin_passes.tlx_storage_alias_lowering(pm, []))
        whole = time_pass(text, lambda pm: plugin_passes.tlx_lower(pm, []))
        growth = f"{lowering / previous:.1f}" if previous else "-"
        print(f"{n:>8} {lowering * 1e3:>12.2f} {whole * 1e3:>13.2f} {lowering / n * 1e6:>9.2f} "
              f"{growth:>10}")
        previous = lowering
    print(f"\ntlx-lower on a kernel-sized module (4 allocations): {per_kernel * 1e3:.3f} ms = "
          f"{per_kernel / compile_s * 100:.3f}% of the full compile")


if __name__ == "__main__":
    main()

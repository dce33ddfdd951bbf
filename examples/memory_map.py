"""A kernel author's view: a flash-attention-style kernel whose fp32 score tile
shares shared memory with the bf16 probabilities and the row statistics.

Compiles for sm_90 on any machine (no GPU needed) and prints the memory map
the compiler chose; with a GPU, also runs the kernel and checks its output.

    python examples/memory_map.py
"""
import tlx_alias as tlx
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget


@triton.jit
def softmax_rows(x_ptr, out_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, NUM_BUFFERS: tl.constexpr):
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
    scores = tlx.local_alloc((BLOCK_M, BLOCK_N), tl.float32, NUM_BUFFERS, reuse=spec)
    probs = tlx.local_alloc((BLOCK_M, BLOCK_N), tl.bfloat16, NUM_BUFFERS, reuse=spec)
    row_max = tlx.local_alloc((BLOCK_M, ), tl.float32, NUM_BUFFERS, reuse=spec)
    row_sum = tlx.local_alloc((BLOCK_M, ), tl.float32, NUM_BUFFERS, reuse=spec)
    # scores are dead once probs exist: they share; probs and the row
    # statistics live together: they are distinct.
    spec.set_buffer_overlap(
        tlx.reuse_group(
            scores,
            tlx.reuse_group(probs, row_max, row_sum, group_type=tlx.reuse_group_type.distinct),
            group_type=tlx.reuse_group_type.shared,
        ))
    rows = tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    offs = rows[:, None] * BLOCK_N + cols[None, :]
    for b in tl.range(0, NUM_BUFFERS):
        tlx.local_store(scores[b], tl.load(x_ptr + b * BLOCK_M * BLOCK_N + offs))
        s = tlx.local_load(scores[b])
        m = tl.max(s, axis=1)
        p = tl.exp(s - m[:, None])
        tlx.local_store(probs[b], p.to(tl.bfloat16))
        tlx.local_store(row_max[b], m)
        tlx.local_store(row_sum[b], tl.sum(p, axis=1))
        out = tlx.local_load(probs[b]).to(tl.float32) / tlx.local_load(row_sum[b])[:, None]
        tl.store(out_ptr + b * BLOCK_M * BLOCK_N + offs, out)


def main():
    constexprs = {"BLOCK_M": 64, "BLOCK_N": 64, "NUM_BUFFERS": 2}
    src = triton.compiler.ASTSource(
        fn=softmax_rows, signature={"x_ptr": "*fp32", "out_ptr": "*fp32", **{k: "constexpr" for k in constexprs}},
        constexprs=constexprs)
    kernel = triton.compile(src, target=GPUTarget("cuda", 90, 32))
    print(f"compiled for sm_90: {kernel.metadata.shared} bytes of shared memory\n")
    tlx.print_memory_map(kernel)

    try:
        import torch
        has_gpu = torch.cuda.is_available()
    except ImportError:
        has_gpu = False
    if has_gpu:
        x = torch.randn(2, 64, 64, device="cuda")
        out = torch.empty_like(x)
        softmax_rows[(1, )](x, out, **constexprs)
        expected = torch.softmax(x, dim=-1)
        error = (out - expected).abs().max().item()
        print(f"\nran on {torch.cuda.get_device_name()}: max |error| vs torch.softmax = {error:.2e}")
        assert error < 1e-2


if __name__ == "__main__":
    main()

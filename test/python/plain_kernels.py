"""A plain triton kernel (no tlx ops) that tests compile beside tlx kernels,
also from the scripts they run in fresh interpreters (import this file's
directory first)."""
import triton
import triton.language as tl


@triton.jit
def plain_matmul(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a_ptrs = a_ptr + offs[:, None] * BLOCK + offs[None, :]
    b_ptrs = b_ptr + offs[:, None] * BLOCK + offs[None, :]
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK
        b_ptrs += BLOCK
    tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], acc)

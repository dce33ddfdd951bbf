"""Host-side help for launching tlx_alias kernels."""
from ._triton.launch import is_compiled_kernel
from ._triton.launch import max_active_clusters as _max_active_clusters


def max_active_clusters(compiled):
    """How many clusters of a compiled kernel (launched with num_ctas CTAs per
    cluster) the GPU runs at once, at the kernel's occupancy (CTAs an SM by
    its shared memory, registers and warps): the grid of a persistent kernel
    in clusters. Clusters go to GPCs whole, so for a kernel of one CTA an SM
    this can be less than the SMs divided by num_ctas. `compiled` is what
    `kernel.warmup(*args, grid=(1,), **constexprs)` returns; needs a GPU."""
    if not is_compiled_kernel(compiled):
        raise TypeError(f"max_active_clusters: expected a compiled kernel (kernel.warmup(...)'s result), "
                        f"got {type(compiled).__name__}")
    return _max_active_clusters(compiled)

"""What tlx_alias asks of triton's launcher: the clusters of a compiled
kernel the GPU runs at once (the CUDA occupancy query through triton's
NVIDIA driver module, on the kernel's loaded function)."""


def is_compiled_kernel(value):
    """Whether `value` is a triton CompiledKernel (what kernel.warmup returns)."""
    from triton.compiler.compiler import CompiledKernel

    return isinstance(value, CompiledKernel)


def max_active_clusters(compiled):
    """cuOccupancyMaxActiveClusters for `compiled` (a triton CompiledKernel)
    at its shared memory and num_ctas; loads the kernel onto the current
    device first, as its first launch would."""
    from triton.runtime import driver

    compiled._init_handles()
    return driver.active.utils.cuOccupancyMaxActiveClusters(compiled.function, compiled.metadata.shared,
                                                            compiled.metadata.num_ctas)

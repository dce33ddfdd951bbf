"""Puts the TLX lowering into triton's compilation pipeline.

Through `knobs.runtime.add_stages_inspection_hook` (composed with any hook
already set): kernels reach Triton's own TTGIR passes, and in any case its
allocation and membar analysis (the start of the llir stage), with only
stock ops. The hook contributes a cache key (version, and the hashes of the
plugin and of the frontend's Python), so kernels recompile when either changes.
"""
import contextlib
import contextvars
import functools
import hashlib
import json
import os
import tempfile
import warnings

from triton import knobs
from triton._C.libtriton import ir, passes

from . import _C, _hazards, _opt
from ._plugin import plugin_path
from ._plugin_api import plugin_passes

TLX_DIALECT_PREFIX = "tlx."


@functools.lru_cache(maxsize=None)
def _plugin_key():
    # The frontend's Python builds the TTIR as much as the plugin lowers it
    # (as triton hashes triton/language): both are in the key.
    digest = hashlib.sha256()
    package = os.path.dirname(os.path.abspath(__file__))
    for path in [plugin_path()] + sorted(os.path.join(package, name) for name in os.listdir(package)
                                         if name.endswith(".py")):
        with open(path, "rb") as f:
            digest.update(f.read())
    from . import __version__

    return f"tlx_alias-{__version__}-{digest.hexdigest()}"


def _exact_views_option():
    """`exact-views=0|1` when TLX_ALIAS_EXACT_VIEWS forces triton 3.8's view
    rules off or on, else None (the plugin's default)."""
    exact = os.environ.get("TLX_ALIAS_EXACT_VIEWS", "")
    return f"exact-views={exact}" if exact in ("0", "1") else None


def cache_key():
    # TLX_ALIAS_EXACT_VIEWS changes the layouts, so it is part of the key.
    option = _exact_views_option()
    return _plugin_key() + (f"-{option}" if option else "")


def has_tlx_ops(module):
    found = []

    def visit(op):
        if op.get_name().startswith(TLX_DIALECT_PREFIX):
            found.append(op)

    module.walk(visit)
    return bool(found)


def parse_module(text, context=None):
    """Parses MLIR text into an ir.module (with every triton dialect and tlx
    loaded; in a new context unless one is given); returns (module, context)."""
    if context is None:
        context = ir.context()
        ir.load_dialects(context)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        return ir.parse_mlir_module(f.name, context), context
    finally:
        os.unlink(f.name)


def run_passes(module, add_passes, name="tlx", context=None):
    """Runs passes on an ir.module; errors carry the compiler's diagnostics.

    triton's compiler attaches `.context` to the modules it handles; a module
    parsed by hand needs its context passed."""
    pm = ir.pass_manager(context if context is not None else module.context)
    _stock(ir.pass_manager.enable_debug)(pm)  # our own handler, no capture
    add_passes(pm)
    try:
        reported = _opt.run_passes(pm, module)
    except RuntimeError as error:
        raise RuntimeError(f"{name} failed:\n{error}") from None
    if reported:
        warnings.warn(reported.strip(), stacklevel=3)


def lowering_args(memory_map=None):
    """tlx-lower's options: the memory map file, and exact views when
    TLX_ALIAS_EXACT_VIEWS is 1 or 0 (triton 3.8's view rules, which the plugin
    follows by default only when built for 3.8; forcing them on under 3.7
    checks their layouts there)."""
    args = [f"memory-map={memory_map}"] if memory_map else []
    option = _exact_views_option()
    return args + [option] if option else args


def lower_module(module, memory_map=None):
    """Lowers the tlx ops of an ir.module in TTGIR (an IR source) to stock
    TTGIR: cp.async waits, then tlx-lower."""
    args = lowering_args(memory_map)

    def add(pm):
        plugin_passes.tlx_convert_async_waits(pm)
        plugin_passes.tlx_lower(pm, args)

    run_passes(module, add, "tlx-lower")


# Set while a tlx kernel's triton stage (make_ttgir, make_llir) runs in this
# thread (context): the pass managers that stage creates get a diagnostic
# capture (see _install_pass_wrappers).
_capture = contextvars.ContextVar("tlx_alias_capture", default=None)


@contextlib.contextmanager
def errors_in_exception(name):
    """Triton's own stages report diagnostics through a handler that prints
    them and raise only "PassManager::run failed": collect the errors with a
    handler on the module's context instead (_opt.DiagnosticCapture, attached
    to each pass manager the stage creates) and put them into the exception.
    Nothing process-wide changes, so compiles in other threads are unaffected."""
    capture = _opt.DiagnosticCapture()
    token = _capture.set(capture)
    try:
        yield
    except RuntimeError as error:
        errors = capture.release().strip()
        if errors:
            raise RuntimeError(f"{name} failed:\n{errors}") from error
        raise
    finally:
        _capture.reset(token)
        capture.release()


@contextlib.contextmanager
def memory_map_file():
    fd, path = tempfile.mkstemp(prefix="tlx_memory_map_", suffix=".jsonl")
    os.close(fd)
    try:
        yield path
    finally:
        os.unlink(path)


def read_memory_map(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class _Compiling:
    """The tlx kernel whose TTGIR stage runs in this thread (context)."""

    def __init__(self, module, memory_map_path):
        self.module = module
        self.memory_map_path = memory_map_path


# Set only while a tlx kernel's own ttgir stage runs: triton's pass-adding
# functions are wrapped once, at import, and behave as stock for every other
# compile, including ones running at the same time in other threads.
_compiling = contextvars.ContextVar("tlx_alias_compiling", default=None)

# Set while a tlx kernel's llir stage runs (see _install_pass_wrappers).
_lowering_llir = contextvars.ContextVar("tlx_alias_lowering_llir", default=False)


def _wrap(namespace, name, make_wrapper):
    stock = getattr(namespace, name)
    if getattr(stock, "_tlx_alias_stock", None) is not None:
        return
    wrapper = make_wrapper(stock)
    wrapper._tlx_alias_stock = stock
    setattr(namespace, name, wrapper)


def _stock(function):
    """The triton function a wrapper of ours replaced (or the function)."""
    return getattr(function, "_tlx_alias_stock", function)


def _convert_wrapper(stock):

    def add_convert_to_ttgpuir(pm, *args, **kwargs):
        state = _compiling.get()
        if state is None:
            return stock(pm, *args, **kwargs)

        def add(own_pm):
            stock(own_pm, *args, **kwargs)
            plugin_passes.tlx_jit_lowering(own_pm, lowering_args(state.memory_map_path))

        _convert_partitions_of_own_width(state.module, stock, args, kwargs)
        run_passes(state.module, add, "tlx lowering")

    return add_convert_to_ttgpuir


def _convert_keeping_casts(stock, pm, args, kwargs):
    stock(pm, *args, **kwargs)
    plugin_passes.tlx_keep_casts_for_tlx_ops(pm, [])


def _convert_partitions_of_own_width(module, stock, args, kwargs):
    """Converts the warp_specialize partitions whose warp count is not the
    kernel's to TTGIR with their own count (triton's conversion uses the
    module's for everything); the module's conversion then keeps their
    layouts. See cpp/python/PartitionWarps.cpp."""
    args = list(args)
    num_warps = kwargs["num_warps"] if "num_warps" in kwargs else args[1]
    for warps in _C.partition_warp_counts(module):
        if warps == num_warps:
            continue
        holder, _ = parse_module("module {}", module.context)
        if "num_warps" in kwargs:
            kwargs = dict(kwargs, num_warps=warps)
        else:
            args[1] = warps
        _C.detach_partitions(module, holder, warps)
        try:
            run_passes(holder, lambda pm: _convert_keeping_casts(stock, pm, args, kwargs),
                       f"TTGIR conversion of {warps}-warp partitions", context=module.context)
        finally:
            _C.attach_partitions(module, holder, warps)


def _pipeline_wrapper(stock):

    def add_pipeline(pm, *args, **kwargs):
        stock(pm, *args, **kwargs)
        if _compiling.get() is not None:
            plugin_passes.tlx_convert_async_waits(pm)

    return add_pipeline


def _fence_insertion_wrapper(stock):

    def add_fence_insertion(pm, *args, **kwargs):
        if _compiling.get() is not None:
            plugin_passes.tlx_dot_operands_in_place(pm)
        stock(pm, *args, **kwargs)

    return add_fence_insertion


def _to_llvmir_wrapper(stock):

    def add_to_llvmir(pm, *args, **kwargs):
        stock(pm, *args, **kwargs)
        # TLX_ALIAS_LEADER_SYNC=0 leaves it out (for measuring it; the
        # PTX changes, triton's cache key does not: clear the cache).
        if _lowering_llir.get() and os.environ.get("TLX_ALIAS_LEADER_SYNC", "1") != "0":
            plugin_passes.tlx_sync_before_leader_arrive(pm)

    return add_to_llvmir


def _enable_debug_wrapper(stock):

    def enable_debug(pm, *args, **kwargs):
        capture = _capture.get()
        if capture is not None:
            capture.attach(pm)
        return stock(pm, *args, **kwargs)

    return enable_debug


def _install_pass_wrappers():
    """The four points where tlx kernels need passes of their own inside
    triton's make_ttgir and make_llir, and the one where the pass managers of a tlx
    kernel's stages get their diagnostic capture (`pm.enable_debug()`, which
    triton calls on each right after creating it):

    * the TTIR->TTGIR conversion: run it now, followed by the plugin's
      conversions and storage-alias lowering, in a pass manager whose
      diagnostics we keep (make_ttgir's own pass manager gets nothing);
    * right after the software pipeliner (which recomputes cp.async wait
      counts): the kernel's async_load_wait_group counts become
      ttg.async_wait;
    * right before fence insertion: wgmma reads tlx buffers in place;
    * right after the TTGIR->LLVM conversion (llir stage): a warp-group
      barrier before each leader mbarrier arrive
      (tlx-sync-before-leader-arrive);
    * `pass_manager.enable_debug`: the capture of errors_in_exception.
    """
    _wrap(ir.pass_manager, "enable_debug", _enable_debug_wrapper)
    _wrap(passes.ttir, "add_convert_to_ttgpuir", _convert_wrapper)
    _wrap(passes.ttgpuir, "add_pipeline", _pipeline_wrapper)
    try:
        from triton._C.libtriton import nvidia
    except ImportError:
        return
    _wrap(nvidia.passes.ttnvgpuir, "add_fence_insertion", _fence_insertion_wrapper)
    _wrap(nvidia.passes.ttgpuir, "add_to_llvmir", _to_llvmir_wrapper)


class StagesHook:
    """The add_stages_inspection_hook: ours, then the one it replaced."""

    def __init__(self, previous):
        self.previous = previous

    def __call__(self, backend=None, stages=None, options=None, language=None, capability=None):
        if stages is None:  # asked for the cache key
            key, digest = ("", "")
            if self.previous is not None:
                key, digest = self.previous()
            return key + cache_key(), digest + cache_key()
        if self.previous is not None:
            self.previous(backend, stages, options, language, capability)
        if "ttgir" in stages and "ttir" in stages:
            self._wrap_ttgir(stages)
        self._wrap_llir(stages)

    def _wrap_ttgir(self, stages):
        # JIT kernels: our passes go right after triton's TTIR->TTGIR
        # conversion, so that every TTGIR pass of triton sees stock ops only
        # (see _install_pass_wrappers). Kernels without tlx ops take the
        # stock path untouched.
        make_ttgir = stages["ttgir"]

        def ttgir(module, metadata):
            if not has_tlx_ops(module):
                return make_ttgir(module, metadata)
            with memory_map_file() as path:
                token = _compiling.set(_Compiling(module, path))
                try:
                    with errors_in_exception("make_ttgir"):
                        result = make_ttgir(module, metadata)
                finally:
                    _compiling.reset(token)
                # Reuse hazards, on the final TTGIR (TLX_ALIAS_HAZARDS).
                _hazards.check(result, metadata.get("name", ""))
                metadata["tlx_memory_map"] = json.dumps(read_memory_map(path))
            return result

        stages["ttgir"] = ttgir

    def _wrap_llir(self, stages):
        # IR sources (`triton.compile("k.ttgir")`) start here; JIT kernels
        # arrive lowered already. Without tlx ops the module is untouched.
        make_llir = stages["llir"]

        def llir(module, metadata):
            if has_tlx_ops(module):
                with memory_map_file() as path:
                    lower_module(module, path)
                    metadata["tlx_memory_map"] = json.dumps(read_memory_map(path))
            if "tlx_memory_map" not in metadata:
                return make_llir(module, metadata)
            token = _lowering_llir.set(True)
            try:
                with errors_in_exception("make_llir"):
                    return make_llir(module, metadata)
            finally:
                _lowering_llir.reset(token)

        stages["llir"] = llir


def install():
    """Installs the hook once, keeping whatever hook was there before."""
    _install_pass_wrappers()
    current = knobs.runtime.add_stages_inspection_hook
    if isinstance(current, StagesHook):
        return current
    hook = StagesHook(current)
    knobs.runtime.add_stages_inspection_hook = hook
    return hook

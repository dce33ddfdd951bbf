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

from triton import knobs
from triton._C.libtriton import ir, passes

from .. import _addresses, _hazards, _opt
from .._triton_version import imported_triton_at_least
from .._version import __version__
from . import ir as tlx_ir
from .diagnostics import StageError, stage_error
from .passes import exact_views_option, lower_module, lowering_args, parse_module, run_passes
from .patching import patch
from .plugin import plugin_passes, plugin_path
from .tma import descriptors_have_layouts

TLX_DIALECT_PREFIX = "tlx."
TTIR_OF_TLX_PREFIXES = (TLX_DIALECT_PREFIX, "ttg.", "ttng.")
# tlx_alias's directory: its Python builds the TTIR.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@functools.lru_cache(maxsize=None)
def _plugin_key():
    # The frontend's Python builds the TTIR as much as the plugin lowers it
    # (as triton hashes triton/language): both are in the key, every module
    # of the package (its subpackages' too) in the order of their paths;
    # subpackages linked in (a development staging) count as well.
    digest = hashlib.sha256()
    sources = sorted(os.path.join(directory, name)
                     for directory, _, names in os.walk(_PACKAGE_DIR, followlinks=True)
                     for name in names if name.endswith(".py"))
    for path in [plugin_path()] + sources:
        with open(path, "rb") as f:
            digest.update(f.read())
    return f"tlx_alias-{__version__}-{digest.hexdigest()}"


# The analyses that warn at kernel lines on the final TTGIR (_findings.py):
# reuse hazards (TLX_ALIAS_HAZARDS) and cross-program writes
# (TLX_ALIAS_ADDRESSES), by the name their "off" mode puts in the cache key.
_ANALYSES = (("hazards", _hazards), ("addresses", _addresses))


def cache_key():
    # TLX_ALIAS_EXACT_VIEWS changes the layouts, so it is part of the key;
    # TLX_ALIAS_HAZARDS=off (TLX_ALIAS_ADDRESSES=off) stores no findings to
    # replay on a cache hit.
    option = exact_views_option()
    off = "".join(f"-{name}-off" for name, analysis in _ANALYSES if analysis.mode() == "off")
    return _plugin_key() + (f"-{option}" if option else "") + off


def has_tlx_ops(module, prefixes=(TLX_DIALECT_PREFIX, )):
    found = []

    def visit(op):
        if op.get_name().startswith(prefixes):
            found.append(op)

    module.walk(visit)
    return bool(found)


def built_by_tlx(ttir):
    """Whether a TTIR module comes from tlx_alias's frontend: it has tlx ops,
    or TTGIR ops (buffers, barriers, warp_specialize) that triton's own
    frontend never puts in TTIR."""
    return has_tlx_ops(ttir, TTIR_OF_TLX_PREFIXES)


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
            failure = stage_error(name, errors)
            # at the kernel's line: nothing of ours in the traceback
            raise failure from (None if isinstance(failure, StageError) else error)
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


def _convert_wrapper(stock):

    def add_convert_to_ttgpuir(pm, *args, **kwargs):
        state = _compiling.get()
        if state is None:
            return stock(pm, *args, **kwargs)

        one_cta_args, one_cta_kwargs, num_ctas = _one_cta_layouts(args, kwargs)

        def add(own_pm):
            stock(own_pm, *one_cta_args, **one_cta_kwargs)
            if num_ctas > 1:
                plugin_passes.tlx_cluster_program_ids(own_pm, [f"cluster-size={num_ctas}"])
            plugin_passes.tlx_jit_lowering(own_pm, lowering_args(state.memory_map_path))

        _convert_partitions_of_own_width(state.module, stock, one_cta_args, one_cta_kwargs)
        run_passes(state.module, add, "tlx lowering")

    return add_convert_to_ttgpuir


# add_convert_to_ttgpuir(pm, target, num_warps, threads_per_warp, num_ctas)
_NUM_CTAS_ARG = 3


def _one_cta_layouts(args, kwargs):
    """The conversion's arguments with num_ctas 1, and the kernel's num_ctas.
    A tlx kernel's CTAs are each a whole program (TLX's Hopper clusters):
    its layouts are one CTA's, and only the launch (triton's num_ctas
    option, kept in the metadata) groups its CTAs into clusters."""
    args, kwargs = list(args), dict(kwargs)
    if "num_ctas" in kwargs:
        num_ctas, kwargs["num_ctas"] = kwargs["num_ctas"], 1
    elif len(args) > _NUM_CTAS_ARG:
        num_ctas, args[_NUM_CTAS_ARG] = args[_NUM_CTAS_ARG], 1
    else:
        num_ctas = 1
    return args, kwargs, num_ctas


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
    for warps in tlx_ir.partition_warp_counts(module):
        if warps == num_warps:
            continue
        holder, _ = parse_module("module {}", module.context)
        if "num_warps" in kwargs:
            kwargs = dict(kwargs, num_warps=warps)
        else:
            args[1] = warps
        tlx_ir.detach_partitions(module, holder, warps)
        try:
            run_passes(holder, lambda pm: _convert_keeping_casts(stock, pm, args, kwargs),
                       f"TTGIR conversion of {warps}-warp partitions", context=module.context)
        finally:
            tlx_ir.attach_partitions(module, holder, warps)


def _pipeline_wrapper(stock):

    def add_pipeline(pm, *args, **kwargs):
        stock(pm, *args, **kwargs)
        if _compiling.get() is not None:
            plugin_passes.tlx_convert_async_waits(pm)

    return add_pipeline


def _descriptor_encoding_wrapper(stock):

    def add_optimize_descriptor_encoding(pm, *args, **kwargs):
        # It takes layouts only from tt.descriptor_load/store and gives every
        # other descriptor triton's default, where tlx-convert-tma gave each
        # its buffer's (a narrower swizzle would then fail the TMA ops'
        # verifier): a tlx kernel whose descriptors all have one skips it.
        state = _compiling.get()
        if state is None or not descriptors_have_layouts(str(state.module)):
            stock(pm, *args, **kwargs)

    return add_optimize_descriptor_encoding


def _fence_insertion_wrapper(stock):

    def add_fence_insertion(pm, *args, **kwargs):
        if _compiling.get() is not None:
            plugin_passes.tlx_dot_operands_in_place(pm)
        stock(pm, *args, **kwargs)

    return add_fence_insertion


def _to_llvmir_wrapper(stock):

    def add_to_llvmir(pm, *args, **kwargs):
        if not _lowering_llir.get():
            return stock(pm, *args, **kwargs)
        # Multicast loads and remote arrives keep their marks in locations;
        # warp barriers' arrives pass triton's barrier analysis as expects.
        plugin_passes.tlx_ops_as_marks(pm)
        # TLX_ALIAS_UNCHAINED_WAITS=1 (triton 3.7, whose barrier analysis
        # lets expects pass each other): no bar.sync between a ring
        # consumer's waits (as TLX_ALIAS_LEADER_SYNC: clear the cache);
        # off, as it measured no faster (docs/design/attention.md).
        if os.environ.get("TLX_ALIAS_UNCHAINED_WAITS", "0") == "1" and not imported_triton_at_least(3, 8):
            plugin_passes.tlx_unchained_waits_as_expects(pm)
        plugin_passes.tlx_thread_arrives_as_expects(pm)
        stock(pm, *args, **kwargs)
        plugin_passes.tlx_lower_thread_arrives(pm)
        # TLX_ALIAS_LEADER_SYNC=0 leaves it out (for measuring it; the
        # PTX changes, triton's cache key does not: clear the cache).
        if os.environ.get("TLX_ALIAS_LEADER_SYNC", "1") != "0":
            plugin_passes.tlx_sync_before_leader_arrive(pm)
        plugin_passes.tlx_lower_marked_ops(pm)

    return add_to_llvmir


def _enable_debug_wrapper(stock):

    def enable_debug(pm, *args, **kwargs):
        capture = _capture.get()
        if capture is not None:
            capture.attach(pm)
        return stock(pm, *args, **kwargs)

    return enable_debug


def _install_pass_wrappers():
    """The five points where tlx kernels change triton's pipeline inside
    triton's make_ttgir and make_llir, and the one where the pass managers of a tlx
    kernel's stages get their diagnostic capture (`pm.enable_debug()`, which
    triton calls on each right after creating it):

    * the TTIR->TTGIR conversion: run it now, followed by the plugin's
      conversions and storage-alias lowering, in a pass manager whose
      diagnostics we keep (make_ttgir's own pass manager gets nothing);
    * right after the software pipeliner (which recomputes cp.async wait
      counts): the kernel's async_load_wait_group counts become
      ttg.async_wait;
    * optimize-descriptor-encoding: left out where tlx-convert-tma gave
      every descriptor its buffer's layout (it would reset them to triton's
      default);
    * right before fence insertion: wgmma reads tlx buffers in place;
    * right after the TTGIR->LLVM conversion (llir stage): a warp-group
      barrier before each leader mbarrier arrive
      (tlx-sync-before-leader-arrive);
    * `pass_manager.enable_debug`: the capture of errors_in_exception.
    """
    patch(ir.pass_manager, "enable_debug", _enable_debug_wrapper)
    patch(passes.ttir, "add_convert_to_ttgpuir", _convert_wrapper)
    patch(passes.ttgpuir, "add_pipeline", _pipeline_wrapper)
    try:
        from triton._C.libtriton import nvidia
    except ImportError:
        return
    patch(nvidia.passes.ttnvgpuir, "add_optimize_descriptor_encoding", _descriptor_encoding_wrapper)
    patch(nvidia.passes.ttnvgpuir, "add_fence_insertion", _fence_insertion_wrapper)
    patch(nvidia.passes.ttgpuir, "add_to_llvmir", _to_llvmir_wrapper)


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
            if not built_by_tlx(module):
                return make_ttgir(module, metadata)
            with memory_map_file() as path:
                token = _compiling.set(_Compiling(module, path))
                try:
                    with errors_in_exception("make_ttgir"):
                        result = make_ttgir(module, metadata)
                finally:
                    _compiling.reset(token)
                # The analyses' findings, kept for the cache hits to report
                # again (CompilationListener).
                for _, analysis in _ANALYSES:
                    analysis.store(metadata, analysis.check(result, metadata.get("name", "")))
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


class CompilationListener:
    """knobs.compilation.listener: on a cache hit, the kernel's hazard
    and cross-program write findings are reported again (a fresh compile reported them in its ttgir
    stage); then the listener it replaced, if any."""

    def __init__(self, previous):
        self.previous = previous

    def __call__(self, *, src, metadata, metadata_group, times, cache_hit):
        if cache_hit:
            for _, analysis in _ANALYSES:
                analysis.replay(metadata)
        if self.previous is not None:
            self.previous(src=src, metadata=metadata, metadata_group=metadata_group, times=times,
                          cache_hit=cache_hit)


def install():
    """Installs the pass wrappers, the hook and the compilation listener
    (once, keeping whatever hook or listener was there before); returns the
    hook."""
    _install_pass_wrappers()
    patch(knobs.compilation, "listener", CompilationListener)
    return patch(knobs.runtime, "add_stages_inspection_hook", StagesHook)

"""Running pass managers on modules outside of triton's stages: parsing
MLIR text, running passes with the compiler's diagnostics in the error, and
the TLX lowering of an IR source (TTGIR text that holds tlx ops)."""
import os
import tempfile
import warnings

from triton._C.libtriton import ir

from .. import _opt
from .diagnostics import stage_error
from .patching import stock
from .plugin import plugin_passes

__all__ = ["lower_module", "lowering_args", "new_context", "parse_module", "plugin_passes", "run_passes", "run_reporting"]


def exact_views_option():
    """`exact-views=0|1` when TLX_ALIAS_EXACT_VIEWS forces triton 3.8's view
    rules off or on, else None (the plugin's default)."""
    exact = os.environ.get("TLX_ALIAS_EXACT_VIEWS", "")
    return f"exact-views={exact}" if exact in ("0", "1") else None


def new_context():
    """An MLIR context with every triton dialect and tlx loaded."""
    context = ir.context()
    ir.load_dialects(context)
    return context


def parse_module(text, context=None):
    """Parses MLIR text into an ir.module (with every triton dialect and tlx
    loaded; in a new context unless one is given); returns (module, context)."""
    if context is None:
        context = new_context()
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
    reported = _run(module, add_passes, name, context)
    if reported:
        warnings.warn(reported.strip(), stacklevel=3)


def run_reporting(module, add_passes, context=None):
    """Runs passes on an ir.module; returns what they reported (warnings,
    remarks) as text."""
    pm = ir.pass_manager(context if context is not None else module.context)
    add_passes(pm)
    return _opt.run_passes(pm, module)


def _run(module, add_passes, name, context):
    pm = ir.pass_manager(context if context is not None else module.context)
    stock(ir.pass_manager.enable_debug)(pm)  # our own handler, no capture
    add_passes(pm)
    try:
        return _opt.run_passes(pm, module)
    except RuntimeError as error:
        raise stage_error(name, str(error)) from None


def lowering_args(memory_map=None):
    """tlx-lower's options: the memory map file, and exact views when
    TLX_ALIAS_EXACT_VIEWS is 1 or 0 (triton 3.8's view rules, which the plugin
    follows by default only when built for 3.8; forcing them on under 3.7
    checks their layouts there)."""
    args = [f"memory-map={memory_map}"] if memory_map else []
    option = exact_views_option()
    return args + [option] if option else args


def lower_module(module, memory_map=None):
    """Lowers the tlx ops of an ir.module in TTGIR (an IR source) to stock
    TTGIR: cp.async waits, then tlx-lower."""
    args = lowering_args(memory_map)

    def add(pm):
        plugin_passes.tlx_convert_async_waits(pm)
        plugin_passes.tlx_lower(pm, args)

    run_passes(module, add, "tlx-lower")

"""Everything of tlx_alias that touches triton's internals, and the one
function that patches triton: `install()`.

  plugin.py     loading the plugin into libtriton (one adapter per plugin
                API), `plugin_passes`, the version guard
  passes.py     pass managers run on modules by hand (parse, run, lower)
  pipeline.py   the stage hook and the pass-adding functions it wraps
  codegen.py    the code generator's `with` visitor, and its state
  ir.py         ops created at triton's builder (through tlx_alias._C)
  tmem.py       tensor-memory layouts and attributes that differ by triton
  tma.py        the TMA reduce's kinds (triton's numbers) and element types
  launch.py     the clusters of a compiled kernel the GPU runs at once
  patching.py   `patch()`, the wrapper every change to triton goes through
  diagnostics.py a failed stage's diagnostics as a CompilationError at the kernel line

The versions of triton (tlx_alias/_triton_version.py) stay outside: the
build and the start-up hook run that file by its path, before triton may
be imported. Nothing here imports triton at import time, so the plugin is
registered before `triton._C.libtriton` loads.
"""


def install(with_visitors):
    """Patches triton, once: the pass-adding functions and the stage hook
    (pipeline.py), and the code generator's `with` visitor (codegen.py) for
    each (context class, visitor) of `with_visitors`. Returns the stage hook."""
    from . import codegen, pipeline

    hook = pipeline.install()
    codegen.install(with_visitors)
    return hook

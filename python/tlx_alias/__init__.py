"""tlx-alias: TLX's storage_alias_spec buffer sharing for stock triton 3.7.1.

Importing this package checks the installed triton (3.7.1 only), registers
the C++ plugin (the `tlx` dialect and the lowering passes) with libtriton.
"""
from ._plugin import TritonVersionError, plugin_path, register_plugin
from ._triton_version import SUPPORTED_TRITON

__version__ = "0.1.0"

register_plugin()

from . import _pipeline  # noqa: E402  (needs the plugin registered)

_stages_hook = _pipeline.install()

__all__ = ["SUPPORTED_TRITON", "TritonVersionError", "plugin_path", "__version__"]

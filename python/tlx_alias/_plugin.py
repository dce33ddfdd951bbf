"""Registering the tlx-alias plugin with triton, guarded by triton's version."""
import os
import sys

from ._triton_version import (PROVEN_TRITON, RUNNING_TRITON_ENV, abi_family, installed_triton_version,
                              plugin_triton_version)
from ._plugin_api import PluginLoadError, adapter_for, plugin_passes

PLUGIN_NAME = "libTLXAliasPlugin.so"


class TritonVersionError(PluginLoadError):
    pass


def report_in_one_line():
    """Makes an uncaught PluginLoadError print as one line (no traceback):
    it is about the installation, never about the code that imported us."""
    previous = sys.excepthook
    if getattr(previous, "_tlx_alias_one_line", False):
        return

    def excepthook(kind, value, traceback):
        if isinstance(value, PluginLoadError):
            sys.stderr.write(f"{kind.__name__}: {value}\n")
        else:
            previous(kind, value, traceback)

    excepthook._tlx_alias_one_line = True
    sys.excepthook = excepthook


def plugin_path():
    """The plugin library: $TLX_ALIAS_PLUGIN, or the one installed with us
    (in one of the package's directories: an editable install keeps the
    Python files in the source tree and the built ones in site-packages).
    Where several exist, the one the start-up hook gave libtriton."""
    override = os.environ.get("TLX_ALIAS_PLUGIN")
    if override:
        return os.path.abspath(override)
    here = os.path.dirname(os.path.abspath(__file__))
    package = sys.modules.get(__package__)
    dirs = list(getattr(package, "__path__", None) or [here])
    found = [path for path in (os.path.join(d, "lib", PLUGIN_NAME) for d in dirs) if os.path.exists(path)]
    registered = os.environ.get("TRITON_PLUGIN_PATHS", "").split(":")
    for path in found:
        if path in registered:
            return path
    return found[0] if found else os.path.join(here, "lib", PLUGIN_NAME)


def check_triton_version(path=None):
    """The installed triton must share the ABI of the one the plugin (at path)
    was built for (be of its family), and that one must be proven."""
    supported = plugin_triton_version(os.path.dirname(path or plugin_path()))
    if supported not in PROVEN_TRITON:
        raise TritonVersionError(
            f"tlx_alias's plugin was built for triton {supported}, which is not one of the "
            f"proven versions ({', '.join(PROVEN_TRITON)}): rebuild it against one of those")
    found = installed_triton_version()
    served = abi_family(supported)
    if found not in served:
        what = "no triton is installed" if found is None else f"triton {found} is installed"
        # A proven triton of another family: a wheel built next to it serves it.
        remedy = (f"reinstall tlx-alias next to it (pip builds it for the triton it finds) or "
                  f"pip install triton=={supported}" if found in PROVEN_TRITON else f"pip install triton=={supported}")
        raise TritonVersionError(
            f"tlx_alias supports only triton {' or '.join(served)} (its plugin ABI), but {what}: {remedy}")


def register_plugin():
    """Loads the plugin into libtriton (importing it) through the adapter of the
    running triton's plugin API (_plugin_api.py); returns the plugin's path.

    triton 3.7/3.8 read TRITON_PLUGIN_PATHS once, when `triton._C.libtriton` is
    first imported: tlx_alias.pth sets it at interpreter start, and this does
    it when tlx_alias is imported before triton. triton 3.9 takes the plugin
    after its import, in either order.
    """
    path = plugin_path()
    check_triton_version(path)
    running = installed_triton_version()
    os.environ[RUNNING_TRITON_ENV] = running
    if not os.path.exists(path):
        raise PluginLoadError(f"tlx_alias plugin library not found at {path}; reinstall tlx-alias")
    adapter = adapter_for(running)
    plugin_passes.adapter = adapter
    imported_before = "triton._C.libtriton" in sys.modules
    adapter.before_import(path)
    import triton._C.libtriton as libtriton

    adapter.load(libtriton, path, imported_before)
    return path

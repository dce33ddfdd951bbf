"""Start-up hook (run by tlx_alias.pth): register the tlx-alias plugin with
triton before anything imports ``triton._C.libtriton``, which reads
TRITON_PLUGIN_PATHS once, at import.

Set TLX_ALIAS_NO_AUTOLOAD=1 to switch it off. It only touches the environment, and only when the installed triton is the
one the plugin was built for: a plugin loaded into another triton's ABI
corrupts the heap. Nothing is imported from triton here.
"""
import os


def _register():
    if os.environ.get("TLX_ALIAS_NO_AUTOLOAD"):
        return
    here = os.path.dirname(os.path.abspath(__file__))
    plugin = os.path.join(here, "tlx_alias", "lib", "libTLXAliasPlugin.so")
    if not os.path.exists(plugin):
        return
    try:
        # Load the version helper by path: importing the tlx_alias package
        # would import triton, which is what must not happen yet.
        import importlib.util

        spec = importlib.util.spec_from_file_location(
            "_tlx_alias_triton_version", os.path.join(here, "tlx_alias", "_triton_version.py"))
        versions = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(versions)
        if versions.installed_triton_version() != versions.SUPPORTED_TRITON:
            return
    except Exception:
        return
    paths = [p for p in os.environ.get("TRITON_PLUGIN_PATHS", "").split(":") if p]
    if plugin not in paths:
        os.environ["TRITON_PLUGIN_PATHS"] = ":".join(paths + [plugin])


_register()

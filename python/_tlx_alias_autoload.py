"""Start-up hook (run by tlx_alias.pth): register the tlx-alias plugin with
triton before anything imports ``triton._C.libtriton``, which (triton 3.7 and
3.8) reads TRITON_PLUGIN_PATHS once, at import. triton 3.9 ignores that
variable and takes the plugin whenever tlx_alias is imported: then this only
names the running triton for the plugin.

Set TLX_ALIAS_NO_AUTOLOAD=1 to switch it off. It only touches the environment, and only when the installed triton is of
the ABI family the plugin was built for (a plugin loaded into another triton's ABI corrupts the heap); it then also names
that triton's version for the plugin (TLX_ALIAS_TRITON_VERSION), which triton's loader requires it to declare. Nothing is imported from triton here.
"""
import os


def _package_dirs():
    """Where the tlx_alias package's files are, without importing it (that
    would import triton): its __path__ as the import system would set it (an
    editable install spreads it over the source tree and site-packages)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("tlx_alias")
    except Exception:
        spec = None
    if spec is not None and spec.submodule_search_locations:
        return list(spec.submodule_search_locations)
    return [os.path.join(os.path.dirname(os.path.abspath(__file__)), "tlx_alias")]


def _find(dirs, *parts):
    for directory in dirs:
        path = os.path.join(directory, *parts)
        if os.path.exists(path):
            return path
    return None


def _register():
    if os.environ.get("TLX_ALIAS_NO_AUTOLOAD"):
        return
    dirs = _package_dirs()
    plugin = _find(dirs, "lib", "libTLXAliasPlugin.so")
    versions_file = _find(dirs, "_triton_version.py")
    if plugin is None or versions_file is None:
        return
    try:
        # Load the version helper by path: importing the tlx_alias package
        # would import triton, which is what must not happen yet.
        import importlib.util

        spec = importlib.util.spec_from_file_location("_tlx_alias_triton_version", versions_file)
        versions = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(versions)
        built_for = versions.plugin_triton_version(os.path.dirname(plugin))
        running = versions.installed_triton_version()
        if built_for not in versions.PROVEN_TRITON or running not in versions.abi_family(built_for):
            return
    except Exception:
        return
    os.environ[versions.RUNNING_TRITON_ENV] = running
    if versions.PLUGIN_API.get(running) != "TRITON_PLUGIN_PATHS":
        return  # triton 3.9 takes the plugin after its import (tlx_alias._triton.plugin)
    paths = [p for p in os.environ.get("TRITON_PLUGIN_PATHS", "").split(":") if p]
    if plugin not in paths:
        os.environ["TRITON_PLUGIN_PATHS"] = ":".join(paths + [plugin])


_register()

"""Loading the tlx-alias plugin into libtriton, guarded by triton's version:
one adapter per generation of triton's plugin API.

Every other module reaches the plugin's passes through `plugin_passes` here
(`plugin_passes.tlx_lower(pm, args)`), never through triton's names for them.

  EnvPaths    triton 3.7, 3.8: libtriton reads TRITON_PLUGIN_PATHS once, when
              `triton._C.libtriton` is first imported, loads the plugins it
              names and puts each pass at `passes.plugin.<name>`.
  ExtendWith  triton 3.9: TRITON_PLUGIN_PATHS is ignored; a plugin is loaded
              explicitly, at any time after the import:
              `passes.plugin.extend_with(path)` creates `passes.plugin.add_<name>`
              and `ir.extend_dialects_with(path)` registers its dialects for the
              next `ir.load_dialects(ctx)` (triton PRs #10775, #10737).

A later generation (triton PR #11167 proposes one `libtriton.extend_with` and
`passes.<plugin name>`) is one more class, chosen in `adapter_for`.

Which triton uses which adapter: tlx_alias._triton_version.PLUGIN_API.
"""
import os
import sys

from .._triton_version import (PLUGIN_API, PROVEN_TRITON, RUNNING_TRITON_ENV, abi_family,
                               installed_triton_version, plugin_triton_version)

_LIBTRITON = "triton._C.libtriton"


class PluginLoadError(ImportError):
    """tlx_alias cannot load its plugin into this Python's triton; the message
    (one line) says why and what to do. Uncaught, it is shown as that one line,
    without a traceback (see report_in_one_line)."""


class EnvPaths:
    """triton 3.7/3.8: the plugin is named in TRITON_PLUGIN_PATHS before libtriton loads."""
    name = "TRITON_PLUGIN_PATHS"

    @staticmethod
    def before_import(path):
        """Names the plugin for libtriton's loader, unless libtriton is loaded already."""
        if _LIBTRITON in sys.modules:
            return
        paths = [p for p in os.environ.get("TRITON_PLUGIN_PATHS", "").split(":") if p]
        if not any(os.path.exists(p) and os.path.samefile(p, path) for p in paths):
            os.environ["TRITON_PLUGIN_PATHS"] = ":".join(paths + [path])

    @staticmethod
    def pass_name(name):
        return name

    @classmethod
    def load(cls, libtriton, path, imported_before):
        if hasattr(libtriton.passes.plugin, cls.pass_name(PROBE_PASS)):
            return
        if imported_before:
            raise PluginLoadError(
                "tlx_alias: triton was imported before tlx_alias without the plugin "
                "(the tlx_alias.pth start-up hook did not run); import tlx_alias before "
                f"triton, or start Python with TRITON_PLUGIN_PATHS={path}")
        raise PluginLoadError(f"tlx_alias: libtriton did not load the plugin {path}; "
                              "see the messages above")


class ExtendWith:
    """triton 3.9: the plugin is handed to libtriton after its import, in either import order."""
    name = "extend_with"

    @staticmethod
    def before_import(path):
        pass

    @staticmethod
    def pass_name(name):
        return "add_" + name

    @classmethod
    def load(cls, libtriton, path, imported_before):
        if hasattr(libtriton.passes.plugin, cls.pass_name(PROBE_PASS)):
            return  # loaded already (a second import, or the plugin named twice)
        try:
            libtriton.passes.plugin.extend_with(path)
            libtriton.ir.extend_dialects_with(path)
        except Exception as error:  # the loader's message, in one line
            detail = " ".join(str(error).split())
            raise PluginLoadError(f"tlx_alias: libtriton could not load the plugin {path}: {detail}") from None
        if not hasattr(libtriton.passes.plugin, cls.pass_name(PROBE_PASS)):
            raise PluginLoadError(f"tlx_alias: libtriton loaded {path} but created none of its passes")


# A pass the plugin registers; its presence proves the plugin was loaded.
PROBE_PASS = "tlx_lower"
ADAPTERS = (EnvPaths, ExtendWith)


def adapter_for(version):
    """The adapter of a proven triton version (_triton_version.PLUGIN_API)."""
    return next(adapter for adapter in ADAPTERS if adapter.name == PLUGIN_API[version])


class _PluginPasses:
    """`plugin_passes.<pass>(pm, args=[])` adds one of the plugin's passes to a
    triton pass manager, under whichever name the running triton gave it."""

    adapter = EnvPaths

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        from triton._C.libtriton import passes

        try:
            return getattr(passes.plugin, self.adapter.pass_name(name))
        except AttributeError:
            raise AttributeError(f"the tlx-alias plugin has no pass {name!r} "
                                 f"(or it is not loaded; triton plugin API: {self.adapter.name})") from None

    def names(self):
        """The plugin's passes that the running triton offers, by tlx-alias name."""
        from triton._C.libtriton import passes

        prefix = self.adapter.pass_name("")
        return sorted(n[len(prefix):] for n in dir(passes.plugin)
                      if n.startswith(prefix + "tlx_"))


plugin_passes = _PluginPasses()


PLUGIN_NAME = "libTLXAliasPlugin.so"
# tlx_alias's own directory and name (this module is one level below them).
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PACKAGE = __package__.rpartition(".")[0]



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
    here = _PACKAGE_DIR
    package = sys.modules.get(_PACKAGE)
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
    running triton's plugin API (above); returns the plugin's path.

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

"""How triton loads a plugin: one adapter per generation of triton's plugin API.

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

Which triton uses which adapter: _triton_version.PLUGIN_API.
"""
import os
import sys

_LIBTRITON = "triton._C.libtriton"


class PluginLoadError(ImportError):
    """tlx_alias cannot load its plugin into this Python's triton; the message
    (one line) says why and what to do. Uncaught, it is shown as that one line,
    without a traceback (see _plugin.report_in_one_line)."""


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
    from ._triton_version import PLUGIN_API

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

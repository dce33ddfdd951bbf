"""The plugin exports only its entry point and needs nothing beyond libtriton.so
(and the C/C++ runtime libtriton itself needs)."""
import os
import subprocess

import pytest
from conftest import run_python

SYSTEM_LIBS = ["libstdc++.so.6", "libm.so.6", "libgcc_s.so.1", "libc.so.6"]


def _paths():
    out = run_python("import tlx_alias, triton._C.libtriton as lt\n"
                     "print(tlx_alias.plugin_path()); print(lt.__file__)").stdout.split()
    return out[0], out[1]


def _dynamic_symbols(path, defined):
    flag = "--defined-only" if defined else "--undefined-only"
    out = subprocess.run(["nm", "-D", flag, path], check=True, capture_output=True, text=True).stdout
    symbols = set()
    for line in out.splitlines():
        parts = line.split()
        if not parts:
            continue
        kind, name = parts[-2], parts[-1]
        if defined or kind == "U":  # weak undefined ('w') may stay unresolved
            symbols.add(name.split("@")[0])
    return symbols


def _resolve_lib(plugin, name):
    out = subprocess.run(["ldd", plugin], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.strip().startswith(name) and "=>" in line:
            return line.split("=>")[1].split()[0]
    pytest.fail(f"{name} not found by ldd for {plugin}")


def test_only_entry_point_is_exported():
    plugin, _ = _paths()
    assert _dynamic_symbols(plugin, defined=True) == {"tritonGetPluginInfo"}


def test_every_undefined_symbol_resolves_in_libtriton():
    plugin, libtriton = _paths()
    available = _dynamic_symbols(libtriton, defined=True)
    for lib in SYSTEM_LIBS:
        available |= _dynamic_symbols(_resolve_lib(plugin, lib), defined=True)
    missing = sorted(_dynamic_symbols(plugin, defined=False) - available)
    assert missing == [], f"{len(missing)} unresolved, e.g. {missing[:5]}"


def test_plugin_links_only_libtriton_and_the_runtime():
    plugin, _ = _paths()
    out = subprocess.run(["readelf", "-d", plugin], check=True, capture_output=True, text=True).stdout
    needed = sorted(line.split("[")[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line)
    assert needed == sorted(["libtriton.so"] + SYSTEM_LIBS)

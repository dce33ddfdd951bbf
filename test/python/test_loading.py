"""Import, plugin registration (in either import order) and the version guard."""
import os
import textwrap

from tlx_alias._triton_version import PLUGIN_API, PROVEN_TRITON, abi_family

from conftest import ROOT, fake_triton, run_python

# The plugin's passes as libtriton offers them (3.7/3.8: passes.plugin.<name>,
# 3.9: passes.plugin.add_<name>), by the plugin's names.
PROBE = ("import triton._C.libtriton as lt; "
         "print(sorted(n.removeprefix('add_') for n in dir(lt.passes.plugin) if n.startswith(('tlx', 'add_tlx'))))")
EXPECTED_PASSES = str(sorted(['tlx_check_hazards', 'tlx_convert_async_waits', 'tlx_convert_local_memory', 'tlx_convert_mma', 'tlx_convert_tma', 'tlx_dot_operands_in_place', 'tlx_jit_lowering', 'tlx_keep_casts_for_tlx_ops', 'tlx_lower', 'tlx_pid_address_analysis', 'tlx_rewrite_local_alias', 'tlx_storage_alias_lowering', 'tlx_sync_before_leader_arrive', 'tlx_thread_arrives_as_expects', 'tlx_unchained_waits_as_expects', 'tlx_lower_thread_arrives',
                                  'tlx_cluster_program_ids', 'tlx_ops_as_marks', 'tlx_lower_marked_ops']))

# The triton this checkout's plugin was built for, and a proven one of another ABI.
BUILT_FOR = run_python("import tlx_alias; print(tlx_alias.SUPPORTED_TRITON)").stdout.strip()
OTHER = next(v for v in PROVEN_TRITON if v not in abi_family(BUILT_FOR))
INSTALLED = run_python("from tlx_alias._triton_version import installed_triton_version as v; print(v())").stdout.strip()


def test_import_registers_plugin_passes_and_dialect():
    out = run_python(textwrap.dedent("""
        import tlx_alias
        from triton._C.libtriton import ir
        """) + PROBE + textwrap.dedent("""
        ctx = ir.context(); ir.load_dialects(ctx)
        import tempfile
        with tempfile.NamedTemporaryFile('w', suffix='.mlir', delete=False) as f:
            f.write('module { tt.func @k() { %0 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem> tt.return } }')
        m = ir.parse_mlir_module(f.name, ctx)
        print('tlx.storage_alias_spec' in str(m))
        """)).stdout.split()
    assert " ".join(out[:-1]) == EXPECTED_PASSES
    assert out[-1] == "True"


def test_triton_imported_first_still_registers():
    # The tlx_alias.pth start-up hook registered the plugin before triton loaded.
    out = run_python("import triton\nimport tlx_alias\n" + PROBE).stdout.strip()
    assert out == EXPECTED_PASSES


def test_without_start_up_hook_tlx_alias_first_works():
    out = run_python("import tlx_alias\nimport triton\n" + PROBE,
                     {"TLX_ALIAS_NO_AUTOLOAD": "1", "TRITON_PLUGIN_PATHS": None}).stdout.strip()
    assert out == EXPECTED_PASSES


def test_without_start_up_hook_triton_first():
    # triton 3.7/3.8 read TRITON_PLUGIN_PATHS only when libtriton is imported:
    # too late then, and the one-line error says what to do. triton 3.9 takes
    # the plugin (extend_with) in either order.
    proc = run_python("import triton._C.libtriton\nimport tlx_alias\n" + PROBE,
                      {"TLX_ALIAS_NO_AUTOLOAD": "1", "TRITON_PLUGIN_PATHS": None}, check=False)
    if PLUGIN_API[INSTALLED] == "extend_with":
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == EXPECTED_PASSES
        return
    assert proc.returncode != 0
    (last, ) = proc.stderr.strip().splitlines()  # one line, no traceback
    assert last.startswith("PluginLoadError: tlx_alias: triton was imported before tlx_alias")
    assert "import tlx_alias before triton" in last
    assert "TRITON_PLUGIN_PATHS=" in last




def _refusal(installed, built_for=None):
    built_for = built_for or BUILT_FOR
    return (f"tlx_alias supports only triton {' or '.join(abi_family(built_for))} (its plugin ABI), "
            f"but triton {installed} is installed: reinstall tlx-alias next to it (pip builds it for the triton "
            f"it finds) or pip install triton=={built_for}")


def test_other_triton_version_is_refused_with_one_line(tmp_path):
    site = fake_triton(tmp_path, OTHER)
    proc = run_python(
        "import os, sys\n"
        "try:\n"
        "    import tlx_alias\n"
        "except ImportError as e:\n"
        "    print(type(e).__name__, '|', e)\n"
        "print('libtriton loaded:', 'triton._C.libtriton' in sys.modules)\n"
        "print('hook set plugin path:', 'TLXAlias' in os.environ.get('TRITON_PLUGIN_PATHS', ''))\n",
        {"PYTHONPATH": site + os.pathsep + os.environ.get("PYTHONPATH", ""), "TRITON_PLUGIN_PATHS": None})
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == "TritonVersionError | " + _refusal(OTHER)
    assert lines[1] == "libtriton loaded: False"
    assert lines[2] == "hook set plugin path: False"


def test_version_error_is_one_line_on_stderr(tmp_path):
    site = fake_triton(tmp_path, OTHER)
    proc = run_python("import tlx_alias", {"PYTHONPATH": site + os.pathsep + os.environ.get("PYTHONPATH", "")},
                      check=False)
    assert proc.returncode == 1
    # One line, no traceback: the problem is the installation, not the importing code.
    assert proc.stderr == "TritonVersionError: " + _refusal(OTHER) + "\n"


def _plugin_built_for(tmp_path, version):
    """A copy of the plugin whose build says it is for `version` (the file the
    build writes next to it)."""
    real = run_python("import tlx_alias; print(tlx_alias.plugin_path())").stdout.strip()
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "libTLXAliasPlugin.so").symlink_to(real)
    (lib / "libTLXAliasPlugin.triton-version").write_text(version + "\n")
    return str(lib / "libTLXAliasPlugin.so")


def test_plugin_built_for_another_proven_triton_is_refused(tmp_path):
    # The guard compares the installed triton with the plugin's own build, not a constant.
    plugin = _plugin_built_for(tmp_path, OTHER)
    proc = run_python("import tlx_alias", {"TLX_ALIAS_PLUGIN": plugin, "TLX_ALIAS_NO_AUTOLOAD": "1",
                                           "TRITON_PLUGIN_PATHS": None}, check=False)
    assert proc.returncode == 1
    assert proc.stderr == "TritonVersionError: " + _refusal(INSTALLED, built_for=OTHER) + "\n"


def test_plugin_built_for_an_unproven_triton_is_refused(tmp_path):
    plugin = _plugin_built_for(tmp_path, "3.10.0")
    proc = run_python("import tlx_alias", {"TLX_ALIAS_PLUGIN": plugin, "TLX_ALIAS_NO_AUTOLOAD": "1",
                                           "TRITON_PLUGIN_PATHS": None}, check=False)
    assert proc.returncode == 1
    assert proc.stderr == ("TritonVersionError: tlx_alias's plugin was built for triton 3.10.0, which is not "
                           "one of the proven versions (3.7.0, 3.7.1, 3.8.0, 3.9.0): rebuild it against one of those\n")


def test_a_plugin_serves_every_triton_of_its_abi_family(tmp_path):
    # 3.7.0 and 3.7.1 share one ABI (measured): a plugin built for either
    # loads with the other; the refusal names the family.
    family = abi_family(BUILT_FOR)
    assert family == ("3.7.0", "3.7.1") or BUILT_FOR in ("3.8.0", "3.9.0")
    for installed in family:
        (tmp_path / installed).mkdir()
        site = fake_triton(tmp_path / installed, installed)
        # The guard passes; importing the (fake, unimportable) triton is what fails.
        proc = run_python("import tlx_alias", {"PYTHONPATH": site + os.pathsep + os.environ.get("PYTHONPATH", ""),
                                               "TRITON_PLUGIN_PATHS": None}, check=False)
        assert "RuntimeError: fake triton imported" in proc.stderr and "TritonVersionError" not in proc.stderr
    site = fake_triton(tmp_path, OTHER)
    proc = run_python("import tlx_alias", {"PYTHONPATH": site + os.pathsep + os.environ.get("PYTHONPATH", "")},
                      check=False)
    assert proc.stderr == "TritonVersionError: " + _refusal(OTHER) + "\n"


def test_editable_layout_python_in_the_checkout_libraries_in_site_packages(tmp_path):
    # `pip install -e .` (scikit-build-core's redirect mode) imports the Python
    # files from the checkout and the built libraries from site-packages: the
    # package's __path__ spans both. Reproduced here with the same kind of
    # finder; the start-up hook runs as tlx_alias.pth runs it.
    import glob

    import tlx_alias
    installed = os.path.dirname(tlx_alias.__file__)
    src, built = tmp_path / "src" / "tlx_alias", tmp_path / "site" / "tlx_alias"
    src.mkdir(parents=True)
    (built / "lib").mkdir(parents=True)
    for path in glob.glob(os.path.join(installed, "*.py")) + glob.glob(os.path.join(installed, "_[a-z]*", "")):
        os.symlink(path.rstrip(os.sep), src / os.path.basename(path.rstrip(os.sep)))
    for path in glob.glob(os.path.join(installed, "_*.so")):
        os.symlink(path, built / os.path.basename(path))
    os.symlink(tlx_alias.plugin_path(), built / "lib" / "libTLXAliasPlugin.so")
    for path in glob.glob(os.path.join(os.path.dirname(tlx_alias.plugin_path()), "*.triton-version")):
        os.symlink(path, built / "lib" / os.path.basename(path))  # installed beside the plugin
    autoload = os.path.join(ROOT, "python", "_tlx_alias_autoload.py")
    out = run_python(textwrap.dedent(f"""
        import importlib.util, os, sys

        class RedirectingFinder:
            def find_spec(self, name, path=None, target=None):
                if name == "tlx_alias":
                    return importlib.util.spec_from_file_location(
                        name, {str(src / "__init__.py")!r},
                        submodule_search_locations=[{str(built)!r}, {str(src)!r}])

        sys.meta_path.insert(0, RedirectingFinder())
        del os.environ["TLX_ALIAS_NO_AUTOLOAD"]
        spec = importlib.util.spec_from_file_location("_tlx_alias_autoload", {autoload!r})
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
        print(os.environ.get("TRITON_PLUGIN_PATHS"))
        import triton._C.libtriton  # before tlx_alias: the hook registered the plugin
        import tlx_alias
        print(tlx_alias.__file__)
        print(tlx_alias.plugin_path())
        """) + PROBE, {"TLX_ALIAS_NO_AUTOLOAD": "1", "TRITON_PLUGIN_PATHS": None}).stdout.splitlines()
    plugin = str(built / "lib" / "libTLXAliasPlugin.so")
    # triton 3.9 ignores TRITON_PLUGIN_PATHS: the hook leaves it unset there.
    hook_set = plugin if PLUGIN_API[INSTALLED] == "TRITON_PLUGIN_PATHS" else "None"
    assert out == [hook_set, str(src / "__init__.py"), plugin, EXPECTED_PASSES]


def test_bad_pass_options_from_python_are_an_error_of_the_run_not_a_crash():
    # The plugin API gives addPass no way to fail: the pass stands in as one
    # that reports the options' problem when the pass manager runs.
    proc = run_python(textwrap.dedent("""
        import tlx_alias
        from tlx_alias._triton import passes as _pipeline
        from tlx_alias._triton.plugin import plugin_passes
        module, context = _pipeline.parse_module("module {}")
        try:
            _pipeline.run_passes(module, lambda pm: plugin_passes.tlx_lower(pm, ["bogus=1"]), "tlx-lower",
                                 context=context)
        except RuntimeError as error:
            print(error)
        _pipeline.run_passes(module, lambda pm: plugin_passes.tlx_lower(pm, []), "tlx-lower", context=context)
        print("still usable")
    """))
    assert proc.stdout == ("tlx-lower failed:\nloc(unknown): error: tlx-alias: bad options for tlx-lower 'bogus=1': "
                           "<Pass-Options-Parser>: no such option bogus\n\nstill usable\n")


def _declared_version(env_value):
    """The triton version the plugin declares to triton's loader (PluginInfo's
    tritonVersion, at 0x48), read with ctypes in a fresh process that does not
    import tlx_alias (which would name the installed triton itself)."""
    code = textwrap.dedent("""
        import ctypes, importlib.util, os
        (package, ) = importlib.util.find_spec("tlx_alias").submodule_search_locations[:1]
        lib = ctypes.CDLL(os.path.join(package, "lib", "libTLXAliasPlugin.so"))
        lib.tritonGetPluginInfo.restype = ctypes.c_void_p
        info = lib.tritonGetPluginInfo()
        print(ctypes.cast(ctypes.c_void_p.from_address(info + 0x48).value, ctypes.c_char_p).value.decode())
    """)
    proc = run_python(code, {"TLX_ALIAS_TRITON_VERSION": env_value, "TLX_ALIAS_NO_AUTOLOAD": "1",
                             "TRITON_PLUGIN_PATHS": None})
    return proc.stdout.strip()


def test_plugin_declares_the_running_triton_of_its_abi_family():
    # Triton's loader takes a plugin only if it declares the running version;
    # the plugin declares the one tlx_alias names if it is of its ABI family,
    # else the one it was built for.
    for version in abi_family(BUILT_FOR):
        assert _declared_version(version) == version
    assert _declared_version(OTHER) == BUILT_FOR
    assert _declared_version(None) == BUILT_FOR

"""How tlx_alias sits in triton's pipeline: no effect on kernels without tlx
ops (byte-identical PTX), composition with a user's stages hook, cache key."""
import os
import textwrap

from conftest import run_python

PLAIN_KERNEL = f"HERE = {os.path.dirname(os.path.abspath(__file__))!r}\n" + textwrap.dedent("""
    import hashlib
    import sys
    import triton
    from triton.backends.compiler import GPUTarget

    sys.path.insert(0, HERE)
    from plain_kernels import plain_matmul as matmul

    triton.knobs.compilation.always_compile = True
    src = triton.compiler.ASTSource(fn=matmul, signature={"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32",
                                    "K": "i32", "BLOCK": "constexpr"}, constexprs={"BLOCK": 64})
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32))
    print(hashlib.sha256(k.asm["ptx"].encode()).hexdigest(), len(k.asm["ptx"]))
""")


def test_kernels_without_tlx_ops_compile_to_identical_ptx(tmp_path):
    # The same script file for both runs: PTX names the kernel's source file.
    script = tmp_path / "plain_kernel.py"
    code = "import os\nif os.environ.get('WITH_TLX'):\n    import tlx_alias\n" + PLAIN_KERNEL
    without = run_python(code, {"TLX_ALIAS_NO_AUTOLOAD": "1", "TRITON_PLUGIN_PATHS": None}, script_path=script)
    with_tlx = run_python(code, {"WITH_TLX": "1"}, script_path=script)
    assert "sys" not in without.stdout
    check = run_python("import sys\nprint('triton._C.libtriton' in sys.modules)\n" + PLAIN_KERNEL +
                       "\nimport triton._C.libtriton as lt\nprint(hasattr(lt.passes.plugin, 'tlx_lower'))",
                       {"TLX_ALIAS_NO_AUTOLOAD": "1", "TRITON_PLUGIN_PATHS": None})
    assert check.stdout.split()[-1] == "False"  # the first run really had no plugin
    assert with_tlx.stdout.split() == without.stdout.split()
    assert int(with_tlx.stdout.split()[1]) > 1000


def test_composes_with_a_hook_set_before_import():
    out = run_python(textwrap.dedent("""
        import triton
        from triton import knobs
        calls = []

        def user_hook(*args):
            if not args:
                calls.append("key")
                return "user-key", "user-hash"
            calls.append("stages")

        knobs.runtime.add_stages_inspection_hook = user_hook
        import tlx_alias as tlx
        import triton.language as tl
        from triton.backends.compiler import GPUTarget

        @triton.jit
        def kernel(out_ptr):
            spec = tlx.storage_alias_spec()
            a = tlx.local_alloc((32, 32), tl.float32, 2, reuse=spec)
            tlx.local_store(a[1], tl.full((32, 32), 1.0, tl.float32))
            offs = tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :]
            tl.store(out_ptr + offs, tlx.local_load(a[1]))

        knobs.compilation.always_compile = True
        k = triton.compile(triton.compiler.ASTSource(fn=kernel, signature={"out_ptr": "*fp32"}),
                           target=GPUTarget("cuda", 90, 32))
        key, digest = knobs.runtime.add_stages_inspection_hook()
        print(sorted(set(calls)), key.startswith("user-key"), "tlx_alias-" in key, k.metadata.shared,
              "tlx." in k.asm["ttgir"])
        """)).stdout.split()
    assert out == ["['key',", "'stages']", "True", "True", "8192", "False"]


def test_cache_key_names_the_plugin_build_and_the_frontend():
    # The plugin's bytes, then each frontend module's (subpackages too) in
    # path order: a change to either (views.py building a memdesc type, say)
    # recompiles kernels.
    out = run_python(textwrap.dedent("""
        import glob, hashlib, os, tlx_alias
        from triton import knobs
        key, _ = knobs.runtime.add_stages_inspection_hook()
        digest = hashlib.sha256(open(tlx_alias.plugin_path(), 'rb').read())
        for path in sorted(glob.glob(os.path.join(os.path.dirname(tlx_alias.__file__), '**', '*.py'),
                                     recursive=True)):
            digest.update(open(path, 'rb').read())
        print(key == f"tlx_alias-{tlx_alias.__version__}-{digest.hexdigest()}")
        """)).stdout.strip()
    assert out == "True"

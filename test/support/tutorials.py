"""The peer's (Meta TLX, PyPI fbtriton 3.7.4) Hopper tutorials, run under
tlx_alias with only their imports changed.

The tutorials are read from an fbtriton install or unpacked wheel
(`TLX_TUTORIALS=<dir>`, or the `triton/language/extra/tlx/tutorials` of
`TLX_PEER_SITE`, a folder fbtriton is installed in); nothing of them is
stored in this repository. The GPU tests, the hazard tests and the
benchmarks share this module.
"""
import __future__
import ast
import importlib.util
import math
import os
import sys
import tempfile

HOPPER_GEMM = ["hopper_gemm_pipelined", "hopper_gemm_ws", "hopper-persistent-gemm-ws-pingpong",
               "hopper-persistent-gemm-ws-cooperative"]
HOPPER_ATTENTION = ["hopper_fa_ws", "hopper_fa_ws_pipelined", "hopper_fa_ws_pipelined_pingpong",
                    "hopper_fa_ws_pipelined_pingpong_persistent"]

# Host-side changes (no kernel changes) stock triton needs: its triton.Config
# has no `ctas_per_cga` (and tlx_alias compiles 1-CTA clusters only), and
# its GPUTarget no `is_cuda_backend()`.
CONFIG_EDITS = [
    (".get_current_target().is_cuda_backend()", ".get_current_target().backend == 'cuda'"),
    ("            ctas_per_cga=(num_ctas, 1, 1),\n", ""),
    ("        for num_ctas in [1, 2]\n", "        for num_ctas in [1]\n"),
]

IMPORTS = [
    ("import triton.language.extra.tlx as tlx", "import tlx_alias as tlx"),
    ("from triton.language.extra.tlx.warp_spec import", "from tlx_alias.warp_spec import"),
    ("triton.language.extra.tlx.warp_spec", "tlx_alias.warp_spec"),
]


MISSING = ("the peer's tutorials are not configured: set TLX_TUTORIALS to fbtriton 3.7.4's "
           "triton/language/extra/tlx/tutorials, or TLX_PEER_SITE to a folder fbtriton 3.7.4 is installed in")


def tutorials_dir():
    """The tutorials' folder, or None when neither variable is set."""
    if os.environ.get("TLX_TUTORIALS"):
        return os.environ["TLX_TUTORIALS"]
    if os.environ.get("TLX_PEER_SITE"):
        return os.path.join(os.environ["TLX_PEER_SITE"], "triton", "language", "extra", "tlx", "tutorials")
    return None


def source(name, for_tlx_alias=True):
    if tutorials_dir() is None:
        raise RuntimeError(MISSING)
    with open(os.path.join(tutorials_dir(), name + ".py")) as f:
        text = f.read()
    if for_tlx_alias:
        for peer, ours in IMPORTS + CONFIG_EDITS:
            text = text.replace(peer, ours)
        if "triton.language.extra.tlx" in text:
            raise RuntimeError(f"{name}: a peer import is left after the import rewrite")
    return text


def load(name, for_tlx_alias=True, kernels_only=False):
    """Imports a tutorial as a module. kernels_only keeps its imports and
    @triton.jit functions (no autotuning, no device queries): enough to
    compile its kernels on a machine without a GPU."""
    text = source(name, for_tlx_alias)
    if kernels_only:
        tree = ast.parse(text)
        keep = []
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if not any(isinstance(a, ast.alias) and a.name in ("torch", "pytest") for a in node.names):
                    keep.append(node)
            elif isinstance(node, ast.FunctionDef) and any(
                    "jit" in ast.unparse(d) for d in node.decorator_list):
                node.decorator_list = [d for d in node.decorator_list if "jit" in ast.unparse(d)]
                keep.append(node)
        text = ast.unparse(ast.Module(body=keep, type_ignores=[]))
    directory = tempfile.mkdtemp(prefix="tlx_tutorial_")
    module_name = "tut_" + name.replace("-", "_") + ("_alias" if for_tlx_alias else "_peer")
    path = os.path.join(directory, module_name + ".py")
    with open(path, "w") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def autotune_configs(name):
    """{kernel name: [triton.Config]} the tutorial's @triton.autotune lists,
    evaluated without a GPU: its imports (no torch), its host functions
    (undecorated, never called but for the config lists) and the assignments
    before each kernel that its `configs=` expression reads. The
    early_config_prune (shape-dependent) is not applied."""
    tree = ast.parse(source(name))
    namespace = {}
    prelude = []
    result = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if not any(a.name in ("torch", "pytest") for a in node.names):
                prelude.append(node)
        elif isinstance(node, ast.FunctionDef):
            autotune = [d for d in node.decorator_list
                        if isinstance(d, ast.Call) and ast.unparse(d.func).endswith("autotune")]
            if not any("jit" in ast.unparse(d) for d in node.decorator_list):
                node.decorator_list = []
                prelude.append(node)
            for decorator in autotune:
                configs = next(kw.value for kw in decorator.keywords if kw.arg == "configs")
                names = {n.id for n in ast.walk(configs) if isinstance(n, ast.Name)}
                needed = [s for s in tree.body[:tree.body.index(node)] if isinstance(s, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id in names for t in s.targets)]
                code = ast.Module(body=prelude + needed, type_ignores=[])
                # Annotations stay unevaluated (they name torch).
                exec(compile(code, f"<{name} configs>", "exec", flags=__future__.annotations.compiler_flag), namespace)
                result[node.name] = eval(compile(ast.Expression(configs), f"<{name} configs>", "eval"), namespace)
    return result


def attention(name, for_tlx_alias=True):
    """The attention tutorial `name` as fn(q, k, v), at the softmax scale
    1/sqrt(head dim) (its host function takes the scale)."""
    module = load(name, for_tlx_alias=for_tlx_alias)
    return lambda q, k, v: module.attention(q, k, v, 1.0 / math.sqrt(q.shape[-1]))

"""The tlx-opt driver as a command: inputs, outputs, pass selection, exit codes,
one-line errors, --help and --version."""
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, fake_triton
from tlx_alias._triton_version import PROVEN_TRITON, abi_family

SPEC = ('module {\n  tt.func @k() {\n'
        '    %0 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>\n'
        '    %c = arith.constant 1 : i32\n    tt.return\n  }\n}\n')


def tlx_opt(*args, stdin=None, env=None):
    return subprocess.run([sys.executable, "-m", "tlx_alias.opt", *args], input=stdin, capture_output=True,
                          text=True, timeout=300, env=env)


# An allocation makes the lowering write a memory map.
ALLOC = ('module {\n  tt.func @k() {\n'
         '    %0 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>\n'
         '    %1 = tlx.storage_alias_local_alloc %0 : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, '
         '#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, #ttg.shared_memory, mutable>\n'
         '    tt.return\n  }\n}\n')


def assert_one_line_error(proc, line):
    assert proc.returncode == 1, proc
    assert proc.stderr == line + "\n"
    assert proc.stdout == ""


def test_reads_stdin_and_writes_stdout():
    proc = tlx_opt("-", stdin=SPEC)
    assert proc.returncode == 0, proc.stderr
    assert "tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>" in proc.stdout


def test_writes_output_file(tmp_path):
    out = tmp_path / "out.mlir"
    proc = tlx_opt("-", "-o", str(out), "--canonicalize", stdin=SPEC)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    text = out.read_text()
    assert "arith.constant" not in text  # canonicalize ran: the unused constant is gone
    assert "tlx.storage_alias_spec" in text  # the spec is not dead code


def test_pass_pipeline_and_flags_agree():
    flags = tlx_opt("-", "--tlx-lower", stdin=SPEC)
    pipeline = tlx_opt("-", "--pass-pipeline=builtin.module(tlx-lower)", stdin=SPEC)
    assert flags.returncode == pipeline.returncode == 0
    assert flags.stdout == pipeline.stdout
    assert "tlx." not in flags.stdout  # the unused spec is removed (with a warning)
    assert "has no tlx.storage_alias_local_alloc users" in flags.stderr


@pytest.mark.parametrize("args, stdin, message", [
    (["--no-such-pass"], SPEC, "unknown pass or option '--no-such-pass'"),
    (["--pass-pipeline=builtin.module(nope)"], SPEC, "'nope' does not refer to a registered pass"),
    ([], "module { tt.func @k() { %0 = tlx.bogus } }", "error:"),
    (["--canonicalize", "--pass-pipeline=builtin.module(cse)"], SPEC, "not both"),
])
def test_errors_exit_non_zero(args, stdin, message):
    proc = tlx_opt("-", *args, stdin=stdin)
    assert proc.returncode != 0
    assert message in proc.stderr


def test_verify_diagnostics_fails_on_unmet_expectation(tmp_path):
    source = tmp_path / "expect.mlir"
    source.write_text("tt.func @k() {\n  // expected-error @+1 {{this message is never produced}}\n"
                      "  %0 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>\n"
                      "  tt.return\n}\n")
    proc = tlx_opt(str(source), "--verify-diagnostics")
    assert proc.returncode == 1
    assert "was not produced" in proc.stderr


def test_split_input_file_processes_chunks_independently():
    proc = tlx_opt("-", "--split-input-file", stdin=SPEC + "// -----\n" + SPEC.replace("@k", "@j"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("// -----") == 1 and "@k" in proc.stdout and "@j" in proc.stdout


def test_file_problems_are_one_line_errors(tmp_path):
    missing = tmp_path / "missing.mlir"
    assert_one_line_error(tlx_opt(str(missing)), f"tlx-opt: cannot read '{missing}': No such file or directory")
    assert_one_line_error(tlx_opt(str(tmp_path)), f"tlx-opt: cannot read '{tmp_path}': it is a directory")
    binary = tmp_path / "binary.mlir"
    binary.write_bytes(b"module {}\n\xf0\x28\x8c\x28")
    assert_one_line_error(tlx_opt(str(binary)), f"tlx-opt: '{binary}' is not MLIR text (not UTF-8 at byte 10)")
    binary.write_bytes(b"module {}\n\0\0")
    assert_one_line_error(tlx_opt(str(binary)), f"tlx-opt: '{binary}' is not MLIR text (it holds NUL bytes)")
    out = tmp_path / "no-such-dir" / "out.mlir"
    assert_one_line_error(tlx_opt("-", "-o", str(out), stdin=SPEC),
                          f"tlx-opt: cannot write '{out}': No such file or directory")
    assert_one_line_error(tlx_opt("-", "-o", str(tmp_path), stdin=SPEC),
                          f"tlx-opt: cannot write '{tmp_path}': it is a directory")


def test_failed_run_leaves_no_output_file(tmp_path):
    out = tmp_path / "out.mlir"
    proc = tlx_opt("-", "-o", str(out), stdin="module { tt.func @k() { %0 = tlx.bogus } }")
    assert proc.returncode == 1 and "error:" in proc.stderr
    assert not out.exists()


def test_unwritable_memory_map_is_one_line_without_the_module(tmp_path):
    path = tmp_path / "no-such-dir" / "map.jsonl"
    proc = tlx_opt("-", f"--tlx-lower=memory-map={path}", stdin=ALLOC)
    assert_one_line_error(proc, f"<unknown>:0: error: cannot open memory map file {path}: No such file or directory")
    ok = tlx_opt("-", f"--tlx-lower=memory-map={tmp_path / 'map.jsonl'}", stdin=ALLOC)
    assert ok.returncode == 0, ok.stderr
    assert '"size":32768' in (tmp_path / "map.jsonl").read_text().replace(" ", "")


@pytest.mark.parametrize("args, line", [
    (["--tlx-lower=bogus=1"], "tlx-opt: bad options in '--tlx-lower=bogus=1': no such option bogus; "
     "failed to add `tlx-lower` with options `bogus=1`"),
    (["--tlx-lower=memory-map"], "tlx-opt: bad options in '--tlx-lower=memory-map': failed to add `tlx-lower` "
     "with options `memory-map`; for the --memory-map option: requires a value"),
    (["--pass-pipeline=builtin.module(tlx-lower{bogus=1})"], "tlx-opt: invalid pass pipeline "
     "'builtin.module(tlx-lower{bogus=1})': no such option bogus; failed to add `tlx-lower` with options `bogus=1`"),
    (["--pass-pipeline=func.func(cse)"], "tlx-opt: invalid pass pipeline 'func.func(cse)': the pass pipeline "
     "must be anchored on builtin.module, as 'builtin.module(...)'"),
    (["--version-info"], "tlx-opt: unknown pass or option '--version-info' (tlx-opt --help lists them)"),
    (["extra.mlir"], "tlx-opt: unexpected argument 'extra.mlir'"),
])
def test_option_problems_are_one_line_errors(args, line):
    assert_one_line_error(tlx_opt("-", *args, stdin=SPEC), line)


def test_version():
    proc = tlx_opt("--version")
    assert proc.returncode == 0 and proc.stderr == ""
    built_for = subprocess.run([sys.executable, "-c", "import tlx_alias; print(tlx_alias.SUPPORTED_TRITON)"],
                               capture_output=True, text=True, check=True).stdout.strip()
    assert built_for in PROVEN_TRITON
    assert proc.stdout == f"tlx-opt (tlx-alias 0.1.0, for triton {' or '.join(abi_family(built_for))})\n"


def _tablegen_passes():
    """(argument, summary) of every pass defined in Passes.td."""
    with open(os.path.join(ROOT, "cpp/include/tlx_alias/Dialect/TLX/Transforms/Passes.td")) as f:
        text = f.read()
    found = re.findall(r'def \w+ : Pass<"([\w-]+)"[^{]*\{\s*let summary = "([^"]*)";', text)
    assert len(found) == text.count(": Pass<")
    return found


def test_help_lists_every_pass_with_its_tablegen_summary():
    proc = tlx_opt("--help")
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("usage: tlx-opt ")
    listed = dict(re.findall(r"^  --([\w-]+) +-   (.*)$", proc.stdout, re.M))
    passes = _tablegen_passes()
    assert len(passes) >= 8
    for name, summary in passes:
        assert listed.get(name) == summary, name
    for name in ["canonicalize", "cse", "sccp", "symbol-dce", "inline", "loop-invariant-code-motion"]:
        assert name in listed
    assert re.search(r"^    --memory-map=<string> +- Append each spec's layout", proc.stdout, re.M)


def test_other_triton_version_is_one_line(tmp_path):
    built_for = subprocess.run([sys.executable, "-c", "import tlx_alias; print(tlx_alias.SUPPORTED_TRITON)"],
                               capture_output=True, text=True, check=True).stdout.strip()
    other = next(v for v in PROVEN_TRITON if v not in abi_family(built_for))
    site = fake_triton(tmp_path, other)
    env = dict(os.environ, PYTHONPATH=site + os.pathsep + os.environ.get("PYTHONPATH", ""))
    script = os.path.join(os.path.dirname(sys.executable), "tlx-opt")
    for command in ([script, "--help"], [sys.executable, "-m", "tlx_alias.opt", "-"]):
        proc = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, input=SPEC)
        assert_one_line_error(proc, f"TritonVersionError: tlx_alias supports only triton "
                                    f"{' or '.join(abi_family(built_for))} (its plugin ABI), but triton {other} is "
                                    f"installed: reinstall tlx-alias next to it (pip builds it for the triton it "
                                    f"finds) or pip install triton=={built_for}")


# A wgmma layout whose instrShape M is 3: triton's verifier asserts on it
# (LinearLayoutConversions.cpp: `m % 8 == 0`) before any tlx code runs.
TRITON_ABORTS = (
    '#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>\n'
    '#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [3, 64, 16]}>\n'
    '#smem = #ttg.shared_memory\n'
    'module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
    '"ttg.threads-per-warp" = 32 : i32} {\n  tt.func @k() {\n'
    '    %acc = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>\n'
    '    %a = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>\n'
    '    %r = ttng.warp_group_dot %a, %a, %acc {isAsync = true} : !ttg.memdesc<64x64xf16, #nv, #smem, mutable> * '
    '!ttg.memdesc<64x64xf16, #nv, #smem, mutable> -> tensor<64x64xf32, #mma>\n'
    '    tt.return\n  }\n}\n')


def test_an_abort_inside_triton_is_an_error_about_the_input(tmp_path):
    """tlx-opt runs the passes in a child process: triton's assertion ends
    the child, and tlx-opt says the input is malformed and exits 1."""
    path = tmp_path / "bad.mlir"
    path.write_text(TRITON_ABORTS)
    proc = tlx_opt(str(path), "--tlx-lower")
    assert proc.returncode == 1, proc
    assert proc.stdout == ""
    assert proc.stderr.endswith(f"{path}: error: triton's parser or a pass aborted on this input (signal SIGABRT; "
                                "its own message is above): the input is malformed\n"), proc.stderr
    assert "Assertion" in proc.stderr  # triton's own words, above

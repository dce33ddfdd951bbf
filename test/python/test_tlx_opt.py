"""The tlx-opt driver as a command: inputs, outputs, pass selection, exit codes."""
import os
import subprocess
import sys

import pytest

SPEC = ('module {\n  tt.func @k() {\n'
        '    %0 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>\n'
        '    %c = arith.constant 1 : i32\n    tt.return\n  }\n}\n')


def tlx_opt(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "tlx_alias.opt", *args], input=stdin, capture_output=True,
                          text=True, timeout=300)


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

"""The README as a new user meets it: its kernel example runs (compiling for
sm_90 without a GPU) and prints what the README shows, it points nowhere
outside the repository, and its install gives the test command what it needs."""
import ast
import os
import re
import sys

from conftest import ROOT, run_python

with open(os.path.join(ROOT, "README.md")) as f:
    README = f.read()


def _section(title):
    """The text under `## title`, up to the next heading (its subsections are their own)."""
    start = README.index(f"\n## {title}\n")
    ends = [end for end in (README.find("\n## ", start + 1), README.find("\n### ", start + 1)) if end != -1]
    return README[start:min(ends, default=len(README))]


def _blocks(text, language):
    """The fenced code blocks of `text` opened with ```<language>."""
    blocks, current = [], None
    for line in text.splitlines(keepends=True):
        if current is None and line.startswith("```"):
            current = [line[3:].strip()]
        elif current is not None and line.rstrip() == "```":
            if current[0] == language:
                blocks.append("".join(current[1:]))
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def test_in_a_kernel_example_runs_and_prints_what_the_readme_shows(tmp_path):
    section = _section("In a kernel")
    (code, ) = _blocks(section, "python")
    shown = _blocks(section, "")[0]
    out = run_python(code, script_path=tmp_path / "kernel.py").stdout
    assert out == shown


def test_no_references_outside_the_repository():
    assert not re.findall(r"(?<![.\w/])\.\./", README)
    assert not re.findall(r"\]\((?:https?:|/|\.\./)", README)  # markdown links
    assert "python -S" not in README


def test_install_gives_the_test_command_what_it_needs():
    install = _blocks(_section("Install"), "sh")[0]
    assert 'pip install ".[test]"' in install
    assert "lld" not in install  # the plugin links with the system linker (clang-19 brings binutils)
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        pyproject = f.read()
    extras = re.search(r"^test = \[(.*)\]$", pyproject, re.M).group(1)
    extras = {name.strip().strip('"') for name in extras.split(",")}
    # the README's test command: lit ... && pytest -n (pytest-xdist's: one worker a core) ...
    assert {"pytest", "pytest-xdist", "lit"} <= extras
    assert "lit -v test/lit && pytest -q -n auto test/python" in _section("The two commands")
    # Every third-party module the tests import comes with the extras.
    tests = os.path.join(ROOT, "test", "python")
    local = {name[:-3] for folder in ("test/python", "test", "test/support", "examples", "benchmarks")
             if os.path.isdir(os.path.join(ROOT, folder))
             for name in os.listdir(os.path.join(ROOT, folder)) if name.endswith(".py")}
    imported = set()
    for name in os.listdir(tests):
        if name.endswith(".py"):
            with open(os.path.join(tests, name)) as f:
                for node in ast.walk(ast.parse(f.read())):
                    if isinstance(node, ast.Import):
                        imported |= {alias.name.split(".")[0] for alias in node.names}
                    elif isinstance(node, ast.ImportFrom) and node.level == 0:
                        imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - local - {"triton", "tlx_alias"}
    assert third_party <= extras, third_party


def test_group_size_example_runs_and_prints_what_the_readme_shows(tmp_path):
    start = README.index("\n### Subtiling (`group_size`) and mixed buffer counts\n")
    section = README[start:README.index("\n## ", start)]
    (code, ) = _blocks(section, "python")
    shown = _blocks(section, "")[0]
    out = run_python(code, script_path=tmp_path / "kernel.py").stdout
    assert out == shown
    assert "16384 (by 2: 4096)" in shown and "192x64" in shown


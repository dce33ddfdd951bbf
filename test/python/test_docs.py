"""The documentation points only at what exists: every relative link and
every repository path in backticks or in a shell block of README.md,
docs/**/*.md and benchmarks/README.md names a file or folder of the
checkout (anchors included), every python block parses, and every results
file under benchmarks/results/ is cited by one of them."""
import ast
import glob
import os
import re

import pytest

from conftest import ROOT

DOCS = sorted([os.path.join(ROOT, "README.md"), os.path.join(ROOT, "benchmarks", "README.md")] +
              glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
# A backticked token is a repository path when its first component is one of
# these (build outputs and dot-folders of local tools are not the repository's).
TOP_LEVEL = {name for name in os.listdir(ROOT) if name not in (".git", "build", ".devcarry")}
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)


def _read(path):
    with open(path) as f:
        return f.read()


def _ids(path):
    return [os.path.relpath(p, ROOT) for p in path]


def _anchors(markdown):
    """GitHub's heading anchors."""
    return {re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
            for title in re.findall(r"^#+ (.+)$", markdown, re.M)}


def _repo_paths(text):
    """Tokens of `text` that name a path inside the repository."""
    for token in text.split():
        token = token.strip("`'\"(),;:.").rstrip("/")
        if "/" not in token or "..." in token or "…" in token or "<" in token or "$" in token:
            continue
        if token.split("/")[0] in TOP_LEVEL:
            yield token


def _exists(path):
    return bool(glob.glob(os.path.join(ROOT, path)))


@pytest.mark.parametrize("doc", DOCS, ids=_ids(DOCS))
def test_relative_links_resolve(doc):
    text = _read(doc)
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        if not os.path.exists(resolved):
            broken.append(target)
        elif anchor and resolved.endswith(".md") and anchor not in _anchors(_read(resolved)):
            broken.append(target)
    assert not broken, f"{os.path.relpath(doc, ROOT)}: links to nothing: {broken}"


@pytest.mark.parametrize("doc", DOCS, ids=_ids(DOCS))
def test_repository_paths_exist(doc):
    text = _read(doc)
    spans = re.findall(r"`([^`\n]+)`", FENCE.sub("", text))
    spans += [body for language, body in FENCE.findall(text) if language in ("sh", "")]
    missing = sorted({path for span in spans for path in _repo_paths(span) if not _exists(path)})
    assert not missing, f"{os.path.relpath(doc, ROOT)} names paths that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=_ids(DOCS))
def test_python_blocks_parse(doc):
    for language, body in FENCE.findall(_read(doc)):
        if language == "python":
            ast.parse(body)


def test_the_test_command_names_what_exists():
    readme = _read(os.path.join(ROOT, "README.md"))
    command = re.search(r"^lit -v (\S+) && pytest -q -n auto (\S+)$", readme, re.M)
    assert command, "README.md lost the test command"
    for path in command.groups():
        assert os.path.isdir(os.path.join(ROOT, path)), path


def test_every_results_file_is_cited():
    cited = "\n".join(_read(doc) for doc in DOCS)
    results = os.listdir(os.path.join(ROOT, "benchmarks", "results"))
    uncited = sorted(name for name in results if name not in cited)
    assert not uncited, f"results files no document cites (cite them or git rm them): {uncited}"

"""Mutation fuzzing of tlx-opt (issue 29): the lit inputs, split at `// -----`,
are mutated (numbers, huge ones among them, keywords and attribute values,
list elements, swapped, deleted or duplicated lines) and run through
`tlx-lower` and `tlx-check-hazards` in process, in a few worker
subprocesses. A diagnostic is a fine outcome; an abort (an LLVM ERROR, an
assertion, a signal) or a run over the time limit is a failure, reported with
its input text and pipeline.

Reproducible: mutant `i` of seed `s` depends only on (s, i) and the lit
inputs. A worker tells nothing before it answers; the parent gives it one
input at a time, so a worker that dies or stays silent past the limit is
blamed for exactly that input, killed and replaced.

    python test/python/fuzz_tlx_opt.py [--count N] [--seed S] [--workers W]
                                       [--timeout T] [--minimize]

(`--worker` is the worker's own entry point.)
"""
import argparse
import functools
import glob
import json
import os
import random
import re
import selectors
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LIT = os.path.join(ROOT, "test", "lit")

PIPELINES = (
    "builtin.module(tlx-lower)",
    "builtin.module(tlx-check-hazards)",
    "builtin.module(tlx-lower)",
    "builtin.module(tlx-check-hazards)",
    "builtin.module(tlx-lower{exact-views=false})",
    "builtin.module(tlx-lower,tlx-check-hazards)",
)

# Values a number becomes: edges of every width, huge sizes, zero, negative.
SPECIAL_NUMBERS = (0, -1, 1, 2, 3, 5, 7, 8, 16, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 512, 1024, 4096,
                   65536, 1 << 20, 2**31 - 1, 2**31, 2**32, 2**32 + 1, 99999999999, 2**62, 2**63 - 1, 2**63,
                   2**64, -(2**31), -(2**63), -2, 100000)

# Element types, memory spaces and layout names a keyword can become.
EXTRA_WORDS = ("f32", "f16", "bf16", "i1", "i8", "i16", "i32", "i64", "f64", "f8E4M3FN", "f8E5M2", "index",
               "smem", "tmem", "mutable", "ttg.shared_memory", "ttng.tensor_memory", "true", "false")

_NUMBER = re.compile(r"-?\d+")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_VALUE = re.compile(r"%[A-Za-z0-9_]+")
_ALIAS = re.compile(r"#[A-Za-z_][A-Za-z0-9_]*")
_LIST = re.compile(r"\[[^\[\]]*\]")
# Frames of tlx-alias's plugin in a crash's stack trace (triton's sources are
# under /project/; the tlx-opt driver's parse call does not count).
OUR_FRAMES = ("libTLXAliasPlugin", "/cpp/lib/")


def _chunks_of(path):
    chunks, current = [], []
    with open(path) as f:
        for line in f:
            if line.strip() == "// -----":
                chunks.append(current)
                current = []
            elif not line.lstrip().startswith("//"):
                current.append(line.rstrip("\n"))
    chunks.append(current)
    return [c for c in chunks if any(line.strip() for line in c)]


def corpus():
    """[(name, lines)]: each `// -----` chunk of the lit inputs, comment lines
    dropped (mutating them finds nothing)."""
    out = []
    for path in sorted(glob.glob(os.path.join(LIT, "**", "*.mlir"), recursive=True)):
        rel = os.path.relpath(path, LIT)
        for i, chunk in enumerate(_chunks_of(path)):
            out.append((f"{rel}#{i}", chunk))
    return out


def _numbers(line):
    """Spans of the numbers in a line (shape dims such as 2x64xf32 included;
    not the digits of %arg0, #shared1, f32, @k2)."""
    spans = []
    for m in _NUMBER.finditer(line):
        s, e = m.span()
        prev = line[s - 1] if s else " "
        after = line[e] if e < len(line) else " "
        if prev.isdigit() or after.isdigit() or prev in "%#@_$.^":
            continue
        if prev.isalpha() and not (prev == "x" and s >= 2 and line[s - 2].isdigit()):
            continue
        if after.isalpha() and after != "x" or after in "_.":
            continue
        spans.append((s, e))
    return spans


def _mutate_number(rng, lines, _vocab):
    sites = [(i, s, e) for i, line in enumerate(lines) for s, e in _numbers(line)]
    if not sites:
        return None
    i, s, e = rng.choice(sites)
    old = int(lines[i][s:e])
    new = rng.choice(SPECIAL_NUMBERS + (old * 2, old // 2 if old else 3, old + 1, old - 1, -old,
                                        old * 1000003))
    if lines[i][s - 1:s] == "x" or lines[i][e:e + 1] == "x":
        new = abs(new) if rng.random() < 0.8 else new  # a shape dim: mostly non-negative
    lines[i] = lines[i][:s] + str(new) + lines[i][e:]
    return f"line {i + 1}: number {old} -> {new}"


def _mutate_word(rng, lines, vocab):
    sites = [(i, m.span()) for i, line in enumerate(lines) for m in _WORD.finditer(line)
             if not (m.start() and line[m.start() - 1] in "%#@^!")]
    if not sites:
        return None
    i, (s, e) = rng.choice(sites)
    old = lines[i][s:e]
    new = rng.choice(vocab["words"] if rng.random() < 0.7 else EXTRA_WORDS)
    lines[i] = lines[i][:s] + new + lines[i][e:]
    return f"line {i + 1}: word {old} -> {new}"


def _mutate_name(rng, lines, _vocab):
    """One use of an SSA value or an attribute alias renamed to another of the chunk."""
    pattern = _VALUE if rng.random() < 0.5 else _ALIAS
    sites = [(i, m.span()) for i, line in enumerate(lines) for m in pattern.finditer(line)]
    names = sorted({lines[i][s:e] for i, (s, e) in sites})
    if len(names) < 2:
        return None
    i, (s, e) = rng.choice(sites)
    old = lines[i][s:e]
    new = rng.choice([n for n in names if n != old])
    lines[i] = lines[i][:s] + new + lines[i][e:]
    return f"line {i + 1}: name {old} -> {new}"


def _mutate_list(rng, lines, _vocab):
    """A [...] list loses, doubles or swaps an element, or empties."""
    sites = [(i, m.span()) for i, line in enumerate(lines) for m in _LIST.finditer(line)]
    if not sites:
        return None
    i, (s, e) = rng.choice(sites)
    items = [x.strip() for x in lines[i][s + 1:e - 1].split(",")] if lines[i][s + 1:e - 1].strip() else []
    kind = rng.choice(("drop", "dup", "swap", "empty", "reverse"))
    if kind == "drop" and items:
        del items[rng.randrange(len(items))]
    elif kind == "dup" and items:
        items.insert(rng.randrange(len(items) + 1), rng.choice(items))
    elif kind == "swap" and len(items) > 1:
        a, b = rng.sample(range(len(items)), 2)
        items[a], items[b] = items[b], items[a]
    elif kind == "reverse":
        items.reverse()
    else:
        kind, items = "empty", []
    old = lines[i][s:e]
    lines[i] = lines[i][:s] + "[" + ", ".join(items) + "]" + lines[i][e:]
    return f"line {i + 1}: list {kind} {old}"


def _mutate_lines(rng, lines, _vocab):
    if len(lines) < 2:
        return None
    kind = rng.choice(("delete", "swap", "duplicate", "move"))
    a = rng.randrange(len(lines))
    if kind == "delete":
        del lines[a]
        return f"line {a + 1}: deleted"
    b = rng.randrange(len(lines))
    if kind == "swap":
        lines[a], lines[b] = lines[b], lines[a]
        return f"lines {a + 1} and {b + 1}: swapped"
    if kind == "duplicate":
        lines.insert(b, lines[a])
        return f"line {a + 1}: duplicated before line {b + 1}"
    lines.insert(b, lines.pop(a))
    return f"line {a + 1}: moved to {b + 1}"


MUTATORS = ((_mutate_number, 5), (_mutate_word, 2), (_mutate_name, 1), (_mutate_list, 2), (_mutate_lines, 2))


class Mutants:
    """Mutant i of a seed: (chunk name, text, pipeline, mutations)."""

    def __init__(self, seed):
        self.seed = seed
        self.chunks = corpus()
        words = set()
        for _, lines in self.chunks:
            for line in lines:
                words.update(m.group(0) for m in _WORD.finditer(line))
        self.vocab = {"words": sorted(words)}

    def __getitem__(self, index):
        rng = random.Random(f"{self.seed}:{index}")
        name, lines = rng.choice(self.chunks)
        lines = list(lines)
        done = []
        funcs, weights = zip(*MUTATORS)
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
            for _attempt in range(5):
                what = rng.choices(funcs, weights)[0](rng, lines, self.vocab)
                if what:
                    done.append(what)
                    break
        pipeline = PIPELINES[rng.randrange(len(PIPELINES))]
        return name, "\n".join(lines) + "\n", pipeline, done


# ---------------------------------------------------------------- the worker

@functools.lru_cache(maxsize=None)
def _bare_tensordesc():
    """triton_syntax.bare_tensordesc when the running triton spells
    tensordesc bare (3.8 on), else None."""
    import importlib.metadata
    import importlib.util
    version = tuple(int(p) for p in importlib.metadata.version("triton").split(".")[:2])
    if version < (3, 8):
        return None
    spec = importlib.util.spec_from_file_location("triton_syntax", os.path.join(LIT, "tools", "triton_syntax.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.bare_tensordesc


def _triton_syntax(text):
    """The lit inputs spell 3.7's tensordesc; rewrite for the running triton."""
    bare = _bare_tensordesc()
    try:
        return bare(text) if bare else text
    except ValueError:
        return text


def _print_stack_traces():
    """LLVM's handler of crash signals (libtriton exports it): an abort's
    report then names the frames, which tells triton's parser from ours."""
    import ctypes

    import triton._C.libtriton as libtriton
    handler = ctypes.CDLL(libtriton.__file__)._ZN4llvm3sys28PrintStackTraceOnErrorSignalENS_9StringRefEb
    handler.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_bool]  # (StringRef argv0, bool)
    handler(b"python", 6, False)


def worker_main():
    """Reads one JSON job a line ({"text", "pipeline"}); parses the text alone
    first and says "parsed" when that succeeded, then runs the pipeline and
    answers ({"ok", "diagnostics"}), on the protocol fd; anything else the
    process writes to its stdout goes to stderr."""
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    import tlx_alias
    from tlx_alias import _opt
    from tlx_alias._triton.passes import new_context
    _opt.register_plugin_passes(tlx_alias.plugin_path())
    _print_stack_traces()
    # Bounded memory: an allocation sized by an absurd input fails (an abort,
    # reported) instead of swapping the machine.
    limit = int(os.environ.get("TLX_FUZZ_MEMORY_GB", "8")) << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    proto.write("ready\n")
    proto.flush()
    for line in sys.stdin:
        job = json.loads(line)
        text = _triton_syntax(job["text"])
        ok, _printed, diagnostics = _opt.run(new_context(), text, "fuzz.mlir", "", False, False, False, False)
        if ok:
            proto.write("parsed\n")
            proto.flush()
            ok, _printed, diagnostics = _opt.run(new_context(), text, "fuzz.mlir", job["pipeline"], False, False,
                                                 False, False)
        proto.write(json.dumps({"ok": bool(ok), "diagnostics": diagnostics[-2000:]}) + "\n")
        proto.flush()


# ---------------------------------------------------------------- the parent

class Worker:

    def __init__(self, startup_timeout=120):
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     bufsize=0)
        self.buffer = b""
        line = self._read_line(startup_timeout)
        if line != b"ready":
            self.kill()
            raise RuntimeError("fuzz worker did not start: " + self.stderr_since(0))

    def _read_line(self, timeout):
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    return "timeout"
                data = os.read(fd, 1 << 16)
                if not data:
                    return "died"
                self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def stderr_since(self, offset):
        self.log.seek(offset)
        return self.log.read().decode("utf-8", "replace")

    def run(self, text, pipeline, timeout):
        """(outcome, detail, seconds): outcome "ok" or "error" (a diagnostic),
        "died" or "timeout" (in a tlx pass, or in parsing with a tlx frame on
        the stack), "triton-parser" (an abort in triton's own parser or
        verifier before any tlx code ran: upstream's, tallied apart)."""
        offset = self.log.seek(0, os.SEEK_END)
        start = time.monotonic()
        try:
            self.proc.stdin.write((json.dumps({"text": text, "pipeline": pipeline}) + "\n").encode())
        except BrokenPipeError:
            pass
        parsed = False
        while True:
            line = self._read_line(max(0.0, start + timeout - time.monotonic()))
            if line != b"parsed":
                break
            parsed = True
        seconds = time.monotonic() - start
        if line == "timeout":
            self.kill()
            return "timeout", f"no answer in {timeout} s ({'running the passes' if parsed else 'parsing'})", seconds
        if line == "died":
            self.proc.wait()
            log = self.stderr_since(offset)
            detail = f"exit {self.proc.returncode} ({'running the passes' if parsed else 'parsing'})\n" + log
            ours = parsed or any(mark in log for mark in OUR_FRAMES)
            return ("died" if ours else "triton-parser"), detail[:6000], seconds
        answer = json.loads(line)
        return ("ok" if answer["ok"] else "error"), answer["diagnostics"], seconds

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.log.close()


def fuzz(count, seed=0, workers=2, timeout=10.0, start=0, progress=None):
    """Runs mutants start..start+count; returns (stats, failures). A failure is
    a dict: index, chunk, pipeline, mutations, outcome, detail, text."""
    mutants = Mutants(seed)
    stats = {"runs": 0, "ok": 0, "error": 0, "died": 0, "timeout": 0, "triton-parser": 0, "slowest": 0.0, "seconds": 0.0}
    failures = []
    lock = threading.Lock()
    indices = iter(range(start, start + count))
    began = time.monotonic()

    def loop():
        try:
            _loop()
        except BaseException as error:  # noqa: B902 (re-raised in the caller)
            errors.append(error)

    def _loop():
        worker = Worker()
        try:
            while True:
                with lock:
                    index = next(indices, None)
                if index is None:
                    return
                name, text, pipeline, mutations = mutants[index]
                outcome, detail, seconds = worker.run(text, pipeline, timeout)
                with lock:
                    stats["runs"] += 1
                    stats[outcome] += 1
                    stats["slowest"] = max(stats["slowest"], seconds)
                    if outcome in ("died", "timeout", "triton-parser"):
                        failures.append({"index": index, "chunk": name, "pipeline": pipeline,
                                         "mutations": mutations, "outcome": outcome, "detail": detail,
                                         "text": text})
                    if progress and stats["runs"] % 500 == 0:
                        progress(stats)
                if outcome in ("died", "timeout", "triton-parser"):
                    worker.kill()
                    worker = Worker()
        finally:
            worker.kill()

    errors = []
    threads = [threading.Thread(target=loop) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    stats["seconds"] = round(time.monotonic() - began, 1)
    failures.sort(key=lambda f: f["index"])
    return stats, failures


def signature(failure):
    """A crash's class: the first LLVM ERROR / assertion line, else the outcome."""
    if failure["outcome"] == "timeout":
        return "timeout"
    for line in failure["detail"].splitlines():
        if line.startswith(("Stack dump", "#0 ", " #0 ")):
            break  # the frames follow
        if "Assertion" in line or "LLVM ERROR" in line or "terminate called" in line or "what():" in line:
            return failure["outcome"] + ": " + re.sub(r"0x[0-9a-f]+|\d+", "N", line.strip())[:200]
    return failure["outcome"] + ": " + (failure["detail"].splitlines() or [""])[0]


def minimize(failure, timeout=10.0, budget=60):
    """Greedy line deletion keeping the same crash signature (at most `budget`
    runs); returns the smaller text."""
    lines = failure["text"].splitlines()
    want = signature(failure)
    worker = Worker()
    runs = 0
    try:
        i = 0
        while i < len(lines) and runs < budget:
            trial = lines[:i] + lines[i + 1:]
            outcome, detail, _ = worker.run("\n".join(trial) + "\n", failure["pipeline"], timeout)
            runs += 1
            if outcome in ("died", "timeout", "triton-parser"):
                worker.kill()
                worker = Worker()
                if signature({"outcome": outcome, "detail": detail}) == want:
                    lines = trial
                    continue
            i += 1
    finally:
        worker.kill()
    return "\n".join(lines) + "\n"


def report(failure):
    return (f"mutant {failure['index']} of {failure['chunk']} under {failure['pipeline']}: "
            f"{failure['outcome']}\n  mutations: {'; '.join(failure['mutations'])}\n"
            f"  {failure['detail'].strip()[-1500:]}\n--- input ---\n{failure['text']}--- end ---")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", action="store_true")
    parser.add_argument("--count", type=int, default=int(os.environ.get("TLX_FUZZ_COUNT", "2000")))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("TLX_FUZZ_SEED", "29")))
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--minimize", action="store_true")
    parser.add_argument("--json", help="write the failures there")
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main()
    stats, failures = fuzz(args.count, args.seed, args.workers, args.timeout, args.start,
                           progress=lambda s: print(s, flush=True))
    classes = {}
    for f in failures:
        classes.setdefault(signature(f), []).append(f)
    ours = [f for f in failures if f["outcome"] != "triton-parser"]
    for sig, fs in classes.items():
        print(f"=== {len(fs)} x {sig}")
        first = min(fs, key=lambda f: len(f["text"]))
        if args.minimize and first["outcome"] != "triton-parser":
            first = dict(first, text=minimize(first, args.timeout))
        print(report(first))
    print(json.dumps(stats))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(failures, f, indent=1)
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())

"""Rewrite a lit test written in triton 3.7's syntax into the running triton's.

The tests spell TMA descriptors as triton 3.7 does,
``!tt.tensordesc<tensor<64x64xf16, #l>>``; triton 3.8 parses only
``!tt.tensordesc<64x64xf16, #l>``. With ``--tensordesc=bare`` (lit.cfg.py
passes it under 3.8) each such type is rewritten to the bare spelling;
otherwise the text is copied unchanged.

With ``--blank-packed-only``, the lines from a ``// PACKED-ONLY-BEGIN`` line
to the next ``// PACKED-ONLY-END`` line (both included) become empty: a test
keeps there what only its packed-views run (``exact-views=false``, triton 3.7)
lowers, and its exact-views runs read it through this filter.
``--blank-exact-only`` does the same for ``// EXACT-ONLY-BEGIN`` ...
``// EXACT-ONLY-END`` (what only the exact-views runs see, e.g. a diagnostic
that differs between the modes), for the packed run.

Only characters inside a line change, never the line breaks, so the line
numbers of ``expected-error @+1`` annotations and of diagnostics stay those of
the source file.

Usage: triton_syntax.py [--tensordesc=tensor|bare] [--blank-packed-only]
                        [--blank-exact-only] FILE
(writes to stdout)
"""
import argparse
import sys

PREFIX = "!tt.tensordesc<"
WRAPPED = PREFIX + "tensor<"


def _closing(text, start):
    """Index of the '>' closing the '<' just before `start` (nesting counted)."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "<":
            depth += 1
        elif text[i] == ">":
            depth -= 1
            if depth == 0:
                return i
        elif text[i] == "\n":
            break
    raise ValueError("unterminated tensor descriptor type at offset %d" % start)


def bare_tensordesc(text):
    """`!tt.tensordesc<tensor<X>>` -> `!tt.tensordesc<X>` everywhere in `text`."""
    out = []
    pos = 0
    while True:
        at = text.find(WRAPPED, pos)
        if at < 0:
            out.append(text[pos:])
            return "".join(out)
        inner = at + len(WRAPPED)
        end = _closing(text, inner)  # the '>' of tensor<...>
        if text[end + 1 : end + 2] != ">":
            raise ValueError("tensor descriptor type at offset %d has more than a tensor" % at)
        out.append(text[pos:at])
        out.append(PREFIX + text[inner:end] + ">")
        pos = end + 2


def blank_regions(text, tag):
    """Empty every line from a `// TAG-BEGIN` line to the next `// TAG-END` line."""
    begin = "// %s-BEGIN" % tag
    end = "// %s-END" % tag
    out = []
    inside = False
    for line in text.splitlines(keepends=True):
        body = line.strip()
        if body == begin:
            if inside:
                raise ValueError("nested " + begin)
            inside = True
        ends = inside and body == end
        if inside:
            out.append("\n" if line.endswith("\n") else "")
        else:
            out.append(line)
        if ends:
            inside = False
    if inside:
        raise ValueError(begin + " without " + end)
    return "".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tensordesc", choices=["tensor", "bare"], default="tensor")
    parser.add_argument("--blank-packed-only", action="store_true")
    parser.add_argument("--blank-exact-only", action="store_true")
    parser.add_argument("file")
    args = parser.parse_args()
    with open(args.file, encoding="utf-8") as f:
        text = f.read()
    if args.blank_packed_only:
        text = blank_regions(text, "PACKED-ONLY")
    if args.blank_exact_only:
        text = blank_regions(text, "EXACT-ONLY")
    if args.tensordesc == "bare":
        text = bare_tensordesc(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()

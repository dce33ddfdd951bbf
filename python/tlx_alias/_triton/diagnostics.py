"""A pass's diagnostics at a kernel's source line as triton's own
CompilationError, with the line in context and the compiler's words."""
import ast
import linecache
import re

from triton.compiler.errors import CompilationError

# MLIR's "file:line:col: error: message" (the first error names the cause;
# notes and later errors follow it in the text).
_ERROR_AT = re.compile(r"^(?P<file>[^\s:][^:\n]*):(?P<line>\d+):(?P<col>\d+): error: ", re.M)


class StageError(CompilationError, RuntimeError):
    """A failed stage's diagnostics at a kernel's line: a CompilationError as
    the frontend's errors are, and still the RuntimeError the stage raised."""


def stage_error(stage, diagnostics):
    """The exception for a failed stage and its diagnostics: a StageError
    when its first error is at a line of a kernel's source, else a
    RuntimeError carrying them whole."""
    return _at_kernel_line(stage, diagnostics) or RuntimeError(f"{stage} failed:\n{diagnostics}")


def _at_kernel_line(stage, diagnostics):
    """The StageError for `diagnostics` when its first error is at a line of
    a kernel's source (a file, or source that linecache holds), else None."""
    match = _ERROR_AT.search(diagnostics)
    if not match or match["file"].endswith(".mlir"):  # tlx-opt's inputs are no kernel source
        return None
    source = "".join(linecache.getlines(match["file"]))
    if not source:
        return None
    line, col = int(match["line"]), int(match["col"])
    # Absolute line of the file (the kernel's own line numbers, as the
    # diagnostic gives them); col is 1-based there, 0-based in ast.
    node = ast.Pass(lineno=line, col_offset=max(col - 1, 0))
    message = f"{stage} failed:\n{diagnostics[match.start():].strip()}"
    return StageError(source, node, message)

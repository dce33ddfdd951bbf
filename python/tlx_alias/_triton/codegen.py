"""The code-generator patch, and the code generator's state that the
`with tlx.async_tasks()` visitor needs.

Triton's code generator visits a `with` body once; replicated async_tasks
need one visit each, so `CodeGenerator.visit_With` is wrapped to hand the
`with` blocks of chosen context classes to a visitor of their own."""
import ast

from .patching import patch


def _with_call(node):
    """The call of a `with f(...):` of one item, or None."""
    if isinstance(node, ast.With) and len(node.items) == 1 and isinstance(node.items[0].context_expr, ast.Call):
        return node.items[0].context_expr
    return None


def install(with_visitors):
    """Routes `with cls(...):` in @triton.jit code to `visit(generator,
    node)`, for each (cls, visit) of `with_visitors`."""
    from triton.compiler.code_generator import CodeGenerator

    def make_visit_with(stock_visit_with):

        def visit_With(self, node):
            if len(node.items) == 1 and isinstance(node.items[0].context_expr, ast.Call):
                context = self.visit(node.items[0].context_expr.func)
                for cls, visit in with_visitors:
                    if context is cls:
                        return visit(self, node)
            return stock_visit_with(self, node)

        return visit_With

    patch(CodeGenerator, "visit_With", make_visit_with)


def with_context(generator, stmt):
    """What `with f(...):` statement `stmt` calls (f, visited), or None for
    any other statement."""
    call = _with_call(stmt)
    return None if call is None else generator.visit(call.func)


def with_arguments(generator, stmt):
    """The visited arguments (args, kwargs) of `with f(...):` statement `stmt`."""
    call = _with_call(stmt)
    return [generator.visit(a) for a in call.args], dict(generator.visit(kw) for kw in call.keywords)


def unsupported(generator, node, message):
    """The compilation error for `node` (raise it)."""
    return generator._unsupported(node, message)


def visit_in_own_scope(generator, statements):
    """Visits `statements` seeing the names defined before them; names they
    define stay local to them (partitions do not share registers)."""
    saved = dict(generator.lscope), dict(generator.local_defs)
    try:
        generator.visit_compound_statement(statements)
    finally:
        generator.lscope, generator.local_defs = saved

"""Which top-level statements of a notebook cell a run executes, read from the syntax alone.

IPython parses a cell whole (a syntax error: nothing in the cell runs), then compiles and runs
its top-level statements one at a time. So a statement Python's parser accepts but its
compiler refuses (``return`` outside a function, ``def f(x, x)``, ``nonlocal`` at the top
level) stops the cell there, after the statements before it ran; so does a statement that
always raises (``raise``, ``assert False``, ``sys.exit()``). An ``if`` whose test is a constant
(``if True:``, ``if USE_GPU:`` with ``USE_GPU = True``, ``if __name__ == "__main__":``) runs one
branch, known from its syntax; any other test is left to a run, which the grader never does.
A ``%run FILE`` or ``%load FILE`` line brings code the saved cells do not hold.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable
from typing import Any

from pdc import pyast

_TOP_LEVEL_AWAIT = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)  # IPython's autoawait
_EXITS = frozenset({"sys.exit", "exit", "quit", "os._exit"})


def _compiles(tree: ast.Module) -> bool:
    try:
        pyast.compile_tree(tree, "<cell>", flags=_TOP_LEVEL_AWAIT)
    except (SyntaxError, ValueError):
        return False
    return True


@functools.lru_cache(maxsize=4096)
def _whole_cell_compiles(src: str) -> bool:
    try:  # from the text, in C: one call for the usual cell
        compile(src, "<cell>", "exec", flags=_TOP_LEVEL_AWAIT, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def runnable(src: str, tree: ast.Module) -> list[ast.stmt]:
    """The top-level statements of a parsed cell up to the first one Python cannot compile.

    Args:
        src: The cell's Python source.
        tree: Its syntax tree (``ast.parse`` accepted it).

    Returns:
        The statements IPython compiles and runs, in order (all of them for a usual cell).
    """
    if _whole_cell_compiles(src):
        return list(tree.body)
    body: list[ast.stmt] = []
    for node in tree.body:
        if not _compiles(ast.Module(body=[node], type_ignores=[])):
            break
        body.append(node)
    return body


def syntax_error(src: str) -> str | None:
    """Python's complaint about a cell it cannot parse (``"invalid syntax (line 3)"``), else
    None."""
    try:
        compile(src, "<cell>", "exec", flags=_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as e:
        return f"{type(e).__name__}: {e.msg} (line {e.lineno} of the cell)"
    except ValueError as e:  # a NUL byte
        return f"{type(e).__name__}: {e}"
    return None


def defined_names(src: str) -> list[str]:
    """The names a cell's text defines with ``def``, found without parsing it."""
    return re.findall(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", src, re.MULTILINE)


def always_raises(node: ast.stmt) -> bool:
    """Whether a statement always ends the cell with an exception: ``raise``, an ``assert`` of
    a false constant, or a call of ``sys.exit()``, ``exit()`` or ``quit()``."""
    if isinstance(node, ast.Raise):
        return True
    if isinstance(node, ast.Assert):
        test = node.test
        return isinstance(test, ast.Constant) and not test.value
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return ast.unparse(node.value.func) in _EXITS
    return False


def truth(test: ast.expr, value: Callable[[ast.expr], Any]) -> bool | None:
    """The truth of an ``if`` test known from its syntax, else None.

    Args:
        test: The test expression.
        value: The constant value of an expression (a number or a string), else None.

    Returns:
        True or False where the test is a constant, ``not`` / ``and`` / ``or`` of constants, or
        one comparison of constants (numbers, or strings: ``__name__`` is ``"__main__"`` in a
        notebook); else None.
    """
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = truth(test.operand, value)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        parts = [truth(v, value) for v in test.values]
        want = isinstance(test.op, ast.Or)  # the value that decides
        if want in parts:
            return want
        return None if None in parts else not want
    if isinstance(test, ast.Compare):
        if len(test.ops) != 1 or type(test.ops[0]) not in COMPARE:
            return None
        a, b = (_side(s, value) for s in (test.left, test.comparators[0]))
        if a is None or b is None or isinstance(a, str) != isinstance(b, str):
            return None
        return bool(COMPARE[type(test.ops[0])](a, b))
    v = value(test)
    return None if v is None or isinstance(v, str) else bool(v)


#: The comparisons a constant condition may make (the Triton heuristics' lambdas share them).
COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}


def _side(node: ast.expr, value: Callable[[ast.expr], Any]) -> Any:
    if isinstance(node, ast.Name) and node.id == "__name__":
        return "__main__"  # a notebook's cells run as the main module
    return value(node)


def magic_file(node: ast.stmt) -> str | None:
    """``%run FILE`` or ``%load FILE`` (``get_ipython().run_line_magic('run', FILE)``), else
    None: a file whose code the notebook's saved cells do not hold."""
    call = node.value if isinstance(node, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return None
    args = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if call.func.attr == "run_line_magic" and len(args) == 2 and args[0] in ("run", "load"):
        return f"%{args[0]} {args[1]}"[:60]
    return None

"""The handler subset: which Python constructs a ring handler may use, checked node by node.

This module holds the rules: the constructs each backend refuses, the math functions and
constants, ``select``, ``HandlerError`` and the constant folding of loop bounds. The walk
that applies them is ``pdc.ring.handlers.normalize.Normalizer``.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from pdc.backends import NAMES

__all__ = [
    "ALL_BACKENDS",
    "MATH_CONSTANTS",
    "MATH_FUNCTIONS",
    "MATH_NAME",
    "MAX_LOOP_TRIPS",
    "SELECT_NAME",
    "HandlerError",
    "constant_int",
    "select",
]

ALL_BACKENDS = NAMES  # the one registry of backend names (pdc.backends)
# Most loop iterations per message: the kernel checks TERMINATE between messages only.
MAX_LOOP_TRIPS = 1 << 20

# math.<name> -> the mlx.core function computing it elementwise.
MATH_FUNCTIONS = {
    "sqrt": "sqrt",
    "exp": "exp",
    "log": "log",
    "log2": "log2",
    "log10": "log10",
    "log1p": "log1p",
    "expm1": "expm1",
    "fabs": "abs",
    "floor": "floor",
    "ceil": "ceil",
    "pow": "power",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "asin": "arcsin",
    "acos": "arccos",
    "atan": "arctan",
    "atan2": "arctan2",
    "sinh": "sinh",
    "cosh": "cosh",
    "tanh": "tanh",
    "erf": "erf",
    "isnan": "isnan",
    "isinf": "isinf",
    "isfinite": "isfinite",
}
MATH_CONSTANTS = ("pi", "e", "tau", "inf")

SELECT_NAME = "__pdc_select"
MATH_NAME = "__pdc_math"


def select(cond: Any, a: Any, b: Any) -> Any:
    """Elementwise choice: ``a`` where ``cond`` is true, else ``b``.

    A ternary on scalars (and under numba), ``mx.where`` on MLX arrays, ``np.where`` on
    NumPy arrays.
    """
    if isinstance(cond, (bool, int, float, np.generic)):
        return a if cond else b
    if type(cond).__module__.startswith("mlx"):
        import mlx.core as mx

        return mx.where(cond, a, b)
    return np.where(cond, a, b)


class HandlerError(TypeError):
    """A handler uses Python that some backend cannot run."""


_NUMERIC = (bool, int, float, np.bool_, np.integer, np.floating)
_BINOPS = (
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Mod,
    ast.Pow,
    ast.BitAnd,
    ast.BitOr,
    ast.BitXor,
    ast.LShift,
    ast.RShift,
)
_CMPOPS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)

# Constructs and the backends that cannot run them, with the advice given.
_NODE_RULES: dict[type, tuple[tuple[str, ...], str]] = {
    ast.If: (
        ("metal",),
        "an `if` statement: MLX handles a whole batch at once, use select(cond, a, b)",
    ),
    ast.IfExp: (("metal",), "an `a if c else b` expression: use select(c, a, b)"),
    ast.BoolOp: (
        ("metal",),
        "`and`/`or`: they are not elementwise, use `&` and `|` on comparisons",
    ),
    ast.While: (ALL_BACKENDS, "a `while` loop: loop over a constant `range(...)`"),
    ast.Try: (ALL_BACKENDS, "`try` (device code has no exceptions)"),
    ast.With: (ALL_BACKENDS, "`with`"),
    ast.Raise: (ALL_BACKENDS, "`raise`: return a nonzero error code instead"),
    ast.Yield: (ALL_BACKENDS, "`yield`"),
    ast.YieldFrom: (ALL_BACKENDS, "`yield from`"),
    ast.Await: (ALL_BACKENDS, "`await`"),
    ast.Lambda: (ALL_BACKENDS, "a lambda"),
    ast.FunctionDef: (ALL_BACKENDS, "a nested function"),
    ast.ClassDef: (ALL_BACKENDS, "a class"),
    ast.List: (ALL_BACKENDS, "a list (Python object)"),
    ast.Dict: (ALL_BACKENDS, "a dict (Python object)"),
    ast.Set: (ALL_BACKENDS, "a set (Python object)"),
    ast.Tuple: (ALL_BACKENDS, "a tuple"),
    ast.ListComp: (ALL_BACKENDS, "a comprehension"),
    ast.SetComp: (ALL_BACKENDS, "a comprehension"),
    ast.DictComp: (ALL_BACKENDS, "a comprehension"),
    ast.GeneratorExp: (ALL_BACKENDS, "a generator"),
    ast.JoinedStr: (ALL_BACKENDS, "an f-string (Python object)"),
    ast.Subscript: (ALL_BACKENDS, "indexing (fields are scalars: use req.name)"),
    ast.Starred: (ALL_BACKENDS, "`*` unpacking"),
    ast.NamedExpr: (ALL_BACKENDS, "`:=`"),
    ast.Global: (ALL_BACKENDS, "`global`"),
    ast.Nonlocal: (ALL_BACKENDS, "`nonlocal`"),
    ast.Import: (ALL_BACKENDS, "an import (import at module level)"),
    ast.ImportFrom: (ALL_BACKENDS, "an import (import at module level)"),
    ast.Delete: (ALL_BACKENDS, "`del`"),
    ast.Assert: (ALL_BACKENDS, "`assert`: return a nonzero error code instead"),
    ast.Break: (ALL_BACKENDS, "`break` (loops run a constant number of times)"),
    ast.Continue: (ALL_BACKENDS, "`continue` (loops run a constant number of times)"),
}


def constant_int(node: ast.expr, env: dict[str, Any]) -> int | None:
    """The value of an integer constant expression (literals, numeric globals, + - * //)."""
    if isinstance(node, ast.Constant):
        v = node.value
    elif isinstance(node, ast.Name):
        v = env.get(node.id)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = constant_int(node.operand, env)
        return None if inner is None else -inner
    elif isinstance(node, ast.BinOp) and isinstance(
        node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)
    ):
        a, b = constant_int(node.left, env), constant_int(node.right, env)
        if a is None or b is None or (isinstance(node.op, ast.FloorDiv) and b == 0):
            return None
        ops = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}
        return ops[type(node.op)] if type(node.op) in ops else a // b
    else:
        return None
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    return None


def _plain(value: Any) -> Any:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return float(value)

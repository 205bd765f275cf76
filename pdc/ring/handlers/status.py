"""A handler's status is an integer: a float expression returned is refused at definition.

The status goes into an int64 word of the reply ring, so a handler returning ``req.x / 2``
would have its 1.5 truncated to 1 (a wrong error code, or 0.5 read as success). The
literal ``return 1.5`` is refused by the validator; this module finds the computed ones
in the normalized handler, with the kind (bool, int, float) of each expression worked
out the way numba unifies them: a field has its dtype's kind, ``/`` and the math functions
give floats, the other arithmetic the wider kind of its operands, ``select`` and a local
assigned in several places the widest of their values. A kind it cannot tell (a math
function whose result is an int on some backends, ``**``) is never refused.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from pdc.ring.handlers.subset import MATH_NAME, SELECT_NAME

__all__ = ["float_status"]

_ORDER = {"b": 0, "i": 1, "f": 2}
_INT_MATH = {"floor", "ceil", "trunc"}  # an int in numba, a float in MLX: unknown


def _join(*kinds: str | None) -> str | None:
    if any(k is None for k in kinds):
        return None
    return max(kinds, key=lambda k: _ORDER[k or "b"])


class _Kinds:
    def __init__(self, records: dict[str, np.dtype], constants: dict[str, Any]):
        self.records = records
        self.constants = constants
        self.locals: dict[str, str | None] = {}

    def of(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant):
            v = node.value
            return "b" if isinstance(v, bool) else "i" if isinstance(v, int) else "f"
        if isinstance(node, ast.Name):
            if node.id in self.locals:
                return self.locals[node.id]
            if node.id in self.constants:
                return self.of(ast.Constant(self.constants[node.id]))
            return None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            dtype = self.records.get(node.value.id)
            if dtype is not None and dtype.fields and node.attr in dtype.fields:
                code: str = dtype.fields[node.attr][0].kind
                return "i" if code in "iu" else code if code in "bf" else None
            return "f" if node.value.id == MATH_NAME else None  # math.pi, math.e...
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Div):
                return "f"
            if isinstance(node.op, ast.Pow):
                return None
            joined = _join(self.of(node.left), self.of(node.right))
            bitwise = (ast.BitAnd, ast.BitOr, ast.BitXor)
            return joined if joined != "b" or isinstance(node.op, bitwise) else "i"
        if isinstance(node, ast.UnaryOp):
            return "b" if isinstance(node.op, ast.Not) else self.of(node.operand)
        if isinstance(node, ast.Compare):
            return "b"
        if isinstance(node, ast.Call):
            return self._call(node)
        return None

    def _call(self, node: ast.Call) -> str | None:
        func = node.func
        if isinstance(func, ast.Name) and func.id == SELECT_NAME and len(node.args) == 3:
            return _join(self.of(node.args[1]), self.of(node.args[2]))
        if isinstance(func, ast.Name) and func.id == "abs" and len(node.args) == 1:
            return self.of(node.args[0])
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == MATH_NAME
        ):
            return None if func.attr in _INT_MATH else "f"
        return None

    def assign(self, body: list[ast.stmt]) -> bool:
        """One pass over ``body``: join each local's kind with its values'; True on change."""
        changed = False
        for stmt in body:
            if isinstance(stmt, ast.For):
                if isinstance(stmt.target, ast.Name):
                    changed |= self._set(stmt.target.id, "i")
                changed |= self.assign(stmt.body)
            elif isinstance(stmt, ast.If):
                changed |= self.assign(stmt.body) | self.assign(stmt.orelse)
            elif isinstance(stmt, (ast.Assign, ast.AugAssign)):
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
                if isinstance(target, ast.Name):
                    value = stmt.value
                    if isinstance(stmt, ast.AugAssign):
                        value = ast.BinOp(left=target, op=stmt.op, right=stmt.value)
                    changed |= self._set(target.id, self.of(value))
        return changed

    def _set(self, name: str, kind: str | None) -> bool:
        if name not in self.locals:
            self.locals[name] = kind
            return True
        new = _join(self.locals[name], kind)
        if new != self.locals[name]:
            self.locals[name] = new
            return True
        return False


def float_status(
    fdef: ast.FunctionDef, records: dict[str, np.dtype], constants: dict[str, Any]
) -> ast.Return | None:
    """The ``return`` of the normalized handler ``fdef`` whose value is a float, or None.

    Args:
        fdef: The normalized handler (before the fault guards).
        records: Parameter name -> its record dtype (request, reply and state).
        constants: The numeric globals the handler reads.
    """
    kinds = _Kinds(records, constants)
    for _ in range(len(fdef.body) + 2):  # a fixed point: kinds only widen
        if not kinds.assign(fdef.body):
            break
    for node in ast.walk(fdef):
        if isinstance(node, ast.Return) and node.value is not None:
            if kinds.of(node.value) == "f":
                return node
    return None

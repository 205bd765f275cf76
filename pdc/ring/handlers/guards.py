"""Handler faults become error replies, the same on every backend.

A division by zero raises in numba's CPU code (and would end the kernel's loop), gives
``inf`` on a GPU and an exception in the CUDA simulator; a NaN stored into an integer field
is undefined behaviour on a device and an exception in the simulator. So the handler's
normalized AST is rewritten before any backend sees it:

* every divisor ``b`` of ``/``, ``//`` and ``%`` becomes ``select(b == 0, 1, b)``, and the
  statement is preceded by ``_pdc_fault = _pdc_fault + select(b == 0, 1, 0)``;
* ``a // b`` and ``a % b`` with ``b == -1`` are computed as ``(-a) // 1`` and ``-((-a) % 1)``:
  the smallest integer divided by -1 traps in machine code (no fault: it wraps, as NumPy's
  ``floor_divide`` does);
* a store into an integer reply (or state) field goes through a temporary: NaN, or a
  value outside the field's range, counts as a fault and stores 0;
* every ``return x`` becomes ``return select(_pdc_fault > 0, FAULT, x)``.

The handler then replies with status ``FAULT`` and the kernel goes on serving. Arithmetic
stays elementwise (``select`` is a ternary on cpu/cuda, ``mx.where`` on metal).
"""

from __future__ import annotations

import ast
import copy

import numpy as np

__all__ = ["FAULT", "FAULT_VAR", "guard_faults"]

FAULT = -2  # status of a reply whose handler divided by zero or stored NaN/overflow
FAULT_VAR = "_pdc_fault"
_TMP = "_pdc_value"
_DIVISIONS = (ast.Div, ast.FloorDiv, ast.Mod)


def _name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _call(fn: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=_name(fn), args=list(args), keywords=[])


def _count(select: str, cond: ast.expr) -> ast.Assign:
    """``_pdc_fault = _pdc_fault + select(cond, 1, 0)``."""
    inc = _call(select, cond, ast.Constant(1), ast.Constant(0))
    return ast.Assign(
        targets=[_name(FAULT_VAR, True)],
        value=ast.BinOp(left=_name(FAULT_VAR), op=ast.Add(), right=inc),
    )


class _SafeDivisions(ast.NodeTransformer):
    """Makes every divisor nonzero and remembers the conditions to count."""

    def __init__(self, select: str):
        self.select = select
        self.zero_checks: list[ast.expr] = []

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)  # inner divisions first: the checks below use safe copies
        if isinstance(node.op, _DIVISIONS):
            is_zero = ast.Compare(
                left=copy.deepcopy(node.right), ops=[ast.Eq()], comparators=[ast.Constant(0)]
            )
            self.zero_checks.append(is_zero)
            if isinstance(node.op, ast.Div):
                node.right = _call(self.select, copy.deepcopy(is_zero), ast.Constant(1), node.right)
                return node
            return self._minus_one(node, is_zero)
        return node

    def _minus_one(self, node: ast.BinOp, is_zero: ast.expr) -> ast.expr:
        """``a // b`` and ``a % b`` with ``b == -1`` computed without dividing by -1.

        The smallest integer divided by -1 overflows, and the machine division traps on it
        (SIGFPE on x86: MLX's CPU device ended the process). ``a // -1`` is ``(-a) // 1``
        and ``a % -1`` is ``-((-a) % 1)`` for ints and floats alike; ``-a`` is written
        ``a - a - a`` so that it keeps ``a``'s type (``0 - a`` makes an unsigned int a float).
        """
        b = node.right
        is_minus_one = ast.Compare(
            left=copy.deepcopy(b), ops=[ast.Eq()], comparators=[ast.Constant(-1)]
        )

        def a() -> ast.expr:
            return copy.deepcopy(node.left)

        zero = ast.BinOp(left=a(), op=ast.Sub(), right=a())
        negated = ast.BinOp(left=copy.deepcopy(zero), op=ast.Sub(), right=a())
        flipped = ast.BinOp(left=negated, op=copy.deepcopy(node.op), right=ast.Constant(1))
        if isinstance(node.op, ast.Mod):
            flipped = ast.BinOp(left=zero, op=ast.Sub(), right=flipped)
        divisor = _call(self.select, copy.deepcopy(is_minus_one), ast.Constant(1), b)
        node.right = _call(self.select, is_zero, ast.Constant(1), divisor)
        return _call(self.select, is_minus_one, flipped, node)


def _int_limits(dtype: np.dtype) -> tuple[float, float]:
    info = np.iinfo(dtype)
    return float(info.min), float(info.max) + 1.0  # lo <= v < hi


def _out_of_range(tmp: str, lo: float, hi: float) -> ast.expr:
    """``(tmp != tmp) | (tmp >= hi) | (tmp < lo)``: NaN, or no value of the field."""

    def cmp(op: ast.cmpop, right: ast.expr) -> ast.Compare:
        return ast.Compare(left=_name(tmp), ops=[op], comparators=[right])

    nan = cmp(ast.NotEq(), _name(tmp))
    high = cmp(ast.GtE(), ast.Constant(hi))
    low = cmp(ast.Lt(), ast.Constant(lo))
    return ast.BinOp(
        left=ast.BinOp(left=nan, op=ast.BitOr(), right=high), op=ast.BitOr(), right=low
    )


def _guard_block(
    body: list[ast.stmt], select: str, records: dict[str, np.dtype], temps: list[int]
) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.AugAssign):  # x op= v  ->  x = x op v
            load = copy.deepcopy(stmt.target)
            load.ctx = ast.Load()
            stmt = ast.copy_location(
                ast.Assign(
                    targets=[stmt.target],
                    value=ast.BinOp(left=load, op=stmt.op, right=stmt.value),
                ),
                stmt,
            )
        safe = _SafeDivisions(select)
        if isinstance(stmt, (ast.Assign, ast.Return)) and stmt.value is not None:
            stmt.value = safe.visit(stmt.value)
        elif isinstance(stmt, ast.If):
            stmt.test = safe.visit(stmt.test)
            stmt.body = _guard_block(stmt.body, select, records, temps)
            stmt.orelse = _guard_block(stmt.orelse, select, records, temps)
        elif isinstance(stmt, ast.For):
            stmt.body = _guard_block(stmt.body, select, records, temps)
        out += [_count(select, c) for c in safe.zero_checks]
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) else None
        fdt = _int_field(target, records)
        if isinstance(stmt, ast.Assign) and fdt is not None:
            lo, hi = _int_limits(fdt)
            temps.append(len(temps))
            tmp = f"{_TMP}{len(temps)}"  # one name per store: each keeps its own type
            bad = _out_of_range(tmp, lo, hi)
            keep = ast.Assign(targets=[_name(tmp, True)], value=stmt.value)
            out.append(ast.copy_location(keep, stmt))
            out.append(_count(select, bad))
            stmt.value = _call(select, copy.deepcopy(bad), ast.Constant(0), _name(tmp))
        if isinstance(stmt, ast.Return) and stmt.value is not None:
            cond = ast.Compare(left=_name(FAULT_VAR), ops=[ast.Gt()], comparators=[ast.Constant(0)])
            stmt.value = _call(select, cond, ast.Constant(FAULT), stmt.value)
        out.append(stmt)
    return out


def _int_field(target: ast.expr | None, records: dict[str, np.dtype]) -> np.dtype | None:
    """The dtype of ``target`` when it is an integer field of a written record, else None."""
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
        return None
    dtype = records.get(target.value.id)
    if dtype is None or dtype.fields is None or target.attr not in dtype.fields:
        return None
    fdt = dtype.fields[target.attr][0]
    return fdt if fdt.kind in "iu" else None


def guard_faults(
    fdef: ast.FunctionDef, select: str, reply: np.dtype, state: np.dtype | None = None
) -> ast.FunctionDef:
    """Rewrite a normalized handler so that its faults return ``FAULT`` (see the module).

    Args:
        fdef: The normalized handler ``(req, rep)``, or ``(req, rep, state)`` with ``state``.
        select: The name ``select`` calls use in ``fdef``.
        reply: Reply structured dtype.
        state: State structured dtype, for a handler with a state record.

    Returns:
        ``fdef``, rewritten in place.
    """
    args = fdef.args.args
    records = {args[1].arg: reply}
    if state is not None:
        records[args[2].arg] = state
    init = ast.Assign(targets=[_name(FAULT_VAR, True)], value=ast.Constant(0))
    fdef.body = [init, *_guard_block(fdef.body, select, records, [])]
    ast.fix_missing_locations(fdef)
    return fdef

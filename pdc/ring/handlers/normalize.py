"""The walk over a handler's AST that applies the subset's rules (``pdc.ring.handlers.subset``).

``Normalizer`` walks a handler's AST, refuses what some backend cannot run (``HandlerError``
naming the line, the construct and the backends) and rewrites ``select`` and ``math`` calls to
the hook names ``SELECT_NAME`` and ``MATH_NAME`` that each backend binds
(``pdc.ring.handlers.HandlerSpec.build``). A handler's records are named in ``Ctx``: the
request (read-only), the reply and, for a kernel with state, the state record (both written
field by field).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np

from pdc.ring.handlers.subset import (
    _BINOPS,
    _CMPOPS,
    _NODE_RULES,
    _NUMERIC,
    ALL_BACKENDS,
    MATH_CONSTANTS,
    MATH_FUNCTIONS,
    MATH_NAME,
    MAX_LOOP_TRIPS,
    SELECT_NAME,
    HandlerError,
    _plain,
    constant_int,
    select,
)

__all__ = ["Ctx", "Normalizer"]


@dataclass
class Ctx:
    name: str
    filename: str
    line0: int
    backends: tuple[str, ...]
    req: str
    rep: str
    request: np.dtype
    reply: np.dtype
    env: dict[str, Any]
    st: str | None = None  # the state record's parameter name (a kernel with state)
    state: np.dtype | None = None
    locals: set[str] = field(default_factory=set)
    constants: dict[str, Any] = field(default_factory=dict)

    @property
    def records(self) -> tuple[str, ...]:
        """The parameter names of the handler's records."""
        return (self.req, self.rep) if self.st is None else (self.req, self.rep, self.st)

    def fail(self, node: ast.AST, what: str, backends: tuple[str, ...] = ALL_BACKENDS) -> NoReturn:
        bad = [b for b in backends if b in self.backends] or list(backends)
        line = self.line0 + getattr(node, "lineno", 1) - 1
        construct, _, advice = what.partition(": ")
        raise HandlerError(
            f"[ring handler {self.name}] {self.filename}:{line}: {construct} cannot run on the "
            f"{' and '.join(bad)} backend{'s' if len(bad) > 1 else ''}"
            + (f": {advice}" if advice else "")
        )


def _resolve(node: ast.AST, env: dict[str, Any]) -> tuple[bool, Any]:
    """Resolve a Name / Attribute chain against the handler's globals."""
    if isinstance(node, ast.Name):
        if node.id in env:
            return True, env[node.id]
        return False, None
    if isinstance(node, ast.Attribute):
        ok, base = _resolve(node.value, env)
        if ok and hasattr(base, node.attr):
            return True, getattr(base, node.attr)
    return False, None


def _math_name(value: Any) -> str | None:
    for name in MATH_FUNCTIONS:
        if value is getattr(math, name):
            return name
    return None


class Normalizer(ast.NodeTransformer):
    """Validates every node and rewrites select/math calls to the backend hook names."""

    def __init__(self, ctx: Ctx):
        self.ctx = ctx
        self.trips = 1  # iterations of the loops around the node being visited

    def generic_visit(self, node: ast.AST) -> ast.AST:
        rule = _NODE_RULES.get(type(node))
        if rule is not None:
            bad = tuple(b for b in rule[0] if b in self.ctx.backends)
            if bad:
                self.ctx.fail(node, rule[1], bad)
        return super().generic_visit(node)

    # -- statements ---------------------------------------------------------------------
    def visit_Expr(self, node: ast.Expr) -> ast.AST | None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return None  # docstring
        self.ctx.fail(node, "an expression statement (its value is unused)")
        return None

    def _target(self, target: ast.expr, node: ast.AST) -> Any:
        ctx = self.ctx
        if isinstance(target, ast.Name):
            if target.id in ctx.records:
                ctx.fail(node, f"rebinding the parameter {target.id!r}")
            ctx.locals.add(target.id)
            return target
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            if target.value.id == ctx.rep:
                self._field(target, ctx.reply, "reply")
                return target
            if ctx.state is not None and target.value.id == ctx.st:
                self._field(target, ctx.state, "state")
                return target
            if target.value.id == ctx.req:
                ctx.fail(node, f"writing the request field `{ctx.req}.{target.attr}` (read-only)")
        fields = "rep and state" if ctx.st else "rep"
        ctx.fail(node, f"assigning to `{ast.unparse(target)}` (only locals and {fields} fields)")
        return target

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        node.value = self.visit(node.value)
        if len(node.targets) != 1:
            self.ctx.fail(node, "a chained assignment `a = b = ...`")
        node.targets = [self._target(node.targets[0], node)]
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        if not isinstance(node.op, _BINOPS):
            self.ctx.fail(node, f"the operator {type(node.op).__name__}")
        node.value = self.visit(node.value)
        if isinstance(node.target, ast.Name) and node.target.id not in self.ctx.locals:
            self.ctx.fail(node, f"updating {node.target.id!r} before assigning it")
        if isinstance(node.target, ast.Attribute):
            t = node.target
            load = ast.Attribute(value=t.value, attr=t.attr, ctx=ast.Load())
            self.visit(ast.copy_location(load, t))
        node.target = self._target(node.target, node)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is None:
            self.ctx.fail(node, "a bare annotation")
        assign = ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)
        return self.visit_Assign(assign)

    def visit_For(self, node: ast.For) -> ast.AST:
        ctx = self.ctx
        it = node.iter
        if not (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id == "range"
            and "range" not in ctx.env
            and 1 <= len(it.args) <= 3
            and not it.keywords
        ):
            ctx.fail(node, "a `for` loop over anything but `range(<constants>)`")
        for arg in it.args:
            if constant_int(arg, ctx.env) is None:
                ctx.fail(node, f"a loop over a non-constant range (`{ast.unparse(arg)}`)")
        bounds = [constant_int(arg, ctx.env) or 0 for arg in it.args]
        if len(bounds) == 3 and bounds[2] == 0:
            ctx.fail(node, "a loop over `range(..., 0)` (step 0)")
        outer = self.trips
        self.trips = outer * max(len(range(*bounds)), 1)  # nested loops multiply
        if self.trips > MAX_LOOP_TRIPS:
            ctx.fail(
                node,
                f"a loop of {self.trips:,} iterations per message: a handler must finish "
                f"quickly (at most {MAX_LOOP_TRIPS:,} iterations, nested loops multiplied), "
                "a running handler cannot be stopped",
            )
        if node.orelse:
            ctx.fail(node, "`for ... else`")
        if not isinstance(node.target, ast.Name):
            ctx.fail(node, "a loop target that is not a plain name")
        ctx.locals.add(node.target.id)
        node.body = [s for s in (self.visit(s) for s in node.body) if s is not None]
        self.trips = outer
        for arg in it.args:
            self.visit(arg)
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST:
        if node.value is None:
            node.value = ast.copy_location(ast.Constant(0), node)
        elif isinstance(node.value, ast.Constant) and not (
            isinstance(node.value.value, int) and not isinstance(node.value.value, bool)
        ):
            self.ctx.fail(
                node,
                f"`return {node.value.value!r}`: the status a handler returns must be an "
                "integer (0 = ok, anything else an error code)",
            )
        else:
            node.value = self.visit(node.value)
        return node

    # -- expressions --------------------------------------------------------------------
    def _field(self, node: ast.Attribute, dtype: np.dtype, what: str) -> None:
        names = dtype.names or ()
        if node.attr not in names:
            self.ctx.fail(
                node,
                f"the unknown {what} field `{ast.unparse(node)}`: "
                f"the fields are {', '.join(names)}",
            )

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        ctx = self.ctx
        if isinstance(node.value, ast.Name) and node.value.id == ctx.req:
            self._field(node, ctx.request, "request")
            return node
        if isinstance(node.value, ast.Name) and node.value.id == ctx.rep:
            self._field(node, ctx.reply, "reply")
            return node
        if ctx.state is not None and isinstance(node.value, ast.Name) and node.value.id == ctx.st:
            self._field(node, ctx.state, "state")
            return node
        ok, value = _resolve(node, ctx.env)
        if ok and isinstance(value, float) and isinstance(node.value, ast.Name):
            base_ok, base = _resolve(node.value, ctx.env)
            if base_ok and base is math and node.attr in MATH_CONSTANTS:
                return ast.copy_location(ast.Constant(value), node)
        if ok and isinstance(value, _NUMERIC):
            return ast.copy_location(ast.Constant(_plain(value)), node)
        ctx.fail(node, f"the attribute access `{ast.unparse(node)}`")
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        ctx = self.ctx
        if node.id in ctx.records:
            ctx.fail(node, f"using the record `{node.id}` itself (use `{node.id}.<field>`)")
        if node.id in ctx.locals:
            return node
        if node.id in ctx.env:
            value = ctx.env[node.id]
            if isinstance(value, _NUMERIC):
                ctx.constants[node.id] = _plain(value)
                return node
            ctx.fail(
                node,
                f"the global `{node.id}` (a {type(value).__name__}): "
                "globals must be numeric constants",
            )
        if node.id in ("True", "False"):
            return node
        ctx.fail(node, f"the name `{node.id}` (not assigned before use)")
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if not isinstance(node.value, (bool, int, float)):
            self.ctx.fail(node, f"the constant {node.value!r} (only numbers)")
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        if not isinstance(node.op, _BINOPS):
            self.ctx.fail(node, f"the operator {type(node.op).__name__}")
        return self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        if isinstance(node.op, ast.Not):
            self.ctx.fail(node, "`not`: it is not elementwise, use `~` or `== 0`", ("metal",))
        return self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        if len(node.ops) != 1:
            self.ctx.fail(node, "a chained comparison: compare twice and combine with `&`")
        if not isinstance(node.ops[0], _CMPOPS):
            self.ctx.fail(node, f"the comparison {type(node.ops[0]).__name__}")
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        ctx = self.ctx
        if node.keywords:
            ctx.fail(node, "keyword arguments in a call")
        ok, fn = _resolve(node.func, ctx.env)
        if isinstance(node.func, ast.Name) and node.func.id == "abs" and "abs" not in ctx.env:
            ok, fn = True, abs
        args = [self.visit(a) for a in node.args]
        func: ast.expr
        math_name = _math_name(fn) if ok else None
        if ok and fn is select:
            if len(args) != 3:
                ctx.fail(node, f"select() with {len(args)} arguments (expected 3)")
            func = ast.Name(id=SELECT_NAME, ctx=ast.Load())
        elif ok and fn is abs:
            if len(args) != 1:
                ctx.fail(node, "abs() without exactly one argument")
            func = ast.Name(id="abs", ctx=ast.Load())
        elif math_name is not None:
            func = ast.Attribute(
                value=ast.Name(id=MATH_NAME, ctx=ast.Load()), attr=math_name, ctx=ast.Load()
            )
        else:
            ctx.fail(
                node,
                f"the call `{ast.unparse(node.func)}(...)`: handlers may call only "
                f"math.{{{', '.join(MATH_FUNCTIONS)}}}, abs and select",
            )
        return ast.copy_location(ast.Call(func=func, args=args, keywords=[]), node)

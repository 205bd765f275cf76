"""Ring kernel handlers: written once in a small subset of Python, run on every backend.

A handler reads one request record and writes one reply record::

    def scale(req, rep):
        rep.y = req.x * 2.0
        return 0            # optional; a nonzero int is an error code

A kernel declared with ``state=`` has a third record, its own state, kept across messages
(``def count(req, rep, state)``; see ``pdc.ring.handlers.state``).

The subset is what numba (CPU ``njit``), numba.cuda (``device=True``) and MLX (a whole batch
of messages at once, each field an ``mx.array``) all run: arithmetic, comparisons,
``math.*`` functions from ``MATH_FUNCTIONS``, ``abs``, ``select(cond, a, b)`` for choices,
``for i in range(<constant>)`` loops, local variables, numeric global constants. The
validator (``validate``) turns anything else into a ``HandlerError`` naming the line, the
construct and the backends that cannot run it.

Backends compile a *normalized* copy of the handler (``HandlerSpec.build``): every call of
``select`` becomes ``__pdc_select(...)``, every math function ``__pdc_math.name(...)``, and
the backend chooses what those two names mean (numba ternary, ``mx.where``, ``mlx.core``).
What the subset allows is checked in ``pdc.ring.handlers.subset``.
"""

from __future__ import annotations

import ast
import copy
import inspect
import math
import textwrap
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pdc import pyast
from pdc.ring.handlers.guards import guard_faults
from pdc.ring.handlers.normalize import Ctx, Normalizer
from pdc.ring.handlers.state import check_state_dtype, localize
from pdc.ring.handlers.status import float_status
from pdc.ring.handlers.subset import (
    ALL_BACKENDS,
    MATH_CONSTANTS,
    MATH_FUNCTIONS,
    MATH_NAME,
    SELECT_NAME,
    HandlerError,
    select,
)
from pdc.ring.protocol import check_message_dtype

__all__ = [
    "ALL_BACKENDS",
    "MATH_CONSTANTS",
    "MATH_FUNCTIONS",
    "HandlerError",
    "HandlerSpec",
    "select",
    "validate",
]


def _function_env(fn: Callable) -> dict[str, Any]:
    env = dict(fn.__globals__)
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__, strict=True):
            env[name] = cell.cell_contents
    return env


_INT64 = range(-(2**63), 2**63)


def _int_value(node: ast.AST) -> int | None:
    """The value of an integer literal, or of arithmetic on integer literals (``2**70``,
    ``1 << 64``, ``-5``), as Python computes it; None for anything else (or too big to
    compute cheaply)."""
    if isinstance(node, ast.Constant):
        v = node.value
        return v if isinstance(v, int) and not isinstance(v, bool) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _int_value(node.operand)
        return None if v is None else -v
    if isinstance(node, ast.BinOp):
        a, b = _int_value(node.left), _int_value(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, (ast.Pow, ast.LShift)):
            if not 0 <= b <= 4096:
                return None
            return a**b if isinstance(node.op, ast.Pow) else a << b
        fold = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}
        return fold.get(type(node.op))
    return None


def _int_beyond_int64(tree: ast.AST) -> ast.AST | None:
    """The first integer literal (or arithmetic on literals) whose value int64 cannot hold:
    numba types it unsigned or as a float, and a status from it wraps silently."""
    todo = [tree]
    while todo:
        node = todo.pop()
        v = _int_value(node) if isinstance(node, (ast.Constant, ast.BinOp, ast.UnaryOp)) else None
        if v is not None:  # the whole literal expression counts, not its parts: -(2**63)
            if v not in _INT64:
                return node
            continue
        todo.extend(reversed(list(ast.iter_child_nodes(node))))
    return None


def validate(
    fn: Callable,
    request: Any,
    reply: Any,
    backends: tuple[str, ...] = ALL_BACKENDS,
    state: Any = None,
) -> tuple[ast.FunctionDef, dict[str, Any], str, int]:
    """Check that ``fn`` runs on ``backends`` and return its normalized definition.

    Args:
        fn: The handler ``fn(req, rep)``, or ``fn(req, rep, state)`` with ``state``.
        request: Request structured dtype.
        reply: Reply structured dtype.
        backends: Backends the handler must run on.
        state: State structured dtype (a kernel with state), or None.

    Returns:
        ``(function_def, constants, filename, first_line)``: the normalized AST, the numeric
        globals it reads, and where its source lives.

    Raises:
        HandlerError: naming the line, the construct and the backends that cannot run it.
    """
    name = getattr(fn, "__name__", repr(fn))
    if not isinstance(fn, types.FunctionType):
        raise HandlerError(f"[ring handler {name}] expected a Python function, got {type(fn)}")
    req_dt = check_message_dtype(request, "request")
    rep_dt = check_message_dtype(reply, "reply")
    st_dt = None if state is None else check_state_dtype(state, name)
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        filename = inspect.getsourcefile(fn) or "<unknown>"
    except (OSError, TypeError) as exc:
        raise HandlerError(
            f"[ring handler {name}] the source of the handler is needed to compile it for "
            f"{', '.join(backends)}, but it is not available ({exc})"
        ) from exc
    # getsource starts at the first decorator, and so does co_firstlineno.
    line0 = fn.__code__.co_firstlineno
    tree = pyast.parse(source)
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        raise HandlerError(f"[ring handler {name}] expected a `def` function, got {source!r}")
    a = fdef.args
    params = "req, rep" if st_dt is None else "req, rep, state"
    if (
        len(a.args) != params.count(",") + 1
        or a.vararg
        or a.kwarg
        or a.kwonlyargs
        or a.posonlyargs
        or a.defaults
        or a.kw_defaults
    ):
        hint = ""
        if st_dt is None and len(a.args) == 3:
            hint = " (a third parameter is the kernel's state: declare it with state=)"
        raise HandlerError(
            f"[ring handler {name}] expected the signature `{name}({params})`, got "
            f"`{name}({ast.unparse(a)})`{hint}"
        )
    ctx = Ctx(
        name=name,
        filename=filename,
        line0=line0,
        backends=tuple(backends),
        req=a.args[0].arg,
        rep=a.args[1].arg,
        request=req_dt,
        reply=rep_dt,
        env=_function_env(fn),
        st=None if st_dt is None else a.args[2].arg,
        state=st_dt,
    )
    norm = Normalizer(ctx)
    body = [s for s in (norm.visit(s) for s in fdef.body) if s is not None]
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Return) and i != len(body) - 1:
            ctx.fail(stmt, "a `return` before the last statement")
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.Return) and sub is not stmt:
                ctx.fail(sub, "a `return` inside a loop")
    if not body or not isinstance(body[-1], ast.Return):
        body.append(ast.Return(value=ast.Constant(0), lineno=fdef.end_lineno or fdef.lineno))
    new = copy.copy(fdef)  # keeps every field of this Python version's FunctionDef
    new.body = body
    records = {ctx.req: req_dt, ctx.rep: rep_dt}
    if st_dt is not None and ctx.st is not None:
        records[ctx.st] = st_dt
    big = _int_beyond_int64(new)
    if big is not None:
        ctx.fail(
            big,
            f"`{ast.unparse(big)}` is an integer beyond int64, which no handler value can "
            "hold (as a status it would wrap to another code, even 0 = ok)",
        )
    bad = float_status(new, records, ctx.constants)
    if bad is not None and bad.value is not None:
        ctx.fail(
            bad,
            f"`return {ast.unparse(bad.value)}`: the status a handler returns must be an "
            "integer (0 = ok, anything else an error code), got a float expression (a "
            "status of 1.5 would be truncated to 1): compare, or return an int field",
        )
    guard_faults(new, SELECT_NAME, rep_dt, st_dt)  # faults become error replies (FAULT)
    if st_dt is not None:
        localize(new, SELECT_NAME, st_dt)  # the state is stored back on success only
    new.decorator_list = []
    new.returns = None
    ast.copy_location(new, fdef)
    ast.fix_missing_locations(new)
    ast.increment_lineno(new, line0 - 1)
    return new, ctx.constants, filename, line0


@dataclass(frozen=True)
class HandlerSpec:
    """A handler and its message types.

    Attributes:
        name: The handler's name (used in errors).
        request: Request structured dtype.
        reply: Reply structured dtype.
        function: The Python function ``function(req, rep) -> int | None`` (with a
            third parameter, the state record, when ``state`` is set).
        python: True for a pure-Python handler (any Python, CPU backend only).
        tree: The normalized definition (None for pure-Python handlers).
        constants: Numeric globals the handler reads.
        filename: Where the handler is defined.
        state: The state structured dtype of a kernel with state, else None.
    """

    name: str
    request: np.dtype
    reply: np.dtype
    function: Callable
    python: bool = False
    tree: ast.FunctionDef | None = None
    constants: dict[str, Any] = field(default_factory=dict)
    filename: str = "<unknown>"
    state: np.dtype | None = None

    @classmethod
    def create(
        cls,
        function: Callable,
        request: Any,
        reply: Any,
        *,
        python: bool = False,
        backends: tuple[str, ...] = ALL_BACKENDS,
        state: Any = None,
    ) -> HandlerSpec:
        """Validate ``function`` (unless ``python``) and bundle it with its dtypes.

        ``state`` (a structured dtype) declares a handler ``function(req, rep, state)``.
        """
        req = check_message_dtype(request, "request")
        rep = check_message_dtype(reply, "reply")
        name = getattr(function, "__name__", "handler")
        st = None if state is None else check_state_dtype(state, name)
        if python:
            if not callable(function):
                raise TypeError(f"[ring handler {name}] expected a callable, got {function!r}")
            return cls(name, req, rep, function, python=True, state=st)
        tree, constants, filename, _ = validate(function, req, rep, backends, st)
        return cls(name, req, rep, function, False, tree, constants, filename, st)

    def build(
        self, select_impl: Any = select, math_impl: Any = math, range_impl: Any = range
    ) -> Callable:
        """Return the normalized handler as a new Python function.

        Args:
            select_impl: What ``select(cond, a, b)`` calls mean (a numba-compiled ternary,
                a CUDA device function, ``mx.where``...).
            math_impl: A namespace with every ``MATH_FUNCTIONS`` name (``math`` for numba
                and numba.cuda; an object mapping to ``mlx.core`` functions for MLX).
            range_impl: What ``range(...)`` of a ``for`` loop means (an engine that runs
                the handler in Python may check for a stop request while it loops).

        Returns:
            ``handler(req, rep) -> error code`` (``handler(req, rep, state)`` with state);
            the records may be any objects with the field attributes (e.g. a batch of
            ``mx.array`` fields).
        """
        if self.tree is None:
            raise TypeError(f"[HandlerSpec.build] {self.name} is a pure-Python handler")
        module = ast.Module(body=[self.tree], type_ignores=[])
        code = pyast.compile_tree(module, self.filename)
        # A module name: numba keeps a function without one bound to its globals dict, and
        # then cannot keep its machine code on disk (pdc.ring.protocol.jitcache).
        namespace: dict[str, Any] = {
            "__name__": __name__,
            SELECT_NAME: select_impl,
            MATH_NAME: math_impl,
        }
        if range_impl is not range:  # the validator refuses a global named range
            namespace["range"] = range_impl
        namespace.update(self.constants)
        exec(code, namespace)
        return namespace[self.name]

    @property
    def source(self) -> str:
        """The normalized source (what the backends compile)."""
        return ast.unparse(self.tree) if self.tree is not None else ""


class MlxMath:
    """A ``math_impl`` for ``HandlerSpec.build`` mapping math functions to ``mlx.core``."""

    def __init__(self) -> None:
        import mlx.core as mx

        for name, mx_name in MATH_FUNCTIONS.items():
            setattr(self, name, getattr(mx, mx_name))

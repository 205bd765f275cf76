"""State that lives with a ring kernel: the private record of an actor, kept across messages.

A kernel declared with ``state=STATE`` (a structured dtype of scalar numeric fields, like
the messages) has a handler ``h(req, rep, state)`` that reads and writes ``state.<field>``
as it does ``rep.<field>``::

    STATE = np.dtype([("count", np.int64), ("total", np.float64)])

    @ring_kernel(request=REQ, reply=REP, state=STATE, initial={"total": 100.0})
    def tally(req, rep, state):
        state.count = state.count + 1
        state.total = state.total + req.x
        rep.total = state.total

The rules, the same on every backend:

* One state record per launched kernel, where its loop runs: in the cpu loop's memory, in
  host-mapped memory beside the rings on cuda (only the kernel writes it while it serves),
  in MLX arrays owned by the metal worker (mirrored into MLX memory after each batch).
  The host never sends it; it starts as ``initial`` (default: zeros).
* Messages of one kernel update it one at a time, in the order the kernel serves them
  (high lane first, FIFO within a lane): message k sees exactly the state left by the k-1
  messages served before it. On metal, where a stateless batch is one MLX computation,
  a stateful kernel runs its handler once per message, in order (see ``pdc.ring.engines.metal``).
* Commit on success: the handler works on copies of the state fields, loaded when its
  message starts; they are stored back only when it returns 0. A message whose handler
  returns an error code or faults (``pdc.ring.handlers.guards``: division by zero, NaN or overflow
  into an integer field, of the reply or of the state) leaves the state exactly as it was,
  and the kernel goes on serving.
* ``RingKernel.read_state()`` returns a copy while the kernel does not serve (launched but
  not activated, deactivated, or terminated): deactivate, read, activate. Anywhere else it
  raises ``RingStateError`` naming the kernel's state, because a copy taken while the loop
  runs could mix two messages' updates. ``RingKernel.reset_state(values)`` writes it under
  the same rule (not once terminated).

How: ``localize`` rewrites the validated handler so that every ``state.f`` is a local
variable loaded at entry (``state["f"]``), and the return becomes ``code = ...`` followed
by ``state["f"] = select(code == 0, local, state["f"])`` for every field written (a ternary
on cpu/cuda, ``mx.where`` on metal). The protocol's consumer loop
(``pdc.ring.engines.loop.make_serve``, the one loop every backend runs) takes the state
array as its last argument and passes its record to the handler as a third argument.
"""

from __future__ import annotations

import ast
import copy
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from pdc.ring.protocol import check_message_dtype

__all__ = [
    "LOCAL_PREFIX",
    "RESERVED_STATE_PREFIX",
    "check_state_dtype",
    "initial_state",
    "localize",
]

RESERVED_STATE_PREFIX = "_pdc"  # the names the runtime generates inside a handler
LOCAL_PREFIX = "_pdc_state_"  # the local copy of state field f is _pdc_state_f
_CODE = "_pdc_code"


def check_state_dtype(state: Any, name: str) -> np.dtype:
    """Return ``state`` as an aligned structured dtype of scalar numeric fields.

    Args:
        state: The ``state=`` of ``@ring_kernel``.
        name: The kernel's name (for errors).

    Raises:
        TypeError: for anything but a structured dtype of scalar bool/int/float fields.
        ValueError: for a field name starting with ``RESERVED_STATE_PREFIX``.
    """
    try:
        dt = check_message_dtype(state, "state")
    except TypeError as exc:
        raise TypeError(f"[ring_kernel {name}] state: {exc}") from None
    for field in dt.names or ():
        if field.startswith(RESERVED_STATE_PREFIX):
            raise ValueError(
                f"[ring_kernel {name}] state field {field!r}: names starting with "
                f"{RESERVED_STATE_PREFIX!r} are reserved for the names the runtime generates "
                "in a handler; rename it"
            )
    return dt


def _field_value(dtype: np.dtype, field: str, value: Any, name: str) -> Any:
    """``value`` checked against the field ``field`` of ``dtype`` (exact, no rounding)."""
    fdt = dtype.fields[field][0] if dtype.fields else dtype
    where = f"[ring_kernel {name}] initial state field {field!r}"
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if not isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
        raise TypeError(f"{where}: expected a number for a {fdt} field, got {value!r}")
    if fdt.kind == "b":
        if value not in (0, 1):
            raise ValueError(f"{where}: expected True/False (or 0/1) for a bool field, got {value}")
        return bool(value)
    if fdt.kind in "iu":
        info = np.iinfo(fdt)
        v = float(value) if isinstance(value, (float, np.floating)) else int(value)
        if isinstance(v, float) and not (math.isfinite(v) and v.is_integer()):
            raise ValueError(f"{where}: expected an integer for a {fdt} field, got {value}")
        if not info.min <= int(v) <= info.max:
            raise ValueError(
                f"{where}: expected an integer in [{info.min}, {info.max}] ({fdt}), got {value}"
            )
        return int(v)
    return float(value)


def initial_state(dtype: np.dtype, initial: Any, name: str) -> np.ndarray:
    """The initial state record as a 0-d structured array (zeros where nothing is given).

    Args:
        dtype: The checked state dtype.
        initial: None, a ``{field: value}`` mapping, or a 0-d structured array (or record)
            with exactly the state's fields.
        name: The kernel's name (for errors).

    Raises:
        TypeError: for another kind of ``initial``, or a value that is not a number.
        ValueError: for an unknown or missing field, or a value its field cannot hold.
    """
    out = np.zeros((), dtype)
    if initial is None:
        return out
    names = tuple(dtype.names or ())
    if isinstance(initial, (np.ndarray, np.void)) and initial.dtype.names is not None:
        arr = np.asarray(initial)
        if arr.shape != ():
            raise ValueError(
                f"[ring_kernel {name}] initial: expected a 0-d structured array (one record), "
                f"got shape {arr.shape}"
            )
        if set(arr.dtype.names or ()) != set(names):
            raise ValueError(
                f"[ring_kernel {name}] initial: expected the state fields {list(names)}, got "
                f"{list(arr.dtype.names or ())}"
            )
        values: Mapping[str, Any] = {f: arr[f] for f in names}
    elif isinstance(initial, Mapping):
        values = initial
    else:
        raise TypeError(
            f"[ring_kernel {name}] initial: expected None, a dict of state fields or a 0-d "
            f"structured array, got {type(initial).__name__}"
        )
    for field, value in values.items():
        if field not in names:
            raise ValueError(
                f"[ring_kernel {name}] initial: {field!r} is not a state field; the fields "
                f"are {', '.join(names)}"
            )
        out[field] = _field_value(dtype, field, value, name)
    return out


class _ToLocals(ast.NodeTransformer):
    """Replaces ``st.f`` by the local ``_pdc_state_f`` and records the fields used."""

    def __init__(self, st: str):
        self.st = st
        self.used: list[str] = []
        self.written: list[str] = []

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == self.st:
            if node.attr not in self.used:
                self.used.append(node.attr)
            if isinstance(node.ctx, ast.Store) and node.attr not in self.written:
                self.written.append(node.attr)
            return ast.copy_location(ast.Name(id=LOCAL_PREFIX + node.attr, ctx=node.ctx), node)
        return self.generic_visit(node)


def localize(fdef: ast.FunctionDef, select: str, state: np.dtype) -> ast.FunctionDef:
    """Rewrite a guarded handler ``(req, rep, state)`` to commit its state on success only.

    Args:
        fdef: The normalized, fault-guarded handler; its last statement is its ``return``.
        select: The name ``select`` calls use in ``fdef``.
        state: The state dtype.

    Returns:
        ``fdef``, rewritten in place (see the module docstring).
    """
    st = fdef.args.args[2].arg
    tr = _ToLocals(st)
    body = [tr.visit(s) for s in fdef.body]
    ret = body.pop()
    if not isinstance(ret, ast.Return) or ret.value is None:  # pragma: no cover - validated
        raise TypeError(f"[ring state] expected {fdef.name} to end with a return")

    def field(f: str, ctx: ast.expr_context) -> ast.Subscript:
        # state["f"], not state.f: numba's CUDA simulator (and np.record) read a field named
        # like a NumPy scalar attribute (mean, sum, min, size...) as that attribute.
        return ast.Subscript(value=ast.Name(id=st, ctx=ast.Load()), slice=ast.Constant(f), ctx=ctx)

    def local(f: str, ctx: ast.expr_context) -> ast.Name:
        return ast.Name(id=LOCAL_PREFIX + f, ctx=ctx)

    fields = state.names or ()
    loads = [
        ast.Assign(targets=[local(f, ast.Store())], value=field(f, ast.Load()))
        for f in fields
        if f in tr.used
    ]
    code = ast.Assign(targets=[ast.Name(id=_CODE, ctx=ast.Store())], value=ret.value)
    ok = ast.Compare(
        left=ast.Name(id=_CODE, ctx=ast.Load()), ops=[ast.Eq()], comparators=[ast.Constant(0)]
    )
    commits = [
        ast.Assign(
            targets=[field(f, ast.Store())],
            value=ast.Call(
                func=ast.Name(id=select, ctx=ast.Load()),
                args=[copy.deepcopy(ok), local(f, ast.Load()), field(f, ast.Load())],
                keywords=[],
            ),
        )
        for f in fields
        if f in tr.written
    ]
    done = ast.Return(value=ast.Name(id=_CODE, ctx=ast.Load()))
    for stmt in (*loads, code, *commits, done):
        ast.copy_location(stmt, ret)
    fdef.body = [*loads, *body, code, *commits, done]
    ast.fix_missing_locations(fdef)
    return fdef

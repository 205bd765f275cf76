"""The handler as MLX computations: what the metal engine (``pdc.ring.engines.metal``) runs.

``mlx_math`` maps the handler's ``math.<name>`` to ``mlx.core``; ``_State`` and ``_Reply``
stand in for the state and reply records while a handler is traced; ``traced_ops``
estimates the size of the graph one call traces, which decides whether the engine may
``mx.compile`` it; ``own_stream`` gives each thread its own MLX stream.
"""

from __future__ import annotations

import ast
import threading
from typing import Any

import numpy as np

from pdc.ring.handlers import MATH_FUNCTIONS, HandlerSpec, MlxMath
from pdc.ring.handlers.subset import constant_int

__all__ = [
    "COMPILE_MAX_OPS",
    "MlxReply",
    "State",
    "assigned_fields",
    "mlx_dtype",
    "mlx_math",
    "own_stream",
    "traced_ops",
]

# Most operations (loop iterations times operations per iteration) a handler may trace for
# ``mx.compile``: MLX 0.32.4 compiles a graph recursively, and a graph of 30,000 chained
# additions overflowed a thread's stack (SIGSEGV; 10,000 compiled). Larger handlers run
# uncompiled: MLX evaluates any graph size.
COMPILE_MAX_OPS = 4096


def mlx_math() -> Any:
    """The ``math`` namespace for handlers on MLX: ``math.<name>`` -> ``mlx.core`` function.

    Raises:
        TypeError: naming the metal backend and the function, for a ``math`` function with
            no MLX equivalent (the handler validator refuses those earlier).
    """
    return _StrictMath(MlxMath())


class _StrictMath:
    def __init__(self, impl: Any) -> None:
        self._impl = impl

    def __getattr__(self, name: str) -> Any:
        if name in MATH_FUNCTIONS:
            return getattr(self._impl, name)
        raise TypeError(
            f"[ring metal] math.{name} has no MLX equivalent on the metal backend (supported: "
            f"{', '.join(sorted(MATH_FUNCTIONS))})"
        )


class State:
    """The state record of one message: ``state["f"]`` reads and writes (see localize)."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def __setitem__(self, name: str, value: Any) -> None:
        self.values[name] = value


class MlxReply:
    """Collects the fields a handler assigns (``rep.y = ...``); unassigned ones read as 0."""

    def __init__(self, names: tuple[str, ...]) -> None:
        object.__setattr__(self, "_names", names)
        object.__setattr__(self, "values", {})

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._names:
            raise AttributeError(f"[ring metal] the reply has no field {name!r}")
        self.values[name] = value

    def __getattr__(self, name: str) -> Any:
        if name in self._names:
            return self.values.get(name, 0)
        raise AttributeError(f"[ring metal] the reply has no field {name!r}")


_LOCAL = threading.local()


def own_stream(mx: Any) -> Any:
    """``mx.stream(...)`` of this thread's own stream on the default device.

    MLX streams belong to the thread that made them (a new thread has no default stream),
    so the worker, and any thread that allocates rings, makes its own.
    """
    stream = getattr(_LOCAL, "stream", None)
    if stream is None:
        stream = _LOCAL.stream = mx.new_stream(mx.default_device())
    return mx.stream(stream)


def mlx_dtype(mx: Any, dt: np.dtype, gpu: bool = False) -> Any:
    """The MLX dtype a field is computed in (float32 for float64 on the Metal GPU)."""
    if gpu and dt == np.float64:
        return mx.float32
    return {"b": mx.bool_}.get(dt.kind) or getattr(mx, dt.name)


def traced_ops(handler: HandlerSpec) -> int:
    """About how many MLX operations one call of the handler traces (loops unrolled)."""

    def ops(nodes: list[ast.stmt], trips: int) -> int:
        total = 0
        for node in nodes:
            if isinstance(node, ast.For):
                bounds = [constant_int(a, handler.constants) or 0 for a in node.iter.args]  # type: ignore[attr-defined]
                total += ops(node.body, trips * max(len(range(*bounds)), 1))
                continue
            exprs = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Call, ast.BoolOp)
            total += trips * sum(isinstance(n, exprs) for n in ast.walk(node))
        return total

    return 0 if handler.tree is None else ops(handler.tree.body, 1)


def assigned_fields(tree: ast.FunctionDef, names: tuple[str, ...]) -> tuple[str, ...]:
    """The reply fields (of ``names``) a normalized handler assigns, read from its source.

    Handlers have no ``if`` on this backend, so every call assigns the same fields; the
    handler is never run just to find them (a long loop would run once more).
    """
    rep = tree.args.args[1].arg
    assigned = {
        t.attr
        for node in ast.walk(tree)
        if isinstance(node, (ast.Assign, ast.AugAssign))
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == rep
    }
    return tuple(n for n in names if n in assigned)

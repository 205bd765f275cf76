"""NumPy values a notebook's constant may be, read from its syntax (pdc.grade.source).

``np.array([16, 8, 4, 2, 1], dtype=np.int32)`` (numba freezes a global array into the kernel as
a constant, which ``cuda.const.array_like`` reads), a table built by NumPy's constructors
(``np.repeat(np.arange(HALO), HALO).astype(np.int32)``, ``np.full((5, 5), 1 / 25,
dtype=np.float32)``: ``array_call``), and the limits of a NumPy type
(``np.finfo(np.float32).min``). Nothing of the notebook is run: the grader calls NumPy
itself, on values it computed, with sizes capped at ``MAX_ARRAY`` elements.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import numpy as np

from pdc.grade import imports as jitkinds

#: The scalar types a constant may hold.
NUMBER = (int, float, bool, np.number, np.bool_)
MAX_ARRAY = 16384  # elements of a NumPy array constant (64 KiB of float32: constant memory)
#: The limits of a NumPy type a constant may read.
LIMITS: dict[str, tuple[str, ...]] = {
    "numpy.finfo": ("min", "max", "eps", "tiny", "smallest_normal", "resolution"),
    "numpy.iinfo": ("min", "max"),
}

Resolve = Callable[[ast.AST], "str | None"]  # the full path a name or attribute stands for


def dtype_named(node: ast.AST, resolve: Resolve) -> np.dtype | None:
    """The dtype a NumPy or numba scalar type, or a string naming one, stands for."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        name = node.value
    else:
        mod, _, name = (resolve(node) or "").rpartition(".")
        if mod.split(".")[0] not in ("numpy", "numba") or name not in jitkinds.DTYPE_NAMES:
            return None
    try:
        return np.dtype(name)
    except TypeError:
        return None


def type_limit(node: ast.Attribute, resolve: Resolve) -> Any:
    """``np.finfo(np.float32).min``, ``np.iinfo(np.int32).max``: its value, else None."""
    call = node.value
    if not isinstance(call, ast.Call) or len(call.args) != 1 or call.keywords:
        return None
    kind = resolve(call.func) or ""
    if node.attr not in LIMITS.get(kind, ()):
        return None
    dt = dtype_named(call.args[0], resolve)
    if dt is None or dt.kind not in ("f" if kind == "numpy.finfo" else "iu"):
        return None
    info = np.finfo(dt) if kind == "numpy.finfo" else np.iinfo(dt)
    return getattr(info, node.attr)  # what the notebook binds: a float32 for finfo, an int


def array_literal(
    node: ast.Call, resolve: Resolve, number: Callable[[ast.AST], Any]
) -> np.ndarray | None:
    """``np.array([[...], ...], dtype=np.int32)`` (or ``np.array([...], np.int32)``) as a
    read-only array, else None.

    Args:
        node: The call.
        resolve: The full path of a name or attribute, through the notebook's imports.
        number: The value of a constant expression, or None where it is not a number.
    """
    if (resolve(node.func) or "") not in ("numpy.array", "numpy.asarray"):
        return None
    # The dtype by keyword or, as NumPy's signature allows, as the second positional argument.
    given = node.args[1:] + [kw.value for kw in node.keywords]
    if not 1 <= len(node.args) <= 2 or any(kw.arg != "dtype" for kw in node.keywords):
        return None
    if len(given) > 1:
        return None
    dtype = None
    for value in given:
        if (dtype := dtype_named(value, resolve)) is None:
            return None
    count = 0

    def nested(n: ast.AST) -> Any:
        nonlocal count
        if isinstance(n, ast.List | ast.Tuple):
            items = [nested(e) for e in n.elts]
            return None if any(v is None for v in items) else items
        count += 1
        return number(n) if count <= MAX_ARRAY else None

    data = nested(node.args[0])
    if data is None:
        return None
    try:
        arr = np.array(data, dtype=dtype)
    except (TypeError, ValueError, OverflowError):
        return None  # ragged rows, or a value the dtype cannot hold
    if arr.size == 0 or arr.dtype.kind not in "biuf" or not np.isfinite(arr).all():
        return None
    arr.flags.writeable = False
    return arr


#: NumPy constructors a table may be built with: name -> positional parameters after which
#: ``dtype`` may come by keyword (``np.arange(0, 8, 2, dtype=np.int32)``).
CONSTRUCTORS = {
    "numpy.arange": 3,
    "numpy.zeros": 1,
    "numpy.ones": 1,
    "numpy.full": 2,
    "numpy.linspace": 3,
    "numpy.repeat": 2,
    "numpy.tile": 2,
    "numpy.eye": 3,
    "numpy.outer": 2,
    "numpy.flip": 1,
    "numpy.cumsum": 1,
}
#: Methods of an array constant a table may call, and how many positional arguments each takes.
METHODS = {"astype": 1, "reshape": 6, "ravel": 0, "flatten": 0, "copy": 0, "cumsum": 0}


def _size_ok(v: Any) -> bool:
    if isinstance(v, (tuple, list)):
        return all(_size_ok(x) for x in v) and len(v) <= MAX_ARRAY
    if isinstance(v, np.ndarray):
        return v.size <= MAX_ARRAY
    return isinstance(v, NUMBER)


def _planned(name: str, args: list) -> bool:
    """True where the call's result stays within ``MAX_ARRAY`` elements (checked before
    NumPy allocates it: ``np.zeros(10**12)`` would stop the grader)."""

    def count(shape: Any) -> int:
        dims = shape if isinstance(shape, tuple) else (shape,)
        if not all(isinstance(d, (int, np.integer)) and 0 <= d <= MAX_ARRAY for d in dims):
            return MAX_ARRAY + 1
        return int(np.prod(dims, dtype=np.int64))

    try:
        if name in ("numpy.zeros", "numpy.ones", "numpy.full"):
            return count(args[0]) <= MAX_ARRAY
        if name == "numpy.eye":
            return count(args[0]) * count(args[1] if len(args) > 1 else args[0]) <= MAX_ARRAY
        if name == "numpy.arange":
            start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args[:2], 1)
            step = args[2] if len(args) == 3 else step
            return step != 0 and 0 <= (stop - start) / step <= MAX_ARRAY
        if name == "numpy.linspace":
            return len(args) < 3 or 0 <= args[2] <= MAX_ARRAY
        if name in ("numpy.repeat", "numpy.tile", "numpy.outer"):
            a, b = (np.asarray(x) for x in args)
            reps = int(np.prod(b)) if name == "numpy.tile" else int(np.max(b, initial=0))
            return a.size * max(reps, b.size if name == "numpy.outer" else 1) <= MAX_ARRAY
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def array_call(node: ast.Call, resolve: Resolve, value: Callable[[ast.AST], Any]) -> Any:
    """A table built by NumPy: ``np.arange``, ``np.full``, ``np.repeat``, ``np.tile``, ... of
    values computed from the syntax, or a method of such an array (``.astype(np.int32)``,
    ``.reshape(...)``); a read-only array of at most ``MAX_ARRAY`` finite elements, else None.

    Args:
        node: The call.
        resolve: The full path of a name or attribute, through the notebook's imports.
        value: The value of a constant expression (number, tuple, array), or None.
    """
    f = node.func
    kws = {kw.arg: kw.value for kw in node.keywords}
    if set(kws) - {"dtype", "axis"}:
        return None
    attr = f.attr if isinstance(f, ast.Attribute) else ""
    method = attr in METHODS and resolve(f) is None
    name = "" if method else resolve(f) or ""
    if not method and name not in CONSTRUCTORS:
        return None
    given = list(node.args)
    if method and attr == "astype" and len(given) == 1 and not kws:
        kws, given = {"dtype": given[0]}, []
    elif not method and len(given) == CONSTRUCTORS[name] + 1:  # np.ones(SHAPE, np.float32)
        kws, given = {**kws, "dtype": given[-1]}, given[:-1]
    dtype = None
    if "dtype" in kws and (dtype := dtype_named(kws["dtype"], resolve)) is None:
        return None
    args = [value(a) for a in given]
    if any(a is None or not _size_ok(a) for a in args):
        return None
    axis = value(kws["axis"]) if "axis" in kws else None
    if "axis" in kws and not isinstance(axis, int):
        return None
    extra: dict = {"dtype": dtype} if "dtype" in kws else {}
    if "axis" in kws:
        extra["axis"] = axis
    try:
        with np.errstate(all="raise"):
            if method:
                assert isinstance(f, ast.Attribute)
                base = value(f.value)
                if not isinstance(base, np.ndarray) or len(args) > METHODS[attr]:
                    return None
                if attr == "astype":
                    out = base.astype(dtype) if dtype is not None else None
                elif attr == "reshape":
                    out = base.reshape(args[0] if len(args) == 1 else tuple(args))
                else:
                    out = getattr(base, attr)(**extra)
            else:
                if len(args) > CONSTRUCTORS[name] or not _planned(name, args):
                    return None
                out = getattr(np, name.rpartition(".")[2])(*args, **extra)
    except (TypeError, ValueError, OverflowError, ArithmeticError, FloatingPointError):
        return None
    if not isinstance(out, np.ndarray) or not 0 < out.size <= MAX_ARRAY:
        return None
    if out.dtype.kind not in "biuf" or not np.isfinite(out).all():
        return None
    out = np.ascontiguousarray(out)
    out.flags.writeable = False
    return out

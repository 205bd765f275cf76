"""NumPy values a notebook's constant may be, read from its syntax (pdc.grade.source).

``np.array([16, 8, 4, 2, 1], dtype=np.int32)`` (numba freezes a global array into the kernel as
a constant, which ``cuda.const.array_like`` reads), and the limits of a NumPy type
(``np.finfo(np.float32).min``). Nothing is run: the values are built from literal numbers.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import numpy as np

from pdc.grade import imports as jitkinds

MAX_ARRAY = 4096  # elements of a literal NumPy array constant
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

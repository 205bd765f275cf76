"""Checks of the plain arguments of ring operations: timeouts, counts, ids.

Each raises ``TypeError`` (wrong type) or ``ValueError`` (wrong value) naming the
operation, the kernel, the argument, what it expected and what it got, before anything
is sent, taken or waited for.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = ["count_arg", "field_value", "id_arg", "seconds_arg"]


def _where(op: str, kernel_id: str | None) -> str:
    return f"[{op} {kernel_id}]" if kernel_id else f"[{op}]"


def seconds_arg(
    op: str, kernel_id: str | None, name: str, value: Any, *, none: bool = True
) -> float | None:
    """``value`` as seconds: a finite number >= 0 (or None where ``none``)."""
    if value is None and none:
        return None
    kind = type(value)
    if (kind is float or kind is int) and 0 <= value < math.inf:  # the common case, fast
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        expected = "a number of seconds >= 0" + (" or None" if none else "")
        raise TypeError(
            f"{_where(op, kernel_id)} expected {name} {expected}, got "
            f"{type(value).__name__} {value!r}"
        )
    seconds = float(value)
    if not (math.isfinite(seconds) and seconds >= 0):
        raise ValueError(
            f"{_where(op, kernel_id)} expected {name} a finite number of seconds >= 0, got "
            f"{value!r}"
        )
    return seconds


def count_arg(op: str, kernel_id: str | None, name: str, value: Any, *, least: int = 0) -> int:
    """``value`` as a count: an integer >= ``least`` (not a bool, not a float)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{_where(op, kernel_id)} expected {name} an integer >= {least}, got "
            f"{type(value).__name__} {value!r}"
        )
    n = int(value)
    if n < least:
        raise ValueError(f"{_where(op, kernel_id)} expected {name} >= {least}, got {n}")
    return n


def id_arg(op: str, kernel_id: str, value: Any) -> int:
    """``value`` as a correlation id: an integer >= 1."""
    return count_arg(op, kernel_id, "corr_id", value, least=1)


def field_value(op: str, kernel_id: str, field: str, fdt: np.dtype, value: Any) -> Any:
    """``value`` checked against one message field of dtype ``fdt`` (exact, no rounding).

    Raises:
        TypeError: a value that is not a number of the field's kind (a float for an
            integer field, a string, None, a list...).
        ValueError: a number the field cannot hold (out of range, too large for float32,
            not 0/1 for a bool).
    """
    where = f"[{op} {kernel_id}] field {field!r} ({fdt})"
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if not isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
        raise TypeError(f"{where}: expected a number, got {type(value).__name__} {value!r}")
    if fdt.kind == "b":
        if isinstance(value, (float, np.floating)) or value not in (0, 1):
            raise ValueError(f"{where}: expected True/False (or 0/1), got {value!r}")
        return bool(value)
    if fdt.kind in "iu":
        if isinstance(value, (float, np.floating)):
            raise TypeError(f"{where}: expected an integer, got float {value!r}")
        info = np.iinfo(fdt)
        if not info.min <= int(value) <= info.max:
            raise ValueError(
                f"{where}: expected an integer in [{info.min}, {info.max}], got {value!r}"
            )
        return int(value)
    if fdt.kind == "f":
        v = float(value)
        top = float(np.finfo(fdt).max)
        if math.isfinite(v) and abs(v) > top:
            raise ValueError(f"{where}: expected a number of magnitude <= {top:.6g}, got {value!r}")
        return v
    return value

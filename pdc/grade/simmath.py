"""``math`` as a GPU computes it: IEEE-754 results where Python's ``math`` raises.

On the device ``math.exp(1000.0)`` is ``inf``, ``math.log(0.0)`` is ``-inf`` and
``math.sqrt(-1.0)`` is ``nan``; Python's ``math`` raises ``OverflowError`` or
``ValueError`` instead. The simulator gives kernels this module in place of ``math``, so an
unstable softmax fails the way it fails on a GPU (``inf / inf = nan`` in the output)
rather than with an exception a GPU would never raise. Only the raising cases are changed:
every call first runs Python's own function, so ordinary results are bit for bit the same.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable

import numpy as np

__all__ = ["GPU_MATH", "gpu_math_function"]


def _log(x, base=None):
    if base is None:
        return np.log(x)
    return np.log(x) / np.log(base)


# Functions whose Python versions raise where IEEE-754 (and CUDA's libdevice) return
# inf or nan, with the NumPy ufunc that returns the IEEE result.
_IEEE: dict[str, Callable] = {
    "exp": np.exp,
    "exp2": np.exp2,
    "expm1": np.expm1,
    "log": _log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "sqrt": np.sqrt,
    "pow": np.power,
    "cosh": np.cosh,
    "sinh": np.sinh,
    "acos": np.arccos,
    "asin": np.arcsin,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "ldexp": np.ldexp,
    "fmod": np.fmod,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
}


def _ieee(name: str) -> Callable:
    python, numpy_fn = getattr(math, name), _IEEE[name]

    def fn(*args):
        try:
            return python(*args)
        except (OverflowError, ValueError):
            with np.errstate(all="ignore"):
                return float(numpy_fn(*(float(a) for a in args)))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``math.{name}`` with the GPU's inf and nan where Python raises."
    return fn


GPU_MATH = types.SimpleNamespace(
    **{n: _ieee(n) if n in _IEEE else getattr(math, n) for n in dir(math) if n[0] != "_"}
)


def gpu_math_function(value: object) -> object | None:
    """The GPU version of ``value`` when it is ``math`` or one of its functions, else None."""
    if value is math:
        return GPU_MATH
    if getattr(value, "__self__", None) is math:
        return getattr(GPU_MATH, value.__name__, None)  # type: ignore[attr-defined]
    return None

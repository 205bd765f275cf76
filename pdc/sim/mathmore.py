"""Scalar functions numba-cuda compiles beyond pdc.sim.arith's table, and builtins over tuples.

numba-cuda lowers ``math.gamma``, ``math.frexp``, ``np.deg2rad``, ``np.bitwise_and``,
``np.greater``... on scalars (pdc.sim.arith computes them in the signature's types from
this table), and ``min``, ``max`` and ``sum`` of a tuple (``max(img.shape)``): the
elements in order, as Python compares and adds them.
"""

from __future__ import annotations

import math

import numpy as np


def _elementwise(f, otype=np.float64, special=None):
    """``f`` of the math module on each element (NumPy has no such ufunc). ``special``: the
    value where Python raises and a GPU returns a number (gamma(0) = inf)."""

    def one(*vals):
        try:
            return f(*vals)
        except OverflowError:
            return math.inf
        except ValueError:
            return special(*vals) if special else math.nan

    vec = np.vectorize(one, otypes=[otype])

    def run(*args):
        out = vec(*args)
        return out if out.ndim else out[()]

    return run


def _gamma_pole(v):
    return math.copysign(math.inf, v) if v == 0 else math.nan


TABLE = {
    "arcsinh": np.arcsinh,
    "arccosh": np.arccosh,
    "arctanh": np.arctanh,
    "deg2rad": np.deg2rad,
    "rad2deg": np.rad2deg,
    "conjugate": np.conjugate,
    "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
    "invert": np.invert,
    "left_shift": np.left_shift,
    "right_shift": np.right_shift,
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
    "logical_not": np.logical_not,
    "nextafter": np.nextafter,
    "erfc": _elementwise(math.erfc),
    "gamma": _elementwise(math.gamma, special=_gamma_pole),
    "tgamma": _elementwise(math.gamma, special=_gamma_pole),
    "lgamma": _elementwise(math.lgamma, special=lambda v: math.inf),
    "remainder": _elementwise(math.remainder),  # IEEE: math's and libdevice's, not np's
    # (mantissa, exponent) and (fraction, integer part): tuples, each cast to its type
    "frexp": np.frexp,
    "modf": np.modf,
}


def of_a_tuple(fn, sig) -> bool:
    """Whether a call of builtin ``fn`` takes one tuple (and, for sum, maybe a start)."""
    from numba.core import types as nt

    if fn not in (min, max, sum) or not sig.args or not isinstance(sig.args[0], nt.BaseTuple):
        return False
    return len(sig.args) == 1 or fn is sum


def over_tuple(fn, tr, cast):
    """``min(t)``, ``max(t)``, ``sum(t[, start])`` of a tuple ``t``: its elements in order, each
    cast to the result's dtype ``tr`` (``cast`` is pdc.sim.arith's), as Python compares (the
    first of equal values) and adds them."""

    def run(t, start=0):
        if fn is sum:
            out = cast(start, tr)
            for v in t:
                out = cast(np.add(out, cast(v, tr)), tr)
            return out
        vals = [cast(v, tr) for v in t]
        out = vals[0]
        for v in vals[1:]:
            out = np.where(v < out, v, out) if fn is min else np.where(v > out, v, out)
        return cast(out, tr)

    return run

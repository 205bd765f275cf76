"""Arithmetic as numba-cuda compiles it: the operand and result types of numba's signature.

Every operator and math call comes with numba's signature for it (``calltypes``): the types
it converts its operands to and the type of its result. Computing in exactly those NumPy
dtypes gives the GPU's numerics by construction: int32 wraps, a uint8 plus an int64 is an
int64 (numba widens where NumPy 2 would keep uint8), float32 stays float32 through
``math.exp`` (so it overflows at 88.7, as ``expf`` does), and float division follows the
NumPy error model numba-cuda uses (x / 0.0 is inf or nan, never an exception). Integer
division or remainder by zero is reported (pdc.sim.machine) and yields 0.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from pdc.sim.frontend import Unsupported, dtype_of


def cast(v, dtype: np.dtype):
    """``v`` (vector or scalar) as ``dtype``, the way LLVM's conversions do it."""
    a = np.asarray(v)
    if a.dtype == dtype:
        return v
    if dtype.kind in "iu" and a.dtype.kind == "f":
        # fptosi/fptoui: truncation toward zero; out-of-range values are undefined in LLVM.
        with np.errstate(all="ignore"):
            return np.trunc(a).astype(dtype, copy=False) if a.ndim else dtype.type(np.trunc(a))
    if dtype.kind == "b":
        return a != 0 if a.ndim else np.bool_(a != 0)
    return a.astype(dtype, copy=False) if a.ndim else dtype.type(a)


def _int_divisor(a, b):
    """``b`` where it divides ``a`` (1 elsewhere), and where it does.

    Zero never does; nor does -1 under the lowest signed value, whose quotient overflows:
    numba's signed divmod yields 0 and 0 there, as for a zero divisor.
    """
    ok = b != 0
    if a.dtype.kind == "i":
        ok = ok & ~((a == np.iinfo(a.dtype).min) & (b == -1))
    return np.where(ok, b, 1), ok


def _floordiv(a, b):
    if a.dtype.kind in "iu":
        d, ok = _int_divisor(a, b)
        return np.floor_divide(a, d) * ok
    return np.floor_divide(a, b)


def _mod(a, b):
    if a.dtype.kind in "iu":
        d, ok = _int_divisor(a, b)
        return np.remainder(a, d) * ok
    return np.remainder(a, b)


def _truediv(a, b):
    return np.true_divide(a, b)


def _pow(a, b):
    """``a ** b`` with a float exponent: C's ``pow``, as numba's ``llvm.pow``/libdevice call.

    NumPy's loop takes a shortcut for a broadcast exponent of 0.5 (a square root: ``-inf **
    0.5`` is nan, not C's inf), so both operands go in as full arrays.
    """
    shape = np.broadcast(a, b).shape
    full = shape or (1,)
    r = np.power(np.array(np.broadcast_to(a, full)), np.array(np.broadcast_to(b, full)))
    return r if shape else r[0]


def int_power(a, b, tr: np.dtype):
    """``a ** b`` with an integer exponent as numba lowers it (int_power_impl): square and
    multiply in the result type (a float base rounds at every product, unlike ``pow``); a
    negative exponent inverts: ``1.0 / r`` for floats, and for integers 0 unless the base is
    1 or -1, with ``0 ** -n`` the type's most negative value (numba's numpy error model).

    Returns:
        The result and, per element, the exception numba raises there (``POW_RAISES``; 0:
        none): numba compiles the float ``1.0 / r`` as an internal function with Python's
        error model, so a zero ``r`` (a zero base, or an underflow) raises
        ZeroDivisionError, and the most negative exponent of its type raises
        OverflowError. On a GPU that thread returns.
    """
    a = np.asarray(cast(a, tr))
    b = np.asarray(b)
    e = b.astype(np.int64)
    neg = e < 0
    # numba negates in the exponent's own type: -(-2**31) of an int32 is negative again
    overflow = b == np.iinfo(b.dtype).min if b.dtype.kind == "i" else np.zeros(e.shape, bool)
    mag = np.abs(np.where(overflow, 0, e))
    r = np.ones(np.broadcast(a, e).shape, tr)
    base = np.broadcast_to(a, r.shape).copy()
    left = np.broadcast_to(np.minimum(mag, 0x10001), r.shape).copy()
    with np.errstate(all="ignore"):
        while left.any():
            r = np.where(left & 1 != 0, r * base, r)
            left >>= 1
            base = base * base
        if tr.kind == "f":
            zero_div = neg & (r == 0) & ~overflow
            r = np.where(neg, tr.type(1) / np.where(zero_div, 1, r), r)
            big = mag > 0x10000  # numba's cutoff: math.pow(a, float(b)), no inversion
            if big.any():
                r = np.where(big, np.power(a.astype(np.float64), e).astype(tr), r)
                zero_div = zero_div & ~big
            return r, np.where(overflow, 2, np.where(zero_div, 1, 0)).astype(np.int8)
    zero = -1 << (tr.itemsize * 8 - 1)
    inv = np.where(a == 0, np.array(zero).astype(tr), np.where((a == 1) | (a == -1), r, 0))
    r = np.where(neg, inv.astype(tr), r)
    big = mag > 0x10000  # numba's cutoff: math.pow(a, float(b)) as an integer
    if big.any():
        with np.errstate(all="ignore"):
            r = np.where(big, cast(np.power(a.astype(np.float64), e.astype(np.float64)), tr), r)
    return r, np.where(overflow, 2, 0).astype(np.int8)


POW_RAISES = {
    1: "ZeroDivisionError('0.0 cannot be raised to a negative power')",
    2: "OverflowError (the most negative exponent of its type)",
}


def _shift(f):
    def op(a, b):
        bits = a.dtype.itemsize * 8
        return f(a, np.where((b < 0) | (b >= bits), 0, b).astype(a.dtype))

    return op


BINOPS = {
    operator.add: np.add,
    operator.sub: np.subtract,
    operator.mul: np.multiply,
    operator.truediv: _truediv,
    operator.floordiv: _floordiv,
    operator.mod: _mod,
    operator.pow: _pow,
    operator.and_: np.bitwise_and,
    operator.or_: np.bitwise_or,
    operator.xor: np.bitwise_xor,
    operator.lshift: _shift(np.left_shift),
    operator.rshift: _shift(np.right_shift),
    operator.lt: np.less,
    operator.le: np.less_equal,
    operator.gt: np.greater,
    operator.ge: np.greater_equal,
    operator.eq: np.equal,
    operator.ne: np.not_equal,
}
INPLACE = {
    operator.iadd: operator.add,
    operator.isub: operator.sub,
    operator.imul: operator.mul,
    operator.itruediv: operator.truediv,
    operator.ifloordiv: operator.floordiv,
    operator.imod: operator.mod,
    operator.ipow: operator.pow,
    operator.iand: operator.and_,
    operator.ior: operator.or_,
    operator.ixor: operator.xor,
    operator.ilshift: operator.lshift,
    operator.irshift: operator.rshift,
}
DIVISIONS = (operator.floordiv, operator.mod)
COMPARISONS = (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne)


def binop(fn, sig):
    """A function of two vectors computing ``fn`` in numba's types for signature ``sig``."""
    fn = INPLACE.get(fn, fn)
    impl = BINOPS.get(fn)
    if impl is None:
        raise Unsupported(f"the simulator does not support the operator {fn.__name__} yet")
    ta, tb = (dtype_of(t) for t in sig.args)
    tr = dtype_of(sig.return_type)
    if fn is operator.pow and ta.kind in "iuf" and tb.kind in "iu":

        def checked(a, b):
            r, raises = int_power(a, cast(b, tb), tr)
            if np.ndim(a) or np.ndim(b):
                return r, raises
            return tr.type(r.reshape(-1)[0]), raises

        def power(a, b):
            return checked(a, b)[0]

        power.checked = checked  # type: ignore[attr-defined]
        return power
    if fn not in COMPARISONS and fn is not operator.pow and tr.kind != "b":
        # numba's lowering converts both operands to the result type first (int_add_impl,
        # int_shl_impl...): an int16 shifted by an int64 shifts in 64 bits, and an int64
        # and a uint64 add as two int64s, wrapping, where NumPy would compute in float64
        ta = tb = tr

    def run(a, b):
        return cast(impl(cast(a, ta), cast(b, tb)), tr)

    run.int_division = fn in DIVISIONS and ta.kind in "iu"  # type: ignore[attr-defined]
    return run


UNARY = {
    operator.neg: np.negative,
    operator.pos: np.positive,
    operator.invert: np.invert,
    operator.not_: np.logical_not,
}


def unary(fn, sig):
    impl = UNARY.get(fn)
    if impl is None:
        raise Unsupported(f"the simulator does not support the operator {fn} yet")
    ta = dtype_of(sig.args[0])
    tr = dtype_of(sig.return_type)
    if fn is operator.invert and ta.kind == "b":
        impl = np.logical_not  # numba: ~True is -2 as int; its signature says which
        if tr.kind != "b":
            return lambda a: cast(~cast(a, np.dtype(np.int64)), tr)
    if ta.kind == "b" and fn in (operator.neg, operator.pos) and tr.kind != "b":
        ta = tr  # numba's bool_negate_impl: to the result type (int64), then negate
    return lambda a: cast(impl(cast(a, ta)), tr)


# -- math: libdevice's functions, computed by NumPy in the signature's dtype ---------------
def _np(name):
    return getattr(np, name)


_MATH = {
    "exp": np.exp,
    "exp2": np.exp2,
    "expm1": np.expm1,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "sqrt": np.sqrt,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "atan2": np.arctan2,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "fabs": np.fabs,
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "copysign": np.copysign,
    "hypot": np.hypot,
    "pow": np.power,
    "fmod": np.fmod,
    "isnan": np.isnan,
    "isinf": np.isinf,
    "isfinite": np.isfinite,
    "erf": None,
    "degrees": np.degrees,
    "radians": np.radians,
    "remainder": None,
    "ldexp": np.ldexp,
    "fmax": np.fmax,
    "fmin": np.fmin,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "cbrt": np.cbrt,
    "abs": np.abs,
    "minimum": np.minimum,
    "maximum": np.maximum,
    "absolute": np.abs,
    "exp10": lambda x: np.power(x.dtype.type(10), x),
    "round": np.rint,
    "rint": np.rint,
    "nearbyint": np.rint,
    "sign": np.sign,
    "square": np.square,
    "reciprocal": np.reciprocal,
    "negative": np.negative,
    "fma": lambda a, b, c: fma(a, b, c),
    "signbit": np.signbit,
    "arcsin": np.arcsin,
    "arccos": np.arccos,
    "arctan": np.arctan,
    "arctan2": np.arctan2,
    "power": np.power,
    "float_power": np.float_power,
    "true_divide": np.true_divide,
    "divide": np.true_divide,
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
}


def fma(a, b, c):
    """``a * b + c`` rounded once, as the GPU's fma instruction does (two roundings differ).

    float32: the product is exact in float64; the float64 sum is rounded to odd (its error
    from TwoSum), so rounding that to float32 is the correctly rounded fused result.
    float64 has no wider type here: it keeps two roundings (at most one ulp apart).
    """
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    dt = np.result_type(a, b, c)
    if dt != np.float32:
        return a * b + c
    p = a.astype(np.float64) * b.astype(np.float64)
    c64 = c.astype(np.float64)
    with np.errstate(all="ignore"):
        s = np.asarray(p + c64)
        bb = s - p
        err = (p - (s - bb)) + (c64 - bb)
        even = (s.view(np.int64) & 1) == 0
        fix = (err != 0) & even & np.isfinite(s)
        s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    r = s.astype(np.float32)
    return r if r.ndim else np.float32(r)


def _erf(x):
    v = np.vectorize(math.erf, otypes=[np.float64])(x)
    return v.astype(x.dtype) if x.ndim else x.dtype.type(v)


def math_function(name: str, sig):
    """``math.<name>``, ``np.<name>`` or ``cuda.libdevice.<name>`` for numba's signature."""
    from pdc.sim import libdevice, mathmore

    def lookup(key):
        if _MATH.get(key) is not None:
            return _MATH[key]
        return mathmore.TABLE.get(key, libdevice.TABLE.get(key))

    base = name
    if base.startswith("fast_"):
        base = base[5:]
    impl = lookup(base)
    known = set(_MATH) | set(mathmore.TABLE) | set(libdevice.TABLE)
    if impl is None and base.endswith("f") and base[:-1] in known:
        base = base[:-1]  # libdevice's float32 spellings: expf, sqrtf, fmaxf
        impl = lookup(base)
    if base == "erf":
        impl = _erf
    if impl is None:
        raise Unsupported(f"the simulator does not support {name}() yet")
    targs = [dtype_of(t) for t in sig.args]
    if not _scalar(sig.return_type):  # frexp, modf: a tuple, each element in its type
        trs = [dtype_of(t) for t in sig.return_type.types]

        def run_tuple(*args):
            vals = [cast(a, t) for a, t in zip(args, targs)]
            with np.errstate(all="ignore"):
                return tuple(cast(v, t) for v, t in zip(impl(*vals), trs))

        return run_tuple
    tr = dtype_of(sig.return_type)

    def run(*args):
        vals = [cast(a, t) for a, t in zip(args, targs)]
        with np.errstate(all="ignore"):
            return cast(impl(*vals), tr)

    return run


def builtin(fn, sig):
    """Python builtins numba-cuda compiles on scalars: abs, min, max, round, int, float..."""
    tr = dtype_of(sig.return_type) if _scalar(sig.return_type) else None
    targs = [dtype_of(t) if _scalar(t) else None for t in sig.args]

    def conv(args):
        return [cast(a, t) if t is not None else a for a, t in zip(args, targs)]

    if fn is abs:
        return lambda a: cast(np.abs(conv([a])[0]), tr)
    from pdc.sim import mathmore

    if mathmore.of_a_tuple(fn, sig):  # max(img.shape), sum(t): over a tuple's elements
        return mathmore.over_tuple(fn, tr, cast)
    if fn in (min, max):

        def mm(*args):
            vals = conv(args)
            out = vals[0]
            for v in vals[1:]:
                # Python semantics: the first of equal values; NaN compares false.
                out = np.where(v < out, v, out) if fn is min else np.where(v > out, v, out)
            return cast(out, tr)

        return mm
    if fn is complex and len(sig.args) == 2:  # complex(re, im)
        return lambda a, b: cast(np.asarray(a) + 1j * np.asarray(b), tr)
    if fn in (int, float, bool, complex):
        return lambda a: cast(conv([a])[0], tr)
    if fn is round:
        if len(sig.args) == 1:
            return lambda a: cast(np.rint(conv([a])[0]), tr)
        return lambda a, nd: cast(_round_ndigits(conv([a])[0], np.asarray(nd)), tr)
    if fn is pow:
        f = binop(operator.pow, sig)
        return f
    if fn is divmod:
        ta = targs[0]

        def dm(a, b):
            a, b = cast(a, ta), cast(b, ta)
            return (_floordiv(np.asarray(a), np.asarray(b)), _mod(np.asarray(a), np.asarray(b)))

        return dm
    raise Unsupported(f"the simulator does not support {getattr(fn, '__name__', fn)}() yet")


def _round_ndigits(x, nd):
    """``round(x, ndigits)`` as numba-cuda compiles it: CPython's fallback algorithm in
    float64 (a power of ten, rint, halves to even), NaN and infinities kept as they are."""
    x = np.asarray(x, np.float64)
    nd = np.asarray(nd, np.int64)
    with np.errstate(all="ignore"):
        pos = nd >= 0
        pow1 = 10.0 ** np.where(nd > 22, nd - 22, np.abs(nd)).astype(np.float64)
        pow2 = np.where(nd > 22, 1e22, 1.0)
        y = np.where(pos, (x * pow1) * pow2, x / pow1)
        z = np.rint(y)
        z = np.where(np.abs(y - z) == 0.5, 2.0 * np.rint(y / 2.0), z)
        z = np.where(pos, (z / pow2) / pow1, z * pow1)
        keep = ~np.isfinite(x) | (pos & np.isinf(y))
        return np.where(keep, x, z)


def _scalar(t) -> bool:
    from pdc.sim.frontend import is_scalar

    return is_scalar(t)

"""``cuda.libdevice`` functions beyond the math module's names (pdc.sim.arith's table).

Each is computed by NumPy in the dtypes of numba's signature (pdc.sim.arith casts the
arguments and the result), as libdevice defines it:

- arithmetic rounded to nearest (``fadd_rn``, ``dmul_rn``, ``fdiv_rn``, ``fsqrt_rn``,
  ``fmaf_rn``): the IEEE operation of the dtype, which NumPy performs;
- conversions float -> integer with a rounding (``float2int_rn``/``rz``/``rd``/``ru``):
  PTX's ``cvt.rni``/``rzi``/``rmi``/``rpi``, which saturate out-of-range values and give 0
  for NaN; reinterpretations (``float_as_int``): the same bits seen in another type;
- integer helpers (``popc``, ``clz``, ``ffs``, ``brev``, ``mulhi``, ``mul24``, ``rhadd``,
  ``sad``, ``min``/``max`` and their unsigned and 64-bit forms).

The directed roundings of arithmetic (``fadd_rz``, ``fmul_ru``, ...) are not here: NumPy
rounds to nearest only, and the simulator says so rather than guess.
"""

from __future__ import annotations

import numpy as np

from pdc.sim import arith


def _convert(rounding, out: str):
    """float -> integer dtype ``out``: round, saturate to the dtype's range, NaN -> 0."""
    info = np.iinfo(out)
    lo, hi = float(info.min), float(info.max)  # 2**63 - 1 rounds up to 2**63: still the top

    def run(x):
        r = rounding(np.asarray(x, np.float64))
        over, under, nan = r >= hi, r <= lo, np.isnan(r)
        safe = np.where(over | under | nan, 0, r).astype(out)
        v = np.where(over, info.max, np.where(under, info.min, safe)).astype(out)
        return v if v.ndim else v[()]

    return run


def _view(src: str, dst: str):
    def run(x):
        v = np.asarray(x, src).view(dst)
        return v if v.ndim else v[()]

    return run


def _unsigned(x) -> np.ndarray:
    x = np.asarray(x)
    return x.astype(f"u{x.dtype.itemsize}")


def _popc(x):
    return np.bitwise_count(_unsigned(x)).astype(np.int32)


def _clz(x):
    ux = _unsigned(x)
    bits = ux.dtype.itemsize * 8
    length = np.zeros(ux.shape, np.int64)
    for i in range(bits):
        length = np.where((ux >> np.uint8(i)) != 0, i + 1, length)
    return (bits - length).astype(np.int32)


def _ffs(x):
    ux = _unsigned(x)
    bits = ux.dtype.itemsize * 8
    pos = np.zeros(ux.shape, np.int64)
    for i in reversed(range(bits)):
        pos = np.where(((ux >> np.uint8(i)) & 1) != 0, i + 1, pos)
    return pos.astype(np.int32)


def _brev(x):
    ux = _unsigned(x)
    bits = ux.dtype.itemsize * 8
    out = np.zeros_like(ux)
    for i in range(bits):
        out |= ((ux >> np.uint8(i)) & 1) << np.uint8(bits - 1 - i)
    return out


#: The bit functions cuda.popc/brev/clz/ffs share with libdevice (pdc.sim.cudaops).
BITS = {"popc": _popc, "brev": _brev, "clz": _clz, "ffs": _ffs}


def _mulhi(x, y):
    """The high half of the full product (32-bit operands: exact in 64 bits)."""
    a, b = np.asarray(x), np.asarray(y)
    if a.dtype.itemsize == 4:
        wide = "i8" if a.dtype.kind == "i" else "u8"
        return (a.astype(wide) * b.astype(wide)) >> np.uint8(32)
    f = np.vectorize(lambda p, q: (int(p) * int(q)) >> 64, otypes=[object])
    return np.asarray(f(a, b)).astype(a.dtype)


def _mul24(x, y):
    """The low 32 bits of the product of the low 24 bits (sign-extended for int)."""
    a, b = np.asarray(x).astype(np.int64), np.asarray(y).astype(np.int64)
    if np.asarray(x).dtype.kind == "i":
        a = ((a & 0xFFFFFF) ^ 0x800000) - 0x800000
        b = ((b & 0xFFFFFF) ^ 0x800000) - 0x800000
    else:
        a, b = a & 0xFFFFFF, b & 0xFFFFFF
    return (a * b) & 0xFFFFFFFF


def _halving(round_up: int):
    def run(x, y):
        s = np.asarray(x).astype(np.int64) + np.asarray(y).astype(np.int64) + round_up
        return s >> 1

    return run


def _sad(x, y, z):
    a, b = np.asarray(x).astype(np.int64), np.asarray(y).astype(np.int64)
    return np.abs(a - b) + np.asarray(z).astype(np.int64)


def _saturate(x):
    x = np.asarray(x)
    return np.where(np.isnan(x), 0, np.clip(x, 0, 1)).astype(x.dtype)


def _fdim(x, y):
    d = np.asarray(x) - np.asarray(y)
    return np.where(np.isnan(d), d, np.maximum(d, 0))


TABLE: dict = {
    "frsqrt_rn": lambda x: 1 / np.sqrt(np.asarray(x, np.float64)),
    "saturatef": _saturate,
    "fdim": _fdim,
    "fdimf": _fdim,
    "fdividef": np.true_divide,  # fast_fdividef
    "popc": _popc,
    "popcll": _popc,
    "clz": _clz,
    "clzll": _clz,
    "ffs": _ffs,
    "ffsll": _ffs,
    "brev": _brev,
    "brevll": _brev,
    "mulhi": _mulhi,
    "umulhi": _mulhi,
    "mul64hi": _mulhi,
    "umul64hi": _mulhi,
    "mul24": _mul24,
    "umul24": _mul24,
    "hadd": _halving(0),
    "uhadd": _halving(0),
    "rhadd": _halving(1),
    "urhadd": _halving(1),
    "sad": _sad,
    "usad": _sad,
    "llabs": np.abs,
    "isnand": np.isnan,
    "isinfd": np.isinf,
    "isfinited": np.isfinite,
    "finitef": np.isfinite,
    "signbitd": np.signbit,
    "scalbn": np.ldexp,
    "scalbnf": np.ldexp,
    "float_as_int": _view("f4", "i4"),
    "int_as_float": _view("i4", "f4"),
    "double_as_longlong": _view("f8", "i8"),
    "longlong_as_double": _view("i8", "f8"),
}
for _name in ("min", "umin", "llmin", "ullmin"):
    TABLE[_name] = np.minimum
for _name in ("max", "umax", "llmax", "ullmax"):
    TABLE[_name] = np.maximum
# Rounded to nearest: the dtype's own operation.
for _p, _f in (("f", "f"), ("d", "d")):
    TABLE[f"{_p}add_rn"] = np.add
    TABLE[f"{_p}mul_rn"] = np.multiply
    TABLE[f"{_p}div_rn"] = np.true_divide
    TABLE[f"{_p}sqrt_rn"] = np.sqrt
    TABLE[f"{_p}rcp_rn"] = np.reciprocal
TABLE["fsub_rn"] = np.subtract
TABLE["fmaf_rn"] = arith.fma
TABLE["fma_rn"] = arith.fma
# float -> integer: PTX's cvt with a rounding, saturating.
_ROUNDINGS = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}
for _src in ("float", "double"):
    for _dst, _dt in (("int", "i4"), ("uint", "u4"), ("ll", "i8"), ("ull", "u8")):
        for _mode, _round in _ROUNDINGS.items():
            TABLE[f"{_src}2{_dst}_{_mode}"] = _convert(_round, _dt)
TABLE["double2float_rn"] = lambda x: np.asarray(x).astype(np.float32)
for _src in ("int", "uint", "ll", "ull"):
    TABLE[f"{_src}2double_rn"] = lambda x: np.asarray(x).astype(np.float64)
    TABLE[f"{_src}2float_rn"] = lambda x: np.asarray(x).astype(np.float32)

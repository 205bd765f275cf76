"""Random scalar-expression kernels for differential fuzzing of pdc.sim against numba.

A case is one CUDA kernel storing ``K`` random expressions, one per output array, and the
same body as an ``@njit`` loop over the elements (the oracle: numba's own lowering of the
same typed code). Expressions mix typed array loads and scalar arguments (int8..uint64,
float32, float64, bool) with Python's operators, chained comparisons, ternaries, ``abs``,
``min``, ``max``, numba's type constructors (``int32(x)``) and ``math`` functions, nested
two to four deep. Every output array has the dtype numba infers for its expression, so a
store never converts and integers compare bit for bit.

Where numba-cuda on a GPU is undefined, or defined differently from numba on a CPU, the
generator does not go (it is not a difference the simulator could be graded on):

* a float converted to an integer type is kept inside (-100, 100), or (-1, 100) for an
  unsigned one: LLVM's ``fptosi``/``fptoui`` is undefined out of range or for NaN (x86
  gives the "integer indefinite" 0x80..0, PTX's ``cvt.rzi`` saturates and takes NaN to 0),
  so neither CPU numba nor NumPy can stand for the GPU there. The guard follows the
  generator's idea of each operand's kind, which a ternary of an int and a uint64 (numba
  unifies them to float64) can fool: such a mismatch is this class;
* a shift count is an ``& 31`` of an integer or a small literal: LLVM's ``shl``/``ashr``
  by the width or more is poison (x86 takes the count modulo 64, PTX clamps it);
* ``math.pow`` and the two-argument functions get float arguments, ``math.floor``,
  ``ceil`` and ``trunc`` a ``float64(...) + 0.0`` around them: numba and numba-cuda type
  or convert those differently (comments at each).
"""

from __future__ import annotations

import linecache
import math
from dataclasses import dataclass, field

import numpy as np

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
TYPES = INTS + FLOATS + ["bool_"]
CASTS = INTS + FLOATS
# math functions of one float argument that CPU libm and NumPy both round correctly
# (floor, ceil and trunc as float64(...) + 0.0: numba gives an int64, numba-cuda a float,
# and -0.0 as an int64 is 0)
EXACT_MATH1 = ["sqrt", "floor", "ceil", "trunc", "fabs"]
# functions whose float result may differ by a few ulp between libm, NumPy and libdevice
APPROX_MATH1 = ["exp", "log", "sin", "cos", "tanh", "expm1", "log1p", "atan"]
PREDICATES = ["isnan", "isinf", "isfinite"]
MATH2 = ["copysign", "fmod", "pow", "atan2", "hypot"]
APPROX = {"exp", "log", "sin", "cos", "tanh", "expm1", "log1p", "atan", "pow", "atan2", "hypot"}
INT_LITERALS = ["0", "1", "2", "3", "7", "-1", "-5", "31", "255", "1000", "2147483647", "-128"]
FLOAT_LITERALS = ["0.0", "0.5", "-1.5", "2.0", "3.0", "1e30", "-7.25", "100.0"]
N = 64  # threads: two warps


@dataclass
class Case:
    """One generated kernel: its source, arguments and what the oracle may tolerate."""

    seed: int
    kernel_src: str
    oracle_src: str
    exprs: list[str]
    args: list = field(default_factory=list)  # inputs only (arrays and scalars)
    approx: list[bool] = field(default_factory=list)  # expression k uses an approximate fn


class _Gen:
    def __init__(self, rng: np.random.Generator, arrays: list[str], scalars: list[str]):
        self.rng = rng
        self.leaves: list[tuple[str, str]] = []
        for j, t in enumerate(arrays):
            self.leaves.append((f"a{j}[i]", _kind(t)))
        for j, t in enumerate(scalars):
            self.leaves.append((f"s{j}", _kind(t)))
        self.approx = False

    def pick(self, xs):
        return xs[int(self.rng.integers(len(xs)))]

    def leaf(self) -> tuple[str, str]:
        r = self.rng.random()
        if r < 0.75:
            return self.pick(self.leaves)
        if r < 0.87:
            return self.pick(INT_LITERALS), "i"
        if r < 0.97:
            return self.pick(FLOAT_LITERALS), "f"
        return self.pick(["True", "False"]), "b"

    def expr(self, depth: int) -> tuple[str, str]:
        if depth <= 0 or self.rng.random() < 0.15:
            return self.leaf()
        d = depth - 1
        form = self.pick(FORMS)
        return form(self, d)

    def of_kind(self, depth: int, kinds: str, tries: int = 8) -> tuple[str, str]:
        for _ in range(tries):
            e, k = self.expr(depth)
            if k in kinds:
                return e, k
        cands = [lf for lf in self.leaves if lf[1] in kinds]
        return self.pick(cands) if cands else ("3", "i")


def _kind(t: str) -> str:
    return "b" if t == "bool_" else "f" if t.startswith("float") else "i"


def _arith(g: _Gen, d: int):
    (a, ka), (b, kb) = g.expr(d), g.expr(d)
    op = g.pick(["+", "-", "*", "+", "*", "-"])
    k = "f" if "f" in (ka, kb) else "i"
    return f"({a} {op} {b})", k


def _div(g: _Gen, d: int):
    (a, ka), (b, kb) = g.expr(d), g.expr(d)
    op = g.pick(["/", "//", "%"])
    k = "f" if op == "/" or "f" in (ka, kb) else "i"
    return f"({a} {op} {b})", k


def _power(g: _Gen, d: int):
    a, ka = g.of_kind(d, "if")
    if g.rng.random() < 0.6:
        b, kb = g.pick(["0", "1", "2", "3", "5", "-1", "-2", "0.5", "2.0"]), "i"
        kb = "f" if "." in b else "i"
    else:
        b, kb = g.of_kind(d, "f")
        g.approx = True
    if kb == "f" or ka == "f":
        g.approx = g.approx or kb == "f"
    return f"({a} ** {b})", "f" if "f" in (ka, kb) else "i"


def _bitwise(g: _Gen, d: int):
    (a, ka), (b, kb) = g.of_kind(d, "ib"), g.of_kind(d, "ib")
    op = g.pick(["&", "|", "^"])
    return f"({a} {op} {b})", "b" if ka == kb == "b" else "i"


def _shift(g: _Gen, d: int):
    a, _ = g.of_kind(d, "i")
    if g.rng.random() < 0.5:
        b = g.pick(["0", "1", "3", "7", "12", "31"])
    else:
        b = f"({g.of_kind(d, 'i')[0]} & 31)"
    return f"({a} {g.pick(['<<', '>>'])} {b})", "i"


def _compare(g: _Gen, d: int):
    ops = ["<", "<=", ">", ">=", "==", "!="]
    parts = [g.expr(d)[0], g.pick(ops), g.expr(d)[0]]
    if g.rng.random() < 0.3:  # chained: a < b <= c
        parts += [g.pick(ops), g.expr(d)[0]]
    return "(" + " ".join(parts) + ")", "b"


def _ternary(g: _Gen, d: int):
    (a, ka), (c, _), (b, kb) = g.expr(d), g.expr(d), g.expr(d)
    if (ka == "b") != (kb == "b"):  # numba cannot unify a bool with a number
        if ka == "b":
            a, ka = f"int64({a})", "i"
        else:
            b, kb = f"int64({b})", "i"
    k = "f" if "f" in (ka, kb) else ka
    return f"({a} if {c} else {b})", k


def _unary(g: _Gen, d: int):
    r = g.rng.random()
    if r < 0.4:
        a, k = g.of_kind(d, "if")
        return f"(-{a})", k
    if r < 0.7:
        a, k = g.of_kind(d, "ib")
        return f"(~{a})", "i"
    a, _ = g.expr(d)
    return f"(not {a})", "b"


def _builtin(g: _Gen, d: int):
    r = g.rng.random()
    if r < 0.3:
        a, k = g.of_kind(d, "if")
        return f"abs({a})", k
    if r < 0.45:
        a, k = g.expr(d)
        fn = g.pick(["float", "bool", "int", "round"])
        if fn == "float" or fn == "bool":
            return f"{fn}({a})", "f" if fn == "float" else "b"
        if k == "f":  # int(x), round(x) of a float: an int64, defined in range only
            a, _ = g.of_kind(min(d, 1), "f")
            a = f"({a} if -1e6 < {a} < 1e6 else 2.5)"
        elif fn == "round":
            return f"round(float64({a}))", "i"
        return f"{fn}({a})", "i"
    n = 2 if g.rng.random() < 0.75 else 3
    xs = [g.of_kind(d, "if") for _ in range(n)]
    k = "f" if any(k == "f" for _, k in xs) else "i"
    return f"{g.pick(['min', 'max'])}({', '.join(e for e, _ in xs)})", k


def _cast(g: _Gen, d: int):
    t = g.pick(CASTS)
    a, k = g.expr(d)
    if _kind(t) == "i" and k == "f":
        # in range by construction: fptosi beyond the target is undefined (module docstring)
        a, _ = g.of_kind(min(d, 1), "f")
        lo = "-100.0" if t.startswith("int") else "-1.0"
        a = f"({a} if {lo} < {a} < 100.0 else 7.5)"
    return f"{t}({a})", _kind(t)


def _math(g: _Gen, d: int):
    r = g.rng.random()
    if r < 0.35:
        fn = g.pick(EXACT_MATH1)
        a, _ = g.of_kind(d, "if")
        if fn in ("floor", "ceil", "trunc"):
            # numba (CPU) types math.floor(x) as int64, numba-cuda as x's float type: a
            # float64() of it is the same value in both, and the int64 must be defined
            a, _ = g.of_kind(min(d, 1), "if")
            return f"(float64(math.{fn}(({a} if -1e6 < {a} < 1e6 else 2.5))) + 0.0)", "f"
        return f"math.{fn}({a})", "f"
    if r < 0.6:
        fn = g.pick(APPROX_MATH1)
        g.approx = True
        a, _ = g.of_kind(d, "if")
        return f"math.{fn}({a})", "f"
    if r < 0.8:
        a, _ = g.of_kind(d, "if")
        return f"math.{g.pick(PREDICATES)}({a})", "b"
    fn = g.pick(MATH2)
    if fn in APPROX:
        g.approx = True
    (a, ka), (b, _) = g.of_kind(d, "if"), g.of_kind(d, "if")
    if ka == "i":
        # numba's CPU hypot/atan2 of integers converts a uint64 as signed (sitofp, so
        # 2**64 - 1 is -1.0); numba-cuda's impl_binary_int uses uitofp: floats only here
        a = f"float64({a})"
    if fn == "pow":
        # math.pow(x, n) with an integer n is numba's x ** n on a CPU (raising for 0.0 **
        # -n) but libdevice's powi or pow on a GPU: only the float form is the same code
        b = f"float64({b})"
    return f"math.{fn}({a}, {b})", "f"


def _boolarith(g: _Gen, d: int):
    a, _ = g.of_kind(d, "b")
    b, kb = g.expr(d)
    op = g.pick(["+", "-", "*", "and", "or"])
    if op in ("and", "or"):
        b, _ = g.of_kind(d, "b")  # `and`/`or` of mixed types do not unify in numba
        return f"({a} {op} {b})", "b"
    return f"({a} {op} {b})", "f" if kb == "f" else "i"


FORMS = [
    _arith,
    _arith,
    _div,
    _power,
    _bitwise,
    _shift,
    _compare,
    _ternary,
    _unary,
    _builtin,
    _cast,
    _cast,
    _math,
    _math,
    _boolarith,
]


def values(dtype: str, rng: np.random.Generator, n: int = N) -> np.ndarray:
    """Inputs of ``dtype`` with the edge values first, then random ones."""
    dt = np.dtype(np.bool_ if dtype == "bool_" else dtype)
    if dt.kind == "b":
        return rng.random(n) < 0.5
    if dt.kind == "f":
        fi = np.finfo(dt)
        edge = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.nan, np.inf, -np.inf, 1e30, -3e9, 7.0]
        edge += [float(fi.max), float(fi.tiny), 99.5, -99.5]
        with np.errstate(over="ignore"):
            rnd = np.concatenate([rng.uniform(-100, 100, n // 2), rng.normal(0, 1e6, n)])
        return np.concatenate([np.array(edge, dt), rnd.astype(dt)])[:n]
    ii = np.iinfo(dt)
    lo = ii.min
    edge = [0, 1, 2, 3, lo, ii.max, ii.max - 1, 31, 32, 63, 64, 255, 256]
    edge += [-1, -2, -7, -128] if dt.kind == "i" else [ii.max // 2 + 1]
    small = rng.integers(-20 if dt.kind == "i" else 0, 21, n)
    wide = rng.integers(lo, ii.max, n, dtype=dt, endpoint=True)
    v = np.concatenate([np.array(edge, dtype=np.int64 if dt.kind == "i" else np.uint64)])
    out = np.concatenate([v.astype(dt), small.astype(dt), wide])[:n]
    return out


def _scalar(dtype: str, rng: np.random.Generator):
    v = values(dtype, rng, N)[int(rng.integers(N))]
    return np.bool_(v) if dtype == "bool_" else v


def make_case(seed: int, n_exprs: int = 6) -> Case:
    """The kernel and oracle sources for ``seed`` (deterministic)."""
    rng = np.random.default_rng(seed)
    arrays = [TYPES[int(k)] for k in rng.integers(len(TYPES), size=int(rng.integers(2, 5)))]
    scalars = [TYPES[int(k)] for k in rng.integers(len(TYPES), size=int(rng.integers(0, 3)))]
    exprs, approx = [], []
    for _ in range(n_exprs):
        g = _Gen(rng, arrays, scalars)
        e, _ = g.expr(int(rng.integers(2, 5)))
        exprs.append(e)
        approx.append(g.approx or any(f"math.{f}(" in e for f in APPROX))
    args = [values(t, rng) for t in arrays] + [_scalar(t, rng) for t in scalars]
    ins = [f"a{j}" for j in range(len(arrays))] + [f"s{j}" for j in range(len(scalars))]
    outs = [f"o{k}" for k in range(len(exprs))]
    params = ", ".join(ins + outs)
    stores = "".join(f"        o{k}[i] = {e}\n" for k, e in enumerate(exprs))
    kernel = f"def kern({params}):\n    i = cuda.grid(1)\n    if i < o0.size:\n{stores}"
    oracle = f"def orac(lo, hi, {params}):\n    for i in range(lo, hi):\n{stores}"
    return Case(seed, kernel, oracle, exprs, args, approx)


def compile_source(src: str, name: str, tag: str):
    """``name`` defined by ``src`` in a fresh namespace whose source linecache can quote."""
    import numba
    from numba import cuda

    filename = f"<pdc-fuzz-{tag}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns: dict = {"math": math, "cuda": cuda, "__name__": "pdc_fuzz_generated"}
    ns.update({t: getattr(numba, t) for t in INTS + FLOATS})
    exec(compile(src, filename, "exec"), ns)
    return ns[name]


def typing_probe(case: Case) -> str:
    """A function returning the tuple of the case's expressions at element 0 (for types)."""
    body = ", ".join(case.exprs)
    return f"def probe({', '.join(input_names(case))}):\n    i = 0\n    return ({body},)\n"


def input_names(case: Case) -> list[str]:
    """The kernel's input parameters: arrays ``a0..``, then scalars ``s0..``."""
    n_arr = sum(isinstance(a, np.ndarray) for a in case.args)
    return [f"a{j}" for j in range(n_arr)] + [f"s{j}" for j in range(len(case.args) - n_arr)]

"""Exercise 11: numerically stable row softmax, as three kernels and then fused into one.

``out[r] = exp(x[r] - max(x[r])) / sum(exp(x[r] - max(x[r])))`` for a float32
``(rows, cols)`` matrix. Subtracting the row's maximum changes nothing mathematically and keeps
``exp`` from overflowing: ``exp(89.0)`` is already ``inf`` in float32, so rows of values near
1000 give ``inf / inf = nan`` without it. The three-kernel version writes the intermediate
``e = exp(x - max)`` to global memory and reads it back; the fused kernel keeps one row per
block on chip and touches global memory as little as the maths allows.

Geometry: ``row_max``, ``exp_sum`` and ``softmax_fused`` run one block of ``TPB`` threads per
row (grid ``(rows,)``), each thread striding over the row's columns; ``normalize`` is
elementwise, with blocks of ``TPB`` threads along a row and one grid row per matrix row
(grid ``(ceil(cols / TPB), rows)``).

Criterion of this exercise's own (``Part.judges``): ``memory`` for ``softmax_fused`` counts
global traffic over all arrays: at most ``MAX_LOADS`` loads and ``MAX_STORES`` store per
element of ``x``. Three passes over the row (max, sum, normalise) make three loads.

``parallel`` (the row kernels) bounds each thread's memory accesses and its shuffles
(``Part.max_shuffles``): warp shuffles may replace the shared-memory tree, but a lane that
pulls its warp's values one at a time makes 31 where a tree of shuffles makes 5.
"""

from __future__ import annotations

import math

import numpy as np

from pdc.grade.spec import Case, Exercise, Part

TPB = 128  # threads per block: one block per row, each thread strides over the columns
MAX_LOADS = 2  # global loads per element the fused kernel may make
MAX_STORES = 1  # global stores per element the fused kernel may make
SPREAD = 4.0  # values of a row lie within +-SPREAD of the row's offset: outputs not one-hot
WIDE = 100.0  # the spread of "wide" hidden rows: exp(100) overflows float32 (above 88.7)
BIG = 1000.0  # the offset of "large" cases: exp(1000) overflows even float64
LONG = 4097  # the longest hidden row: 32 blocks' worth of columns, and one more


def softmax_spec(x: np.ndarray) -> np.ndarray:
    """Reference: stable softmax of each row, computed in float64, returned as float32."""
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def exp_sum_spec(x: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Reference: ``e = exp(x - m[:, None])`` and its row sums ``s``, both float32."""
    e = np.exp(x.astype(np.float64) - m.astype(np.float64)[:, None])
    return e.astype(np.float32), e.sum(axis=1).astype(np.float32)


def matrix(
    rng: np.random.Generator, rows: int, cols: int, offset: float, spread: float = SPREAD
) -> np.ndarray:
    """A float32 input: each row within ``spread`` of its own offset, of size offset/2..offset.

    Args:
        rng: Where the values come from.
        rows: Rows of the matrix.
        cols: Columns of the matrix.
        offset: Largest size of a row's offset; its sign is drawn per row. Near 1000, every
            row overflows a softmax that skips the max; distinct offsets per row catch a
            kernel that mixes up rows.
        spread: Values lie within +-spread of the row's offset. At WIDE, a kernel that takes
            ``exp`` of anything but ``x - max`` overflows even where the offset is 0, and the
            first two rows are sorted, one rising and one falling, so that subtracting the
            row's first or last value in place of its max overflows too.

    Returns:
        A C-contiguous float32 array of shape (rows, cols).
    """
    sign = rng.choice([-1.0, 1.0], size=(rows, 1))
    base = sign * rng.uniform(offset / 2, offset, size=(rows, 1))
    x = base + rng.uniform(-spread, spread, size=(rows, cols))
    if spread >= WIDE and rows >= 2:
        x[0] = np.sort(x[0])
        x[1] = np.sort(x[1])[::-1]
    return x.astype(np.float32)


def _sizes(sizes: tuple) -> tuple[int, int, float, float]:
    """(rows, cols, offset[, spread]) with the spread defaulting to SPREAD."""
    rows, cols, offset, *rest = sizes
    return rows, cols, offset, (rest[0] if rest else SPREAD)


def _row_case(x: np.ndarray, offset: float, args: dict, outputs: tuple, spread=SPREAD) -> Case:
    rows, cols = x.shape
    big = f", rows offset by up to +-{offset:g}" if offset else ""
    big += f", values spread +-{spread:g}" if spread != SPREAD else ""
    dims = {"rows": rows, "cols": cols, "offset": offset, "spread": spread}
    return Case(f"x {rows}x{cols}{big}", args, outputs, (rows,), (TPB,), dims=dims)


def _make_row_max(rng, sizes):
    rows, cols, offset, spread = _sizes(sizes)
    x = matrix(rng, rows, cols, offset, spread)
    return _row_case(x, offset, {"x": x, "m": np.zeros(rows, np.float32)}, ("m",), spread)


def _make_exp_sum(rng, sizes):
    rows, cols, offset, spread = _sizes(sizes)
    x = matrix(rng, rows, cols, offset, spread)
    args = {
        "x": x,
        "m": x.max(axis=1),
        "e": np.zeros((rows, cols), np.float32),
        "s": np.zeros(rows, np.float32),
    }
    return _row_case(x, offset, args, ("e", "s"), spread)


def _make_fused(rng, sizes):
    rows, cols, offset, spread = _sizes(sizes)
    x = matrix(rng, rows, cols, offset, spread)
    return _row_case(x, offset, {"x": x, "out": np.zeros_like(x)}, ("out",), spread)


def _make_normalize(rng, sizes):
    rows, cols, offset, spread = _sizes(sizes)
    x = matrix(rng, rows, cols, offset, spread)
    e, s = exp_sum_spec(x, x.max(axis=1))
    args = {"e": e, "s": s, "out": np.zeros((rows, cols), np.float32)}
    grid = (max(1, math.ceil(cols / TPB)), rows)
    dims = {"rows": rows, "cols": cols, "offset": offset, "spread": spread}
    return Case(f"e {rows}x{cols}", args, ("out",), grid, (TPB,), dims=dims)


def _hidden(rng: np.random.Generator) -> list[tuple[int, int, float, float]]:
    """Hidden (rows, cols, offset, spread) sizes: every draw has each of ``_BOUNDARIES``.

    Rows a column short of and past the block, a single column, rows over two blocks long
    with values spread +-WIDE around 0 (exp overflows without the max; one row rises, one
    falls), rows shorter than a warp, and a single row of LONG columns spread +-WIDE around
    +-BIG.
    """
    return [
        (int(rng.integers(1, 5)), TPB - 1, BIG, SPREAD),
        (int(rng.integers(2, 6)), 1, float(rng.choice([0.0, BIG])), SPREAD),
        (int(rng.integers(2, 4)), int(rng.integers(2, 4)) * TPB + 1, 0.0, WIDE),
        (
            int(rng.integers(2, 7)),
            int(rng.choice([2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31])),
            BIG,
            SPREAD,
        ),
        (1, LONG, BIG, WIDE),
    ]


_BOUNDARIES = {
    "cols one below a multiple of TPB": lambda c: c.dims["cols"] % TPB == TPB - 1,
    "cols one above a multiple of TPB": lambda c: (
        c.dims["cols"] % TPB == 1 and c.dims["cols"] > TPB
    ),
    "a single column": lambda c: c.dims["cols"] == 1,
    "fewer columns than a warp": lambda c: 1 < c.dims["cols"] < 32,
    f"a single row of at least {LONG - 1} columns": lambda c: (
        c.dims["rows"] == 1 and c.dims["cols"] >= LONG - 1
    ),
    f"rows spread +-{WIDE:g} around 0, one rising and one falling (exp overflows float32 "
    "unless it is of x - max)": lambda c: (
        c.dims["spread"] >= WIDE and c.dims["offset"] == 0.0 and c.dims["rows"] >= 2
    ),
    f"rows offset by up to +-{BIG:g}": lambda c: c.dims["offset"] >= BIG,
}
_DOMAIN = (
    f"rows >= 1, cols 1 to {LONG} (hidden), float32 values spread up to +-{WIDE:g} around "
    f"a row offset up to +-{BIG:g}; TPB = {TPB}"
)


def _row_work(per_element: int, per_step: int):
    """Largest memory operations one thread may make in a row kernel.

    ``per_element`` operations for each column it strides over, ``per_step`` for each step of
    a block tree, and a few more; a thread that walks a whole row alone makes far more.
    ``per_element`` counts every access of the plain style, not only the fewest the maths
    needs: ``x[r, c]`` loaded again for each use, ``m[r]`` loaded at every column, ``e[r, c]``
    read back after its store, ``s_max[0]`` and ``s_sum[0]`` read for every output. Such a thread
    still does its share of the row (a 4097-column row gives each of 128 threads 33
    columns), and the bound is about the share, not the traffic (``memory`` judges that).
    """
    steps = int(math.log2(TPB))

    def bound(case: Case) -> int:
        return per_element * math.ceil(case.dims["cols"] / TPB) + per_step * steps + 16

    return bound


#: Shuffles one thread may make for each TPB columns it strides over: two warp stages that
#: combine (max, sum) pairs in log2(32) = 5 levels each, and two broadcasts of the result.
SHUFFLES_PER_PASS = 2 * 2 * 5 + 2


def _max_shuffles(case: Case) -> int:
    """Most shuffles one thread of a row kernel may make (one lane gathering a warp's 32
    values one at a time makes 31 in a single pass)."""
    return SHUFFLES_PER_PASS * max(1, math.ceil(case.dims["cols"] / TPB))


def _where(r) -> str:
    return r.case.label if r.case.hidden else f"case {r.case.label}"


def _traffic(part: Part, results: list) -> tuple[float, str]:
    """Judge ``memory``: global loads and stores per element of ``x``, all arrays together."""
    for r in sorted(results, key=lambda r: r.case.hidden):  # public cases can explain
        elements = r.case.dims["rows"] * r.case.dims["cols"]
        loads = sum(int(v.sum()) for v in r.report.loads.values()) / elements
        stores = sum(int(v.sum()) for v in r.report.stores.values()) / elements
        if loads <= MAX_LOADS and stores <= MAX_STORES:
            continue
        if r.case.hidden:  # the counts could reveal the sizes
            return 0.0, f"{_where(r)}: too much global traffic per element"
        return 0.0, (
            f"{_where(r)}: {loads:.2f} global loads and {stores:.2f} stores per element, at "
            f"most {MAX_LOADS} and {MAX_STORES} expected: find the max and the sum in one "
            "pass over the row (rescale the running sum when the max grows), then write "
            "each output once"
        )
    return 1.0, f"at most {MAX_LOADS} global loads and {MAX_STORES} store per element"


_PUBLIC_ROWS = [(4, 100, 0.0), (3, 300, BIG), (2, 1, 0.0)]
_PUBLIC_FUSED = [(4, 100, 0.0), (3, 300, BIG), (2, 37, BIG)]
RTOL, ATOL = 1e-4, 1e-6  # float32 exp and sums against a float64 reference
#: Why a softmax gives inf or nan: exp overflows float32 above 88.7.
HINTS = {
    "nonfinite": "an overflow (exp of a value above 88.7 is inf in float32, and inf / inf is "
    "nan: subtract the row's max first), a division by zero, or a value read that was never "
    "defined"
}

SOFTMAX = Exercise(
    "11_softmax",
    "Row softmax: three kernels, then fused",
    [
        Part(
            "row_max",
            "m[r] = max(x[r]), one block per row",
            ("x", "m"),
            public=_PUBLIC_ROWS,
            hidden=_hidden,
            domain=_DOMAIN,
            boundaries=_BOUNDARIES,
            make=_make_row_max,
            reference=lambda a: {"m": a["x"].max(axis=1)},
            points={"public": 1, "hidden": 1, "sync": 1, "parallel": 1},
            max_work=_row_work(2, 3),  # x[r, c] compared, then kept
            max_shuffles=_max_shuffles,
            rtol=RTOL,
            atol=ATOL,
            hints=HINTS,
        ),
        Part(
            "exp_sum",
            "e = exp(x - m[:, None]) and s[r] = e[r].sum(), one block per row",
            ("x", "m", "e", "s"),
            public=_PUBLIC_ROWS,
            hidden=_hidden,
            domain=_DOMAIN,
            boundaries=_BOUNDARIES,
            make=_make_exp_sum,
            reference=lambda a: dict(zip(("e", "s"), exp_sum_spec(a["x"], a["m"]))),
            points={"public": 1, "hidden": 1, "sync": 1, "parallel": 1},
            max_work=_row_work(5, 3),  # x and m[r] twice (e and s each take exp), e stored
            max_shuffles=_max_shuffles,
            rtol=RTOL,
            atol=ATOL,
            hints=HINTS,
        ),
        Part(
            "normalize",
            "out = e / s[:, None], one thread per element",
            ("e", "s", "out"),
            public=[(4, 100, 0.0), (3, 300, 0.0), (2, 37, 0.0)],
            hidden=_hidden,
            domain=_DOMAIN,
            boundaries=_BOUNDARIES,
            make=_make_normalize,
            reference=lambda a: {"out": (a["e"] / a["s"][:, None]).astype(np.float32)},
            points={"public": 1, "hidden": 1, "bounds": 1, "parallel": 1},
            max_stores=1,
            model_ops=6,  # the model answer's busiest thread (pdc.grade.profile)
            model_span=6,
            rtol=RTOL,
            atol=ATOL,
            hints=HINTS,
        ),
        Part(
            "softmax_fused",
            "out = softmax(x) row by row in one kernel, one block per row",
            ("x", "out"),
            public=_PUBLIC_FUSED,
            hidden=_hidden,
            domain=_DOMAIN,
            boundaries=_BOUNDARIES,
            make=_make_fused,
            reference=lambda a: {"out": softmax_spec(a["x"])},
            points={
                "public": 2,
                "hidden": 2,
                "bounds": 1,
                "sync": 1,
                "parallel": 1,
                "memory": 2,
            },
            max_work=_row_work(7, 8),  # x three times at a new max, x, s_max[0], s_sum[0], out
            max_shuffles=_max_shuffles,
            judges={"memory": _traffic},
            titles={
                "memory": f"global traffic (at most {MAX_LOADS} loads and "
                f"{MAX_STORES} store per element)"
            },
            rtol=RTOL,
            atol=ATOL,
            hints=HINTS,
        ),
    ],
    {"TPB": TPB},
)

EXERCISE = SOFTMAX

"""The graded exercises: NumPy references, cases, launch geometry, criteria and points.

This module belongs to the trusted side of grading: it generates inputs, computes expected
values and judges the raw results a kernel run sends back. Public cases are fixed and shown in
feedback; hidden cases are drawn at grading time from a seed the grader picks and are never
described to the student beyond "hidden case k".
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

# Quality criteria are only awarded to a kernel that already passes its public cases.
QUALITY = ("bounds", "sync", "parallel", "memory")

CRITERION_TITLES = {
    "public": "public cases",
    "hidden": "hidden cases",
    "bounds": "bounds guard (no out-of-bounds access)",
    "sync": "barriers (no races, no divergent barriers, no uninitialised shared reads, "
    "no reads of inactive lanes)",
    "parallel": "work spread over threads",
    "memory": "memory optimisation (shared memory cuts global loads)",
}


@dataclass
class Case:
    """One launch of a kernel: arguments, geometry, and which arguments are outputs."""

    label: str
    args: dict  # name -> ndarray or scalar, in kernel parameter order
    outputs: tuple
    grid: tuple
    block: tuple
    hidden: bool = False
    dims: dict = field(default_factory=dict)  # sizes used by criteria (n, m, k, ...)


@dataclass
class Part:
    """One kernel of an exercise."""

    name: str  # the kernel's function name in the notebook
    title: str
    params: tuple  # kernel parameter names, in order
    public: list  # size tuples
    hidden: Callable  # rng -> list of size tuples
    make: Callable  # (rng, sizes) -> Case
    reference: Callable  # case.args -> {output name: expected array}
    points: dict  # criterion -> points
    max_work: Callable | None = None  # case -> largest allowed memory ops for one thread
    max_stores: int | None = None  # largest allowed output stores for one thread
    global_loads: Callable | None = None  # (case, report loads) -> (per-output, bound)
    rtol: float = 1e-4
    atol: float = 1e-4
    # A plug-in part grades itself: runner(ex, part, cells, *, seed, timeout, hidden,
    # extra_seeds) -> PartResult, checker(kernel) prints in-notebook feedback, and titles
    # names the criteria it adds to CRITERION_TITLES.
    runner: Callable | None = None
    checker: Callable | None = None
    titles: dict = field(default_factory=dict)
    # Criteria of the exercise's own: criterion -> judge(part, results) -> (fraction, text),
    # where results are the judge module's CaseResults of the cases that ran (public first
    # is not guaranteed; hidden ones must not reveal sizes). Each needs a title in titles.
    judges: dict = field(default_factory=dict)
    # The spec's stated domain, in words, and the boundaries of that domain that every draw
    # of hidden cases must reach: name -> predicate(Case) -> bool (tests check every seed).
    domain: str = ""
    boundaries: dict = field(default_factory=dict)
    # A plug-in part that makes its own hidden cases: rng -> list of Cases.
    draw: Callable | None = None
    # Hints where a general one would mislead: "nonfinite" explains outputs that are inf or
    # nan where the expected ones are finite (default: judge.NONFINITE_HINT).
    hints: dict = field(default_factory=dict)

    def criterion_title(self, criterion: str) -> str:
        """What a criterion checks, in words."""
        return self.titles.get(criterion) or CRITERION_TITLES[criterion]

    @property
    def max_points(self) -> float:
        return float(sum(self.points.values()))


@dataclass
class Exercise:
    """A notebook: its parts, and the constants the notebook defines for its kernels."""

    key: str
    title: str
    parts: list
    constants: dict


def _rand(rng, shape, dtype=np.float32):
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def _grid1(n, tpb):
    return (max(1, math.ceil(n / tpb)),)


def _grid2(rows, cols, tile):
    return (max(1, math.ceil(cols / tile)), max(1, math.ceil(rows / tile)))


# -- 01 elementwise -------------------------------------------------------------------------
TPB_1D = 256


def _make_multiply(rng, sizes):
    (n,) = sizes
    args = {"a": _rand(rng, n), "b": _rand(rng, n), "out": np.zeros(n, np.float32)}
    return Case(f"n={n}", args, ("out",), _grid1(n, TPB_1D), (TPB_1D,), dims={"n": n})


def _make_saxpy(rng, sizes):
    (n,) = sizes
    args = {
        "alpha": np.float32(rng.uniform(-2, 2)),
        "x": _rand(rng, n),
        "y": _rand(rng, n),
        "out": np.zeros(n, np.float32),
    }
    return Case(f"n={n}", args, ("out",), _grid1(n, TPB_1D), (TPB_1D,), dims={"n": n})


def multiply_spec(a, b):
    """Reference: elementwise product."""
    return a * b


def saxpy_spec(alpha, x, y):
    """Reference: alpha * x + y in float32."""
    return (np.float32(alpha) * x + y).astype(np.float32)


def _near_multiple(rng, step, most, side, least=1):
    """A size one below (side=-1) or above (side=+1) a random multiple of ``step``.

    The multiple is ``k * step`` with ``least <= k < most // step``.
    """
    k = int(rng.integers(least, max(least + 1, most // step)))
    return max(1, k * step + side)


def _hidden_1d(step, most, public):
    """Sizes just below and above a multiple of the block, an exact multiple, fewer elements
    than a warp (never a public size: a kernel that knows those gains nothing), any size."""

    def draw(rng):
        def fresh(make):  # drawn again while it is a public size
            n = make()
            while (n,) in public:
                n = make()
            return (n,)

        return [
            fresh(lambda: _near_multiple(rng, step, most, -1)),
            fresh(lambda: _near_multiple(rng, step, most, +1)),
            fresh(lambda: _near_multiple(rng, step, most, 0, least=2)),
            fresh(lambda: int(rng.integers(2, 32))),
            fresh(lambda: int(rng.integers(33, most))),
        ]

    return draw


def edges_1d(step: int, key: str = "n", what: str = "the block") -> dict:
    """Boundaries of a 1-D size: one below, one above and exactly a multiple of ``step``.

    Args:
        step: The block (or tile) size the launch rounds up to.
        key: The name of the size in ``Case.dims``.
        what: How the boundary names ``step`` (``"TPB"``, ``"the grid's width"``).

    Returns:
        name -> predicate(Case), for ``Part.boundaries``.
    """
    return {
        f"{key} one below a multiple of {what}": lambda c: c.dims[key] % step == step - 1,
        f"{key} one above a multiple of {what}": lambda c: (
            c.dims[key] % step == 1 and c.dims[key] > step
        ),
        f"{key} an exact multiple of {what}, two blocks or more": lambda c: (
            c.dims[key] % step == 0 and c.dims[key] >= 2 * step
        ),
    }


def _small(key: str = "n") -> dict:
    return {f"{key} below a warp (32)": lambda c: 1 < c.dims[key] < 32}


ELEMENTWISE = Exercise(
    "01_elementwise",
    "Elementwise kernels",
    [
        Part(
            "multiply",
            "out = a * b",
            ("a", "b", "out"),
            public=[(1000,), (256,), (1,)],
            hidden=_hidden_1d(TPB_1D, 2600, [(1000,), (256,), (1,)]),
            domain=f"any n >= 1; TPB = {TPB_1D}",
            boundaries={**edges_1d(TPB_1D, what="TPB"), **_small()},
            make=_make_multiply,
            reference=lambda a: {"out": multiply_spec(a["a"], a["b"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "parallel": 1},
            max_stores=1,
        ),
        Part(
            "saxpy",
            "out = alpha * x + y",
            ("alpha", "x", "y", "out"),
            public=[(1000,), (512,), (7,)],
            hidden=_hidden_1d(TPB_1D, 2600, [(1000,), (512,), (7,)]),
            domain=f"any n >= 1; TPB = {TPB_1D}",
            boundaries={**edges_1d(TPB_1D, what="TPB"), **_small()},
            make=_make_saxpy,
            reference=lambda a: {"out": saxpy_spec(a["alpha"], a["x"], a["y"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "parallel": 1},
            max_stores=1,
        ),
    ],
    {"TPB": TPB_1D},
)


# -- 02 1-D convolution ---------------------------------------------------------------------
TPB_CONV = 128


def conv1d_spec(x, w):
    """Reference: 'same'-size convolution with zeros outside the signal.

    ``out[i] = sum_j w[j] * x[i + r - j]`` for ``r = len(w) // 2``: ``np.convolve(x, w,
    "same")`` where the signal is at least as long as the filter, and still ``len(x)``
    outputs where it is shorter (NumPy's "same" would then return ``len(w)``).
    """
    r = len(w) // 2
    return np.convolve(x, w, mode="full")[r : r + len(x)].astype(np.float32)


def _make_conv1d(rng, sizes):
    n, k = sizes
    args = {"x": _rand(rng, n), "w": _rand(rng, k), "out": np.zeros(n, np.float32)}
    dims = {"n": n, "k": k}
    return Case(f"n={n}, K={k}", args, ("out",), _grid1(n, TPB_CONV), (TPB_CONV,), dims=dims)


#: Odd filter lengths of the hidden cases; a kernel that assumes K <= 7 fails on every draw.
CONV_K_MAX = 17
_ODD_K = tuple(range(3, CONV_K_MAX + 1, 2))


def _hidden_conv1d(rng):
    # Signals ending just before and after a block, one shorter than a long filter, a filter
    # of one tap, and a long filter over a long signal.
    def odd():
        return int(rng.choice(_ODD_K))

    long_k = int(rng.choice([15, CONV_K_MAX]))
    return [
        (_near_multiple(rng, TPB_CONV, 1500, -1), odd()),
        (_near_multiple(rng, TPB_CONV, 1500, +1), odd()),
        (int(rng.integers(1, long_k)), long_k),
        (int(rng.integers(20, 1500)), 1),
        (int(rng.integers(TPB_CONV + 2, 1500)), long_k),
    ]


_CONV1D_BOUNDARIES = {
    **{k: v for k, v in edges_1d(TPB_CONV, what="TPB").items() if "exact" not in k},
    "K = 1 (a single tap)": lambda c: c.dims["k"] == 1,
    "K >= 15": lambda c: c.dims["k"] >= 15,
    "K > n (the filter is longer than the signal)": lambda c: c.dims["k"] > c.dims["n"],
    "K >= 15 over several blocks": lambda c: c.dims["k"] >= 15 and c.dims["n"] > TPB_CONV,
}


CONV1D = Exercise(
    "02_conv1d",
    "1-D convolution",
    [
        Part(
            "conv1d",
            "out = np.convolve(x, w, 'same')",
            ("x", "w", "out"),
            public=[(1000, 5), (128, 3), (9, 7)],
            hidden=_hidden_conv1d,
            domain=f"signal n >= 1, any odd filter length K (hidden: 1 to {CONV_K_MAX}); "
            f"TPB = {TPB_CONV}",
            boundaries=_CONV1D_BOUNDARIES,
            make=_make_conv1d,
            reference=lambda a: {"out": conv1d_spec(a["x"], a["w"])},
            points={"public": 2, "hidden": 2, "bounds": 1, "parallel": 1},
            max_stores=1,
        )
    ],
    {"TPB": TPB_CONV},
)


# -- 04 2-D convolution (blur) ----------------------------------------------------------------
TILE = 16
RADIUS = 2  # the tiled blur's filter is (2 * RADIUS + 1) x (2 * RADIUS + 1)
BLUR_KS = (1, 3, 5, 7, 9)  # filter sizes of blur2d's hidden cases


def blur2d_spec(img, w):
    """Reference: 'same'-size 2-D correlation, borders replicate the nearest edge pixel."""
    r = w.shape[0] // 2
    padded = np.pad(img, r, mode="edge")
    out = np.zeros_like(img)
    for dy in range(w.shape[0]):
        for dx in range(w.shape[1]):
            out += w[dy, dx] * padded[dy : dy + img.shape[0], dx : dx + img.shape[1]]
    return out.astype(np.float32)


def _make_blur(rng, sizes):
    h, wd, k = sizes
    w = rng.uniform(0, 1, size=(k, k)).astype(np.float32)
    w /= w.sum()
    args = {"img": _rand(rng, (h, wd)), "w": w, "out": np.zeros((h, wd), np.float32)}
    return Case(
        f"image {h}x{wd}, filter {k}x{k}",
        args,
        ("out",),
        _grid2(h, wd, TILE),
        (TILE, TILE),
        dims={"h": h, "w": wd, "k": k},
    )


def _hidden_blur(ks):
    # Heights and widths a pixel short of and past one or two tiles (each side of each
    # dimension on every draw), an image smaller than the largest filter, and any image.
    def draw(rng):
        def edge(side):
            return int(rng.choice([TILE, 2 * TILE])) + side

        big = max(ks)
        return [
            (edge(-1), edge(+1), int(rng.choice(ks))),
            (edge(+1), edge(-1), int(rng.choice(ks))),
            (int(rng.integers(1, big)), int(rng.integers(1, big)), big),
            (int(rng.integers(5, 45)), int(rng.integers(5, 45)), min(ks)),
        ]

    return draw


def edges_2d(tile: int, rows: str, cols: str) -> dict:
    """Boundaries of a 2-D shape: each dimension one below and one above a tile multiple.

    Args:
        tile: The tile size the launch rounds up to.
        rows: The name of one size in ``Case.dims``.
        cols: The name of the other (the same name for one dimension only).

    Returns:
        name -> predicate(Case), for ``Part.boundaries``.
    """
    out = {}
    for key in (rows, cols):
        for name, rest in (("below", tile - 1), ("above", 1)):
            out[f"{key} one {name} a multiple of TILE"] = lambda c, key=key, rest=rest: (
                c.dims[key] % tile == rest and c.dims[key] > 1
            )
    return out


def _blur_boundaries(ks) -> dict:
    out = {
        **edges_2d(TILE, "h", "w"),
        "an image smaller than the filter in both dimensions": lambda c: (
            c.dims["h"] < c.dims["k"] and c.dims["w"] < c.dims["k"]
        ),
    }
    if len(ks) > 1:
        out[f"K = {min(ks)}"] = lambda c: c.dims["k"] == min(ks)
        out[f"K = {max(ks)}"] = lambda c: c.dims["k"] == max(ks)
    return out


def _blur_loads(case, loads):
    outputs = case.dims["h"] * case.dims["w"]
    per_output = loads["img"].sum() / outputs
    # One load per element of each block's halo'd tile; a naive blur makes K*K per pixel.
    halo = (TILE + 2 * RADIUS) ** 2 * math.prod(case.grid)
    return per_output, halo / outputs + 1


CONV2D = Exercise(
    "04_conv2d",
    "2-D convolution (image blur)",
    [
        Part(
            "blur2d",
            "blur with replicated borders",
            ("img", "w", "out"),
            public=[(20, 33, 5), (16, 16, 3), (3, 5, 5)],
            hidden=_hidden_blur(BLUR_KS),
            domain=f"image h x w >= 1 x 1, any odd square filter (hidden: K in {BLUR_KS}); "
            f"TILE = {TILE}",
            boundaries=_blur_boundaries(BLUR_KS),
            make=_make_blur,
            reference=lambda a: {"out": blur2d_spec(a["img"], a["w"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "parallel": 1},
            max_stores=1,
        ),
        Part(
            "blur2d_tiled",
            "the same blur, tiled in shared memory",
            ("img", "w", "out"),
            public=[(20, 33, 5), (16, 16, 5)],
            hidden=_hidden_blur([2 * RADIUS + 1]),
            domain=f"image h x w >= 1 x 1, filter K = 2R + 1 = {2 * RADIUS + 1}; TILE = {TILE}",
            boundaries=_blur_boundaries([2 * RADIUS + 1]),
            make=_make_blur,
            reference=lambda a: {"out": blur2d_spec(a["img"], a["w"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "sync": 1, "memory": 2},
            max_stores=1,
            global_loads=_blur_loads,
        ),
    ],
    {"TILE": TILE, "R": RADIUS},
)


# -- 03 matrix multiplication -------------------------------------------------------------------
def matmul_spec(a, b):
    """Reference: the matrix product in float32."""
    return (a @ b).astype(np.float32)


def _make_matmul(rng, sizes):
    m, k, n = sizes
    args = {"A": _rand(rng, (m, k)), "B": _rand(rng, (k, n)), "C": np.zeros((m, n), np.float32)}
    return Case(
        f"A {m}x{k} @ B {k}x{n}",
        args,
        ("C",),
        _grid2(m, n, TILE),
        (TILE, TILE),
        dims={"m": m, "k": k, "n": n},
    )


def _hidden_matmul(rng):
    """(m, k, n) sizes: every draw has each boundary of ``_MATMUL_BOUNDARIES``.

    k spans three tiles while the grid is one tile in each direction (a kernel that loops over
    gridDim.x or gridDim.y tiles instead of ceil(k / TILE) misses two of them); a grid several
    tiles wide and one tall, and one several tall and one wide (rows and columns swapped
    show); m, k and n each a row short of and a row past a tile.
    """

    def near(side):
        return int(rng.choice([TILE, 2 * TILE])) + side

    return [
        (TILE - 1, 2 * TILE + int(rng.integers(1, TILE)), int(rng.integers(1, TILE + 1))),
        (int(rng.integers(1, TILE + 1)), near(-1), 2 * TILE + 1),
        (2 * TILE + 1, int(rng.integers(1, 2 * TILE)), TILE - 1),
        (near(+1), near(+1), near(+1)),
    ]


def _ktiles(c) -> int:
    return math.ceil(c.dims["k"] / TILE)


_MATMUL_BOUNDARIES = {
    **edges_2d(TILE, "m", "n"),
    **edges_2d(TILE, "k", "k"),
    "k spans more tiles than the grid has blocks along x and along y": lambda c: (
        _ktiles(c) > max(c.grid)
    ),
    "a grid of several blocks along x, one along y": lambda c: c.grid[0] > 1 == c.grid[1],
    "a grid of several blocks along y, one along x": lambda c: c.grid[1] > 1 == c.grid[0],
}


def _matmul_loads(case, loads):
    m, k, n = case.dims["m"], case.dims["k"], case.dims["n"]
    per_output = (loads["A"].sum() + loads["B"].sum()) / (m * n)
    threads = math.prod(case.grid) * math.prod(case.block)
    # A tile loop loads one element of A and one of B per thread and tile.
    bound = 2 * math.ceil(k / TILE) * threads / (m * n) + 1
    return per_output, bound


MATMUL = Exercise(
    "03_matmul",
    "Matrix multiplication",
    [
        Part(
            "matmul_naive",
            "C = A @ B, one thread per element of C",
            ("A", "B", "C"),
            public=[(20, 18, 33), (16, 16, 16)],
            hidden=_hidden_matmul,
            domain=f"A (m, k) @ B (k, n), any m, k, n >= 1; TILE = {TILE}",
            boundaries=_MATMUL_BOUNDARIES,
            make=_make_matmul,
            reference=lambda a: {"C": matmul_spec(a["A"], a["B"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "parallel": 1},
            max_stores=1,
        ),
        Part(
            "matmul_tiled",
            "C = A @ B, tiled in shared memory",
            ("A", "B", "C"),
            public=[(20, 18, 33), (16, 16, 16)],
            hidden=_hidden_matmul,
            domain=f"A (m, k) @ B (k, n), any m, k, n >= 1; TILE = {TILE}",
            boundaries=_MATMUL_BOUNDARIES,
            make=_make_matmul,
            reference=lambda a: {"C": matmul_spec(a["A"], a["B"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "sync": 1, "memory": 2},
            max_stores=1,
            global_loads=_matmul_loads,
        ),
    ],
    {"TILE": TILE},
)


# -- 05 reduction -----------------------------------------------------------------------------
TPB_RED = 128


def block_sum_spec(x, tpb=TPB_RED):
    """Reference: partial[b] = sum of block b's slice x[b*tpb:(b+1)*tpb]."""
    blocks = max(1, math.ceil(x.size / tpb))
    padded = np.zeros(blocks * tpb, np.float64)
    padded[: x.size] = x
    return padded.reshape(blocks, tpb).sum(axis=1).astype(np.float32)


def _make_block_sum(rng, sizes):
    (n,) = sizes
    blocks = max(1, math.ceil(n / TPB_RED))
    args = {"x": _rand(rng, n), "partial": np.zeros(blocks, np.float32)}
    return Case(f"n={n}", args, ("partial",), (blocks,), (TPB_RED,), dims={"n": n})


def _reduction_loads(case, loads):
    n = case.dims["n"]
    # At most one load per thread: a tail thread may read a clamped index (x[min(i, n - 1)])
    # where a guard would read nothing; re-reading x in the tree costs ~2 loads per element.
    threads = math.prod(case.grid) * math.prod(case.block)
    return loads["x"].sum() / n, threads / n


REDUCTION = Exercise(
    "05_reduction",
    "Parallel reduction",
    [
        Part(
            "block_sum",
            "partial[b] = sum of block b's elements, tree in shared memory",
            ("x", "partial"),
            public=[(1000,), (128,), (5,)],
            hidden=_hidden_1d(TPB_RED, 1400, [(1000,), (128,), (5,)]),
            domain=f"any n >= 1; TPB = {TPB_RED}",
            boundaries={**edges_1d(TPB_RED, what="TPB"), **_small()},
            make=_make_block_sum,
            reference=lambda a: {"partial": block_sum_spec(a["x"])},
            points={"public": 2, "hidden": 2, "sync": 2, "parallel": 1, "memory": 1},
            max_work=lambda case: 4 * int(math.log2(TPB_RED)) + 8,
            global_loads=_reduction_loads,
            rtol=1e-4,
            atol=1e-4,
        )
    ],
    {"TPB": TPB_RED},
)

KERNEL_EXERCISES = {e.key: e for e in (ELEMENTWISE, CONV1D, MATMUL, CONV2D, REDUCTION)}

#: Every exercise in course order: its key and where its Exercise lives ("module:attribute").
#: Modules are imported when an exercise is first asked for, so a plug-in costs nothing until
#: it is graded, and nothing is added to shared tables at import time.
REGISTRY = {
    **{
        key: f"{__name__}:{name}"
        for key, name in (
            ("01_elementwise", "ELEMENTWISE"),
            ("02_conv1d", "CONV1D"),
            ("03_matmul", "MATMUL"),
            ("04_conv2d", "CONV2D"),
            ("05_reduction", "REDUCTION"),
        )
    },
    "06_ring": "pdc.grade.ring:RING",
    "07_histogram": "pdc.grade.ex_histogram:HISTOGRAM",
    "08_scan": "pdc.grade.ex_scan:SCAN",
    "09_transpose": "pdc.grade.ex_transpose:TRANSPOSE",
    "10_warp_reduce": "pdc.grade.ex_warp_reduce:WARP_REDUCE",
    "11_softmax": "pdc.grade.ex_softmax:SOFTMAX",
    "12_triton_softmax": "pdc.grade.triton.exercises:SOFTMAX",
    "13_triton_matmul": "pdc.grade.triton.exercises:MATMUL",
}
ALL_KEYS = tuple(REGISTRY)


def exercise(key: str) -> Exercise:
    """The exercise with this key (e.g. "03_matmul").

    Raises:
        ValueError: No exercise has this key.
    """
    if key not in REGISTRY:
        raise ValueError(f"[grade] expected an exercise in {list(ALL_KEYS)}, got {key!r}")
    module, _, attr = REGISTRY[key].partition(":")
    return getattr(importlib.import_module(module), attr)


def find_part(name: str, plugins: bool = False) -> tuple[Exercise, Part]:
    """The exercise and part that grade the kernel called ``name``.

    Args:
        name: The kernel's (or handler's) name.
        plugins: Also look at parts that grade themselves (``runner``); by default only
            kernels that run in the simulator are found.

    Raises:
        ValueError: No part has this name.
    """
    known = []
    for key in ALL_KEYS:
        ex = exercise(key)
        for p in ex.parts:
            if p.runner is not None and not plugins:
                continue
            if p.name == name:
                return ex, p
            known.append(p.name)
    raise ValueError(f"[grade.check] expected one of {known}, got {name!r}")


def public_cases(part: Part, seed: int = 0) -> list[Case]:
    """The fixed public cases of a part (same inputs every time)."""
    rng = np.random.default_rng(seed)
    return [part.make(rng, s) for s in part.public]


def hidden_cases(part: Part, rng: np.random.Generator) -> list[Case]:
    """Hidden cases, drawn from ``rng`` (the grader seeds it at grading time)."""
    if part.draw is not None:
        cases = part.draw(rng)
    else:
        cases = [part.make(rng, s) for s in part.hidden(rng)]
    for k, c in enumerate(cases, 1):
        c.hidden = True
        c.label = f"hidden case {k}"
    return cases


def domain_row(key: str, part: Part) -> str:
    """One row of the instructor guide's domain table: the spec's domain and the boundaries
    that every draw of hidden cases reaches."""
    return f"| {key} | `{part.name}` | {part.domain} | {'; '.join(part.boundaries)} |"


def domain_table() -> str:
    """The instructor guide's table of every part's domain and boundaries, in course order."""
    rows = [
        "| exercise | kernel | domain | boundaries in every draw |",
        "| --- | --- | --- | --- |",
    ]
    rows += [domain_row(key, p) for key in ALL_KEYS for p in exercise(key).parts]
    return "\n".join(rows)

"""Exercise 03: matrix multiplication, one thread per output and then tiled in shared memory."""

from __future__ import annotations

import math

import numpy as np

from pdc.grade.sizes import edges_2d, grid2, rand
from pdc.grade.spec import Case, Exercise, Part

TILE = 16


def matmul_spec(a, b):
    """Reference: the matrix product in float32."""
    return (a @ b).astype(np.float32)


def _make_matmul(rng, sizes):
    m, k, n = sizes
    args = {"A": rand(rng, (m, k)), "B": rand(rng, (k, n)), "C": np.zeros((m, n), np.float32)}
    return Case(
        f"A {m}x{k} @ B {k}x{n}",
        args,
        ("C",),
        grid2(m, n, TILE),
        (TILE, TILE),
        dims={"m": m, "k": k, "n": n},
    )


def _hidden_matmul(rng):
    """(m, k, n) sizes: every draw has each boundary of ``_MATMUL_BOUNDARIES``.

    k spans three tiles while the grid is one tile in each direction (a kernel that loops over
    gridDim.x or gridDim.y tiles instead of ceil(k / TILE) misses two of them); a grid several
    tiles wide and one tall, and one several tall and one wide (rows and columns swapped
    show); m, k and n each a row short of and a row past a tile. m, k and n each exceed the
    largest public one (20, 18, 33) on every draw: a kernel bounded by the sizes it was tested
    on meets a wider C.
    """

    def near(side):
        return int(rng.choice([TILE, 2 * TILE])) + side

    return [
        (TILE - 1, 2 * TILE + int(rng.integers(1, TILE)), int(rng.integers(1, TILE + 1))),
        (int(rng.integers(1, TILE + 1)), near(-1), 3 * TILE + 1),
        (2 * TILE + 1, int(rng.integers(1, 2 * TILE)), TILE - 1),
        (near(+1), near(+1), near(+1)),
    ]


def _element_work(case) -> int:
    """Memory operations one thread may make for its element of C: a row of A and a column
    of B (2 K loads), or an accumulator kept in C (2 K more), plus a few; a thread that
    computes a whole tile for the others makes hundreds per element."""
    return 4 * case.dims["k"] + 8


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
            max_work=_element_work,
            work_what="expected for one element of C (a row of A and a column of B)",
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

EXERCISE = MATMUL

"""Exercise 09: matrix transpose, naive, through a shared tile, and through a padded tile.

``out[j, i] = a[i, j]`` for a float32 ``(rows, cols)`` matrix. A transpose does no arithmetic:
it is pure data movement, so how the warps touch memory is all that matters. The naive kernel
reads rows and writes columns (its stores are strided); the tiled kernels stage a
``TILE x TILE`` block in shared memory so that both the global loads and the global stores of
a warp fall on consecutive addresses. An unpadded ``(TILE, TILE)`` tile is then read down a
column, which puts all 32 lanes of a warp in one shared-memory bank; a ``(TILE, TILE + 1)``
tile shifts each row by one bank and removes the conflict.

Criteria of this exercise's own (``Part.judges``):

* ``memory`` (tiled and padded kernels): every warp-wide global load of ``a`` and store of
  ``out`` touches at most one 32-byte sector more than its bytes need (a contiguous run can
  straddle one sector boundary; a strided one touches a sector per lane).
* ``conflicts`` (padded kernel): the tile lives in shared memory and no shared access costs
  more than one wavefront (``report.conflicts() == 0``).
"""

from __future__ import annotations

import math

import numpy as np

from pdc.grade.sizes import edges_2d
from pdc.grade.spec import Case, Exercise, Part

TILE = 32  # a TILE x TILE tile per block of the tiled kernels: one warp spans a tile row
BLOCK_ROWS = 8  # tiled kernels run (TILE, BLOCK_ROWS) threads: each moves TILE // BLOCK_ROWS
#: A tiled kernel's busiest thread may exceed the model's budget (pdc.grade.profile) only while
#: it makes at most this many times the mean of the threads that touch memory. One thread
#: loading the block's tile makes about 100 times that mean; a kernel whose every thread
#: repeats work alike stays below 4 even on a one-column matrix, where the threads left with
#: work are few and uneven by the shape alone (measured: 3.8). One warp loading the tile makes
#: 3.6 to 5 times the mean, too close to tell apart: TILE_WORK catches it.
IMBALANCE = 4.0
#: Memory accesses one thread of a tiled kernel may make: the model's busiest thread makes 16
#: (four elements, each loaded, stored to the tile, read back and stored), twice that plus 8.
#: One warp loading the whole tile makes 72; every thread walking the tile's rows with a
#: guard still makes 16.
TILE_WORK = 2 * 4 * (TILE // BLOCK_ROWS) + 8
TILE_WORK_WHAT = "expected for the four elements a thread moves (each loaded, kept, read, stored)"

#: Small primes for hidden sizes: never a multiple of a warp, a tile or a block.
_PRIMES = (3, 5, 7, 11, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53)


def transpose_spec(a: np.ndarray) -> np.ndarray:
    """Reference: ``out[j, i] = a[i, j]``, as a new C-contiguous float32 array."""
    return np.ascontiguousarray(a.T, dtype=np.float32)


def naive_launch(rows: int, cols: int) -> tuple[tuple, tuple]:
    """Grid and block of the naive kernel: one thread per element of ``a`` (x: columns)."""
    grid = (max(1, math.ceil(cols / TILE)), max(1, math.ceil(rows / BLOCK_ROWS)))
    return grid, (TILE, BLOCK_ROWS)


def tiled_launch(rows: int, cols: int) -> tuple[tuple, tuple]:
    """Grid and block of the tiled kernels: one block per TILE x TILE tile of ``a``."""
    grid = (max(1, math.ceil(cols / TILE)), max(1, math.ceil(rows / TILE)))
    return grid, (TILE, BLOCK_ROWS)


def _make(launch):
    def make(rng: np.random.Generator, sizes: tuple) -> Case:
        rows, cols = sizes
        a = rng.uniform(-1.0, 1.0, size=(rows, cols)).astype(np.float32)
        args = {"a": a, "out": np.zeros((cols, rows), np.float32)}
        grid, block = launch(rows, cols)
        return Case(
            f"a {rows}x{cols}", args, ("out",), grid, block, dims={"rows": rows, "cols": cols}
        )

    return make


def _hidden(rng: np.random.Generator) -> list[tuple[int, int]]:
    """Rows and columns each a row short of and past a tile (never square), a single row, a
    single column, and two distinct primes below a tile."""

    below = int(rng.choice([TILE - 1, 2 * TILE - 1]))  # past 2 * TILE: too slow to simulate
    primes = [int(p) for p in rng.choice([p for p in _PRIMES if p < TILE], 2, replace=False)]
    return [
        (below, TILE + 1),
        (TILE + 1, below),
        (1, int(rng.integers(2, 2 * TILE + 3))),
        (int(rng.integers(2, 2 * TILE + 3)), 1),
        (primes[0], primes[1]),
    ]


_BOUNDARIES = {
    **edges_2d(TILE, "rows", "cols"),
    "a single row": lambda c: c.dims["rows"] == 1 < c.dims["cols"],
    "a single column": lambda c: c.dims["cols"] == 1 < c.dims["rows"],
    "smaller than a tile, not square": lambda c: (
        c.dims["rows"] != c.dims["cols"]
        and max(c.dims["rows"], c.dims["cols"]) < TILE
        and min(c.dims["rows"], c.dims["cols"]) > 1
    ),
}
_DOMAIN = f"any rows x cols >= 1 x 1; TILE = {TILE}, block ({TILE}, {BLOCK_ROWS})"


def _where(r) -> str:
    return r.case.label if r.case.hidden else f"case {r.case.label}"


def one_pass_sectors(rows: int, cols: int, itemsize: int = 4) -> int:
    """The most sectors a coalesced single pass over a (rows, cols) array touches.

    Each row is moved in warp-wide runs of up to TILE elements; a run of ``w`` elements fills
    ``ceil(w * itemsize / 32)`` sectors, and one more where it straddles a sector boundary.
    """
    full, rest = divmod(cols, TILE)
    per_row = full * (-(-TILE * itemsize // 32) + 1)
    if rest:
        per_row += -(-rest * itemsize // 32) + 1
    return rows * per_row


def _strided_request(r) -> str | None:
    """Why some warp request to ``a`` or ``out`` is not one contiguous run (None: none is).

    Judged per instruction and request (pdc.grade.simreport's ``requests``), as a profiler
    counts sectors per request: coalesced requests elsewhere cannot hide a strided one.
    """
    requests = getattr(r.report, "requests", None)
    if requests is None:
        raise TypeError(f"[transpose] expected report.requests for {_where(r)}, got None")
    for key, v in requests.items():
        name, kind, line = key.split(":")
        if (name, kind) not in (("a", "load"), ("out", "store")) or not v["over"]:
            continue
        what = "loads of a" if name == "a" else "stores to out"
        if r.case.hidden:
            return f"{_where(r)}: {what} are not coalesced"
        return (
            f"{_where(r)}: {what} are not coalesced: at kernel line {line}, {v['over']} of "
            f"{v['requests']} warp requests touch more sectors than their elements fill (up "
            f"to {v['worst']} more; {v['sectors'] / v['requests']:.1f} sectors per request, "
            f"{v['ideal'] / v['requests']:.1f} needed): do consecutive lanes (threadIdx.x) "
            "touch consecutive elements of that array?"
        )
    return None


def _coalescing(part: Part, results: list) -> tuple[float, str]:
    """Judge ``memory``: each warp access of ``a`` and ``out`` is one contiguous run.

    A run of ``b`` contiguous bytes occupies ``ceil(b / 32)`` sectors, or one more when it
    straddles a sector boundary, so a coalesced kernel keeps ``sectors <= ideal + accesses``
    for every array; a strided warp access touches one sector per lane. Totals alone could
    be padded with extra coalesced accesses (re-reading rows hides a strided read), so the
    sectors are also held to those of one coalesced pass over the array
    (``one_pass_sectors``): a transpose moves each element once, and every extra access
    only adds sectors. Before the totals, every instruction's requests are judged one by
    one (``_strided_request``).
    """
    for r in sorted(results, key=lambda r: r.case.hidden):  # public cases can explain
        sectors = getattr(r.report, "sectors", None)
        if sectors is None:
            raise TypeError(f"[transpose] expected report.sectors for {_where(r)}, got None")
        if not sectors:  # the simulator lists every global array, touched or not
            return 0.0, f"{_where(r)}: no sector counts came back from the simulator"
        rows, cols = r.case.dims["rows"], r.case.dims["cols"]
        if (why := _strided_request(r)) is not None:
            return 0.0, why
        for key, what in (("a:load", "loads of a"), ("out:store", "stores to out")):
            s = sectors.get(key)
            if s is None or s["accesses"] == 0:
                return 0.0, f"{_where(r)}: no {what} were made"
            budget = one_pass_sectors(*((rows, cols) if key.startswith("a:") else (cols, rows)))
            strided = s["sectors"] > s["ideal"] + s["accesses"]
            if (strided or s["sectors"] > budget) and r.case.hidden:  # counts reveal sizes
                return 0.0, f"{_where(r)}: {what} are not coalesced"
            if not strided and s["sectors"] > budget:
                return 0.0, (
                    f"{_where(r)}: {what} are not coalesced: {s['sectors']} sectors, where one "
                    f"coalesced pass over the array touches at most {budget}: is each element "
                    "moved once, by consecutive lanes (threadIdx.x)?"
                )
            if strided:
                per = s["sectors"] / s["accesses"]
                ideal = s["ideal"] / s["accesses"]
                return 0.0, (
                    f"{_where(r)}: {what} are not coalesced: {per:.1f} sectors per warp "
                    f"access, {ideal:.1f} needed ({s['sectors']} sectors for "
                    f"{s['accesses']} warp accesses): do consecutive lanes (threadIdx.x) "
                    "touch consecutive elements of that array?"
                )
    return 1.0, "global loads and stores are coalesced (sectors per warp access near ideal)"


def _conflict_free(part: Part, results: list) -> tuple[float, str]:
    """Judge ``conflicts``: the transpose goes through a tile in shared memory, and no access
    to it is bank-conflicted.

    A kernel that is conflict-free only because its tile does not carry the transpose (a
    shared array touched on the side, or a tile copied in and out row by row while global
    memory is written down columns) earns nothing: every element must be stored to and
    loaded from shared memory, and the global accesses must be coalesced (``memory``), which
    only a transpose through the tile achieves.
    """
    ordered = sorted(results, key=lambda r: r.case.hidden)
    for r in ordered:
        if getattr(r.report, "bank_conflicts", None) is None:
            raise TypeError(f"[transpose] expected report.bank_conflicts for {_where(r)}, got None")
        if not r.report.bank_conflicts:
            return 0.0, f"{_where(r)}: no shared memory is used: stage the tile in shared memory"
    frac, why = _coalescing(part, results)
    if frac < 1.0:
        return 0.0, why
    for r in ordered:
        banks = r.report.bank_conflicts
        moved = r.case.dims["rows"] * r.case.dims["cols"]
        if min(int(r.report.shared_stores.sum()), int(r.report.shared_loads.sum())) < moved:
            return 0.0, (
                f"{_where(r)}: the tile does not carry the transpose: every element of a "
                "is stored to shared memory and read back from it once"
            )
        extra = r.report.conflicts()
        if extra == 0:
            continue
        line, worst = max(banks.items(), key=lambda kv: kv[1]["wavefronts"] - kv[1]["accesses"])
        if r.case.hidden:
            return 0.0, f"{_where(r)}: bank conflicts at kernel line {line}"
        return 0.0, (
            f"{_where(r)}: bank conflicts at kernel line {line} (`{worst['text']}`): up to "
            f"{worst['worst']}-way, {worst['wavefronts']} wavefronts for {worst['accesses']} "
            f"warp accesses ({extra} extra in all): does the tile need a padding column?"
        )
    return 1.0, "no shared-memory bank conflicts"


_PUBLIC = [(40, 70), (32, 32), (5, 3)]

TRANSPOSE = Exercise(
    "09_transpose",
    "Matrix transpose",
    [
        Part(
            "transpose_naive",
            "out[j, i] = a[i, j], one thread per element",
            ("a", "out"),
            public=_PUBLIC,
            hidden=_hidden,
            domain=_DOMAIN,
            boundaries=_BOUNDARIES,
            make=_make(naive_launch),
            reference=lambda a: {"out": transpose_spec(a["a"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "parallel": 1},
            max_stores=1,
            rtol=0.0,
            atol=0.0,
        ),
        Part(
            "transpose_tiled",
            "the transpose through a TILE x TILE shared tile",
            ("a", "out"),
            public=_PUBLIC,
            hidden=_hidden,
            domain=_DOMAIN,
            boundaries=_BOUNDARIES,
            make=_make(tiled_launch),
            reference=lambda a: {"out": transpose_spec(a["a"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "sync": 1, "parallel": 1, "memory": 2},
            max_stores=TILE // BLOCK_ROWS,
            max_work=lambda case: TILE_WORK,
            work_what=TILE_WORK_WHAT,
            model_ops=78,  # the model answer's busiest thread (pdc.grade.profile)
            model_span=39,
            imbalance=IMBALANCE,
            judges={"memory": _coalescing},
            titles={"memory": "coalesced global loads and stores (sectors per warp access)"},
            rtol=0.0,
            atol=0.0,
        ),
        Part(
            "transpose_padded",
            "the tiled transpose without shared-memory bank conflicts",
            ("a", "out"),
            public=_PUBLIC,
            hidden=_hidden,
            domain=_DOMAIN,
            boundaries=_BOUNDARIES,
            make=_make(tiled_launch),
            reference=lambda a: {"out": transpose_spec(a["a"])},
            points={
                "public": 1,
                "hidden": 1,
                "bounds": 1,
                "sync": 1,
                "parallel": 1,
                "memory": 1,
                "conflicts": 2,
            },
            max_stores=TILE // BLOCK_ROWS,
            max_work=lambda case: TILE_WORK,
            work_what=TILE_WORK_WHAT,
            model_ops=78,  # the model answer's busiest thread (pdc.grade.profile)
            model_span=39,
            imbalance=IMBALANCE,
            judges={"memory": _coalescing, "conflicts": _conflict_free},
            titles={
                "memory": "coalesced global loads and stores (sectors per warp access)",
                "conflicts": "no shared-memory bank conflicts (report.conflicts() == 0)",
            },
            rtol=0.0,
            atol=0.0,
        ),
    ],
    {"TILE": TILE, "BLOCK_ROWS": BLOCK_ROWS},
)

EXERCISE = TRANSPOSE

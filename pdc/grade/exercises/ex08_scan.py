"""Exercise 08: inclusive prefix sum (scan), one block at a time, then across blocks.

``out[i] = x[0] + x[1] + ... + x[i]`` (``np.cumsum``) for a float32 ``x``. The inputs are
small nonzero multiples of 1/4, so every partial sum is exact and any order of additions
gives the same bits: a wrong value is a wrong kernel, never rounding. They are not whole
numbers, so a kernel that keeps the tile in an integer array (truncating) is caught too.

* ``block_scan(x, out, block_sums)``: block ``b`` of ``TPB`` threads scans its tile
  ``x[b*TPB : (b+1)*TPB]`` in shared memory and writes the tile's inclusive scan to ``out``
  and the tile's total to ``block_sums[b]``.
* ``add_block_offsets(out, offsets)``: ``out`` holds the per-block scans and ``offsets`` the
  inclusive scan of the block totals (``block_scan`` again, on ``block_sums``); adding
  ``offsets[b - 1]`` to every element of block ``b > 0`` turns ``out`` into ``np.cumsum(x)``.

Criteria of this exercise's own (``Part.judges``):

* ``work`` (block scan): memory accesses per block (shared and global, as counted by
  ``report.work()``) stay within ``WORK_PER_ELEMENT`` per element: a work-efficient
  (Blelloch) scan touches each element a constant number of times; Hillis-Steele's
  ``log2(TPB)`` passes over the whole tile do not fit. Nor may a block store more than
  ``SHARED_STORES_PER_ELEMENT`` values per element to shared memory: Hillis-Steele that keeps
  its running sum in a register still rewrites every element at every level (2 accesses per
  level, under ``WORK_PER_ELEMENT``). Hillis-Steele still earns every other point.
* ``parallel`` (block scan): no thread makes more than a tree's share of accesses (a serial
  loop in thread 0 makes two per element), nor more operations between two barriers than
  pdc.grade.profile allows beside the model answer's: one lane per half-warp scanning its 16
  values alone stays under the access budget but makes ~130 operations where the model's
  levels, a barrier apart, make at most 16.
"""

from __future__ import annotations

import math

import numpy as np

from pdc.grade import profile
from pdc.grade.sizes import edges_1d, past_public
from pdc.grade.spec import Case, Exercise, Part

TPB = 128  # threads per block, a power of two: each block scans TPB elements
#: Memory accesses per element a work-efficient block scan may make (Blelloch's makes ~12,
#: Hillis-Steele's ~3 log2(TPB) + 3 = 24 at TPB = 128).
WORK_PER_ELEMENT = 16
#: Shared-memory stores per element of a work-efficient block scan: Blelloch's stores the
#: element, then about one value per element in the up-sweep and two in the down-sweep (3.98
#: at TPB = 128, as measured); Hillis-Steele stores every element at each of the log2(TPB) = 7
#: levels (6 if it skips the elements nobody reads next).
SHARED_STORES_PER_ELEMENT = 5
#: Memory accesses one thread of the block scan may make, set by the model answer's busiest
#: thread: 3 per level of the up-sweep, 4 per level of the down-sweep and 14 around them
#: (7 log2(TPB) + 14 = 63 at TPB = 128, as measured), with one access per level to spare.
#: One lane that scans its warp's 32 values alone makes 2 * 32 in its loop and ~78 in all.
MAX_THREAD_WORK = 8 * int(math.log2(TPB)) + 14
_PRIMES = (131, 137, 251, 263, 383, 389, 509, 521, 641, 653, 769, 787, 1021)


def values(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` nonzero multiples of 1/4 in ``[-9, 9]`` as float32: every prefix sum is exact.

    Quarters, not whole numbers: a sum of n of them needs at most log2(36 n) bits of
    mantissa (24 in float32), and an integer tile would drop the fractions.
    """
    v = rng.integers(1, 37, n) * rng.choice([-1, 1], n)
    return (v / 4).astype(np.float32)


def scan_spec(x: np.ndarray) -> np.ndarray:
    """Reference: the inclusive prefix sum of ``x`` (``np.cumsum``), float32."""
    return np.cumsum(np.asarray(x, dtype=np.float64)).astype(np.float32)


def block_scan_spec(x: np.ndarray, tpb: int = TPB) -> tuple[np.ndarray, np.ndarray]:
    """Reference: each ``tpb``-element tile's inclusive scan, and each tile's total.

    Returns:
        ``(out, block_sums)``: float32 arrays of ``x.size`` and ``ceil(x.size / tpb)``
        elements (at least one block).
    """
    blocks = max(1, math.ceil(x.size / tpb))
    padded = np.zeros(blocks * tpb, np.float64)
    padded[: x.size] = x
    tiles = np.cumsum(padded.reshape(blocks, tpb), axis=1)
    return tiles.reshape(-1)[: x.size].astype(np.float32), tiles[:, -1].astype(np.float32)


def add_offsets_spec(out: np.ndarray, offsets: np.ndarray, tpb: int = TPB) -> np.ndarray:
    """Reference: ``out[i] + offsets[i // tpb - 1]`` (nothing added in block 0), float32."""
    before = np.concatenate([[0.0], np.asarray(offsets, np.float64)[:-1]])
    block = np.arange(out.size) // tpb
    return (np.asarray(out, np.float64) + before[block]).astype(np.float32)


def launch(n: int) -> tuple[tuple, tuple]:
    """Grid and block of both kernels: one thread per element, ``ceil(n / TPB)`` blocks."""
    return (max(1, math.ceil(n / TPB)),), (TPB,)


def _make_block_scan(rng: np.random.Generator, sizes: tuple) -> Case:
    (n,) = sizes
    grid, block = launch(n)
    args = {
        "x": values(rng, n),
        "out": np.zeros(n, np.float32),
        "block_sums": np.zeros(grid[0], np.float32),
    }
    return Case(f"n={n}", args, ("out", "block_sums"), grid, block, dims={"n": n})


def _make_add_offsets(rng: np.random.Generator, sizes: tuple) -> Case:
    (n,) = sizes
    scans, sums = block_scan_spec(values(rng, n))
    offsets = scan_spec(sums)  # what block_scan makes of block_sums (one block: blocks <= TPB)
    grid, block = launch(n)
    args = {"out": scans, "offsets": offsets}
    return Case(f"n={n}", args, ("out",), grid, block, dims={"n": n})


_PUBLIC_BLOCK_SCAN = [(1000,), (128,), (5,)]
#: The least size needing more blocks than any public case (1000 elements: 8 blocks): a
#: kernel that keeps a slot per public block meets one more on every draw.
_PAST = past_public(TPB, [n for (n,) in _PUBLIC_BLOCK_SCAN])


def _hidden_block_scan(rng: np.random.Generator) -> list[tuple[int]]:
    """A block short of and past a multiple (more blocks than any public case), an exact
    multiple, a single element, a prime."""
    return [
        (int(rng.integers(1, 9)) * TPB - 1,),
        (_PAST,),  # one element in a block past the public ones
        (int(rng.integers(2, 9)) * TPB,),
        (1,),
        (int(rng.choice(_PRIMES)),),
    ]


def _hidden_add_offsets(rng: np.random.Generator) -> list[tuple[int]]:
    """Always two blocks or more (one block has nothing to add): near multiples, a prime, an
    exact multiple of more blocks than any public case."""
    k = int(rng.integers(2, 9))
    past = (int(rng.integers(0, 4)) + math.ceil(_PAST / TPB)) * TPB  # 9 to 12 full blocks
    return [(k * TPB - 1,), (TPB + 1,), (int(rng.choice(_PRIMES)),), (past,)]


_BLOCK_SCAN_BOUNDARIES = {**edges_1d(TPB, what="TPB"), "n = 1": lambda c: c.dims["n"] == 1}
_ADD_OFFSETS_BOUNDARIES = {
    **edges_1d(TPB, what="TPB"),
    "n = TPB + 1 (the last block holds one element)": lambda c: c.dims["n"] == TPB + 1,
}


def _where(r) -> str:
    return r.case.label if r.case.hidden else f"case {r.case.label}"


def _spread(part: Part, results: list) -> tuple[float, str]:
    """Judge ``parallel``: no thread walks the tile by itself."""
    for r in sorted(results, key=lambda r: r.case.hidden):  # public cases can explain
        worst, bound = int(r.report.work().max()), MAX_THREAD_WORK
        if worst > bound:
            if r.case.hidden:
                return 0.0, f"{_where(r)}: one thread does the work of many"
            return 0.0, (
                f"{_where(r)}: one thread made {worst} memory accesses, at most {bound} "
                "expected for a parallel scan (a few per level of the tree): is one thread "
                "looping over the whole tile?"
            )
        if (busy := profile.too_busy(part, r)) is not None:
            return 0.0, busy
    return 1.0, "work is spread over the threads"


def _block_work(report, tpb: int = TPB) -> np.ndarray:
    """Memory accesses (shared and global) each block made, from a launch report."""
    return report.work().reshape(-1, tpb).sum(axis=1)


def _work_efficient(part: Part, results: list) -> tuple[float, str]:
    """Judge ``work``: at most ``WORK_PER_ELEMENT`` memory accesses per element and block."""
    bound = WORK_PER_ELEMENT * TPB
    most = 0
    for r in sorted(results, key=lambda r: r.case.hidden):
        per_block = _block_work(r.report, math.prod(r.case.block))
        worst = int(per_block.max())
        stores = int(r.report.shared_stores.reshape(-1, math.prod(r.case.block)).sum(axis=1).max())
        if stores > SHARED_STORES_PER_ELEMENT * TPB:
            if r.case.hidden:
                return 0.0, f"{_where(r)}: not work-efficient"
            return 0.0, (
                f"{_where(r)}: a block stored {stores} values to shared memory "
                f"({stores / TPB:.1f} per element), at most {SHARED_STORES_PER_ELEMENT} per "
                "element expected of a work-efficient scan: each level of Hillis-Steele "
                f"rewrites the whole tile, log2(TPB) = {int(math.log2(TPB))} times; "
                "Blelloch's sweeps store each element a constant number of times."
            )
        if worst <= bound:
            most = max(most, worst)
            continue
        if r.case.hidden:
            return 0.0, f"{_where(r)}: not work-efficient"
        return 0.0, (
            f"{_where(r)}: a block made {worst} memory accesses ({worst / TPB:.1f} per "
            f"element), at most {bound} ({WORK_PER_ELEMENT} per element) expected of a "
            f"work-efficient scan. Hillis-Steele passes over the whole tile log2(TPB) = "
            f"{int(math.log2(TPB))} times (O(n log n) work); Blelloch's up-sweep and "
            "down-sweep touch each element a constant number of times (O(n))."
        )
    return 1.0, (
        f"work-efficient: at most {most} memory accesses per block "
        f"({most / TPB:.1f} per element, {WORK_PER_ELEMENT} allowed)"
    )


SCAN = Exercise(
    "08_scan",
    "Prefix sum (scan)",
    [
        Part(
            "block_scan",
            "out = each block's inclusive scan, block_sums = each block's total",
            ("x", "out", "block_sums"),
            public=_PUBLIC_BLOCK_SCAN,
            hidden=_hidden_block_scan,
            domain=f"any n >= 1; TPB = {TPB}",
            boundaries=_BLOCK_SCAN_BOUNDARIES,
            make=_make_block_scan,
            reference=lambda a: dict(zip(("out", "block_sums"), block_scan_spec(a["x"]))),
            points={"public": 1, "hidden": 1, "bounds": 1, "sync": 1, "parallel": 1, "work": 1},
            judges={"parallel": _spread, "work": _work_efficient},
            model_ops=204,  # the model answer's busiest thread (pdc.grade.profile)
            model_span=16,  # barriers between the tree's levels keep each stretch short
            titles={
                "work": f"work-efficient: at most {WORK_PER_ELEMENT} memory accesses per "
                "element and block (Blelloch, not Hillis-Steele)",
            },
            rtol=0.0,
            atol=0.0,
        ),
        Part(
            "add_block_offsets",
            "out += offsets[b - 1] in block b: the whole array's np.cumsum",
            ("out", "offsets"),
            public=[(1000,), (256,), (300,)],
            hidden=_hidden_add_offsets,
            domain=f"any n > TPB (one block has nothing to add); TPB = {TPB}",
            boundaries=_ADD_OFFSETS_BOUNDARIES,
            make=_make_add_offsets,
            reference=lambda a: {"out": add_offsets_spec(a["out"], a["offsets"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "parallel": 1},
            max_stores=1,
            model_ops=7,  # the model answer's busiest thread (pdc.grade.profile)
            model_span=7,
            rtol=0.0,
            atol=0.0,
        ),
    ],
    {"TPB": TPB},
)

EXERCISE = SCAN

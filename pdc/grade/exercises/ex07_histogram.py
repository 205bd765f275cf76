"""Exercise 07: histogram of a byte stream, with global atomics, then privatised per block.

``values`` is a stream of bytes from a 6-bit sensor: codes ``0 .. BINS - 1`` are readings,
codes ``BINS .. 255`` flag a failed reading and are not counted. ``hist[b]`` must end up as
the number of readings equal to ``b`` (``hist`` arrives zeroed). Many threads add into the
same bin, so the updates must be atomic; and atomics on one address are served one after
another, so a skewed input (every value the same) serialises the whole grid on one bin.

* ``histogram_global``: one thread per value, one ``cuda.atomic.add`` on ``hist`` per reading.
* ``histogram_shared``: a fixed grid of ``BLOCKS`` blocks walks the stream with a grid-stride
  loop; each block counts into its own histogram in shared memory (zeroed, barrier, shared
  atomics, barrier) and then adds each nonzero bin to ``hist`` once.

Criteria of this exercise's own (``Part.judges``):

* ``atomics`` (shared kernel): every bin of ``hist`` receives at most one global atomic per
  block (``report.contention("hist") <= blocks``), so at most ``BINS x blocks`` in all.
* ``parallel``: one thread makes no more memory accesses than its share of the stream needs.
"""

from __future__ import annotations

import math

import numpy as np

from pdc.grade.sizes import past_public
from pdc.grade.spec import Case, Exercise, Part

TPB = 128  # threads per block
#: Memory operations one thread of histogram_global may make: its value and its atomic, and
#: room for a repeated read; a thread that walks the stream for its bin makes thousands.
GLOBAL_WORK = 8
#: The busiest thread's operations may exceed the model's budget only when they stay within
#: this many times the mean of the threads that touch memory (pdc.grade.profile).
IMBALANCE = 4.0
BINS = 64  # readings are 6-bit: codes 0..63; codes 64..255 flag a failed reading
BLOCKS = 4  # the privatised kernel's fixed grid (on a GPU: a few blocks per SM)

#: Input shapes, by the key a size tuple carries, and how feedback names them.
KINDS = {"uniform": "uniform", "hot": "three hot bins", "same": "all equal"}
#: The last bin's code, the first failed reading's and the largest byte.
EDGES = (BINS - 1, BINS, 255)
_ERROR_RATE = 1 / 8  # share of failed readings in the uniform and hot streams
_PRIMES = (211, 257, 401, 509, 521, 677, 883, 1021, 1031, 1297, 1543, 2053)


def histogram_spec(values: np.ndarray) -> np.ndarray:
    """Reference: ``hist[b]`` = number of ``values`` equal to ``b``, for ``b < BINS``, int32."""
    v = np.asarray(values)
    return np.bincount(v[v < BINS].astype(np.int64), minlength=BINS).astype(np.int32)


def stream(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    """A byte stream of ``n`` values shaped like ``kind`` (see ``KINDS``).

    Args:
        rng: Where the values come from.
        n: Number of values.
        kind: ``"uniform"`` readings, ``"hot"`` (nine in ten fall in three bins) or
            ``"same"`` (every value one reading: the worst case for atomics).

    Returns:
        A uint8 array; uniform and hot streams carry about one failed reading (a code of
        ``BINS`` or more) in eight, never as their first value, so every stream counts
        something, and from 4 values on each of the edge codes ``EDGES`` at least once (a
        guard off by one either way shows on every such stream, not on one in two).

    Raises:
        ValueError: ``kind`` is not one of ``KINDS`` or ``n`` is below 1.
    """
    if kind not in KINDS or n < 1:
        raise ValueError(
            f"[histogram.stream] expected n >= 1 and a kind in {list(KINDS)}, "
            f"got n={n}, kind={kind!r}"
        )
    if kind == "same":
        return np.full(n, rng.integers(0, BINS), dtype=np.uint8)
    v = rng.integers(0, BINS, n)
    if kind == "hot":
        hot = rng.choice(BINS, size=3, replace=False)
        pick = rng.random(n) < 0.9
        v[pick] = rng.choice(hot, size=int(pick.sum()), p=[0.5, 0.3, 0.2])
    failed = rng.random(n) < _ERROR_RATE
    failed[0] = False
    v[failed] = rng.integers(BINS, 256, int(failed.sum()))
    if n >= 4:
        v[1 + rng.choice(n - 1, size=len(EDGES), replace=False)] = EDGES
    return v.astype(np.uint8)


def global_launch(n: int) -> tuple[tuple, tuple]:
    """Grid and block of ``histogram_global``: one thread per value."""
    return (max(1, math.ceil(n / TPB)),), (TPB,)


def shared_launch(n: int) -> tuple[tuple, tuple]:
    """Grid and block of ``histogram_shared``: ``BLOCKS`` blocks, whatever ``n`` is."""
    return (BLOCKS,), (TPB,)


def _make(launch):
    def make(rng: np.random.Generator, sizes: tuple) -> Case:
        n, kind = sizes
        args = {"values": stream(rng, n, kind), "hist": np.zeros(BINS, np.int32)}
        grid, block = launch(n)
        dims = {"n": n, "kind": kind}
        return Case(f"n={n}, {KINDS[kind]}", args, ("hist",), grid, block, dims=dims)

    return make


_PUBLIC_GLOBAL = [(1000, "uniform"), (300, "same"), (777, "hot")]
#: Prime sizes that need more blocks than any public stream: one on every draw.
_PRIMES_PAST = tuple(p for p in _PRIMES if p >= past_public(TPB, [n for n, _ in _PUBLIC_GLOBAL]))


def _hidden_global(rng: np.random.Generator) -> list[tuple[int, str]]:
    """A block short of and past a multiple, a single value, a prime of more blocks than any
    public stream; every shape each draw."""
    kinds = [str(s) for s in rng.permutation(list(KINDS))] + [str(rng.choice(list(KINDS)))]
    return [
        (int(rng.integers(1, 12)) * TPB - 1, kinds[0]),
        (int(rng.integers(1, 12)) * TPB + 1, kinds[1]),
        (1, kinds[2]),
        (int(rng.choice(_PRIMES_PAST)), kinds[3]),
    ]


#: Values per thread of the privatised kernel's large hidden cases: well past a kernel that
#: handles a fixed few values per thread instead of striding over the whole stream.
MANY_PER_THREAD = 8


def _hidden_shared(rng: np.random.Generator) -> list[tuple[int, str]]:
    """Fewer values than threads, one past the grid's width, many values per thread (uniform
    and skewed), and every value equal."""
    grid_width = BLOCKS * TPB
    many = (MANY_PER_THREAD * grid_width + 1, (MANY_PER_THREAD + 2) * grid_width)
    return [
        (int(rng.integers(1, TPB)), str(rng.choice(list(KINDS)))),
        (grid_width * int(rng.integers(1, 5)) + 1, str(rng.choice(list(KINDS)))),
        (int(rng.integers(*many)), "uniform"),
        (int(rng.integers(*many)), "hot"),
        (int(rng.integers(grid_width, 5 * grid_width)), "same"),
    ]


def _per_thread(c: Case) -> float:
    return c.dims["n"] / (math.prod(c.grid) * math.prod(c.block))


_EDGE_NAME = "a stream holding the codes BINS - 1, BINS and 255 (a guard off by one shows)"
_GLOBAL_BOUNDARIES = {
    "n one below a multiple of TPB": lambda c: c.dims["n"] % TPB == TPB - 1,
    "n one above a multiple of TPB": lambda c: c.dims["n"] % TPB == 1 and c.dims["n"] > TPB,
    "n = 1": lambda c: c.dims["n"] == 1,
    "a uniform stream": lambda c: c.dims["kind"] == "uniform",
    "a skewed stream (three hot bins)": lambda c: c.dims["kind"] == "hot",
    "a stream of one repeated value": lambda c: c.dims["kind"] == "same",
    **{_EDGE_NAME: lambda c: c.dims["kind"] != "same" and c.dims["n"] >= 4},
}

_SHARED_BOUNDARIES = {
    "fewer values than the threads of one block": lambda c: c.dims["n"] < TPB,
    "n one above a multiple of the grid's width": lambda c: (
        c.dims["n"] % (BLOCKS * TPB) == 1 and c.dims["n"] > BLOCKS * TPB
    ),
    f"more than {MANY_PER_THREAD} values per thread, uniform": lambda c: (
        _per_thread(c) > MANY_PER_THREAD and c.dims["kind"] == "uniform"
    ),
    f"more than {MANY_PER_THREAD} values per thread, skewed (three hot bins)": lambda c: (
        _per_thread(c) > MANY_PER_THREAD and c.dims["kind"] == "hot"
    ),
    "one repeated value, more values than threads": lambda c: (
        c.dims["kind"] == "same" and _per_thread(c) >= 1
    ),
    **{_EDGE_NAME: lambda c: c.dims["kind"] != "same" and c.dims["n"] >= 4},
}


def _where(r) -> str:
    return r.case.label if r.case.hidden else f"case {r.case.label}"


def _max_work(case: Case) -> int:
    """Memory accesses one thread needs in the privatised kernel, with room to spare.

    Per value: a load and a shared atomic (a load and a store); per bin it owns: a zeroing
    store, a read and a global atomic. Twice the per-value cost leaves room for other layouts.
    """
    per_thread = math.ceil(case.dims["n"] / (math.prod(case.grid) * math.prod(case.block)))
    return 6 * per_thread + 4 * math.ceil(BINS / TPB) + 12


def _spread(part: Part, results: list) -> tuple[float, str]:
    """Judge ``parallel`` (shared kernel): no thread does the work of many."""
    for r in sorted(results, key=lambda r: r.case.hidden):  # public cases can explain
        worst, bound = int(r.report.work().max()), _max_work(r.case)
        if worst > bound:
            if r.case.hidden:  # the counts could reveal the sizes
                return 0.0, f"{_where(r)}: one thread does the work of many"
            return 0.0, (
                f"{_where(r)}: one thread made {worst} memory accesses, at most {bound} "
                "expected when each thread counts its share of the stream: is one thread "
                "(or one thread per bin) reading values that others should read?"
            )
    return 1.0, "work is spread over the threads"


def _contention(part: Part, results: list) -> tuple[float, str]:
    """Judge ``atomics``: each bin of ``hist`` gets at most one global atomic per block."""
    most = 0
    for r in sorted(results, key=lambda r: r.case.hidden):
        counts = getattr(r.report, "atomic_counts", None)
        if counts is None or "hist" not in counts:
            raise TypeError(
                f"[histogram] expected report.atomic_counts['hist'] for {_where(r)}, got None"
            )
        blocks = math.prod(r.case.grid)
        total, worst = r.report.global_atomics(), r.report.contention("hist")
        if worst <= blocks and total <= BINS * blocks:
            most = max(most, total)
            continue
        if r.case.hidden:
            return 0.0, f"{_where(r)}: a bin received more than one global atomic per block"
        b = int(np.argmax(counts["hist"]))
        return 0.0, (
            f"{_where(r)}: {total} global atomics, at most {BINS * blocks} expected (one per "
            f"bin and block); hist[{b}] alone received {worst} from {blocks} blocks. Count "
            "in the block's shared histogram, then add each nonzero bin to hist once."
        )
    return 1.0, f"at most one global atomic per bin and block ({most} in the busiest case)"


HISTOGRAM = Exercise(
    "07_histogram",
    "Histogram with atomics",
    [
        Part(
            "histogram_global",
            "hist[v] += 1 for every reading v < BINS, one global atomic each",
            ("values", "hist"),
            public=_PUBLIC_GLOBAL,
            hidden=_hidden_global,
            domain=f"any n >= 1 bytes, uniform, skewed or constant; TPB = {TPB}",
            boundaries=_GLOBAL_BOUNDARIES,
            make=_make(global_launch),
            reference=lambda a: {"hist": histogram_spec(a["values"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "sync": 1, "parallel": 1},
            max_stores=1,
            max_work=lambda case: GLOBAL_WORK,
            model_ops=4,  # the model answer's busiest thread (pdc.grade.profile)
            model_span=4,
            # Warp-aggregated atomics (a ballot loop over the warp's distinct bins, every lane
            # taking each step) make more operations than the model, and as many in every
            # lane; one lane pulling its warp's values by shuffles makes them alone.
            imbalance=IMBALANCE,
            titles={"sync": "no data races (threads that share a bin update it atomically)"},
            rtol=0.0,
            atol=0.0,
        ),
        Part(
            "histogram_shared",
            "the same histogram, privatised per block in shared memory",
            ("values", "hist"),
            public=[(2000, "uniform"), (1500, "same"), (1000, "hot")],
            hidden=_hidden_shared,
            domain=f"any n >= 1 bytes, uniform, skewed or constant; grid BLOCKS x TPB = "
            f"{BLOCKS} x {TPB}",
            boundaries=_SHARED_BOUNDARIES,
            make=_make(shared_launch),
            reference=lambda a: {"hist": histogram_spec(a["values"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "sync": 1, "parallel": 1, "atomics": 2},
            judges={"parallel": _spread, "atomics": _contention},
            titles={
                "atomics": "contention: at most one global atomic per bin and block "
                "(report.contention('hist') <= blocks)",
            },
            rtol=0.0,
            atol=0.0,
        ),
    ],
    {"TPB": TPB, "BINS": BINS, "BLOCKS": BLOCKS},
)

EXERCISE = HISTOGRAM

"""Exercise 05: a block-level sum, a tree in shared memory."""

from __future__ import annotations

import math

import numpy as np

from pdc.grade.sizes import edges_1d, hidden_1d, rand, small
from pdc.grade.spec import Case, Exercise, Part

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
    args = {"x": rand(rng, n), "partial": np.zeros(blocks, np.float32)}
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
            hidden=hidden_1d(TPB_RED, 1400, [(1000,), (128,), (5,)]),
            domain=f"any n >= 1; TPB = {TPB_RED}",
            boundaries={**edges_1d(TPB_RED, what="TPB"), **small()},
            make=_make_block_sum,
            reference=lambda a: {"partial": block_sum_spec(a["x"])},
            points={"public": 2, "hidden": 2, "sync": 2, "parallel": 1, "memory": 1},
            max_work=lambda case: 4 * int(math.log2(TPB_RED)) + 8,
            work_what="expected for a tree reduction",
            max_contention=TPB_RED // 32,  # one atomic per warp at most, as a warp stage makes
            # The longest stretch between two barriers of the busiest thread: exercise 10's
            # warp shuffles (five levels, no barrier) are a model too; a lane that pulls its
            # warp's 31 other values one shuffle at a time is not. Operations in all are not
            # judged: a tree passes a barrier per level, and needless barriers cost steps.
            model_span=26,  # measured by pdc.grade.profile, the peer's warp stage the longest
            model_peers=("block_sum_warp",),
            global_loads=_reduction_loads,
            rtol=1e-4,
            atol=1e-4,
        )
    ],
    {"TPB": TPB_RED},
)

EXERCISE = REDUCTION

"""Exercise 10: a block sum whose last steps are warp shuffles on registers.

The output is exercise 5's: ``partial[b]`` is the sum of block ``b``'s ``TPB`` elements, zero
past the end of ``x``. Exercise 5 reduces the whole block in shared memory and passes a
``syncthreads`` per halving step. Here each warp adds its 32 values with
``cuda.shfl_down_sync`` (lane ``i`` reads lane ``i + offset``'s register: no shared memory, no
barrier), lane 0 of each warp writes its warp's sum to a shared array of ``WARPS`` floats,
the block passes one barrier, and warp 0 adds those sums with shuffles again.

Criteria of this exercise's own (``Part.judges``):

* ``parallel``: no thread loads more than ``MAX_LOADS`` elements of ``x`` (one thread, or one
  lane per warp, adding a slice alone loads dozens), and none makes more operations, or more
  between two barriers, than pdc.grade.profile allows beside the model answer's (a lane that
  gathers its warp's 32 values by 31 shuffles loads one element but makes 31 steps, not 5).
* ``masks``: no "warp" finding. A shuffle whose mask leaves out a lane that executes it, or
  names a lane that is still running but never reaches it (the lanes of warp 0 that skip its
  second stage and wait after it), is undefined on a GPU. A lane that exited (returned early)
  may be named: the CUDA programming guide asks it of "all non-exited threads named in
  mask". Reading such a lane's register is undefined, and fails the case.
* ``barriers``: a block passes at most one ``syncthreads``; exercise 5's tree passes
  ``log2(TPB) + 1``.
* ``registers``: the warp stage adds in registers. A thread makes at most ``MAX_SHARED``
  shared-memory accesses (the model makes two: a warp sum written, one read) and a block at
  most one atomic per warp.
"""

from __future__ import annotations

import math

import numpy as np

from pdc.grade import profile
from pdc.grade.exercises.ex05_reduction import block_sum_spec
from pdc.grade.judge import finding_lines
from pdc.grade.sizes import edges_1d
from pdc.grade.spec import Case, Exercise, Part

TPB = 128  # threads per block, as in exercise 5
WARP = 32
WARPS = TPB // WARP  # warp sums per block
#: Shared-memory accesses one thread may make: its warp's sum stored, and the WARPS sums read
#: by the thread that adds them (in a loop, or one each by warp 0's lanes).
MAX_SHARED = 1 + WARPS
#: Elements of ``x`` one thread may load: its own, with slack for a second.
MAX_LOADS = 2


def warp_reduce_spec(x: np.ndarray) -> np.ndarray:
    """Reference: ``partial[b]`` = sum of ``x[b*TPB:(b+1)*TPB]``, zero past the end."""
    return block_sum_spec(x, TPB)


def _make(rng: np.random.Generator, sizes: tuple) -> Case:
    (n,) = sizes
    blocks = max(1, math.ceil(n / TPB))
    args = {
        "x": rng.uniform(-1.0, 1.0, size=n).astype(np.float32),
        "partial": np.zeros(blocks, np.float32),
    }
    return Case(f"n={n}", args, ("partial",), (blocks,), (TPB,), dims={"n": n})


#: Primes below a few blocks: never a multiple of a warp.
_PRIMES = (3, 31, 37, 97, 131, 163, 199, 257, 293, 383, 421, 509)


def _hidden(rng: np.random.Generator) -> list[tuple[int]]:
    """Hidden sizes, most ending inside a warp.

    One element, a lane short of and past a block, a prime below a block, a whole number of
    warps that is not a whole number of blocks, and any size up to four blocks.
    """
    return [
        (1,),
        (int(rng.integers(1, 5)) * TPB - 1,),
        (int(rng.integers(1, 5)) * TPB + 1,),
        (int(rng.choice([p for p in _PRIMES if p < TPB])),),
        (int(rng.integers(1, 5)) * TPB + WARP * int(rng.integers(1, WARPS)),),
        (int(rng.integers(2, 4 * TPB)),),
    ]


_BOUNDARIES = {
    **{k: v for k, v in edges_1d(TPB, what="TPB").items() if "exact" not in k},
    "n = 1": lambda c: c.dims["n"] == 1,
    "whole warps, not whole blocks": lambda c: c.dims["n"] % WARP == 0 and c.dims["n"] % TPB != 0,
    "n ending inside a warp, below one block": lambda c: (
        c.dims["n"] % WARP != 0 and 1 < c.dims["n"] < TPB
    ),
}


def _where(r) -> str:
    return r.case.label if r.case.hidden else f"case {r.case.label}"


#: What a "warp" finding means for a shuffle, keyed by a phrase of its text.
_MASK_HINTS = (
    (
        "leaves out",
        "a lane executes a shuffle whose mask leaves that lane out: the mask names every "
        "lane that executes the call (0xFFFFFFFF for a whole warp)",
    ),
    (
        "not in the mask",
        "a shuffle reads a lane that its mask leaves out: widen the mask to the lanes that "
        "take part",
    ),
    (
        "not in its own mask",
        "a lane executes a shuffle whose mask leaves that lane out: the mask names every "
        "lane that executes the call (0xFFFFFFFF for a whole warp)",
    ),
    (
        "not at this call",
        "the full mask names lanes that never execute this shuffle (they skipped the branch "
        "and wait at other code): keep every lane of the warp in the shuffle, with 0.0 for "
        "elements past the end, or pass a mask of only the lanes that execute it",
    ),
    (
        "are not here",
        "the full mask names lanes that never execute this shuffle (they skipped the branch "
        "and wait at other code; lanes that exited would not count): keep every lane of the "
        "warp in the shuffle, with 0.0 for elements past the end, or pass a mask of only "
        "the lanes that execute it",
    ),
    (
        "pass another mask",
        "lanes at one shuffle pass different masks: every lane a mask names must pass that "
        "same mask (two half-warps may each name only their own 16 lanes)",
    ),
    (
        "wait at another call",
        "the mask names lanes that wait at another shuffle: every lane named in the mask "
        "must execute the same call",
    ),
)


def mask_hint(example: str) -> str:
    """Explain one "warp" finding of the simulator in terms of shuffle masks.

    Args:
        example: The text of a "warp" finding.

    Returns:
        What went wrong and how to fix it (a generic hint for a text it does not know).
    """
    for phrase, hint in _MASK_HINTS:
        if phrase in example:
            return hint
    return "a warp collective read a value that is undefined on a GPU"


def _masks(part: Part, results: list) -> tuple[float, str]:
    """Judge ``masks``: no shuffle reads a lane that does not take part in it."""
    hints: list[str] = []
    for r in sorted(results, key=lambda r: r.case.hidden):  # public cases can explain
        if r.report.count("warp"):
            hint = mask_hint(r.report.findings["warp"]["examples"][0])
            if hint not in hints:
                hints.append(hint)
    # Counts and thread coordinates of hidden cases could reveal their sizes.
    hidden_text = {"warp": "a shuffle reads a lane that does not take part in it"}
    lines = finding_lines(results, ("warp",), hidden_text)
    if lines:
        return 0.0, "\n".join([f"why: {h}" for h in hints] + lines)  # the rule first
    return 1.0, "every shuffle's mask names exactly the lanes that execute it (or exited)"


def _spread(part: Part, results: list) -> tuple[float, str]:
    """Judge ``parallel``: every thread loads about one element; none walks the block alone.

    Counting global loads, not all memory operations, keeps exercise 5's tree (many shared
    accesses per thread) a matter for ``registers`` alone; operations per thread
    (pdc.grade.profile) catch values gathered in registers by one lane.
    """
    for r in sorted(results, key=lambda r: r.case.hidden):
        loads = r.report.loads["x"]
        worst = int(loads.max()) if loads.size else 0
        if worst <= MAX_LOADS:
            if (busy := profile.too_busy(part, r)) is not None:
                return 0.0, busy
            continue
        if r.case.hidden:
            return 0.0, f"{_where(r)}: one thread does the work of many"
        return 0.0, (
            f"{_where(r)}: one thread loaded {worst} elements of x, at most {MAX_LOADS} "
            "expected: is one thread (or one lane per warp) adding what its neighbours hold?"
        )
    return 1.0, "work is spread over the threads: each loads its own element"


def _barriers(part: Part, results: list) -> tuple[float, str]:
    """Judge ``barriers``: one ``syncthreads`` per block is enough."""
    for r in sorted(results, key=lambda r: r.case.hidden):
        passed = r.report.barriers
        if passed <= 1:
            continue
        if r.case.hidden:
            return 0.0, f"{_where(r)}: a block passes more barriers than it needs"
        return 0.0, (
            f"{_where(r)}: a block passed {passed} barriers (syncthreads), 1 expected: warps "
            "exchange their sums once; a shuffle inside a warp needs no syncthreads"
        )
    return 1.0, "one barrier per block: shuffles need none"


def _registers(part: Part, results: list) -> tuple[float, str]:
    """Judge ``registers``: the warp stage adds in registers, not in shared memory or atomics."""
    for r in sorted(results, key=lambda r: r.case.hidden):
        rep = r.report
        shared = rep.shared_loads + rep.shared_stores
        worst = int(shared.max()) if shared.size else 0
        per_block = rep.atomics.reshape(-1, math.prod(rep.block)).sum(axis=1)
        atomics = int(per_block.max()) if per_block.size else 0
        if worst > MAX_SHARED:
            if r.case.hidden:
                return 0.0, f"{_where(r)}: the warp stage adds in shared memory"
            return 0.0, (
                f"{_where(r)}: a thread made {worst} shared-memory accesses, at most "
                f"{MAX_SHARED} expected: add a warp's 32 values with shuffles in registers; "
                "shared memory only carries one sum per warp"
            )
        if atomics > WARPS:
            if r.case.hidden:
                return 0.0, f"{_where(r)}: a block makes more than one atomic per warp"
            return 0.0, (
                f"{_where(r)}: a block made {atomics} atomic operations, at most {WARPS} "
                "expected (one per warp): add a warp's values with shuffles first"
            )
    return 1.0, "the warp stage adds in registers: shared memory carries one sum per warp"


WARP_REDUCE = Exercise(
    "10_warp_reduce",
    "Warp-level reduction with shuffles",
    [
        Part(
            "block_sum_warp",
            "partial[b] = sum of block b's elements, warps reduce with shuffles",
            ("x", "partial"),
            public=[(1000,), (128,), (5,)],
            hidden=_hidden,
            domain=f"any n >= 1; TPB = {TPB} (4 warps)",
            boundaries=_BOUNDARIES,
            make=_make,
            reference=lambda a: {"partial": warp_reduce_spec(a["x"])},
            model_ops=51,  # the model answer's busiest thread (pdc.grade.profile)
            model_span=26,  # two warp stages of five shuffles, one barrier between
            points={
                "public": 2,
                "hidden": 2,
                "sync": 1,
                "parallel": 1,
                "masks": 1,
                "barriers": 1,
                "registers": 1,
            },
            judges={
                "parallel": _spread,
                "masks": _masks,
                "barriers": _barriers,
                "registers": _registers,
            },
            titles={
                "parallel": f"work spread over threads (each loads at most {MAX_LOADS} "
                "elements of x)",
                "masks": "shuffle masks name exactly the lanes that execute them (or exited)",
                "barriers": "one syncthreads per block (shuffles need none)",
                "registers": "warp stage in registers (no shared-memory tree, "
                "at most one atomic per warp)",
            },
            rtol=1e-4,
            atol=1e-4,
        )
    ],
    {"TPB": TPB, "WARPS": WARPS},
)

EXERCISE = WARP_REDUCE

"""Run in a child with NUMBA_ENABLE_CUDASIM=1 (tests/test_sim_differential.py): every CUDA
kernel of the course's chapters, practice checks and solutions, as ``pdc ptx`` finds it
(pdc.ptx.manifest: notebooks read with their code cells joined), on a small input, on numba's
simulator and on pdc.sim; prints one JSON object, kernel -> how the outputs compare, or
why the kernel is not compared.

Inputs come from ``INPUTS`` (per kernel name; the builder may read the kernel's module, for
its block size); an exercise's kernel in solutions/ gets its exercise's smallest public case
of more than one block.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PLACES = ("notebooks/", "solutions/", "pdc/course/practice/")

F32 = np.float32
_WARP = "warp intrinsics (shuffles, ballots), which numba's simulator does not have"
_STUB = "a stub the reader fills in; its answer in pdc/course/practice is compared"

# Kernels not compared, and why: (file, kernel) -> reason.
NOT_COMPARED = {
    ("pdc/course/practice/ch05.py", "warp_max"): _WARP,
    ("notebooks/05_shared_memory_atomics.ipynb", "warp_tour"): _WARP,
    ("notebooks/05_shared_memory_atomics.ipynb", "count_positive_aggregated"): _WARP,
    ("solutions/10_warp_reduce.ipynb", "block_sum_warp"): _WARP,
    ("notebooks/04_cuda_from_python.ipynb", "relu_kernel"): _STUB,
    ("notebooks/04_cuda_from_python.ipynb", "scale_rows"): _STUB,
    ("notebooks/05_shared_memory_atomics.ipynb", "reverse_blocks"): _STUB,
    ("notebooks/05_shared_memory_atomics.ipynb", "sign_counts"): _STUB,
    ("notebooks/05_shared_memory_atomics.ipynb", "warp_max"): _STUB,
    ("notebooks/04_cuda_from_python.ipynb", "count_racy"): (
        "a race on purpose: its result depends on the schedule"
    ),
    ("notebooks/05_shared_memory_atomics.ipynb", "rotate_no_barrier"): (
        "a race on purpose (no barrier between the shared write and the read)"
    ),
    ("notebooks/05_shared_memory_atomics.ipynb", "shift_left"): (
        "a race and an out-of-range read on purpose (the chapter's bug to find)"
    ),
    ("notebooks/05_shared_memory_atomics.ipynb", "mirror_half_written"): (
        "reads shared memory nobody wrote on purpose: undefined values"
    ),
    ("notebooks/05_shared_memory_atomics.ipynb", "barrier_in_branch"): (
        "a barrier inside a branch on purpose: undefined behaviour (a hang on a GPU)"
    ),
}
RING = "a ring handler: it runs inside pdc's persistent ring kernel, not a launch"


def _u(r, n, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, n).astype(F32)


def _z(*shape, dtype=F32):
    return np.zeros(shape, dtype)


def _block(ns) -> int:
    return int(ns["BLOCK"])


# kernel name -> (rng, module namespace) -> (grid, block, args)
INPUTS = {
    "relu_kernel": lambda r, ns: (2, 32, [_u(r, 50), _z(50)]),
    "scale_rows": lambda r, ns: ((2, 2), (16, 16), [_u(r, (20, 30)), _u(r, 20), _z(20, 30)]),
    "reverse_blocks": lambda r, ns: (3, _block(ns), [_u(r, 3 * _block(ns)), _z(3 * _block(ns))]),
    "sign_counts": lambda r, ns: (
        2,
        32,
        [
            np.where(r.random(300) < 0.2, 0, r.standard_normal(300)).astype(F32),
            _z(3, dtype=np.int32),
        ],
    ),
    "shift_left": lambda r, ns: (3, 64, [_u(r, 150), _z(150)]),
    "blur_debug": lambda r, ns: (2, 8, [_u(r, 16), _z(16)]),
    "matvec_tiled": lambda r, ns: (
        2,
        32,
        [_u(r, (50, 40)), _u(r, 50), _z(40), _z(1, dtype=np.int64)],
    ),
    "saxpy_kernel": lambda r, ns: (4, 32, [F32(2.5), _u(r, 100), _u(r, 100)]),
    "who_did_it": lambda r, ns: (
        (2, 2),
        (16, 16),
        [_z(20, 30, dtype=np.int32), _z(20, 30, dtype=np.int32)],
    ),
    "polynomial": lambda r, ns: (4, 32, [_u(r, 5), _u(r, 100), _z(100)]),
    "strided_read": lambda r, ns: (4, 32, [_u(r, 400), np.int64(3), _z(100)]),
    "increment": lambda r, ns: (2, 32, [_u(r, 100)]),
    "add": lambda r, ns: (4, 32, [_u(r, 100), _u(r, 100), _z(100)]),
    "scale": lambda r, ns: (4, 32, [_u(r, 100), F32(1.5), _z(100)]),
    "scale_unguarded": lambda r, ns: (4, 32, [_u(r, 128), F32(1.5), _z(128)]),
    "count_atomic": lambda r, ns: (4, 32, [_z(1, dtype=np.int64)]),
    "scale_grid_stride": lambda r, ns: (
        2,
        32,
        [_u(r, 300), F32(0.5), _z(300), _z(64, dtype=np.int32)],
    ),
    "shifted_clamped": lambda r, ns: (4, 32, [_u(r, 100, 0, 1), np.int64(3), _z(100)]),
    "moving_average_shared": lambda r, ns: (
        3,
        _block(ns),
        [_u(r, 3 * _block(ns) - 5), _z(3 * _block(ns) - 5)],
    ),
    "smooth5": lambda r, ns: (4, 32, [_u(r, 100), _z(100)]),
    "total_per_element": lambda r, ns: (10, 32, [_u(r, 300), _z(1)]),
    "total_per_thread": lambda r, ns: (2, 32, [_u(r, 300), _z(1)]),
    "count_positive": lambda r, ns: (4, 32, [_u(r, 100), _z(1, dtype=np.int64)]),
    "copy_unguarded": lambda r, ns: (4, 32, [_u(r, 128), _z(128)]),
    "add_one": lambda r, ns: (4, 32, [_u(r, 100)]),
    "empty_kernel": lambda r, ns: (1, 32, [_u(r, 10)]),
    "heavy": lambda r, ns: (2, 32, [_u(r, 64), _z(64)]),
}


def course_kernels() -> list:
    """The course's kernels and ring handlers, as ``pdc ptx`` finds them."""
    from pdc.ptx.manifest import find_all

    return [f for f in find_all(ROOT) if f.path.startswith(PLACES)]


def _module(found) -> tuple[str, dict]:
    import linecache

    from pdc.ptx.manifest import KERNELS, PRELUDE

    text = PRELUDE + found.source
    entry = KERNELS.get(found.path, {}).get(found.name)
    if isinstance(entry, tuple) and entry and entry[0] == "constants":  # names it closes over
        text += "".join(f"\n{k} = {v!r}" for k, v in entry[2].items()) + "\n"
    filename = f"<{found.path}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    ns: dict = {"__name__": "course_kernel"}
    exec(compile(text, filename, "exec"), ns)  # noqa: S102 - the course's own kernels
    return text, ns


def _inputs(found, ns, rng):
    if found.path.startswith("solutions/"):
        from pdc.grade import exercises as exs
        from tests.sim_diff_corpus import small_case

        _, part = exs.find_part(found.name)
        case = small_case(part)
        return case.grid, case.block, list(case.args.values())
    return INPUTS[found.name](rng, ns)


def compare(found, kept) -> dict:
    """Run one kernel on both simulators (numba's result kept in ``kept``, a
    tests.numba_oracle.Oracle); how its array arguments compare afterwards."""
    from numba import cuda

    import pdc.sim as sim

    text, ns = _module(found)
    fn = ns[found.name]
    grid, block, args = _inputs(found, ns, np.random.default_rng(11))
    theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kept.launch(lambda a: cuda.jit(fn)[grid, block](*a), text, found.name, grid, block, theirs)
    rep = sim.launch(fn, grid, block, mine)
    worst, exact = 0.0, True
    for t, m in zip(theirs, mine):
        if not isinstance(t, np.ndarray):
            continue
        if t.dtype.kind in "iub":
            exact &= bool(np.array_equal(t, m))
        elif t.size:
            d = np.abs(m.astype(np.float64) - t) / np.maximum(1.0, np.abs(t))
            worst = max(worst, float(np.nanmax(d)))
            exact &= bool(np.array_equal(np.isnan(t), np.isnan(m)))
    return {"worst": worst, "exact": exact, "findings": sorted(rep.findings)}


def main() -> int:
    from tests.numba_oracle import Oracle

    kept = Oracle("sim_diff_course")
    out = {}
    for found in course_kernels():
        key = f"{found.path}:{found.name}"
        why = RING if found.kind == "handler" else NOT_COMPARED.get((found.path, found.name))
        out[key] = {"skipped": why} if why else compare(found, kept)
    kept.save()
    print(json.dumps({"results": out, "oracle": kept.summary()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

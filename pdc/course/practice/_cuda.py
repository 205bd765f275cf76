"""Launch a student's kernel for a checker, turning the usual failures into feedback.

A checker judges behaviour, never the text of a kernel: :func:`simulate` runs the kernel on
pdc's simulator (:mod:`pdc.sim`, numba-cuda's typed IR of the kernel), which reports what a
GPU would do silently or only sometimes: an index outside an array, a race between threads
that no barrier orders, a barrier some threads never reach, a read of memory nobody wrote.
The same run gives the output values, so a check needs no GPU and gives the same verdict with
one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import Wrong

if TYPE_CHECKING:
    from pdc.grade.simreport import LaunchReport

# What each simulator finding means for the student, most fundamental first.
_FINDINGS = {
    "error": "the kernel failed",
    "oob": (
        "indexed outside an array: the last block overhangs the data, so every access needs "
        "a bounds guard (on a GPU such an access reads or overwrites other memory, silently)"
    ),
    "race": (
        "has a race: two threads touch the same element and nothing orders them (a barrier "
        "between a write and another thread's read, or an atomic for a shared counter); "
        "a GPU can give a different answer from run to run"
    ),
    "divergence": "reaches a barrier that some threads of the block skip",
    "uninitialized": "reads memory before any thread wrote it",
    "warp": "uses a warp collective with a lane that is not in its mask",
}


def cuda():
    """numba's CUDA module (the simulator when there is no GPU), imported on first use."""
    import pdc

    return pdc.numba_cuda()


def simulate(kernel, grid, block, *args, what: str) -> list[np.ndarray]:
    """Run ``kernel[grid, block](*args)`` on pdc's simulator; return the arrays.

    The same as :func:`simulate_report` without the report.
    """
    return simulate_report(kernel, grid, block, *args, what=what)[1]


def simulate_report(kernel, grid, block, *args, what: str) -> tuple[LaunchReport, list[np.ndarray]]:
    """Run ``kernel[grid, block](*args)`` on pdc's simulator; return its report and the arrays.

    The report counts what the kernel did (``report.global_atomics()``, ``report.work()``),
    for a check that judges how a kernel got its result as well as the result.

    Array arguments are copied first, so the caller's arrays are left as they were. Races
    are found from every access's record, so one run is enough and its verdict is the same
    every time.

    Raises:
        Wrong: If the object is not a CUDA kernel, or the simulator reports a finding
            (out of range, race, divergent barrier, uninitialised read, warp mask), naming
            the first example it gives.
    """
    import pdc.sim as sim

    if not callable(getattr(kernel, "py_func", kernel)):
        raise Wrong(f"{what} is not a CUDA kernel: decorate it with @cuda.jit")
    arrays = [np.array(a) if isinstance(a, np.ndarray) else a for a in args]
    try:
        report = sim.launch(kernel, grid, block, arrays)
    except Exception as exc:
        raise Wrong(f"launching {what} failed: {type(exc).__name__}: {exc}") from exc
    for kind, meaning in _FINDINGS.items():
        if report.count(kind):
            example = report.findings[kind]["examples"][0]
            raise Wrong(f"{what} {meaning}. The simulator saw: {example}")
    return report, arrays

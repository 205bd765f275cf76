"""Graded exercises: in-notebook checks (``check``) and the autograder (``grade``).

``pdc grade`` runs submitted kernels in a separate, time- and memory-limited process and
judges their raw results here; see pdc.grade.grader for why.
"""

from __future__ import annotations


def check(kernel, name=None, *, show="auto") -> None:
    """Check a kernel on its exercise's public cases (see pdc.grade.checking.check)."""
    from pdc.grade.checking import check as _check

    return _check(kernel, name, show=show)


def grade(path, **kwargs):
    """Grade a notebook or folder of notebooks (see pdc.grade.grader.grade)."""
    from pdc.grade.grader import grade as _grade

    return _grade(path, **kwargs)


def _warm_the_simulator() -> None:
    """In a notebook running on numba's CUDA simulator, ``check()`` sends kernels to pdc.sim's
    worker process: start it now, in the background, so the first check is as quick as the
    rest.

    The exercises import ``check`` right after ``pdc``, before ``pdc.numba_cuda()``: in a
    Jupyter kernel on a machine without a GPU the simulator is then certain, and the worker
    and the compile gate import numba beside the notebook's own import of it, on another
    core. A ring notebook (exercise 6) warms its ring instead (``_warm_the_ring``)."""
    import sys

    if "ipykernel" in sys.modules and "numba.cuda" not in sys.modules and _ring_notebook():
        _warm_the_ring()
        return
    if "numba.cuda" in sys.modules:
        from pdc.sim.frontend import real_cuda_available

        if real_cuda_available():
            return  # pdc.sim runs in this process: no worker to start
    elif "ipykernel" in sys.modules:  # a notebook: pdc.numba_cuda() will choose by the GPU
        from pdc.backends import _probe

        if _probe.has_cuda_gpu():
            return
    else:
        return  # numba.cuda not chosen yet: nothing says the simulator will be used
    from pdc.grade import gate
    from pdc.sim import remote

    remote.warm_soon()
    gate.warm_soon()  # check() compiles each new kernel for a GPU first


def _ring_notebook() -> bool:
    """True when this notebook has imported the ring runtime, or the cell that imports the
    checks imports it too (IPython keeps the cell it is running last in ``In``)."""
    import re
    import sys

    if "pdc.ring" in sys.modules:
        return True
    try:
        from IPython import get_ipython

        shell = get_ipython()
        cell = shell.user_ns.get("In", [""])[-1] if shell is not None else ""
    except Exception:  # noqa: BLE001 - no IPython, or not one we know: not a ring notebook
        return False
    pattern = r"^\s*(from|import)\s+pdc\.ring\b"
    return isinstance(cell, str) and re.search(pattern, cell, re.M) is not None


def _warm_the_ring() -> None:
    """A notebook that imports the ring runtime and the checks is exercise 6, whose check
    runs a ring kernel on the cpu backend in this process: compile (after a machine's first
    run, load from pdc.ring's disk cache) the pieces every run of it needs besides the
    student's handler, now, in a background thread. The simulator's worker and the compile
    gate stay unstarted: this notebook has no use for them, and they would take both cores
    of a small machine from its check."""
    import threading

    def warm() -> None:
        try:
            from pdc.grade.exercises import ex06_ring

            ex06_ring.RING.parts[0].warm()
        except Exception:  # noqa: BLE001, S110 - only a head start: the check reports errors
            pass

    threading.Thread(target=warm, name="pdc-ring-warm", daemon=True).start()


_warm_the_simulator()

__all__ = ["check", "grade"]

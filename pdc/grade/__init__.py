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
    core."""
    import sys

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


_warm_the_simulator()

__all__ = ["check", "grade"]

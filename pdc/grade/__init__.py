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
    core. A notebook whose check runs in its own process warms that instead
    (``_warm_in_this_process``), and one whose cell imports the Triton checks, nothing (they
    start their own zygotes)."""
    import sys

    if "ipykernel" in sys.modules and "numba.cuda" not in sys.modules:
        if any(m.startswith("pdc.grade.triton") for m in running_cell_imports() or ()):
            return  # Triton checks: their own zygotes start with pdc.grade.triton
        parts = _parts_checked_in_this_process()
        if parts:
            _warm_in_this_process(parts)
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


def running_cell_imports() -> set[str] | None:
    """The modules that the cell IPython is running imports (IPython keeps the cell, as
    Python, last in ``In``); None where no IPython shell runs (or its cell does not parse)."""
    import ast

    from pdc import pyast

    try:
        from IPython import get_ipython

        shell = get_ipython()
        cell = shell.user_ns.get("In", [""])[-1] if shell is not None else None
        tree = pyast.parse(cell) if isinstance(cell, str) else None
    except Exception:  # noqa: BLE001 - no IPython, or a cell that does not parse
        return None
    if tree is None:
        return None
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def _parts_checked_in_this_process() -> list:
    """The plug-in parts whose in-notebook check runs in the notebook's own process, as the
    cell importing the checks shows: it also imports the module a part names in
    ``warm_with``. Exercise modules are loaded only when the cell imports a pdc module
    besides pdc and pdc.grade."""
    imported = {
        m
        for m in running_cell_imports() or ()
        if m.startswith("pdc.") and not m.startswith("pdc.grade")
    }
    if not imported:
        return []
    from pdc.grade import exercises as exs

    return [
        part
        for _, part in exs.warmed_parts()
        if any(m == part.warm_with or m.startswith(f"{part.warm_with}.") for m in imported)
    ]


def _warm_in_this_process(parts: list) -> None:
    """Run the parts' ``warm`` (what every check of them compiles besides the student's code;
    after a machine's first run, loaded from disk) now, in a background thread. The
    simulator's worker and the compile gate stay unstarted: such a notebook has no use for
    them, and they would take both cores of a small machine from its check."""
    import threading

    def warm() -> None:
        for part in parts:
            try:
                part.warm()
            except Exception:  # noqa: BLE001, S112 - only a head start: the check reports errors
                continue

    threading.Thread(target=warm, name="pdc-grade-warm", daemon=True).start()


_warm_the_simulator()

__all__ = ["check", "grade"]

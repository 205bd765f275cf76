"""Graded Triton exercises: kernels run on Triton's interpreter, gated by a real compile.

The grader side (``runner``) is trusted; the kernel runs in ``pdc.grade.sandbox``'s child
process (``child``), where ``interp`` counts every load and store the interpreter makes and
stops out-of-range ones. ``check`` gives a notebook the same feedback on the public cases.
"""

from __future__ import annotations


def check(kernel, name: str | None = None) -> None:
    """Check a Triton kernel against its exercise's public cases and print the feedback.

    Args:
        kernel: The ``@triton.jit`` kernel (run on Triton's interpreter here).
        name: The exercise kernel it answers (default: the function's name).
    """
    from .runner import check_kernel

    check_kernel(kernel, name)


def _warm_children() -> None:
    """A notebook that imports ``check`` will check Triton kernels: start the grading zygotes
    now, in the background (pdc.grade.triton.warm), so the first check answers as fast as
    the later ones. The exercises import it before torch: the zygotes' imports of torch then
    run beside the notebook's own, on another core."""
    import sys

    notebook = "ipykernel" in sys.modules  # a Jupyter kernel (a grader never runs in one)
    if not notebook and ("triton" not in sys.modules or "torch" not in sys.modules):
        return  # the grader, or a tool: nothing says a check is coming
    if notebook:
        from pdc.grade import running_cell_imports

        cell = running_cell_imports()
        if cell is not None and not any(m.startswith(__name__) for m in cell):
            return  # loaded by a module (exercise specs listed), not by the notebook's cell
    from .warm import warm_soon

    warm_soon()


_warm_children()

__all__ = ["check"]

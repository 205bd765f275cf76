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


__all__ = ["check"]

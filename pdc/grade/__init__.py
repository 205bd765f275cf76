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


__all__ = ["check", "grade"]

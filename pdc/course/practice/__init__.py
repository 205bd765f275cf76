"""In-chapter practice: write a few lines, check them at once, reveal the model answer.

A chapter cell (tagged ``practice``) holds a stub the student fills in; the next cell calls
``check("ch01.saxpy", saxpy_numpy)``, which prints specific feedback and never raises, so a
notebook runs top to bottom with every stub untouched. ``reveal("ch01.saxpy")`` prints the
model answer, which lives in the chapter's module (``pdc/course/practice/ch01.py``), not in the
notebook.

A chapter module registers its exercises with :func:`exercise`::

    def _answer(a, x, y):
        return a * x + y

    @exercise("ch01.saxpy", answer=_answer)
    def _check(fn):
        got = fn(2.0, x, y)
        expect_close(got, 2.0 * x + y, what="saxpy_numpy(2.0, x, y)")
        return "matches a * x + y on 1,000 elements"

The checker calls the student's function, raises :class:`Wrong` with a message that says what
is wrong (helpers :func:`expect_close`, :func:`expect_shape` build those), and returns a short
success line. The module for a name is found from its prefix (``ch01.saxpy`` lives in
``pdc.course.practice.ch01``), so nothing else lists the chapters.

``tests/test_practice.py`` runs every practice cell's stub on its own, with ``np``, ``math``,
``pdc`` and ``cuda`` (numba's CUDA module) predefined, and requires that the stub fails its
check and the model answer passes it, and that typical wrong answers fail; a stub cell imports
anything else it needs itself. Kernel checks judge behaviour, never source text: they run the
kernel in pdc's instrumented simulator (``pdc.course.practice._cuda.simulate``), which reports an
out-of-range index, a race or a divergent barrier even when the values come out right.
"""

from __future__ import annotations

import importlib
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Exercise",
    "Wrong",
    "check",
    "exercise",
    "expect_close",
    "expect_shape",
    "get",
    "registered",
    "reveal",
    "run",
]


class Wrong(Exception):
    """Raised by a checker with feedback for the student: what was expected, what came back."""


@dataclass(frozen=True)
class Exercise:
    """One in-chapter practice task.

    Attributes:
        name: ``"chNN.topic"``; the prefix names the module that registers it.
        checker (Callable): Calls the student's function; raises :class:`Wrong` or returns a
            success line.
        answer (Callable): The model answer, shown by :func:`reveal` and used by the tests.
    """

    name: str
    checker: Callable[[Callable], str]
    answer: Callable


_REGISTRY: dict[str, Exercise] = {}


def exercise(name: str, *, answer: Callable) -> Callable[[Callable], Callable]:
    """Register the decorated checker for the exercise ``name`` with its model ``answer``."""

    def register(checker: Callable[[Callable], str]) -> Callable[[Callable], str]:
        if name in _REGISTRY and _REGISTRY[name].checker.__module__ != checker.__module__:
            raise ValueError(f"[practice] exercise {name!r} is registered twice")
        _REGISTRY[name] = Exercise(name, checker, answer)
        return checker

    return register


def get(name: str) -> Exercise:
    """The exercise called ``name``, importing its chapter module on first use.

    Raises:
        KeyError: If no chapter module registers ``name``.
    """
    if name not in _REGISTRY:
        chapter = name.split(".", 1)[0]
        try:
            importlib.import_module(f"{__name__}.{chapter}")
        except ModuleNotFoundError as exc:
            raise KeyError(f"[practice] no module {__name__}.{chapter} for {name!r}") from exc
    if name not in _REGISTRY:
        known = ", ".join(sorted(n for n in _REGISTRY if n.startswith(name.split(".")[0])))
        raise KeyError(f"[practice] unknown exercise {name!r}; this chapter has: {known}")
    return _REGISTRY[name]


def registered(chapter: str) -> list[str]:
    """Names of the exercises a chapter module (``"ch01"``) registers, sorted."""
    importlib.import_module(f"{__name__}.{chapter}")
    return sorted(n for n in _REGISTRY if n.split(".", 1)[0] == chapter)


def run(name: str, fn: object) -> tuple[bool, str]:
    """Check ``fn`` against exercise ``name`` without printing: ``(passed, feedback)``."""
    ex = get(name)
    if not callable(fn):
        return False, f"expected a function, got {type(fn).__name__}"
    try:
        message = ex.checker(fn)
    except Wrong as wrong:
        return False, str(wrong)
    except NotImplementedError:
        return False, "still the stub: replace the `...` with your code"
    except Exception as exc:  # the student's code failing is feedback, not a crash
        return False, f"your code raised {type(exc).__name__}: {exc}"
    return True, message or "correct"


def check(name: str, fn: object) -> None:
    """Check the student's ``fn`` for exercise ``name`` and print feedback (never raises)."""
    try:
        passed, message = run(name, fn)
    except KeyError as exc:
        print(exc.args[0])
        return
    if passed:
        print(f"[{name}] correct: {message}")
    else:
        print(f"[{name}] not yet: {message}\n  (reveal({name!r}) shows a model answer)")


def reveal(name: str) -> None:
    """Print the model answer of exercise ``name``."""
    answer = get(name).answer
    target = getattr(answer, "py_func", answer)  # a numba kernel keeps its Python source
    print(textwrap.dedent(inspect.getsource(target)).rstrip())


def expect_shape(got: object, shape: tuple[int, ...], *, what: str) -> np.ndarray:
    """``got`` as an array of ``shape``, or :class:`Wrong` saying what came back instead."""
    if got is None:
        raise Wrong(f"{what} returned None: is the function still the stub, or missing `return`?")
    arr = np.asarray(got)
    if arr.shape != tuple(shape):
        raise Wrong(f"{what} has shape {arr.shape}, expected {tuple(shape)}")
    return arr


def expect_close(
    got: object, want: np.ndarray, *, what: str, rtol: float = 1e-5, atol: float = 1e-6
) -> None:
    """Raise :class:`Wrong` naming the first element where ``got`` differs from ``want``."""
    want = np.asarray(want)
    arr = expect_shape(got, want.shape, what=what)
    if not np.issubdtype(arr.dtype, np.number) and arr.dtype != bool:
        raise Wrong(f"{what} has dtype {arr.dtype}, expected numbers")
    bad = ~np.isclose(arr, want, rtol=rtol, atol=atol)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        where = idx[0] if len(idx) == 1 else idx
        raise Wrong(
            f"{what}: {int(bad.sum())} of {want.size} elements differ; first at index {where}: "
            f"got {arr[idx]!r}, expected {want[idx]!r}"
        )

"""The course's graded exercises: one module each, found by its name, never listed by hand.

A module ``exNN_<name>.py`` in this package grades the notebook ``NN_<name>.ipynb`` and
defines ``EXERCISE``, a pdc.grade.spec.Exercise with that key: its parts, NumPy references,
cases, criteria and any plug-in hooks (a runner, a checker, judges of its own criteria). The
grader's core names no exercise; adding one is adding its module. Modules are imported when
their exercise is first asked for, so an exercise costs nothing until it is graded.

The names of pdc.grade.spec and pdc.grade.sizes an exercise is built from are importable from
here too (``from pdc.grade.exercises import Case, Exercise, Part``).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterable

from pdc.grade.sizes import edges_1d, edges_2d
from pdc.grade.spec import (
    CRITERION_TITLES,
    QUALITY,
    Case,
    Exercise,
    Part,
    hidden_cases,
    public_cases,
    public_only,
)

#: An exercise module's name: ``ex`` and the notebook's name (``ex03_matmul``: 03_matmul).
MODULE_NAME = re.compile(r"ex(\d{2})_([a-z0-9_]+)")


def discover(paths: Iterable[str], package: str) -> dict[str, str]:
    """Every exercise module under ``paths`` (a package's ``__path__``), in course order.

    Args:
        paths: Folders to list with ``pkgutil.iter_modules``.
        package: The dotted name those folders are imported as.

    Returns:
        Exercise key -> module name (``"03_matmul"`` -> ``"<package>.ex03_matmul"``).
    """
    found = {}
    for info in pkgutil.iter_modules(list(paths)):
        if (m := MODULE_NAME.fullmatch(info.name)) is not None:
            found[f"{m[1]}_{m[2]}"] = f"{package}.{info.name}"
    return dict(sorted(found.items()))


#: Exercise key -> the module that defines it, in course order.
REGISTRY = discover(__path__, __name__)
ALL_KEYS = tuple(REGISTRY)


def load(key: str, module: str) -> Exercise:
    """The ``EXERCISE`` of an exercise module, checked to carry its key.

    Raises:
        TypeError: The module defines no Exercise named ``EXERCISE``, or one for another key.
    """
    ex = getattr(importlib.import_module(module), "EXERCISE", None)
    if not isinstance(ex, Exercise) or ex.key != key:
        got = type(ex).__name__ if not isinstance(ex, Exercise) else repr(ex.key)
        raise TypeError(f"[grade] expected {module}.EXERCISE to be the Exercise {key!r}, got {got}")
    return ex


def exercise(key: str) -> Exercise:
    """The exercise with this key (e.g. "03_matmul").

    Raises:
        ValueError: No exercise has this key.
    """
    if key not in REGISTRY:
        raise ValueError(f"[grade] expected an exercise in {list(ALL_KEYS)}, got {key!r}")
    return load(key, REGISTRY[key])


def warmed_parts() -> list[tuple[str, Part]]:
    """``(key, part)`` of every part whose in-notebook check runs in the notebook's own
    process and has a warm-up (``Part.warm`` and ``Part.warm_with``), in course order."""
    return [
        (key, part)
        for key in ALL_KEYS
        for part in exercise(key).parts
        if part.warm is not None and part.warm_with is not None
    ]


def find_part(name: str, plugins: bool = False) -> tuple[Exercise, Part]:
    """The exercise and part that grade the kernel called ``name``.

    Args:
        name: The kernel's (or handler's) name.
        plugins: Also look at parts that grade themselves (``runner``); by default only
            kernels that run in the simulator are found.

    Raises:
        ValueError: No part has this name.
    """
    known = []
    for key in ALL_KEYS:
        ex = exercise(key)
        for p in ex.parts:
            if p.runner is not None and not plugins:
                continue
            if p.name == name:
                return ex, p
            known.append(p.name)
    raise ValueError(f"[grade.check] expected one of {known}, got {name!r}")


def domain_row(key: str, part: Part) -> str:
    """One row of the instructor guide's domain table: the spec's domain, the public cases
    that check() runs, and the boundaries that every draw of hidden cases reaches."""
    public = part.public_labels or tuple(c.label for c in public_cases(part))
    return (
        f"| {key} | `{part.name}` | {part.domain} | {'; '.join(public)} | "
        f"{'; '.join(part.boundaries)} |"
    )


def domain_table() -> str:
    """The instructor guide's table of every part's domain and boundaries, in course order."""
    rows = [
        "| exercise | kernel | domain | public cases (check()) | boundaries in every draw |",
        "| --- | --- | --- | --- | --- |",
    ]
    rows += [domain_row(key, p) for key in ALL_KEYS for p in exercise(key).parts]
    return "\n".join(rows)


__all__ = [
    "ALL_KEYS",
    "CRITERION_TITLES",
    "QUALITY",
    "REGISTRY",
    "Case",
    "Exercise",
    "Part",
    "discover",
    "domain_row",
    "domain_table",
    "edges_1d",
    "edges_2d",
    "exercise",
    "find_part",
    "hidden_cases",
    "load",
    "public_cases",
    "public_only",
    "warmed_parts",
]

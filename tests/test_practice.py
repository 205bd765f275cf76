"""In-chapter practice: each check passes with its model answer and fails with the stub.

The stub is taken from the committed notebook: the code cell tagged ``practice`` holds it and
the next code cell calls ``check("chNN.name", function)``. A stub cell may use ``np``,
``math``, ``pdc`` and ``cuda`` (numba's CUDA module, the simulator without a GPU) and
anything it imports or defines itself.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import pdc

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
sys.path.insert(0, str(NOTEBOOKS))

import practice  # noqa: E402

CHAPTERS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
CHECK_CALL = re.compile(r"""check\(\s*["']([\w.]+)["']\s*,\s*(\w+)\s*\)""")


def _code_cells(path: Path) -> list[dict]:
    cells = json.loads(path.read_text())["cells"]
    return [c for c in cells if c["cell_type"] == "code"]


def practice_pairs(path: Path) -> list[tuple[str, str, str]]:
    """(exercise name, stub cell source, function name) for each practice cell of a notebook."""
    cells = _code_cells(path)
    pairs = []
    for cell, nxt in zip(cells, cells[1:], strict=False):
        if "practice" not in cell.get("metadata", {}).get("tags", []):
            continue
        match = CHECK_CALL.search("".join(nxt["source"]))
        assert match, f"{path.name}: the cell after a practice cell must call check(name, fn)"
        pairs.append((match.group(1), "".join(cell["source"]), match.group(2)))
    return pairs


ALL_PAIRS = [(p.name, *pair) for p in CHAPTERS for pair in practice_pairs(p)]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_every_chapter_has_two_practice_cells(path):
    names = [name for name, _, _ in practice_pairs(path)]
    assert len(names) >= 2, f"{path.name} has {len(names)} practice cells, expected at least 2"
    assert len(set(names)) == len(names), f"{path.name} checks one exercise twice: {names}"
    chapter = "ch" + path.name[:2]
    assert all(n.startswith(chapter + ".") for n in names), (
        f"{path.name}: exercise names must start with {chapter}., got {names}"
    )


@pytest.mark.parametrize(
    ("notebook", "name", "source", "function"),
    ALL_PAIRS,
    ids=[f"{nb}:{name}" for nb, name, _, _ in ALL_PAIRS],
)
def test_stub_fails_and_answer_passes(notebook, name, source, function):
    namespace = {"np": np, "math": math, "pdc": pdc, "cuda": pdc.numba_cuda()}
    exec(compile(source, f"<{notebook} practice cell>", "exec"), namespace)
    stub = namespace[function]
    passed, feedback = practice.run(name, stub)
    assert not passed, f"{name}: the untouched stub passes its check ({feedback})"
    assert feedback, f"{name}: a failing check must say why"
    passed, feedback = practice.run(name, practice.get(name).answer)
    assert passed, f"{name}: the model answer fails its own check: {feedback}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_every_registered_exercise_is_in_its_chapter(path):
    chapter = "ch" + path.name[:2]
    if not (NOTEBOOKS / "practice" / f"{chapter}.py").exists():
        pytest.skip(f"no practice/{chapter}.py")
    in_notebook = {name for name, _, _ in practice_pairs(path)}
    missing = set(practice.registered(chapter)) - in_notebook
    assert not missing, f"{path.name} has no practice cell for {sorted(missing)}"


def test_check_prints_feedback_and_never_raises(capsys):
    practice.check("ch01.saxpy", lambda a, x, y: 1 / 0)
    practice.check("ch01.saxpy", "not a function")
    practice.check("ch99.nothing", print)
    out = capsys.readouterr().out
    assert "your code raised ZeroDivisionError" in out
    assert "expected a function, got str" in out
    assert "no module practice.ch99" in out


def test_check_names_the_mistake(capsys):
    practice.check("ch01.bandwidth", lambda n, s: 2 * 4 * n / s / 1e9)
    practice.check("ch02.blocks", lambda n, b: n // b)
    practice.check("ch01.saxpy", lambda a, x, y: a * x + y)
    out = capsys.readouterr().out
    assert "y is read AND written" in out
    assert "floor division leaves the last" in out
    assert "[ch01.saxpy] correct" in out


def test_reveal_prints_the_answer_source(capsys):
    practice.reveal("ch05.histogram")
    out = capsys.readouterr().out
    assert out.startswith("@cuda.jit\ndef histogram(values, counts):")
    assert "cuda.atomic.add" in out


def test_a_missing_guard_is_named_even_when_the_values_are_right():
    from practice import _cuda

    def unguarded(x, out):  # what passes on a GPU by luck: right values, no guard
        out[0] = x[0]

    with pytest.raises(practice.Wrong, match="never compares its index"):
        _cuda.require_guard(unguarded, "unguarded")

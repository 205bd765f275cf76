"""Every solution earns full marks under 10 different draws of the hidden cases.

Each exercise runs the hidden cases of all 10 seeds in one child process (``extra_seeds``),
so the check costs one process start per kernel, not ten.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pdc.grade import exercises as exs
from pdc.grade.grader import grade

ROOT = Path(__file__).resolve().parents[1]
SEEDS = tuple(range(10))


@pytest.mark.parametrize("key", exs.ALL_KEYS)
def test_solution_full_marks_under_10_seeds(key):
    seeds = {"seed": SEEDS[0], "extra_seeds": SEEDS[1:]}
    sub = grade(ROOT / "solutions", only=[key], timeout=300, **seeds)
    assert sub.parts
    for part in sub.parts:
        hidden = next(v for v in part.verdicts if v.criterion == "hidden")
        passed, total = re.match(r"(\d+) of (\d+) hidden cases pass", hidden.output).groups()
        assert int(passed) == int(total) >= 3 * len(SEEDS), hidden.output
        failing = [f"{v.test}: {v.output}" for v in part.verdicts if not v.passed]
        assert not failing, failing

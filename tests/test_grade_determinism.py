"""The same submission graded again with the same seed gets the same score and the same
feedback: pdc.sim has no thread schedule to vary, and its race records are exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pdc.grade import exercises as exs
from pdc.grade import notebook
from pdc.grade.grader import run_parts

HERE = Path(__file__).resolve().parent / "submissions"
# Kernels whose results depend on the order of threads on a GPU: races, atomics.
RACY = ["histogram_shared_no_barrier_before_flush", "scan_hillis_steele_in_place"]


@pytest.mark.parametrize("name", RACY)
def test_ten_gradings_with_one_seed_agree(name):
    e = json.loads((HERE / name / "expect.json").read_text())
    ex = exs.exercise(e["exercise"])
    part = next(p for p in ex.parts if p.name == e["part"])
    cells = notebook.notebook_cells(next((HERE / name).glob("*.ipynb")))
    # Ten gradings in one child process: ten times the same kernel, cases and seed.
    results = run_parts([(ex, part, cells)] * 10, seed=5, timeout=60, gpu=False)
    scores = {r.score for r in results}
    feedback = {tuple(v.output for v in r.verdicts) for r in results}
    assert len(results) == 10 and results[0].score < results[0].max_score
    assert scores == {results[0].score}
    assert len(feedback) == 1

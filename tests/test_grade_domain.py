"""Hidden cases cover each exercise's stated domain: every draw reaches every boundary.

Each part declares its spec's domain (``Part.domain``) and the boundaries of that domain
(``Part.boundaries``: name -> predicate on a Case). Every seed's hidden draw must contain a case
on each boundary, so a kernel that is wrong at one of them loses points on every seed, not on
some; the instructor guide lists the same domains and boundaries.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from pdc.grade import exercises as exs
from pdc.grade.grader import grade

ROOT = Path(__file__).resolve().parents[1]
SUBMISSIONS = ROOT / "tests" / "submissions"
GUIDE = ROOT / "solutions" / "INSTRUCTOR.md"
PARTS = [(key, p) for key in exs.ALL_KEYS for p in exs.exercise(key).parts]
DRAW_SEEDS = range(40)
GRADE_SEEDS = (0, 1, 2, 3, 4)
DOMAIN_CASES = sorted(p.name for p in SUBMISSIONS.glob("domain_*") if p.is_dir())


def test_every_exercise_declares_its_domain():
    assert len({key for key, _ in PARTS}) == 13
    for key, part in PARTS:
        assert part.domain, f"{key} {part.name}: no domain"
        assert len(part.boundaries) >= 3, f"{key} {part.name}: {list(part.boundaries)}"


@pytest.mark.parametrize("key, part", PARTS, ids=[p.name for _, p in PARTS])
def test_every_seed_draws_every_boundary(key, part):
    for seed in DRAW_SEEDS:
        cases = exs.hidden_cases(part, np.random.default_rng(seed))
        assert all(c.hidden for c in cases)
        missed = [b for b, hit in part.boundaries.items() if not any(hit(c) for c in cases)]
        assert not missed, f"{part.name}, seed {seed}: no hidden case with {missed}"


def test_boundaries_can_be_missed():
    """The predicates are not vacuous: the public cases miss some boundary of every part."""
    for _, part in PARTS:
        if part.runner is not None:
            continue
        cases = exs.public_cases(part)
        missed = [b for b, hit in part.boundaries.items() if not any(hit(c) for c in cases)]
        assert missed, f"{part.name}: the public cases reach every boundary"


def test_wider_domains_reach_the_limits_the_specs_state():
    rng = np.random.default_rng(0)
    _, conv = exs.find_part("conv1d")
    assert max(c.dims["k"] for c in exs.hidden_cases(conv, rng)) >= 15
    _, fused = exs.find_part("softmax_fused")
    cases = exs.hidden_cases(fused, rng)
    assert min(c.dims["cols"] for c in cases) == 1
    assert max(c.dims["cols"] for c in cases) >= 4096
    wide = [c for c in cases if c.dims["spread"] >= 100]
    assert wide and all(np.ptp(c.args["x"], axis=1).max() > 2 * 88.7 for c in wide)
    assert all(c.args["x"].dtype == np.float32 for c in cases)


def test_instructor_guide_lists_each_domain():
    text = GUIDE.read_text()
    for key, part in PARTS:
        row = exs.domain_row(key, part)
        assert row in text, f"solutions/INSTRUCTOR.md lacks the row\n{row}"


def _failing_seeds(part, output: str) -> set[int]:
    per_seed = len(exs.hidden_cases(part, np.random.default_rng(0)))
    groups = re.findall(r"hidden cases? ([\d, ]+) failed", output)
    failed = [int(k) for g in groups for k in g.split(", ")]
    return {GRADE_SEEDS[(k - 1) // per_seed] for k in failed}


def test_domain_cases_exist():
    assert len(DOMAIN_CASES) >= 5


@pytest.mark.parametrize("name", DOMAIN_CASES)
def test_domain_mistake_loses_hidden_points_on_every_seed(name):
    expect = json.loads((SUBMISSIONS / name / "expect.json").read_text())
    seeds = {"seed": GRADE_SEEDS[0], "extra_seeds": GRADE_SEEDS[1:]}
    sub = grade(SUBMISSIONS / name, only=[expect["exercise"]], kernels=[expect["part"]], **seeds)
    (result,) = sub.parts
    verdicts = {v.criterion: v for v in result.verdicts}
    assert verdicts["public"].passed, verdicts["public"].output
    _, part = exs.find_part(expect["part"], plugins=True)
    hidden = verdicts["hidden"].output
    assert _failing_seeds(part, hidden) == set(GRADE_SEEDS), hidden

"""Wrong and cheating submissions score below full marks, for the right reason; correct
kernels in unusual styles score full marks.

Each folder under tests/submissions/ holds notebooks (built by tests/submissions/build.py)
and expect.json: either ``full`` (full marks) or the criteria that must fail, those that must
pass, and a phrase the feedback must contain; optionally a warning the report must carry.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from pdc.grade import exercises as exs
from pdc.grade import gate, source
from pdc.grade.grader import grade

HERE = Path(__file__).resolve().parent / "submissions"
CASES = sorted(p.name for p in HERE.iterdir() if (p / "expect.json").is_file())
TIMEOUT_S = 5.0
#: What an attack's notebook would score without its attack.
HONEST = {"attack_hidden_leak": 3.0}  # its kernel is right on every public size
CLAIM_BATCH = 48  # kernels one worker compiles in one batch


@pytest.fixture(scope="module", autouse=True)
def _compile_all_at_once(tmp_path_factory, worker_id):
    """Fill the compile gate's cache in batches: one compiling process per batch instead of one
    per folder. Under pytest-xdist every worker runs this fixture; each claims batches in a
    folder the run's workers share, so a cold cache compiles each kernel once, on every core."""
    jobs = []
    for name in CASES:
        expect = json.loads((HERE / name / "expect.json").read_text())
        ex = exs.exercise(expect["exercise"])
        part = next(p for p in ex.parts if p.name == expect["part"])
        for path in (HERE / name).glob("*.ipynb"):
            ext = source.extract(source.notebook_cells(path), [part.name], ex.constants)
            if part.runner is None and part.name not in ext.problems:
                args = list(exs.public_cases(part)[0].args.values())
                text = gate.module_text(ext, part.name)
                jobs.append((f"{name}/{path.name}", text, part.name, args))
    claims = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        claims = claims.parent  # the run's folder, above each worker's own
    claims = claims / "gate-claims"
    claims.mkdir(exist_ok=True)
    for i in range(0, len(jobs), CLAIM_BATCH):
        try:
            (claims / str(i)).touch(exist_ok=False)  # atomic: one worker wins each batch
        except FileExistsError:
            continue
        gate.check_compiles(jobs[i : i + CLAIM_BATCH])


def _grade(name, sub_out=None):
    expect = json.loads((HERE / name / "expect.json").read_text())
    t0 = time.perf_counter()
    # A short timeout only where a timeout is the point: a busy CI machine is slow.
    timeout = TIMEOUT_S if name == "infinite_loop" else expect.get("timeout", 60.0)
    sub = grade(
        HERE / name, only=[expect["exercise"]], kernels=[expect["part"]], timeout=timeout, seed=11
    )
    if sub_out is not None:
        sub_out.append(sub)
    (part,) = sub.parts
    return expect, part, {v.criterion: v for v in part.verdicts}, time.perf_counter() - t0


def test_cases_exist():
    assert len(CASES) >= 20
    assert sum(c.startswith("attack_") for c in CASES) >= 7
    for group in ("reach_", "atomic_", "kind_", "style_", "edge_", "load_", "pick_"):
        assert sum(c.startswith(group) for c in CASES) >= 3, group


def test_every_measured_criterion_has_three_gaming_attempts():
    """Gaming attempts (right outputs, a criterion's measure fooled) lose that criterion."""
    by_measure: dict = {}
    for name in CASES:
        expect = json.loads((HERE / name / "expect.json").read_text())
        if "gaming" in expect:
            assert {"public", "hidden"} <= set(expect["passes"]), name  # right outputs
            by_measure.setdefault(expect["gaming"], []).append(name)
    assert set(by_measure) >= {
        "work spread",
        "atomics per address",
        "per-thread budget",
        "coalescing",
        "bank conflicts",
        "operations per thread",
        "coalescing per request",
    }
    for measure, names in by_measure.items():
        assert len(names) >= 3, (measure, names)


#: What a submission's own kernel may make the simulator report as an exception (a refusal
#: of numba-cuda, a budget that stops an endless loop, a fault of the kernel itself). Any
#: other exception would be the simulator's own failure, and "does not support" never shows.
OWN_FAULTS = (
    "numba-cuda cannot compile",
    "more than a GPU gives",
    "a loop that can never end",
    "an endless loop?",
    "with debug=True numba-cuda raises it",
)


def _simulator_failures(verdicts) -> list[str]:
    out = []
    for v in verdicts.values():
        for line in v.output.splitlines():
            if "does not support" in line:
                out.append(line)
            elif "kernel raised an exception:" in line and not any(f in line for f in OWN_FAULTS):
                out.append(line)
    return out


@pytest.mark.parametrize("name", CASES)
def test_submission_is_graded_for_the_right_reason(name):
    subs: list = []
    expect, part, verdicts, _ = _grade(name, subs)
    # Every kernel the grader sees runs on pdc.sim without the simulator failing itself.
    assert not _simulator_failures(verdicts), _simulator_failures(verdicts)
    if name.startswith("attack_"):
        # An attack scores no more than the same notebook without the attack would.
        assert part.score <= HONEST.get(name, 0.0)
    for w in [expect["warning"]] if "warning" in expect else []:
        assert any(w in line for line in subs[0].warnings), subs[0].warnings
    if expect.get("full"):
        assert part.score == part.max_score, [v.output for v in verdicts.values()]
        return
    assert part.score < part.max_score
    for c in expect["fail"]:
        assert not verdicts[c].passed, (c, verdicts[c].output)
    for c in expect["passes"]:
        assert verdicts[c].passed, (c, verdicts[c].output)
    reasons = "\n".join(verdicts[c].output for c in expect["fail"])
    assert expect["reason"] in reasons, reasons


def test_infinite_loop_is_killed_on_time():
    _, part, verdicts, seconds = _grade("infinite_loop")
    assert part.score == 0
    assert "timed out after 5 s" in verdicts["public"].output
    assert seconds < TIMEOUT_S + 10


def test_hidden_cases_do_not_leak_through_feedback():
    _, part, verdicts, _ = _grade("attack_hidden_leak")
    out = verdicts["hidden"].output
    assert "kernel raised an exception" in out
    # Only the case number and a category: no sizes, indices, shapes or exception text.
    for line in out.splitlines()[1:]:
        assert re.fullmatch(r"hidden cases? [\d, ]+ failed: [a-z ]+", line), line


def test_correct_kernels_in_unusual_styles_earn_full_marks():
    full = [c for c in CASES if json.loads((HERE / c / "expect.json").read_text()).get("full")]
    assert len(full) >= 8 and sum(c.startswith("style_") for c in full) >= 5


def test_bug_reports_name_thread_and_line():
    _, _, verdicts, _ = _grade("conv1d_guard_reads_one_past_end")
    out = verdicts["bounds"].output
    assert re.search(r"read x\[\d+\] outside shape \(\d+,\) \(block \(\d+, 0, 0\) thread", out)
    assert "conv1d line 9" in out

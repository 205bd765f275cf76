"""`pdc grade solutions/`: full marks on every exercise, and valid reports."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pdc.grade import exercises as exs
from pdc.grade.cli import main as grade_main

ROOT = Path(__file__).resolve().parents[1]
GRADESCOPE_TEST_KEYS = {"name", "score", "max_score", "output", "visibility"}
# One worker grades the solutions once for the whole module (pytest -n 2 --dist loadgroup).
pytestmark = pytest.mark.xdist_group("grade-solutions")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    out = tmp_path_factory.mktemp("grade")
    argv = [
        str(ROOT / "solutions"),
        "--json",
        str(out / "results.json"),
        "--junit",
        str(out / "junit.xml"),
        "--csv",
        str(out / "scores.csv"),
    ]
    rc = grade_main(argv)
    return rc, out


def test_exit_status_says_grading_ran(graded):
    rc, _ = graded
    assert rc == 0


def test_every_exercise_scores_full_marks(graded):
    _, out = graded
    results = json.loads((out / "results.json").read_text())
    assert results["score"] == results["max_score"] > 0
    failing = [
        t["name"] + ": " + t["output"] for t in results["tests"] if t["score"] < t["max_score"]
    ]
    assert not failing, failing
    kernels = {t["tags"][1] for t in results["tests"]}
    expected = {p.name for key in exs.ALL_KEYS for p in exs.exercise(key).parts}
    assert kernels == expected


def test_results_json_has_gradescope_fields(graded):
    _, out = graded
    results = json.loads((out / "results.json").read_text())
    assert isinstance(results["score"], float)
    assert isinstance(results["max_score"], float)
    assert results["tests"]
    for t in results["tests"]:
        assert GRADESCOPE_TEST_KEYS <= set(t)
        assert isinstance(t["name"], str) and isinstance(t["output"], str)
        assert 0 <= t["score"] <= t["max_score"]
        assert t["visibility"] in {"hidden", "after_due_date", "after_published", "visible"}
    assert abs(sum(t["score"] for t in results["tests"]) - results["score"]) < 1e-6


def test_junit_xml_parses_and_counts(graded):
    _, out = graded
    root = ET.parse(out / "junit.xml").getroot()
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert {s.get("name") for s in suites} == set(exs.ALL_KEYS)
    cases = root.findall("testsuite/testcase")
    assert int(root.get("tests")) == len(cases) > 0
    assert int(root.get("failures")) == 0 == len(root.findall("testsuite/testcase/failure"))


def test_csv_has_one_row_per_submission(graded):
    _, out = graded
    rows = list(csv.DictReader((out / "scores.csv").open()))
    assert len(rows) == 1
    assert rows[0]["submission"] == "solutions"
    assert float(rows[0]["total"]) == float(rows[0]["max_score"]) > 0


def test_student_versions_score_nothing(tmp_path):
    from pdc.grade.grader import grade

    sub = grade(ROOT / "exercises", seed=0, only=["01_elementwise", "05_reduction"])
    assert sub.parts and sub.score == 0.0
    for p in sub.parts:
        public = next(v for v in p.verdicts if v.criterion == "public")
        assert "differs at" in public.output


def test_missing_path_scores_zero_and_is_reported(tmp_path, capsys):
    # A missing PATH no longer stops the batch (exit 2): it scores 0 with the reason (exit 1).
    assert grade_main([str(tmp_path / "nope"), "-e", "01_elementwise"]) == 1
    assert "no such notebook or folder" in capsys.readouterr().out


def test_missing_notebook_scores_zero_with_reason(tmp_path):
    from pdc.grade.grader import grade

    sub = grade(tmp_path, only=["02_conv1d"])
    assert sub.score == 0 and sub.max_score > 0
    assert "no notebook for 02_conv1d" in sub.parts[0].verdicts[0].output


def test_several_submissions_to_csv_and_out_dir(tmp_path):
    a, b = tmp_path / "alice", tmp_path / "bob"
    for d in (a, b):
        d.mkdir()
    (a / "01_elementwise.ipynb").write_text((ROOT / "solutions/01_elementwise.ipynb").read_text())
    (b / "01_elementwise.ipynb").write_text((ROOT / "exercises/01_elementwise.ipynb").read_text())
    argv = [
        str(a),
        str(b),
        "-e",
        "01_elementwise",
        "--csv",
        str(tmp_path / "s.csv"),
        "--out-dir",
        str(tmp_path / "out"),
        "-q",
    ]
    assert grade_main(argv) == 0
    rows = {r["submission"]: r for r in csv.DictReader((tmp_path / "s.csv").open())}
    assert float(rows["alice"]["01_elementwise"]) == 8
    assert float(rows["bob"]["01_elementwise"]) == 0
    for name in ("alice", "bob"):
        assert json.loads((tmp_path / "out" / name / "results.json").read_text())["tests"]
        ET.parse(tmp_path / "out" / name / "junit.xml")


def test_single_notebook_grades_only_its_exercise():
    from pdc.grade.grader import grade

    sub = grade(ROOT / "solutions" / "02_conv1d.ipynb", seed=5)
    assert [p.part for p in sub.parts] == ["conv1d"]
    assert sub.score == sub.max_score

"""The classroom workflow is a well-formed GitHub Actions file that runs `pdc grade`."""

from __future__ import annotations

from pathlib import Path

import yaml

WORKFLOW = Path(__file__).resolve().parents[1] / "solutions" / "classroom" / "github-classroom.yml"


def _load():
    return yaml.safe_load(WORKFLOW.read_text())


def test_workflow_structure():
    wf = _load()
    assert wf["name"] == "grade"
    # PyYAML reads the key `on` as the boolean True (YAML 1.1); GitHub reads it as "on".
    triggers = wf.get("on", wf.get(True))
    assert "push" in triggers and "workflow_dispatch" in triggers
    assert wf["permissions"] == {"contents": "read"}
    job = wf["jobs"]["grade"]
    assert job["runs-on"] == "ubuntu-latest"
    assert 0 < job["timeout-minutes"] <= 30
    for step in job["steps"]:
        assert "name" in step
        assert ("uses" in step) != ("run" in step), step["name"]
        if "uses" in step:
            action, _, version = step["uses"].partition("@")
            assert action.count("/") == 1 and version, step["uses"]


def test_workflow_grades_and_keeps_reports():
    steps = _load()["jobs"]["grade"]["steps"]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert 'pdc grade "$SUBMISSION" --json ../results.json --junit ../junit.xml' in runs
    assert "GITHUB_STEP_SUMMARY" in runs
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["if"] == "always()"
    for name in ("results.json", "junit.xml"):
        assert name in upload["with"]["path"]
    checkout = [s for s in steps if s.get("uses", "").startswith("actions/checkout")]
    assert {s["with"]["path"] for s in checkout} == {"submission", "pdc-course"}


def test_grade_command_in_workflow_parses():
    from pdc.grade.cli import _parser

    args = _parser().parse_args([".", "--json", "../results.json", "--junit", "../junit.xml"])
    assert args.json.name == "results.json" and args.junit.name == "junit.xml"


def test_guide_and_workflow_name_thirteen_exercises_and_who_controls_the_grade():
    from pdc.grade import exercises as exs

    guide = (WORKFLOW.parents[1] / "INSTRUCTOR.md").read_text()
    text = WORKFLOW.read_text()
    assert len(exs.ALL_KEYS) == 13
    for doc in (guide, text):
        assert "thirteen" in doc and " eleven " not in doc
    assert "a student can edit it" in text and "a student can edit it" in guide
    assert "pdc grade --class submissions/" in guide and "strategy:" in guide

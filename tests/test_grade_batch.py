"""Nothing stops a batch: unreadable notebooks score 0 with the file and the reason, every
student gets results.json, the CSV is always written, and the exit status says what happened.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pdc.grade import batch, cli
from pdc.grade.grader import grade

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "01_elementwise.ipynb"


def _class(tmp_path: Path) -> Path:
    """Three students: one fine, one with a notebook cut in half, one with a 0-byte file."""
    root = tmp_path / "class"
    for name in ("alice", "carol", "dave"):
        (root / name).mkdir(parents=True)
        shutil.copy(SOLUTION, root / name / "01_elementwise.ipynb")
    text = (ROOT / "solutions" / "02_conv1d.ipynb").read_text()
    (root / "carol" / "02_conv1d.ipynb").write_text(text[: len(text) // 2])
    (root / "dave" / "01_elementwise.ipynb").write_bytes(b"")
    return root


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "the file is empty"),
        (b'{\n "cells": [\n  {\n   "cell_type": "m', "JSON error at line 4"),
        (b"[1, 2, 3]", "expected a JSON object with a list of cells, got list"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
    ],
)
def test_unreadable_notebook_scores_zero_with_file_and_reason(tmp_path, content, reason):
    (tmp_path / "01_elementwise.ipynb").write_bytes(content)
    sub = grade(tmp_path, only=["01_elementwise"], seed=1)
    assert sub.parts and sub.score == 0
    assert sub.unreadable == [str(tmp_path / "01_elementwise.ipynb")]
    for p in sub.parts:
        for v in p.verdicts:
            assert "01_elementwise.ipynb" in v.output and reason in v.output
    assert any("01_elementwise.ipynb" in w and reason in w for w in sub.warnings)


def test_batch_goes_on_and_writes_everything(tmp_path, capsys):
    root = _class(tmp_path)
    out, scores = tmp_path / "reports", tmp_path / "scores.csv"
    argv = ["--class", str(root), "-e", "01_elementwise", "-e", "02_conv1d", "--seed", "5"]
    status = cli.main([*argv, "--csv", str(scores), "--out-dir", str(out), "-q", "--jobs", "2"])
    assert status == 1  # graded, but some notebooks could not be read
    lines = capsys.readouterr().out.splitlines()
    assert sum(ln.startswith(("alice ", "carol ", "dave ")) for ln in lines) == 3
    rows = {r["submission"]: r for r in csv.DictReader(scores.open())}
    assert set(rows) == {"alice", "carol", "dave"}
    assert float(rows["alice"]["01_elementwise"]) > 0
    assert rows["carol"]["02_conv1d"] == "0" and float(rows["carol"]["01_elementwise"]) > 0
    assert rows["dave"]["01_elementwise"] == "0"
    assert rows["dave"]["unreadable"] == "01_elementwise.ipynb" and rows["alice"]["seed"] == "5"
    for name in ("alice", "carol", "dave"):
        res = json.loads((out / name / "results.json").read_text())
        assert res["extra_data"]["seed"] == 5 and (out / name / "junit.xml").is_file()
    carol = json.loads((out / "carol" / "results.json").read_text())
    assert "02_conv1d.ipynb: not a valid notebook (JSON error" in carol["output"]


def test_missing_path_still_gets_results(tmp_path):
    out = tmp_path / "out"
    status = cli.main([str(tmp_path / "nobody"), "-e", "01_elementwise", "--out-dir", str(out)])
    assert status == 1
    res = json.loads((out / "nobody" / "results.json").read_text())
    assert res["score"] == 0 and "no such notebook or folder" in res["output"]


def test_bad_command_exits_2(tmp_path, capsys):
    assert cli.main([str(tmp_path), "-e", "99_nothing"]) == 2
    assert "99_nothing" in capsys.readouterr().err
    assert cli.main([str(tmp_path), "--shard", "3/2"]) == 2


def test_help_documents_the_exit_status(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = capsys.readouterr().out
    assert "exit status:" in text and "could not be read" in text


def _workflow_grade_step() -> str:
    wf = yaml.safe_load((ROOT / "solutions" / "classroom" / "github-classroom.yml").read_text())
    step = next(s for s in wf["jobs"]["grade"]["steps"] if s["name"] == "Grade")
    return step["run"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="the workflow's steps are bash")
def test_classroom_workflow_step_with_a_corrupted_notebook(tmp_path):
    """The workflow's own Grade step, run by bash as GitHub runs it, on a broken submission."""
    sub = tmp_path / "submission"
    sub.mkdir()
    text = SOLUTION.read_text()
    (sub / "01_elementwise.ipynb").write_text(text[: len(text) // 3])
    (sub / "02_conv1d.ipynb").write_bytes(b"")
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "pdc").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pdc "$@"\n')
    (shim / "pdc").chmod(0o755)
    summary = tmp_path / "summary.md"
    env = dict(
        os.environ,
        PATH=f"{shim}{os.pathsep}{os.environ['PATH']}",
        SUBMISSION=".",
        GITHUB_STEP_SUMMARY=str(summary),
        PYTHONPATH=str(ROOT),
    )
    # GitHub runs a step as `bash -e {0}`: the script must carry its own status handling.
    proc = subprocess.run(
        ["bash", "-e", "-c", _workflow_grade_step()],
        cwd=sub,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    res = json.loads((tmp_path / "results.json").read_text())
    assert res["score"] == 0
    assert "01_elementwise.ipynb: not a valid notebook" in res["output"]
    assert "02_conv1d.ipynb: not a valid notebook (the file is empty)" in res["output"]
    assert (tmp_path / "junit.xml").is_file()
    assert "not a valid notebook" in summary.read_text()
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the run shows red, with reasons
    assert "score 0 /" in proc.stdout


def test_shards_cover_every_submission_once():
    paths = [Path(f"s{k:02d}") for k in range(11)]
    shards = [batch.shard(paths, i, 3) for i in (1, 2, 3)]
    assert sorted(p for s in shards for p in s) == sorted(paths)
    assert max(map(len, shards)) - min(map(len, shards)) <= 1
    with pytest.raises(ValueError, match=r"\[grade --shard\] expected i/n"):
        batch.parse_shard("0/4")

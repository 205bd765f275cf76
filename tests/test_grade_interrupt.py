"""Ctrl-C on a batch: it stops at once, keeps what was finished, and leaves no child."""

from __future__ import annotations

import csv
import os
import signal
import threading
from pathlib import Path

import pytest

from pdc.grade import batch, cli, sandbox
from pdc.grade.grader import Submission


def _fake_class(tmp_path: Path, monkeypatch) -> tuple[list[Path], threading.Event, list[str]]:
    """Three students: 'fast' finishes, then Ctrl-C while 'slow' and 'late' run."""
    paths = []
    for name in ("fast", "slow", "late"):
        (tmp_path / name).mkdir()
        paths.append(tmp_path / name)
    released, started = threading.Event(), []

    def grade_one(path, **kwargs):
        started.append(path.name)
        if path.name == "fast":
            threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()  # Ctrl-C, later
        else:
            released.wait(30)  # a student whose children run until they are stopped
        return Submission(path.name, str(path))

    def stop_all():
        stopped.append(True)
        released.set()

    stopped: list[bool] = []
    monkeypatch.setattr(batch, "grade_one", grade_one)
    monkeypatch.setattr(sandbox, "stop_all", stop_all)
    monkeypatch.setattr(sandbox, "_stopped_for_test", stopped, raising=False)
    return paths, released, started


def test_ctrl_c_keeps_the_finished_students_and_stops_the_rest(tmp_path, monkeypatch):
    paths, released, started = _fake_class(tmp_path, monkeypatch)
    done: list[str] = []
    with pytest.raises(batch.Interrupted) as info:
        batch.grade_all(paths, jobs=2, progress=False, on_done=lambda s: done.append(s.name))
    assert [s.name for s in info.value.graded] == ["fast"] and info.value.total == 3
    assert done == ["fast"]  # the student stopped mid-way is no result
    assert sandbox._stopped_for_test == [True] and released.is_set()
    assert started.count("fast") == 1  # "slow" and "late" were running: stopped, not kept


def test_the_command_writes_the_finished_students_and_exits_130(tmp_path, monkeypatch, capsys):
    paths, _, _ = _fake_class(tmp_path, monkeypatch)
    out = tmp_path / "out"
    status = cli.main([*map(str, paths), "--out-dir", str(out), "--csv", str(tmp_path / "s.csv")])
    assert status == 130
    assert "interrupted: 1 of 3 submissions graded" in capsys.readouterr().err
    rows = list(csv.reader((tmp_path / "s.csv").open()))
    assert [r[0] for r in rows[1:]] == ["fast"]
    assert (out / "fast" / "results.json").is_file() and not (out / "slow").exists()


def test_no_child_starts_once_grading_is_stopped(monkeypatch, tmp_path):
    from pdc.grade import zygote

    monkeypatch.setattr(zygote, "_POOL", {})
    sandbox._STOPPING.set()
    try:
        with pytest.raises(sandbox.Stopped):
            sandbox.start_child(tmp_path, 10)
        with pytest.raises(zygote.ZygoteError):
            zygote.get("sim", sandbox.SIM_PREPARE)
    finally:
        sandbox.resume()
    assert not sandbox._STOPPING.is_set()

"""``make gpu-report`` stops at once, and clearly, where there is no NVIDIA GPU; its parts work."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pdc.gpu_report import NONE_YET, keys, reference
from pdc.gpu_report import run as gr

ROOT = Path(__file__).resolve().parents[1]
no_gpu = pytest.mark.skipif(
    shutil.which("nvidia-smi") is not None, reason="this machine has nvidia-smi: a GPU may be here"
)


@no_gpu
def test_script_without_a_gpu_fails_fast_with_a_message_not_a_traceback(tmp_path):
    out = subprocess.run(
        [sys.executable, str(ROOT / "pdc" / "gpu_report" / "run.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert "no NVIDIA GPU here" in out.stderr and "PYTHON=" in out.stderr
    assert "Traceback" not in out.stderr + out.stdout
    assert not (tmp_path / "report.json").exists()


@no_gpu
@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_target_without_a_gpu_fails_fast(tmp_path):
    out = subprocess.run(
        ["make", "-s", "gpu-report", f"PYTHON={sys.executable}", f"OUT={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert out.returncode != 0
    assert "no NVIDIA GPU here" in out.stderr and "Traceback" not in out.stderr


def test_carried_wheels_folder_must_hold_wheels(tmp_path):
    with pytest.raises(gr.Stop, match="expected a folder of .whl files"):
        gr.install_wheels(sys.executable, tmp_path)


def test_this_python_has_what_the_report_needs():
    assert gr.missing_modules(sys.executable) == []


REPORT = {
    "device": "NVIDIA H100 80GB HBM3",
    "date": "2026-11-23",
    "python": "3.11.9",
    "platform": "Linux x86_64",
    "seconds": 312.0,
    "pytest": {
        "tests": 10,
        "failures": 1,
        "errors": 0,
        "skipped": 2,
        "seconds": 40.0,
        "summary": "1 failed, 7 passed, 2 skipped",
        "failed": ["tests.test_x::test_y"],
    },
    "bench_ring": {"seconds": 30.0, "result": {"cuda": {"single": {"p50_us": 12.25}}}},
    "notebooks": [
        {"notebook": "notebooks/01_why_gpus.ipynb", "ok": True, "seconds": 20.5, "error": ""},
        {
            "notebook": "solutions/04_conv2d.ipynb",
            "ok": False,
            "seconds": 3.0,
            "error": "CellExecutionError: x | y",
        },
    ],
}


def test_measurements_and_markdown_of_a_report():
    figures = gr.measurements(REPORT)
    assert figures == {"bench_ring.cuda.single.p50_us": 12.25, "notebook.01_why_gpus.seconds": 20.5}
    md = gr.markdown({**REPORT, "measurements": figures})
    assert md.startswith("# GPU report: NVIDIA H100 80GB HBM3")
    assert "`tests.test_x::test_y`" in md
    assert "| solutions/04_conv2d.ipynb | NO | 3.0 | CellExecutionError: x \\| y |" in md
    assert "| bench_ring.cuda.single.p50_us | 12.25 |" in md


def test_reference_is_labelled_with_device_and_date(tmp_path):
    assert reference("bench_ring.cuda.single.p50_us", tmp_path) == NONE_YET
    report = {**REPORT, "measurements": gr.measurements(REPORT)}
    (tmp_path / "h100.json").write_text(json.dumps(report))
    (tmp_path / "broken.json").write_text("{not json")
    line = reference("bench_ring.cuda.single.p50_us", tmp_path)
    assert line == "NVIDIA H100 80GB HBM3, 2026-11-23: 12.2 us"
    assert reference("no.such.key", tmp_path) == NONE_YET
    assert "notebook.01_why_gpus.seconds" in keys(tmp_path)


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for nvidia-smi")
def test_a_run_out_of_budget_still_writes_both_reports(tmp_path):
    # A stand-in nvidia-smi and 12 s in all: every step runs out of time, and says so.
    fake = tmp_path / "bin" / "nvidia-smi"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\necho "Stand-in GPU 80GB, 555.55, 81559 MiB"\n')
    fake.chmod(0o755)
    out_dir = tmp_path / "out"
    # What an earlier run on the same machine left behind must not be read as this run's.
    (out_dir / "notebooks" / "notebooks").mkdir(parents=True)
    (out_dir / "notebooks" / "notebooks" / "01_why_gpus.log").write_text("old failure")
    (out_dir / "pytest.xml").write_text('<testsuite tests="99" failures="7" errors="0" />')
    env = {**os.environ, "PATH": f"{fake.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "pdc/gpu_report/run.py"),
            "--out",
            str(out_dir),
            "--tests-budget",
            "4",
            "--bench-budget",
            "3",
            "--notebooks-budget",
            "5",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert out.returncode == 1, out.stderr[-2000:]
    report = json.loads((out_dir / "report.json").read_text())
    assert report["device"] == "Stand-in GPU 80GB"
    assert "timed out" in report["pytest"]["summary"]
    assert (report["pytest"]["tests"], report["pytest"]["failures"]) != (99, 7)
    assert not (out_dir / "notebooks" / "notebooks" / "01_why_gpus.log").exists()
    assert {nb["notebook"] for nb in report["notebooks"]} >= {
        "notebooks/01_why_gpus.ipynb",
        "solutions/04_conv2d.ipynb",
    }
    assert not any(nb["ok"] for nb in report["notebooks"])
    assert (out_dir / "report.md").read_text().startswith("# GPU report: Stand-in GPU 80GB")


def test_chapter_measurements_become_reference_figures_under_their_names(tmp_path):
    # An executed chapter as the report stores it: one evidence output beside plain text.
    record = {"name": "ch01.saxpy_1m", "seconds": 2.5e-5, "baseline_seconds": 2.0e-5}
    cell = {
        "cell_type": "code",
        "outputs": [
            {"output_type": "stream", "text": "hello"},
            {"output_type": "display_data", "data": {gr.EVIDENCE_MIME: record}},
        ],
    }
    path = tmp_path / "01.ipynb"
    path.write_text(json.dumps({"cells": [cell, {"cell_type": "markdown"}]}))
    assert gr.evidence_records(path) == [record]
    assert gr.evidence_records(tmp_path / "missing.ipynb") == []
    nb = {"notebook": "notebooks/01.ipynb", "ok": True, "seconds": 3.0, "evidence": [record]}
    # Beside other notebooks a chapter measures their load: only a quiet run's figures count.
    assert "evidence.ch01.saxpy_1m.seconds" not in gr.measurements({"notebooks": [nb]})
    loud = gr.markdown({**REPORT, "notebooks": [nb], "notebooks_at_once": 6, "measurements": {}})
    assert "6 at a time: the 1 measurements the chapters made are left out" in loud
    figures = gr.measurements({"notebooks": [nb], "notebooks_at_once": 1})
    assert figures["evidence.ch01.saxpy_1m.seconds"] == 2.5e-5
    assert figures["evidence.ch01.saxpy_1m.baseline_seconds"] == 2.0e-5
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "h100.json").write_text(
        json.dumps({"device": "NVIDIA H100", "date": "2026-11-23", "measurements": figures})
    )
    line = reference("evidence.ch01.saxpy_1m.seconds", ref)
    assert line.startswith("NVIDIA H100, 2026-11-23: ")
    assert reference("evidence.ch99.none.seconds", ref) == NONE_YET


def _fake_smi(tmp_path: Path) -> dict[str, str]:
    """A PATH whose nvidia-smi reports an H100, as the real one prints it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'NVIDIA H100 80GB HBM3, 580.65.06, 81559 MiB'\n")
    smi.chmod(0o755)
    return dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def test_dry_run_with_a_fake_nvidia_smi_shows_every_command_and_budget(tmp_path):
    out = subprocess.run(
        [sys.executable, str(ROOT / "pdc" / "gpu_report" / "run.py"), "--dry-run"]
        + ["--out", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        timeout=120,
        env=_fake_smi(tmp_path),
    )
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    assert plan["device"].startswith("NVIDIA H100 80GB HBM3, 580.65.06")
    assert plan["env"] == {
        "PDC_BACKEND": "cuda",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "CUDA_MODULE_LOADING": "EAGER",
    }
    tests, bench, notebooks = plan["steps"]
    assert (tests["budget"], bench["budget"], notebooks["budget"]) == (240, 90, 240)
    assert sum(s["budget"] for s in plan["steps"]) <= 570
    cmd = tests["cmd"]
    assert cmd[cmd.index("-n") + 1] == str(gr.TEST_WORKERS) and f"--timeout={gr.PER_TEST_S}" in cmd
    assert "-v" in cmd  # one line per test: a run stopped by its budget still says what ran
    assert "tests/test_ring_cuda.py" in cmd and "tests/test_ring_gpu_ready.py" in cmd
    assert "tests" not in cmd  # the GPU-relevant files only, not the whole suite
    assert bench["cmd"][-2:] == ["--backends", "cpu,cuda"]
    assert notebooks["each"] == gr.PER_NOTEBOOK_S < notebooks["budget"]
    assert notebooks["at_once"] == gr.NOTEBOOK_WORKERS > 1
    assert "notebooks/01_why_gpus.ipynb" in notebooks["notebooks"]
    assert not (tmp_path / "r").exists()  # nothing ran


def test_dry_run_of_chosen_notebooks_one_at_a_time_and_bad_choices(tmp_path):
    run = [sys.executable, str(ROOT / "pdc" / "gpu_report" / "run.py"), "--dry-run"]
    env = _fake_smi(tmp_path)
    chosen = ["notebooks/01_why_gpus.ipynb", "solutions/10_warp_reduce.ipynb"]
    args = ["--steps", "notebooks", "--notebooks", *chosen, "--notebooks-at-once", "1"]
    out = subprocess.run(run + args, capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    (step,) = json.loads(out.stdout)["steps"]
    assert step["step"] == "notebooks" and step["notebooks"] == chosen and step["at_once"] == 1
    for bad, why in [
        (["--steps", "tests,lint"], "--steps: expected some of tests, bench, notebooks"),
        (["--notebooks", "notebooks/99_none.ipynb"], "no such notebook: notebooks/99_none"),
        (["--notebooks-at-once", "0"], "expected 1 or more, got 0"),
    ]:
        r = subprocess.run(run + bad, capture_output=True, text=True, timeout=120, env=env)
        assert r.returncode == 2 and why in r.stderr, r.stderr


def test_a_step_out_of_time_kills_its_whole_process_group(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(60)\n"
    )
    r = gr._run([sys.executable, "-c", code], 3)
    assert r["returncode"] is None and "timed out after 3 s" in r["stderr"]
    grandchild = int(pid_file.read_text())
    for _ in range(50):  # the kill is asynchronous: wait for the process to go
        try:
            os.kill(grandchild, 0)
        except ProcessLookupError:
            break
        with open(f"/proc/{grandchild}/stat") as f:
            if f.read().split()[2] == "Z":  # a zombie of init's: gone
                break
        import time

        time.sleep(0.1)
    else:
        pytest.fail(f"the Jupyter-like grandchild {grandchild} survived the timeout")


def test_the_report_checks_numba_cuda_not_numbas_builtin_target():
    assert "numba_cuda" in gr.NEEDED and "numba.cuda" not in gr.NEEDED
    assert {"mlx", "cupy", "torch"} <= set(gr.OPTIONAL)
    probe = gr.stack(sys.executable)
    assert probe["numba-cuda"] and "torch_gpu" in probe and "cupy_gpu" in probe


def test_a_test_run_cut_by_its_budget_is_counted_from_its_log():
    log = "\n".join(
        [
            "[gw0] [ 10%] PASSED tests/test_ring_cuda.py::test_call[cuda] ",
            "[gw1] [ 20%] FAILED tests/test_buffer.py::test_pinned ",
            "tests/test_kernel.py::test_launch SKIPPED (needs a real CUDA GPU) [ 30%]",
            "[gw2] [ 40%] ERROR tests/test_pool.py::test_pool_reuse ",
            "collected 40 items",
        ]
    )
    seen = gr.outcomes_from_log(log)
    assert seen == {
        "tests/test_ring_cuda.py::test_call[cuda]": "PASSED",
        "tests/test_buffer.py::test_pinned": "FAILED",
        "tests/test_kernel.py::test_launch": "SKIPPED",
        "tests/test_pool.py::test_pool_reuse": "ERROR",
    }


def test_a_notebook_error_is_kept_without_terminal_colours():
    coloured = "\x1b[31mModuleNotFoundError\x1b[39m: No module named 'mlx'"
    assert gr.plain(coloured) == "ModuleNotFoundError: No module named 'mlx'"


def test_the_committed_reference_reports_hold_no_terminal_codes():
    for path in (ROOT / "book" / "reference").rglob("*"):
        if not path.is_file():
            continue
        text = (
            gzip.decompress(path.read_bytes()).decode()
            if path.suffix == ".gz"
            else path.read_text()
        )
        assert "\x1b" not in text and "\\u001b" not in text, path.name

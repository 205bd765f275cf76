"""check() in a notebook and `pdc grade` agree: same gate, same seed, same score."""

from __future__ import annotations

import json
import linecache
from pathlib import Path

import nbformat
import pytest

import pdc
from pdc.grade import checking, grader, notebook

ROOT = Path(__file__).resolve().parents[1]


def _gate_available() -> bool:
    from pdc.ptx.build import CompilerMissing, find_ptxas

    try:
        find_ptxas()
    except CompilerMissing:
        return False
    return True


def _define(src: str, filename: str, ns: dict):
    """Run a cell's source as Jupyter does: the source only in linecache."""
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), ns)  # noqa: S102 - the test's own kernel


def _transpose_cells(tile_shape: str) -> list[str]:
    cells = notebook.notebook_cells(ROOT / "solutions" / "09_transpose.ipynb")
    old = "cuda.shared.array((TILE, TILE_PAD), float32)"
    assert sum(old in c for c in cells) == 1
    return [c.replace(old, f"cuda.shared.array({tile_shape}, float32)") for c in cells]


@pytest.mark.skipif(not _gate_available(), reason="NVIDIA's compiler wheels are not installed")
def test_check_and_grade_agree_on_a_tile_numba_cannot_compile(tmp_path, capsys, monkeypatch):
    cells = _transpose_cells("(TILE, TILE + 1)")
    ns = {"cuda": pdc.numba_cuda(), "np": __import__("numpy")}
    kernel_cell = next(c for c in cells if "def transpose_padded" in c)
    setup = next(c for c in cells if "TILE_PAD = " in c)
    _define("from numba import float32\n" + setup, "<cell setup>", ns)
    _define(kernel_cell, "<cell padded>", ns)
    monkeypatch.setattr(checking, "notebook_session", lambda: (cells, None))
    checking.check(ns["transpose_padded"])
    out = capsys.readouterr().out
    assert "does not compile for a GPU" in out and "0 / " in out.splitlines()[0], out
    assert checking.PUBLIC_ONLY in out
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, tmp_path / "09_transpose.ipynb")
    sub = grader.grade(tmp_path, kernels=["transpose_padded"], only=["09_transpose"], seed=1)
    assert sub.score == 0 and "does not compile for a GPU" in sub.parts[0].note


def test_check_warns_when_the_saved_notebook_is_older(tmp_path, capsys, monkeypatch):
    src = (ROOT / "solutions" / "01_elementwise.ipynb").read_text()
    path = tmp_path / "01_elementwise.ipynb"
    path.write_text(src)
    cells = notebook.notebook_cells(path)
    kernel = next(c for c in cells if "def multiply(" in c)
    ns = {"cuda": pdc.numba_cuda()}
    _define(kernel, "<cell saved>", ns)
    monkeypatch.setattr(checking, "notebook_session", lambda: (None, path))
    checking.check(ns["multiply"])
    assert "unsaved edits" not in capsys.readouterr().out
    edited = kernel.replace("out[i] = a[i] * b[i]", "out[i] = b[i] * a[i]")
    assert edited != kernel
    _define(edited, "<cell edited>", ns)
    checking.check(ns["multiply"])
    out = capsys.readouterr().out
    assert "01_elementwise.ipynb on disk does not hold this version of multiply" in out
    assert "save (Ctrl+S)" in out


def test_seed_is_recorded_and_regrades_exactly(tmp_path):
    from pdc.grade import batch, cli

    sub = tmp_path / "s"
    sub.mkdir()
    (sub / "02_conv1d.ipynb").write_text((ROOT / "solutions" / "02_conv1d.ipynb").read_text())
    out1, out2 = tmp_path / "o1", tmp_path / "o2"
    assert cli.main([str(sub), "-e", "02_conv1d", "--out-dir", str(out1), "-q"]) == 0
    first = json.loads((out1 / "s" / "results.json").read_text())
    seed = first["extra_data"]["seed"]
    assert isinstance(seed, int) and f"--seed {seed}" in first["output"]
    assert cli.main([str(sub), "-e", "02_conv1d", "--seed", str(seed), "--out-dir", str(out2)]) == 0
    a = batch.read_outputs([out1])[0]
    b = batch.read_outputs([out2])[0]
    assert a.seed == b.seed == seed
    va = [(v.test, v.score, v.output) for p in a.parts for v in p.verdicts]
    vb = [(v.test, v.score, v.output) for p in b.parts for v in p.verdicts]
    assert va == vb


def test_a_racy_kernel_scores_the_same_under_one_seed():
    sub = ROOT / "tests" / "submissions" / "matmul_tiled_missing_sync"
    runs = [
        grader.grade(sub, only=["03_matmul"], kernels=["matmul_tiled"], seed=12345)
        for _ in range(2)
    ]
    a, b = ([(v.test, v.score, v.output) for v in s.parts[0].verdicts] for s in runs)
    assert a == b and runs[0].seed == runs[1].seed == 12345


def _multiply_cells() -> tuple[list[str], dict]:
    cells = notebook.notebook_cells(ROOT / "solutions" / "01_elementwise.ipynb")
    ns = {"cuda": pdc.numba_cuda()}
    _define(next(c for c in cells if "def multiply(" in c), "<cell multiply>", ns)
    return cells, ns


def test_the_gate_compiles_while_the_simulator_runs_the_cases(monkeypatch):
    import threading

    cells, ns = _multiply_cells()
    sim_started = threading.Event()
    seen: dict = {}

    def gate(ex, part, cells):
        seen["gate"] = threading.current_thread()
        # Answers only once the simulator has started: a check that waited for the gate
        # before simulating would never get here in time.
        seen["overlapped"] = sim_started.wait(timeout=30)
        return None

    real = checking.sim.launch

    def launch(*args, **kwargs):
        seen["sim"] = threading.current_thread()
        sim_started.set()
        return real(*args, **kwargs)

    monkeypatch.setattr(checking, "gate_problem", gate)
    monkeypatch.setattr(checking.sim, "launch", launch)
    part, verdicts = checking.run_public(ns["multiply"], cells=cells)
    assert seen["overlapped"] and seen["gate"] is not seen["sim"]
    assert all(v.passed for v in verdicts)


def test_the_gate_verdict_decides_and_a_simulator_error_only_counts_when_it_compiles(
    monkeypatch,
):
    cells, ns = _multiply_cells()

    def broken(*args, **kwargs):
        raise RuntimeError("the simulator cannot run this kernel")

    monkeypatch.setattr(checking.sim, "launch", broken)
    monkeypatch.setattr(checking, "gate_problem", lambda *a: "does not compile for a GPU: x")
    part, verdicts = checking.run_public(ns["multiply"], cells=cells)
    assert not verdicts[0].passed and "does not compile for a GPU: x" in verdicts[0].output
    monkeypatch.setattr(checking, "gate_problem", lambda *a: None)
    with pytest.raises(RuntimeError, match="cannot run this kernel"):
        checking.run_public(ns["multiply"], cells=cells)

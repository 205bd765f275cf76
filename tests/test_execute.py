"""notebooks/execute.py runs a notebook in place, in its own folder, with capped math threads."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
sys.path.insert(0, str(NOTEBOOKS))

import execute  # noqa: E402


@pytest.fixture(autouse=True)
def _restore_thread_variables(monkeypatch):
    # main() sets these for its kernels; monkeypatch puts the originals back afterwards.
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)


def test_executes_in_place_in_the_notebook_folder(tmp_path, capsys):
    (tmp_path / "helper.py").write_text("VALUE = 41\n")
    nb = new_notebook(
        cells=[
            new_code_cell("import os, helper\nprint(os.getcwd(), helper.VALUE + 1)"),
            new_code_cell("print(os.environ['OMP_NUM_THREADS'])"),
        ]
    )
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    path = tmp_path / "demo.ipynb"
    nbformat.write(nb, path)
    assert execute.main([str(path)]) == 0
    cells = json.loads(path.read_text())["cells"]
    cwd, value = "".join(cells[0]["outputs"][0]["text"]).split()
    assert Path(cwd).resolve() == tmp_path.resolve() and value == "42"
    assert 1 <= int("".join(cells[1]["outputs"][0]["text"])) <= 4
    assert "demo.ipynb: " in capsys.readouterr().out


def test_a_failing_notebook_is_reported_and_left_unchanged(tmp_path, capsys):
    nb = new_notebook(cells=[new_code_cell("raise RuntimeError('boom')")])
    path = tmp_path / "broken.ipynb"
    nbformat.write(nb, path)
    before = path.read_text()
    assert execute.main([str(path)]) == 1
    assert path.read_text() == before
    assert "FAILED" in capsys.readouterr().out

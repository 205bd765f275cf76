"""Which notebook answers which exercise in a student's folder (pdc.grade.notebook)."""

from __future__ import annotations

import nbformat

from pdc.grade.grader import find_notebooks


def _nb(path, exercise=None):
    nb = nbformat.v4.new_notebook()
    if exercise:
        nb.metadata["pdc"] = {"exercise": exercise}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def test_exact_name_beats_metadata(tmp_path):
    _nb(tmp_path / "02_conv1d.ipynb", exercise="03_matmul")  # a copied notebook, renamed
    _nb(tmp_path / "my_matmul.ipynb", exercise="03_matmul")
    found = find_notebooks(tmp_path)
    assert found["02_conv1d"].name == "02_conv1d.ipynb"
    assert found["03_matmul"].name == "my_matmul.ipynb"


def test_sub_folders_are_searched_hidden_ones_skipped(tmp_path):
    _nb(tmp_path / "hw2" / "02_conv1d.ipynb")
    _nb(tmp_path / ".ipynb_checkpoints" / "03_matmul-checkpoint.ipynb")
    _nb(tmp_path / "hw2" / ".ipynb_checkpoints" / "01_elementwise-checkpoint.ipynb")
    _nb(tmp_path / ".git" / "01_elementwise.ipynb")
    found = find_notebooks(tmp_path)
    assert set(found) == {"02_conv1d"}
    assert found["02_conv1d"] == tmp_path / "hw2" / "02_conv1d.ipynb"


def test_every_other_candidate_is_named(tmp_path):
    _nb(tmp_path / "hw2" / "02_conv1d.ipynb")
    _nb(tmp_path / "02_conv1d (1).ipynb")
    _nb(tmp_path / "old" / "02_conv1d-Copy1.ipynb")
    _nb(tmp_path / "draft.ipynb", exercise="02_conv1d")
    warnings: list = []
    found = find_notebooks(tmp_path, warnings)
    assert found["02_conv1d"] == tmp_path / "hw2" / "02_conv1d.ipynb"
    (w,) = warnings
    assert w.startswith("02_conv1d: graded hw2/02_conv1d.ipynb (the exact name); ignored ")
    for other in ("02_conv1d (1).ipynb", "old/02_conv1d-Copy1.ipynb", "draft.ipynb"):
        assert other in w

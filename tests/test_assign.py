"""`pdc assign`: student notebooks come from the solutions, in sync, without answers."""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

from pdc.grade import exercises as exs
from pdc.grade.assign import generate, main, strip_solution

ROOT = Path(__file__).resolve().parents[1]


def test_committed_student_notebooks_are_in_sync(tmp_path):
    assert generate(ROOT / "solutions", ROOT / "exercises", check=True) == [], (
        "exercises/ is out of sync with solutions/: run `make assign`"
    )


def test_check_flag_exit_status(tmp_path, capsys):
    assert main([str(ROOT / "solutions"), str(ROOT / "exercises"), "--check"]) == 0
    assert main([str(ROOT / "solutions"), str(tmp_path), "--check"]) == 1
    assert "out of sync" in capsys.readouterr().out


def test_generation_is_reproducible(tmp_path):
    generate(ROOT / "solutions", tmp_path)
    for p in sorted(tmp_path.glob("*.ipynb")):
        assert p.read_text() == (ROOT / "exercises" / p.name).read_text()


def _kernels(nb):
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                yield node


@pytest.mark.parametrize("key", list(exs.ALL_KEYS))
def test_student_notebook_has_no_solution_code_or_outputs(key):
    text = (ROOT / "exercises" / f"{key}.ipynb").read_text()
    assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
    nb = nbformat.read(ROOT / "exercises" / f"{key}.ipynb", as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    kernels = {n.name: n for n in _kernels(nb)}
    for part in exs.exercise(key).parts:
        body = kernels[part.name].body
        assert len(body) == 1 and isinstance(body[0], ast.Pass), part.name
    solution = (ROOT / "solutions" / f"{key}.ipynb").read_text()
    assert "BEGIN SOLUTION" in solution


@pytest.mark.parametrize("key", list(exs.ALL_KEYS))
def test_no_hidden_case_data_in_notebooks(key):
    """Hidden cases are drawn by the grader; notebooks only name public sizes."""
    for folder in ("exercises", "solutions"):
        text = (ROOT / folder / f"{key}.ipynb").read_text().lower()
        assert "hidden case " not in text
        assert "hidden_cases" not in text and "exercises import" not in text


def test_markers_keep_indentation_and_validate():
    src = "def f():\n    x = 1\n    # BEGIN SOLUTION\n    return x\n    # END SOLUTION\n"
    assert strip_solution(src, False, "t") == "def f():\n    x = 1\n    # FILL ME IN\n    pass"
    md = "Q?\n<!-- BEGIN SOLUTION -->\nA.\n<!-- END SOLUTION -->\nnext"
    assert strip_solution(md, True, "t") == "Q?\nnext"
    with pytest.raises(ValueError, match="expected END SOLUTION after line 1"):
        strip_solution("# BEGIN SOLUTION\nx", False, "t")
    with pytest.raises(ValueError, match="expected BEGIN SOLUTION before line 1"):
        strip_solution("# END SOLUTION", False, "t")


def test_instructor_guide_points_table_matches_the_grader():
    text = (ROOT / "solutions" / "INSTRUCTOR.md").read_text()
    for key in exs.ALL_KEYS:
        for p in exs.exercise(key).parts:
            pts = ", ".join(f"{c} {v}" for c, v in p.points.items())
            assert f"| {key} | `{p.name}` | {pts} | {p.max_points:g} |" in text, p.name


@pytest.mark.slow
@pytest.mark.parametrize("key", list(exs.ALL_KEYS))
def test_student_notebook_runs_top_to_bottom(key, tmp_path):
    """A student who runs the stubs gets failing checks, never an exception."""
    from nbclient import NotebookClient

    nb = nbformat.read(ROOT / "exercises" / f"{key}.ipynb", as_version=4)
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT / "exercises")}},
    )
    client.execute()
    checks = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("check(")]
    assert checks
    for c in checks:
        text = "".join(o.get("text", "") for o in c.outputs)
        assert "[FAIL] public cases" in text, text


def test_widget_state_of_the_solutions_run_is_not_copied():
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    nb.cells = [nbformat.v4.new_code_cell("# BEGIN SOLUTION\nx = 1\n# END SOLUTION")]
    from pdc.grade.assign import student_notebook

    student = student_notebook(nb, "t.ipynb")
    assert "widgets" not in student.metadata
    assert "widgets" in nb.metadata  # the solution itself is left as it was

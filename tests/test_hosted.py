"""Every notebook opens with the setup cell of ``pdc.course.hosted``, which agrees with the book.

The cell itself runs in ``tests/test_hosted_wheel.py`` (from the built wheel, in a fresh
environment, from an empty folder); here, offline: every notebook carries the current cell,
the book's repository is the cell's, and the cell installs only where ``pdc`` is missing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
import yaml
from nbclient import NotebookClient

from pdc.course import hosted

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(
    p
    for folder in ("notebooks", "solutions", "exercises")
    for p in (ROOT / folder).glob("[0-9]*.ipynb")
)


def first_code_cell(path: Path) -> str:
    nb = json.loads(path.read_text())
    return next("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_notebook_starts_with_the_current_setup_cell(path):
    assert first_code_cell(path) == hosted.setup_cell(), (
        f"{path.relative_to(ROOT)}: expected the setup cell of pdc.course.hosted first; run "
        "`python -m pdc.course.hosted notebooks/*.ipynb solutions/*.ipynb` and `make assign`"
    )


def test_every_course_notebook_is_covered():
    folders = {p.parent.name for p in NOTEBOOKS}
    assert folders == {"notebooks", "solutions", "exercises"} and len(NOTEBOOKS) >= 30


def test_the_book_launches_from_the_repository_the_cell_installs_from():
    config = yaml.safe_load((ROOT / "book" / "_config.yml").read_text())
    assert config["repository"]["url"] == hosted.REPOSITORY
    assert config["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    assert f"git+{hosted.REPOSITORY}@v{hosted.release()}" in hosted.setup_cell()


def test_requirement_pins_the_release_tag_and_refuses_a_non_https_address():
    assert hosted.requirement("https://example.org/course/", "abc123") == (
        "pdc-course[hosted] @ git+https://example.org/course@abc123"
    )
    assert hosted.requirement().endswith(f"@v{hosted.release()}")
    with pytest.raises(ValueError, match=r"\[hosted\] expected an https repository.*'git@x:y'"):
        hosted.requirement("git@x:y")


def test_write_inserts_the_cell_once_and_then_replaces_it(tmp_path):
    path = tmp_path / "nb.ipynb"
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell("x = 1")]
    )
    nbformat.write(nb, path)
    assert hosted.write(path, hosted.setup_cell("https://example.org/a", "t1"))
    assert not hosted.write(path, hosted.setup_cell("https://example.org/a", "t1"))
    assert hosted.write(path, hosted.setup_cell("https://example.org/b", "t2"))
    cells = nbformat.read(path, as_version=4).cells
    assert [c.cell_type for c in cells] == ["markdown", "code", "code"]
    assert "git+https://example.org/b@t2" in cells[1].source and cells[2].source == "x = 1"
    nbformat.validate(nbformat.read(path, as_version=4))


def _run_cell(tmp_path: Path, source: str) -> str:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(tmp_path)}}).execute(
        env=dict(os.environ)
    )
    return "".join(o.get("text", "") for o in nb.cells[0].outputs)


@pytest.mark.slow
def test_the_cell_installs_nothing_where_pdc_is_importable(tmp_path, monkeypatch):
    # A requirement pip cannot resolve: if the cell tried to install it, the output would say so.
    monkeypatch.setenv("PDC_COURSE", str(tmp_path / "no-such-wheel.whl"))
    out = _run_cell(tmp_path, hosted.setup_cell() + "\nprint('COURSE =', COURSE)")
    assert out.strip() == f"COURSE = {tmp_path / 'no-such-wheel.whl'}", out


def test_an_unpublished_address_says_what_to_do_instead_of_calling_pip(monkeypatch):
    # Before the course is published the cell's address is a placeholder: where pdc is
    # missing, the cell stops with what to set, and pip never runs.
    from IPython.core.inputtransformer2 import TransformerManager

    source = TransformerManager().transform_cell(hosted.setup_cell())
    assert hosted.PLACEHOLDER in hosted.REPOSITORY  # this copy is unpublished
    calls: list = []
    ns = {"get_ipython": lambda: type("IP", (), {"run_line_magic": lambda *a: calls.append(a)})()}
    monkeypatch.delenv("PDC_COURSE", raising=False)
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None)
    with pytest.raises(RuntimeError, match="PDC_COURSE"):
        exec(compile(source, "setup", "exec"), ns)
    assert calls == []
    published = hosted.setup_cell("https://github.com/acme/pdc-course")
    assert hosted.PLACEHOLDER not in published and "RuntimeError" not in published

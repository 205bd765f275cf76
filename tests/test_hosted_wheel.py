"""Every notebook, opened alone with only the course wheel installed, runs its first cells.

This is what opening one notebook on Colab or Kaggle does: a Python with the usual notebook
libraries and torch, no course folder, and a working directory that holds only the notebook.
The test builds the wheel, makes a fresh virtual environment (no system site-packages) with
Jupyter's kernel, matplotlib, ipywidgets and tqdm, and runs the setup cell of the first chapter
with ``PDC_COURSE`` pointing at the wheel: the cell installs it, with its dependencies, from
the package index (pinned by ``constraints.txt``). Then every notebook of ``notebooks/``,
``solutions/`` and ``exercises/`` is copied alone into an empty folder and its first two code
cells (the setup cell and the imports) run there, in that environment.

A hosted image brings its own torch, which four chapters import. Downloading torch from the
index would take gigabytes, so the test lends the environment the torch of the Python running
the test: one folder of links to the modules ``import torch`` loads, none of which the fresh
environment has, is appended to its ``sys.path``. Nothing else comes from outside.

It reaches the package index, so it is marked ``network`` and runs in ``make check-installs``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INDEX = "https://pypi.org/simple"
NOTEBOOKS = sorted(
    p
    for folder in ("notebooks", "solutions", "exercises")
    for p in (ROOT / folder).glob("[0-9]*.ipynb")
)
# What a hosted image has besides torch, and what runs a notebook (nbclient, a kernel).
IMAGE = ["ipykernel", "nbclient", "nbformat", "matplotlib", "ipywidgets", "tqdm"]
# The first chapter installs the wheel; the others find it installed.
FIRST = ROOT / "notebooks" / "01_why_gpus.ipynb"

# Runs inside the fresh environment: each notebook alone in an empty folder, its first code
# cells, then a cell that says where pdc and the course modules came from.
DRIVER = textwrap.dedent(
    """
    import json, shutil, sys, tempfile
    from pathlib import Path
    import nbformat
    from nbclient import NotebookClient

    CELLS, WHERE = int(sys.argv[1]), (
        "import pdc, pdc.course.kit, pdc.course.practice, sys\\n"
        "print(pdc.__file__, pdc.course.kit.__file__, pdc.course.practice.__file__)\\n"
        "print(*sys.path)"
    )
    results = []
    for src in sys.argv[2:]:
        folder = Path(tempfile.mkdtemp(prefix="alone-"))
        nb_path = folder / Path(src).name
        shutil.copy(src, nb_path)
        nb = nbformat.read(nb_path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"][:CELLS]
        nb.cells = code + [nbformat.v4.new_code_cell(WHERE)]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        client = NotebookClient(nb, timeout=600, resources={"metadata": {"path": str(folder)}})
        error = None
        try:
            client.execute()
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[-3000:]
        texts = ["".join(o.get("text", "") for o in c.get("outputs", [])) for c in nb.cells]
        results.append({"notebook": src, "error": error, "outputs": texts,
                        "files": sorted(p.name for p in folder.iterdir())})
        shutil.rmtree(folder)
    print(json.dumps(results))
    """
)


def _index_reachable() -> bool:
    try:
        urllib.request.urlopen(INDEX + "/pip/", timeout=10).close()
        return True
    except OSError:
        return False


def _run(cmd: list[str], env: dict[str, str], cwd: Path, timeout: float) -> str:
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd[:4])}... failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _lend_torch(venv_python: Path, links: Path) -> None:
    """Link the modules ``import torch`` (and ``import triton``, which a hosted image's CUDA
    torch brings along) load here into ``links``, on the venv's sys.path."""
    outer = Path(sysconfig.get_paths()["purelib"])
    probe = (
        "import sys, json; import torch, torch.profiler; import triton, triton.language; "
        "print(json.dumps(sorted({m.split('.')[0] for m, mod in list(sys.modules.items()) "
        "if (getattr(mod, '__file__', None) or '').startswith(sys.argv[1])})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, str(outer)], capture_output=True, text=True, check=True
    )
    venv_site = Path(
        subprocess.run(
            [str(venv_python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    links.mkdir()
    for name in json.loads(out.stdout):
        if any(venv_site.glob(f"{name}*")):
            continue  # the environment's own copy (numpy, for one) wins
        for found in (*outer.glob(name), *outer.glob(f"{name}.*")):
            (links / found.name).symlink_to(found)
    assert (links / "torch").exists(), f"expected torch in {outer}"
    (venv_site / "zz_hosted_image_torch.pth").write_text(f"{links}\n")


@pytest.mark.network
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_each_notebook_runs_its_first_cells_alone_with_only_the_wheel(tmp_path):
    pytest.importorskip("torch", reason="lends this Python's torch to the fresh environment")
    if not _index_reachable():
        pytest.skip(f"the package index {INDEX} cannot be reached from here")
    env = {k: v for k, v in os.environ.items() if k in {"HOME", "LANG", "LC_ALL", "TMPDIR", "PATH"}}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    # The pinned versions the course is tested with, for the cell's %pip too.
    env["PIP_CONSTRAINT"] = f"{ROOT / 'constraints.txt'} {ROOT / 'stacks' / 'cpu.txt'}"
    # Built from a copy of what the wheel is made of: setuptools writes build/ beside it.
    source = tmp_path / "source"
    shutil.copytree(ROOT / "pdc", source / "pdc", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    wheels = tmp_path / "wheels"
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(source)],
        env,
        tmp_path,
        600,
    )
    (wheel,) = wheels.glob("pdc_course-*.whl")
    venv = tmp_path / "venv"
    # ensurepip inside: minutes on a loaded machine (120 s ran out beside the whole suite)
    _run([sys.executable, "-m", "venv", str(venv)], env, tmp_path, 600)
    python = venv / "bin" / "python"
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    _run([str(python), "-m", "pip", "install", "-q", *IMAGE], env, tmp_path, 900)
    _lend_torch(python, tmp_path / "hosted-torch")
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)

    # The setup cell alone, where pdc is missing: it installs the wheel.
    env["PDC_COURSE"] = str(wheel)
    (first,) = json.loads(_run([str(python), str(driver), "1", str(FIRST)], env, tmp_path, 900))
    assert first["error"] is None, first
    version = _run([str(python), "-m", "pip", "show", "pdc-course"], env, tmp_path, 60)
    assert "Location: " + str(venv) in version, version

    # Every notebook alone: the setup cell (now a no-op) and the imports cell.
    env["PDC_COURSE"] = str(tmp_path / "not-installed-again.whl")
    results = json.loads(
        _run([str(python), str(driver), "2", *map(str, NOTEBOOKS)], env, tmp_path, 1500)
    )
    assert len(results) == len(NOTEBOOKS)
    for res in results:
        name = Path(res["notebook"]).relative_to(ROOT)
        assert res["error"] is None, f"{name}: {res['error']}"
        assert res["files"] == [Path(res["notebook"]).name], f"{name}: {res['files']}"
        files, path = res["outputs"][-1].splitlines()[:2]
        assert all(f.startswith(str(venv)) for f in files.split()), f"{name}: {files}"
        assert str(ROOT) not in path, f"{name}: the course folder is on sys.path: {path}"

"""The first cell of every notebook: install the course package where it is missing.

A notebook opened alone on a hosted service (Colab, Kaggle) runs in a Python that has numpy,
torch and CuPy but not ``pdc``. Its first cell installs the course package, pinned to this
release's tag of the course repository, with the ``hosted`` extra (what the course adds to such
an image, leaving its torch and CuPy alone). Where ``pdc`` is already importable (the course
folder after ``make env``, a grader, a second run of the cell) the cell does nothing.

The course repository's address lives here, once: :data:`REPOSITORY`. Until an instructor
publishes the course and sets it, it is a placeholder that no server answers. After changing it
(and ``repository.url`` in ``book/_config.yml``, which gives the book its Colab buttons),
rewrite the cells with ``python -m pdc.course.hosted notebooks/*.ipynb solutions/*.ipynb`` and
regenerate the exercises (``pdc assign solutions exercises``); ``tests/test_hosted.py`` fails
while any of them disagrees.

The environment variable ``PDC_COURSE`` replaces the pinned requirement (a fork, a branch, a
wheel file), for instance ``PDC_COURSE=/path/to/pdc_course-0.1.0-py3-none-any.whl``.
"""

from __future__ import annotations

import argparse
import json
import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

# The course repository on GitHub. A placeholder until the course is published: the
# instructor replaces OWNER with the account that holds it (see the module docstring).
REPOSITORY = "https://github.com/OWNER/pdc-course"

# The first line of the cell, by which a notebook's setup cell is recognised.
MARKER = "# Setup: installs the course package where it is missing (Colab, Kaggle)."


def release() -> str:
    """The course package's version: the tag ``v<version>`` the setup cell installs from."""
    try:
        return version("pdc-course")
    except PackageNotFoundError:
        # A checkout used without installing: the version pyproject.toml declares.
        pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
        found = re.search(r'^version = "([^"]+)"', pyproject, re.MULTILINE)
        if found is None:
            raise LookupError(
                "[hosted] expected pdc-course installed or its pyproject.toml"
            ) from None
        return found.group(1)


def requirement(repository: str = REPOSITORY, tag: str | None = None) -> str:
    """The pip requirement that the setup cell installs.

    Args:
        repository: The course repository's address (``https://github.com/OWNER/NAME``).
        tag: The git tag or commit to pin; ``v<version>`` of this package by default.

    Returns:
        ``pdc-course[hosted] @ git+<repository>@<tag>``.

    Raises:
        ValueError: If ``repository`` is not an https address.
    """
    if not repository.startswith("https://"):
        raise ValueError(f"[hosted] expected an https repository address, got {repository!r}")
    return f"pdc-course[hosted] @ git+{repository.rstrip('/')}@{tag or 'v' + release()}"


def setup_cell(repository: str = REPOSITORY, tag: str | None = None) -> str:
    """The source of the setup cell that opens every notebook.

    Args:
        repository: The course repository's address.
        tag: The git tag or commit to pin; ``v<version>`` of this package by default.

    Returns:
        The cell's Python source (IPython's ``%pip`` installs into the kernel's own Python).
    """
    return "\n".join(
        [
            MARKER,
            "# Where pdc is installed (the course folder after `make env`) it does nothing.",
            "import importlib.util",
            "import os",
            "",
            f'COURSE = "{requirement(repository, tag)}"',
            'COURSE = os.environ.get("PDC_COURSE", COURSE)  # another source: a fork, a wheel file',
            'if importlib.util.find_spec("pdc") is None:',
            *(_PLACEHOLDER_GUARD if PLACEHOLDER in repository else ()),
            '    %pip install --quiet "{COURSE}"',
            "    importlib.invalidate_caches()",
        ]
    )


#: What marks the repository address as not yet published.
PLACEHOLDER = "/OWNER/"
# Before publication the cell's address cannot install anything: say what to do instead of
# letting pip fail on a repository that does not exist.
_PLACEHOLDER_GUARD = (
    f'    if "{PLACEHOLDER}" in COURSE:  # this copy names no published repository yet',
    "        raise RuntimeError(",
    '            "[setup] expected the course\'s address, got the placeholder " + COURSE + ": run"',
    '            " %env PDC_COURSE=<a pip requirement: git+https://... of the course, or a wheel"',
    '            " file> in a cell above this one, then this cell again"',
    "        )",
)


def _cell(source: str) -> dict:
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": "setup",
        "metadata": {},
        "outputs": [],
        "source": source.splitlines(keepends=True),
    }


def write(path: Path, source: str) -> bool:
    """Make ``source`` the first code cell of the notebook at ``path``; True if it changed.

    A notebook whose first code cell starts with :data:`MARKER` has it replaced; any other
    notebook gets the cell inserted before its first code cell.
    """
    nb = json.loads(path.read_text())
    cells = nb["cells"]
    first = next(i for i, c in enumerate(cells) if c["cell_type"] == "code")
    if "".join(cells[first]["source"]).startswith(MARKER):
        if "".join(cells[first]["source"]) == source:
            return False
        cells[first]["source"] = source.splitlines(keepends=True)
    else:
        cells.insert(first, _cell(source))
    path.write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the setup cell into notebooks.")
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    source = setup_cell()
    for path in args.notebooks:
        if write(path, source):
            print(f"setup cell written: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

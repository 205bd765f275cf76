"""The grader reads each code cell as IPython would run it, with or without its tokenizer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pdc.grade.notebook import _plain_python, cell_code

ROOT = Path(__file__).resolve().parents[1]

TRICKY = [
    "x = (1\n%2)\n",  # a continuation line that starts with % is Python's modulo
    "s = '''\n%time\n!ls\n'''\n",  # IPython syntax inside a string is text
    "a = 1\n  \nb = 2",  # spaces on a blank line: IPython drops them
    "\tx = 1",  # an indented first line: IPython dedents it
    "x = 1\0",
    "a?",
    "obj.method??\n",
    "!ls -l\n",
    "files = !ls\n",
    "%time x = 1\n",
    "t = %timeit -o sum(range(3))\n",
    ">>> x = 1\n",
    "In [1]: x = 1\n",  # Python: an annotated assignment; IPython: a prompt
    "In [1]: def f():\n   ...:     return 1\n",
    "\n\nx = 1\n",  # blank first lines: IPython drops them
    " \nx = 1\n",
    "await something()\n",
    "",
    "   ",
    "def f():\n    return 1\n\n\n",
]


def _cells() -> list[str]:
    out = []
    for folder in ("solutions", "exercises", "notebooks"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            for cell in json.loads(path.read_text())["cells"]:
                if cell["cell_type"] == "code":
                    src = cell["source"]
                    out.append(src if isinstance(src, str) else "".join(src))
    return out


def _ipython(source: str) -> str:
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - cell_code keeps what IPython cannot transform
        return source


@pytest.mark.parametrize("source", TRICKY)
def test_tricky_cells_read_as_ipython_reads_them(source):
    assert cell_code(source) == _ipython(source)


def test_every_course_cell_reads_as_ipython_reads_it():
    cells = [c for c in _cells() if not c.lstrip().startswith("%%")]
    assert len(cells) > 300
    assert sum(_plain_python(c) for c in cells) > len(cells) // 2  # the quick path is used
    wrong = [c[:60] for c in cells if cell_code(c) != _ipython(c)]
    assert not wrong

"""Which statements of a notebook's cells define the graded kernel, as IPython runs them: a
cell stops at a statement Python cannot compile or one that always raises, an ``if`` with a
constant test runs one branch, ``del`` unbinds; a kernel only in a cell that cannot run, in a
branch the grader cannot decide, or in a file run with ``%run`` is refused with that reason.
And the notebook files themselves: a byte-order mark, and what a file that is no JSON is.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pdc.grade import notebook, source

ROOT = Path(__file__).resolve().parents[1]

HEAD = "import sys\nimport numba\nfrom numba import cuda\n"
RIGHT, WRONG = "out[i] = a[i] * b[i]", "out[i] = a[i] + b[i]"


def _kernel(body=RIGHT, indent="", args="a, b, out"):
    lines = ["@cuda.jit", f"def multiply({args}):", "    i = cuda.grid(1)", "    if i < out.size:"]
    return "".join(indent + line + "\n" for line in [*lines, "        " + body])


def _graded(*cells: str) -> str:
    """The body the grader takes for ``multiply``, or its reason to refuse it."""
    ext = source.extract([HEAD, *cells], ["multiply"], {})
    if "multiply" in ext.problems:
        return ext.problems["multiply"]
    return RIGHT if RIGHT in ext.written["multiply"] else WRONG


@pytest.mark.parametrize(
    "stop",
    ["raise NotImplementedError", "assert False, 'TODO'", "sys.exit()", "exit()"],
)
def test_a_cell_stops_at_a_statement_that_always_raises(stop):
    assert _graded(_kernel() + stop + "\n" + _kernel(WRONG)) == RIGHT
    assert _graded(_kernel(WRONG) + stop + "\n" + _kernel()) == WRONG


def test_a_cell_runs_until_a_statement_python_cannot_compile():
    # IPython compiles a cell's statements one at a time: those before `return` ran.
    assert _graded(_kernel(), _kernel(WRONG) + "return\n") == WRONG
    assert _graded(_kernel(), "return\n" + _kernel(WRONG)) == RIGHT
    duplicate = _kernel(WRONG, args="a, b, out, a")  # SyntaxError only when compiled
    assert _graded(_kernel(), duplicate) == RIGHT
    assert _graded(_kernel(), "import asyncio\nawait asyncio.sleep(0)\n" + _kernel(WRONG)) == WRONG


def test_a_raise_in_a_try_body_skips_its_else_and_runs_finally():
    body = "    raise ValueError\n" + _kernel(WRONG, "    ")
    tail = "except ValueError:\n    pass\nelse:\n" + _kernel(WRONG, "    ")
    assert _graded("try:\n" + _kernel(indent="    ") + body + tail) == RIGHT
    fin = "try:\n    raise ValueError\nexcept ValueError:\n    pass\nfinally:\n"
    assert _graded(_kernel(WRONG), fin + _kernel(indent="    ")) == RIGHT


@pytest.mark.parametrize(
    "before, test",
    [
        ("", "True"),
        ("USE_GPU = True\n", "USE_GPU"),
        ("", "__name__ == '__main__'"),
        ("MODE = 'gpu'\n", "MODE == 'gpu'"),
        ("N = 3\n", "not N < 2 and N != 4"),
        ("", "cuda.is_available()"),  # graded as run on a GPU
        ("OK = numba.cuda.is_available()\n", "OK or False"),
    ],
)
def test_an_if_with_a_constant_test_runs_its_branch(before, test):
    orelse = "else:\n" + _kernel(WRONG, "    ")
    assert _graded(before + f"if {test}:\n" + _kernel(indent="    ") + orelse) == RIGHT
    assert (
        _graded(
            before
            + f"if not ({test}):\n"
            + _kernel(WRONG, "    ")
            + "else:\n"
            + _kernel(indent="    ")
        )
        == RIGHT
    )


@pytest.mark.parametrize(
    "block, header",
    [
        ("import os\nif os.environ.get('GPU'):\n", "if os.environ.get('GPU'):"),
        ("for _ in range(0):\n", "for _ in range(0):"),
        ("N = 4\nfor _ in range(N, 2):\n", "for _ in range(N, 2):"),
        ("for _ in range(1):\n    if _ == 0:\n        break\n", "for _ in range(1):"),
        ("for _ in range(len(sys.argv)):\n", "for _ in range(len(sys.argv)):"),
        ("while True:\n    break\n", "while True:"),
        ("if False:\n", "if False:"),
    ],
)
def test_a_kernel_only_in_a_branch_not_taken_names_the_branch(block, header):
    problem = _graded(block + _kernel(indent="    "))
    assert f"defined only inside `{header}`, which the grader does not run" in problem
    assert "top level of a cell" in problem


@pytest.mark.parametrize("loop", ["for _ in range(1):\n", "N = 3\nfor k in range(1, N):\n"])
def test_a_kernel_in_a_loop_that_surely_runs_is_defined(loop):
    assert _graded(loop + _kernel(indent="    ")) == RIGHT


def test_del_unbinds_the_kernel_until_it_is_defined_again():
    problem = _graded(_kernel(), "del multiply\n")
    assert "deleted by `del multiply`" in problem
    assert _graded(_kernel(WRONG), "del multiply\n", _kernel()) == RIGHT
    tpb = _kernel("out[i] = a[i] * TPB")  # the exercise's constant stays whatever the notebook does
    ext = source.extract([HEAD, "TPB = 64\n", tpb, "del TPB\n"], ["multiply"], {"TPB": 256})
    assert ext.constants["TPB"] == 256 and not ext.problems


def test_a_kernel_only_in_a_cell_with_a_syntax_error_names_the_error():
    cell = notebook.cell_code(_kernel().replace("if i < out.size:", "if i < out.size"))
    problem = _graded(cell)
    assert "Python cannot run (SyntaxError: expected ':' (line 4 of the cell))" in problem
    assert _graded(_kernel(), cell.replace(RIGHT, WRONG)) == RIGHT  # the earlier one stays


@pytest.mark.parametrize("magic", ["%run kernels.py", "%load kernels.py"])
def test_a_kernel_in_a_file_run_or_loaded_by_a_magic_is_named(magic):
    problem = _graded(notebook.cell_code(magic + "\n"))
    assert f"the grader does not read the files of {magic})" in problem


def _notebook(tmp_path, data: bytes):
    path = tmp_path / "01_elementwise.ipynb"
    path.write_bytes(data)
    return path


def test_a_notebook_with_a_byte_order_mark_is_read(tmp_path):
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "source": _kernel(),
                "metadata": {},
                "outputs": [],
                "execution_count": None,
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    path = _notebook(tmp_path, b"\xef\xbb\xbf" + json.dumps(nb).encode())
    assert notebook.notebook_cells(path) == [_kernel()]


@pytest.mark.parametrize(
    "text, says",
    [
        ("print('hello')\n", "starts with '{': was another file saved as .ipynb?"),
        ('{"cells": [{"cell_type": "code", "sour', "does not end with '}': was it cut short?"),
        ('{"cells": [}', "edited by hand"),
    ],
)
def test_a_file_that_is_no_json_says_what_it_looks_like(tmp_path, text, says):
    with pytest.raises(notebook.NotebookError, match="01_elementwise.ipynb: not a valid") as e:
        notebook.read_notebook(_notebook(tmp_path, text.encode()))
    assert says in str(e.value)


def test_reading_a_notebook_skips_the_iri_grammars_and_leaves_them_importable():
    code = (
        "import sys\n"
        "from pdc.grade.notebook import read_notebook\n"
        "read_notebook('solutions/01_elementwise.ipynb')\n"
        "assert 'jsonschema' in sys.modules and 'rfc3987_syntax' not in sys.modules\n"
        "import importlib.util\n"
        "if importlib.util.find_spec('rfc3987_syntax'):\n"
        "    import rfc3987_syntax  # later imports work as always\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)

"""Kernel extraction and the static check (pdc.grade.source)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdc.grade import exercises as exs
from pdc.grade import source

ROOT = Path(__file__).resolve().parents[1]
#: What a notebook imports before its kernels: the grader supplies none of it.
IMPORTS = "import math\nimport numpy as np\nimport numba\nfrom numba import cuda, float32\n"

GOOD = """
@cuda.jit(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@cuda.jit
def k(x, out):
    i = cuda.grid(1)
    s = cuda.shared.array(TPB, float32)
    if i < out.size:
        out[i] = math.sqrt(clamp(x[i], 0.0, 1.0)) + x.shape[0] * SCALE
"""


def test_extracts_kernel_device_functions_and_constants():
    ext = source.extract([IMPORTS, "TPB = 4\nSCALE = 2.5\nimport os", GOOD], ["k"], {"TPB": 8})
    assert ext.problems == {}
    assert set(ext.functions) == {"k", "clamp"}
    assert ext.constants["TPB"] == 8 and ext.constants["SCALE"] == 2.5
    assert ext.functions["k"].startswith("def k(x, out):")


def test_later_definition_wins():
    cells = [IMPORTS, "@cuda.jit\ndef k(x):\n    x[0] = 1", "@cuda.jit\ndef k(x):\n    x[0] = 2"]
    ext = source.extract(cells, ["k"], {})
    assert "x[0] = 2" in ext.functions["k"]


@pytest.mark.parametrize(
    "body, why",
    [
        ("import os", "import"),
        ("x.__class__", "the attribute .__class__"),
        ("__import__('os')", "the name '__import__'"),
        ("open('f', 'w')", "the name 'open'"),
        ("getattr(x, 'shape')", "the name 'getattr'"),
        ("x.foo = 1", "assigning to the attribute .foo"),
        ("y = x[1:3]", "slicing"),
        ("y = [v for v in x]", "listcomp"),
        ("y = lambda: 0", "lambda"),
        ("global G", "global"),
        ("'{0.__class__}'.format(x)", "the attribute .format"),
        ("try:\n        pass\n    except Exception:\n        pass", "try"),
        ("with x:\n        pass", "with"),
        ("exit(0)", "the name 'exit'"),
        ("y = np.sum(x)", "np.sum (only dtypes"),
    ],
)
def test_rejects_what_a_cuda_kernel_cannot_contain(body, why):
    ext = source.extract([IMPORTS, f"@cuda.jit\ndef k(x):\n    {body}\n"], ["k"], {})
    assert why in ext.problems["k"], ext.problems


def test_problem_in_device_function_rejects_kernel():
    src = "def device_fn(x):\n    import os\n\n@cuda.jit\ndef k(x):\n    device_fn(x)\n"
    ext = source.extract([IMPORTS, src], ["k"], {})
    assert "device_fn: line 2: import" in ext.problems["k"]


def test_missing_kernel():
    assert "no function named 'k'" in source.extract(["x = 1"], ["k"], {}).problems["k"]


def test_magics_and_syntax_errors_are_skipped(tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(IMPORTS + "%timeit 1\n!ls\n@cuda.jit\ndef k(x):\n    x[0] = 1"),
        nbformat.v4.new_code_cell("this is not python"),
    ]
    nbformat.write(nb, tmp_path / "n.ipynb")
    cells = source.notebook_cells(tmp_path / "n.ipynb")
    assert source.extract(cells, ["k"], {}).problems == {}


def test_solutions_pass_the_check():
    for key in exs.KERNEL_EXERCISES:
        ex = exs.exercise(key)
        cells = source.notebook_cells(ROOT / "solutions" / f"{key}.ipynb")
        ext = source.extract(cells, [p.name for p in ex.parts], ex.constants)
        assert ext.problems == {}, (key, ext.problems)


def test_sandbox_has_only_allowed_builtins():
    g = source.build({"k": "def k(x):\n    x[0] = len(x)\n"}, {"TPB": 4})
    assert set(g["__builtins__"]) == set(source.ALLOWED_BUILTINS)
    assert g["TPB"] == 4 and callable(g["k"])


def test_in_notebook_check_reports_what_the_grader_rejects(capsys):
    import pdc
    from pdc.grade import check

    pdc.numba_cuda()
    ns = {}
    src = "def multiply(a, b, out):\n    out[0] = np.sum(a)\n"
    path = ROOT / "tests" / "_kernel_np_sum.py"
    # inspect.getsource needs a file; the source lives only in linecache, as in Jupyter.
    import linecache

    linecache.cache[str(path)] = (len(src), None, src.splitlines(True), str(path))
    exec(compile(src, str(path), "exec"), ns)
    check(ns["multiply"])
    out = capsys.readouterr().out
    assert "rejected: line 2: np.sum (only dtypes such as np.float32)" in out


def test_names_imported_from_kernel_modules_are_spelled_as_module_paths():
    cells = [
        "import numba.cuda as nc\nfrom math import sqrt as root, nope\nfrom numba.cuda import grid",
        "from os import system\nimport numpy as cuda",
        "@nc.jit\ndef k(x, out):\n    i = grid(1)\n    root = 2.0\n    out[i] = x[i] * root\n"
        "    out[i] = nc.fma(out[i], 1.0, 0.0)",
        "@nc.jit\ndef j(x, out):\n    out[0] = root(x[0])",
        "@nc.jit\ndef s(x, out):\n    out[0] = system('true')",
        "@cuda.jit\ndef w(x, out):\n    out[0] = x[0]",  # `cuda` is numpy here
    ]
    ext = source.extract(cells, ["k", "j", "s", "w"], {})
    assert "the decorator @cuda.jit" in ext.problems["w"]
    k = ext.functions["k"]
    assert "cuda.grid(1)" in k and "cuda.fma(" in k and ext.device["k"] == "kernel"
    assert "x[i] * root" in k  # a local named like an import stays the local
    assert "math.sqrt(x[0])" in ext.functions["j"]
    assert "nope" not in str(ext.functions)  # math has no `nope`: nothing is bound to it
    assert "s" in ext.problems and "system" in ext.problems["s"]  # other modules stay unknown
    assert "k" not in ext.problems and "j" not in ext.problems

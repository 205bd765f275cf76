"""The grader grades what the notebook runs: IPython syntax converted by IPython itself, cell
magics that run no Python left out, decorators and imports exactly as written."""

from __future__ import annotations

import nbformat
import pytest

from pdc.grade import exercises as exs
from pdc.grade import gate, grader, notebook, source

IMPORTS = "from numba import cuda, float32\n"
MULTIPLY = """
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]
"""
WRONG = MULTIPLY.replace("a[i] * b[i]", "a[i] + b[i]")


def _cells(tmp_path, *sources):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    path = tmp_path / "01_elementwise.ipynb"
    nbformat.write(nb, path)
    return notebook.notebook_cells(path)


def _multiply(cells):
    ext = source.extract(cells, ["multiply"], {"TPB": 256})
    return ext.problems.get("multiply"), ext.written.get("multiply", "")


@pytest.mark.parametrize(
    "line",
    ["cuda.grid?", "x = !nvidia-smi -L", "t = %timeit -o sum(range(3))", "%matplotlib inline"],
)
def test_ipython_syntax_keeps_the_cell(tmp_path, line):
    problem, src = _multiply(_cells(tmp_path, IMPORTS, line + "\n" + MULTIPLY))
    assert problem is None and "a[i] * b[i]" in src


@pytest.mark.parametrize(
    ("magic", "graded"),
    [
        ("%%script false", "a[i] * b[i]"),  # a draft disabled: the earlier kernel runs
        ("%%bash", "a[i] * b[i]"),
        ("%%writefile draft.py", "a[i] * b[i]"),
        ("%%html", "a[i] * b[i]"),
        ("%%time", "a[i] + b[i]"),  # these run their body as Python: the later kernel wins
        ("%%capture out", "a[i] + b[i]"),
        ("%%prun -q", "a[i] + b[i]"),
        ("%%timeit -n1", "a[i] * b[i]"),  # IPython runs it inside a function: a local def
    ],
)
def test_cell_magics(tmp_path, magic, graded):
    problem, src = _multiply(_cells(tmp_path, IMPORTS, MULTIPLY, magic + "\n" + WRONG))
    assert problem is None and graded in src


@pytest.mark.parametrize(
    ("decorated", "why"),
    [
        ("from numba import njit\n\n@njit\n", "compiled for the CPU"),
        ("import numba\n\n@numba.jit(nopython=True)\n", "compiled for the CPU"),
        ("@cuda.jit(device=True)\n", "is a device function"),
        ("", "plain Python function, not a CUDA kernel"),
    ],
)
def test_a_graded_name_that_is_no_kernel_scores_zero(decorated, why):
    src = MULTIPLY.replace("@cuda.jit\n", decorated)
    ex, part = exs.find_part("multiply")
    res = grader.run_part(ex, part, [IMPORTS, src], seed=0, gpu=False, compiled={})
    public = next(v for v in res.verdicts if v.criterion == "public")
    assert res.score == 0 and why in public.output and "multiply" in public.output


def test_functional_jit_of_a_device_function_is_no_kernel():
    cells = [IMPORTS, MULTIPLY.replace("@cuda.jit\n", "").replace("multiply(", "mul(", 1)]
    cells.append("multiply = cuda.jit(device=True)(mul)\n")
    assert "is a device function" in _multiply(cells)[0]
    cells[-1] = "multiply = cuda.jit(mul)\n"
    assert _multiply(cells)[0] is None


@pytest.mark.parametrize(
    ("body", "name"),
    [
        ("out[i] = math.sqrt(a[i])", "math"),
        ("s = cuda.shared.array(4, float64)", "float64"),
        ("s = cuda.shared.array(4, np.float32)", "np"),
    ],
)
def test_nothing_is_supplied(body, name):
    src = MULTIPLY.replace("out[i] = a[i] * b[i]", body)
    problem, _ = _multiply([IMPORTS, src])
    assert problem is None  # numba judges the name, as in the notebook
    ex, part = exs.find_part("multiply")
    res = grader.run_part(ex, part, [IMPORTS, src], seed=0, gpu=False, compiled={})
    public = next(v for v in res.verdicts if v.criterion == "public")
    assert res.score == 0 and f"name '{name}' is not defined" in public.output, public.output
    assert f"(at: {body})" in public.output  # the kernel's line, not the module's prelude


def test_imported_names_are_known():
    src = MULTIPLY.replace("out[i] = a[i] * b[i]", "out[i] = sqrt(a[i]) * np.float32(b[i])")
    assert _multiply(["from math import sqrt\nimport numpy as np\n" + IMPORTS, src])[0] is None


def test_gate_module_is_the_notebook_as_written():
    cells = [
        "import numpy as np\nimport os\nfrom numba import cuda as nc, float32\n",
        "open('/tmp/pwned', 'w').write('x')\nN = 4\n",
        MULTIPLY.replace("@cuda.jit", '@nc.jit("void(float32[:], float32[:], float32[:])")')
        .replace("cuda.grid", "nc.grid")
        .replace("a[i] * b[i]", "a[i] * b[i] * N"),
    ]
    ext = source.extract(cells, ["multiply"], {})
    assert ext.problems == {}
    text = gate.module_text(ext, "multiply")
    assert "import numba.cuda as nc" in text and "import os" not in text
    assert '@nc.jit("void(float32[:], float32[:], float32[:])")\ndef multiply' in text
    assert "import math" not in text and "open(" not in text  # nothing supplied, nothing run
    assert "nc.grid(1)" in text  # nothing respelled


def _gate_available() -> bool:
    from pdc.ptx.build import CompilerMissing, find_ptxas

    try:
        find_ptxas()
    except CompilerMissing:
        return False
    return True


@pytest.mark.skipif(not _gate_available(), reason="NVIDIA's compiler wheels are not installed")
def test_gate_compiles_what_numba_compiles_and_refuses_what_it_refuses():
    ex, part = exs.find_part("multiply")
    variants = {
        "plain": [IMPORTS, MULTIPLY],
        "shared_import": [
            IMPORTS + "from numba.cuda import shared\n",
            MULTIPLY.replace(
                "i = cuda.grid(1)", "i = cuda.grid(1)\n    s = shared.array(4, float32)"
            ),
        ],
        "eager_f64": [
            IMPORTS,
            MULTIPLY.replace("@cuda.jit", '@cuda.jit("void(float64[:], float64[:], float64[:])")'),
        ],
        "eager_f32": [
            IMPORTS,
            MULTIPLY.replace("@cuda.jit", '@cuda.jit("void(float32[:], float32[:], float32[:])")'),
        ],  # A list of signatures is checked at launch; one signature is not (numba-cuda reads
        # the arrays' bytes as its types): both fail, each with what a GPU does.
        "eager_list_f64": [
            IMPORTS,
            MULTIPLY.replace(
                "@cuda.jit",
                '@cuda.jit(["void(float64[:], float64[:], float64[:])", '
                '"void(int32[:], int32[:], int32[:])"])',
            ),
        ],
    }
    jobs = []
    args = list(exs.public_cases(part)[0].args.values())
    for key, cells in variants.items():
        ext = source.extract(cells, ["multiply"], ex.constants)
        assert ext.problems == {}, (key, ext.problems)
        jobs.append((key, gate.module_text(ext, "multiply"), "multiply", args))
    done = gate.check_compiles(jobs)
    assert done["plain"] is None and done["eager_f32"] is None
    assert "Untyped global name 'shared'" in done["shared_import"]
    assert "jitted with one signature" in done["eager_f64"]
    assert "without checking its arguments" in done["eager_f64"]
    assert "No matching definition for argument type(s) array(float32" in done["eager_list_f64"]


def test_each_cell_is_parsed_once(monkeypatch, tmp_path):
    from collections import Counter

    from pdc import pyast

    seen: Counter = Counter()
    real = pyast.parse

    def counting(src, *args, **kwargs):
        seen[src] += 1
        return real(src, *args, **kwargs)

    monkeypatch.setattr(pyast, "parse", counting)
    cells = [IMPORTS, MULTIPLY + f"\n# {tmp_path}\n", "x = 1\n", "not python"]
    ex = exs.exercise("01_elementwise")
    for part in ex.parts:  # both kernels, each extracted for the run and for the gate
        source.extract(cells, [part.name], ex.constants)
        source.extract(cells, [part.name], ex.constants)
    assert seen and max(seen[c] for c in cells) == 1


def test_dtypes_from_numba_types_and_module_aliases():
    cells = [
        "import numba as nb\nfrom numba.types import float32\nfrom numba.core.errors import X\n",
        MULTIPLY.replace("@cuda.jit", "@nb.cuda.jit")
        .replace("cuda.grid", "nb.cuda.grid")
        .replace("a[i] * b[i]", "float32(a[i]) * b[i]"),
    ]
    ext = source.extract(cells, ["multiply"], {})
    assert ext.problems == {}
    assert "float32(a[i]) * b[i]" in ext.written["multiply"]  # as written, not respelled
    text = gate.module_text(ext, "multiply")
    assert "from numba.types import float32" in text and "import numba as nb" in text
    assert "errors" not in text  # an import the kernel does not use is left out
    assert "@nb.cuda.jit\ndef multiply" in text

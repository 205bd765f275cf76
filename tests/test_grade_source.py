"""Kernel extraction (pdc.grade.source); numba-cuda judges what a kernel may contain."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pdc
import pdc.sim as sim
from pdc.grade import exercises as exs
from pdc.grade import gate, source

cuda = pdc.numba_cuda()  # kernels are typed by numba-cuda (in pdc.sim's worker without a GPU)

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
    assert set(ext.written) == {"k", "clamp"}
    assert ext.constants["TPB"] == 8 and ext.constants["SCALE"] == 2.5
    assert ext.written["k"].startswith("@cuda.jit\ndef k(x, out):")  # as written
    assert ext.device == {"k": "kernel", "clamp": "device"}
    assert "import os" not in gate.module_text(ext, "k")  # only what kernels may use


def test_later_definition_wins():
    cells = [IMPORTS, "@cuda.jit\ndef k(x):\n    x[0] = 1", "@cuda.jit\ndef k(x):\n    x[0] = 2"]
    ext = source.extract(cells, ["k"], {})
    assert "x[0] = 2" in ext.written["k"]


def test_the_module_defines_callees_before_their_callers():
    # cuda.jit(signature) compiles as it is defined, so a device function must come first,
    # as it did in the notebook, whatever order the kernel names its callees in.
    cells = [
        IMPORTS,
        "@cuda.jit(device=True)\ndef twice(v):\n    return 2 * v",
        "g = twice",
        "@cuda.jit(device=True)\ndef both(v):\n    return g(v) + twice(v)",
        "@cuda.jit('void(float64[:])')\ndef k(x):\n    x[0] = both(x[0]) + twice(1.0)",
    ]
    ext = source.extract(cells, ["k"], {})
    assert ext.problems == {}
    assert ext.order == ["twice", "g", "both", "k"]
    text = gate.module_text(ext, "k")
    assert text.index("def twice") < text.index("g = twice") < text.index("def both")
    assert text.index("def both") < text.index("def k")


def test_a_kernel_jitted_with_a_signature_compiles_where_it_is_defined():
    # numba-cuda compiles it at the decorator: a callee bound below it does not exist yet
    helper = "@cuda.jit(device=True)\ndef twice(v):\n    return 2 * v"
    eager = "@cuda.jit('void(float64[:])')\ndef k(x):\n    x[0] = twice(x[0]) + T"
    ext = source.extract([IMPORTS, "T = 1.0", eager, helper], ["k"], {})
    assert "before twice (bound below it) exists" in ext.problems["k"]
    assert "NameError" in ext.problems["k"]
    ext = source.extract([IMPORTS, eager.replace("+ T", ""), "T = 1.0", helper], ["k"], {})
    assert "before twice" in ext.problems["k"]  # the callee is named first
    ext = source.extract([IMPORTS, helper, eager, "T = 3.0"], ["k"], {})
    assert "before T (bound below it)" in ext.problems["k"]  # a constant as well
    # the constants as they stood at the definition, not a later value
    ext = source.extract([IMPORTS, "T = 1.0", helper, eager, "T = 3.0"], ["k"], {})
    assert ext.problems == {} and ext.constants["T"] == 1.0
    # without a signature it compiles at its first launch: later definitions and values count
    lazy = eager.replace("@cuda.jit('void(float64[:])')", "@cuda.jit")
    ext = source.extract([IMPORTS, "T = 1.0", lazy, helper, "T = 3.0"], ["k"], {})
    assert ext.problems == {} and ext.constants["T"] == 3.0
    # a parameter or local that shares a later global's name is no late binding
    own = "@cuda.jit('void(float64[:])')\ndef k(out):\n    v = 2.0\n    out[0] = v"
    assert source.extract([IMPORTS, own, "out = 1.0", "v = 2"], ["k"], {}).problems == {}


def _run(cells: list[str], kernel: str = "k"):
    """Extract ``kernel``, define it from the compile gate's module and run it on pdc.sim."""
    ext = source.extract(cells, [kernel], {})
    assert ext.problems == {}  # the grader refuses nothing numba would judge
    ns: dict = {"__name__": "submission"}
    exec(compile(gate.module_text(ext, kernel), "<submission>", "exec"), ns)  # noqa: S102
    return sim.launch(ns[kernel], 1, 1, (np.zeros(4),))


@pytest.mark.parametrize(
    "body, why",
    [
        ("import os", "unsupported opcode (IMPORT_NAME)"),
        ("x.__class__", "Unknown attribute '__class__'"),
        ("__import__('os')", "Untyped global name '__import__'"),
        ("open('f', 'w')", "Untyped global name 'open'"),
        ("getattr(x, 'shape')", "getattr(array(float64, 1d, C), Literal[str](shape))"),
        ("x.foo = 1", "Cannot resolve setattr: (array(float64, 1d, C)).foo"),
        ("y = [v for v in x]", "Unknown attribute 'append' of type list"),
        ("'{0.__class__}'.format(x)", "Unknown attribute 'format'"),
        ("exit(0)", "Untyped global name 'exit'"),
    ],
)
def test_numba_refuses_what_a_cuda_kernel_cannot_contain(body, why):
    rep = _run([IMPORTS, f"@cuda.jit\ndef k(x):\n    {body}\n"])
    (text,) = rep.findings["error"]["examples"]
    assert "numba-cuda cannot compile the kernel" in text and why in text, text


@pytest.mark.parametrize(
    "body",
    [
        "y = lambda: 0",  # never called: nothing to compile
        "global G",  # never read
        "try:\n        pass\n    except Exception:\n        pass",
    ],
)
def test_what_numba_compiles_runs(body):
    rep = _run([IMPORTS, f"@cuda.jit\ndef k(x):\n    {body}\n    x[0] = 1.0\n"])
    assert rep.findings == {}


def test_problem_in_device_function_fails_the_kernel():
    src = (
        "@cuda.jit(device=True)\ndef device_fn(x):\n    import os\n\n\n"
        "@cuda.jit\ndef k(x):\n    device_fn(x)\n"
    )
    rep = _run([IMPORTS, src])
    assert "unsupported opcode (IMPORT_NAME)" in rep.findings["error"]["examples"][0]


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
    for key in exs.ALL_KEYS:
        ex = exs.exercise(key)
        if any(p.runner is not None for p in ex.parts):
            continue  # graded by its own runner, not extracted as kernels
        cells = source.notebook_cells(ROOT / "solutions" / f"{key}.ipynb")
        ext = source.extract(cells, [p.name for p in ex.parts], ex.constants)
        assert ext.problems == {}, (key, ext.problems)


def test_in_notebook_check_reports_what_the_grader_rejects(capsys):
    import pdc
    from pdc.grade import check

    pdc.numba_cuda()
    ns = {}
    src = "def multiply(a, b, out):\n    out[0] = a.__class__\n"
    path = ROOT / "tests" / "_kernel_np_sum.py"
    # inspect.getsource needs a file; the source lives only in linecache, as in Jupyter.
    import linecache

    linecache.cache[str(path)] = (len(src), None, src.splitlines(True), str(path))
    exec(compile(src, str(path), "exec"), ns)  # noqa: S102 - the test's own kernel
    check(ns["multiply"])
    out = capsys.readouterr().out
    assert "Unknown attribute '__class__'" in out, out


def test_names_imported_from_kernel_modules_reach_the_module_as_imported():
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
    assert ext.device["k"] == "kernel" and "k" not in ext.problems and "j" not in ext.problems
    assert "s" in ext.problems and "system" in ext.problems["s"]  # other modules stay unknown
    assert ext.imports["grid"] == "numba.cuda.grid" and ext.imports["root"] == "math.sqrt"
    text = gate.module_text(ext, "k")
    # The kernels as written, with the imports they use, as the notebook spelled them.
    assert "from numba.cuda import grid\n" in text and "import numba.cuda as nc\n" in text
    assert "from math import sqrt as root\n" in text and "nope" not in text
    assert "    out[i] = x[i] * root\n" in ext.written["k"]


SHADOWED = """
@cuda.jit(device=True)
def scaled(v):
    return v * SCALE + out  # a device function reads the constant out


@cuda.jit(SIG)
def k(x, out, n=N):
    i = cuda.grid(1)
    out = out  # a parameter: never the notebook's demo array
    tmp = [TMP for TMP in range(2)]  # a comprehension's own name: kept, to be safe
    if i < n:
        out[i] = scaled(x[i]) + len(tmp)
"""


def test_the_module_holds_only_the_constants_its_code_reads_from_the_module():
    demo = "SCALE = 2.0\nN = 8\nTMP = 1\nout = np.zeros(1000, np.float32)\nx = np.ones(3)\n"
    sig = 'SIG = "void(float32[::1], float32[::1], int64)"\n'
    ext = source.extract([IMPORTS, demo + sig, SHADOWED], ["k"], {})
    assert ext.problems == {} and {"x", "out", "SCALE"} <= set(ext.constants)
    text = gate.module_text(ext, "k")
    assigned = {ln.split(" = ")[0] for ln in text.splitlines() if " = " in ln and ln[0] != " "}
    # scaled reads out from the module; k's out is its parameter; x is only ever a parameter.
    assert {"SCALE", "N", "SIG", "out", "TMP"} <= assigned and "x" not in assigned
    plain = "@cuda.jit\ndef k(x, out):\n    i = cuda.grid(1)\n    out[i] = x[i] * SCALE\n"
    alone = source.extract([IMPORTS, demo, plain], ["k"], {})
    assert alone.problems == {}
    lines = gate.module_text(alone, "k").splitlines()
    assert "SCALE = 2.0" in lines and not [ln for ln in lines if ln.startswith(("out =", "x ="))]


def test_an_undefined_name_is_quoted_where_the_code_reads_it_not_in_a_string():
    from pdc.ptx.build import shorten_error

    text = "x = _pdc_np.array([0.0], dtype='float32')  # float32\n\ndef k(a):\n    a.float32\n"
    text += "    t = cuda.local.array(2, float32)\n"
    message = "Failed in cuda mode pipeline\nNameError: name 'float32' is not defined\nDuring: x"
    got = shorten_error("TypingError", message, text)
    assert (
        got
        == "TypingError: NameError: name 'float32' is not defined (at: t = cuda.local.array(2, float32))"
    )

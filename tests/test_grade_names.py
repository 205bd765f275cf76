"""How the grader reads the names a notebook binds, as a run of its cells binds them: second
names for numba.cuda and for types, constants read from imported names or written as text,
augmented assignments, star imports, signatures named once, ``cache=True``, kernels defined
inside ``with`` and ``try`` blocks, and what it says when the graded name is no function.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pdc.grade import gate, source

HEAD = "import math\nimport numpy as np\nimport numba\nfrom numba import cuda, float32\n"
ARGS = [np.ones(4, np.float32)] * 3


def _kernel(decorator="@cuda.jit", body="out[i] = a[i] * b[i]", indent=""):
    lines = [decorator, "def multiply(a, b, out):", "    i = cuda.grid(1)", "    if i < out.size:"]
    lines.append("        " + body)
    return "".join(indent + line + "\n" for line in lines)


def _module(cells: list[str], define: bool = True) -> tuple[source.Extracted, dict]:
    """Extract ``multiply`` and define the module the compile gate and the simulator define
    (``define``: here; a module with an eager signature or ``cache=True`` is defined only by
    the compiling process, which has the real numba-cuda: see :func:`_compiles`)."""
    ext = source.extract(cells, ["multiply"], {})
    assert "multiply" not in ext.problems, ext.problems
    namespace: dict = {}
    if define:
        exec(gate.module_text(ext, "multiply"), namespace)
    return ext, namespace


def _compiles(ext: source.Extracted) -> None:
    text = gate.module_text(ext, "multiply")
    assert gate.check_compiles([("k", text, "multiply", ARGS)]) == {"k": None}


@pytest.mark.parametrize(
    "definition, decorator, body, path",
    [
        ("gpu = numba.cuda", "@gpu.jit", "out[i] = a[i] * b[i]", "numba.cuda"),
        ("nc = cuda", "@nc.jit", "out[i] = a[i] * b[i]", "numba.cuda"),
        ("F = np.float32", "@cuda.jit", "out[i] = F(a[i]) * b[i]", "numpy.float32"),
        ("f32 = numba.float32", "@cuda.jit", "out[i] = f32(a[i] * b[i])", "numba.float32"),
    ],
)
def test_a_second_name_for_a_module_or_a_type_is_imported_under_it(
    definition, decorator, body, path
):
    ext, _ = _module([HEAD, definition + "\n", _kernel(decorator, body)])
    assert ext.imports[definition.split(" = ")[0]] == path
    _compiles(ext)


@pytest.mark.parametrize(
    "definition, want",
    [
        ("from math import inf\nLOW = -inf", -math.inf),
        ("from math import pi as PI\nLOW = PI / 2", math.pi / 2),
        ("LOW = np.float32('-inf')", np.float32(-np.inf)),
        ("LOW = np.int32('7') * 2", np.int32(14)),
        ("LOW = float(' 1e-3 ')", 1e-3),
    ],
)
def test_constants_from_imported_names_and_numbers_written_as_text(definition, want):
    ext, namespace = _module(
        [HEAD, definition + "\n", _kernel(body="out[i] = max(a[i] * b[i], LOW)")]
    )
    assert ext.constants["LOW"] == want and type(ext.constants["LOW"]) is type(want)
    assert namespace["LOW"] == want


@pytest.mark.parametrize("definition", ["LOW = np.float32('low')", "LOW = max('a', 'b')"])
def test_text_that_is_no_number_stays_refused(definition):
    ext = source.extract(
        [HEAD, definition + "\n", _kernel(body="out[i] = a[i] * LOW")], ["multiply"], {}
    )
    assert "the global LOW" in ext.problems["multiply"]


@pytest.mark.parametrize(
    "cells, want",
    [
        (["K = 4\nK *= 3\nK -= 2"], 10),
        (["K = 1\n", "K <<= 5\nK //= 4"], 8),
        (["K = 2.0\nK **= 0.5"], math.sqrt(2.0)),
    ],
)
def test_an_augmented_assignment_changes_the_constant(cells, want):
    ext, _ = _module([HEAD, *cells, _kernel(body="out[i] = a[i] * b[i] * K")])
    assert ext.constants["K"] == want


def test_an_augmented_assignment_of_what_a_run_computes_is_refused():
    cells = [HEAD, "K = 4\nK += len('ab')\n", _kernel(body="out[i] = a[i] * K")]
    ext = source.extract(cells, ["multiply"], {})
    assert "the global K (K += len('ab'))" in ext.problems["multiply"]


def test_the_exercise_constant_wins_over_an_augmented_assignment():
    cells = [HEAD, "TPB = 256\nTPB *= 2\n", _kernel(body="out[i] = a[i] * TPB")]
    assert source.extract(cells, ["multiply"], {"TPB": 128}).constants["TPB"] == 128


@pytest.mark.parametrize(
    "star, body",
    [
        ("from math import *", "out[i] = max(a[i] * b[i], -inf) + fabs(0.0)"),
        ("from numba import *", "out[i] = uint8(1) * a[i] * b[i]"),
        ("from numba.cuda import *", "out[i] = a[i] * b[i] * (grid(1) == i)"),
    ],
)
def test_a_star_import_from_a_module_kernels_use_binds_its_names(star, body):
    ext, _ = _module([HEAD, star + "\n", _kernel(body=body)], define=False)
    _compiles(ext)


def test_a_star_import_keeps_the_real_module_for_a_module_it_re_exports():
    ext = source.extract([HEAD, "from numba.cuda import *\n", _kernel()], ["multiply"], {})
    assert ext.imports["np"] == "numpy" and "os" not in ext.imports


def test_a_star_import_from_another_module_binds_nothing_known():
    cells = [HEAD, "from os.path import *\n", _kernel(body="out[i] = a[i] * sep")]
    ext = source.extract(cells, ["multiply"], {})
    assert "sep" not in ext.imports and "multiply" not in ext.problems  # numba says it


@pytest.mark.parametrize(
    "definition, decorator",
    [
        ('SIG = "void(float32[:], float32[:], float32[:])"', "@cuda.jit(SIG)"),
        ('SIGS = ["void(float32[::1], float32[::1], float32[::1])"]', "@numba.cuda.jit(SIGS)"),
    ],
)
def test_a_signature_named_once_as_text_is_a_decorator_argument(definition, decorator):
    ext, _ = _module([HEAD, definition + "\n", _kernel(decorator)], define=False)
    name = definition.split(" = ")[0]
    assert f"{name} = {ext.constants[name]!r}" in gate.module_text(ext, "multiply")
    _compiles(ext)


def test_a_signature_computed_by_a_run_stays_refused():
    cells = [
        HEAD,
        "SIG = 'void(' + ', '.join(['float32[:]'] * 3) + ')'\n",
        _kernel("@cuda.jit(SIG)"),
    ]
    assert (
        "the decorator argument SIG" in source.extract(cells, ["multiply"], {}).problems["multiply"]
    )


def test_cache_true_is_accepted_and_compiles():
    """numba-cuda would ask for a cache file beside a module defined from text and fail ("no
    locator available"); the compiling process defines the kernel without one."""
    ext, _ = _module([HEAD, _kernel("@cuda.jit(cache=True)")], define=False)
    _compiles(ext)


@pytest.mark.parametrize(
    "block",
    [
        "import warnings\nwith warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n",
        "try:\n",
    ],
)
def test_a_kernel_defined_in_a_with_or_try_block_is_graded(block):
    cell = block + _kernel(indent="    ")
    if block.startswith("try"):
        cell += "except Exception as e:\n    print(e)\n"
    ext, namespace = _module([HEAD, cell])
    assert ext.written["multiply"].startswith("@cuda.jit\ndef multiply")
    _compiles(ext)


@pytest.mark.parametrize(
    "cell",
    [
        "if False:\n" + _kernel(indent="    "),
        "try:\n    pass\nexcept Exception:\n" + _kernel(indent="    "),
    ],
)
def test_a_kernel_defined_only_sometimes_is_not_followed(cell):
    problem = source.extract([HEAD, cell], ["multiply"], {}).problems["multiply"]
    assert problem.startswith("no function named 'multiply' in the notebook: multiply is ")
    assert "which the grader does not run: define it at the top level of a cell" in problem


@pytest.mark.parametrize(
    "cell, says",
    [
        ("multiply = np.multiply", "multiply is bound by `multiply = np.multiply`"),
        ("from kernels import multiply", "multiply is imported from kernels.multiply"),
        ("multiply = 3", "multiply is bound to the number 3"),
    ],
)
def test_a_graded_name_bound_to_no_function_says_what_it_is(cell, says):
    problem = source.extract([HEAD, _kernel(), cell + "\n"], ["multiply"], {}).problems["multiply"]
    assert problem.startswith(says) and "with def, decorated @cuda.jit" in problem


@pytest.mark.parametrize(
    "text",
    [
        "void(float32[:], float32[:], float32[:])",
        "void(f4[:, ::1], int32[::1], float32[:])",
        "(float32[:], float32[:], float32[:])",
    ],
)
def test_a_signature_of_types_written_as_text_is_accepted(text):
    cells = [HEAD, _kernel(f"@cuda.jit({text!r})")]
    assert "multiply" not in source.extract(cells, ["multiply"], {}).problems


@pytest.mark.parametrize(
    "text",
    [
        "void(float32[:]) if __import__('os').getpid() else None",
        "exec('import os') or void(float32[:])",
        "void(float32[:]).__class__",
        "void(float32[::10 ** 9])",
        "[open('x') for k in (1,)] and void(float32[:])",
    ],
)
@pytest.mark.parametrize("named", [False, True])
def test_a_signature_text_numba_would_run_as_python_is_refused(text, named):
    """numba evaluates a signature text with eval, builtins included: only types may be in it."""
    cells = [
        HEAD,
        f"SIG = {text!r}\n" if named else "",
        _kernel(f"@cuda.jit({'SIG' if named else repr(text)})"),
    ]
    problem = source.extract(cells, ["multiply"], {}).problems["multiply"]
    assert "a signature names numba types only" in problem


@pytest.mark.parametrize(
    "definition, want",
    [("SHAPE = (K,) * 2", (4, 4)), ("SHAPE = 2 * (K, 1) + (3,)", (4, 1, 4, 1, 3))],
)
def test_a_tuple_built_by_arithmetic_is_a_constant(definition, want):
    body = "out[i] = a[i] * b[i] * SHAPE[0]"
    ext, namespace = _module([HEAD, "K = 4\n" + definition + "\n", _kernel(body=body)])
    assert ext.constants["SHAPE"] == want == namespace["SHAPE"]

"""Globals a kernel reads that the grader supplies without running the notebook, as numba
sees them: NumPy arrays of literal numbers (frozen into the kernel), the limits of a NumPy
type, and second names for functions of numba.cuda and math.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pdc.grade import gate, source

HEAD = "import math\nimport numpy as np\nimport numba\nfrom numba import cuda, float32, int32\n"
KERNEL = (
    "@cuda.jit\ndef multiply(a, b, out):\n"
    "    c = cuda.const.array_like(W)\n"
    "    i = cuda.grid(1)\n"
    "    if i < out.size:\n"
    "        out[i] = a[i] * b[i] * c[i % W.shape[0]]\n"
)


@pytest.mark.parametrize(
    "definition, want",
    [
        ("W = np.array([16, 8, 4, 2, 1], dtype=np.int32)", np.int32([16, 8, 4, 2, 1])),
        ("W = np.array([16, 8, 4, 2, 1], np.int32)", np.int32([16, 8, 4, 2, 1])),  # positional
        ("W = np.asarray((0.5, -1.0, math.pi / 4), dtype='float32')", None),
        ("K = 3\nW = np.array([[1, K], [K * 2, 1 << 4]])", np.array([[1, 3], [6, 16]])),
        ("W = np.array([1.0, 2.0], dtype=numba.float32)", np.float32([1.0, 2.0])),
        # tables built by NumPy's constructors, from numbers the grader computes
        ("W = np.ones(4)", np.ones(4)),
        (
            "H = 3\nW = np.repeat(np.arange(H), H).astype(np.int32)",
            np.int32([0, 0, 0, 1, 1, 1, 2, 2, 2]),
        ),
        ("H = 3\nW = np.tile(np.arange(H), H).astype(np.int32)", np.int32([0, 1, 2] * 3)),
        (
            "R = 1\nW = np.full((2 * R + 1, 2 * R + 1), 1 / 9, dtype=np.float32)",
            np.full((3, 3), 1 / 9, np.float32),
        ),
        (
            "W = np.exp(-np.arange(4, dtype=np.float32) / 2)",
            np.exp(-np.arange(4, dtype=np.float32) / 2),
        ),
        (
            "W = np.arange(6).reshape(2, 3).astype('float32') * 2 + 1",
            np.float32([[1, 3, 5], [7, 9, 11]]),
        ),
        ("W = np.minimum(np.arange(6), 3).cumsum()", np.cumsum(np.minimum(np.arange(6), 3))),
        ("W = np.ones((4, 4), np.float32).ravel()", np.ones(16, np.float32)),
        (
            "W = np.outer(np.arange(3), np.arange(1, 3)) - np.eye(3, 2, dtype=np.int64)",
            np.outer(np.arange(3), np.arange(1, 3)) - np.eye(3, 2, dtype=np.int64),
        ),
    ],
)
def test_a_literal_array_is_a_constant_the_kernel_module_defines(definition, want):
    ext = source.extract([HEAD, definition + "\n", KERNEL], ["multiply"], {})
    assert "multiply" not in ext.problems, ext.problems
    w = ext.constants["W"]
    if want is None:
        want = np.float32([0.5, -1.0, np.pi / 4])
    assert w.dtype == want.dtype and (w == want).all()
    namespace: dict = {}
    text = gate.module_text(ext, "multiply")
    exec(text, namespace)  # what the compile gate and the simulator's worker run
    again = namespace["W"]
    assert again.dtype == want.dtype and (again == want).all()
    if w.ndim == 1:  # a 2-D table is a row per index here: numba refuses the kernel itself
        ok = gate.check_compiles([("k", text, "multiply", [np.ones(4, np.float32)] * 3)])
        assert ok == {"k": None}


@pytest.mark.parametrize(
    "definition",
    [
        "W = np.ones(10**9)",  # more than constant memory holds: never allocated
        "W = np.zeros((3, 10**5))",
        "W = np.repeat(np.arange(3), 10**9)",
        "W = np.tile(np.arange(3), (10**5, 10**5))",
        "W = np.arange(5).reshape((5, 1)) * np.arange(10**6)",  # a broadcast too large
        "W = np.empty(4)",  # undefined values
        "W = np.random.rand(4)",
        "W = np.full(4, np.inf)",
        "W = np.arange(3) / 0",
        "W = np.arange(4).tolist()",
        "W = np.arange(4, like=1)",
        "W = np.array([k for k in range(4)])",
        "W = np.array([[1, 2], [3]])",  # ragged
        "W = np.array([1.0, math.inf])",
        "W = np.array([300], dtype=np.uint8)",  # does not fit
        "W = np.array(list(range(4)))",
        "W = np.array([1, 2], np.int32, dtype=np.int64)",  # a TypeError in NumPy
        "W = np.array([1, 2], np.int32, True)",
    ],
)
def test_arrays_only_a_run_computes_stay_refused_with_a_reason(definition):
    ext = source.extract([HEAD, definition + "\n", KERNEL], ["multiply"], {})
    assert "the global W" in ext.problems["multiply"], ext.problems


@pytest.mark.parametrize(
    "definition, want",
    [
        ("W = np.finfo(np.float32).min", np.finfo(np.float32).min),
        ("W = np.finfo('float32').eps", np.finfo(np.float32).eps),
        ("W = np.iinfo(numba.int32).max", np.iinfo(np.int32).max),
        ("W = -np.finfo(np.float64).max / 2", -np.finfo(np.float64).max / 2),
    ],
)
def test_the_limits_of_a_numpy_type_are_constants(definition, want):
    kernel = "@cuda.jit\ndef multiply(a, b, out):\n    out[0] = W\n"
    ext = source.extract([HEAD, definition + "\n", kernel], ["multiply"], {})
    assert "multiply" not in ext.problems, ext.problems
    w = ext.constants["W"]
    assert w == want and np.asarray(w).dtype == np.asarray(want).dtype
    namespace: dict = {}
    exec(gate.module_text(ext, "multiply"), namespace)
    assert namespace["W"] == want and type(namespace["W"]) is type(w)


@pytest.mark.parametrize(
    "definition",
    ["W = np.finfo(np.int32).max", "W = np.iinfo(np.float32).max", "W = np.finfo(x).max"],
)
def test_limits_of_what_is_no_type_stay_refused(definition):
    kernel = "@cuda.jit\ndef multiply(a, b, out):\n    out[0] = W\n"
    ext = source.extract([HEAD, definition + "\n", kernel], ["multiply"], {})
    assert "the global W" in ext.problems["multiply"], ext.problems


@pytest.mark.parametrize(
    "definition, path",
    [
        ("sync = cuda.syncthreads", "numba.cuda.syncthreads"),
        ("down = cuda.shfl_down_sync", "numba.cuda.shfl_down_sync"),
        ("exp = math.exp", "math.exp"),
    ],
)
def test_a_second_name_for_a_cuda_or_math_function_is_imported_under_it(definition, path):
    name = definition.split()[0]
    kernel = (
        "@cuda.jit\ndef multiply(a, b, out):\n    i = cuda.grid(1)\n"
        f"    f = {name}\n"
        "    if i < out.size:\n        out[i] = a[i] * b[i]\n"
    )
    ext = source.extract([HEAD, definition + "\n", kernel], ["multiply"], {})
    assert "multiply" not in ext.problems, ext.problems
    assert ext.imports[name] == path
    text = gate.module_text(ext, "multiply")
    mod, _, attr = path.rpartition(".")
    want = f"from {mod} import {attr}" + ("" if attr == name else f" as {name}")
    assert want + "\n" in text


def test_an_aliased_barrier_orders_a_tree_as_syncthreads_does():
    kernel = """
sync = cuda.syncthreads


@cuda.jit
def multiply(a, b, out):
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    s[t] = a[t] * b[t]
    sync()
    out[t] = s[63 - t]
"""
    ext = source.extract([HEAD, kernel], ["multiply"], {})
    assert "multiply" not in ext.problems, ext.problems
    a, b = np.arange(64, dtype=np.float32), np.full(64, 2.0, np.float32)
    text = gate.module_text(ext, "multiply")
    assert gate.check_compiles([("k", text, "multiply", [a, b, np.zeros(64, np.float32)])]) == {
        "k": None
    }


def test_a_math_constant_stays_a_constant():
    ext = source.extract([HEAD, "PI = math.pi\nHALF = PI / 2\n"], [], {})
    assert ext.constants["HALF"] == math.pi / 2

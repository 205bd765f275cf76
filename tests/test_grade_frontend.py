"""What numba-cuda compiles, the grader runs: correct kernels written with Python that the
old syntax check refused (assert, raise, lambda, nested def, divmod, NumPy and libdevice
functions on scalars, constants computed by a call, an @njit helper) earn full marks, and
GPU numerics decide the values (float32 stays float32)."""

from __future__ import annotations

import pytest

from pdc.grade import exercises as exs
from pdc.grade.grader import run_parts

HEAD = """import math
import numpy as np
import numba
from numba import cuda, float32, njit
"""
MULTIPLY = {
    "assert and raise": """
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    assert a.size == b.size
    if a.size != out.size:
        raise ValueError("sizes differ")
    if i < out.size:
        out[i] = a[i] * b[i]
""",
    "lambda and nested def": """
@cuda.jit
def multiply(a, b, out):
    mul = lambda x, y: x * y
    def inside(j):
        return j < out.size
    i = cuda.grid(1)
    if inside(i):
        out[i] = mul(a[i], b[i])
""",
    "divmod and a constant computed by a call": """
TPB = 256
LOG = int(math.log2(TPB))

@cuda.jit
def multiply(a, b, out):
    q, r = divmod(cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x, 1 << LOG)
    i = q * TPB + r
    if i < out.size:
        out[i] = a[i] * b[i]
""",
    "an @njit helper": """
@njit
def product(x, y):
    return x * y

@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = product(a[i], b[i])
""",
    "libdevice and NumPy on scalars": """
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        x = np.maximum(a[i], np.minimum(a[i], a[i]))
        out[i] = cuda.libdevice.fmaf(x, b[i], float32(0.0))
""",
    "constants computed with NumPy's functions and builtins": """
TPB = 256
LOG = int(np.log2(TPB))
HALF = round(TPB / 2)
SHAPE = (TPB, 1)
RANK = len(SHAPE)
BLOCKS = int(np.ceil(1000 / np.float32(TPB)))
OFFSETS = (16, 8, 4, 2, 1)
CHECK = math.prod(SHAPE) + sum(OFFSETS) + max(OFFSETS) + int(np.prod(SHAPE))

@cuda.jit
def multiply(a, b, out):
    i = cuda.blockIdx.x * (1 << LOG) + cuda.threadIdx.x
    if i < out.size and RANK == 2 and HALF == 128 and BLOCKS == 4 and CHECK == 559:
        out[i] = a[i] * b[i]
""",
    "a float constant from float('-inf') and math.pi": """
LOW = float("-inf")
TAU = 2 * math.pi

@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        v = a[i] * b[i]
        out[i] = max(v, LOW) + (TAU - TAU)
""",
}


def test_kernels_numba_compiles_earn_full_marks():
    ex = exs.exercise("01_elementwise")
    part = next(p for p in ex.parts if p.name == "multiply")
    tasks = [(ex, part, [HEAD, src]) for src in MULTIPLY.values()]
    results = run_parts(tasks, seed=3, timeout=60, gpu=False)
    for style, r in zip(MULTIPLY, results):
        assert r.score == r.max_score, (style, [v.output for v in r.verdicts if not v.passed])


@pytest.mark.parametrize(
    "src, why",
    [
        (
            "W = np.random.rand(4)\n@cuda.jit\ndef multiply(a, b, out):\n    out[0] = W[0]\n",
            "the global W",
        ),
        ("import os\n@cuda.jit\ndef multiply(a, b, out):\n    os.getpid()\n", "from os"),
        # A loop or an `if` on a run's value may rebind a constant: only a run knows it.
        (
            "S = 0\nfor _ in range(3):\n    S += 1\n@cuda.jit\ndef multiply(a, b, out):\n"
            "    out[0] = S\n",
            "the global S (rebound inside `for _ in range(3):`)",
        ),
        (
            "S = 0\nif np.random.rand() > 2:\n    S = 1\n@cuda.jit\ndef multiply(a, b, out):\n"
            "    out[0] = S\n",
            "the global S (rebound inside `if np.random.rand() > 2:`)",
        ),
        # Computing it would stop the grader: math.factorial's cost grows with its argument.
        (
            "F = math.factorial(10**9)\n@cuda.jit\ndef multiply(a, b, out):\n    out[0] = F\n",
            "the global F",
        ),
        # Read before the cell that defines it: a run from the top stops with a NameError.
        (
            "WORDS = TILE * PAD\nPAD = 33\n@cuda.jit\ndef multiply(a, b, out):\n"
            "    out[0] = WORDS\n",
            "the global WORDS (WORDS = TILE * PAD) reads TILE before the notebook defines it",
        ),
        ("@cuda.jit\ndef multiply(a, b, out, k=len('ab')):\n    pass\n", "default argument"),
        ("@cuda.jit(link='x.cu')\ndef multiply(a, b, out):\n    pass\n", "option link="),
        ("@cuda.jit(cuda.to_device(1))\ndef multiply(a, b, out):\n    pass\n", "decorator"),
    ],
)
def test_what_only_a_run_of_the_notebook_could_give_is_named(src, why):
    from pdc.grade import source

    ext = source.extract([HEAD, src], ["multiply"], {})
    assert why in ext.problems["multiply"], ext.problems

"""Exercise 01: elementwise kernels, ``out = a * b`` and ``out = alpha * x + y``."""

from __future__ import annotations

import numpy as np

from pdc.grade.sizes import edges_1d, grid1, hidden_1d, rand, small
from pdc.grade.spec import Case, Exercise, Part

TPB_1D = 256
#: Memory operations one thread may make: its element's loads and store (3) and room for a
#: clamped or repeated read; a thread that stages a block's inputs for the others makes
#: hundreds.
ELEMENT_WORK = 8
WORK_WHAT = "expected for one element (its loads and its store)"


def _make_multiply(rng, sizes):
    (n,) = sizes
    args = {"a": rand(rng, n), "b": rand(rng, n), "out": np.zeros(n, np.float32)}
    return Case(f"n={n}", args, ("out",), grid1(n, TPB_1D), (TPB_1D,), dims={"n": n})


def _make_saxpy(rng, sizes):
    (n,) = sizes
    args = {
        "alpha": np.float32(rng.uniform(-2, 2)),
        "x": rand(rng, n),
        "y": rand(rng, n),
        "out": np.zeros(n, np.float32),
    }
    return Case(f"n={n}", args, ("out",), grid1(n, TPB_1D), (TPB_1D,), dims={"n": n})


def multiply_spec(a, b):
    """Reference: elementwise product."""
    return a * b


def saxpy_spec(alpha, x, y):
    """Reference: alpha * x + y in float32."""
    return (np.float32(alpha) * x + y).astype(np.float32)


ELEMENTWISE = Exercise(
    "01_elementwise",
    "Elementwise kernels",
    [
        Part(
            "multiply",
            "out = a * b",
            ("a", "b", "out"),
            public=[(1000,), (256,), (1,)],
            hidden=hidden_1d(TPB_1D, 2600, [(1000,), (256,), (1,)]),
            domain=f"any n >= 1; TPB = {TPB_1D}",
            boundaries={**edges_1d(TPB_1D, what="TPB"), **small()},
            make=_make_multiply,
            reference=lambda a: {"out": multiply_spec(a["a"], a["b"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "parallel": 1},
            max_stores=1,
            model_ops=5,  # the model answer's busiest thread (pdc.grade.profile)
            model_span=5,
            max_work=lambda case: ELEMENT_WORK,
            work_what=WORK_WHAT,
        ),
        Part(
            "saxpy",
            "out = alpha * x + y",
            ("alpha", "x", "y", "out"),
            public=[(1000,), (512,), (7,)],
            hidden=hidden_1d(TPB_1D, 2600, [(1000,), (512,), (7,)]),
            domain=f"any n >= 1; TPB = {TPB_1D}",
            boundaries={**edges_1d(TPB_1D, what="TPB"), **small()},
            make=_make_saxpy,
            reference=lambda a: {"out": saxpy_spec(a["alpha"], a["x"], a["y"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "parallel": 1},
            max_stores=1,
            model_ops=6,  # the model answer's busiest thread (pdc.grade.profile)
            model_span=6,
            max_work=lambda case: ELEMENT_WORK,
            work_what=WORK_WHAT,
        ),
    ],
    {"TPB": TPB_1D},
)

EXERCISE = ELEMENTWISE

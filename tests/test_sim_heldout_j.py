"""pdc.sim's numerics where a submission's style meets numba-cuda's own lowering."""

import math

import numpy as np
from numba import cuda

import pdc.sim as sim


def kinds(rep) -> dict:
    return {k: v["count"] for k, v in rep.findings.items()}


def k_round_to(x, digits, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = round(x[i], digits[i])


def round_to(x: float, digits: int) -> float:
    """numba-cuda's ``round(x, ndigits)`` (cudaimpl.round_to_impl), transcribed: CPython's
    fallback algorithm, in float64 whatever the float type of ``x``."""
    if math.isinf(x) or math.isnan(x):
        return x
    if digits >= 0:
        pow1, pow2 = (10.0 ** (digits - 22), 1e22) if digits > 22 else (10.0**digits, 1.0)
        y = (x * pow1) * pow2
        if math.isinf(y):
            return x
    else:
        pow1, pow2 = 10.0 ** (-digits), 1.0
        y = x / pow1
    z = float(np.rint(y))
    if math.fabs(y - z) == 0.5:
        z = 2.0 * float(np.rint(y / 2.0))
    return (z / pow2) / pow1 if digits >= 0 else z * pow1


def test_round_to_digits_runs_as_numba_cuda_compiles_it():
    """A kernel calling ``round(v, 2)`` compiles with numba-cuda; the simulator ran none
    (refused as unsupported). Halves go to even, negative digits round to tens, NaN and
    infinities stay, and float32 inputs round in float64 (2.675 as float32 is 2.67499995)."""
    x64 = np.array([2.675, 0.125, 0.375, -2.5, 1234.5678, np.nan, np.inf, 1e300, 15.0, 25.0])
    digits = np.array([2, 2, 2, 0, -2, 1, 1, 30, -1, -1], np.int64)
    for dtype in (np.float64, np.float32):
        x = np.where(x64 > 1e38, 1.0, x64).astype(dtype) if dtype == np.float32 else x64
        out = np.zeros(x.size, dtype)
        assert kinds(sim.launch(k_round_to, 1, 32, [x, digits, out])) == {}
        want = np.array([round_to(float(v), int(d)) for v, d in zip(x, digits)]).astype(dtype)
        np.testing.assert_array_equal(out, want)
    assert out[0] == np.float32(2.67) and out[1] == np.float32(0.12)

"""Chapter 1 practice: SAXPY in NumPy, and the bytes it moves."""

from __future__ import annotations

import numpy as np

from . import Wrong, exercise, expect_close


def saxpy_numpy(a, x, y):
    return a * x + y


@exercise("ch01.saxpy", answer=saxpy_numpy)
def _check_saxpy(fn):
    rng = np.random.default_rng(1)
    x = rng.random(1000, dtype=np.float32)
    y = rng.random(1000, dtype=np.float32)
    x0, y0 = x.copy(), y.copy()
    got = fn(np.float32(2.5), x, y)
    if got is None and not np.array_equal(y, y0):
        raise Wrong("saxpy_numpy changed y in place but returned None: return the result")
    expect_close(got, 2.5 * x0 + y0, what="saxpy_numpy(2.5, x, y)")
    if not (np.array_equal(x, x0) and np.array_equal(y, y0)):
        raise Wrong("the result is right, but x or y was modified: return a new array")
    if np.asarray(got).dtype != np.float32:
        raise Wrong(
            f"the values are right but the dtype is {np.asarray(got).dtype}: float32 inputs "
            "should give float32 (a Python float scalar keeps float32; np.float64 does not)"
        )
    return "2.5 * x + y on 1,000 float32 elements, inputs untouched, dtype float32"


def saxpy_gbs(n, seconds):
    return 3 * 4 * n / seconds / 1e9


@exercise("ch01.bandwidth", answer=saxpy_gbs)
def _check_bandwidth(fn):
    n, seconds = 1_000_000, 1e-3
    got = fn(n, seconds)
    if got is None:
        raise Wrong("saxpy_gbs returned None: is it still the stub?")
    want = saxpy_gbs(n, seconds)
    if np.isclose(got, want, rtol=1e-6):
        return f"1e6 elements in 1 ms = {want:.0f} GB/s"
    hints = {
        2 * 4 * n / seconds / 1e9: "you counted 8 bytes per element: y is read AND written",
        3 * n / seconds / 1e9: "you counted elements, not bytes: a float32 is 4 bytes",
        3 * 4 * n / seconds: "that is bytes per second; the exercise asks for GB/s (1e9 bytes)",
        3 * 4 * n / seconds / 2**30: "that is GiB/s (2**30); bandwidths are quoted in GB (1e9)",
    }
    for value, hint in hints.items():
        if np.isclose(got, value, rtol=1e-6):
            raise Wrong(f"saxpy_gbs(1e6, 1e-3) = {got:.4g}: {hint}")
    raise Wrong(f"saxpy_gbs(1e6, 1e-3) = {got!r}, expected {want:.0f} GB/s")

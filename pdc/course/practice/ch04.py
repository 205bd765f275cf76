"""Chapter 4 practice: a guarded 1-D kernel, a 2-D kernel, and NumPy code that runs on CuPy."""

from __future__ import annotations

import numpy as np

from . import Wrong, _cuda, exercise, expect_close

cuda = _cuda.cuda()


@cuda.jit
def relu_kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:  # the last block overhangs the data
        out[i] = max(x[i], np.float32(0.0))  # a bare 0.0 is a float64: max would be too


@exercise("ch04.relu", answer=relu_kernel)
def _check_relu(kernel):
    x = np.linspace(-2, 2, 300, dtype=np.float32)  # 300 is not a multiple of the block
    out = np.full_like(x, np.nan)
    # The simulator reports an out-of-range index that a GPU would let pass silently.
    _, got = _cuda.simulate(kernel, 3, 128, x, out, what="relu_kernel[3, 128]")
    if np.isnan(got).all():
        raise Wrong("out is untouched: the kernel wrote nothing (still the stub?)")
    if np.isnan(got).any():
        first = int(np.argmax(np.isnan(got)))
        raise Wrong(f"out[{first}:] was never written: does every thread write its element?")
    expect_close(got, np.maximum(x, 0), what="out after relu_kernel")
    return "300 elements with 384 threads: guarded, and every element written"


@cuda.jit
def scale_rows(a, factors, out):
    col, row = cuda.grid(2)  # x is the column: neighbouring threads, neighbouring addresses
    if row < a.shape[0] and col < a.shape[1]:
        out[row, col] = a[row, col] * factors[row]


@exercise("ch04.scale_rows", answer=scale_rows)
def _check_scale_rows(kernel):
    rows, cols = 20, 45  # not square, and not multiples of the 8 x 8 block
    a = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    factors = np.arange(1, rows + 1, dtype=np.float32)
    out = np.full_like(a, np.nan)
    grid = ((cols + 7) // 8, (rows + 7) // 8)
    _, _, got = _cuda.simulate(kernel, grid, (8, 8), a, factors, out, what="scale_rows")
    if np.isnan(got).all():
        raise Wrong("out is untouched: the kernel wrote nothing (still the stub?)")
    missing = np.isnan(got)
    if missing.any():
        r, c = (int(v) for v in np.argwhere(missing)[0])
        raise Wrong(
            f"out[{r}, {c}] was never written with grid {grid} (x over the {cols} columns, "
            "y over the rows): did you swap row and column from cuda.grid(2)?"
        )
    expect_close(got, a * factors[:, None], what="out after scale_rows")
    return f"{rows} x {cols} matrix, grid {grid} of 8 x 8 blocks, x along each row"


def softmax_rows(xp, x):
    """Row-wise softmax of a 2-D array with the array module ``xp`` (numpy or cupy)."""
    m = x.max(axis=1, keepdims=True)  # subtract each row's maximum: exp never overflows
    e = xp.exp(x - m)  # xp.exp, not np.exp: on CuPy arrays the work stays on the GPU
    return e / e.sum(axis=1, keepdims=True)


class _Recording:
    """An array module that forwards to NumPy and records which of its functions were called."""

    def __init__(self, module):
        self._module = module
        self.called: list[str] = []

    def __getattr__(self, name):
        value = getattr(self._module, name)
        if not callable(value):
            return value

        def call(*args, **kwargs):
            self.called.append(name)
            return value(*args, **kwargs)

        return call


def _modules():
    """NumPy always; CuPy too where a GPU and CuPy are present."""
    import pdc

    yield "numpy", np, np.asarray, np.asarray
    if pdc.has_gpu():
        try:
            import cupy as cp
        except ImportError:
            return
        yield "cupy", cp, cp.asarray, cp.asnumpy


@exercise("ch04.softmax_xp", answer=softmax_rows)
def _check_softmax_xp(fn):
    x = np.array([[1.0, 2.0, 3.0], [1000.0, 1001.0, 1002.0], [-5.0, 0.0, 5.0]], np.float32)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    want = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    for label, module, to_device, to_host in _modules():
        xp = _Recording(module)
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below
            got = fn(xp, to_device(x))
        if got is None:
            raise Wrong("softmax_rows returned None: is it still the stub?")
        if label == "numpy" and "exp" not in xp.called:
            raise Wrong(
                "the exponential did not go through xp: with xp = cupy, np.exp would copy the "
                "array to the host (or fail); call xp.exp"
            )
        host = np.asarray(to_host(got))
        if not np.isfinite(host).all():
            raise Wrong(
                f"{label}: row [1000, 1001, 1002] gives {host[1].tolist()}: exp(1000) overflows "
                "float32; subtract each row's maximum first (softmax does not change)"
            )
        expect_close(host, want, what=f"softmax_rows({label}, x)", rtol=1e-5, atol=1e-6)
    return "rows sum to 1, large values do not overflow, and exp goes through xp"

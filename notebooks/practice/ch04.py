"""Chapter 4 practice: a guarded 1-D kernel and a 2-D kernel with x along the rows."""

from __future__ import annotations

import numpy as np

from . import Wrong, _cuda, exercise, expect_close

cuda = _cuda.cuda()


@cuda.jit
def relu_kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:  # the last block overhangs the data
        out[i] = max(x[i], 0.0)


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

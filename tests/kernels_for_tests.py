"""Kernels used by the tests, in their own module: numba's simulator swaps this module's
``cuda`` name while a kernel runs."""

import pdc

cuda = pdc.numba_cuda()


def add(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]


def scale2d(a, out, s):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j] * s

"""Work budgets of exercises 03 and 04's one-thread-per-output parts: a thread that computes a
whole tile for the others, which then store one element each, stores one output per thread
as a correct kernel does; only its memory operations tell it apart.

Plain functions, as in tests/sim_cases.py: pdc.sim types them with numba-cuda.
"""

import numpy as np
import pytest

import pdc
import pdc.sim as sim
from pdc.grade import exercises as exs

cuda = pdc.numba_cuda()
float32 = np.float32
TILE = 16


def matmul_one_per_thread(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        acc = float32(0.0)
        for k in range(A.shape[1]):
            acc += A[row, k] * B[k, col]
        C[row, col] = acc


def matmul_thread_zero_tile(A, B, C):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    r0, c0 = cuda.blockIdx.y * TILE, cuda.blockIdx.x * TILE
    if tx == 0 and ty == 0:
        for a in range(TILE):
            for b in range(TILE):
                if r0 + a < C.shape[0] and c0 + b < C.shape[1]:
                    acc = float32(0.0)
                    for k in range(A.shape[1]):
                        acc += A[r0 + a, k] * B[k, c0 + b]
                    tile[a, b] = acc
    cuda.syncthreads()
    if r0 + ty < C.shape[0] and c0 + tx < C.shape[1]:
        C[r0 + ty, c0 + tx] = tile[ty, tx]


def blur_one_per_thread(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    if row < h and col < wd:
        r = w.shape[0] // 2
        acc = float32(0.0)
        for dy in range(w.shape[0]):
            for dx in range(w.shape[1]):
                y, x = min(max(row + dy - r, 0), h - 1), min(max(col + dx - r, 0), wd - 1)
                acc += w[dy, dx] * img[y, x]
        out[row, col] = acc


def blur_thread_zero_tile(img, w, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    r0, c0 = cuda.blockIdx.y * TILE, cuda.blockIdx.x * TILE
    h, wd = img.shape
    r = w.shape[0] // 2
    if tx == 0 and ty == 0:
        for a in range(TILE):
            for b in range(TILE):
                if r0 + a < h and c0 + b < wd:
                    acc = float32(0.0)
                    for dy in range(w.shape[0]):
                        for dx in range(w.shape[1]):
                            y = min(max(r0 + a + dy - r, 0), h - 1)
                            x = min(max(c0 + b + dx - r, 0), wd - 1)
                            acc += w[dy, dx] * img[y, x]
                    tile[a, b] = acc
    cuda.syncthreads()
    if r0 + ty < h and c0 + tx < wd:
        out[r0 + ty, c0 + tx] = tile[ty, tx]


@pytest.mark.parametrize(
    "part_name, honest, tile_by_one",
    [
        ("matmul_naive", matmul_one_per_thread, matmul_thread_zero_tile),
        ("blur2d", blur_one_per_thread, blur_thread_zero_tile),
    ],
)
def test_a_thread_computing_the_tile_for_the_others_is_over_the_budget(
    part_name, honest, tile_by_one
):
    _, part = exs.find_part(part_name)
    case = exs.public_cases(part)[0]
    out = case.outputs[0]
    works = []
    for kernel in (honest, tile_by_one):
        args = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in case.args.items()}
        rep = sim.launch(kernel, case.grid, case.block, tuple(args.values()))
        assert rep.findings == {}
        np.testing.assert_allclose(args[out], part.reference(case.args)[out], rtol=1e-4, atol=1e-5)
        works.append(int(rep.work().max()))
    assert works[0] <= part.max_work(case) < works[1], works

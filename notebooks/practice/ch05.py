"""Chapter 5 practice: reversing blocks through shared memory, a histogram with atomics."""

from __future__ import annotations

import numpy as np

from . import Wrong, _cuda, exercise, expect_close

cuda = _cuda.cuda()
float32 = np.float32
BLOCK = 64  # threads per block; a shared array's shape must be a compile-time constant


@cuda.jit
def reverse_blocks(x, out):
    tile = cuda.shared.array(BLOCK, float32)  # one slot per thread of this block
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = x[i]
    cuda.syncthreads()  # the whole tile is written before anyone reads another thread's slot
    out[i] = tile[BLOCK - 1 - t]


@exercise("ch05.reverse_blocks", answer=reverse_blocks)
def _check_reverse_blocks(kernel):
    blocks = 4
    x = np.arange(blocks * BLOCK, dtype=np.float32)
    out = np.full_like(x, np.nan)
    # The simulator reports a read of a slot that no barrier orders after its write.
    _, got = _cuda.simulate(kernel, blocks, BLOCK, x, out, what=f"reverse_blocks[{blocks}, 64]")
    want = x.reshape(blocks, BLOCK)[:, ::-1].ravel()
    if np.isnan(got).all():
        raise Wrong("out is untouched: the kernel wrote nothing (still the stub?)")
    if np.array_equal(got, x):
        raise Wrong("out equals x: each thread copied its own element; read tile[BLOCK - 1 - t]")
    if np.array_equal(got, x[::-1]):
        raise Wrong("out reverses the whole array: reverse each block's 64 elements in place")
    expect_close(got, want, what="out after reverse_blocks")
    return "4 blocks of 64, each reversed through shared memory, with a barrier"


@cuda.jit
def histogram(values, counts):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)  # threads in the whole grid
    for i in range(start, values.size, stride):  # grid-stride loop: any grid covers any n
        cuda.atomic.add(counts, values[i], 1)  # many threads may hit the same bin


@exercise("ch05.histogram", answer=histogram)
def _check_histogram(kernel):
    values = np.random.default_rng(5).integers(0, 16, 1000).astype(np.int32)
    counts = np.zeros(16, np.int32)
    # 64 threads for 1000 values: only a grid-stride loop reaches them all.
    # A plain `counts[v] += 1` from two threads is a race the simulator reports.
    _, got = _cuda.simulate(kernel, 2, 32, values, counts, what="histogram[2, 32]")
    want = np.bincount(values, minlength=16).astype(np.int32)
    total = int(got.sum())
    if total == 0:
        raise Wrong("counts is all zero: the kernel counted nothing (still the stub?)")
    if total == 64:
        raise Wrong(
            "64 values counted of 1000: each of the 64 threads handled one value; loop "
            "from cuda.grid(1) to values.size in steps of cuda.gridsize(1)"
        )
    if total < values.size:
        raise Wrong(f"{total} values counted of 1000: some were skipped, check the loop bounds")
    expect_close(got, want, what="counts after histogram")
    return "1000 values in 16 bins with 64 threads: grid-stride loop and atomic adds"

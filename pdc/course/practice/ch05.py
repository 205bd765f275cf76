"""Chapter 5 practice: shared memory, atomics, warp shuffles, fixing a kernel from its findings."""

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
def sign_counts(x, counts):
    negative = 0  # this thread's own counts, in registers
    zero = 0
    positive = 0
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):  # grid-stride: any grid, any n
        if x[i] < 0:
            negative += 1
        elif x[i] > 0:
            positive += 1
        else:
            zero += 1
    # Every thread adds into the same three counters: atomics, three per thread.
    cuda.atomic.add(counts, 0, negative)
    cuda.atomic.add(counts, 1, zero)
    cuda.atomic.add(counts, 2, positive)


@exercise("ch05.sign_counts", answer=sign_counts)
def _check_sign_counts(kernel):
    # Small integers as float32: about one value in five is 0.
    x = np.round(np.random.default_rng(5).standard_normal(1000) * 2).astype(np.float32)
    counts = np.zeros(3, np.int32)
    threads = 64  # for 1000 values: only a grid-stride loop reaches them all
    # A plain `counts[k] += 1` from two threads is a race the simulator reports.
    report, (_, got) = _cuda.simulate_report(kernel, 2, 32, x, counts, what="sign_counts[2, 32]")
    want = np.array([(x < 0).sum(), (x == 0).sum(), (x > 0).sum()], np.int32)
    total = int(got.sum())
    if total == 0:
        raise Wrong("counts is all zero: the kernel counted nothing (still the stub?)")
    if total == threads:
        raise Wrong(
            "64 values counted of 1000: each of the 64 threads handled one value; loop "
            "from cuda.grid(1) to x.size in steps of cuda.gridsize(1)"
        )
    if total < x.size:
        raise Wrong(f"{total} values counted of 1000: some were skipped, check the loop bounds")
    if got[1] == 0 and got[0] + got[2] == x.size:
        raise Wrong(
            f"counts[1] = 0, expected {want[1]}: x holds zeros, which are neither negative "
            "nor positive"
        )
    expect_close(got, want, what="counts after sign_counts")
    atomics = report.global_atomics()
    if atomics > 3 * threads:
        raise Wrong(
            f"right counts, but {atomics} atomics for 64 threads: count in three registers "
            "inside the loop and add each to counts once per thread (at most 192 atomics)"
        )
    return f"1000 values, 64 threads, a grid-stride loop and {atomics} atomics"


FULL_MASK = 0xFFFFFFFF  # all 32 lanes of a warp


@cuda.jit
def warp_max(x, out):
    v = x[cuda.grid(1)]
    offset = 16
    while offset > 0:  # every lane takes part in every shuffle: no branch around it
        v = max(v, cuda.shfl_down_sync(FULL_MASK, v, offset))
        offset //= 2
    if cuda.threadIdx.x % 32 == 0:  # lane 0 holds the warp's maximum
        out[cuda.grid(1) // 32] = v


@exercise("ch05.warp_max", answer=warp_max)
def _check_warp_max(kernel):
    rng = np.random.default_rng(11)
    x = rng.permutation(128).astype(np.float32) - 60  # 4 warps; maxima at varying lanes
    out = np.full(4, np.nan, np.float32)
    # The simulator resolves the shuffles and reports a lane that the mask names but that
    # never reaches the call (a shuffle inside a branch).
    _, got = _cuda.simulate(kernel, 2, 64, x, out, what="warp_max[2, 64]")
    want = x.reshape(4, 32).max(axis=1)
    if np.isnan(got).all():
        raise Wrong("out is untouched: the kernel wrote nothing (still the stub?)")
    if np.array_equal(got, x.reshape(4, 32)[:, 0]):
        raise Wrong("out holds each warp's lane 0 value: the shuffles never changed v")
    expect_close(got, want, what="out after warp_max")
    return "4 warps, each maximum found by 5 shuffles down, written once by lane 0"


@cuda.jit
def shift_left(x, out):
    tile = cuda.shared.array(65, float32)  # the block's elements and one more on the right
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    # every slot is written, with 0 past the end: no out-of-range read, no uninitialised slot
    tile[t] = x[i] if i < x.size else float32(0.0)
    if t == 63:
        tile[64] = x[i + 1] if i + 1 < x.size else float32(0.0)
    cuda.syncthreads()  # outside any branch: every thread writes before any reads a neighbour
    if i < x.size:
        out[i] = tile[t + 1]


@exercise("ch05.shift_left", answer=shift_left)
def _check_shift_left(kernel):
    x = np.arange(1, 201, dtype=np.float32)  # 200 elements: the last block overhangs
    out = np.full_like(x, np.nan)
    _, got = _cuda.simulate(kernel, 4, 64, x, out, what="shift_left[4, 64]")
    want = np.append(x[1:], np.float32(0.0))
    if np.isnan(got).all():
        raise Wrong("out is untouched: the kernel wrote nothing")
    if got[-1] != 0 and np.array_equal(got[:-1], want[:-1]):
        raise Wrong(f"out[199] = {got[-1]!r}, expected 0: past the end of x the value is 0")
    expect_close(got, want, what="out after shift_left")
    return "200 elements in 4 blocks of 64: guarded, a barrier every thread reaches, 0 at the end"


_BLOCKING = ("s1", "s2")  # streams created with cuda.stream(): blocking, the default kind
_STREAMS = ("default", *_BLOCKING, "nonblocking")


def may_overlap(first, second):
    """Whether pending work on stream ``second`` may run while the work on ``first`` runs."""
    if first == second:
        return False  # one stream is an in-order queue
    if "default" in (first, second):
        other = second if first == "default" else first
        # The legacy default stream waits for earlier work of every blocking stream, and later
        # work of a blocking stream waits for it; a non-blocking stream is exempt.
        return other == "nonblocking"
    return True  # two different non-default streams are independent


@exercise("ch05.may_overlap", answer=may_overlap)
def _check_may_overlap(fn):
    for first in _STREAMS:
        for second in _STREAMS:
            want = may_overlap(first, second)
            got = fn(first, second)
            if got is None:
                raise Wrong("may_overlap returned None: is it still the stub?")
            if bool(got) == want:
                continue
            if first == second:
                hint = "work on one stream runs in the order it was queued, never at once"
            elif "default" in (first, second) and "nonblocking" in (first, second):
                hint = "a stream created non-blocking does not synchronise with the default stream"
            elif "default" in (first, second):
                hint = (
                    "the legacy default stream waits for earlier work on every blocking stream, "
                    "and later work on a blocking stream waits for it"
                )
            else:
                hint = "two different streams, neither the default one, are independent queues"
            raise Wrong(f"may_overlap({first!r}, {second!r}) = {got!r}, expected {want}: {hint}")
    return "16 pairs: one queue in order, the legacy default stream joins the blocking streams"

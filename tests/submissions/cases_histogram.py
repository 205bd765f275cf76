"""Submissions for exercise 07_histogram (built by build.py): the mistakes students make with
atomics and a privatised shared histogram, an attempt to dodge the atomics criterion without
privatising, and correct kernels in unusual styles that must earn full marks.

``histogram_global`` runs one thread per value (ceil(n / TPB) blocks of TPB = 128 threads);
``histogram_shared`` runs BLOCKS = 4 blocks of TPB threads whatever n is. BINS = 64: codes of
64 and more are failed readings and are not counted.
"""

from __future__ import annotations

# The model's privatised kernel up to its flush: zero, barrier, count, barrier.
_COUNT = """
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
"""

CASES = {
    # -- mistakes -----------------------------------------------------------------------------
    "histogram_plain_increment": dict(
        exercise="07_histogram",
        part="histogram_global",
        # The lanes of a warp read, add and write together, so increments are lost (as on a
        # GPU), and the race records say why.
        fail=["public", "sync"],
        passes=[],
        reason="data race",
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        if v < BINS:
            hist[v] += 1  # read, add, write: two threads on one bin lose an increment
""",
    ),
    "histogram_failed_readings_counted": dict(
        exercise="07_histogram",
        part="histogram_global",
        fail=["public", "hidden", "bounds"],
        passes=[],
        reason="outside shape",
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(hist, values[i], 1)  # a code of 64 or more has no bin
""",
    ),
    "histogram_shared_not_zeroed": dict(
        exercise="07_histogram",
        part="histogram_shared",
        fail=["public", "hidden"],
        passes=[],
        reason="read of uninitialised memory",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)  # shared memory is garbage until written
    t = cuda.threadIdx.x
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        if s[b] > 0:
            cuda.atomic.add(hist, b, s[b])
""",
    ),
    "histogram_shared_no_barrier_before_flush": dict(
        exercise="07_histogram",
        part="histogram_shared",
        fail=["public", "sync"],
        passes=[],
        reason="differs at",  # a bin is read while other warps still add to it: too low
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    # missing cuda.syncthreads(): a bin is flushed while other threads still count into it
    for b in range(t, BINS, TPB):
        count = s[b]
        if count > 0:
            cuda.atomic.add(hist, b, count)
""",
    ),
    "histogram_shared_atomic_per_value": dict(
        exercise="07_histogram",
        part="histogram_shared",
        fail=["atomics"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="global atomics, at most",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    # a grid-stride loop, but every reading still goes straight to the global histogram
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(hist, v, 1)
""",
    ),
    "histogram_shared_every_thread_flushes_every_bin": dict(
        exercise="07_histogram",
        part="histogram_shared",
        fail=["public", "hidden", "atomics"],
        passes=[],
        reason="differs at",
        kernel=_COUNT
        + """    for b in range(BINS):  # every thread adds the whole block histogram: TPB times over
        cuda.atomic.add(hist, b, s[b])
""",
    ),
    "histogram_shared_plain_store_flush": dict(
        exercise="07_histogram",
        part="histogram_shared",
        fail=["public", "sync"],
        passes=[],
        reason="by several threads in one instruction",
        kernel=_COUNT
        + """    for b in range(t, BINS, TPB):
        hist[b] = s[b]  # each block overwrites the others' counts
""",
    ),
    # -- an attempt to earn the atomics points without privatising ------------------------------
    "histogram_shared_one_thread_per_bin": dict(
        exercise="07_histogram",
        part="histogram_shared",
        # No atomics at all: thread b of block 0 reads the whole stream and counts bin b.
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync", "atomics"],
        reason="memory accesses",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    b = cuda.threadIdx.x
    if cuda.blockIdx.x == 0 and b < BINS:
        count = 0
        for i in range(values.size):
            if values[i] == b:
                count += 1
        hist[b] = count
""",
    ),
    # -- correct kernels in unusual styles ------------------------------------------------------
    "histogram_global_grid_stride": dict(
        exercise="07_histogram",
        part="histogram_global",
        full=True,
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    start = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    for i in range(start, values.shape[0], cuda.gridDim.x * cuda.blockDim.x):
        code = int32(values[i])
        if code >= hist.size:
            continue  # a failed reading
        cuda.atomic.add(hist, code, int32(1))
""",
    ),
    "histogram_shared_per_warp": dict(
        exercise="07_histogram",
        part="histogram_shared",
        full=True,
        kernel="""
WARPS = TPB // 32


@cuda.jit
def histogram_shared(values, hist):
    # one sub-histogram per warp: a warp's atomics contend only among its own 32 lanes
    sub = cuda.shared.array((WARPS, BINS), int32)
    t = cuda.threadIdx.x
    w = t // 32
    for k in range(t, WARPS * BINS, TPB):
        sub[k // BINS, k % BINS] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(sub, (w, v), 1)
        i += cuda.gridsize(1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        total = 0
        for k in range(WARPS):
            total += sub[k, b]
        if total != 0:
            cuda.atomic.add(hist, b, total)
""",
    ),
    # Each of the first BINS threads walks the whole stream for its bin: one store each, and
    # as many operations in every such thread (balanced), but thousands of memory accesses.
    "histogram_global_thread_per_bin_walks_stream": dict(
        exercise="07_histogram",
        part="histogram_global",
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="memory accesses, at most 8 expected",
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    b = cuda.grid(1)
    if b < BINS:
        count = 0
        for j in range(values.size):
            if values[j] == b:
                count += 1
        hist[b] = count
""",
    ),
}

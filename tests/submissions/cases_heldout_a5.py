"""Blind submissions for exercises 01, 02, 05, 07 and 08, aimed at GPU numerics (uint8/uint32 typing, float32 intrinsics, truncating casts), written from the student notebooks and INSTRUCTOR.md only."""

CASES = {
    # ------------------------------------------------------------------ correct, unusual
    "hod5_saxpy_explicit_fma_float32": dict(
        exercise="01_elementwise",
        part="saxpy",
        kernel='''
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i >= out.shape[0]:
        return  # idle threads of the last block leave at once
    a = np.float32(alpha)  # keep the whole thing in float32
    # one rounding, as the GPU's FFMA does for a*x + y anyway
    out[i] = cuda.fma(a, x[i], y[i])
''',
        full=True,
    ),
    "hod5_conv1d_unsigned_border_device_fn": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit(device=True)
def tap(x, j):
    # one unsigned compare covers both borders: a negative j wraps to a huge uint32
    if np.uint32(j) < np.uint32(x.size):
        return x[j]
    return float32(0.0)


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        K = w.size
        r = K // 2
        acc = float32(0.0)
        for k in range(K):
            acc += w[k] * tap(x, i + r - k)
        out[i] = acc
''',
        full=True,
    ),
    "hod5_block_sum_2d_shared_while": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
WARPS = TPB // 32  # the tile as WARPS rows of 32 lanes


@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array((WARPS, 32), float32)
    t = cuda.threadIdx.x
    row, lane = t // 32, t % 32
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    s[row, lane] = v
    cuda.syncthreads()
    stride = TPB >> 1
    while stride:
        if t < stride:
            p = t + stride
            s[row, lane] += s[p // 32, p % 32]
        cuda.syncthreads()
        stride >>= 1
    if t == 0:
        partial[cuda.blockIdx.x] = s[0, 0]
''',
        full=True,
    ),
    "hod5_histogram_global_uint8_minus_widens": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel='''
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        # numba widens uint8 - int to int64, so a failed reading (v >= BINS) stays >= 0
        if v - BINS < 0:
            cuda.atomic.add(hist, v, 1)
''',
        full=True,
    ),
    "hod5_histogram_shared_while_loops": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    b = t
    while b < BINS:  # zero my bins (stays right if BINS > TPB)
        s[b] = 0
        b += TPB
    cuda.syncthreads()
    i, step = cuda.grid(1), cuda.gridsize(1)
    n = values.size
    while i < n:  # grid-stride walk over the stream
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
        i += step
    cuda.syncthreads()
    b = t
    while b < BINS:  # flush: one global atomic per non-empty bin and block
        c = s[b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
        b += TPB
''',
        full=True,
    ),
    "hod5_block_scan_blelloch_thread0_clears": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
HALF = TPB // 2


@cuda.jit(device=True)
def tree_index(t, d):
    # k = (t + 1) * 2d - 1, d a power of two
    return ((t + 1) * d << 1) - 1


@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    xv = float32(0.0)
    if i < x.size:
        xv = x[i]
    s[t] = xv
    cuda.syncthreads()
    d = 1
    while d < TPB:  # up-sweep
        k = tree_index(t, d)
        if k < TPB:
            s[k] += s[k - d]
        cuda.syncthreads()
        d <<= 1
    # Thread 0 saves the total and clears the root. The first down step (d = HALF,
    # k = TPB - 1) is thread 0's own, so no barrier is needed in between.
    if t == 0:
        block_sums[cuda.blockIdx.x] = s[TPB - 1]
        s[TPB - 1] = 0
    d = HALF
    while d > 0:  # down-sweep
        k = tree_index(t, d)
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        cuda.syncthreads()
        d >>= 1
    if i < out.size:
        out[i] = s[t] + xv  # exclusive + own = inclusive
''',
        full=True,
    ),
    "hod5_add_block_offsets_early_returns": dict(
        exercise="08_scan",
        part="add_block_offsets",
        kernel='''
@cuda.jit
def add_block_offsets(out, offsets):
    b = cuda.blockIdx.x
    if b == 0:
        return  # the first tile has nothing before it
    i = b * cuda.blockDim.x + cuda.threadIdx.x
    if i >= out.size:
        return
    out[i] += offsets[(i - TPB) // TPB]  # = offsets[b - 1]
''',
        full=True,
    ),
    # ------------------------------------------------------------------ real bugs
    "hod5_conv1d_truncating_division_border": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit(device=True)
def inside(j, n):
    # j / n lies in [0, 1) exactly when 0 <= j < n
    return int(j / n) == 0


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    if i < n:
        r = w.size // 2
        acc = float32(0.0)
        for k in range(w.size):
            j = i + r - k
            if inside(j, n):
                acc += w[k] * x[j]
        out[i] = acc
''',
        fail=["public", "hidden"],
        passes=[],
        reason='out differs',
        why="int() truncates toward zero, so j = -1..-(n-1) gives int(j/n) == 0 and counts as inside; x[j] then wraps to the end of the signal (numba's negative-index wrap, no out-of-range access), so the first r outputs of every case with K > 1 pick up x[n-1], x[n-2], ...",
    ),
    "hod5_conv1d_filter_cached_in_local_13": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
MAXK = 13  # longest filter we use


@cuda.jit
def conv1d(x, w, out):
    wl = cuda.local.array(MAXK, float32)  # filter in registers/local memory
    K = w.size
    for k in range(K):
        wl[k] = w[k]
    i = cuda.grid(1)
    if i < out.size:
        r = K // 2
        acc = float32(0.0)
        for k in range(K):
            j = i + r - k
            if 0 <= j < x.size:
                acc += wl[k] * x[j]
        out[i] = acc
''',
        fail=["hidden", "bounds"],
        passes=["parallel"],
        reason='out-of-bounds',
        why="the local array holds 13 taps but the hidden draws always contain K >= 15 (up to 17): wl[13..16] are written and read past the end of the local array (garbage on a GPU), so those cases fail; public filters (K <= 9 in the notebook) pass",
    ),
    "hod5_block_sum_warp_synchronous_tail": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 32:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    # the last warp runs in lockstep, so it needs no barriers (CUDA samples, reduce5)
    if t < 32:
        s[t] += s[t + 32]
        s[t] += s[t + 16]
        s[t] += s[t + 8]
        s[t] += s[t + 4]
        s[t] += s[t + 2]
        s[t] += s[t + 1]
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="since Volta a warp has no implicit lockstep and s is not volatile: lane t reads s[t+16] while lane t+16 writes it with no __syncwarp in between (racecheck reports it; the compiler may also hoist the loads), for every size",
    ),
    "hod5_histogram_global_int8_code": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel='''
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = np.int8(values[i])  # codes are small: a signed byte is enough
        if v < BINS:
            cuda.atomic.add(hist, v, 1)
''',
        fail=["public", "hidden", "bounds"],
        passes=[],
        reason='out-of-bounds',
        why="int8 wraps codes >= 128 to negatives, which pass v < BINS: 192..255 become -64..-1 and wrap into bins 0..63 (wrong counts), 128..191 become -128..-65, below minus the length of hist (atomic out of range); only streams with no code >= 128 (skewed, constant) come out right",
    ),
    "hod5_histogram_shared_flush_without_barrier": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    if t < BINS:
        s[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < values.size:
        if values[i] < BINS:
            cuda.atomic.add(s, values[i], 1)
        i += cuda.gridsize(1)
    # atomics are indivisible, so the counts are safe to read now
    if t < BINS and s[t] > 0:
        cuda.atomic.add(hist, t, s[t])
''',
        fail=["public", "hidden"],
        passes=[],
        reason='sees the value before that update',
        why="no barrier between counting and the flush: warps 0-1 read their bins with plain loads while warps 2-3 of the same block may still be adding into them, so those counts are lost on a GPU (a plain read racing with atomics sees an old value) for any stream whose later warps see readings",
    ),
    "hod5_block_scan_root_cleared_without_barrier": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    xv = x[i] if i < x.size else float32(0.0)
    s[t] = xv
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        cuda.syncthreads()
        d *= 2
    if t == TPB - 1:  # the last thread owns the root
        block_sums[cuda.blockIdx.x] = s[t]
        s[t] = 0
    d = TPB // 2
    while d >= 1:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            tmp = s[k - d]
            s[k - d] = s[k]
            s[k] += tmp
        cuda.syncthreads()
        d //= 2
    if i < out.size:
        out[i] = s[t] + xv
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="thread TPB-1 (warp 3) zeroes s[TPB-1] and, with no barrier, thread 0 (warp 0) reads s[TPB-1] in the first down-sweep step: a cross-warp read-after-write race in every block; if warp 0 wins it pushes the total instead of 0 down the tree",
    ),
    # ------------------------------------------------------------------ correct but off the brief
    "hod5_conv1d_thread0_computes_block": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    # thread 0 of each block computes the block's outputs (fewer idle threads at the end?)
    if cuda.threadIdx.x != 0:
        return
    n = x.size
    K = w.size
    r = K // 2
    start = cuda.blockIdx.x * cuda.blockDim.x
    stop = min(start + cuda.blockDim.x, n)
    for i in range(start, stop):
        acc = float32(0.0)
        for k in range(K):
            j = i + r - k
            if 0 <= j < n:
                acc += w[k] * x[j]
        out[i] = acc
''',
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason="one thread",
        why="right outputs, but thread 0 stores TPB outputs and makes about TPB*(2K+1) memory operations, far over one output and 5K+8 operations per thread",
    ),
    "hod5_block_sum_shared_atomic_one_slot": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    acc = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    if t == 0:
        acc[0] = 0.0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(acc, 0, x[i])  # shared atomics are fast
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = acc[0]
''',
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        reason="atomics",
        why="correct sums (atomic order changes only the last bits), but all TPB atomics of a block go to one shared address and run one after another, over the TPB/32 per element the guide allows",
    ),
    "hod5_block_scan_hillis_steele_2d_buffer": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    buf = cuda.shared.array((2, TPB), float32)  # ping-pong buffers
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    buf[0, t] = v
    cuda.syncthreads()
    src = 0
    d = 1
    while d < TPB:
        if t >= d:
            buf[1 - src, t] = buf[src, t] + buf[src, t - d]
        else:
            buf[1 - src, t] = buf[src, t]
        cuda.syncthreads()
        src = 1 - src
        d *= 2
    if i < out.size:
        out[i] = buf[src, t]
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = buf[src, t]
''',
        fail=["work"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="work",
        why="a correct Hillis-Steele scan: it rewrites the whole tile at each of the 7 levels (7 shared stores per element, about 3 accesses per element per level), over the 5 stores and 16 accesses per element the work point allows",
    ),
}

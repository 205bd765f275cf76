"""Held-out set a17: numba-cuda's less common device API (fma, bit intrinsics, votes, lane masks, atomics, local arrays), written blind from the student notebooks and INSTRUCTOR.md."""

CASES = {
    # ------------------------------------------------------------------ 10_warp_reduce
    "hor17_warp_lanemask_butterfly_syncthreads_count": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
SECOND_MASK = (1 << WARPS) - 1  # lanes 0..WARPS-1 of warp 0: the ones that hold a warp sum


@cuda.jit(device=True)
def warp_allsum(v, mask, width):
    # xor butterfly: after log2(width) steps every lane named in mask holds the total
    off = width // 2
    while off > 0:
        v += cuda.shfl_xor_sync(mask, v, off)
        off //= 2
    return v


@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    tid = cuda.threadIdx.x
    lane = cuda.popc(cuda.lanemask_lt())  # lanes below me = my lane number
    warp = tid >> 5
    i = cuda.blockIdx.x * TPB + tid
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    # a warp entirely past the end of x skips the shuffles (the vote is the same in all lanes)
    if cuda.any_sync(FULL_MASK, i < x.size):
        v = warp_allsum(v, FULL_MASK, 32)
        if lane == 0:
            warp_sums[warp] = v
    # the one barrier; it also counts the threads that had an element (it wants an int)
    have = cuda.syncthreads_count(1 if i < x.size else 0)
    used = (have + 31) >> 5  # warps that wrote a sum
    if tid < WARPS:
        s = float32(0.0)
        if tid < used:
            s = warp_sums[tid]
        s = warp_allsum(s, SECOND_MASK, WARPS)
        if tid == 0:
            partial[cuda.blockIdx.x] = s
''',
        full=True,
    ),
    "hor17_warp_stage2_mask_0xF_offsets_from_4": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
LIVE = (1 << WARPS) - 1  # only lanes 0..3 of warp 0 have a warp sum, so only they shuffle


@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
    if lane == 0:
        sums[t // 32] = v
    cuda.syncthreads()
    if t < WARPS:
        # the mask names exactly the lanes that are in here
        s = sums[t]
        off = WARPS
        while off > 0:
            s += cuda.shfl_down_sync(LIVE, s, off)
            off //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = s
''',
        fail=["public", "hidden"],
        passes=[],
        reason='not in its mask',
        why="With WARPS = 4 the first offset is 4, so in every block lane 0 of warp 0 reads lane 4 of a "
            "shuffle whose mask 0xF leaves lane 4 out (lane 4 skipped the branch): the value is undefined "
            "on a GPU (in practice whatever sits in lane 4's register) and it goes straight into "
            "partial[b]; offsets 2, 1 would have stayed inside the mask. Masks or sync should also flag it.",
    ),
    "hor17_warp_barrier_before_shuffles_syncwarp_after": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = cuda.laneid
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    cuda.syncthreads()  # the single block-wide barrier: every element is loaded
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
        off >>= 1
    if lane == 0:
        sums[t >> 5] = v
    cuda.syncwarp(FULL_MASK)  # wait for the warp sums before warp 0 adds them
    if t < 32:
        s = sums[lane] if lane < WARPS else float32(0.0)
        off = 16
        while off > 0:
            s += cuda.shfl_down_sync(FULL_MASK, s, off)
            off >>= 1
        if lane == 0:
            partial[cuda.blockIdx.x] = s
''',
        fail=["sync", "public", "hidden"],
        passes=[],
        reason="race",
        why="The only syncthreads() sits before the shuffles, where nothing is shared yet; lanes 1-3 of "
            "warp 0 then read sums[1..3], written by lane 0 of warps 1-3, after a syncwarp that orders "
            "warp 0 alone: a shared-memory race (racecheck: RAW hazard) in every block, and on a GPU "
            "warp 0 can read a stale or uninitialised sum whenever it gets ahead of another warp.",
    ),
    # ------------------------------------------------------------------ 02_conv1d
    "hor17_conv1d_tile_floor_division_owner": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit(device=True)
def tap(x, tile, j, b):
    # numba divides signed ints like Python (floor), so j = -1 lands in block -1, not block 0
    if j // TPB == b:
        return tile[j % TPB]  # inside this block's tile
    if j >= 0 and j < x.size:
        return x[j]  # a neighbour block's element: read it from global memory
    return float32(0.0)  # outside the signal


@cuda.jit
def conv1d(x, w, out):
    tile = cuda.shared.array(TPB, float32)
    b = cuda.blockIdx.x
    t = cuda.threadIdx.x
    i = b * TPB + t
    n = x.size
    tile[t] = x[i] if i < n else float32(0.0)
    cuda.syncthreads()
    if i >= n:
        return
    r = w.size // 2
    acc = float32(0.0)
    for k in range(w.size):
        acc = cuda.fma(w[k], tap(x, tile, i + r - k, b), acc)
    out[i] = acc
''',
        full=True,
    ),
    "hor17_conv1d_static_halo_sized_for_public_filters": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
RMAX = 3  # K = 7 is the widest filter I have seen
SPAN = TPB + 2 * RMAX


@cuda.jit
def conv1d(x, w, out):
    tile = cuda.shared.array(SPAN, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = x.size
    tile[t + RMAX] = x[i] if i < n else float32(0.0)
    if t < RMAX:  # the first RMAX threads also load both halos
        left = i - RMAX
        tile[t] = x[left] if left >= 0 else float32(0.0)
        right = i + TPB
        tile[t + TPB + RMAX] = x[right] if right < n else float32(0.0)
    cuda.syncthreads()
    if i < n:
        r = w.size // 2
        acc = float32(0.0)
        for k in range(w.size):
            acc = cuda.fma(w[k], tile[t + RMAX + r - k], acc)
        out[i] = acc
''',
        fail=["hidden", "bounds"],
        passes=["public", "parallel"],
        reason='out-of-bounds',
        why="The tile holds RMAX = 3 inputs on each side, enough for the public K <= 7; with K >= 15 "
            "over several blocks (in every hidden draw) threads t >= 124 read tile[t + RMAX + r - k] "
            "past the 134 floats, and threads t < r - RMAX read a negative index that numba wraps to "
            "the tile's right halo: wrong sums on a GPU and an out-of-bounds shared read for memcheck. "
            "(A single short block, n < 124, happens to read only zeros and stays right.)",
    ),
    # ------------------------------------------------------------------ 01_elementwise
    "hor17_saxpy_fma_grid_stride_while": dict(
        exercise="01_elementwise",
        part="saxpy",
        kernel='''
@cuda.jit
def saxpy(alpha, x, y, out):
    a = np.float32(alpha)  # keep the arithmetic in float32 whatever alpha arrives as
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:  # grid-stride loop: with ceil(n / TPB) blocks it runs at most once
        out[i] = cuda.fma(a, x[i], y[i])
        i += step
''',
        full=True,
    ),
    "hor17_multiply_even_threads_do_pairs": dict(
        exercise="01_elementwise",
        part="multiply",
        kernel='''
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i & 1 == 0:  # even threads take their element and the odd neighbour's
        for j in (i, i + 1):
            if j < out.size:
                out[j] = a[j] * b[j]
''',
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason='stored 2 outputs',
        why="Results are right, but every even thread stores two outputs while the odd threads idle, "
            "against the brief's one thread per element (at most one output per thread).",
    ),
    # ------------------------------------------------------------------ 11_softmax
    "hor17_exp_sum_warp_shuffles_atomic_add_per_warp": dict(
        exercise="11_softmax",
        part="exp_sum",
        kernel='''
ALL_LANES = 0xFFFFFFFF


@cuda.jit
def exp_sum(x, m, e, s):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    mr = m[r]
    acc = float32(0.0)
    c = t
    while c < cols:
        v = math.exp(x[r, c] - mr)
        e[r, c] = v
        acc += v
        c += TPB
    off = 16
    while off:  # tree in registers; lanes with no column add 0
        acc += cuda.shfl_down_sync(ALL_LANES, acc, off)
        off >>= 1
    # s arrives zeroed: one atomic per warp finishes the row, no shared memory, no barrier
    if t % 32 == 0:
        cuda.atomic.add(s, r, acc)
''',
        full=True,
    ),
    "hor17_row_max_atomic_max_init_race": dict(
        exercise="11_softmax",
        part="row_max",
        kernel='''
@cuda.jit
def row_max(x, m):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    if t == 0:
        m[r] = float32(-math.inf)  # m arrives zeroed, and 0 beats every negative row
    best = float32(-math.inf)
    c = t
    while c < x.shape[1]:
        best = max(best, x[r, c])
        c += TPB
    for off in (16, 8, 4, 2, 1):
        best = max(best, cuda.shfl_xor_sync(0xFFFFFFFF, best, off))
    if t % 32 == 0:
        cuda.atomic.max(m, r, best)  # one atomic per warp
''',
        fail=["public", "hidden", "sync"],  # the -inf store races with atomic max: m ends undefined
        passes=[],
        reason="race",
        why="Thread 0's plain store of -inf into m[r] is separated by no barrier from the atomic.max "
            "that lane 0 of warps 1-3 makes on the same element: when one of those warps gets there "
            "first (short rows, warp 0 scheduled late) the store wipes its maximum and m[r] is the max "
            "of fewer columns. A global-memory race (compute-sanitizer's racecheck only watches shared "
            "memory), which the guide's sync rule names: a plain write racing with an atomic.",
    ),
    "hor17_softmax_fused_online_isinf_fma_tuples": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit(device=True)
def merge(m1, s1, m2, s2):
    # combine two (max, sum of exp(x - max)) pairs; a pair that saw nothing is (-inf, 0)
    if math.isinf(m2):
        return m1, s1
    if math.isinf(m1):
        return m2, s2
    if m2 > m1:
        return m2, cuda.fma(s1, math.exp(m1 - m2), s2)
    return m1, cuda.fma(s2, math.exp(m2 - m1), s1)


@cuda.jit
def softmax_fused(x, out):
    smax = cuda.shared.array(TPB, float32)
    ssum = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    mx, acc = float32(-math.inf), float32(0.0)
    for c in range(t, cols, TPB):
        mx, acc = merge(mx, acc, x[r, c], float32(1.0))
    smax[t], ssum[t] = mx, acc
    cuda.syncthreads()
    half = TPB // 2
    while half > 0:
        if t < half:
            a, b = merge(smax[t], ssum[t], smax[t + half], ssum[t + half])
            smax[t], ssum[t] = a, b
        cuda.syncthreads()
        half //= 2
    big, inv = smax[0], float32(1.0) / ssum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - big) * inv
''',
        full=True,
    ),
    "hor17_softmax_fused_local_cache_4x4": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
CACHE_ROWS = 4
CACHE_COLS = 4  # 16 values per thread: rows up to 16 * TPB = 2048 columns


@cuda.jit
def softmax_fused(x, out):
    cache = cuda.local.array((CACHE_ROWS, CACHE_COLS), float32)  # my columns, so x is read once
    smax = cuda.shared.array(TPB, float32)
    ssum = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    mx = float32(-math.inf)
    acc = float32(0.0)
    k = 0
    for c in range(t, cols, TPB):
        v = x[r, c]
        cache[k // CACHE_COLS, k % CACHE_COLS] = v
        k += 1
        if v > mx:
            acc = acc * math.exp(mx - v) + float32(1.0)
            mx = v
        else:
            acc += math.exp(v - mx)
    smax[t] = mx
    ssum[t] = acc
    cuda.syncthreads()
    half = TPB // 2
    while half > 0:
        if t < half:
            m1, m2 = smax[t], smax[t + half]
            s1, s2 = ssum[t], ssum[t + half]
            big = max(m1, m2)
            if big != float32(-math.inf):
                smax[t] = big
                ssum[t] = s1 * math.exp(m1 - big) + s2 * math.exp(m2 - big)
        cuda.syncthreads()
        half //= 2
    big = smax[0]
    inv = float32(1.0) / ssum[0]
    k = 0
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(cache[k // CACHE_COLS, k % CACHE_COLS] - big) * inv
        k += 1
''',
        fail=["hidden", "bounds"],
        passes=["public", "sync", "memory"],
        reason='out-of-bounds',
        why="The per-thread cache holds 16 columns, enough for the public rows (300 columns, 3 per "
            "thread); the hidden row of >= 4096 columns gives each thread 32, so k // 4 reaches 4..7 "
            "and the kernel writes and reads past its 4x4 local array (undefined on a GPU, "
            "memcheck: invalid __local__ access) for every thread of that row.",
    ),
    "hor17_softmax_fused_three_passes_xor_butterfly": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
NW = TPB // 32
LANES = 0xFFFFFFFF


@cuda.jit(device=True)
def warp_max(v):
    for off in (16, 8, 4, 2, 1):
        v = max(v, cuda.shfl_xor_sync(LANES, v, off))
    return v


@cuda.jit(device=True)
def warp_sum(v):
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(LANES, v, off)
    return v


@cuda.jit
def softmax_fused(x, out):
    red = cuda.shared.array((2, NW), float32)  # row 0: warp maxima, row 1: warp sums
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    lane = t % 32
    w = t // 32
    cols = x.shape[1]
    mx = float32(-math.inf)
    for c in range(t, cols, TPB):
        mx = max(mx, x[r, c])
    mx = warp_max(mx)
    if lane == 0:
        red[0, w] = mx
    cuda.syncthreads()
    big = red[0, 0]
    for k in range(1, NW):
        big = max(big, red[0, k])
    acc = float32(0.0)
    for c in range(t, cols, TPB):
        acc += math.exp(x[r, c] - big)
    acc = warp_sum(acc)
    if lane == 0:
        red[1, w] = acc
    cuda.syncthreads()
    total = float32(0.0)
    for k in range(NW):
        total += red[1, k]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - big) / total
''',
        fail=["memory"],
        passes=["public", "hidden", "sync", "bounds", "parallel"],
        reason='global loads',
        why="Correct softmax, but x is read three times (max pass, sum pass, write pass): 3 global "
            "loads per element where the brief's online softmax needs at most 2.",
    ),
}

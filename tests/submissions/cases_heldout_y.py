"""Submissions for exercises 05, 07, 08, 10 and 11 (correct, wrong and off-brief kernels, with an
eye on numerics and warp semantics), each written from the student notebook and INSTRUCTOR.md
alone, as a student would."""

CASES = {
    # ------------------------------------------------------------------ correct, unusual style
    "hoy_reduction_warp_rows_devfn_while": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
ROWS = TPB // 32  # one row of the tile per warp


@cuda.jit(device=True)
def load_or_zero(x, i):
    if i < x.shape[0]:
        return x[i]
    return float32(0.0)


@cuda.jit(device=True)
def at(k):
    # the tile is stored warp by warp: row = warp, column = lane
    return k >> 5, k & 31


@cuda.jit
def block_sum(x, partial):
    tile = cuda.shared.array((ROWS, 32), float32)
    t = cuda.threadIdx.x
    w, l = at(t)
    tile[w, l] = load_or_zero(x, cuda.blockIdx.x * cuda.blockDim.x + t)
    stride = TPB >> 1
    while stride > 0:
        cuda.syncthreads()  # the previous step (or the loads) is finished
        if t < stride:
            a, b = at(t + stride)
            tile[w, l] += tile[a, b]
        stride >>= 1
    if t == 0:
        # thread 0 wrote tile[0, 0] itself in the last step: no barrier needed
        partial[cuda.blockIdx.x] = tile[0, 0]
''',
        full=True,
    ),
    "hoy_hist_global_devfn_sentinel_early_returns": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel='''
@cuda.jit(device=True)
def bin_of(code):
    # -1 flags a failed reading (codes 64..255)
    return int32(code) if code < BINS else int32(-1)


@cuda.jit
def histogram_global(values, hist):
    tx, bx, bw = cuda.threadIdx.x, cuda.blockIdx.x, cuda.blockDim.x
    i = bx * bw + tx
    if i >= values.shape[0]:
        return
    b = bin_of(values[i])
    if b < 0:
        return
    cuda.atomic.add(hist, b, 1)
''',
        full=True,
    ),
    "hoy_hist_shared_2d_private_while_loops": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array((1, BINS), int32)  # one private row per block
    t = cuda.threadIdx.x
    b = t
    while b < BINS:
        s[0, b] = 0
        b += cuda.blockDim.x
    cuda.syncthreads()

    i = cuda.grid(1)
    step = cuda.gridsize(1)
    n = values.shape[0]
    while i < n:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, (0, v), 1)
        i += step
    cuda.syncthreads()

    for b in range(t, BINS, cuda.blockDim.x):
        c = s[0, b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
''',
        full=True,
    ),
    "hoy_scan_blelloch_padded_tuple_swap": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
PADDED = TPB + TPB // 32  # one spare word after every 32


@cuda.jit(device=True)
def pad(k):
    # one spare word after every 32: fewer bank conflicts
    return k + (k >> 5)


@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(PADDED, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    xv = float32(0.0)
    if i < x.size:
        xv = x[i]
    s[pad(t)] = xv

    d = 1
    while d < TPB:  # up-sweep
        cuda.syncthreads()
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[pad(k)] += s[pad(k - d)]
        d <<= 1
    cuda.syncthreads()

    if t == TPB - 1:
        block_sums[b] = s[pad(TPB - 1)]
        s[pad(TPB - 1)] = 0.0

    d = TPB >> 1
    while d > 0:  # down-sweep
        cuda.syncthreads()
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left, right = s[pad(k - d)], s[pad(k)]
            s[pad(k - d)], s[pad(k)] = right, right + left
        d >>= 1
    cuda.syncthreads()

    if i < x.size:
        out[i] = s[pad(t)] + xv  # exclusive + own = inclusive
''',
        full=True,
    ),
    "hoy_warp_xor_butterfly_float64_registers": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit(device=True)
def warp_allreduce(v):
    # butterfly: after 5 steps every lane holds the warp's sum
    lane_mask = 16
    while lane_mask:
        v += cuda.shfl_xor_sync(FULL_MASK, v, lane_mask)
        lane_mask >>= 1
    return v


@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    v = x[i] if i < x.size else 0  # float32 or int: numba makes it a float64 register
    v = warp_allreduce(v)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:  # the whole of warp 0 comes here, so FULL_MASK is right
        w = warp_sums[lane] if lane < WARPS else float32(0.0)
        w = warp_allreduce(w)
        if lane == 0:
            partial[cuda.blockIdx.x] = w
''',
        full=True,
    ),
    "hoy_softmax_fused_online_combine_libdevice": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit(device=True)
def combine(m1, s1, m2, s2):
    # (max, sum of exp(x - max)) pairs; (-inf, 0) is the empty pair
    mx = cuda.libdevice.fmaxf(m1, m2)
    if mx == float32(-math.inf):
        return mx, s1 + s2  # both empty: avoid exp(-inf - -inf) = nan
    return mx, s1 * math.exp(m1 - mx) + s2 * math.exp(m2 - mx)


@cuda.jit
def softmax_fused(x, out):
    sm = cuda.shared.array(TPB, float32)
    ss = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    s = float32(0.0)
    for c in range(t, cols, TPB):
        m, s = combine(m, s, x[r, c], float32(1.0))
    sm[t] = m
    ss[t] = s
    stride = TPB // 2
    while stride > 0:
        cuda.syncthreads()
        if t < stride:
            sm[t], ss[t] = combine(sm[t], ss[t], sm[t + stride], ss[t + stride])
        stride //= 2
    cuda.syncthreads()  # thread 0's last write before everybody reads slot 0
    big = sm[0]
    total = ss[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - big) / total
''',
        full=True,
    ),
    # ------------------------------------------------------------------ real bugs
    "hoy_reduction_unrolled_last_warp_no_syncwarp": dict(
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
    # the last 32 threads are one warp: they run in lockstep, so no barrier needed
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
        why="classic pre-Volta warp-synchronous unrolling: lane t reads s[t+16] while lane t+16 "
            "writes it with no __syncwarp/volatile; on Volta+ (independent scheduling) it is an "
            "intra-warp shared-memory race that racecheck reports, for every size",
    ),
    "hoy_warp_ballot_mask_partial_warp": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.blockIdx.x * TPB + t
    # the mask names exactly the lanes that hold an element and enter the branch
    live = cuda.ballot_sync(FULL_MASK, i < x.size)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(live, v, off)
            off //= 2
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = warp_sums[lane] if lane < WARPS else float32(0.0)
        off = 16
        while off > 0:
            w += cuda.shfl_down_sync(FULL_MASK, w, off)
            off //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = w
''',
        fail=["sync"],
        passes=[],
        reason="mask",
        why="in the warp where x ends (n % 32 != 0) lane 0 shuffles down from lanes i+16 (and "
            "i+8, ...) that are neither in `live` nor executing the shuffle: the value is undefined "
            "and reaches partial[b]; whole warps are fine",
    ),
    "hoy_scan_barrier_only_at_loop_top": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    xv = x[i] if i < x.size else float32(0.0)
    s[t] = xv

    d = 1
    while d < TPB:
        cuda.syncthreads()  # previous level done
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2

    cuda.syncthreads()
    if t == TPB - 1:
        block_sums[b] = s[t]
        s[t] = 0.0

    d = TPB // 2
    while d > 0:
        cuda.syncthreads()  # previous level done
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        d //= 2

    if i < x.size:
        out[i] = s[t] + xv
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="no barrier after the last down-sweep level (d = 1): thread t reads s[t], written in "
            "that level by thread t // 2 of another warp; threads 64..127 skip the level and race "
            "ahead, so on a GPU they read stale prefixes, for every size",
    ),
    "hoy_softmax_fused_empty_pairs_nan": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit
def softmax_fused(x, out):
    sm = cuda.shared.array(TPB, float32)
    ss = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    s = float32(0.0)
    c = t
    while c < cols:  # one pass: running max and rescaled running sum
        v = x[r, c]
        if v > m:
            s = s * math.exp(m - v) + float32(1.0)
            m = v
        else:
            s += math.exp(v - m)
        c += TPB
    sm[t] = m
    ss[t] = s
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m2 = sm[t + stride]
            s2 = ss[t + stride]
            big = max(sm[t], m2)
            ss[t] = ss[t] * math.exp(sm[t] - big) + s2 * math.exp(m2 - big)
            sm[t] = big
        cuda.syncthreads()
        stride //= 2
    big = sm[0]
    total = ss[0]
    c = t
    while c < cols:
        out[r, c] = math.exp(x[r, c] - big) / total
        c += TPB
''',
        fail=["hidden"],
        passes=[],
        reason="wrong values",
        why="two empty pairs (-inf, 0) combine as 0 * exp(-inf - -inf) = 0 * nan = nan, which the "
            "tree carries to slot 0: every row with fewer than 64 columns (single column, fewer "
            "than a warp) comes out all nan; 64 columns or more are right",
    ),
    "hoy_softmax_fused_row_cache_2048": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
ROW_CACHE = 2048  # 8 KiB of shared memory: the row is read from global memory once


@cuda.jit
def softmax_fused(x, out):
    row = cuda.shared.array(ROW_CACHE, float32)
    red = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]

    m = float32(-math.inf)
    for c in range(t, cols, TPB):
        v = x[r, c]
        row[c] = v  # each thread only ever touches its own columns of row
        m = max(m, v)
    red[t] = m
    stride = TPB // 2
    while stride > 0:
        cuda.syncthreads()
        if t < stride:
            red[t] = max(red[t], red[t + stride])
        stride //= 2
    cuda.syncthreads()
    big = red[0]
    cuda.syncthreads()  # everyone has the max before red is reused

    s = float32(0.0)
    for c in range(t, cols, TPB):
        e = math.exp(row[c] - big)
        row[c] = e
        s += e
    red[t] = s
    stride = TPB // 2
    while stride > 0:
        cuda.syncthreads()
        if t < stride:
            red[t] += red[t + stride]
        stride //= 2
    cuda.syncthreads()
    total = red[0]
    for c in range(t, cols, TPB):
        out[r, c] = row[c] / total
''',
        fail=["hidden", "bounds"],
        passes=["sync", "memory"],
        reason="out-of-bounds",
        why="the shared row cache holds 2048 floats but rows go up to 4097 columns: the hidden "
            "'single row of at least 4096 columns' writes row[2048..] past the shared array "
            "(memcheck: invalid __shared__ write, or it overwrites `red`)",
    ),
    "hoy_row_max_zero_padding_negative_rows": dict(
        exercise="11_softmax",
        part="row_max",
        kernel='''
@cuda.jit
def row_max(x, m):
    red = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    if t < cols:
        best = x[r, t]
        for c in range(t + TPB, cols, TPB):
            best = max(best, x[r, c])
        red[t] = best
    else:
        red[t] = 0.0  # pad the tree with zeros, as in block_sum
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            red[t] = max(red[t], red[t + stride])
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        m[r] = red[0]
''',
        fail=["hidden"],
        passes=[],
        reason="wrong",
        why="threads with no column bring 0.0 instead of -inf, so a row shorter than the block "
            "whose values are all negative (offset near -1000, or a falling row) gets max 0.0; "
            "rows of TPB columns or more, or with a positive value, are right",
    ),
    "hoy_hist_shared_plain_flush_one_thread_per_bin": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
        i += cuda.gridsize(1)
    cuda.syncthreads()
    # one thread per bin, so no two threads ever touch the same bin: no atomic needed
    for b in range(t, BINS, TPB):
        if s[b] != 0:
            hist[b] += s[b]
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="within a block each bin has one thread, but the 4 blocks all read-modify-write the "
            "same hist[b] with plain loads and stores: blocks that flush together lose counts "
            "(a race between blocks), for any stream that fills a bin in two blocks",
    ),
    # ------------------------------------------------------------------ right outputs, off the brief
    "hoy_reduction_shared_atomic_one_slot": dict(
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
        cuda.atomic.add(acc, 0, x[i])  # shared atomics are cheap, no tree needed
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = acc[0]
''',
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        reason="atomic",
        why="right sums, but up to 128 atomics serialise on acc[0], above the TPB/32 = 4 per "
            "element that the parallel criterion allows; no tree at all",
    ),
    "hoy_hist_shared_half_block_rows_flushed_apart": dict(
        exercise="07_histogram",
        part="histogram_shared",
        extra_cells=['''
SUBS = TPB // BINS  # one sub-histogram per half block: half the shared contention
'''],
        kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array((SUBS, BINS), int32)
    t = cuda.threadIdx.x
    half, b = t // BINS, t % BINS  # every thread owns exactly one entry of s
    s[half, b] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, (half, v), 1)
        i += cuda.gridsize(1)
    cuda.syncthreads()
    c = s[half, b]
    if c != 0:
        cuda.atomic.add(hist, b, c)  # one global atomic per thread at most
''',
        fail=["atomics"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="atomic",
        why="counts are right, but each half-block flushes its own row of s: up to 2 global atomics "
            "per bin and block (8 per bin with 4 blocks, e.g. one repeated value over more than 512 "
            "values) instead of at most one",
    ),
    "hoy_exp_sum_lane0_pulls_warp_one_by_one": dict(
        exercise="11_softmax",
        part="exp_sum",
        kernel='''
NWARPS = TPB // 32


@cuda.jit
def exp_sum(x, m, e, s):
    warp_tot = cuda.shared.array(NWARPS, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    lane = t % 32
    w = t // 32
    cols = x.shape[1]
    mr = m[r]
    acc = float32(0.0)
    for c in range(t, cols, TPB):
        v = math.exp(x[r, c] - mr)
        e[r, c] = v
        acc += v
    # lane 0 collects its warp's 31 other sums, one shuffle each
    tot = acc
    for k in range(1, 32):
        got = cuda.shfl_sync(0xFFFFFFFF, acc, k)
        if lane == 0:
            tot += got
    if lane == 0:
        warp_tot[w] = tot
    cuda.syncthreads()
    if t == 0:
        total = float32(0.0)
        for k in range(NWARPS):
            total += warp_tot[k]
        s[r] = total
''',
        fail=["parallel"],
        passes=["public", "hidden", "sync"],
        reason="shuffle",
        why="correct e and s, but every thread makes 31 shuffles for a row of up to TPB columns "
            "(lane 0 pulling its warp one value at a time), above the 22 per TPB columns allowed",
    ),
}

"""Blind submissions for exercises 05, 07, 08, 10 and 11, aimed at float32 arithmetic (fastmath, fma, libdevice, Kahan) and atomics (cas loops, inc limits, float max), written from the student notebooks and INSTRUCTOR.md only."""

CASES = {
    # ------------------------------------------------------------------ correct, unusual
    "hoi10_block_sum_float64_tree_interleaved": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    # the tree runs in double precision; only the block's sum is rounded to float32
    s = cuda.shared.array(TPB, np.float64)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    stride = 1
    while stride < TPB:  # interleaved addressing: pairs (t, t + stride) for t % 2stride == 0
        if t % (2 * stride) == 0:
            s[t] += s[t + stride]
        stride *= 2
        cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = float32(s[0])
''',
        full=True,
    ),
    "hoi10_hist_shared_cas_loop": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
@cuda.jit(device=True)
def cas_increment(arr, idx):
    # hand-made atomic add: retry until nobody changed the bin under us
    old = arr[idx]
    while True:
        seen = cuda.atomic.cas(arr, idx, old, int32(old + 1))
        if seen == old:
            break
        old = seen


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    b = t
    while b < BINS:
        s[b] = 0
        b += cuda.blockDim.x
    cuda.syncthreads()
    start, step = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, values.size, step):
        v = values[i]
        if v < BINS:
            cas_increment(s, v)
    cuda.syncthreads()
    b = t
    while b < BINS:
        c = s[b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
        b += cuda.blockDim.x
''',
        full=True,
    ),
    "hoi10_scan_blelloch_padded_index": dict(
        exercise="08_scan",
        part="block_scan",
        extra_cells=["PAD_TPB = TPB + TPB // 32  # one spare word after every 32 (no bank conflicts)"],
        kernel='''
@cuda.jit(device=True)
def padded(k):
    return k + k // 32


@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(PAD_TPB, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    n = x.size
    v = x[i] if i < n else float32(0.0)
    s[padded(t)] = v
    d = 1
    while d < TPB:  # up-sweep
        cuda.syncthreads()
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[padded(k)] += s[padded(k - d)]
        d *= 2
    cuda.syncthreads()
    if t == TPB - 1:
        block_sums[b] = s[padded(TPB - 1)]
        s[padded(TPB - 1)] = float32(0.0)
    d = TPB // 2
    while d >= 1:  # down-sweep
        cuda.syncthreads()
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[padded(k - d)]
            right = s[padded(k)]
            s[padded(k - d)] = right
            s[padded(k)] = right + left
        d //= 2
    cuda.syncthreads()
    if i < n:
        out[i] = s[padded(t)] + v  # exclusive + own value = inclusive
''',
        full=True,
    ),
    "hoi10_warp_xor_butterfly_fastmath": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit(device=True)
def warp_allsum(v):
    # butterfly: after 5 exchanges every lane holds the warp's sum
    off = 16
    while off > 0:
        v += cuda.shfl_xor_sync(FULL_MASK, v, off)
        off >>= 1
    return v


@cuda.jit(fastmath=True)
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    v = warp_allsum(v)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:  # the whole warp 0 takes this branch
        w = warp_sums[lane] if lane < WARPS else float32(0.0)
        w = warp_allsum(w)
        if lane == 0:
            partial[cuda.blockIdx.x] = w
''',
        full=True,
    ),
    "hoi10_softmax_fused_exp2_fma_reciprocal": dict(
        exercise="11_softmax",
        part="softmax_fused",
        extra_cells=[
            "LOG2E = 1 / 0.6931471805599453  # exp(y) == 2 ** (y * LOG2E)\n"
            "NEG_BIG = -3.0e38  # a finite stand-in for -inf: no inf - inf anywhere"
        ],
        kernel='''
@cuda.jit(device=True)
def fast_exp(y):
    # e**y as 2**(y * log2 e), as the GPU's ex2 unit likes it
    return math.exp2(y * float32(LOG2E))


@cuda.jit
def softmax_fused(x, out):
    sm = cuda.shared.array(TPB, float32)
    ss = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(NEG_BIG)
    s = float32(0.0)
    for c in range(t, cols, TPB):  # online max and sum
        v = x[r, c]
        if v > m:
            s = cuda.fma(s, fast_exp(m - v), float32(1.0))
            m = v
        else:
            s += fast_exp(v - m)
    sm[t] = m
    ss[t] = s
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m2 = sm[t + stride]
            s2 = ss[t + stride]
            mm = max(m, m2)
            s = s * fast_exp(m - mm) + s2 * fast_exp(m2 - mm)
            m = mm
            sm[t] = m
            ss[t] = s
        cuda.syncthreads()
        stride //= 2
    m = sm[0]
    inv = float32(1.0) / ss[0]  # one division per thread, then multiply
    for c in range(t, cols, TPB):
        out[r, c] = fast_exp(x[r, c] - m) * inv
''',
        full=True,
    ),
    "hoi10_row_max_warp_shfl_then_shared_atomic_max": dict(
        exercise="11_softmax",
        part="row_max",
        kernel='''
@cuda.jit
def row_max(x, m):
    best = cuda.shared.array(1, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    if t == 0:
        best[0] = float32(-math.inf)  # neutral element of max, rows may be all negative
    cuda.syncthreads()
    local = float32(-math.inf)
    for c in range(t, x.shape[1], cuda.blockDim.x):
        local = max(local, x[r, c])
    off = 16
    while off:  # warp max in registers
        local = max(local, cuda.shfl_down_sync(0xFFFFFFFF, local, off))
        off //= 2
    if t % 32 == 0:
        cuda.atomic.max(best, 0, local)  # one float atomic per warp
    cuda.syncthreads()
    if t == 0:
        m[r] = best[0]
''',
        full=True,
    ),
    "hoi10_exp_sum_kahan_libdevice_expf": dict(
        exercise="11_softmax",
        part="exp_sum",
        kernel='''
@cuda.jit
def exp_sum(x, m, e, s):
    acc = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    mr = m[r]
    total = float32(0.0)
    comp = float32(0.0)  # Kahan compensation term
    c = t
    while c < x.shape[1]:
        v = cuda.libdevice.expf(x[r, c] - mr)
        e[r, c] = v
        y = v - comp
        tmp = total + y
        comp = (tmp - total) - y
        total = tmp
        c += TPB
    acc[t] = total
    cuda.syncthreads()
    half = TPB // 2
    while half:
        if t < half:
            acc[t] += acc[t + half]
        cuda.syncthreads()
        half //= 2
    if t == 0:
        s[r] = acc[0]
''',
        full=True,
    ),
    # ------------------------------------------------------------------ real bugs
    "hoi10_row_max_idle_threads_bring_zero": dict(
        exercise="11_softmax",
        part="row_max",
        kernel='''
@cuda.jit
def row_max(x, m):
    sh = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    # start from my first column; threads with no column have nothing to add
    best = x[r, t] if t < cols else float32(0.0)
    for c in range(t + TPB, cols, TPB):
        best = max(best, x[r, c])
    sh[t] = best
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            sh[t] = max(sh[t], sh[t + stride])
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        m[r] = sh[0]
''',
        fail=["hidden"],
        passes=[],
        reason="hidden cases",
        why="Threads past the end of a row bring 0.0 instead of -inf, so a row shorter than TPB (single column, fewer columns than a warp, 127 columns) whose values are all negative (offset -1000) gets max 0.0; rows of TPB columns or more are right.",
    ),
    "hoi10_hist_shared_atomic_inc_wraps_at_255": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
@cuda.jit
def histogram_shared(values, hist):
    # unsigned private counts, bumped with atomic.inc (a byte stream: 255 per bin is plenty)
    s = cuda.shared.array(BINS, np.uint32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.inc(s, v, 255)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        c = int32(s[b])
        if c > 0:
            cuda.atomic.add(hist, b, c)
''',
        fail=["hidden"],
        passes=[],
        reason="hidden cases",
        why="atomic.inc(s, v, 255) stores old >= 255 ? 0 : old + 1, so a block's bin wraps to 0 after 256 counts: wrong as soon as one block sees more than 256 equal readings (skewed stream with more than 8 values per thread, or a long constant stream), right for uniform or short streams.",
    ),
    "hoi10_warp_stage2_mask_names_only_four_lanes": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        # only WARPS = 4 sums are left, so the mask names just those 4 lanes
        w = warp_sums[lane] if lane < WARPS else float32(0.0)
        off = WARPS // 2
        while off > 0:
            w += cuda.shfl_down_sync((1 << WARPS) - 1, w, off)
            off //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = w
''',
        fail=["masks", "sync"],
        passes=["public", "hidden", "barriers", "registers"],
        reason="mask",
        why="All 32 lanes of warp 0 execute the second-stage shuffles with mask 0xF, so lanes 4..31 call a *_sync whose mask leaves them out (undefined behaviour per the CUDA guide); lane 0 only ever reads lanes 1 and 2, which are in the mask, so the sums are right on every size.",
    ),
    "hoi10_scan_root_cleared_by_last_thread_no_barrier": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        cuda.syncthreads()
        d *= 2
    if t == TPB - 1:  # the last thread owns the root
        block_sums[b] = s[TPB - 1]
        s[TPB - 1] = 0.0
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        cuda.syncthreads()
        d //= 2
    if i < x.size:
        out[i] = s[t] + v
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="Thread 127 (warp 3) clears the root s[127] while thread 0 (warp 0, k = 127 at d = 64) reads and rewrites it with no barrier in between: racecheck reports it, and on a GPU a block whose warp 0 runs first adds the block's total to every prefix of its upper half.",
    ),
    "hoi10_softmax_fused_nan_when_both_halves_empty": dict(
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
    for c in range(t, cols, TPB):
        v = x[r, c]
        if v > m:
            s = s * math.exp(m - v) + float32(1.0)
            m = v
        else:
            s += math.exp(v - m)
    sm[t] = m
    ss[t] = s
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m2 = sm[t + stride]
            s2 = ss[t + stride]
            if m2 > m:  # the other half has the larger max: rescale mine
                s = s * math.exp(m - m2) + s2
                m = m2
            else:  # mine is larger (or equal): rescale theirs
                s += s2 * math.exp(m2 - m)
            sm[t] = m
            ss[t] = s
        cuda.syncthreads()
        stride //= 2
    mx = sm[0]
    total = ss[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - mx) / total
''',
        fail=["public", "hidden"],
        passes=[],
        reason="nan",
        why="When both pairs of a tree step saw no column (m = m2 = -inf) the else branch computes 0 * exp(-inf - -inf) = 0 * nan = nan, which then spreads to thread 0: every row with fewer than 64 columns (single column, fewer than a warp) comes out all NaN; rows of 64 columns or more are right.",
    ),
    "hoi10_block_sum_warp_synchronous_tail": dict(
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
    if t < 32:
        # the last 32 threads are one warp: they run in lockstep, no barrier needed
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
        why="The classic warp-synchronous tail: lane t reads s[t + 16] (etc.) while lane t + 16 is rewriting it, with neither a barrier nor a syncwarp; since Volta a warp has no lockstep and racecheck reports the shared-memory hazard on every block, whatever the size.",
    ),
    # ------------------------------------------------------------------ correct but off the brief
    "hoi10_block_sum_every_thread_atomic_on_shared_scalar": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    total = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t == 0:
        total[0] = float32(0.0)
    cuda.syncthreads()
    if i < x.size:
        cuda.atomic.add(total, 0, x[i])  # float atomics in shared memory: no tree needed
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = total[0]
''',
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        reason="atomics",
        why="Correct sums (float atomics add in some order, within tolerance), but every thread of the block sends its atomic to the one shared word total[0]: 128 atomics on one address where the guide allows TPB / 32 = 4.",
    ),
    "hoi10_hist_shared_per_warp_rows_flushed_separately": dict(
        exercise="07_histogram",
        part="histogram_shared",
        extra_cells=["WARPS = TPB // 32  # one private histogram row per warp"],
        kernel='''
@cuda.jit
def histogram_shared(values, hist):
    # one sub-histogram per warp: a warp's atomics only contend with its own lanes
    s = cuda.shared.array((WARPS, BINS), int32)
    t = cuda.threadIdx.x
    w = t // 32
    j = t
    while j < WARPS * BINS:
        s[j // BINS, j % BINS] = 0
        j += TPB
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, (w, v), 1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        for row in range(WARPS):
            c = s[row, b]
            if c != 0:
                cuda.atomic.add(hist, b, c)
''',
        fail=["atomics"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="atomics",
        why="Counts are right, but each warp's row is flushed on its own, so hist[b] receives up to WARPS = 4 global atomics per block (16 with 4 blocks) instead of at most one per block: the privatisation criterion's contention <= BLOCKS fails on uniform and skewed streams.",
    ),
    "hoi10_exp_sum_lane_pulls_31_shuffles": dict(
        exercise="11_softmax",
        part="exp_sum",
        extra_cells=["WARPS = TPB // 32  # warps per block"],
        kernel='''
@cuda.jit
def exp_sum(x, m, e, s):
    ws = cuda.shared.array(WARPS, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    lane = t % 32
    mr = m[r]
    part = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        v = math.exp(x[r, c] - mr)
        e[r, c] = v
        part += v
    # lane 0 collects its warp's partial sums straight from the registers
    warp_total = part
    for src in range(1, 32):
        other = cuda.shfl_sync(0xFFFFFFFF, part, src)
        if lane == 0:
            warp_total += other
    if lane == 0:
        ws[t // 32] = warp_total
    cuda.syncthreads()
    if t == 0:
        acc = float32(0.0)
        for k in range(WARPS):
            acc += ws[k]
        s[r] = acc
''',
        fail=["parallel"],
        passes=["public", "hidden", "sync"],
        reason="shuffles",
        why="Right sums, but every thread executes 31 shuffles so that lane 0 can walk its warp's values one at a time: 31 per TPB columns where the guide allows 22, on every row of at most 128 columns.",
    ),
}

"""Blind submissions for exercises 05, 07, 08, 10 and 11, aimed at warp-level operations and races that only some schedules expose, written from the student notebooks and INSTRUCTOR.md only."""

CASES = {
    # ------------------------------------------------------------------ 05_reduction
    "hoe6_reduction_tree_to_32_then_shfl": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit(device=True)
def warp_total(v):
    # shuffles on registers: after offsets 16..1 lane 0 holds the sum of the warp
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    return v


@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    # shared-memory tree only until 32 values are left ...
    stride = TPB // 2
    while stride >= 32:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    # ... then the whole of warp 0 (all 32 lanes take this branch) finishes in registers
    if t < 32:
        total = warp_total(s[t])
        if t == 0:
            partial[cuda.blockIdx.x] = total
''',
        full=True,
    ),
    "hoe6_reduction_butterfly_war_race": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    s[t] = v
    cuda.syncthreads()
    # butterfly (xor) all-reduce: every thread ends with the block's sum,
    # one barrier per level
    h = 1
    while h < TPB:
        v += s[t ^ h]
        s[t] = v
        cuda.syncthreads()
        h *= 2
    if t == 0:
        partial[cuda.blockIdx.x] = v
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="At each level thread t writes s[t] while its partner t^h is still reading s[t] for the "
            "same level (write-after-read with no barrier between the read and the write); for "
            "h = 32 and 64 the partner is in another warp, so on a GPU a warp that runs ahead "
            "overwrites s[t] before the partner reads it and the partner adds an already-summed "
            "value (racecheck reports a WAR hazard on every size).",
    ),
    "hoe6_reduction_all_threads_atomic_one_shared_word": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    acc = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t == 0:
        acc[0] = float32(0.0)
    cuda.syncthreads()
    # no tree needed: the shared-memory atomic adds are safe
    if i < x.size:
        cuda.atomic.add(acc, 0, x[i])
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = acc[0]
''',
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        reason="atomic",
        why="Correct sums, but all 128 threads of a block send an atomic to the same shared word "
            "acc[0], so they run one after another: the guide allows at most TPB/32 = 4 atomics "
            "on one element of a shared array.",
    ),
    # ------------------------------------------------------------------ 07_histogram
    "hoe6_histglobal_match_any_warp_aggregated": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel='''
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = int32(values[i])
        if v < BINS:
            # lanes of my warp that are here now and hold the same reading
            peers = cuda.match_any_sync(cuda.activemask(), v)
            # the lowest lane of the group adds the whole group's count
            if cuda.popc(peers & cuda.lanemask_lt()) == 0:
                cuda.atomic.add(hist, v, int32(cuda.popc(peers)))
''',
        full=True,
    ),
    "hoe6_histshared_flush_without_second_barrier": dict(
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
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    # the shared adds are atomic, so the counts can be flushed straight away
    for b in range(t, BINS, TPB):
        c = s[b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
''',
        fail=["public", "hidden"],
        passes=[],
        reason="read",
        why="No barrier between the counting loop and the flush: warps 0-1 (which flush bins 0-63) "
            "read s[b] with a plain load while warps 2-3 may still be adding into it, so on a GPU "
            "the flushed counts miss the other warps' late atomics (wrong histogram whenever a "
            "block's warps do not finish counting together; with >8 values per thread always at risk).",
    ),
    "hoe6_histshared_per_warp_copies_each_flushed": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
WARPS_H = TPB // 32  # one private histogram per warp: fewer collisions on the shared atomics


@cuda.jit
def histogram_shared(values, hist):
    sub = cuda.shared.array((WARPS_H, BINS), int32)
    t = cuda.threadIdx.x
    w = t // 32
    k = t
    while k < WARPS_H * BINS:
        sub[k // BINS, k % BINS] = 0
        k += TPB
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(sub, (w, v), 1)
        i += cuda.gridsize(1)
    cuda.syncthreads()
    # flush every warp's copy
    k = t
    while k < WARPS_H * BINS:
        c = sub[k // BINS, k % BINS]
        if c > 0:
            cuda.atomic.add(hist, k % BINS, c)
        k += TPB
''',
        fail=["atomics"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="atomic",
        why="Correct counts, but each block flushes its four per-warp copies separately, so a bin "
            "that all four warps saw receives 4 global atomics per block (16 in all, not <= BLOCKS = 4): "
            "the privatisation does not cut the global traffic as the atomics criterion requires.",
    ),
    # ------------------------------------------------------------------ 08_scan
    "hoe6_scan_blelloch_syncwarp_when_only_warp0_works": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    s[t] = v
    cuda.syncthreads()
    # up-sweep: level d uses threads t < TPB // (2 d). Once that and the next level fit
    # in warp 0, a warp barrier orders its lanes (every warp calls it, warps 1-3 for nothing)
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        if TPB // (2 * d) > 32:
            cuda.syncthreads()
        else:
            cuda.syncwarp()
        d *= 2
    # thread 0 did the last up-sweep step, so it can read the total and clear it
    if t == 0:
        block_sums[cuda.blockIdx.x] = s[TPB - 1]
        s[TPB - 1] = float32(0.0)
    cuda.syncwarp()
    # down-sweep: after level d the next level (d / 2) uses threads t < TPB // d
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        if TPB // d > 32:
            cuda.syncthreads()
        else:
            cuda.syncwarp()
        d //= 2
    if i < x.size:
        out[i] = s[t] + v
''',
        full=True,
    ),
    "hoe6_scan_blelloch_warp0_levels_without_syncwarp": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    s[t] = v
    cuda.syncthreads()
    # up-sweep. When at most 32 threads work they are all in warp 0,
    # and a warp runs in lockstep: skip the block barrier there
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        if TPB // (2 * d) > 32:
            cuda.syncthreads()
        d *= 2
    if t == 0:
        block_sums[cuda.blockIdx.x] = s[TPB - 1]
        s[TPB - 1] = float32(0.0)
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        if TPB // d > 32:
            cuda.syncthreads()
        d //= 2
    if i < x.size:
        out[i] = s[t] + v
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="Levels d = 2..64 of the up-sweep and 64..4 of the down-sweep run in warp 0 with no "
            "barrier at all: e.g. at d = 4 lane 0 reads s[7] that lane 1 wrote at d = 2. Since Volta "
            "lanes of a warp are not in lockstep, so this is an intra-warp race (racecheck / "
            "the guide's 'within a warp too'), on every size; the fix is cuda.syncwarp().",
    ),
    "hoe6_scan_padding_left_uninitialised": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    # slots past the end are never written out, so they need no value
    if i < x.size:
        s[t] = x[i]
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        cuda.syncthreads()
        d *= 2
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = s[TPB - 1]
        s[TPB - 1] = float32(0.0)
    cuda.syncthreads()
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
        out[i] = s[t] + x[i]
''',
        fail=["hidden", "sync"],
        passes=[],
        reason="uninitialised",
        why="In the last block when n % TPB != 0 (and n = 1) the slots past the end of x are never "
            "written, so the up-sweep adds uninitialised shared memory into the tile's total: "
            "block_sums[last] is garbage (stale data of an earlier block on a GPU; initcheck flags it), "
            "while every out[i] stays right because an exclusive prefix only sums earlier slots.",
    ),
    # ------------------------------------------------------------------ 10_warp_reduce
    "hoe6_warpsum_xor_butterfly_4_lane_mask": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit(device=True)
def butterfly_sum(v, mask, width):
    # xor butterfly: every lane of the group ends with the group's sum
    off = width // 2
    while off > 0:
        v += cuda.shfl_xor_sync(mask, v, off)
        off //= 2
    return v


@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    v = x[i] if i < x.size else float32(0.0)
    v = butterfly_sum(v, FULL_MASK, 32)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    # only WARPS lanes have something to add: the mask names exactly those lanes,
    # and xor with offsets < WARPS stays inside them
    if t < WARPS:
        total = butterfly_sum(warp_sums[t], (1 << WARPS) - 1, WARPS)
        if t == 0:
            partial[cuda.blockIdx.x] = total
''',
        full=True,
    ),
    "hoe6_warpsum_ballot_mask_guarded_shfl_down": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.blockIdx.x * TPB + t
    n = x.size
    # the lanes of my warp that hold an element (a prefix of the warp)
    have = cuda.ballot_sync(FULL_MASK, i < n)
    v = float32(0.0)
    if i < n:
        v = x[i]
        off = 16
        while off > 0:
            got = cuda.shfl_down_sync(have, v, off)
            # keep it only when the source lane exists and holds an element
            if lane + off < 32 and i + off < n:
                v += got
            off //= 2
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = sums[lane] if lane < WARPS else float32(0.0)
        off = 16
        while off > 0:
            w += cuda.shfl_down_sync(FULL_MASK, w, off)
            off //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = w
''',
        full=True,
    ),
    "hoe6_warpsum_ballot_mask_unguarded_shfl_down": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.blockIdx.x * TPB + t
    n = x.size
    # mask = exactly the lanes that will be in the shuffles below
    have = cuda.ballot_sync(FULL_MASK, i < n)
    v = float32(0.0)
    if i < n:
        v = x[i]
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(have, v, off)
            off //= 2
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = sums[lane] if lane < WARPS else float32(0.0)
        off = 16
        while off > 0:
            w += cuda.shfl_down_sync(FULL_MASK, w, off)
            off //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = w
''',
        fail=["hidden", "sync"],
        passes=[],
        reason="mask",
        why="In a warp that ends inside the data (n % 32 != 0) lane l adds the value of lane l + off "
            "even when that lane is outside `have` (it skipped the branch): the programming guide "
            "says the value read from a non-participating lane is undefined, and it flows into "
            "lane 0's sum and partial[b]; whole warps are fine.",
    ),
    # ------------------------------------------------------------------ 11_softmax
    "hoe6_expsum_libdevice_2d_shared_tree": dict(
        exercise="11_softmax",
        part="exp_sum",
        kernel='''
ROWS32 = TPB // 32  # the shared tile as (warp, lane)


@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array((ROWS32, 32), float32)  # one row per warp
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    mr = m[r]
    acc = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        ev = cuda.libdevice.expf(x[r, c] - mr)
        e[r, c] = ev
        acc += ev
    row, col = t // 32, t % 32
    buf[row, col] = acc
    cuda.syncthreads()
    # tree over the flattened tile: thread t owns element t = 32 * row + col
    half = TPB // 2
    while half > 0:
        if t < half:
            j = t + half
            buf[row, col] += buf[j // 32, j % 32]
        cuda.syncthreads()
        half //= 2
    if t == 0:
        s[r] = buf[0, 0]
''',
        full=True,
    ),
    "hoe6_fused_online_xor_shuffles_one_barrier": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
NWARPS = TPB // 32


@cuda.jit(device=True)
def merge(m1, s1, m2, s2):
    # (max, sum of exp(x - max)) pairs; the larger max first
    if m2 > m1:
        m1, m2 = m2, m1
        s1, s2 = s2, s1
    if m2 == float32(-math.inf):  # nothing seen on that side (maybe on both sides)
        return m1, s1
    return m1, s1 + s2 * math.exp(m2 - m1)


@cuda.jit
def softmax_fused(x, out):
    wm = cuda.shared.array(NWARPS, float32)
    ws = cuda.shared.array(NWARPS, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    s = float32(0.0)
    c = t
    while c < cols:
        m, s = merge(m, s, x[r, c], float32(1.0))
        c += TPB
    # warp: all 32 lanes take part (lanes that saw nothing bring (-inf, 0))
    off = 16
    while off > 0:
        m2 = cuda.shfl_xor_sync(0xFFFFFFFF, m, off)
        s2 = cuda.shfl_xor_sync(0xFFFFFFFF, s, off)
        m, s = merge(m, s, m2, s2)
        off //= 2
    if t % 32 == 0:
        wm[t // 32] = m
        ws[t // 32] = s
    cuda.syncthreads()
    m = float32(-math.inf)
    s = float32(0.0)
    for w in range(NWARPS):
        m, s = merge(m, s, wm[w], ws[w])
    c = t
    while c < cols:
        out[r, c] = math.exp(x[r, c] - m) / s
        c += TPB
''',
        full=True,
    ),
    "hoe6_fused_online_tree_nan_for_short_rows": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit(device=True)
def merge(m1, s1, m2, s2):
    mm = max(m1, m2)
    return mm, s1 * math.exp(m1 - mm) + s2 * math.exp(m2 - mm)


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
        m, s = merge(m, s, x[r, c], float32(1.0))
    sm[t] = m
    ss[t] = s
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            mm, sn = merge(sm[t], ss[t], sm[t + stride], ss[t + stride])
            sm[t] = mm
            ss[t] = sn
        cuda.syncthreads()
        stride //= 2
    m = sm[0]
    s = ss[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) / s
''',
        fail=["public", "hidden"],
        passes=[],
        reason='nan',
        why="merge() of two empty pairs computes exp(-inf - (-inf)) = exp(nan), so the pair's sum "
            "becomes 0 * nan = nan; at stride 64 two empty slots meet exactly when cols < 64, and the "
            "nan then reaches slot 0: every output of such a row (single column, fewer columns than "
            "a warp) is nan, while rows of >= 64 columns are right.",
    ),
    "hoe6_fused_three_passes_over_x": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit
def softmax_fused(x, out):
    smax = cuda.shared.array(TPB, float32)
    ssum = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    # pass 1: the row's max
    m = float32(-math.inf)
    for c in range(t, cols, TPB):
        m = max(m, x[r, c])
    smax[t] = m
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            smax[t] = max(smax[t], smax[t + stride])
        cuda.syncthreads()
        stride //= 2
    m = smax[0]
    # pass 2: the sum of exp(x - max)
    acc = float32(0.0)
    for c in range(t, cols, TPB):
        acc += math.exp(x[r, c] - m)
    ssum[t] = acc
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            ssum[t] += ssum[t + stride]
        cuda.syncthreads()
        stride //= 2
    total = ssum[0]
    # pass 3: write
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) / total
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="load",
        why="Correct softmax in one kernel, but it reads every element of x three times (max pass, "
            "sum pass, write pass): 3 global loads per element where the memory criterion allows 2 "
            "(the online max/sum would merge the first two passes).",
    ),
}

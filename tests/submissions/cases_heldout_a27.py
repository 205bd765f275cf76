"""Blind set a27: CUDA's own numerics and intrinsics (fma, selp, clz, popc, match_any_sync, atomic.inc, ballot masks, float64 tiles, shift-written scans)."""

CASES = {
    # ------------------------------------------------------------------ correct
    "hob27_saxpy_fma_early_return": dict(
        exercise="01_elementwise",
        part="saxpy",
        kernel='''
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i >= out.size:
        return  # threads past the end leave before touching anything
    a = np.float32(alpha)  # cuda.fma wants three operands of one type
    out[i] = cuda.fma(a, x[i], y[i])  # alpha * x + y with a single rounding
''',
        full=True,
    ),
    "hob27_histogram_global_match_any_leader": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel='''
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        # v < 64 exactly when the top 26 of its 32 bits are clear
        if cuda.clz(int32(v)) > 25:
            # lanes holding the same code find each other ...
            peers = cuda.match_any_sync(cuda.activemask(), int32(v))
            # ... and the lowest of them adds for the whole group
            if cuda.popc(peers & cuda.lanemask_lt()) == 0:
                cuda.atomic.add(hist, v, cuda.popc(peers))
''',
        full=True,
    ),
    "hob27_block_sum_float64_tile_2d": dict(
        exercise="05_reduction",
        part="block_sum",
        extra_cells=["ROWS = TPB // 32  # the shared tile as ROWS x 32\n"],
        kernel='''
@cuda.jit
def block_sum(x, partial):
    # a float64 tile: the tree adds in double, rounded once at the end
    s = cuda.shared.array((ROWS, 32), np.float64)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    r, c = t // 32, t % 32
    s[r, c] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            j = t + stride
            s[r, c] += s[j // 32, j % 32]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0, 0]
''',
        full=True,
    ),
    "hob27_block_scan_blelloch_shifts": dict(
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
    # up-sweep: at level k the step is d = 1 << k, the slot (t + 1) * 2d - 1
    k = 0
    while (1 << k) < TPB:
        a = ((t + 1) << (k + 1)) - 1
        if a < TPB:
            s[a] += s[a - (1 << k)]
        cuda.syncthreads()
        k += 1
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = s[t]
        s[t] = 0.0
    cuda.syncthreads()
    # down-sweep: the same levels backwards (k is log2(TPB) here)
    while k > 0:
        k -= 1
        a = ((t + 1) << (k + 1)) - 1
        if a < TPB:
            left = s[a - (1 << k)]
            s[a - (1 << k)] = s[a]
            s[a] += left
        cuda.syncthreads()
    if i < x.size:
        out[i] = s[t] + v  # exclusive + own = inclusive
''',
        full=True,
    ),
    "hob27_add_block_offsets_selp_wrapped": dict(
        exercise="08_scan",
        part="add_block_offsets",
        kernel='''
@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    if i < out.size:
        # block 0 reads offsets[-1] (signed index: the last element, in range)
        # and selp throws that value away
        out[i] += cuda.selp(b > 0, offsets[b - 1], float32(0.0))
''',
        full=True,
    ),
    # ------------------------------------------------------------------ bugs
    "hob27_block_sum_warp_stage2_mask_0xf": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    lane = t % 32
    warp = t // 32
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        # only WARPS = 4 sums, held by lanes 0..3: name just those lanes
        low = (1 << WARPS) - 1
        off = WARPS // 2
        while off > 0:
            v += cuda.shfl_down_sync(low, v, off)
            off //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
''',
        fail=["masks", "sync"],
        passes=["barriers", "registers"],
        reason="mask",
        why="All 32 lanes of warp 0 execute shfl_down_sync with membermask 0xF, so lanes 4-31 run a shuffle whose mask leaves them out (undefined in PTX, on every size); lanes 0-3 only read each other, so the sums themselves come out right.",
    ),
    "hob27_block_sum_warp_ballot_mask_tail": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    lane = t % 32
    warp = t // 32
    # the mask names exactly the lanes that hold an element
    active = cuda.ballot_sync(FULL_MASK, i < x.size)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
        for off in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(active, v, off)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        for off in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(FULL_MASK, v, off)
        if lane == 0:
            partial[cuda.blockIdx.x] = v
''',
        fail=["public", "hidden", "sync"],
        passes=[],
        reason='not in its mask',
        why="In a warp that ends inside x (n=1000: 8 lanes; n=5) lane 0 shuffles from lane 16, which is not in `active`: shfl.sync from a lane outside the mask is undefined and that value reaches partial; whole warps (n=128) are fine.",
    ),
    "hob27_histogram_shared_atomic_inc_cap": dict(
        exercise="07_histogram",
        part="histogram_shared",
        extra_cells=["CAP = 3 * TPB  # a block sees at most 3 values per thread, so no private bin passes this\n"],
        kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, np.uint32)  # atomic.inc wants unsigned counters
    t = cuda.threadIdx.x
    b = t
    while b < BINS:
        s[b] = 0
        b += TPB
    cuda.syncthreads()
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.inc(s, v, CAP)  # +1, never past CAP
        i += stride
    cuda.syncthreads()
    b = t
    while b < BINS:
        c = s[b]
        if c != 0:
            cuda.atomic.add(hist, b, int32(c))
        b += TPB
''',
        fail=["hidden"],
        passes=["public", "bounds", "sync", "atomics"],
        reason="hidden",
        why="atomic.inc stores (old >= CAP) ? 0 : old + 1, so a block's bin wraps to 0 on its 385th value; public streams give at most 384 per block and bin (1500 equal values over 4 blocks), but the hidden streams with more than 8 values per thread (skewed) or a larger constant stream exceed it.",
    ),
    "hob27_block_scan_selp_load_past_end": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    # branch-free load: zero past the end of x
    v = cuda.selp(i < x.size, x[i], float32(0.0))
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:
        a = (t + 1) * 2 * d - 1
        if a < TPB:
            s[a] += s[a - d]
        cuda.syncthreads()
        d *= 2
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = s[t]
        s[t] = 0.0
    cuda.syncthreads()
    d = TPB // 2
    while d > 0:
        a = (t + 1) * 2 * d - 1
        if a < TPB:
            left = s[a - d]
            s[a - d] = s[a]
            s[a] += left
        cuda.syncthreads()
        d //= 2
    if i < x.size:
        out[i] = s[t] + v
''',
        fail=["public", "hidden", "bounds"],
        passes=[],
        reason='out-of-bounds',
        why="selp is a function, not a lazy ternary: both operands are evaluated, so x[i] is loaded for i >= n in the last block whenever n is not a multiple of TPB (n=1000, n=5); compute-sanitizer reports an invalid global read.",
    ),
    "hob27_block_sum_count_guard_off_by_one": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    start = cuda.blockIdx.x * TPB
    valid = min(TPB, x.size - start)  # elements this block really has
    if t < valid:
        s[t] = x[start + t]  # no zero padding: the tree skips what is not there
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride and t + stride <= valid:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
''',
        fail=["sync"],
        passes=[],
        reason="uninitialised",
        why="In a partial last block (n=1000: valid=104; n=5) the guard `<= valid` lets thread valid-stride read s[valid], a shared slot nobody wrote; initcheck reports it and the garbage reaches partial. Full blocks never read past 2*stride-1.",
    ),
    # ------------------------------------------------------------------ off the brief
    "hob27_block_sum_shuffle_atomics_no_shared": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    # every lane takes part, so the full mask is right even in the last block
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
    if cuda.laneid == 0:
        cuda.atomic.add(partial, cuda.blockIdx.x, v)  # 4 atomics per partial
''',
        fail=["memory"],
        passes=["public", "hidden", "sync", "parallel"],
        reason="shared",
        why="Correct sums (4 float atomics per block, order only changes rounding) but no shared-memory tree at all; the guide's memory criterion for the reduction requires shared memory to be used.",
    ),
    "hob27_block_scan_hillis_steele_shifts": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    acc = float32(0.0)
    if i < x.size:
        acc = x[i]
    s[t] = acc
    cuda.syncthreads()
    k = 0
    while (1 << k) < TPB:
        d = 1 << k
        add = float32(0.0)
        if t >= d:
            add = s[t - d]
        cuda.syncthreads()  # everyone has read before anyone writes
        acc += add
        s[t] = acc
        cuda.syncthreads()
        k += 1
    if i < x.size:
        out[i] = acc
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = acc
''',
        fail=["work"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="work",
        why="Hillis-Steele with a register and two barriers per level: right and race-free, but it rewrites the tile at each of the 7 levels, the O(n log n) scan the work criterion is defined to reject.",
    ),
}

"""Held-out set a15: multi-phase block algorithms (scans, privatised histograms, tree reductions and their barriers), written blind from the student notebooks and INSTRUCTOR.md."""

CASES = {
    # ------------------------------------------------------------------ 08_scan, correct
    "hop15_scan_warp_shfl_up_then_warp_totals": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
WARP = 32
NWARPS = TPB // WARP  # 4 warps per block


@cuda.jit
def block_scan(x, out, block_sums):
    totals = cuda.shared.array(NWARPS, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    lane, w = t % WARP, t // WARP
    v = float32(0)
    if i < x.size:
        v = x[i]
    # 1) inclusive scan of my warp's 32 values, in registers
    d = 1
    while d < WARP:
        below = cuda.shfl_up_sync(0xFFFFFFFF, v, d)
        if lane >= d:
            v += below
        d <<= 1
    if lane == WARP - 1:
        totals[w] = v
    cuda.syncthreads()
    # 2) warp 0 scans the warp totals; all 32 lanes take part in the shuffles
    if w == 0:
        tot = float32(0)
        if lane < NWARPS:
            tot = totals[lane]
        d = 1
        while d < NWARPS:
            below = cuda.shfl_up_sync(0xFFFFFFFF, tot, d)
            if lane >= d:
                tot += below
            d <<= 1
        if lane < NWARPS:
            totals[lane] = tot
    cuda.syncthreads()
    # 3) add everything the warps before mine hold
    if w > 0:
        v += totals[w - 1]
    if i < x.size:
        out[i] = v
    if t == TPB - 1:
        block_sums[b] = v
''',
        full=True,
    ),
    "hop15_scan_blelloch_reversed_thread0_owns_root": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    tile = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * TPB
    n = x.shape[0]
    own = x[base + t] if base + t < n else float32(0)
    tile[t] = own
    cuda.syncthreads()
    # up-sweep, nodes numbered from the right: thread t owns k = TPB-1 - 2*d*t
    d = 1
    while d < TPB:
        if t < TPB // (2 * d):
            k = TPB - 1 - 2 * d * t
            tile[k] += tile[k - d]
        cuda.syncthreads()
        d *= 2
    # thread 0 owns the root, so it saves the total, clears the root and also
    # takes the first down-sweep step: no barrier needed in between
    if t == 0:
        block_sums[cuda.blockIdx.x] = tile[TPB - 1]
        tile[TPB - 1] = 0
    d = TPB // 2
    while d >= 1:
        if t < TPB // (2 * d):
            k = TPB - 1 - 2 * d * t
            left = tile[k - d]
            tile[k - d] = tile[k]
            tile[k] += left
        cuda.syncthreads()
        d //= 2
    if base + t < n:
        out[base + t] = tile[t] + own  # exclusive + own = inclusive
''',
        full=True,
    ),
    # ------------------------------------------------------------------ 07_histogram, correct
    "hop15_hist_shared_warp_subhists_2d_merged": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
SUBS = TPB // 32  # one private sub-histogram per warp


@cuda.jit
def histogram_shared(values, hist):
    sub = cuda.shared.array((SUBS, BINS), int32)
    t = cuda.threadIdx.x
    w = t // 32
    # zero all SUBS * BINS counters, TPB at a time (works whatever BINS is)
    j = t
    while j < SUBS * BINS:
        sub[j // BINS, j % BINS] = 0
        j += TPB
    cuda.syncthreads()
    i, stride = cuda.grid(1), cuda.gridsize(1)
    n = values.size
    while i < n:
        v = int32(values[i])
        if v < BINS:
            cuda.atomic.add(sub, (w, v), 1)  # contends only inside my warp
        i += stride
    cuda.syncthreads()
    # merge the warps' copies: one global atomic per bin and block
    for k in range(t, BINS, TPB):
        c = int32(0)
        for r in range(SUBS):
            c += sub[r, k]
        if c != 0:
            cuda.atomic.add(hist, k, c)
''',
        full=True,
    ),
    "hop15_hist_global_match_any_leader": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel='''
@cuda.jit(device=True)
def bin_of(values, i):
    # the bin of values[i], or -1 when there is nothing to count
    if i < values.size:
        v = int32(values[i])
        if v < BINS:
            return v
    return int32(-1)


@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    lane = cuda.threadIdx.x % 32
    key = bin_of(values, i)
    # no thread leaves early, so every lane of the warp is here: full mask
    peers = cuda.match_any_sync(0xFFFFFFFF, key)
    lower = peers & ((1 << lane) - 1)  # lanes of my group below me
    if key >= 0 and lower == 0:  # the first lane of each group adds for all of it
        cuda.atomic.add(hist, key, int32(cuda.popc(peers)))
''',
        full=True,
    ),
    # ------------------------------------------------------------------ 05_reduction, correct
    "hop15_reduce_unpadded_tree_guarded_by_count": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * TPB
    cnt = min(TPB, x.size - base)  # elements this block really has
    if t < cnt:
        sh[t] = x[base + t]
    # no zero padding: the tree never reads a slot >= cnt (those would add 0)
    s = TPB >> 1
    while s > 0:
        cuda.syncthreads()  # barrier at the top: the load / previous step is done
        if t < s and t + s < cnt:
            sh[t] += sh[t + s]
        s >>= 1
    if t == 0:
        partial[cuda.blockIdx.x] = sh[0]  # thread 0 wrote sh[0] last itself
''',
        full=True,
    ),
    # ------------------------------------------------------------------ bugs
    "hop15_reduce_warp_unroll_without_syncwarp": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    s = TPB // 2
    while s > 32:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    # the last warp runs in lockstep, so no barrier is needed (classic unroll)
    if t < 32:
        sh[t] += sh[t + 32]
        sh[t] += sh[t + 16]
        sh[t] += sh[t + 8]
        sh[t] += sh[t + 4]
        sh[t] += sh[t + 2]
        sh[t] += sh[t + 1]
    if t == 0:
        partial[cuda.blockIdx.x] = sh[0]
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="Volta+ has no warp lockstep: in `sh[t] += sh[t + 16]` (and the later steps) lane t reads "
            "sh[t+16] while lane t+16 writes it with no syncwarp; racecheck reports the shared "
            "hazard at every size, and the sum of any block can come out wrong under independent "
            "thread scheduling.",
    ),
    "hop15_scan_warp_totals_full_mask_inside_branch": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
WARP = 32
NWARPS = TPB // WARP


@cuda.jit
def block_scan(x, out, block_sums):
    totals = cuda.shared.array(NWARPS, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    lane, w = t % WARP, t // WARP
    v = float32(0)
    if i < x.size:
        v = x[i]
    d = 1
    while d < WARP:
        below = cuda.shfl_up_sync(0xFFFFFFFF, v, d)
        if lane >= d:
            v += below
        d <<= 1
    if lane == WARP - 1:
        totals[w] = v
    cuda.syncthreads()
    # only the NWARPS lanes that hold a total scan them
    if t < NWARPS:
        tot = totals[t]
        d = 1
        while d < NWARPS:
            below = cuda.shfl_up_sync(0xFFFFFFFF, tot, d)
            if t >= d:
                tot += below
            d <<= 1
        totals[t] = tot
    cuda.syncthreads()
    if w > 0:
        v += totals[w - 1]
    if i < x.size:
        out[i] = v
    if t == TPB - 1:
        block_sums[b] = v
''',
        fail=["sync"],
        passes=[],
        reason="mask",
        why="the totals' shfl_up_sync runs inside `if t < NWARPS` (lanes 0-3 of warp 0) but its mask "
            "0xFFFFFFFF names lanes 4-31, which wait at the next syncthreads and never reach it: "
            "on sm_70+ shfl.sync waits for every non-exited lane of its mask while lanes 4-31 wait at the "
            "barrier for lanes 0-3, so every launch can deadlock (undefined by the spec); the mask "
            "should be (1 << NWARPS) - 1.",
    ),
    "hop15_scan_blelloch_root_clear_without_barrier": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    tile = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    mine = float32(0)
    if i < x.size:
        mine = x[i]
    tile[t] = mine
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            tile[k] += tile[k - d]
        cuda.syncthreads()
        d *= 2
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = tile[TPB - 1]
        tile[TPB - 1] = 0
    # the up-sweep's last barrier already separates the two phases
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = tile[k - d]
            tile[k - d] = tile[k]
            tile[k] += left
        cuda.syncthreads()
        d //= 2
    if i < x.size:
        out[i] = tile[t] + mine
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="thread TPB-1 (warp 3) clears tile[TPB-1] while thread 0 (warp 0) reads and rewrites "
            "tile[TPB-1] in the first down-sweep step (d=64) with no barrier between: racecheck "
            "flags it for every size, and if warp 0 runs first the tile total leaks into every "
            "prefix of the upper half.",
    ),
    "hop15_hist_shared_flush_before_final_barrier": dict(
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
    step = cuda.gridsize(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
        i += step
    # each thread publishes the bins it zeroed itself, so no barrier is needed here
    for b in range(t, BINS, TPB):
        c = s[b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
''',
        fail=["public", "hidden"],
        passes=[],
        reason="read",
        why="no barrier between counting and the flush: thread b reads s[b] while other warps of its "
            "block may still be adding into it (every thread counts into every bin), so on a GPU "
            "the counts of late warps are lost whenever a thread has more values than another "
            "(all sizes here, worst for the all-equal stream); a plain read racing only with "
            "atomics, which the guide says shows in the outputs.",
    ),
    "hop15_reduce_unpadded_tree_checks_left_only": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * TPB
    cnt = min(TPB, x.size - base)
    if t < cnt:
        sh[t] = x[base + t]  # the slots past the end are never used... (they are)
    s = TPB >> 1
    while s > 0:
        cuda.syncthreads()
        if t < s and t < cnt:  # only threads that own an element work
            sh[t] += sh[t + s]
        s >>= 1
    if t == 0:
        partial[cuda.blockIdx.x] = sh[0]
''',
        fail=["sync"],
        passes=[],
        reason="uninitialised",
        why="for a block with fewer than TPB elements (n=1000's last block, n=5, any n not a multiple "
            "of 128) threads t < cnt read sh[t+s] >= cnt, which nobody wrote: shared-memory garbage "
            "(on a GPU often a previous block's tile) enters that block's partial; sizes that are "
            "whole multiples of TPB come out right.",
    ),
    # ------------------------------------------------------------------ off the brief
    "hop15_scan_hillis_steele_two_buffers": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    buf = cuda.shared.array((2, TPB), float32)  # ping-pong buffers
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[0, t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    src = 0
    d = 1
    while d < TPB:
        v = buf[src, t]
        if t >= d:
            v += buf[src, t - d]
        buf[1 - src, t] = v
        cuda.syncthreads()  # one barrier per step is enough with two buffers
        src = 1 - src
        d *= 2
    if i < x.size:
        out[i] = buf[src, t]
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = buf[src, t]
''',
        fail=["work"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="work",
        why="correct double-buffered Hillis-Steele (one barrier per step suffices with ping-pong), "
            "but about 25 memory accesses and 8 shared stores per element per block, over the work "
            "budget of 16 and 5.",
    ),
    "hop15_hist_shared_each_warp_flushes": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
SUBS = TPB // 32  # one private sub-histogram per warp


@cuda.jit
def histogram_shared(values, hist):
    sub = cuda.shared.array((SUBS, BINS), int32)
    t = cuda.threadIdx.x
    lane = t % 32
    w = t // 32
    for k in range(lane, BINS, 32):
        sub[w, k] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < values.size:
        v = int32(values[i])
        if v < BINS:
            cuda.atomic.add(sub, (w, v), 1)
        i += cuda.gridsize(1)
    cuda.syncthreads()
    # every warp publishes its own copy
    for k in range(lane, BINS, 32):
        c = sub[w, k]
        if c != 0:
            cuda.atomic.add(hist, k, c)
''',
        fail=["atomics"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="atomic",
        why="correct counts, but each of the 4 warps flushes its own sub-histogram, so a bin gets up "
            "to 4 global atomics per block (16 over the grid's 4 blocks) instead of at most one per "
            "block; visible on any stream where every warp sees the bin (all-equal, dense uniform).",
    ),
}

"""Blind set a32: synchronisation without warp lockstep: syncwarp masks, warp collectives, shared arrays reused, privatised histograms, barriers in branches"""

# Conventions of this file
# * Every kernel text replaces the exercise's stub cell; constants it needs (SUMS_MASK, SUBS)
#   sit above the kernel in the same cell and are computed from the exercise's own constants.
# * A case whose public cases fail loses every quality criterion as well (INSTRUCTOR.md: the
#   quality criteria are awarded only to a kernel that passes its public cases), so those
#   cases list the failing cause next to public and hidden and name no passing criterion.
# * "why" states the GPU behaviour; the race / mask arithmetic is written out in it.
#
# Points of INSTRUCTOR.md found unclear, and the cases left out because of them:
# * A collective whose mask names lanes that skipped the branch and have only a return left.
#   INSTRUCTOR.md: "a thread whose code left is only a return exits at once" and "a lane that
#   has exited may be named"; exercise 10's notebook calls the full mask under
#   `if t < WARPS:` (the write of partial inside the same branch) a broken mask. Left out.
# * A partial mask (0xF) with shfl_down offsets 2, 1: lanes 2 and 3 read lanes 4 and 5,
#   outside the mask, and discard the value. INSTRUCTOR.md's `sync` keeps the point for a
#   discarded value and its `masks` only asks that the mask name the arriving lanes, but
#   exercise 10's notebook says `masks` reports a shuffle that "reads a lane its mask leaves
#   out". Left out; the full-marks partial-mask case below uses shfl_xor, whose partners stay
#   inside the mask.
# * A privatised histogram flushed with no barrier after the counting loop (a plain read of
#   s[b] racing only with shared atomics): INSTRUCTOR.md says such a read is no `sync`
#   finding and "sees a value the element held, maybe an old one"; whether the grader must
#   hand it the old value (so that public fails) is not stated. Left out.
# * The "last block done" pattern (threadfence + atomic ticket): none of the graded kernels
#   of 05/07/08/09/10/11 has a spare global word for the ticket: every argument is an input
#   or an output the grader compares, and a block-level result is all their contracts ask,
#   so no case uses it.

CASES = {}

# ---------------------------------------------------------------------------------------
# 05_reduction: block_sum  (public 2, hidden 2, sync 2, parallel 1, memory 1)
# ---------------------------------------------------------------------------------------

CASES["hog32_reduce_tail_syncwarp_masks_name_writers"] = dict(
    exercise="05_reduction",
    part="block_sum",
    kernel='''
@cuda.jit
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    sh[t] = v
    cuda.syncthreads()
    s = TPB // 2
    while s >= 32:  # steps whose partners sit in another warp: the whole block waits
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    if t < 32:  # warp 0 finishes alone: s = 16, 8, 4, 2, 1
        while s > 0:
            # lanes < 2 s wrote the values this step reads (and lanes < s read them):
            # exactly those lanes meet, so the mask shrinks with the tree
            if t < 2 * s:
                cuda.syncwarp(0xFFFFFFFF >> (32 - 2 * s))
            if t < s:
                sh[t] += sh[t + s]
            s //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = sh[0]
''',
    fail=["parallel"],
    passes=["public", "hidden", "sync"],  # only a whole-warp syncwarp ends a stretch (INSTRUCTOR.md)
    reason="between two barriers",
)

CASES["hog32_reduce_tail_syncwarp_masks_only_readers"] = dict(
    exercise="05_reduction",
    part="block_sum",
    kernel='''
@cuda.jit
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    sh[t] = v
    cuda.syncthreads()
    s = TPB // 2
    while s >= 32:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    if t < 32:
        while s > 0:
            if t < s:
                # only the lanes that add in this step wait for each other
                cuda.syncwarp(0xFFFFFFFF >> (32 - s))
                sh[t] += sh[t + s]
            s //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = sh[0]
''',
    fail=["public", "hidden", "sync"],
    passes=[],
    reason="race",
    why="At s = 8 lanes 0-7 meet at syncwarp(0xFF) and read sh[8..15], which lanes 8-15 "
        "wrote in the s = 16 step after their own syncwarp(0xFFFF); lanes 8-15 are not in "
        "mask 0xFF, so nothing orders that write before the read (same at s = 4, 2, 1: the "
        "writers t + s are never in the readers' mask): with independent thread scheduling "
        "lane 0 can read sh[8] before lane 8 added sh[24] into it, so partial[b] misses "
        "values in every block, for every n; run lane after lane it gives the right sums.",
)

# ---------------------------------------------------------------------------------------
# 10_warp_reduce: block_sum_warp  (public 2, hidden 2, sync 1, parallel 1, masks 1,
#                                  barriers 1, registers 1)
# ---------------------------------------------------------------------------------------

CASES["hog32_warpreduce_partial_mask_xor_four_lanes"] = dict(
    exercise="10_warp_reduce",
    part="block_sum_warp",
    kernel='''
SUMS_MASK = (1 << WARPS) - 1  # lanes 0 .. WARPS - 1 of warp 0: the lanes holding a warp sum


@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    offset = 16
    while offset > 0:  # every lane of every warp takes part, 0.0 past the end
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0 and lane < WARPS:
        # only WARPS lanes take part, and the mask names exactly them; a butterfly over
        # offsets WARPS/2 .. 1 keeps every partner lane ^ offset inside the mask
        w = warp_sums[lane]
        offset = WARPS // 2
        while offset > 0:
            w += cuda.shfl_xor_sync(SUMS_MASK, w, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = w
''',
    full=True,
)

CASES["hog32_warpreduce_partial_mask_reads_lane16"] = dict(
    exercise="10_warp_reduce",
    part="block_sum_warp",
    kernel='''
SUMS_MASK = (1 << WARPS) - 1  # lanes 0 .. WARPS - 1 of warp 0


@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = warp_sums[lane] if lane < WARPS else float32(0.0)
        if lane < WARPS:  # only these lanes hold a warp sum, so only they shuffle
            offset = 16
            while offset > 0:  # the same five steps as the first stage
                w += cuda.shfl_down_sync(SUMS_MASK, w, offset)
                offset //= 2
            if lane == 0:
                partial[cuda.blockIdx.x] = w
''',
    fail=["public", "hidden", "masks", "sync"],
    passes=[],
    reason="mask",
    why="The second stage runs on lanes 0-3 with mask 0xF but keeps offsets 16, 8, 4: lane 0 "
        "reads lane 16, then lane 8, then lane 4, all outside the mask (they hold 0.0 in "
        "their registers, so a lane-by-lane run gives the right sum), which is undefined on "
        "a GPU and flows into lane 0's sum and partial[b] in every block of every case.",
)

# ---------------------------------------------------------------------------------------
# 08_scan: block_scan  (public 1, hidden 1, bounds 1, sync 1, parallel 1, work 1)
# ---------------------------------------------------------------------------------------

CASES["hog32_scan_blelloch_warp0_levels_syncwarp"] = dict(
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
    # up-sweep, d = 1: threads 0 .. TPB/2 - 1, two warps
    if t < TPB // 2:
        k = 2 * t + 1
        s[k] += s[k - 1]
    cuda.syncthreads()
    # every later level (d >= 2) only has threads t < TPB / (2 d) <= 32 working, all in
    # warp 0, and reads only what warp 0 wrote: a full-warp syncwarp orders them
    if t < 32:
        d = 2
        while d < TPB:
            k = (t + 1) * 2 * d - 1
            if k < TPB:
                s[k] += s[k - d]
            cuda.syncwarp()
            d *= 2
        if t == 0:
            s[TPB - 1] = 0  # clear the root (the total comes back at the last thread)
        cuda.syncwarp()
        d = TPB // 2
        while d > 1:
            k = (t + 1) * 2 * d - 1
            if k < TPB:
                left = s[k - d]
                right = s[k]
                s[k - d] = right
                s[k] = right + left
            cuda.syncwarp()
            d //= 2
    cuda.syncthreads()
    # down-sweep, d = 1: two warps again
    if t < TPB // 2:
        k = 2 * t + 1
        left = s[k - 1]
        right = s[k]
        s[k - 1] = right
        s[k] = right + left
    cuda.syncthreads()
    incl = s[t] + v  # exclusive prefix + own value
    if i < x.size:
        out[i] = incl
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = incl
''',
    full=True,
)

CASES["hog32_scan_blelloch_warp0_levels_lockstep"] = dict(
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
    if t < TPB // 2:
        k = 2 * t + 1
        s[k] += s[k - 1]
    cuda.syncthreads()
    # from d = 2 on only warp 0 works: a warp executes together, so no barrier is needed
    if t < 32:
        d = 2
        while d < TPB:
            k = (t + 1) * 2 * d - 1
            if k < TPB:
                s[k] += s[k - d]
            d *= 2
        if t == 0:
            s[TPB - 1] = 0
        d = TPB // 2
        while d > 1:
            k = (t + 1) * 2 * d - 1
            if k < TPB:
                left = s[k - d]
                right = s[k]
                s[k - d] = right
                s[k] = right + left
            d //= 2
    cuda.syncthreads()
    if t < TPB // 2:
        k = 2 * t + 1
        left = s[k - 1]
        right = s[k]
        s[k - 1] = right
        s[k] = right + left
    cuda.syncthreads()
    incl = s[t] + v  # exclusive prefix + own value
    if i < x.size:
        out[i] = incl
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = incl
''',
    fail=["public", "hidden", "sync"],
    passes=[],
    reason="race",
    why="Warp 0's levels d = 2 .. 64 of the up-sweep and 64 .. 2 of the down-sweep have no "
        "syncwarp: at d = 4 lane 1 reads s[11] and s[15], written at d = 2 by lanes 2 and 3, "
        "and at d = 32 of the down-sweep lane 1 reads s[127], which lane 0 rewrote at "
        "d = 64; since Volta the "
        "lanes of a warp are not in lockstep, so these reads can see values from before the "
        "previous level and every block's scan and total come out wrong (a sequential run "
        "of the threads gives the right prefix sums).",
)

# ---------------------------------------------------------------------------------------
# 07_histogram: histogram_shared  (public 1, hidden 1, bounds 1, sync 1, parallel 1,
#                                   atomics 2)
# ---------------------------------------------------------------------------------------

CASES["hog32_hist_per_warp_copies_syncwarp_zeroing"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
SUBS = TPB // 32  # one private histogram per warp


@cuda.jit
def histogram_shared(values, hist):
    sub = cuda.shared.array((SUBS, BINS), int32)
    t = cuda.threadIdx.x
    warp = t // 32
    lane = t % 32
    for b in range(lane, BINS, 32):  # each warp zeroes its own copy ...
        sub[warp, b] = 0
    cuda.syncwarp()  # ... and only its own lanes count into it
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(sub, (warp, v), 1)
    cuda.syncthreads()  # thread b now reads bin b of every warp's copy
    for b in range(t, BINS, TPB):
        c = 0
        for w in range(SUBS):
            c += sub[w, b]
        if c > 0:
            cuda.atomic.add(hist, b, c)
''',
    full=True,
)

CASES["hog32_hist_zeroing_without_barrier"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0
    # each thread has zeroed its own bin, so the counting can start right away
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        if s[b] > 0:
            cuda.atomic.add(hist, b, s[b])
''',
    fail=["public", "hidden", "sync"],
    passes=[],
    reason="race",
    why="Bin b is zeroed by thread b (warps 0 and 1) with a plain store while every thread "
        "of the block may already be adding to it with a shared atomic: no barrier separates "
        "them, so on a GPU warp 2 can count into bin 40 before thread 40 zeroes it (the count "
        "is wiped) or add to the garbage shared memory starts with; INSTRUCTOR.md counts a "
        "plain write racing with an atomic as a race, in every case where a bin is hit by a "
        "thread other than its zeroing thread (all public cases).",
)

CASES["hog32_hist_match_any_leaders_plain_add"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
SUBS = TPB // 32  # one private histogram per warp


@cuda.jit
def histogram_shared(values, hist):
    sub = cuda.shared.array((SUBS, BINS), int32)
    t = cuda.threadIdx.x
    warp = t // 32
    lane = t % 32
    for b in range(lane, BINS, 32):
        sub[warp, b] = 0
    cuda.syncwarp()
    n = values.size
    base = cuda.blockIdx.x * TPB + warp * 32  # the 32 lanes walk the stream together
    while base < n:
        i = base + lane
        b = BINS  # past the end: no bin
        if i < n:
            b = values[i]
        peers = cuda.match_any_sync(0xFFFFFFFF, b)
        if b < BINS and lane == cuda.ffs(peers) - 1:
            # one leader per distinct bin, so no two lanes add to one counter here
            sub[warp, b] += cuda.popc(peers)
        base += cuda.gridsize(1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        c = 0
        for w in range(SUBS):
            c += sub[w, b]
        if c > 0:
            cuda.atomic.add(hist, b, c)
''',
    fail=["public", "hidden", "sync"],
    passes=[],
    reason="race",
    why="The per-warp counters are updated with a plain read-modify-write by each bin's "
        "leader, and from one loop iteration to the next a different lane can lead the same "
        "bin (uniform data: lane 3 leads bin 17 now, lane 0 next time) while only "
        "match_any_sync lies between them, which orders no memory (CUDA guide: the vote and "
        "match intrinsics imply no memory barrier; a syncwarp() at the end of each iteration "
        "would); the new leader can read the count from before the old leader's store and "
        "lose it. A sequential run gives the right counts; constant data (lane 0 always "
        "leads) does not race, uniform and skewed data do.",
)

# ---------------------------------------------------------------------------------------
# 11_softmax: softmax_fused  (public 2, hidden 2, bounds 1, sync 1, parallel 1, memory 2)
# ---------------------------------------------------------------------------------------

CASES["hog32_softmax_fused_reuses_tree_without_barrier"] = dict(
    exercise="11_softmax",
    part="softmax_fused",
    kernel='''
@cuda.jit
def softmax_fused(x, out):
    sh = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)  # one pass: running max and running sum of exp(x - max)
    s = float32(0.0)
    for c in range(t, cols, TPB):
        v = x[r, c]
        if v > m:
            s = s * math.exp(m - v) + float32(1.0)
            m = v
        else:
            s += math.exp(v - m)
    # phase 1: the row's max
    sh[t] = m
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            sh[t] = max(sh[t], sh[t + step])
        cuda.syncthreads()
        step //= 2
    row_m = sh[0]
    # phase 2: the same array now holds each thread's sum, rescaled to the row's max
    sh[t] = s * math.exp(m - row_m)
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            sh[t] += sh[t + step]
        cuda.syncthreads()
        step //= 2
    row_s = sh[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - row_m) / row_s
''',
    fail=["sync"],
    passes=["public", "hidden", "bounds", "parallel", "memory"],  # a write-after-read race: sync only (INSTRUCTOR.md)
    reason="race",
    why="Every thread reads the max from sh[0] and thread 0 then overwrites sh[0] with its "
        "rescaled sum with no barrier between (a write-after-read race on sh[0] between "
        "thread 0 and threads 1-127): a warp that reaches row_m = sh[0] late gets thread 0's "
        "sum as the max, and its exponentials and outputs are wrong; in x 4x100 threads 1-99 "
        "own columns, so the public cases fail (a sequential run is right).",
)

# ---------------------------------------------------------------------------------------
# 09_transpose: transpose_padded (public 1, hidden 1, bounds 1, sync 1, parallel 1,
#               memory 1, conflicts 2) and transpose_tiled (public 1, hidden 1, bounds 1,
#               sync 1, parallel 1, memory 2)
# ---------------------------------------------------------------------------------------

CASES["hog32_transpose_padded_block_uniform_branches"] = dict(
    exercise="09_transpose",
    part="transpose_padded",
    kernel='''
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    r0 = cuda.blockIdx.y * TILE  # first row of a in this tile
    c0 = cuda.blockIdx.x * TILE  # first column of a in this tile
    if r0 + TILE <= rows and c0 + TILE <= cols:
        # an interior tile: the test depends on the block only, so every thread of the
        # block meets this barrier and none meets the one in the other branch
        for k in range(0, TILE, BLOCK_ROWS):
            tile[ty + k, tx] = a[r0 + ty + k, c0 + tx]
        cuda.syncthreads()
        for k in range(0, TILE, BLOCK_ROWS):
            out[c0 + ty + k, r0 + tx] = tile[tx, ty + k]
    else:
        # an edge tile: the same steps with guards
        for k in range(0, TILE, BLOCK_ROWS):
            if r0 + ty + k < rows and c0 + tx < cols:
                tile[ty + k, tx] = a[r0 + ty + k, c0 + tx]
        cuda.syncthreads()
        for k in range(0, TILE, BLOCK_ROWS):
            if c0 + ty + k < cols and r0 + tx < rows:
                out[c0 + ty + k, r0 + tx] = tile[tx, ty + k]
''',
    full=True,
)

CASES["hog32_transpose_tiled_barrier_inside_column_guard"] = dict(
    exercise="09_transpose",
    part="transpose_tiled",
    kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    r0 = cuda.blockIdx.y * TILE
    c0 = cuda.blockIdx.x * TILE
    if c0 + tx < cols:  # this thread's column of a exists
        for k in range(0, TILE, BLOCK_ROWS):
            if r0 + ty + k < rows:
                tile[ty + k, tx] = a[r0 + ty + k, c0 + tx]
        cuda.syncthreads()  # wait for the whole tile
    for k in range(0, TILE, BLOCK_ROWS):
        if c0 + ty + k < cols and r0 + tx < rows:
            out[c0 + ty + k, r0 + tx] = tile[tx, ty + k]
''',
    fail=["sync"],
    passes=["public", "hidden", "bounds"],  # a divergent barrier orders those that reach it: sync only
    reason="not reached by every thread",
    why="The barrier sits inside `if c0 + tx < cols`, so in a tile past the last column "
        "(a 40x70: block x = 2, c0 = 64, lanes tx >= 6; a 5x3: lanes tx >= 3) those threads "
        "never reach it (a divergent barrier) and go straight to the stores, where thread "
        "(tx, ty) with r0 + tx < rows reads tile[tx, ty + k], loaded by thread "
        "(ty + k, tx % 8) with no barrier between: in the 40x70 case threads tx = 6..31, "
        "ty = 0..5 store out[64 + ty, tx] from a tile row another warp may not have written "
        "yet. Only the 32x32 case, with no edge tile, is clean.",
)

"""Submissions on warp-level semantics and races on Volta and later.

Each kernel was written from the student notebook and INSTRUCTOR.md alone; it replaces the stub
cell of its notebook, after the notebook's setup cells (whose imports and constants
it uses: TPB, WARPS, FULL_MASK, BINS, float32 or int32, math).

`full=True`: a correct kernel, expected to score every point of its part.
Otherwise `fail` lists criteria that must score below their maximum and `passes` criteria that
must keep full points; `why` says what a GPU / compute-sanitizer / the PTX ISA would say.

Schedule-dependent races (right in lockstep or under some warp/block orders, wrong under
others): hos_blocksum_tail_no_syncwarp, hos_histshared_zero_without_barrier,
hos_rowmax_syncwarp_for_syncthreads, hos_histshared_plain_flush_across_blocks (and
hos_blocksum_barrier_inside_bounds_guard, right wherever exited threads release a barrier).
"""

CASES = {}

# --------------------------------------------------------------------------------------
# CORRECT kernels: warp primitives used in valid but unusual ways
# --------------------------------------------------------------------------------------

CASES["hos_scan_shfl_up_lane_guard"] = dict(
    exercise="08_scan",
    part="block_scan",
    kernel='''
SCAN_FULL = 0xFFFFFFFF
SCAN_WARPS = TPB // 32


@cuda.jit
def block_scan(x, out, block_sums):
    warp_tot = cuda.shared.array(SCAN_WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)  # past the end counts as zero
    d = 1
    while d < 32:  # inclusive scan of the warp, in registers
        up = cuda.shfl_up_sync(SCAN_FULL, v, d)
        if lane >= d:  # lanes below d got their own value back: not a neighbour's
            v += up
        d *= 2
    if lane == 31:
        warp_tot[warp] = v  # the warp's total
    cuda.syncthreads()
    # Every warp scans the SCAN_WARPS totals itself: no second barrier is needed.
    w = warp_tot[lane] if lane < SCAN_WARPS else float32(0.0)
    d = 1
    while d < SCAN_WARPS:
        up = cuda.shfl_up_sync(SCAN_FULL, w, d)
        if lane >= d:
            w += up
        d *= 2
    # lane k of w now holds the total of warps 0..k; this warp needs warps 0..warp-1
    src = warp - 1 if warp > 0 else 0
    before = cuda.shfl_sync(SCAN_FULL, w, src)
    if warp == 0:
        before = float32(0.0)
    v += before
    if i < x.size:
        out[i] = v
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = v
''',
    full=True,
)

CASES["hos_rowmax_ballot_ffs_owner_bcast"] = dict(
    exercise="11_softmax",
    part="row_max",
    kernel='''
RM_FULL = 0xFFFFFFFF
RM_WARPS = TPB // 32


@cuda.jit
def row_max(x, m):
    warp_max = cuda.shared.array(RM_WARPS, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    v = float32(-math.inf)  # a thread past a short row keeps -inf
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    best = v
    off = 16
    while off > 0:  # butterfly: every lane ends with the warp's max
        best = max(best, cuda.shfl_xor_sync(RM_FULL, best, off))
        off //= 2
    owners = cuda.ballot_sync(RM_FULL, v == best)  # the lanes that hold the max themselves
    src = cuda.ffs(owners) - 1  # the lowest of them (ffs counts from 1)
    top = cuda.shfl_sync(RM_FULL, v, src)  # the owner's own value, to every lane
    if lane == src:
        warp_max[warp] = top
    cuda.syncthreads()
    if t == 0:
        mm = warp_max[0]
        for k in range(1, RM_WARPS):
            mm = max(mm, warp_max[k])
        m[r] = mm
''',
    full=True,
)

CASES["hos_histglobal_ballot_leader_loop"] = dict(
    exercise="07_histogram",
    part="histogram_global",
    kernel='''
HG_FULL = 0xFFFFFFFF


@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    lane = cuda.threadIdx.x % 32
    key = int32(-1)  # -1: nothing to count (past the end, or a failed reading)
    if i < values.size:
        v = values[i]
        if v < BINS:
            key = int32(v)
    # Warp-aggregated atomics: every lane stays in the loop, whose trip count is the same
    # in every lane (todo is a ballot), so the full mask is always right.
    todo = cuda.ballot_sync(HG_FULL, key >= 0)
    while todo != 0:
        leader = cuda.ffs(todo) - 1
        k = cuda.shfl_sync(HG_FULL, key, leader)  # the leader's bin
        peers = cuda.ballot_sync(HG_FULL, key == k)  # every lane with that bin
        if lane == leader:
            cuda.atomic.add(hist, k, cuda.popc(peers))  # one atomic for the group
        todo &= ~peers
''',
    full=True,
)

CASES["hos_histshared_activemask_match_any"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)  # this block's private histogram
    t = cuda.threadIdx.x
    lane = t % 32
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            # Opportunistic aggregation: whichever lanes arrive here together group by value;
            # a lane that arrives alone is its own group. Correct for any grouping.
            here = cuda.activemask()
            peers = cuda.match_any_sync(here, int32(v))
            if lane == cuda.ffs(peers) - 1:  # one leader per value
                cuda.atomic.add(s, v, cuda.popc(peers))
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        count = s[b]
        if count > 0:
            cuda.atomic.add(hist, b, count)
''',
    full=True,
)

CASES["hos_warp_reduce_live_lane_mask"] = dict(
    exercise="10_warp_reduce",
    part="block_sum_warp",
    kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    # lanes of this warp that hold an element of x: 32, except in the warp where x ends
    live = x.size - (cuda.blockIdx.x * TPB + warp * 32)
    v = float32(0.0)
    if i < x.size:  # only lanes with an element shuffle; the mask names exactly them
        mask = FULL_MASK if live >= 32 else (1 << live) - 1
        v = x[i]
        offset = 16
        while offset > 0:
            other = cuda.shfl_down_sync(mask, v, offset)
            if lane + offset < live:  # a source lane outside the mask is never added
                v += other
            offset //= 2
    if lane == 0:
        warp_sums[warp] = v  # 0.0 for a warp past the end
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
''',
    full=True,
)

CASES["hos_blocksum_syncwarp_shrinking_submask"] = dict(
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
    while stride >= 32:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    # stride is 16: warp 0 finishes alone. After each step the lanes that wrote
    # (lanes < stride) sync among themselves: they are exactly the ones the next step reads.
    if t < 32:
        while stride > 0:
            if t < stride:
                s[t] += s[t + stride]
                cuda.syncwarp((1 << stride) - 1)
            stride //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = s[0]
''',
    full=True,
)

CASES["hos_blocksum_shared_atomic_flush"] = dict(
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
    cuda.syncthreads()  # the accumulator is zero before anyone adds
    if i < x.size:
        cuda.atomic.add(acc, 0, x[i])  # shared atomics on one word serialise, never race
    cuda.syncthreads()  # every add is in before the flush reads it
    if t == 0:
        partial[cuda.blockIdx.x] = acc[0]  # one plain store per block
''',
    fail=["parallel"],
    passes=["public", "hidden", "sync", "memory"],
    reason="atomics on one address run one after another",
    why="Right and race-free, but the block's TPB atomics on one shared word run one after "
    "another: the exercise asks for a tree, and INSTRUCTOR.md allows one element at most "
    "TPB / 32 atomics (one per warp).",
)

CASES["hos_offsets_exited_lanes_named_bcast"] = dict(
    exercise="08_scan",
    part="add_block_offsets",
    kernel='''
OFS_FULL = 0xFFFFFFFF


@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    if b == 0 or i >= out.size:
        return  # these threads exit; the full mask below may still name them
    lane = cuda.threadIdx.x % 32
    base = float32(0.0)
    if lane == 0:  # lane 0 is live whenever any lane of its warp is
        base = offsets[b - 1]
    base = cuda.shfl_sync(OFS_FULL, base, 0)  # read only from lane 0
    out[i] += base
''',
    full=True,
)

# --------------------------------------------------------------------------------------
# WRONG kernels
# --------------------------------------------------------------------------------------

CASES["hos_warp_stage2_return_reads_exited"] = dict(
    exercise="10_warp_reduce",
    part="block_sum_warp",
    kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if t >= WARPS:
        return  # only the threads that hold a warp sum stay; exited lanes may be named
    v = warp_sums[t]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = v
''',
    fail=["sync"],
    passes=[],
    reason="",
    why="After the barrier lanes 4..31 of warp 0 return; the second stage still shuffles with "
        "offsets 16, 8 and 4, so lanes 0..3 read registers of lanes that have exited and add "
        "them into the sum that lane 0 stores to partial. Naming exited lanes in the mask is "
        "allowed, but the value a shuffle returns from an exited (inactive) source lane is "
        "undefined (PTX shfl.sync), and here it reaches global memory. On a GPU the stale "
        "stage-1 partial sums of those lanes are likely added: wrong sums in every block.",
)

CASES["hos_warp_stage2_submask_reads_outside"] = dict(
    exercise="10_warp_reduce",
    part="block_sum_warp",
    kernel='''
STAGE2_MASK = (1 << WARPS) - 1  # exactly the lanes that run the second stage


@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0 and lane < WARPS:
        v = warp_sums[lane]
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(STAGE2_MASK, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
''',
    fail=["sync"],
    passes=[],
    reason="",
    why="The mask 0xF names exactly the four lanes that execute the second stage (so the "
        "'mask names the lanes that reach it' rule holds), but the offsets 16, 8, 4 make "
        "lanes 0..3 read lanes 16..19, 8..11, 4..7, which are outside the mask. PTX leaves "
        "that value undefined, and lane 0 adds it into the partial sum it stores. On a GPU "
        "those lanes still hold their stage-1 partial sums, which get added: wrong results.",
)

CASES["hos_expsum_full_mask_inside_branch"] = dict(
    exercise="11_softmax",
    part="exp_sum",
    kernel='''
ES_FULL = 0xFFFFFFFF
ES_WARPS = TPB // 32


@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(ES_WARPS, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    cols = x.shape[1]
    row_max = m[r]
    acc = float32(0.0)
    for c in range(t, cols, TPB):
        v = math.exp(x[r, c] - row_max)
        e[r, c] = v
        acc += v
    if t < cols:  # threads that saw no column have nothing to add
        offset = 16
        while offset > 0:
            acc += cuda.shfl_down_sync(ES_FULL, acc, offset)
            offset //= 2
    if lane == 0:
        buf[warp] = acc
    cuda.syncthreads()
    if t == 0:
        total = buf[0]
        for k in range(1, ES_WARPS):
            total += buf[k]
        s[r] = total
''',
    fail=["sync"],
    passes=[],
    reason="",
    why="For a row shorter than the block whose length is not a multiple of 32 (e.g. fewer "
        "columns than a warp, or 44 columns), the warp where the row ends splits at "
        "`if t < cols`: the lanes past the row skip the shuffles but keep running (they go on "
        "to the barrier), while the full mask names them. Every non-exited lane named in the "
        "mask must execute the same shfl.sync: undefined behaviour (it may hang), and lanes "
        "below cols read (and add) the registers of lanes that never joined. In lockstep the "
        "skipped lanes hold 0.0, so the sum often comes out right.",
)

CASES["hos_blocksum_tail_no_syncwarp"] = dict(
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
    if t < 32:  # the last warp finishes alone: its lanes run together, no barrier needed
        while stride > 0:
            if t < stride:
                s[t] += s[t + stride]
            stride //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = s[0]
''',
    fail=["sync"],
    passes=[],
    reason="race",
    why="The pre-Volta 'warp-synchronous' tail: from stride 16 down, lane t reads s[t + stride], "
        "which lane t + stride wrote in the previous step, with neither syncwarp nor a barrier "
        "between them. With independent thread scheduling there is no lockstep, so this is a "
        "read-after-write hazard inside warp 0 (racecheck reports shared-memory hazards between "
        "lanes of one warp). Right in lockstep, wrong when lane t runs ahead of lane t + stride.",
)

CASES["hos_histshared_zero_without_barrier"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0  # every thread zeroes its bins before it counts anything
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        count = s[b]
        if count > 0:
            cuda.atomic.add(hist, b, count)
''',
    fail=["sync"],
    passes=[],
    reason="",
    why="Threads 0..63 zero the private histogram with plain stores, and every thread of the "
        "block (warps 2 and 3 too) starts atomically adding into it with no barrier in "
        "between: a plain store racing with shared atomics on the same element, and an atomic "
        "on shared memory nobody has initialised yet (initcheck). When warps 2-3 count before "
        "warps 0-1 zero, counts are lost (or garbage is added); in lockstep, right.",
)

CASES["hos_rowmax_syncwarp_for_syncthreads"] = dict(
    exercise="11_softmax",
    part="row_max",
    kernel='''
RM2_FULL = 0xFFFFFFFF
RM2_WARPS = TPB // 32


@cuda.jit
def row_max(x, m):
    warp_max = cuda.shared.array(RM2_WARPS, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    v = float32(-math.inf)
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    off = 16
    while off > 0:
        v = max(v, cuda.shfl_xor_sync(RM2_FULL, v, off))
        off //= 2
    if lane == 0:
        warp_max[warp] = v
    cuda.syncwarp()  # the warp's store is done
    if t == 0:
        mm = warp_max[0]
        for k in range(1, RM2_WARPS):
            mm = max(mm, warp_max[k])
        m[r] = mm
''',
    fail=["sync"],
    passes=[],
    reason="",
    why="syncwarp orders only the lanes of one warp; thread 0 (warp 0) then reads the maxima "
        "that lane 0 of warps 1..3 store, with no syncthreads: a read-after-write race across "
        "warps (and, if warp 0 runs first, a read of shared memory nobody has written yet). "
        "If the block happens to run in lockstep the answer is right; if warp 0 gets ahead it "
        "reads stale shared memory.",
)

CASES["hos_blocksum_barrier_inside_bounds_guard"] = dict(
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
    if i < x.size:  # threads past the end have nothing to add: they skip the tree
        stride = TPB // 2
        while stride > 0:
            if t < stride:
                s[t] += s[t + stride]
            cuda.syncthreads()
            stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
''',
    fail=["sync"],
    passes=[],
    reason="barrier",
    why="In the last block (n not a multiple of TPB) the threads past the end skip the seven "
        "syncthreads() of the tree, which only part of the block reaches: a divergent barrier "
        "(undefined behaviour; synccheck reports it when the split falls inside a warp). The "
        "sums are right wherever threads that skip the barrier and exit release it, so only "
        "the barrier check can catch it.",
)

CASES["hos_histshared_plain_flush_across_blocks"] = dict(
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
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        count = s[b]
        if count > 0:  # one update per bin and block: the private copy took the contention
            hist[b] += count
''',
    fail=["sync"],
    passes=[],
    reason="",
    why="The flush is a plain read-modify-write of hist[b] from each of the BLOCKS blocks: "
        "an element written by several blocks with plain stores, nothing ordering them. "
        "If the blocks flush one after another the histogram is right (likely on a GPU, "
        "the window is tiny); if two blocks read the same old count, one block's counts are "
        "lost. Schedule-dependent, so the verdict must not depend on the order blocks run.",
)

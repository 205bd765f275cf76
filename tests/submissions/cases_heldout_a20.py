"""Held-out set a20: communication between warps and blocks and the memory model (fences and tickets, shared memory reused, atomics whose results are used), written blind from the student notebooks and INSTRUCTOR.md."""

CASES = {
    # ------------------------------------------------------------------ 05_reduction
    "hou20_reduction_last_warp_ticket_fenced": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel="""
FULL_MASK = 0xFFFFFFFF
WARPS_IN_BLOCK = TPB // 32


@cuda.jit(device=True)
def warp_total(v):
    # tree over the 32 lanes of a full warp, in registers
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
        off //= 2
    return v


@cuda.jit
def block_sum(x, partial):
    # "last block done" (threadFenceReduction), one level down: the warp that draws
    # the last ticket adds the warps' sums, so there is no second syncthreads.
    sums = cuda.shared.array(WARPS_IN_BLOCK, float32)
    ticket = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t == 0:
        ticket[0] = 0
    cuda.syncthreads()  # the counter is zero before anyone draws

    v = float32(0.0)
    if i < x.size:
        v = x[i]
    v = warp_total(v)

    if t % 32 == 0:
        sums[t // 32] = v
        cuda.threadfence_block()  # my sum is visible before my ticket is
        mine = cuda.atomic.add(ticket, 0, 1)
        if mine == WARPS_IN_BLOCK - 1:
            cuda.threadfence_block()  # acquire side: see every sum published before its ticket
            total = float32(0.0)
            for w in range(WARPS_IN_BLOCK):
                total += sums[w]
            partial[cuda.blockIdx.x] = total
""",
        extra_cells=["from numba import int32"],
        full=True,
        why="Correct under the PTX memory model: each warp leader stores its sum, fences "
        "(membar.cta) and then takes a ticket; the leader that draws the last ticket "
        "observes every earlier ticket through the atomic's RMW chain and fences before "
        "reading, so fence-fence synchronisation orders every store before its read. No "
        "barrier separates the store from the read, so a barrier-epoch race model (and "
        "possibly racecheck) would call it a race; the memory model does not.",
    ),
    "hou20_reduction_last_warp_ticket_no_fence": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel="""
FULL_MASK = 0xFFFFFFFF
WARPS_IN_BLOCK = TPB // 32


@cuda.jit
def block_sum(x, partial):
    sums = cuda.shared.array(WARPS_IN_BLOCK, float32)
    ticket = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t == 0:
        ticket[0] = 0
    cuda.syncthreads()

    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)

    if t % 32 == 0:
        sums[t // 32] = v
        # the atomic is "one indivisible operation", so whoever gets the last
        # ticket must already see everybody's sum... (no fence)
        if cuda.atomic.add(ticket, 0, 1) == WARPS_IN_BLOCK - 1:
            total = float32(0.0)
            for w in range(WARPS_IN_BLOCK):
                total += sums[w]
            partial[cuda.blockIdx.x] = total
""",
        fail=["sync"],
        passes=[],
        reason="race",
        why="Without threadfence_block the ticket is a relaxed atomic on another address: "
        "nothing orders warp w's plain store to sums[w] before the last warp's plain load "
        "of it, so the loads race with the stores (a shared-memory RAW race between "
        "warps with no barrier that racecheck reports); on hardware it almost always "
        "reads right, which is why only sync must go.",
    ),
    "hou20_reduction_every_thread_atomic_one_slot": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    # no tree at all: every thread adds its element to one shared accumulator
    acc = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    if t == 0:
        acc[0] = 0.0
    cuda.syncthreads()
    if i < x.size:
        cuda.atomic.add(acc, 0, x[i])
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = acc[0]
""",
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        reason="atomic",
        why="Outputs are right (float atomics in any order stay within 1e-4) and barriers "
        "separate init, atomics and the read, but acc[0] receives up to 128 atomics per "
        "block, which run one after another: the guide allows at most TPB/32 = 4 per "
        "shared element, so parallel is lost.",
    ),
    # ------------------------------------------------------------------ 07_histogram
    "hou20_hist_shared_per_warp_2d_bins": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel="""
SUBHISTS = TPB // 32  # one private histogram per warp: less contention on the shared atomics


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array((SUBHISTS, BINS), int32)
    t = cuda.threadIdx.x
    w = t // 32

    k = t
    while k < SUBHISTS * BINS:  # zero all four rows, TPB cells per round
        s[k // BINS, k % BINS] = 0
        k += TPB
    cuda.syncthreads()

    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, (w, v), 1)
        i += stride
    cuda.syncthreads()

    b = t
    while b < BINS:
        c = s[0, b]
        for r in range(1, SUBHISTS):
            c += s[r, b]
        if c != 0:
            cuda.atomic.add(hist, b, c)  # one global atomic per bin and block
        b += TPB
""",
        full=True,
        why="Per-warp sub-histograms in a 2-D shared array, zeroed by a strided loop, two "
        "barriers, and the flush folds the four rows so hist still receives at most one "
        "atomic per bin and block.",
    ),
    "hou20_hist_shared_fence_instead_of_barrier": dict(
        exercise="07_histogram",
        part="histogram_shared",
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
    # make every shared count visible to the block before the flush
    cuda.threadfence_block()

    for b in range(t, BINS, TPB):
        c = s[b]
        if c > 0:
            cuda.atomic.add(hist, b, c)
""",
        fail=["public", "hidden"],
        passes=[],
        reason="read",
        why="threadfence_block only orders this thread's own accesses; it does not wait for "
        "the other warps, so a warp that finishes its stride loop first reads and "
        "flushes bins that later warps are still incrementing and those counts are lost "
        "(a plain load racing with other warps' shared atomics: a data race in the PTX "
        "model, counts short on any multi-warp stream).",
    ),
    "hou20_hist_shared_flush_per_warp": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel="""
NSUB = TPB // 32


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array((NSUB, BINS), int32)
    t = cuda.threadIdx.x
    w, lane = t // 32, t % 32
    for b in range(lane, BINS, 32):  # each warp zeroes its own row
        s[w, b] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, (w, v), 1)
        i += cuda.gridsize(1)
    cuda.syncthreads()
    # each warp publishes its own row
    for b in range(lane, BINS, 32):
        c = s[w, b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
""",
        fail=["atomics"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="atomic",
        why="Counts are exact and synchronised, but each warp flushes its own row, so a bin "
        "receives up to 4 global atomics per block (16 in all, against BLOCKS = 4) "
        "whenever several warps saw it: true of every public stream.",
    ),
    # ------------------------------------------------------------------ 08_scan
    "hou20_scan_blelloch_barrier_first_tuple_swap": dict(
        exercise="08_scan",
        part="block_scan",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    mine = x[i] if i < x.size else float32(0)
    s[t] = mine

    d = 1
    while d < TPB:  # up-sweep; each step waits for the previous one first
        cuda.syncthreads()
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2
    cuda.syncthreads()  # the last up-sweep step (thread 0) before the clear (last thread)

    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = s[t]
        s[t] = 0

    d = TPB // 2
    while d > 0:  # down-sweep
        cuda.syncthreads()
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k - d], s[k] = s[k], s[k] + s[k - d]
        d //= 2
    cuda.syncthreads()

    if i < x.size:
        out[i] = s[t] + mine  # exclusive + own = inclusive
""",
        full=True,
        why="Blelloch with the barrier at the top of each step, an explicit barrier after "
        "each sweep, the down-sweep swap as one tuple assignment (right side read first) "
        "and the ternary load guard.",
    ),
    "hou20_scan_barrier_first_misses_clear": dict(
        exercise="08_scan",
        part="block_scan",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    mine = x[i] if i < x.size else float32(0)
    s[t] = mine

    d = 1
    while d < TPB:
        cuda.syncthreads()  # wait for the previous step
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2

    if t == TPB - 1:  # total out, root cleared
        block_sums[cuda.blockIdx.x] = s[t]
        s[t] = 0

    d = TPB // 2
    while d > 0:
        cuda.syncthreads()  # also orders the clear before the first down step
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k - d], s[k] = s[k], s[k] + s[k - d]
        d //= 2
    cuda.syncthreads()

    if i < x.size:
        out[i] = s[t] + mine
""",
        fail=["sync"],
        passes=[],
        reason="race",
        why="With barriers only at the top of each step, the last up-sweep step (thread 0, "
        "warp 0: s[127] += s[63]) is not separated from the clear by thread 127 (warp 3), "
        "which reads and zeroes s[127]: a RAW and WAW race racecheck reports for every "
        "block; if warp 3 wins, block_sums gets only the upper half's sum and the root "
        "keeps the total, shifting every output of the block.",
    ),
    # ------------------------------------------------------------------ 11_softmax
    "hou20_rowmax_shfl_then_shared_atomic_max": dict(
        exercise="11_softmax",
        part="row_max",
        kernel="""
ALL_LANES = 0xFFFFFFFF


@cuda.jit
def row_max(x, m):
    best = cuda.shared.array(1, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    if t == 0:
        best[0] = float32(-math.inf)

    v = float32(-math.inf)
    c = t
    while c < x.shape[1]:
        v = max(v, x[r, c])
        c += TPB

    off = 16
    while off > 0:  # warp max in registers, lane 0 ends with it
        v = max(v, cuda.shfl_down_sync(ALL_LANES, v, off))
        off //= 2

    cuda.syncthreads()  # best[0] = -inf is in before any atomic
    if t % 32 == 0:
        cuda.atomic.max(best, 0, v)  # 4 float atomics, one per warp
    cuda.syncthreads()  # every warp's max is in before the read
    if t == 0:
        m[r] = best[0]
""",
        full=True,
        why="Running max per thread, a full-mask shuffle tree per warp, then one float "
        "atomic.max per warp on a shared slot initialised to -inf, with barriers before "
        "the atomics and before the plain read.",
    ),
    "hou20_rowmax_atomic_max_into_zeroed_m": dict(
        exercise="11_softmax",
        part="row_max",
        kernel="""
@cuda.jit
def row_max(x, m):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    v = float32(-math.inf)
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    for off in (16, 8, 4, 2, 1):
        v = max(v, cuda.shfl_xor_sync(0xFFFFFFFF, v, off))
    # no shared memory, no barrier: the four warps meet in m[r] directly
    if cuda.laneid == 0:
        cuda.atomic.max(m, r, v)
""",
        fail=["hidden"],
        passes=[],
        reason="wrong",
        why="m arrives zeroed (np.zeros), so atomic.max starts from 0.0, not -inf: any row "
        "whose maximum is negative (rows offset down by up to 1000) comes out as 0.0; "
        "no sanitizer sees anything, only the values, and only for negative rows.",
    ),
    "hou20_fused_one_shared_array_reused": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    # one shared array, used twice: first for the block max, then for the rescaled sums
    sh = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]

    mx = float32(-math.inf)
    sm = float32(0.0)
    c = t
    while c < cols:  # online max and sum over my columns
        v = x[r, c]
        if v > mx:
            sm = sm * math.exp(mx - v) + float32(1.0)
            mx = v
        else:
            sm += math.exp(v - mx)
        c += TPB

    sh[t] = mx
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            sh[t] = max(sh[t], sh[t + step])
        cuda.syncthreads()
        step //= 2
    M = sh[0]
    cuda.syncthreads()  # everybody has read M before sh[0] is overwritten

    sh[t] = sm * math.exp(mx - M)  # a thread with no columns: 0 * exp(-inf) = 0
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            sh[t] += sh[t + step]
        cuda.syncthreads()
        step //= 2
    S = sh[0]

    c = t
    while c < cols:
        out[r, c] = math.exp(x[r, c] - M) / S
        c += TPB
""",
        full=True,
        why="Online (max, sum) per thread, block max by a tree, every thread rescales its "
        "sum to that max, then a sum tree in the same shared array, with the barrier "
        "between the last read of the max and the reuse: two loads and one store per "
        "element.",
    ),
    "hou20_fused_reuse_without_second_barrier": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    sh = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]

    mx = float32(-math.inf)
    sm = float32(0.0)
    c = t
    while c < cols:
        v = x[r, c]
        if v > mx:
            sm = sm * math.exp(mx - v) + float32(1.0)
            mx = v
        else:
            sm += math.exp(v - mx)
        c += TPB

    sh[t] = mx
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            sh[t] = max(sh[t], sh[t + step])
        cuda.syncthreads()
        step //= 2
    M = sh[0]
    # sh is free again: reuse it for the sums
    sh[t] = sm * math.exp(mx - M)
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            sh[t] += sh[t + step]
        cuda.syncthreads()
        step //= 2
    S = sh[0]

    c = t
    while c < cols:
        out[r, c] = math.exp(x[r, c] - M) / S
        c += TPB
""",
        fail=["sync"],
        passes=[],
        reason="race",
        why="No barrier between 'M = sh[0]' and the reuse 'sh[t] = ...': thread 0 overwrites "
        "sh[0] with its rescaled sum while threads of the other warps may still be "
        "reading sh[0] as the max (a WAR race on sh[0] that racecheck reports in every "
        "block); a warp that reads late takes a sum of order 1 for M and its columns come "
        "out wrong.",
    ),
}

"""Held-out set a25: synchronisation beyond one barrier per phase (syncthreads_or loops, flags between barriers, spin locks, exited lanes, activemask), written blind from the student notebooks and INSTRUCTOR.md."""

CASES = {
    # ------------------------------------------------------------------ correct
    "hoz25_block_sum_syncthreads_or_loop": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    s[t] = x[i] if i < x.size else float32(0.0)
    stride = TPB // 2
    # syncthreads_or is a barrier as well as a vote: every thread calls it once
    # per pass, and all of them leave the loop together when stride hits 0
    # (its predicate must be an integer: stride itself)
    while cuda.syncthreads_or(stride):
        if t < stride:
            s[t] += s[t + stride]
        stride >>= 1
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
        full=True,
    ),
    "hoz25_block_scan_flag_loop_two_barriers": dict(
        exercise="08_scan",
        part="block_scan",
        kernel="""
@cuda.jit(device=True)
def more_levels(d):
    return 1.0 if d < TPB else 0.0


@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    go = cuda.shared.array(1, float32)   # thread 0's verdict: another level?
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    s[t] = v
    # up-sweep, its end decided by thread 0 through a shared flag
    d = 1
    while True:
        if t == 0:
            go[0] = more_levels(d)
        cuda.syncthreads()   # flag (and the previous level) written before anyone reads
        keep = go[0] != 0.0
        cuda.syncthreads()   # everyone has read the flag before thread 0 rewrites it
        if not keep:
            break
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2
    if t == TPB - 1:
        block_sums[b] = s[TPB - 1]
        s[TPB - 1] = 0.0
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
        out[i] = s[t] + v
""",
        fail=["parallel", "work"],  # the flag is read at every level: 20 accesses per element
        passes=["public", "hidden", "bounds", "sync"],
        reason="work-efficient",
    ),
    "hoz25_warp_sum_exited_lanes_named_in_full_mask": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.blockIdx.x * TPB + t
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()   # the only barrier; nobody has left before it
    # only lanes 0..WARPS-1 of warp 0 hold a warp sum: everyone else is done
    if t >= WARPS:
        return
    v = warp_sums[t]
    off = WARPS // 2
    while off > 0:
        # FULL_MASK may name lanes that exited (CUDA: "all non-exited threads named
        # in mask"); lane 0 only ever reads lanes 1..WARPS-1, which are all here
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
        off //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = v
""",
        full=True,
    ),
    "hoz25_hist_shared_cas_spinlock_per_bin": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel="""
@cuda.jit(device=True)
def locked_increment(s, locks, v):
    # the critical section sits inside the retry loop, so the lock holder can
    # always make progress, even against lanes of its own warp
    done = False
    while not done:
        if cuda.atomic.cas(locks, v, 0, 1) == 0:
            cuda.threadfence_block()        # acquire
            s[v] += 1
            cuda.threadfence_block()        # release: the count before the unlock
            cuda.atomic.exch(locks, v, 0)
            done = True


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    locks = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    b = t
    while b < BINS:
        s[b] = 0
        locks[b] = 0
        b += TPB
    cuda.syncthreads()
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            locked_increment(s, locks, v)
        i += stride
    cuda.syncthreads()
    b = t
    while b < BINS:
        c = s[b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
        b += TPB
""",
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync", "atomics"],
        reason="memory accesses",
    ),
    # ------------------------------------------------------------------ bugs
    "hoz25_block_sum_early_return_guarded_tree": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * TPB
    n = min(TPB, x.size - base)   # elements this block owns
    if t >= n:
        return                    # nothing to load: leave early
    s[t] = x[base + t]
    stride = TPB // 2
    while stride > 0:
        cuda.syncthreads()
        # never read a slot past n: nobody wrote it
        if t < stride and t + stride < n:
            s[t] += s[t + stride]
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
        fail=["sync"],
        passes=["public", "hidden", "parallel", "memory"],
        reason="divergent barrier",
        why="In a partial last block (n=1000, n=5, n one above/below a multiple of TPB) threads t >= n "
        "return and never reach the loop's syncthreads(); PTX's exit releases a barrier that only "
        "exited threads hold up, so the sums come out right, but CUDA's rule (and the guide's sync) "
        "is that every thread of the block reaches each barrier.",
    ),
    "hoz25_hist_shared_ready_flag_spin_no_barrier": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    ready = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    if t == 0:
        for b in range(BINS):
            s[b] = 0
        cuda.threadfence_block()
        ready[0] = 1                      # publish: the histogram is zeroed
    else:
        while cuda.atomic.add(ready, 0, 0) == 0:
            pass                          # wait for thread 0, no block barrier needed
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
        i += stride
    cuda.syncthreads()
    b = t
    while b < BINS:
        c = s[b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
        b += TPB
""",
        fail=["sync"],
        passes=[],
        reason="uninitialised",
        why="ready[0] is never initialised (shared memory holds what the previous block on the SM "
        "left, e.g. 1 from the previous launch), so threads may skip the wait and count into bins "
        "thread 0 then zeroes; and thread 0's plain store to ready races with the others' atomics "
        "(initcheck on the spin's branch, racecheck on ready/s).",
    ),
    "hoz25_block_scan_syncwarp_one_level_early": dict(
        exercise="08_scan",
        part="block_scan",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    v = x[i] if i < x.size else float32(0.0)
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        # the next level needs at most 32 threads, all of them in warp 0:
        # a warp barrier is enough from there on
        if TPB // (4 * d) <= 32:
            if t < 32:
                cuda.syncwarp(0xFFFFFFFF)
        else:
            cuda.syncthreads()
        d *= 2
    cuda.syncthreads()
    if t == TPB - 1:
        block_sums[b] = s[TPB - 1]
        s[TPB - 1] = 0.0
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
        out[i] = s[t] + v
""",
        fail=["sync"],
        passes=[],
        reason="race",
        why="After the d=1 level (written by threads 0..63, warps 0 and 1) only a syncwarp of warp 0 "
        "separates it from the d=2 level, where threads 16..31 read s[65..127] written by warp 1: "
        "a cross-warp RAW race in every block and every size that racecheck reports.",
    ),
    "hoz25_warp_sum_activemask_in_bounds_branch": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.blockIdx.x * TPB + t
    v = float32(0.0)
    if i < x.size:
        v = x[i]
        # activemask names exactly the lanes that have an element: a safe mask
        m = cuda.activemask()
        for off in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(m, v, off)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = warp_sums[lane] if lane < WARPS else float32(0.0)
        for off in (16, 8, 4, 2, 1):
            w += cuda.shfl_down_sync(FULL_MASK, w, off)
        if lane == 0:
            partial[cuda.blockIdx.x] = w
""",
        fail=["sync"],
        passes=[],
        reason="not in its mask",
        why="In a warp that ends inside x (n=1000: lanes 0..7 of the last warp; n=5) lane 0 shuffles "
        "from lanes 16, 8, ... that are not in activemask()'s mask and never execute the shuffle: "
        "the value is undefined and reaches partial; whole warps are unaffected.",
    ),
    # ------------------------------------------------------------------ off brief
    "hoz25_block_sum_every_thread_atomic_one_shared_word": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    acc = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t == 0:
        acc[0] = 0.0
    cuda.syncthreads()
    if i < x.size:
        cuda.atomic.add(acc, 0, x[i])   # the hardware adds them for us
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = acc[0]
""",
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        reason="atomics",
        why="Right sums, but acc[0] receives up to 128 shared atomics per block, serialised on one "
        "address, where the guide allows TPB/32 = 4 (one per warp).",
    ),
    "hoz25_block_scan_hillis_steele_syncthreads_or": dict(
        exercise="08_scan",
        part="block_scan",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    v = x[i] if i < x.size else float32(0.0)
    s[t] = v
    d = 1
    # the vote doubles as the barrier after each level's stores;
    # TPB - d stays nonzero while a level is left (d never passes TPB)
    while cuda.syncthreads_or(TPB - d):
        add = s[t - d] if t >= d else float32(0.0)
        cuda.syncthreads()             # everyone has read before anyone overwrites
        v += add
        s[t] = v
        d *= 2
    if i < x.size:
        out[i] = v
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = v
""",
        fail=["work"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="work",
        why="A correct Hillis-Steele scan (running sum in a register, two barriers per level): it "
        "stores each element of the tile 8 times (5 allowed), so only the work point goes.",
    ),
}

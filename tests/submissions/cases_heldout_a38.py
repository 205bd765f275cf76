"""Blind set a38: warps as Volta and later run them: masks, votes, match_any, syncwarp, scans"""

# Points of INSTRUCTOR.md left out of this set on purpose (rule unclear):
# * 10_warp_reduce, a shuffle whose lane reads a lane OUTSIDE its mask and then discards the
#   value (lanes 2, 3 of a second stage under `if t < WARPS:` with mask 0xF and
#   shfl_down offsets 2, 1). The `sync` rule says a lane that discards such a value keeps the
#   point, and `masks` only asks that "every shuffle's mask names the lanes that reach it"; but
#   exercise 10's notebook says the masks criterion "reports a shuffle that ... reads a lane
#   its mask leaves out". The two texts disagree for a discarded value, so no such case here.
# * 10_warp_reduce, whether a mask finding costs `sync` as well as `masks`: the guide's `sync`
#   definition lists shuffle masks, while the simulator section says an undefined value fails
#   "sync, or masks where the exercise has one". The failing exercise-10 cases below therefore
#   list neither in `passes` when the cause is a mask.
# * 07_histogram_shared, `parallel`: the guide exempts the shared histogram from "one output
#   per thread" and gives it no memory-operation budget, so what would fail it is not stated;
#   the failing histogram_shared cases do not list it in `passes`.
# * Integer "undefined * 0": the guide tracks definedness as initcheck does, but does not say
#   whether an integer product with 0 (always 0 on a GPU) stays undefined; only float
#   products (NaN * 0 = NaN) are used below.

# How these were verified (scripts in /work/blind/scratch_a38/): every kernel compiles with
# numba.cuda.compile_ptx(..., cc=(8, 0)) under NUMBA_ENABLE_CUDASIM=0 (harness.py compile);
# values, findings and counts come from numba's CUDA simulator extended with warp collectives,
# exited/out-of-mask shuffle reads as NaN, NaN-filled shared memory, vector-clock race detection
# (syncthreads and full syncwarp order; shuffles, votes and match do not) and per-thread
# memory counters (warpsim.py), on the public sizes and on each hidden boundary.
# hom38_hist_warp_rows_match_is_no_barrier: the race was detected, but Python threads happened to
# compute the right counts; it fails public by the guide's rule that a racing read is undefined.
# A device function called from a kernel does not compile_ptx on this machine (numba asks the
# absent driver for the current device), so the Blelloch case keeps its barrier choice inline.

CASES = {}

# ----------------------------------------------------------------------------- 10_warp_reduce

CASES["hom38_warp_xor_quad_mask"] = dict(
    exercise="10_warp_reduce",
    part="block_sum_warp",
    kernel='''
QUAD = (1 << WARPS) - 1  # lanes 0..WARPS-1 of warp 0: the lanes that hold a warp sum


@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    # butterfly: every lane of the warp ends with the warp's sum
    m = 16
    while m > 0:
        v += cuda.shfl_xor_sync(FULL_MASK, v, m)
        m //= 2
    if t % 32 == 0:
        warp_sums[t // 32] = v
    cuda.syncthreads()
    # second stage: only the WARPS lanes that have a sum take part, and the mask says so
    if t < WARPS:
        s = warp_sums[t]
        m = WARPS // 2
        while m > 0:
            s += cuda.shfl_xor_sync(QUAD, s, m)
            m //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = s
''',
    full=True,
)

CASES["hom38_warp_tree_in_shared_with_syncwarp"] = dict(
    exercise="10_warp_reduce",
    part="block_sum_warp",
    kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    lanes = cuda.shared.array(TPB, float32)
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    lanes[t] = v
    cuda.syncwarp(FULL_MASK)
    # the warp's tree in shared memory; no lockstep assumed: every level waits at syncwarp
    off = 16
    while off > 0:
        if lane < off:
            v += lanes[t + off]
            lanes[t] = v
        cuda.syncwarp(FULL_MASK)
        off //= 2
    if lane == 0:
        warp_sums[t // 32] = v
    cuda.syncthreads()
    if t < 32:
        s = float32(0.0)
        if t < WARPS:
            s = warp_sums[t]
        off = 16
        while off > 0:
            s += cuda.shfl_down_sync(FULL_MASK, s, off)
            off //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = s
''',
    fail=["registers"],
    passes=["public", "hidden", "sync", "masks", "barriers", "parallel"],
    reason="shared",
    why="Correct and race-free (each level's reads of lanes[t + off] are ordered after the "
        "writes of lanes off..2off-1 by a full-warp syncwarp), but the warp stage runs in shared "
        "memory: thread 0 makes 1 store + 5 x (1 load + 1 store) + 1 warp_sums store + 1 "
        "warp_sums load = 13 shared accesses, more than 1 + WARPS = 5.",
)

CASES["hom38_warp_activemask_tail"] = dict(
    exercise="10_warp_reduce",
    part="block_sum_warp",
    kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
        live = cuda.activemask()  # "the lanes that hold an element"
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(live, v, off)
            off //= 2
    if t % 32 == 0:
        warp_sums[t // 32] = v
    cuda.syncthreads()
    if t < 32:
        s = float32(0.0)
        if t < WARPS:
            s = warp_sums[t]
        off = 16
        while off > 0:
            s += cuda.shfl_down_sync(FULL_MASK, s, off)
            off //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = s
''',
    fail=["public", "hidden", "masks"],
    passes=[],
    reason="not in its mask",
    why="In a warp that ends inside the data only the lanes with i < n enter the branch, so "
        "activemask() is at most their prefix (n=1000: block 7, warp 3 has lanes 0-7, mask 0xFF; "
        "n=5: lanes 0-4, mask 0x1F); at offset 16 lane 0 reads lane 16, which is outside the mask "
        "and inactive, so its v is undefined and reaches warp_sums and partial (public n=1000 and "
        "n=5, hidden n=1 and every n ending inside a warp).",
)

CASES["hom38_warp_unwritten_slots_times_zero"] = dict(
    exercise="10_warp_reduce",
    part="block_sum_warp",
    kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(32, float32)  # a slot for every lane of warp 0
    t = cuda.threadIdx.x
    lane = t % 32
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
    if lane == 0:
        warp_sums[t // 32] = v
    cuda.syncthreads()
    if t < 32:
        keep = float32(0.0)
        if lane < WARPS:
            keep = float32(1.0)
        s = warp_sums[lane] * keep  # slots WARPS..31 "count as zero"
        for off in (16, 8, 4, 2, 1):
            s += cuda.shfl_down_sync(FULL_MASK, s, off)
        if t == 0:
            partial[cuda.blockIdx.x] = s
''',
    fail=["public", "hidden", "sync"],
    passes=[],
    reason="uninitiali",
    why="Only warp_sums[0..3] are ever written; lanes 4-31 of warp 0 read slots 4-31, which "
        "nobody wrote (shared memory holds stale bits, possibly a NaN or Inf pattern), and "
        "NaN * 0.0 is NaN, so multiplying by zero does not discard the value: lane 0 adds lane 16's "
        "s at offset 16 and every block's partial is undefined, in every case.",
)

# ----------------------------------------------------------------------------- 07_histogram

CASES["hom38_hist_ballot_leader_loop"] = dict(
    exercise="07_histogram",
    part="histogram_global",
    kernel='''
ALL_LANES = 0xFFFFFFFF


@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    lane = cuda.threadIdx.x % 32
    code = int32(255)  # lanes past the end take part in the votes with a failed reading
    if i < values.size:
        code = int32(values[i])
    mine = code < BINS
    todo = cuda.ballot_sync(ALL_LANES, mine)  # the same in every lane: the loop is warp-uniform
    while todo != 0:
        leader = cuda.ffs(todo) - 1
        b = cuda.shfl_sync(ALL_LANES, code, leader)
        same = cuda.ballot_sync(ALL_LANES, mine and code == b)
        if lane == leader:
            cuda.atomic.add(hist, b, cuda.popc(same))
        todo &= ~same
''',
    full=True,
)

CASES["hom38_hist_warp_rows_syncwarp"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
NWARP = TPB // 32
ALL_LANES = 0xFFFFFFFF


@cuda.jit
def histogram_shared(values, hist):
    rows = cuda.shared.array((NWARP, BINS), int32)  # one private row per warp
    t = cuda.threadIdx.x
    lane = t % 32
    w = t // 32
    k = t
    while k < NWARP * BINS:
        rows[k // BINS, k % BINS] = 0
        k += TPB
    cuda.syncthreads()
    n = values.size
    stride = cuda.gridsize(1)
    i = cuda.grid(1)
    first = i - lane  # the warp's first index: equal in all 32 lanes, so is the trip count
    while first < n:
        key = int32(-1)
        if i < n:
            c = int32(values[i])
            if c < BINS:
                key = c
        peers = cuda.match_any_sync(ALL_LANES, key)
        if key >= 0 and lane == cuda.ffs(peers) - 1:
            rows[w, key] += cuda.popc(peers)  # plain add: one leader per bin in this round
        cuda.syncwarp(ALL_LANES)  # the next round's leader may be another lane
        i += stride
        first += stride
    cuda.syncthreads()
    b = t
    while b < BINS:
        total = 0
        for r in range(NWARP):
            total += rows[r, b]
        if total != 0:
            cuda.atomic.add(hist, b, total)
        b += TPB
''',
    full=True,
)

CASES["hom38_hist_warp_rows_match_is_no_barrier"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
NWARP = TPB // 32
ALL_LANES = 0xFFFFFFFF


@cuda.jit
def histogram_shared(values, hist):
    rows = cuda.shared.array((NWARP, BINS), int32)  # one private row per warp
    t = cuda.threadIdx.x
    lane = t % 32
    w = t // 32
    k = t
    while k < NWARP * BINS:
        rows[k // BINS, k % BINS] = 0
        k += TPB
    cuda.syncthreads()
    n = values.size
    stride = cuda.gridsize(1)
    i = cuda.grid(1)
    first = i - lane
    while first < n:
        key = int32(-1)
        if i < n:
            c = int32(values[i])
            if c < BINS:
                key = c
        # match_any_sync waits for the whole warp, so the rounds cannot overlap (?)
        peers = cuda.match_any_sync(ALL_LANES, key)
        if key >= 0 and lane == cuda.ffs(peers) - 1:
            rows[w, key] += cuda.popc(peers)
        i += stride
        first += stride
    cuda.syncthreads()
    b = t
    while b < BINS:
        total = 0
        for r in range(NWARP):
            total += rows[r, b]
        if total != 0:
            cuda.atomic.add(hist, b, total)
        b += TPB
''',
    fail=["public", "hidden", "sync"],
    passes=[],
    reason="race",
    why="A bin's leader changes from round to round (uniform n=2000, block 0, warp 2: lane 14 "
        "adds into rows[2, 36] in one round, lane 11 in a later one), and the second lane's "
        "read-modify-write follows the first lane's plain store with no syncthreads or syncwarp "
        "between them; match_any_sync makes the lanes meet but orders no memory (Volta has no "
        "lockstep), so the read races with the write and the count is undefined (public uniform "
        "and three-hot-bin streams; only the all-equal stream keeps lane 0 as every round's leader).",
)

CASES["hom38_hist_eight_matched_rounds"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
ROUNDS = 8  # a fixed trip count: every lane runs the same rounds, so match_any_sync is safe
ALL_LANES = 0xFFFFFFFF


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    lane = t % 32
    b = t
    while b < BINS:
        s[b] = 0
        b += TPB
    cuda.syncthreads()
    n = values.size
    for r in range(ROUNDS):
        i = cuda.grid(1) + r * cuda.gridsize(1)
        key = int32(-1)
        if i < n:
            c = int32(values[i])
            if c < BINS:
                key = c
        peers = cuda.match_any_sync(ALL_LANES, key)
        if key >= 0 and lane == cuda.ffs(peers) - 1:
            cuda.atomic.add(s, key, cuda.popc(peers))
    cuda.syncthreads()
    b = t
    while b < BINS:
        if s[b] != 0:
            cuda.atomic.add(hist, b, s[b])
        b += TPB
''',
    fail=["hidden"],
    passes=["public", "bounds", "sync", "atomics"],
    reason="hidden",
    why="Eight rounds over the grid's 4 x 128 = 512 threads cover only the first 4096 values; "
        "the public streams (n <= 2000) fit, but the hidden boundaries 'more than 8 values per "
        "thread' (n > 4096, in every draw) lose every value past index 4095.",
)

# ----------------------------------------------------------------------------- 08_scan

CASES["hom38_scan_blelloch_syncwarp_levels"] = dict(
    exercise="08_scan",
    part="block_scan",
    kernel='''
ALL_LANES = 0xFFFFFFFF


@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:  # up-sweep: TPB // (2 * d) threads work at step d
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        if TPB // (2 * d) > 32:  # writers outside warp 0: the block waits
            cuda.syncthreads()
        else:  # writers and next readers all in warp 0: a warp barrier is enough
            cuda.syncwarp(ALL_LANES)
        d *= 2
    if t == 0:
        s[TPB - 1] = 0
    d = TPB // 2
    while d > 0:  # down-sweep: the next step has TPB // d workers
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            a = s[k - d]
            b = s[k]
            s[k - d] = b
            s[k] = a + b
        if TPB // d > 32:
            cuda.syncthreads()
        else:
            cuda.syncwarp(ALL_LANES)
        d //= 2
    r = s[t] + v
    if i < x.size:
        out[i] = r
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = r
''',
    full=True,
)

CASES["hom38_scan_hillis_two_buffers"] = dict(
    exercise="08_scan",
    part="block_scan",
    kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    buf = cuda.shared.array((2, TPB), float32)  # ping-pong: read one row, write the other
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    buf[0, t] = v
    cuda.syncthreads()
    src = 0
    d = 1
    while d < TPB:
        a = buf[src, t]
        if t >= d:
            a += buf[src, t - d]
        buf[1 - src, t] = a
        cuda.syncthreads()
        src = 1 - src
        d *= 2
    r = buf[src, t]
    if i < x.size:
        out[i] = r
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = r
''',
    fail=["work"],
    passes=["public", "hidden", "bounds", "sync", "parallel"],
    reason="per element",
    why="A correct, race-free Hillis-Steele scan (ping-pong rows, one barrier per step), but per "
        "element it makes 1 global load, 1 + 7 shared stores, 7 + up to 7 shared loads (t >= d "
        "reads a second), 1 final shared load and 1 global store: 3074 accesses and 1024 shared "
        "stores per block of 128, i.e. 24 and 8 per element, over the work limits of 16 and 5.",
)

CASES["hom38_scan_hillis_one_buffer_one_barrier"] = dict(
    exercise="08_scan",
    part="block_scan",
    kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:
        if t >= d:
            v += s[t - d]  # the running sum stays in a register
        cuda.syncthreads()  # everyone has read before anyone overwrites
        s[t] = v
        d *= 2
    if i < x.size:
        out[i] = v
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = v
''',
    fail=["public", "hidden", "sync"],
    passes=[],
    reason="race",
    why="The barrier after `s[t] = v` is missing: in step d thread t reads s[t - d], which thread "
        "t - d stored in the previous step after the same barrier, with no barrier between the "
        "store and the read (e.g. d=2: thread 64 of warp 2 reads s[62], stored by thread 62 of "
        "warp 1, which may not have run yet), so the read races and the sums are undefined.",
)

CASES["hom38_offsets_lane0_broadcast_after_return"] = dict(
    exercise="08_scan",
    part="add_block_offsets",
    kernel='''
@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    if b == 0 or i >= out.size:
        return  # block 0 adds nothing; lanes past the end exit
    lane = cuda.threadIdx.x % 32
    add = float32(0.0)
    if lane == 0:
        add = offsets[b - 1]  # one load per warp ...
    add = cuda.shfl_sync(0xFFFFFFFF, add, 0)  # ... broadcast from lane 0
    out[i] += add
''',
    full=True,
)

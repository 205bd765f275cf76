"""Blind set a42: work across blocks and the memory model: privatised and aggregated atomics, grid strides, scans' totals"""

# Notes on the guide (solutions/INSTRUCTOR.md) that decided what is NOT in this set:
#
# * "Last block done" (an atomic ticket, then the last block reads the others' partials):
#   the guide says a store, cuda.threadfence() and an atomic ticket read by the thread that
#   draws a later ticket order the blocks (no race), and without the fence the partials are
#   "touched by two blocks" with nothing ordering them (a race: sync lost). But none of
#   05/07/08's kernels has an argument where a ticket counter could live without being judged
#   as an output (partial, hist, out, block_sums) or read as an input (x, values is uint8, for
#   which numba has no atomic), and none of their specifications needs one block to read
#   another's result. Any such kernel would be contrived and its value outcome would depend on
#   which argument it abuses, so no case here.
# * A spin-wait on a flag that another block sets: whether it ends depends on the order in
#   which the blocks run, which the guide says is not modelled ("What is not modelled: timing,
#   caches and the order in which a GPU schedules warps"); on a GPU, the 2 to 40 blocks of
#   these small cases are all resident and it usually ends. The grade (endless-loop budget or
#   a pass) cannot be read off the guide: left out.
# * block_sum with cuda.atomic.add on partial (one per block, or one per warp, which the
#   `parallel` rule explicitly allows: "one element of partial ... may receive at most
#   TPB / 32 atomics"): the `memory` criterion says "each input element read once" and "An
#   atomic counts as a load", and "the loads are those of every array argument ... averaged
#   over the outputs". Whether an atomic on partial is a load charged against "each input
#   element read once" is unclear, so the per-warp float32 atomics below go to a shared
#   word, never to partial.
# * histogram_shared's `parallel` criterion has no per-thread budget in the guide's list (only
#   its exemption from "one output per thread"); the cases below keep every thread's memory
#   operations close to the model's shape (a few zeroing stores, the grid-stride loop, at most
#   four loads and one or two atomics in the flush).
# * A histogram bug that only shows on codes >= BINS: whether the public "uniform" streams hold
#   such codes is not stated, so no case depends on it.

CASES = {}

# ---------------------------------------------------------------------------------------------
# Full marks
# ---------------------------------------------------------------------------------------------

# Four private copies per block (one per warp), grid-stride loop over the fixed 4 x 128 grid,
# copies added before the flush: at most one global atomic per bin and block (modelled
# contention 4 on the public-like streams). All 4 x 64 words zeroed (2 stores a thread) before
# the first barrier; each flushing thread reads 4 words and makes one atomic.
CASES["hor42_hist_shared_warp_copies"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
COPIES = TPB // 32  # one private histogram per warp of the block


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array((COPIES, BINS), int32)
    t = cuda.threadIdx.x
    w = t // 32
    for j in range(t, COPIES * BINS, TPB):
        s[j // BINS, j % BINS] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, (w, v), 1)
    cuda.syncthreads()
    for bn in range(t, BINS, TPB):
        c = s[0, bn] + s[1, bn] + s[2, bn] + s[3, bn]
        if c != 0:
            cuda.atomic.add(hist, bn, c)
''',
    full=True,
)

# Warp-aggregated atomics: every lane reaches match_any_sync with the full mask (blocks of 128:
# whole warps, no early exit); the lowest lane of each group of equal readings adds popc of the
# group. Each thread: 1 load, at most 1 atomic (one output), within the budget of 8.
CASES["hor42_hist_global_match_any"] = dict(
    exercise="07_histogram",
    part="histogram_global",
    kernel='''
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    lane = cuda.threadIdx.x % 32
    key = int32(BINS)  # a failed reading, or no value: every lane still votes
    if i < values.size:
        key = int32(values[i])
    peers = cuda.match_any_sync(0xFFFFFFFF, key)  # the lanes of this warp holding my key
    below = peers & ((1 << lane) - 1)  # peers with a lower lane than mine
    if key < BINS and below == 0:  # I am the lowest lane of my group: its leader
        cuda.atomic.add(hist, key, cuda.popc(peers))
''',
    full=True,
)

# Each warp reduces its 32 words with syncwarp between levels (lanes < off write s[t], read
# s[t + off]: disjoint), then lane 0 adds the warp's sum to one shared float32 word: 4 atomics
# on it = TPB / 32, the limit. Busiest thread: 1 + 1 + 1 + 5 x 3 + 1 + 1 + 1 + 1 = 22 memory
# operations <= 4 log2(TPB) + 8 = 36; longest stretch between barriers about 3 <= 60; x read
# once; partial written with one plain store per block.
CASES["hor42_block_sum_warp_trees_shared_f32_atomic"] = dict(
    exercise="05_reduction",
    part="block_sum",
    kernel='''
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    total = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    s[t] = v
    if t == 0:
        total[0] = float32(0.0)
    cuda.syncthreads()
    off = 16
    while off > 0:  # each warp reduces its own 32 words; only its lanes touch them
        if lane < off:
            s[t] += s[t + off]
        cuda.syncwarp(0xFFFFFFFF)
        off //= 2
    if lane == 0:
        cuda.atomic.add(total, 0, s[t])  # 4 float32 atomics on this word: one per warp
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = total[0]
''',
    full=True,
)

# Blelloch scan whose root is cleared without being saved: the block total is the inclusive
# value of the block's last element that exists, written by that thread (thread 4 for n = 5).
# Per block: 128 + 128 + 127 x 3 + 1 + 127 x 4 + 128 + 128 + 1 = 1403 accesses, 11.0 per
# element <= 16; shared stores 128 + 127 + 1 + 254 = 510, 3.98 per element <= 5; busiest
# thread (0) 53 <= 8 log2(TPB) + 14 = 70; longest stretch between barriers 4.
CASES["hor42_block_scan_total_by_last_data_thread"] = dict(
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
    while d < TPB:  # up-sweep
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        cuda.syncthreads()
        d *= 2
    if t == TPB - 1:
        s[t] = float32(0.0)  # the root is dropped: the total comes out of the scan itself
    cuda.syncthreads()
    d = TPB // 2
    while d >= 1:  # down-sweep
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        cuda.syncthreads()
        d //= 2
    inclusive = s[t] + v
    if i < x.size:
        out[i] = inclusive
    # past the end counts as zero, so the tile's total is the inclusive prefix of its last
    # element that exists: the block's last thread that holds data writes it
    last = min(TPB, x.size - b * TPB) - 1
    if t == last:
        block_sums[b] = inclusive
''',
    full=True,
)

# The private histogram is float32 (shared float atomics of 1.0): exact below 2**24, far above
# any count here; the flush converts to int32 (cvt.rzi) for one integer atomic per nonzero bin
# and block. Grid-stride loop written as a while with blockDim.x * gridDim.x.
CASES["hor42_hist_shared_float32_private"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
@cuda.jit
def histogram_shared(values, hist):
    # counts kept as float32 in shared memory: exact for any count below 2**24
    s = cuda.shared.array(BINS, np.float32)
    t = cuda.threadIdx.x
    if t < BINS:
        s[t] = np.float32(0.0)
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, np.float32(1.0))
        i += cuda.blockDim.x * cuda.gridDim.x
    cuda.syncthreads()
    if t < BINS:
        c = s[t]
        if c > np.float32(0.0):
            cuda.atomic.add(hist, t, int32(c))
''',
    full=True,
)

# ---------------------------------------------------------------------------------------------
# Failing
# ---------------------------------------------------------------------------------------------

CASES["hor42_block_sum_every_thread_one_shared_atomic"] = dict(
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
        cuda.atomic.add(total, 0, x[i])  # every thread of the block on one shared word
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = total[0]
''',
    fail=["parallel"],
    passes=["public", "hidden", "sync", "memory"],
    reason="atomics",
    why=(
        "Correct sums (float32 atomics in any order stay inside rtol = atol = 1e-4), x read "
        "once and shared memory used, barriers around the word; but every thread with data "
        "adds into total[0], so that shared word receives min(TPB, n - b*TPB) atomics per "
        "block (128 for a full block, 104 in n=1000's last block, 5 for n=5), above the "
        "TPB / 32 = 4 (one per warp) that the guide allows one element of a shared array, "
        "and a GPU serialises all of them on that address."
    ),
)

CASES["hor42_hist_shared_copies_flushed_apart"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
COPIES = TPB // 32  # one private histogram per warp


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array((COPIES, BINS), int32)
    t = cuda.threadIdx.x
    for j in range(t, COPIES * BINS, TPB):
        s[j // BINS, j % BINS] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, (t // 32, v), 1)
    cuda.syncthreads()
    for j in range(t, COPIES * BINS, TPB):  # every copy flushed on its own
        c = s[j // BINS, j % BINS]
        if c != 0:
            cuda.atomic.add(hist, j % BINS, c)
''',
    fail=["atomics"],
    passes=["public", "hidden", "bounds", "sync", "parallel"],
    reason="atomic",
    why=(
        "Counts are right, but each of a block's 4 per-warp copies is flushed with its own "
        "global atomic, so a bin that all 4 warps of all 4 blocks saw gets 4 x 4 = 16 "
        "atomics, above the one per bin and block (contention <= BLOCKS = 4) the atomics "
        "criterion allows. Public n=1000, three hot bins: a block holds about 250 values, "
        "about 62 per warp copy, so each hot bin is nonzero in all 16 copies (modelled: 16; "
        "n=2000 uniform over 0..63: 16, over 0..255: 10; n=1500 all equal: 16 when its value "
        "is a reading), against 4 when the copies are added before the flush."
    ),
)

CASES["hor42_hist_shared_eight_rounds"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
ROUNDS = 8  # 8 x 512 = 4096 values: "plenty" for the sizes check() runs


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    if t < BINS:
        s[t] = 0
    cuda.syncthreads()
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for r in range(ROUNDS):
        i = start + r * stride
        if i < values.size:
            v = values[i]
            if v < BINS:
                cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    if t < BINS and s[t] != 0:
        cuda.atomic.add(hist, t, s[t])
''',
    fail=["hidden"],
    passes=["public", "bounds", "sync", "parallel", "atomics"],
    reason="hidden",
    why=(
        "A fixed 8 rounds over the 4 x 128 = 512 threads covers only values[0:4096]: the "
        "public cases (n = 2000, 1500, 1000, at most 4 rounds) come out right, but every "
        "hidden draw holds 'more than 8 values per thread' (n > 4096), skewed (three hot "
        "bins, all readings: any value past index 4095 is a lost count) as well as uniform, "
        "so at least that case fails on every seed, as it would on a GPU; zeroing, barriers, "
        "guard and the one flush atomic per nonzero bin and block are those of the model."
    ),
)

CASES["hor42_hist_shared_stride_blockdim"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    if t < BINS:
        s[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
        i += cuda.blockDim.x  # the block's width, not the grid's
    cuda.syncthreads()
    if t < BINS and s[t] != 0:
        cuda.atomic.add(hist, t, s[t])
''',
    fail=["public", "hidden", "bounds", "sync", "parallel", "atomics"],
    passes=[],
    reason="wrong",
    why=(
        "The loop steps by blockDim.x = 128 instead of the grid's 512, so block b walks every "
        "value from index 128*b to the end: values[j] is counted min(4, j//128 + 1) times "
        "(n=2000: bins up to four times too high) in every public case, so public and hidden "
        "fail and the quality criteria, awarded only with the public cases, are lost too."
    ),
)

CASES["hor42_hist_global_lane0_walks_warp"] = dict(
    exercise="07_histogram",
    part="histogram_global",
    kernel='''
@cuda.jit
def histogram_global(values, hist):
    keys = cuda.shared.array(TPB, int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    key = int32(BINS)
    if i < values.size:
        key = int32(values[i])
    keys[t] = key
    cuda.syncwarp(0xFFFFFFFF)
    if t % 32 == 0:  # lane 0 publishes its warp's 32 values alone
        for j in range(32):
            k = keys[t + j]
            if k < BINS:
                cuda.atomic.add(hist, k, 1)
''',
    fail=["parallel"],
    passes=["public", "hidden", "bounds", "sync"],
    reason="doing the work of many",
    why=(
        "Counts are right (the 32 keys are stored, then ordered by a full-warp syncwarp before "
        "lane 0 reads them), but lane 0 of each full warp of readings makes 1 load + 1 store + "
        "32 shared loads + up to 32 global atomics (66 operations, 32 outputs) while the brief "
        "is one output per thread and a budget of 8 memory operations; it is no aggregation "
        "loop that every lane takes (the other lanes make 2 operations: 66 is far above 4 "
        "times the warp's mean of about 4)."
    ),
)

CASES["hor42_block_scan_total_before_barrier"] = dict(
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
    d = 1
    while d < TPB:  # up-sweep, its barrier at the top of each step
        cuda.syncthreads()
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2
    if t == TPB - 1:  # no barrier since thread 0 wrote the root in the last step
        block_sums[b] = s[t]
        s[t] = float32(0.0)
    cuda.syncthreads()
    d = TPB // 2
    while d >= 1:
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
    fail=["public", "hidden", "sync", "bounds", "parallel", "work"],
    passes=[],
    reason="race",
    why=(
        "The up-sweep's last step (d = 64) is made by thread 0 (k = 127: s[127] += s[63]) and "
        "thread 127 (another warp) reads s[127] for the block total and clears it with no "
        "barrier in between: a read-after-write and a write-write race on s[127]. On a GPU "
        "warp 3 may read before warp 0 has added s[63] (total short by the first half) and "
        "thread 0's store may land after the clear (the down-sweep then starts from the "
        "total, not 0); the guide makes the racing read undefined and it reaches block_sums "
        "and out in every case, n = 5 included, so public fails and with it every quality "
        "criterion (numba's own simulator, whose threads run freely, got n = 5, 128 and 1000 "
        "wrong in one run and n = 1, 129 right in another: the outcome is up to the schedule)."
    ),
)

CASES["hor42_hist_global_float_top_edge"] = dict(
    exercise="07_histogram",
    part="histogram_global",
    kernel='''
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        f = values[i] / (BINS - 1)  # the 6-bit reading scaled to [0, 1]; failed codes > 1
        if f <= 1.0:
            cuda.atomic.add(hist, int(f * BINS), 1)
''',
    fail=["hidden", "bounds"],
    passes=[],
    reason="out-of-bounds access",
    why=(
        "Scaling by 1/(BINS-1) but binning with int(f * BINS) gives floor(v * 64/63) = v for "
        "v = 0..62 (v/63 < 1 cannot round up to the next integer) but 64 for the top reading "
        "v = 63 (f = 1.0 exactly): an atomic on hist[64], one past the end, and the count of "
        "bin 63 is lost. Every hidden draw holds code BINS-1 = 63, so hidden and bounds fail "
        "whatever the public streams hold (public too when one of them holds a 63)."
    ),
)

"""Blind set a33: atomics and the ordering of memory between threads: zeroing and flushing beside atomics, exch flushes, tickets and fences, warp-aggregated atomics, plain reads of atomically updated elements"""

# Criteria names are those of INSTRUCTOR.md's table:
#   05_reduction/block_sum:          public, hidden, sync, parallel, memory
#   07_histogram/histogram_global:   public, hidden, bounds, sync, parallel
#   07_histogram/histogram_shared:   public, hidden, bounds, sync, parallel, atomics
#   08_scan/add_block_offsets:       public, hidden, bounds, parallel
#   10_warp_reduce/block_sum_warp:   public, hidden, sync, parallel, masks, barriers, registers
#
# A kernel that fails its public cases earns none of the quality criteria (INSTRUCTOR.md,
# "What is graded"), so a case whose public cases fail lists every criterion in `fail`.
#
# Left out on purpose (the guide is unclear):
# * compare-and-swap loops on an address other threads also update (a CAS-built add in
#   histogram_global, histogram_shared's flush, a CAS ticket in block_sum): the guide does not
#   say whether a failed `cas` counts as one of the atomics that the histogram's `atomics`
#   criterion ("at most one global atomic per bin and block") and the reduction's "at most
#   TPB / 32 atomics per element" limit, nor how retries count towards histogram_global's
#   budget of 8 memory operations; how many retries a run makes depends on the schedule.
# * histogram_shared's `parallel` criterion: the guide gives no per-thread budget for it (the
#   list of budgets names the global histogram only), so no case here claims it either way.
# * block_sum (05) writing partial[b] with a global atomic: "memory" allows "each input element
#   read once" and "an atomic counts as a load"; whether the one load of partial[b] that the
#   atomic makes fits (the "plus one" is stated for the tiled matmul and blur) is not said.
# * block_sum_warp (10) with no syncthreads at all (each warp's lane 0 adding its warp's sum
#   into partial[b] atomically): "barriers" says "one syncthreads per block"; whether zero
#   barriers passes is not said.

CASES = {}

# --------------------------------------------------------------------------------------------
# Full marks
# --------------------------------------------------------------------------------------------

CASES["hoh33_hist_global_match_any_leader"] = dict(
    exercise="07_histogram",
    part="histogram_global",
    kernel='''
@cuda.jit
def histogram_global(values, hist):
    # Warp-aggregated atomics: the lanes holding the same bin elect their lowest lane, which
    # adds the group's size once. No early return, so every lane reaches match_any_sync.
    i = cuda.grid(1)
    lane = cuda.threadIdx.x % 32
    b = -1  # -1: nothing to count (past the end of the stream, or a failed reading)
    if i < values.size:
        v = values[i]
        if v < BINS:
            b = int32(v)
    peers = cuda.match_any_sync(0xFFFFFFFF, b)
    if b >= 0 and lane == cuda.ffs(peers) - 1:
        cuda.atomic.add(hist, b, cuda.popc(peers))
''',
    full=True,
)

CASES["hoh33_hist_shared_exch_flush"] = dict(
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
    # Flush: take each bin's count and leave the bin empty in one atomic exchange.
    for b in range(t, BINS, TPB):
        c = cuda.atomic.exch(s, b, 0)
        if c != 0:
            cuda.atomic.add(hist, b, c)
''',
    full=True,
)

CASES["hoh33_block_sum_last_warp_ticket_fenced"] = dict(
    exercise="05_reduction",
    part="block_sum",
    kernel='''
FULL_05 = 0xFFFFFFFF
NWARPS = TPB // 32


@cuda.jit
def block_sum(x, partial):
    # Shuffles inside each warp; then the last warp to finish (an atomic ticket in shared
    # memory, with threadfence_block on both sides) adds the warp sums: one barrier in all.
    ws = cuda.shared.array(NWARPS, float32)
    ticket = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    if t == 0:
        ticket[0] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(FULL_05, v, off)
        off //= 2
    if t % 32 == 0:
        ws[t // 32] = v
        cuda.threadfence_block()  # my warp's sum is visible before my ticket is drawn
        done = cuda.atomic.add(ticket, 0, 1)
        if done == NWARPS - 1:  # every other warp has stored its sum and drawn its ticket
            cuda.threadfence_block()
            total = float32(0.0)
            for w in range(NWARPS):
                total += ws[w]
            partial[cuda.blockIdx.x] = total
''',
    full=True,
)

CASES["hoh33_add_offsets_atomic_add"] = dict(
    exercise="08_scan",
    part="add_block_offsets",
    kernel='''
@cuda.jit
def add_block_offsets(out, offsets):
    # One thread per element; an atomic add where a plain += would do (one atomic per thread).
    b = cuda.blockIdx.x
    i = cuda.grid(1)
    if b > 0 and i < out.size:
        cuda.atomic.add(out, i, offsets[b - 1])
''',
    full=True,
)

# --------------------------------------------------------------------------------------------
# Wrong: schedule-dependent results, or a criterion the guide defines for atomics
# --------------------------------------------------------------------------------------------

CASES["hoh33_block_sum_last_warp_ticket_no_fence"] = dict(
    exercise="05_reduction",
    part="block_sum",
    kernel='''
FULL_05 = 0xFFFFFFFF
NWARPS = TPB // 32


@cuda.jit
def block_sum(x, partial):
    ws = cuda.shared.array(NWARPS, float32)
    ticket = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    if t == 0:
        ticket[0] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(FULL_05, v, off)
        off //= 2
    if t % 32 == 0:
        ws[t // 32] = v
        done = cuda.atomic.add(ticket, 0, 1)  # the atomic is enough to publish ws... it is not
        if done == NWARPS - 1:
            total = float32(0.0)
            for w in range(NWARPS):
                total += ws[w]
            partial[cuda.blockIdx.x] = total
''',
    fail=["public", "hidden", "sync", "parallel", "memory"],
    passes=[],
    reason="race",
    why=(
        "ws[w] is stored by lane 0 of warp w and read by the lane that draws the last ticket "
        "with no barrier and no threadfence_block between the store and the (relaxed) atomic "
        "ticket, so nothing orders them (the guide's exemption needs store, fence, ticket): "
        "if warp w's store is made visible after its atomic (the compiler or the SM may move it "
        "past an atomic to another address), the last warp adds the slot's leftover value; in "
        "every case, since every block has 4 warps and 3 of them are read by another."
    ),
)

CASES["hoh33_block_sum_every_thread_shared_atomic"] = dict(
    exercise="05_reduction",
    part="block_sum",
    kernel='''
@cuda.jit
def block_sum(x, partial):
    acc = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    if t == 0:
        acc[0] = float32(0.0)
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(acc, 0, x[i])  # no tree: the shared atomic adds everything
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = acc[0]
''',
    fail=["parallel"],
    passes=["public", "hidden", "sync", "memory"],
    reason="atomic",
    why=(
        "The sums are right (float32 atomics in any order stay within rtol = atol = 1e-4), and "
        "the zeroing store and the read of acc[0] are separated from the atomics by barriers, "
        "but acc[0] receives one atomic per element of the block: 128 in a full block of n=1000 "
        "(5 for n=5), over the guide's TPB / 32 = 4 per element of a shared array, and the "
        "128 atomics on one address run one after another."
    ),
)

CASES["hoh33_warp_sum_zeroing_races_atomics"] = dict(
    exercise="10_warp_reduce",
    part="block_sum_warp",
    kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    acc = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
        off //= 2
    if t == 0:
        acc[0] = float32(0.0)  # thread 0 clears the block's total ...
    if t % 32 == 0:
        cuda.atomic.add(acc, 0, v)  # ... while every warp's lane 0 adds its warp's sum
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = acc[0]
''',
    fail=["public", "hidden", "sync", "parallel", "masks", "barriers", "registers"],
    passes=[],
    reason="race",
    why=(
        "Thread 0's plain store acc[0] = 0 is not ordered (no barrier) against the atomic adds "
        "of lanes 32, 64 and 96: when warp 0 stores first the total is right, but a warp whose "
        "atomic lands before the store (added to the slot's leftover value) has its sum erased, "
        "so partial[b] misses that warp's sum (right only when warp 0's store precedes the other "
        "three atomics: 6 of the 24 orders); every block has 4 warps, so every case has the race, "
        "and every case whose block holds more than 32 elements (n=1000, n=128) can lose a sum."
    ),
)

CASES["hoh33_warp_sum_shared_atomic_two_barriers"] = dict(
    exercise="10_warp_reduce",
    part="block_sum_warp",
    kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    acc = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    if t == 0:
        acc[0] = float32(0.0)
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
        off //= 2
    cuda.syncthreads()  # the cleared total is seen by every warp
    if t % 32 == 0:
        cuda.atomic.add(acc, 0, v)  # one shared atomic per warp
    cuda.syncthreads()  # every warp's sum is in
    if t == 0:
        partial[cuda.blockIdx.x] = acc[0]
''',
    fail=["barriers"],
    passes=["public", "hidden", "sync", "parallel", "masks", "registers"],
    reason="syncthreads",
    why=(
        "Correct on any schedule (zeroing, atomics and the read are separated by barriers, "
        "4 atomics on acc[0] = TPB / 32, full-warp shuffles with 0.0 past the end, thread 0 "
        "makes 1 store + 1 atomic + 1 load of shared memory <= 1 + WARPS), but it passes two "
        "syncthreads() per block where the guide allows one."
    ),
)

CASES["hoh33_hist_shared_warp_private_flush"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
NW = TPB // 32  # warps per block


@cuda.jit
def histogram_shared(values, hist):
    sub = cuda.shared.array((NW, BINS), int32)  # one private histogram per warp
    t = cuda.threadIdx.x
    w = t // 32
    lane = t % 32
    for b in range(lane, BINS, 32):
        sub[w, b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(sub, (w, v), 1)
    cuda.syncthreads()
    for b in range(lane, BINS, 32):  # every warp flushes its own histogram
        c = sub[w, b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
''',
    fail=["atomics"],
    passes=["public", "hidden", "bounds", "sync"],
    reason="atomic",
    why=(
        "The counts are right on any schedule, but each of a block's 4 warps flushes its own "
        "sub-histogram, so hist[b] receives up to 4 x 4 = 16 global atomics (one per warp and "
        "block holding that value): in the all-equal public case (n=1500, every warp of the "
        "4 x 128 grid sees the value) its bin receives 4 x 4 = 16 atomics, over the guide's one "
        "per bin and block (contention <= BLOCKS = 4); the three-hot-bins case gives 16 too."
    ),
)

CASES["hoh33_hist_shared_read_then_exch_flush"] = dict(
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
        c = s[b]
        if c != 0:
            cuda.atomic.exch(hist, b, hist[b] + c)  # swap in the new total
''',
    fail=["public", "hidden", "bounds", "sync", "parallel", "atomics"],
    passes=[],
    reason='differs at',
    why=(
        "The flush reads hist[b] with a plain load and writes hist[b] + c with an atomic "
        "exchange: the pair is not one atomic, so two blocks that both read hist[b] before "
        "either exchanges (the 4 blocks flush at about the same time) leave only the last "
        "block's total and lose the others' counts; only when the blocks' flushes of a bin run "
        "one after another is the count right (of the 2520 interleavings of 4 blocks' read and "
        "exchange on one bin, only the 24 serial ones give the sum; blocks in step keep only the "
        "last block's count). Every public case has values in all 4 blocks."
    ),
)

CASES["hoh33_hist_shared_atomic_min_zeroing"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        cuda.atomic.min(s, b, 0)  # counts are never negative: min with 0 clears a bin
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        c = s[b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
''',
    fail=["public", "hidden", "bounds", "sync", "parallel", "atomics"],
    passes=[],
    reason='before any write',
    why=(
        "Shared memory starts as garbage and atomic.min(s, b, 0) only clears a bin whose "
        "leftover word is >= 0: a negative leftover (any float < 0 or int < 0 a previous kernel "
        "left in that word) stays, and the flush adds it to hist[b]; the value it computes is "
        "read from shared memory nobody wrote and reaches the branch and hist."
    ),
)

CASES["hoh33_hist_global_plain_read_atomic_max"] = dict(
    exercise="07_histogram",
    part="histogram_global",
    kernel='''
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.max(hist, v, hist[v] + 1)  # a count only grows: keep the larger
''',
    fail=["public", "hidden", "bounds", "sync", "parallel"],
    passes=[],
    reason='differs at',
    why=(
        "hist[v] is read with a plain load that races only with atomics, so it may be stale: "
        "threads that read the same count k (all lanes of a warp with equal values read it in "
        "one load) all store max(k + 1), and the bin grows by one instead of by their number; "
        "right only if the threads of each bin run one after another. The all-equal public "
        "case (n=300, 10 warps) ends at 10 instead of 300 when each warp's lanes load together."
    ),
)

"""Submissions for exercises 07_histogram, 08_scan and 09_transpose, each written from the
student notebook and INSTRUCTOR.md alone, as a student would. Each kernel text replaces the stub cell of its notebook, after the notebook's setup cells
(so TPB, BINS, BLOCKS, TILE, BLOCK_ROWS, TILE_PAD, np, cuda, int32 / float32 are defined).

Classes:
  (a) correct, unusual style            -> full=True
  (b) wrong, a GPU / sanitizer shows it -> fail=[...]
  (c) right output, off the brief       -> fail=[one quality criterion], passes=[the rest]
"""

CASES = {
    # ------------------------------------------------------------------ (a) correct
    "hop_hg_cas_loop_devfn": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel='''
@cuda.jit(device=True)
def bump(counts, b):
    # a lock-free increment with compare-and-swap, retried until nobody got in between
    old = counts[b]
    while True:
        seen = cuda.atomic.cas(counts, b, old, int32(old + 1))
        if seen == old:
            return
        old = seen


@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i >= values.shape[0]:
        return
    code = int32(values[i])
    if code < BINS:
        bump(hist, code)
''',
        full=True,
    ),
    "hop_hs_match_any_aggregated": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
FULL_MASK = 0xFFFFFFFF
WARP = 32


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    lane = t & (WARP - 1)
    b = t
    while b < BINS:
        s[b] = 0
        b += TPB
    cuda.syncthreads()
    n = values.shape[0]
    stride = cuda.gridsize(1)
    base = cuda.grid(1) - lane  # first index of my warp: the 32 lanes loop the same number of times
    while base < n:
        i = base + lane
        code = 255  # past the end: a failed reading, never counted
        if i < n:
            code = values[i]
        peers = cuda.match_any_sync(FULL_MASK, code)  # lanes of my warp holding the same code
        lower = peers & ((1 << lane) - 1)
        if lower == 0 and code < BINS:  # the lowest lane of each group adds for the group
            cuda.atomic.add(s, code, cuda.popc(peers))
        base += stride
    cuda.syncthreads()
    b = t
    while b < BINS:
        c = s[b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
        b += TPB
''',
        full=True,
    ),
    "hop_bs_blelloch_log2_const_tuple_swap": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
LOG_TPB = int(np.log2(TPB))  # 7 levels for 128 threads


@cuda.jit(device=True)
def node(t, d):
    return (t + 1) * (d << 1) - 1


@cuda.jit
def block_scan(x, out, block_sums):
    tile = cuda.shared.array(TPB, float32)
    tid = cuda.threadIdx.x
    g = cuda.blockIdx.x * TPB + tid
    mine = x[g] if g < x.shape[0] else float32(0.0)
    tile[tid] = mine
    for lvl in range(LOG_TPB):  # up-sweep, barrier at the top of each level
        cuda.syncthreads()
        d = 1 << lvl
        k = node(tid, d)
        if k < TPB:
            tile[k] += tile[k - d]
    cuda.syncthreads()
    if tid == 0:
        block_sums[cuda.blockIdx.x] = tile[TPB - 1]
        tile[TPB - 1] = 0
    # No barrier here on purpose: the first down-sweep level (d = TPB/2) is done by thread 0
    # alone, on slots TPB/2 - 1 and TPB - 1, the only slot thread 0 just wrote.
    for lvl in range(LOG_TPB - 1, -1, -1):
        d = 1 << lvl
        k = node(tid, d)
        if k < TPB:
            tile[k - d], tile[k] = tile[k], tile[k] + tile[k - d]
        cuda.syncthreads()
    if g < x.shape[0]:
        out[g] = tile[tid] + mine
''',
        full=True,
    ),
    "hop_abo_lane0_load_shfl_broadcast": dict(
        exercise="08_scan",
        part="add_block_offsets",
        kernel='''
FULL = 0xFFFFFFFF


@cuda.jit
def add_block_offsets(out, offsets):
    b = cuda.blockIdx.x
    if b == 0:
        return  # the whole block leaves together: nothing comes before tile 0
    lane = cuda.laneid
    i = cuda.grid(1)
    mine = float32(0.0)
    if lane == 0:
        mine = offsets[b - 1]  # one load per warp ...
    off = cuda.shfl_sync(FULL, mine, 0)  # ... handed to the 32 lanes, all of which get here
    if i < out.size:
        out[i] += off
''',
        full=True,
    ),
    "hop_abo_prefetch_negative_index": dict(
        exercise="08_scan",
        part="add_block_offsets",
        kernel='''
@cuda.jit
def add_block_offsets(out, offsets):
    b = cuda.blockIdx.x
    i = cuda.grid(1)
    prev = offsets[b - 1]  # block 0 reads offsets[-1] (the last total, in range) and ignores it
    if b != 0 and i < out.shape[0]:
        out[i] = out[i] + prev
''',
        full=True,
    ),
    "hop_tt_while_barrier_in_loop": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx, by = cuda.blockIdx.x, cuda.blockIdx.y
    nr, nc = a.shape
    r = ty
    while r < TILE:  # every thread runs 4 rounds, so the barrier in the loop is reached by all
        gr, gc = by * TILE + r, bx * TILE + tx
        if gr < nr and gc < nc:
            tile[r, tx] = a[gr, gc]
        r += cuda.blockDim.y
        cuda.syncthreads()
    r = ty
    while r < TILE:
        orow, ocol = bx * TILE + r, by * TILE + tx
        if orow < nc and ocol < nr:
            out[orow, ocol] = tile[tx, r]
        r += cuda.blockDim.y
''',
        full=True,
    ),
    "hop_tp_xor_swizzle": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    # 32 x 32 tile, no padding: element (r, c) lives at column c ^ r of row r (an XOR swizzle)
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    x0, y0 = cuda.blockIdx.x * TILE, cuda.blockIdx.y * TILE
    for k in range(ty, TILE, BLOCK_ROWS):
        if y0 + k < rows and x0 + tx < cols:
            tile[k, tx ^ k] = a[y0 + k, x0 + tx]
    cuda.syncthreads()
    for k in range(ty, TILE, BLOCK_ROWS):
        if x0 + k < cols and y0 + tx < rows:
            out[x0 + k, y0 + tx] = tile[tx, k ^ tx]
''',
        full=True,
    ),
    # ------------------------------------------------------------------ (b) wrong
    "hop_hs_zero_with_grid_index": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    gid = cuda.grid(1)
    t = cuda.threadIdx.x
    if gid < BINS:
        s[gid] = 0
    cuda.syncthreads()
    for i in range(gid, values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    if t < BINS:
        c = s[t]
        if c > 0:
            cuda.atomic.add(hist, t, c)
''',
        fail=["sync"],
        passes=[],
        reason="uninitialised",
        why="The zeroing uses the grid index, so only block 0 (gid < 64) zeroes its shared "
        "histogram; blocks 1-3 add to and flush whatever their shared memory held. On a GPU that "
        "is leftover data (sometimes zeros, so outputs may even look right); it is a read of "
        "uninitialised shared memory, which the sync criterion names. Hidden/public cases should "
        "also fail wherever the garbage is not zero.",
    ),
    "hop_hs_match_any_full_mask_in_stride_loop": dict(
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
    lane = t % 32
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        peers = cuda.match_any_sync(0xFFFFFFFF, v)  # "the whole warp" -- not in the last round
        if (peers & ((1 << lane) - 1)) == 0 and v < BINS:
            cuda.atomic.add(s, v, cuda.popc(peers))
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        c = s[b]
        if c > 0:
            cuda.atomic.add(hist, b, c)
''',
        fail=["sync"],
        passes=[],
        reason="mask",
        why="The grid-stride loop gives lanes different trip counts whenever n is not a multiple "
        "of the warp's span (and when n < TPB), yet match_any_sync names all 32 lanes. Lanes that "
        "left the loop are waiting at the next syncthreads, not exited: on sm_70+ match.sync waits "
        "for them (hang) or returns undefined bits (undefined behaviour per PTX): a lane named "
        "that is still running elsewhere makes this a sync finding; outputs may or may not be "
        "wrong.",
    ),
    "hop_hg_le_bins_off_by_one": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel='''
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        if v <= BINS:  # off by one: code 64 already flags a failed reading
            cuda.atomic.add(hist, v, 1)
''',
        fail=["bounds"],
        passes=[],
        reason="out",
        why="A value equal to 64 does an atomicAdd on hist[64], one int32 past the end of hist; "
        "memcheck reports an invalid global write (or it silently corrupts the next allocation), "
        "and bins 0..63 stay right. Only inputs that contain the byte 64 expose it: if neither the "
        "public nor the hidden generator ever emits exactly 64 (a spec boundary that the domain "
        "table does not list), the grader cannot see it.",
    ),
    "hop_hg_exch_read_plus_one": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel='''
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.exch(hist, v, hist[v] + 1)  # "exch is atomic, so this is safe"
''',
        fail=["hidden"],
        passes=[],
        reason="",
        why="exch only makes the store atomic: the read hist[v] and the +1 are not, so threads that "
        "read the same old count all write old+1 (on a GPU a warp whose lanes hold the same code "
        "reads one value and loses up to 31 increments). Skewed and constant streams come out far "
        "too low. Per INSTRUCTOR a plain read racing only with atomics is not a sync finding: only "
        "the outputs must fail.",
    ),
    "hop_bs_hillis_steele_one_barrier": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    buf = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    d = 1
    while d < TPB:
        left = float32(0.0)
        if t >= d:
            left = buf[t - d]
        cuda.syncthreads()  # everyone has read before anyone writes ...
        buf[t] += left
        d *= 2
        # ... but nobody waits for the writes before the next step's reads
    cuda.syncthreads()
    if i < x.size:
        out[i] = buf[t]
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = buf[t]
''',
        fail=["sync", "work"],
        passes=[],
        reason="race",
        why="Hillis-Steele with a register but one barrier per step: thread t writes buf[t] after "
        "the step-d barrier, and thread t+2d reads buf[t] in step 2d before the next barrier, so a "
        "warp that runs ahead reads the old partial sum (RAW race; racecheck flags it). On a GPU "
        "the result depends on warp scheduling, often right, sometimes not. It is also the "
        "O(n log n) scan, so work fails regardless.",
    ),
    "hop_tn_read_before_guard": dict(
        exercise="09_transpose",
        part="transpose_naive",
        kernel='''
@cuda.jit
def transpose_naive(a, out):
    col, row = cuda.grid(2)
    rows, cols = a.shape
    val = a[row, col]  # loaded first, "the guard only protects the store"
    if row < rows and col < cols:
        out[col, row] = val
''',
        fail=["bounds"],
        passes=[],
        reason="out",
        why="Threads of the edge blocks (col >= cols or row >= rows, whenever a side is not a "
        "multiple of the block) load a[row, col] outside a; with row >= rows the address is past "
        "the end of the allocation and memcheck reports an invalid global read. The stored values "
        "are right, but the out-of-range read also fails its case per INSTRUCTOR.",
    ),
    "hop_tt_early_return_before_barrier": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    if col >= cols:
        return  # nothing for this thread to load
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows:
            tile[ty + k, tx] = a[row, col]
    cuda.syncthreads()
    ocol = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        orow = cuda.blockIdx.x * TILE + ty + k
        if orow < cols and ocol < rows:
            out[orow, ocol] = tile[tx, ty + k]
''',
        fail=["hidden", "sync"],
        passes=[],
        reason="",
        why="In the last column block (cols not a multiple of 32, or a single column) threads with "
        "col >= cols return, but in the store phase the same threads own output columns "
        "by*32+tx < rows: those elements of out are never written (e.g. rows=40, cols=33 leaves "
        "out[32, 1..7] unwritten). The remaining threads also meet a barrier that part of the block "
        "never reaches (divergent barrier by the grader's definition).",
    ),
    "hop_tp_padded_alloc_unpadded_stride": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
FLAT = TILE * TILE_PAD  # room for one padding word per row


@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array(FLAT, float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            tile[(ty + k) * TILE + tx] = a[row, col]
    cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < cols and col < rows:
            out[row, col] = tile[tx * TILE + ty + k]
''',
        fail=["conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
        reason="conflict",
        why="The padded buffer is allocated but indexed with row stride TILE instead of TILE_PAD, "
        "so the column read tile[tx*32 + j] puts all 32 lanes in bank j: a 32-way conflict on "
        "every read, exactly as unpadded. Output, bounds, barriers and coalescing are fine.",
    ),
    # ------------------------------------------------------------------ (c) off the brief
    "hop_hs_thread0_flushes_all_bins": dict(
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
    if t == 0:  # one thread publishes the block's histogram
        for b in range(BINS):
            c = s[b]
            if c != 0:
                cuda.atomic.add(hist, b, c)
''',
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync", "atomics"],
        reason="",
        why="Correct counts and still one global atomic per bin and block, but thread 0 makes up "
        "to 64 global atomics (64 outputs) and 64 shared loads while 127 threads idle: the work of "
        "many threads in one.",
    ),
    "hop_bs_thread0_serial_scan": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    if t == 0:  # a serial running sum: simple and obviously right
        acc = float32(0.0)
        for j in range(TPB):
            acc += s[j]
            s[j] = acc
        block_sums[cuda.blockIdx.x] = acc
    cuda.syncthreads()
    if i < x.size:
        out[i] = s[t]
''',
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync", "work"],
        reason="",
        why="Right output, but thread 0 makes 2*TPB = 256 shared accesses (> 8 log2(TPB) + 14 = "
        "70). Per block it is about 5 accesses and 2 shared stores per element, inside the work "
        "budget (16 and 5), so only parallel should go.",
    ),
    "hop_tt_no_shared_tile": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    # same tiles and the same (32, 8) block, but straight from a to out
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + cuda.threadIdx.y + k
        if row < rows and col < cols:
            out[col, row] = a[row, col]
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="coalesc",
        why="Correct transpose with 4 elements per thread, but no shared tile: every warp store "
        "writes 32 elements of a column of out, 32 sectors where 4 would do, so the coalescing "
        "(memory) criterion must fail; nothing else is wrong.",
    ),
}

"""Blind submissions for exercises 01, 03, 05, 07, 09, 10 and 11, mostly gaming attempts at the quality criteria and kernels that only look like gaming, written from the student notebooks and INSTRUCTOR.md only."""

CASES = {
    # ------------------------------------------------------------------ 01_elementwise
    "hoj11_saxpy_grid_stride_one_pass": dict(
        exercise="01_elementwise",
        part="saxpy",
        kernel='''
@cuda.jit
def saxpy(alpha, x, y, out):
    # grid-stride loop: with ceil(n / TPB) blocks every thread runs it at most once,
    # but the kernel stays right for any grid
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, out.size, stride):
        out[i] = alpha * x[i] + y[i]
''',
        full=True,
    ),
    "hoj11_multiply_assumes_four_blocks": dict(
        exercise="01_elementwise",
        part="multiply",
        kernel='''
GRID_BLOCKS = 4  # four blocks cover every size I was shown (n = 1000 is 4 blocks)


@cuda.jit
def multiply(a, b, out):
    # only the first GRID_BLOCKS blocks work; they stride over the whole array
    if cuda.blockIdx.x >= GRID_BLOCKS:
        return
    i = cuda.blockIdx.x * TPB + cuda.threadIdx.x
    while i < out.size:
        out[i] = a[i] * b[i]
        i += GRID_BLOCKS * TPB
''',
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason='does the work of many',
        why="outputs are right for every n, but for n > 1024 (the hidden past-public case on more "
            "than 4 blocks is guaranteed) the threads of blocks 0-3 store two or more outputs each "
            "while every later block idles: a too-small grid-stride grid; public sizes never show it",
    ),
    # ------------------------------------------------------------------ 03_matmul
    "hoj11_matmul_tiled_shared_decoy": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, k = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        kk = t * TILE
        # stage the tiles (shared memory is used, barriers are where they belong)
        sA[ty, tx] = A[row, kk + tx] if row < m and kk + tx < k else float32(0.0)
        sB[ty, tx] = B[kk + ty, col] if kk + ty < k and col < n else float32(0.0)
        cuda.syncthreads()
        # ... but the products come straight from global memory, same numbers
        if row < m and col < n:
            for j in range(TILE):
                if kk + j < k:
                    acc += A[row, kk + j] * B[kk + j, col]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        reason='written, never read',
        why="the tiles are staged and never read: every output still loads 2k values from global "
            "memory (plus the 2 ceil(k/TILE) tile loads), far above 2 ceil(k/TILE) + 1",
    ),
    "hoj11_matmul_tiled_return_if_both_out": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, k = A.shape
    n = B.shape[1]
    if row >= m and col >= n:
        # past the last row AND the last column: this thread would only stage zeros,
        # and nobody stores an output that uses them
        return
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        kk = t * TILE
        if row < m and kk + tx < k:
            sA[ty, tx] = A[row, kk + tx]
        else:
            sA[ty, tx] = 0.0
        if kk + ty < k and col < n:
            sB[ty, tx] = B[kk + ty, col]
        else:
            sB[ty, tx] = 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["sync"],
        passes=[],
        reason="divergent barrier",
        why="in a corner block (public A 20x18 @ B 18x33: block (2, 1), rows >= 20 and cols >= 33) "
            "the returned threads never reach the two syncthreads() the others wait at: a divergent "
            "barrier (synccheck), even though the unstaged slots only feed sums that are never "
            "stored, so a GPU (exited threads do not hold a barrier) prints the right numbers",
    ),
    # ------------------------------------------------------------------ 05_reduction
    "hoj11_block_sum_first_add_on_load": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
HALF = TPB // 2  # the tree starts at half width: each of the first HALF threads adds two inputs


@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(HALF, float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * TPB
    if t < HALF:
        lo = x[base + t] if base + t < x.size else float32(0.0)
        hi = x[base + t + HALF] if base + t + HALF < x.size else float32(0.0)
        s[t] = lo + hi
    cuda.syncthreads()
    stride = HALF // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
''',
        full=True,
    ),
    "hoj11_block_sum_shared_atomic_total": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    total = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t == 0:
        total[0] = 0.0
    cuda.syncthreads()
    # shared atomics do the whole tree in one line: no race, two barriers in all
    if i < x.size:
        cuda.atomic.add(total, 0, x[i])
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = total[0]
''',
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        reason="atomics",
        why="correct sums, but all 128 threads of a block add into one shared word: 128 atomics on "
            "one address (the guide allows TPB / 32 = 4), serialised exactly like a loop in one thread",
    ),
    "hoj11_block_sum_last_warp_unsynced": dict(
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
    # the last 64 values: one warp, and a warp runs in lockstep, so no barrier is needed
    # (the classic unrolled last warp from the reduction slides)
    if t < 32:
        s[t] += s[t + 32]
        s[t] += s[t + 16]
        s[t] += s[t + 8]
        s[t] += s[t + 4]
        s[t] += s[t + 2]
        s[t] += s[t + 1]
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="since Volta a warp has no implicit lockstep and s is not volatile: thread 0 reads "
            "s[16] while thread 16 rewrites it (and likewise at every step), a shared-memory race "
            "racecheck reports for every block and size; the compiler may even hoist the loads, "
            "so thread 0 also reads s[0] after the others' writes with no syncwarp between them",
    ),
    # ------------------------------------------------------------------ 07_histogram
    "hoj11_hist_global_match_any": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel='''
ALL_LANES = 0xFFFFFFFF


@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    # every lane takes part in the match, also past the end: code 255 is a failed
    # reading, never counted
    v = int32(values[i]) if i < values.size else int32(255)
    peers = cuda.match_any_sync(ALL_LANES, v)     # lanes of my warp holding the same code
    leader = (peers & cuda.lanemask_lt()) == 0    # the lowest of them
    if leader and v < BINS:
        cuda.atomic.add(hist, v, int32(cuda.popc(peers)))
''',
        full=True,
    ),
    "hoj11_hist_shared_plain_flush": dict(
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
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, values.size, stride):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    # one update per bin and block, and no global atomics at all:
    # each block only touches a bin once
    for b in range(t, BINS, TPB):
        if s[b] != 0:
            hist[b] += s[b]
''',
        fail=['public', 'hidden', 'sync'],
        passes=[],
        reason='data race',
        why="the flush is a plain read-add-write of hist[b] done by each of the 4 blocks: blocks that "
            "flush the same bin concurrently lose counts on a GPU (racecheck: global race between "
            "blocks) whenever two blocks saw that bin, i.e. in every public case",
    ),
    # ------------------------------------------------------------------ 09_transpose
    "hoj11_transpose_padded_xor_swizzle": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    # no padding: element (r, c) of the tile lives in column c ^ r of row r
    # (an XOR swizzle: a permutation of each row, and of each column)
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows, cols = a.shape
    row0 = cuda.blockIdx.y * TILE
    col0 = cuda.blockIdx.x * TILE
    for k in range(0, TILE, BLOCK_ROWS):
        r = ty + k
        if row0 + r < rows and col0 + tx < cols:
            tile[r, tx ^ r] = a[row0 + r, col0 + tx]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        r = ty + k
        # out[col0 + r, row0 + tx] = a[row0 + tx, col0 + r] = tile element (tx, r)
        if col0 + r < cols and row0 + tx < rows:
            out[col0 + r, row0 + tx] = tile[tx, r ^ tx]
''',
        full=True,
    ),
    "hoj11_transpose_padded_flat_pad_ignored": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
TILE_WORDS = TILE * TILE_PAD  # room for 32 padded rows of 33 words


@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array(TILE_WORDS, float32)  # padded tile, flattened
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows, cols = a.shape
    row0 = cuda.blockIdx.y * TILE
    col0 = cuda.blockIdx.x * TILE
    for k in range(0, TILE, BLOCK_ROWS):
        r = ty + k
        if row0 + r < rows and col0 + tx < cols:
            tile[r * TILE + tx] = a[row0 + r, col0 + tx]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        r = ty + k
        if col0 + r < cols and row0 + tx < rows:
            out[col0 + r, row0 + tx] = tile[tx * TILE + r]
''',
        fail=["conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
        reason="bank conflict",
        why="the array is sized for padding but indexed with a row length of TILE, so the read "
            "tile[tx * 32 + r] puts all 32 lanes of a warp in bank r: a 32-way conflict on every "
            "full tile (public 32x32 and 40x70)",
    ),
    # ------------------------------------------------------------------ 10_warp_reduce
    "hoj11_warp_thread0_adds_warp_sums": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    lane = t % 32
    warp = t // 32
    v = x[i] if i < x.size else float32(0.0)  # no early return: all 32 lanes shuffle
    for offset in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    # only WARPS = 4 numbers left: thread 0 adds them itself, no second shuffle stage
    if t == 0:
        total = float32(0.0)
        for w in range(WARPS):
            total += warp_sums[w]
        partial[cuda.blockIdx.x] = total
''',
        full=True,
    ),
    "hoj11_warp_skip_empty_warps_off_by_one": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    base = cuda.blockIdx.x * TPB
    count = min(TPB, x.size - base)  # elements of this block
    i = base + t
    v = x[i] if i < x.size else float32(0.0)
    # a warp with no element skips its shuffles (the condition is the same for its 32 lanes,
    # so the full mask still names exactly the lanes that arrive)
    if warp * 32 < count:
        for offset in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        if lane == 0:
            warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        used = min(count // 32 + 1, WARPS)  # warps that hold data
        s = warp_sums[lane] if lane < used else float32(0.0)
        for offset in (16, 8, 4, 2, 1):
            s += cuda.shfl_down_sync(FULL_MASK, s, offset)
        if lane == 0:
            partial[cuda.blockIdx.x] = s
''',
        fail=["hidden", "sync"],
        passes=["public", "parallel", "masks", "barriers", "registers"],
        reason="uninitialised",
        why="count // 32 + 1 is one warp too many when a block holds whole warps but not a whole "
            "block (count = 32, 64, 96: hidden 'whole warps, not whole blocks'), so warp 0 adds "
            "warp_sums[count // 32], which no warp wrote: garbage shared memory reaches partial; "
            "the public counts (128, 104, 5) all give the right number of warps",
    ),
    # ------------------------------------------------------------------ 11_softmax
    "hoj11_row_max_seed_first_element": dict(
        exercise="11_softmax",
        part="row_max",
        kernel='''
NWARPS = TPB // 32


@cuda.jit
def row_max(x, m):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    best = x[r, 0]  # any element of the row is a safe start for a max (no -inf needed)
    c = t
    while c < cols:
        best = max(best, x[r, c])
        c += TPB
    # butterfly inside the warp: every lane ends with the warp's max
    for offset in (16, 8, 4, 2, 1):
        best = max(best, cuda.shfl_xor_sync(0xFFFFFFFF, best, offset))
    ws = cuda.shared.array(NWARPS, float32)
    if t % 32 == 0:
        ws[t // 32] = best
    cuda.syncthreads()
    if t == 0:
        result = ws[0]
        for w in range(1, NWARPS):
            result = max(result, ws[w])
        m[r] = result
''',
        full=True,
    ),
    "hoj11_fused_out_as_scratch": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit
def softmax_fused(x, out):
    red = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    # pass 1: the row's max
    mx = float32(-math.inf)
    for c in range(t, cols, TPB):
        mx = max(mx, x[r, c])
    red[t] = mx
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            red[t] = max(red[t], red[t + s])
        cuda.syncthreads()
        s //= 2
    row_m = red[0]
    cuda.syncthreads()
    # pass 2: exponentials parked in out, so x is read only twice
    acc = float32(0.0)
    for c in range(t, cols, TPB):
        e = math.exp(x[r, c] - row_m)
        out[r, c] = e
        acc += e
    red[t] = acc
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            red[t] += red[t + s]
        cuda.syncthreads()
        s //= 2
    row_s = red[0]
    # pass 3: normalise in place (each thread only touches its own columns)
    for c in range(t, cols, TPB):
        out[r, c] = out[r, c] / row_s
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="loads",
        why="x is read twice, but out is stored twice and read back once: 3 loads and 2 stores per "
            "element over all arrays, the unfused traffic with out playing e",
    ),
    "hoj11_fused_row_cache_1024": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
CACHE = 1024  # the row stays on chip: one read of x, one write of out (rows here are short)


@cuda.jit(device=True)
def combine(m1, s1, m2, s2):
    # merge two (max, sum of exp(v - max)) pairs; (-inf, 0) is the empty pair
    if m2 == -math.inf:
        return m1, s1
    if m1 == -math.inf:
        return m2, s2
    if m1 >= m2:
        return m1, s1 + s2 * math.exp(m2 - m1)
    return m2, s2 + s1 * math.exp(m1 - m2)


@cuda.jit
def softmax_fused(x, out):
    row = cuda.shared.array(CACHE, float32)
    red_m = cuda.shared.array(TPB, float32)
    red_s = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    n = min(x.shape[1], CACHE)
    mx = float32(-math.inf)
    sm = float32(0.0)
    for c in range(t, n, TPB):
        v = x[r, c]
        row[c] = v
        mx, sm = combine(mx, sm, v, float32(1.0))
    red_m[t] = mx
    red_s[t] = sm
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            mm, ss = combine(red_m[t], red_s[t], red_m[t + stride], red_s[t + stride])
            red_m[t] = mm
            red_s[t] = ss
        cuda.syncthreads()
        stride //= 2
    row_m = red_m[0]
    row_s = red_s[0]
    for c in range(t, n, TPB):
        out[r, c] = math.exp(row[c] - row_m) / row_s
''',
        fail=["hidden"],
        passes=["public", "bounds", "sync", "parallel", "memory"],
        reason="hidden",
        why="columns past 1024 are never read nor written, so the hidden 'single row of at least "
            "4096 columns' case is wrong (also its max and sum ignore them); every public row "
            "(<= 300 columns) and every other boundary fits the cache",
    ),
}

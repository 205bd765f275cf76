"""Submissions for exercises 03, 07, 10 and 11 (correct, wrong and off-brief kernels, many using
language features a simulator must model: negative indices, while True with break and continue,
chained device functions, selp, match_any_sync with ffs and popc, tuple returns), each written
from the student notebook and INSTRUCTOR.md alone, as a student would."""

CASES = {
    # ------------------------------------------------------------------ 03_matmul
    "hoa_matmul_naive_negative_k_while_true_local_pair": dict(
        exercise="03_matmul",
        part="matmul_naive",
        kernel='''
@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    m, k = A.shape
    n = B.shape[1]
    if not (0 <= row < m and 0 <= col < n):
        return
    a_row = A[row]  # a view of row `row` of A
    # two running sums, even and odd steps apart (a local array with a tuple shape)
    acc = cuda.local.array((2,), float32)
    acc[0] = np.float32(0.0)
    acc[1] = np.float32(0.0)
    # walk k with negative indices, as NumPy allows: -k is column 0, -1 is column k - 1
    kk = -k
    while True:
        if kk >= 0:
            break
        acc[kk & 1] += a_row[kk] * B[kk, col]
        kk += 1
    C[row, col] = acc[0] + acc[1]
''',
        full=True,
    ),
    "hoa_matmul_tiled_devfn_chain_floor_ceil_selp": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit(device=True)
def inside(M, r, c):
    return 0 <= r < M.shape[0] and 0 <= c < M.shape[1]


@cuda.jit(device=True)
def fetch(M, r, c):
    # zero where the tile sticks out of the matrix; the load stays behind the test
    if not inside(M, r, c):
        return float32(0.0)
    return M[r, c]


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    k = A.shape[1]
    steps = -(-k // TILE)  # ceil(k / TILE): // rounds towards minus infinity
    acc = float32(0.0)
    for t in range(steps):
        base = t * TILE
        sA[ty, tx] = fetch(A, row, base + tx)
        sB[ty, tx] = fetch(B, base + ty, col)
        cuda.syncthreads()
        # the last tile may be partly padding: only add the products that exist
        width = cuda.selp(base + TILE > k, k - base, TILE)
        for j in range(width):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if inside(C, row, col):
        C[row, col] = acc
''',
        full=True,
    ),
    "hoa_matmul_tiled_b_tile_not_zero_filled": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    m, k = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        a_col = t * TILE + tx
        b_row = t * TILE + ty
        # A's tile is zero-padded, so products past k vanish whatever sB holds there
        sA[ty, tx] = A[row, a_col] if row < m and a_col < k else float32(0.0)
        if b_row < k and col < n:
            sB[ty, tx] = B[b_row, col]
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["sync"],
        passes=[],
        reason="read of uninitialised",
        why=("sB rows past k (every row >= k when k < TILE, i.e. a single partial tile) and "
             "columns past n are never written, yet every thread reads its whole sB column: "
             "0 * garbage is NaN when the stale shared word is a NaN/Inf pattern, so with "
             "k < 16 C can come out NaN on a GPU; an initcheck-style checker sees the read "
             "of unwritten shared memory whenever n or k is not a multiple of TILE"),
    ),
    "hoa_matmul_tiled_a_from_global_inner_loop": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    # only B goes through shared memory: a row of A is read by one thread row anyway
    sB = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, k = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        base = t * TILE
        b_row = base + ty
        if b_row < k and col < n:
            sB[ty, tx] = B[b_row, col]
        else:
            sB[ty, tx] = float32(0.0)
        cuda.syncthreads()
        if row < m:
            for j in range(min(TILE, k - base)):
                acc += A[row, base + j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="global loads",
        why=("A is read from global memory k times per output (k + ceil(k/TILE) loads in "
             "all), far above the 2 ceil(k/TILE) + 1 that staging both tiles gives; the "
             "results and barriers are right"),
    ),
    # --------------------------------------------------------------- 07_histogram
    "hoa_histogram_global_match_any_bitmask_guard": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel='''
BIN_MASK = BINS - 1  # 63: BINS is a power of two, so a reading has no bit above these


@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i >= values.size:
        return
    v = int32(values[i])
    if v & ~BIN_MASK:  # 64..255: a failed reading
        return
    # warp aggregation: the lanes still here that hold the same code elect one leader,
    # which adds the group's count in one atomic
    peers = cuda.match_any_sync(cuda.activemask(), v)
    leader = cuda.ffs(peers) - 1
    if (cuda.threadIdx.x & 31) == leader:
        cuda.atomic.add(hist, v, int32(cuda.popc(peers)))
''',
        full=True,
    ),
    "hoa_histogram_shared_2d_private_while_true_continue": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
HALF = BINS // 2  # the private histogram as 2 rows of HALF bins


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array((2, HALF), int32)
    t = cuda.threadIdx.x
    b = t
    while b < BINS:  # zero every bin, whatever BINS and the block size are
        s[b // HALF, b % HALF] = 0
        b += cuda.blockDim.x
    cuda.syncthreads()
    i, stride = cuda.grid(1), cuda.gridsize(1)
    n = values.shape[0]
    while True:
        if i >= n:
            break
        v = values[i]
        i += stride
        if v >= BINS:
            continue  # failed reading
        cuda.atomic.add(s, (v // HALF, v % HALF), 1)
    cuda.syncthreads()
    b = t
    while b < BINS:
        c = s[b // HALF, b % HALF]
        if c != 0:
            cuda.atomic.add(hist, b, c)
        b += cuda.blockDim.x
''',
        full=True,
    ),
    "hoa_histogram_shared_early_return_small_n": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = values.size
    if i >= n:
        return  # this thread has no value to count at all: leave early
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    for j in range(i, n, cuda.gridsize(1)):
        v = values[j]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        if s[b] != 0:
            cuda.atomic.add(hist, b, s[b])
''',
        fail=["sync"],
        passes=[],
        reason="divergent",
        why=("correct whenever n >= BLOCKS * TPB = 512; for a stream shorter than the grid "
             "the block holding index n (a partial block) returns some threads before both "
             "syncthreads (divergent barrier, synccheck), and for n < 64 the threads that left "
             "were also the ones that zero and flush bins n..63, so those counts are lost "
             "(hidden 'fewer values than the threads of one block')"),
    ),
    "hoa_histogram_shared_thread0_flushes_all_bins": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, cuda.blockDim.x):
        s[b] = 0
    cuda.syncthreads()
    for j in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[j]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    # one thread publishes the block's histogram: still one global atomic per bin and block
    if t == 0:
        for b in range(BINS):
            c = s[b]
            if c != 0:
                cuda.atomic.add(hist, b, c)
''',
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync", "atomics"],
        reason="one thread",
        why=("thread 0 of each block issues up to 64 global atomics (64 outputs) while the "
             "other 127 threads idle; counts are exact and hist still gets at most one "
             "atomic per bin and block"),
    ),
    # ------------------------------------------------------------- 10_warp_reduce
    "hoa_warp_xor_butterfly_devfn_bit_lanes": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit(device=True)
def warp_allsum(v):
    # butterfly: after offsets 16, 8, 4, 2, 1 every lane holds the warp's sum
    offset = 16
    while offset:
        v += cuda.shfl_xor_sync(FULL_MASK, v, offset)
        offset >>= 1
    return v


@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t & 31, t >> 5
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    v = x[i] if i < x.shape[0] else float32(0.0)
    v = warp_allsum(v)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        # all 32 lanes of warp 0 take part; lanes >= WARPS bring 0
        v = warp_allsum(warp_sums[lane] if lane < WARPS else float32(0.0))
        if lane == 0:
            partial[cuda.blockIdx.x] = v
''',
        full=True,
    ),
    "hoa_warp_empty_warps_skip_their_slot": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    start = cuda.blockIdx.x * TPB
    i = start + t
    v = x[i] if i < x.size else float32(0.0)
    for offset in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
    # a warp wholly past the end of x has nothing to report: skip its store
    if lane == 0 and start + warp * 32 < x.size:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = warp_sums[lane] if lane < WARPS else float32(0.0)
        for offset in (16, 8, 4, 2, 1):
            w += cuda.shfl_down_sync(FULL_MASK, w, offset)
        if lane == 0:
            partial[cuda.blockIdx.x] = w
''',
        fail=["sync"],
        passes=[],
        reason="read before any write",
        why=("only in the last block and only when n % 128 is 1..96 (a whole warp past the "
             "end, e.g. n = 1 or n = 40): warp 0 then adds warp_sums slots nobody wrote, "
             "which on a GPU hold a previous block's warp sums, so partial[-1] is wrong; "
             "n = 1000 (last block 104 values, every warp has data) comes out right"),
    ),
    "hoa_warp_ballot_mask_of_live_lanes": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.blockIdx.x * TPB + t
    # name exactly the lanes that hold an element, so the mask matches who arrives
    live = cuda.ballot_sync(FULL_MASK, i < x.size)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
        for offset in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(live, v, offset)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = warp_sums[lane] if lane < WARPS else float32(0.0)
        for offset in (16, 8, 4, 2, 1):
            w += cuda.shfl_down_sync(FULL_MASK, w, offset)
        if lane == 0:
            partial[cuda.blockIdx.x] = w
''',
        fail=["sync"],
        passes=[],
        reason="not in its mask",
        why=("in a warp that ends inside x (n % 32 != 0, last block only, e.g. n = 1 or "
             "1000) live lanes read lanes i + offset that are outside `live` and skip the "
             "shuffle; the CUDA guide makes that value undefined (hardware often returns the "
             "idle lane's stale 0.0, so the sum may look right) and lane 0's sum gathers it "
             "through the tree; the mask itself names exactly the lanes that arrive"),
    ),
    # ----------------------------------------------------------------- 11_softmax
    "hoa_softmax_fused_tuple_devfn_isinf_2d_shared": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit(device=True)
def merge(m1, s1, m2, s2):
    # combine two (max, sum of exp(x - max)) pairs; a thread that saw nothing is (-inf, 0)
    if math.isinf(m2) and m2 < 0:
        return m1, s1
    if math.isinf(m1) and m1 < 0:
        return m2, s2
    if m1 >= m2:
        return m1, s1 + s2 * math.exp(m2 - m1)
    return m2, s1 * math.exp(m1 - m2) + s2


@cuda.jit
def softmax_fused(x, out):
    sm = cuda.shared.array((2, TPB), float32)  # row 0: maxima, row 1: sums
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    row, orow = x[r], out[r]
    cols = row.shape[0]
    m = np.float32(-np.inf)
    s = np.float32(0.0)
    for c in range(t, cols, TPB):  # one pass: running max and rescaled sum
        m, s = merge(m, s, row[c], np.float32(1.0))
    sm[0, t] = m
    sm[1, t] = s
    cuda.syncthreads()
    stride = TPB >> 1
    while stride > 0:
        if t < stride:
            m, s = merge(sm[0, t], sm[1, t], sm[0, t + stride], sm[1, t + stride])
            sm[0, t] = m
            sm[1, t] = s
        cuda.syncthreads()
        stride >>= 1
    m = sm[0, 0]
    inv = np.float32(1.0) / sm[1, 0]
    for c in range(t, cols, TPB):
        orow[c] = math.exp(row[c] - m) * inv
''',
        full=True,
    ),
    "hoa_row_max_three_arg_max_xor_warps": dict(
        exercise="11_softmax",
        part="row_max",
        kernel='''
WARPS = TPB // 32


@cuda.jit
def row_max(x, m):
    warp_max = cuda.shared.array(WARPS, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    row = x[r]
    cols = row.shape[0]
    best = float32(-math.inf)
    # two columns a step, c and c + TPB; the second clamped to the last column,
    # which a max may see twice
    for c in range(t, cols, 2 * TPB):
        best = max(best, row[c], row[min(c + TPB, cols - 1)])
    offset = 16
    while offset > 0:
        best = max(best, cuda.shfl_xor_sync(0xFFFFFFFF, best, offset))
        offset //= 2
    if t % 32 == 0:
        warp_max[t // 32] = best
    cuda.syncthreads()
    if t == 0:
        for w in range(1, WARPS):
            best = max(best, warp_max[w])
        m[r] = best
''',
        full=True,
    ),
    "hoa_row_max_idle_threads_bring_zero": dict(
        exercise="11_softmax",
        part="row_max",
        kernel='''
@cuda.jit
def row_max(x, m):
    sh = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    # start from my own column; a thread past the end of the row brings 0
    best = x[r, t] if t < cols else float32(0.0)
    for c in range(t + TPB, cols, TPB):
        best = max(best, x[r, c])
    sh[t] = best
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            sh[t] = max(sh[t], sh[t + s])
        cuda.syncthreads()
        s //= 2
    if t == 0:
        m[r] = sh[0]
''',
        fail=["hidden"],
        passes=[],
        reason="wrong",
        why=("0.0 is not the neutral element of max: only when cols < TPB (some threads see "
             "no column) and the row is wholly negative (offset near -1000, or a single "
             "negative column) the max comes out 0.0; rows of >= 128 columns or with a "
             "positive max are right"),
    ),
    "hoa_softmax_fused_empty_pairs_nan": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit
def softmax_fused(x, out):
    sm_max = cuda.shared.array(TPB, float32)
    sm_sum = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    s = float32(0.0)
    for c in range(t, cols, TPB):
        v = x[r, c]
        if v > m:
            s = s * math.exp(m - v) + float32(1.0)
            m = v
        else:
            s += math.exp(v - m)
    sm_max[t] = m
    sm_sum[t] = s
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m1 = sm_max[t]
            m2 = sm_max[t + stride]
            big = max(m1, m2)
            sm_sum[t] = sm_sum[t] * math.exp(m1 - big) + sm_sum[t + stride] * math.exp(m2 - big)
            sm_max[t] = big
        cuda.syncthreads()
        stride //= 2
    big = sm_max[0]
    total = sm_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - big) / total
''',
        fail=["hidden"],
        passes=[],
        reason="wrong values",
        why=("the tree merges two empty pairs (-inf, 0) as 0 * exp(-inf - -inf) = 0 * NaN = "
             "NaN, and that NaN sum then poisons slot 0; it happens only when cols < 64 "
             "(TPB / 2: the first step pairs t with t + 64), so a single column or fewer "
             "columns than a warp give an all-NaN row, while cols >= 64 are right"),
    ),
    "hoa_softmax_fused_three_passes": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit(device=True)
def tree(sh, t, use_max):
    # reduce sh[0:TPB] into sh[0]; every thread of the block calls this
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            a = sh[t]
            b = sh[t + stride]
            sh[t] = max(a, b) if use_max else a + b
        cuda.syncthreads()
        stride //= 2
    return sh[0]


@cuda.jit
def softmax_fused(x, out):
    sh = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    best = float32(-math.inf)
    for c in range(t, cols, TPB):
        best = max(best, x[r, c])
    sh[t] = best
    cuda.syncthreads()
    mx = tree(sh, t, True)
    cuda.syncthreads()  # everyone has read sh[0] before it is reused
    acc = float32(0.0)
    for c in range(t, cols, TPB):
        acc += math.exp(x[r, c] - mx)
    sh[t] = acc
    cuda.syncthreads()
    total = tree(sh, t, False)
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - mx) / total
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="loads",
        why=("fused into one launch but x is read three times (max, sum, write): 3 global "
             "loads per element against the allowed 2; barriers and results are right"),
    ),
}

"""Held-out set a23: bugs that depend on the input values rather than the sizes (seeds of a max, bin edges, negative quarters, a reference value kept too long), written blind from the student notebooks and INSTRUCTOR.md."""

CASES = {
    # ------------------------------------------------------------------ correct, careful values
    "hox23_row_max_neg_inf_while_tree": dict(
        exercise="11_softmax",
        part="row_max",
        kernel="""
@cuda.jit
def row_max(x, m):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    # a thread that sees no column must bring the neutral element of max, not 0:
    # rows offset by -1000 are negative everywhere
    best = float32(-math.inf)
    c = t
    while c < cols:
        v = x[r, c]
        if v > best:
            best = v
        c += TPB
    s = cuda.shared.array(TPB, float32)
    s[t] = best
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            a, b = s[t], s[t + stride]
            s[t] = max(a, b)
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        m[r] = s[0]
""",
        full=True,
    ),
    "hox23_histogram_shared_overflow_slot": dict(
        exercise="07_histogram",
        part="histogram_shared",
        extra_cells=[
            """
SLOTS = BINS + 1  # one spare slot in shared memory soaks up the failed readings
"""
        ],
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(SLOTS, int32)
    t = cuda.threadIdx.x
    b = t
    while b < SLOTS:
        s[b] = 0
        b += TPB
    cuda.syncthreads()
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < values.size:
        # codes 64..255 all land in the spare slot SLOTS - 1, which is never flushed
        slot = min(int32(values[i]), int32(BINS))
        cuda.atomic.add(s, slot, 1)
        i += step
    cuda.syncthreads()
    b = t
    while b < BINS:
        count = s[b]
        if count != 0:
            cuda.atomic.add(hist, b, count)
        b += TPB
""",
        full=True,
    ),
    "hox23_block_scan_blelloch_2d_tile": dict(
        exercise="08_scan",
        part="block_scan",
        extra_cells=[
            """
ROWS = TPB // 32  # the tile as ROWS x 32: one row per warp of slots
"""
        ],
        kernel="""
@cuda.jit(device=True)
def at(k):
    # slot k of the tile lives at row k // 32, column k % 32
    return k // 32, k % 32


@cuda.jit
def block_scan(x, out, block_sums):
    tile = cuda.shared.array((ROWS, 32), float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    mine = float32(0.0)  # past the end counts as zero (works for negative x too)
    if i < x.size:
        mine = x[i]
    r, c = at(t)
    tile[r, c] = mine
    cuda.syncthreads()
    d = 1
    while d < TPB:  # up-sweep
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            r, c = at(k)
            r2, c2 = at(k - d)
            tile[r, c] += tile[r2, c2]
        cuda.syncthreads()
        d *= 2
    if t == TPB - 1:
        r, c = at(TPB - 1)
        block_sums[b] = tile[r, c]
        tile[r, c] = 0.0
    cuda.syncthreads()
    d = TPB // 2
    while d >= 1:  # down-sweep
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            r, c = at(k)
            r2, c2 = at(k - d)
            left = tile[r2, c2]
            right = tile[r, c]
            tile[r2, c2] = right
            tile[r, c] = right + left
        cuda.syncthreads()
        d //= 2
    if i < x.size:
        r, c = at(t)
        out[i] = tile[r, c] + mine  # exclusive + own value = inclusive
""",
        full=True,
    ),
    "hox23_conv1d_tap_device_signed_guard": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel="""
@cuda.jit(device=True)
def tap(x, q):
    # zero padding; q < 0 must be tested explicitly, x[-1] would wrap to the last sample
    if q < 0 or q >= x.size:
        return float32(0.0)
    return x[q]


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    r = w.size // 2
    acc = float32(0.0)
    # walk the window by input position q; the flipped filter index is i + r - q
    for q in range(i - r, i + r + 1):
        acc += w[i + r - q] * tap(x, q)
    out[i] = acc
""",
        full=True,
    ),
    # ------------------------------------------------------------------ value-dependent bugs
    "hox23_row_max_idle_threads_bring_zero": dict(
        exercise="11_softmax",
        part="row_max",
        kernel="""
@cuda.jit
def row_max(x, m):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    if t < cols:
        best = x[r, t]  # start from my first column
        c = t + TPB
        while c < cols:
            best = max(best, x[r, c])
            c += TPB
    else:
        best = float32(0.0)  # nothing to look at: contribute nothing
    s = cuda.shared.array(TPB, float32)
    s[t] = best
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] = max(s[t], s[t + stride])
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        m[r] = s[0]
""",
        fail=["hidden"],
        passes=[],
        reason="hidden cases",
        why=(
            "Threads with no column put 0.0 (not -inf) in the tree, so every row with fewer "
            "than TPB columns whose values are all negative gets max 0; exact on rows of >= 128 "
            "columns or with any positive value. The hidden domain has such rows in every draw "
            "(a single column, fewer columns than a warp, cols = 127, rows offset by up to -1000); "
            "public 2x1 / 4x100 also fail whenever a row is drawn negative, so no quality point "
            "is guaranteed."
        ),
    ),
    "hox23_histogram_global_edge_code_64": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i >= values.size:
        return
    v = values[i]
    if v > BINS:  # codes above 63 are failed readings
        return
    cuda.atomic.add(hist, v, 1)
""",
        fail=["bounds", "hidden"],
        passes=[],
        reason="out-of-bounds",
        why=(
            "Off by one on the bin edge: the code 64 (the first failed reading) passes the "
            "guard and its atomic hits hist[64], one past the end (compute-sanitizer: invalid "
            "global atomic); every other value, including 65..255, is right. A stream of bytes "
            "uniform over 0..255 holds a 64 with probability 1-(255/256)^n (98% at n=1000), so "
            "public and hidden uniform cases fail; if the grader's 'uniform' stream draws only "
            "readings 0..63, no case holds 64 and the bug is never seen (a domain gap)."
        ),
    ),
    "hox23_softmax_fused_first_value_reference": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    sm = cuda.shared.array(TPB, float32)
    ss = cuda.shared.array(TPB, float32)
    # my pair (m, s) with s = sum of exp(v - m) over my columns. Any reference m works,
    # the tree below rescales the pairs to the common max, so I keep my first value.
    m = float32(-math.inf)
    s = float32(0.0)
    if t < cols:
        m = x[r, t]
        s = float32(1.0)
        c = t + TPB
        while c < cols:
            s += math.exp(x[r, c] - m)
            c += TPB
    sm[t] = m
    ss[t] = s
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m1 = sm[t]
            m2 = sm[t + stride]
            big = max(m1, m2)
            if big != -math.inf:  # two idle threads: keep (-inf, 0)
                ss[t] = ss[t] * math.exp(m1 - big) + ss[t + stride] * math.exp(m2 - big)
                sm[t] = big
        cuda.syncthreads()
        stride //= 2
    big = sm[0]
    total = ss[0]
    c = t
    while c < cols:
        out[r, c] = math.exp(x[r, c] - big) / total
        c += TPB
""",
        fail=["hidden"],
        passes=[],
        reason="hidden cases",
        why=(
            "A thread's running sum uses its first value as the exponent's reference and never "
            "raises it, so exp(v - first) overflows float32 to inf as soon as one of its later "
            "columns lies more than 88.7 above its first (then the row is 0 or nan); with the "
            "notebook's +-4 spread, or rows of <= 128 columns (one column per thread), it is "
            "exact. The hidden domain has it: values spread +-100, a rising row, a row of 4096 "
            "columns (32 values per thread); the public 3x300 fails too if its spread is +-100."
        ),
    ),
    "hox23_block_scan_int_quarters_round_half_up": dict(
        exercise="08_scan",
        part="block_scan",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    # the inputs are multiples of 1/4: scan them as integer quarters, integer adds are exact
    s = cuda.shared.array(TPB, np.int32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    q = 0
    if i < x.size:
        q = int32(x[i] * 4.0 + 0.5)  # round to the nearest quarter
    s[t] = q
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        cuda.syncthreads()
        d *= 2
    if t == TPB - 1:
        block_sums[b] = float32(s[TPB - 1]) * float32(0.25)
        s[TPB - 1] = 0
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
        out[i] = float32(s[t] + q) * float32(0.25)
""",
        fail=["hidden"],
        passes=[],
        reason="hidden cases",
        why=(
            "int32(v*4 + 0.5) truncates toward zero, so it rounds every negative quarter up by "
            "one (-2.75 -> -10 quarters = -2.5): exact on positive data, wrong on each block "
            "holding a negative value. The notebook's own demo uses +-1..9; if the grader's "
            "'small nonzero multiples of 1/4' include negatives, public and hidden fail; if "
            "they are all positive, no case exposes it (domain gap)."
        ),
    ),
    # ------------------------------------------------------------------ correct but off the brief
    "hox23_block_sum_one_shared_atomic_slot": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    total = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t == 0:
        total[0] = float32(0.0)
    cuda.syncthreads()
    if i < x.size:
        cuda.atomic.add(total, 0, x[i])  # no tree needed: the SM adds them for us
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = total[0]
""",
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        reason="atomics",
        why=(
            "Correct sums (float atomics in any order stay within rtol 1e-4), no race, each "
            "input read once, but all 128 threads of a block atomically add into one shared "
            "word: 128 serialised atomics on one address, above the TPB/32 = 4 the guide allows."
        ),
    ),
    "hox23_matmul_tiled_only_a_staged": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, k = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for p in range((k + TILE - 1) // TILE):
        a_col = p * TILE + tx
        if row < m and a_col < k:
            sA[ty, tx] = A[row, a_col]
        else:
            sA[ty, tx] = float32(0.0)
        cuda.syncthreads()
        # B is read straight from global memory: consecutive tx read consecutive columns,
        # so the loads are coalesced anyway
        for q in range(TILE):
            kk = p * TILE + q
            if kk < k and col < n:
                acc += sA[ty, q] * B[kk, col]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="global loads",
        why=(
            "Right product, guarded, both barriers in place, but only A is tiled: each thread "
            "makes ceil(k/TILE) loads of A plus k loads of B, above 2 ceil(k/TILE) + 1 for any "
            "k >= 3 (the public 20x18 @ 18x33 already: 2 + 18 = 20 > 5)."
        ),
    ),
}

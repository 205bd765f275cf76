"""Blind set a31: integer and float semantics at their edges: floor division and modulo of negatives, negative indices, unsigned casts, shifts, float32 range, float-to-int truncation, inf arithmetic"""

# Notes on the rules (INSTRUCTOR.md), for whoever runs this set:
# * Every expected grade below follows from numba's typing as numba-cuda 0.30 compiles it for
#   sm_80 (checked with compile_ptx and the typed IR of each kernel), not from Python's or C's:
#   integer arithmetic is done in at least 64 bits (int32 + int32 is int64, uint32 - 1 is the
#   int64 -1), uint64 mixed with int64 is float64, a cast such as uint32(-3) wraps at the cast,
#   // and % round toward minus infinity, >> of a signed value copies the sign bit, and a
#   negative index of a signed type is wrapped by adding the axis length (plain indexing and
#   cuda.atomic alike: numba-cuda's atomic lowering calls get_item_pointer with wraparound=True).
# * The shuffle mask is truncated to its low 32 bits by numba-cuda (builder.trunc(membermask,
#   i32)), so an int64 mask of -1 names all 32 lanes on a GPU.
# * Left out as unclear: a case in which lanes 4..31 of warp 0 skip the second stage but still
#   have code to run after it, while the full mask names them. The guide fails `masks` there,
#   but does not say whether lane 0's sum (read only from lanes that did reach the shuffle) counts
#   as defined for `public`/`hidden`, and a GPU may hang; so no such case is in this set.
# * Left out as unclear: histogram cases whose failure depends on codes >= 128 (an int8 cast):
#   the guide does not say whether the public streams ("uniform", "all equal") hold failed codes,
#   so whether `public` fails could not be settled.

CASES = {}

# --------------------------------------------------------------------------------------------
# Full marks: correct kernels whose correctness rests on an edge of numba's semantics.
# --------------------------------------------------------------------------------------------

# Full marks (6/6): j % n == j is numba's floor modulo (C's remainder would let j = -1 pass);
# w[~t] is w[-1 - t], a signed negative index wrapped to w[K - 1 - t]. Verified: compile_ptx
# sm_80; thread-by-thread numba-CPU run vs conv1d_spec on the public and 11 hidden-style cases
# (K = 1, K = 15/17, K > n with r > n, n = 127/129/257).
CASES["hof31_conv1d_invert_and_floormod"] = dict(
    exercise="02_conv1d",
    part="conv1d",
    kernel='''
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    if i < n:
        r = w.size // 2
        acc = float32(0.0)
        for t in range(w.size):
            j = i - r + t  # the input tap t meets; below 0 or past the end near the borders
            # numba's % is Python's: j % n lies in [0, n) even for a negative j, so it equals j
            # exactly when 0 <= j < n (C's remainder would keep the sign and let j = -1 through)
            if j % n == j:
                # ~t == -1 - t, a negative index that wraps to w[K - 1 - t]: the flipped filter
                acc += w[~t] * x[j]
        out[i] = acc
''',
    full=True,
)

# Full marks (6/6): -(-k // TILE) is ceil(k / TILE) because // floors negatives; acc = 0 is
# typed Literal[int] then float64 (typed IR), never truncated. Verified: compile_ptx sm_80, typed
# IR, numba CUDA simulator on the public and 6 hidden-style shapes; two barriers per k step,
# at most 2 loads per thread per step (2 ceil(k/TILE) per thread).
CASES["hof31_matmul_tiled_negfloor_ceil"] = dict(
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
    acc = 0  # an int literal: numba unifies it with the float32 products, so acc is a float64
    # ceil(k / TILE) as -(-k // TILE): // floors, so -k // TILE rounds -k down, i.e. k up
    for p in range(-(-k // TILE)):
        a_col = p * TILE + tx
        b_row = p * TILE + ty
        if row < m and a_col < k:
            sA[ty, tx] = A[row, a_col]
        else:
            sA[ty, tx] = 0
        if b_row < k and col < n:
            sB[ty, tx] = B[b_row, col]
        else:
            sB[ty, tx] = 0
        cuda.syncthreads()
        for q in range(TILE):
            acc += sA[ty, q] * sB[q, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
    full=True,
)

# Full marks (5/5): cuda.atomic.add(hist, b, 1) with b in -64..-1; numba-cuda's atomic lowering
# wraps signed negative indices (the sm_80 PTX adds hist.shape[0]: address (v + 64) * 4 - 256).
# Verified: compile_ptx + PTX read, numba-CPU thread-by-thread run on uniform 0..255,
# 0..63, all-equal, hot-bin and 63/64/255 streams, n = 1, 127, 129. One load + one atomic a thread.
CASES["hof31_hist_global_negative_atomic_index"] = dict(
    exercise="07_histogram",
    part="histogram_global",
    kernel='''
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        b = int32(values[i]) - BINS  # readings 0..63 become -64..-1, failed codes 0..191
        if b < 0:
            # a negative index of a signed type wraps as in NumPy, for atomics too:
            # hist[b] is hist[b + 64], the reading's own bin
            cuda.atomic.add(hist, b, 1)
''',
    full=True,
)

# Full marks (8/8): swizzle column (c - r) % TILE, in 0..31 thanks to floor modulo; write banks
# (tx - r) mod 32 and read banks (r - tx) mod 32 are 32 distinct banks per warp request (checked
# for all 32 row offsets: 1 wavefront each, 1024 distinct slots). Verified: compile_ptx sm_80,
# numba CUDA simulator exact on 40x70, 32x32, 5x3, 31x33, 33x31, 1x45, 45x1, 7x20, 65x63.
CASES["hof31_transpose_padded_negmod_swizzle"] = dict(
    exercise="09_transpose",
    part="transpose_padded",
    kernel='''
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows, cols = a.shape
    x0 = cuda.blockIdx.x * TILE
    y0 = cuda.blockIdx.y * TILE
    for k in range(0, TILE, BLOCK_ROWS):
        r = ty + k
        if y0 + r < rows and x0 + tx < cols:
            # element (r, c) of the tile lives in column (c - r) % TILE of row r; numba's % of a
            # negative number is Python's, so the column stays in 0..31
            tile[r, (tx - r) % TILE] = a[y0 + r, x0 + tx]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        r = ty + k
        if x0 + r < cols and y0 + tx < rows:
            out[x0 + r, y0 + tx] = tile[tx, (r - tx) % TILE]  # element (tx, r) of the tile
''',
    full=True,
)

# Full marks (9/9): lanes = ~0 >> (32 - WARPS) is the int64 -1 (typed IR: int64; the PTX passes
# membermask -1 = 0xFFFFFFFF after numba-cuda's trunc to i32), and all 32 lanes of warp 0 run the
# second stage, so the mask names exactly the lanes that arrive. Verified: compile_ptx + PTX read,
# NumPy lane model of both shuffle stages for n = 1, 5, 64, 96, 100, 127, 128, 129, 224, 256, 1000, 5000.
CASES["hof31_warp_mask_arithmetic_shift"] = dict(
    exercise="10_warp_reduce",
    part="block_sum_warp",
    kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t & 31
    warp = t >> 5
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for offset in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        # "the lanes that hold a warp sum": in C, ~0u >> 28 would be 0xF. Here ~0 is the int64 -1
        # and >> copies its sign bit, so the mask is -1, whose low 32 bits name the whole warp;
        # and the whole warp does run this stage, with 0.0 in lanes >= WARPS.
        lanes = ~0 >> (32 - WARPS)
        s = warp_sums[lane] if lane < WARPS else float32(0.0)
        s += cuda.shfl_down_sync(lanes, s, 2)
        s += cuda.shfl_down_sync(lanes, s, 1)
        if lane == 0:
            partial[cuda.blockIdx.x] = s
''',
    full=True,
)

# --------------------------------------------------------------------------------------------
# Wrong on a GPU because of such a rule.
# --------------------------------------------------------------------------------------------

CASES["hof31_conv1d_uint32_plus_int64"] = dict(
    exercise="02_conv1d",
    part="conv1d",
    extra_cells=['''from numba import uint32
'''],
    kernel='''
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    if i < n:
        r = w.size // 2
        acc = float32(0.0)
        for t in range(w.size):
            # C habit: an unsigned j wraps to a huge value below 0, so one test covers both
            # borders. In numba uint32 + int64 is an int64: j is simply negative there.
            j = uint32(i) + r - t
            if j < n:
                acc += w[t] * x[j]
        out[i] = acc
''',
    fail=["public", "hidden", "bounds", "parallel"],
    passes=[],
    reason="wrong values",
    why="uint32(i) + r - t is typed int64 (uint32 fits in int64), so for i < r the tap j is "
        "-1 or -2 (K=5, n=1000), passes j < n, and x[-1], x[-2] wrap to x[999], x[998]: "
        "out[0] and out[1] gain w[3]*x[999] + w[4]*x[998] and w[4]*x[999] instead of zero "
        "padding, on every public case (n=9, K=7 reads x[-3..-1] too)",
)

CASES["hof31_blur2d_unsigned_clamp"] = dict(
    exercise="04_conv2d",
    part="blur2d",
    extra_cells=['''from numba import uint32
'''],
    kernel='''
@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    if row < h and col < wd:
        K = w.shape[0]
        r = K // 2
        acc = float32(0.0)
        for dy in range(K):
            # one-sided clamp, C style: "a negative row wraps to a huge unsigned, min() then
            # brings it back"... but back to the LAST row, not to row 0
            yy = min(uint32(row + dy - r), uint32(h - 1))
            for dx in range(K):
                xx = min(uint32(col + dx - r), uint32(wd - 1))
                acc += w[dy, dx] * img[yy, xx]
        out[row, col] = acc
''',
    fail=["public", "hidden", "bounds", "parallel"],
    passes=[],
    reason="wrong values",
    why="uint32(-1) is 4294967295 (the cast wraps, and min of two uint32 stays uint32), so "
        "min(uint32(row - 1), uint32(h - 1)) is h - 1: on the 20x33 image with the 5x5 filter "
        "pixel (0, 0) averages rows 19, 19, 0, 1, 2 and columns 32, 32, 0, 1, 2 where the "
        "replicated border wants rows 0, 0, 0, 1, 2 and columns 0, 0, 0, 1, 2",
)

CASES["hof31_block_sum_true_division_stride"] = dict(
    exercise="05_reduction",
    part="block_sum",
    kernel='''
@cuda.jit
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.size:
        sh[t] = x[i]
    else:
        sh[t] = 0.0
    cuda.syncthreads()
    s = TPB / 2  # Python 3: / is true division, 64.0: s is a float64 for good
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = sh[0]
''',
    fail=["public", "hidden", "sync", "parallel", "memory"],
    passes=[],
    reason="compile",
    why="TPB / 2 is 64.0, a float64 (and // of a float stays a float), so t + s is a float64 "
        "and sh[t + s] is getitem(array(float32, 1d, C), float64): compile_ptx raises numba's "
        "TypingError (Unsupported array index type float64), and a kernel that does not "
        "compile for sm_80 scores 0 on every criterion",
)

CASES["hof31_block_scan_int32_tile_truncates"] = dict(
    exercise="08_scan",
    part="block_scan",
    extra_cells=['''from numba import int32
'''],
    kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    tile = cuda.shared.array(TPB, int32)  # the demo's values are whole numbers...
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    tile[t] = v  # float32 -> int32 truncates toward zero: 0.75 -> 0, -1.25 -> -1
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            tile[k] += tile[k - d]
        cuda.syncthreads()
        d *= 2
    if t == 0:
        block_sums[cuda.blockIdx.x] = tile[TPB - 1]
        tile[TPB - 1] = 0
    cuda.syncthreads()
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = tile[k - d]
            tile[k - d] = tile[k]
            tile[k] += left
        cuda.syncthreads()
        d //= 2
    if i < x.size:
        out[i] = tile[t] + v
''',
    fail=["public", "hidden", "bounds", "sync", "parallel", "work"],
    passes=[],
    reason="wrong values",
    why="storing a float32 into the int32 tile converts it toward zero, so every quarter "
        "(0.25, -0.75, 1.5 ...) loses its fraction before the up-sweep: with the grader's "
        "inputs (nonzero multiples of 1/4) the exclusive prefix of each element and the block "
        "totals miss the fractions of the elements before it, e.g. x = [0.25, 0.5] gives "
        "out[1] = 0 + 0.5 instead of 0.75",
)

CASES["hof31_add_offsets_uint32_minus_one"] = dict(
    exercise="08_scan",
    part="add_block_offsets",
    extra_cells=['''from numba import uint32
'''],
    kernel='''
@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    # C habit: for block 0, prev wraps to 0xFFFFFFFF and fails the test below.
    # In numba uint32 - 1 (an int64 literal) is an int64: prev is -1 there.
    prev = uint32(cuda.blockIdx.x) - 1
    if i < out.size and prev < offsets.size:
        out[i] += offsets[prev]
''',
    fail=["public", "hidden", "bounds", "parallel"],
    passes=[],
    reason="wrong values",
    why="uint32(0) - 1 is typed int64 and equals -1, which is < offsets.size, so every thread "
        "of block 0 adds offsets[-1], wrapped to offsets[blocks - 1], the sum of the whole "
        "array: for n = 1000 the first 128 outputs are off by sum(x) (nonzero for the "
        "grader's random quarters)",
)

CASES["hof31_softmax_fused_neutral_overflows_float32"] = dict(
    exercise="11_softmax",
    part="softmax_fused",
    kernel='''
@cuda.jit
def softmax_fused(x, out):
    sm = cuda.shared.array(TPB, float32)
    ss = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    m = -1e39  # "minus infinity, but finite, so that m - M is never -inf - (-inf)"
    s = 0.0
    for c in range(t, cols, TPB):
        v = x[r, c]
        if v > m:
            s = s * math.exp(m - v) + 1.0
            m = v
        else:
            s += math.exp(v - m)
    sm[t] = m
    ss[t] = s
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m1 = sm[t]
            m2 = sm[t + stride]
            mx = max(m1, m2)
            ss[t] = ss[t] * math.exp(m1 - mx) + ss[t + stride] * math.exp(m2 - mx)
            sm[t] = mx
        cuda.syncthreads()
        stride //= 2
    mx = sm[0]
    total = ss[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - mx) / total
''',
    fail=["public", "hidden", "bounds", "sync", "parallel", "memory"],
    passes=[],
    reason="nan",
    why="-1e39 is a finite float64 in the register, but sm is float32 and 1e39 > 3.4e38, so a "
        "thread that saw no column stores -inf; for rows under 64 columns (public 2x37, hidden "
        "single column) the first tree step pairs two such threads (t and t + 64, both >= cols) "
        "and computes 0 * exp(-inf - (-inf)) = 0 * exp(nan) = nan, which reaches sm[0]/ss[0] "
        "and every output of the row",
)

CASES["hof31_row_max_branchless_abs_inf"] = dict(
    exercise="11_softmax",
    part="row_max",
    kernel='''
@cuda.jit
def row_max(x, m):
    sh = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    best = x[r, t] if t < cols else float32(-math.inf)
    for c in range(t + TPB, cols, TPB):
        v = x[r, c]
        best = (best + v + abs(best - v)) * float32(0.5)  # max(a, b) = (a + b + |a - b|) / 2
    sh[t] = best
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            a = sh[t]
            b = sh[t + s]
            sh[t] = (a + b + abs(a - b)) * float32(0.5)
        cuda.syncthreads()
        s //= 2
    if t == 0:
        m[r] = sh[0]
''',
    fail=["public", "hidden", "sync", "parallel"],
    passes=[],
    reason="nan",
    why="the branchless max is not max at infinity: a thread past the row's end brings -inf, "
        "and (a + (-inf) + |a - (-inf)|) / 2 = (-inf + inf) / 2 = nan, so every row shorter "
        "than TPB = 128 columns (public 4x100 and 2x1, hidden single column) gets m = nan",
)

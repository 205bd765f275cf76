"""Submissions on NUMERICS (what numba-cuda types and a GPU computes, against what
Python or NumPy would compute).

Each kernel was written from the student notebook and INSTRUCTOR.md alone, as a student would;
its text replaces the stub cell of its notebook, after the notebook's setup cells, so the names those
cells define (np, cuda, math where imported, float32 / int32 where imported, TPB, BINS, TILE, R,
HALO, WARPS, FULL_MASK) are available.

Every kernel was compiled with numba.cuda.compile_ptx for sm_80 with the argument types of the
exercise (pdc/ptx/manifest.py's table); the one that must not compile (hor_wr_math_floor_warp_index)
fails there with numba's typing error. Numerics were checked with numba.njit on the same typed
arithmetic (error_model="numpy" where a division is involved), with NumPy float16/float32/float64
emulations, and with the PTX.

Two kinds:
  correct, depends on GPU numerics        -> full=True
  wrong, only GPU numerics expose it      -> fail=[...], passes=[...], reason, why
"""

CASES = {
    # ============================================================== correct (full marks)
    "hor_sx_explicit_fma": dict(
        exercise="01_elementwise",
        part="saxpy",
        kernel='''
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        # one rounding instead of two: the same fma.rn.f32 that numba-cuda (NVVM contracts a * x + y
        # by default) emits for the plain expression, so the GPU output equals the model answer's
        out[i] = cuda.fma(alpha, x[i], y[i])
''',
        full=True,
    ),
    "hor_cv_uint32_single_compare": dict(
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
        for j in range(w.size):
            # one unsigned compare guards both borders: left of the signal, i + r - j is negative
            # and np.uint32 of it wraps to ~4.29e9 (numba truncates int64 -> uint32), which is >= n
            src = np.uint32(i + r - j)
            if src < n:
                acc += w[j] * x[src]
        out[i] = acc
''',
        full=True,
    ),
    "hor_bt_neg_floordiv_ceil": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    h = img.shape[0]
    wd = img.shape[1]
    row0 = cuda.blockIdx.y * TILE - R
    col0 = cuda.blockIdx.x * TILE - R
    # passes = ceil(HALO^2 / TILE^2) as -(-a // b): correct only because // floors toward minus
    # infinity (-400 // 256 == -2, so 2 passes); C's truncating division would give 1 pass
    passes = -((-HALO * HALO) // (TILE * TILE))
    flat = ty * TILE + tx
    for p in range(passes):
        k = p * TILE * TILE + flat
        if k < HALO * HALO:
            ly = k // HALO
            lx = k % HALO
            y = min(max(row0 + ly, 0), h - 1)
            xx = min(max(col0 + lx, 0), wd - 1)
            tile[ly, lx] = img[y, xx]
    cuda.syncthreads()
    row = row0 + R + ty
    col = col0 + R + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
''',
        full=True,
    ),
    "hor_hg_uint8_minus_bins_widened": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel='''
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        # uint8 minus a Python int: numba types it int64 (not uint8 as NumPy 2 would), so a
        # reading (0..63) gives a negative number and a failed reading (64..255) does not
        below = values[i] - BINS
        if below < 0:
            cuda.atomic.add(hist, below + BINS, 1)
''',
        full=True,
    ),
    "hor_abo_floor_div_prev_block": dict(
        exercise="08_scan",
        part="add_block_offsets",
        kernel='''
@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    if i < out.size:
        # the previous block, from the index alone: (i - TPB) // TPB floors, so it is -1 for
        # every element of block 0 (a truncating division would give 0 for i = 1..TPB-1)
        prev = (i - TPB) // TPB
        if prev >= 0:
            out[i] += offsets[prev]
''',
        full=True,
    ),
    "hor_es_fastmath_expf": dict(
        exercise="11_softmax",
        part="exp_sum",
        kernel='''
@cuda.jit(fastmath=True)
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    mr = m[r]
    acc = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        # fastmath: ex2.approx.ftz of (x - m) * log2(e); every argument is <= 0, so the
        # approximation's error (~1e-6 relative for the terms that matter) stays in tolerance,
        # and terms below 2^-126 flush to 0
        v = math.exp(x[r, c] - mr)
        e[r, c] = v
        acc += v
    buf[t] = acc
    cuda.syncthreads()
    stride = TPB >> 1
    while stride > 0:
        if t < stride:
            buf[t] += buf[t + stride]
        cuda.syncthreads()
        stride >>= 1
    if t == 0:
        s[r] = buf[0]
''',
        full=True,
    ),
    "hor_nz_log_exp_normalize": dict(
        exercise="11_softmax",
        part="normalize",
        kernel='''
@cuda.jit
def normalize(e, s, out):
    col, row = cuda.grid(2)
    if row < out.shape[0] and col < out.shape[1]:
        # e / s as exp(log e - log s): an e that underflowed to 0.0 has log -inf (float32 logf,
        # no exception on a GPU), and exp(-inf) is exactly 0.0, the expected output
        out[row, col] = math.exp(math.log(e[row, col]) - math.log(s[row]))
''',
        full=True,
    ),
    "hor_sf_reciprocal_overflow": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit
def softmax_fused(x, out):
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    total = float32(0.0)
    for c in range(t, cols, TPB):
        v = x[r, c]
        if v > m:
            # rescale by dividing: exp(v - m) is +inf on the first value (m = -inf) and whenever
            # v - m > 88.7 (float32 expf overflows); total / inf = 0, the right limit
            total = total / math.exp(v - m) + float32(1.0)
            m = v
        else:
            total += math.exp(v - m)
    s_max[t] = m
    s_sum[t] = total
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m1 = s_max[t]
            m2 = s_max[t + stride]
            s2 = s_sum[t + stride]
            if s2 > float32(0.0):  # a partner that saw no column adds nothing
                if m2 > m1:
                    s_sum[t] = s_sum[t] / math.exp(m2 - m1) + s2  # m1 = -inf: 0 / inf = 0
                    s_max[t] = m2
                else:
                    s_sum[t] += s2 / math.exp(m1 - m2)
        cuda.syncthreads()
        stride //= 2
    m = s_max[0]
    total = s_sum[0]
    for c in range(t, cols, TPB):
        # 1 / (total * exp(m - x)): for x more than 88.7 below the max, exp gives inf, the
        # product inf, and 1 / inf = 0, which is what the spec rounds to in float32
        out[r, c] = float32(1.0) / (total * math.exp(m - x[r, c]))
''',
        full=True,
    ),
    # ============================================================== wrong (GPU numerics expose)
    "hor_bl_uint32_clamp": dict(
        exercise="04_conv2d",
        part="blur2d",
        kernel='''
@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h = img.shape[0]
    wd = img.shape[1]
    if row < h and col < wd:
        r = w.shape[0] // 2
        acc = float32(0.0)
        for dy in range(w.shape[0]):
            # unsigned, so it "cannot go below 0": only the upper clamp seems needed
            y = min(np.uint32(row + dy - r), h - 1)
            for dx in range(w.shape[1]):
                xx = min(np.uint32(col + dx - r), wd - 1)
                acc += w[dy, dx] * img[y, xx]
        out[row, col] = acc
''',
        fail=["public", "hidden"],
        passes=[],
        reason="",
        why=(
            "numba converts a negative int64 to uint32 by truncation: np.uint32(-1) = 4294967295, "
            "and min(4294967295, h - 1) = h - 1. So every pixel within r of the top (left) border "
            "reads the BOTTOM row (RIGHT column) for its out-of-image neighbours instead of "
            "replicating the top (left) edge. Wrong for every image and every filter with K >= 3 "
            "(njit on a 20 x 23 image of values in [0, 1) with normalised weights: max error 0.24 "
            "for K = 3, 0.19 for K = 5; K = 1 alone is right); all indices stay in range, so no bounds finding. (NumPy 2 would raise "
            "OverflowError on np.uint32(-1); a simulator must wrap as the GPU does.)"
        ),
    ),
    "hor_bs_float16_tree": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, np.float16)  # half the shared memory of a float32 tile
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = np.float16(x[i]) if i < x.size else np.float16(0.0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = float32(s[0])
''',
        fail=["hidden"],
        passes=[],
        reason="",
        why=(
            "numba-cuda types np.float16 values as float16: the loads are rounded to half "
            "precision (cvt.rn.f16.f32) and every tree step is a half add (__hadd, round to "
            "nearest in float16). For uniform [0, 1) values a full block sums to ~64, where a "
            "float16 ulp is 0.03125: emulated with NumPy float16, partial sums are off by ~1e-3 "
            "relative (e.g. 63.9 vs 63.94), far beyond the rtol/atol 1e-5 of the notebook's check (NumPy float16 emulation: abs "
            "error 9e-5 already for n = 1 uniform, 2e-2 for a full block). Not asserted for "
            "public only because integer-valued inputs (|sum| <= 2048) would be exact in float16."
        ),
    ),
    "hor_hg_uint8_minus_uint8_unsigned": dict(
        exercise="07_histogram",
        part="histogram_global",
        kernel='''
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        below = v - np.uint8(BINS)  # keep the arithmetic in the input's dtype
        if below < 0:  # a reading is below BINS
            cuda.atomic.add(hist, v, 1)
''',
        fail=["public", "hidden"],
        passes=[],
        reason="",
        why=(
            "numba types uint8 - uint8 as uint64, so the difference wraps to ~1.8e19 instead of "
            "going negative, and `uint64 < 0` is constant false (the PTX of the comparison is "
            "a constant 0; njit gives False for v = 3). No value is ever counted: hist stays all "
            "zeros on any stream that holds a reading. Contrast hor_hg_uint8_minus_bins_widened "
            "(uint8 - int literal is int64 and works)."
        ),
    ),
    "hor_hs_packed_byte_counters": dict(
        exercise="07_histogram",
        part="histogram_shared",
        kernel='''
WORDS = BINS // 4  # four 8-bit counters per 32-bit word: a quarter of the shared atomics' targets


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(WORDS, int32)
    t = cuda.threadIdx.x
    if t < WORDS:
        s[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v >> 2, 1 << ((v & 3) * 8))
        i += step
    cuda.syncthreads()
    b = t
    while b < BINS:
        count = (s[b >> 2] >> ((b & 3) * 8)) & 0xFF
        if count != 0:
            cuda.atomic.add(hist, b, count)
        b += TPB
''',
        fail=["hidden"],
        passes=[],
        reason="",
        why=(
            "Each bin's per-block count lives in 8 bits of an int32 word: at 256 it carries into "
            "the next bin's byte (and the top byte overflows the int32 and is lost), so the flush "
            "reads count mod 256 and the neighbour gains 1. With BLOCKS x TPB = 4 x 128 a block "
            "sees n / 4 values: the boundary 'more than 8 values per thread, skewed (three hot "
            "bins)' has n > 4096, over 1024 values per block, and a hot bin then gets several "
            "hundred per block (njit emulation, n = 5000, p = 0.5/0.3/0.2 on bins 5/17/42: bin 5 "
            "2494 -> 446, bin 17 1473 -> 449, bins 6 and 18 gain 8 and 4; one repeated value, "
            "n = 2000: 2000 -> 208). Streams with fewer than 256 of one code per block (n = 600 "
            "of one value, uniform streams) are exact, so public may pass."
        ),
    ),
    "hor_abo_int_trunc_negative": dict(
        exercise="08_scan",
        part="add_block_offsets",
        kernel='''
@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    if i < out.size:
        prev = int((i - TPB) / TPB)  # the block before mine: -1 in block 0, which adds nothing
        if prev >= 0:
            out[i] += offsets[prev]
''',
        fail=["public", "hidden"],
        passes=[],
        reason="",
        why=(
            "(i - TPB) / TPB is a float64 true division and int() truncates toward zero "
            "(cvt.rzi): for i = 1..TPB-1 the quotient is in (-1, 0) and int() gives 0, so "
            "elements 1..127 of block 0 wrongly add offsets[0] (only i = 0 gives exactly -1.0). "
            "Every case has n > TPB, so block 0 always holds such elements and every case fails "
            "(njit: prev(1) = 0, prev(127) = 0, prev(0) = -1). Contrast "
            "hor_abo_floor_div_prev_block, whose // floors."
        ),
    ),
    "hor_wr_math_floor_warp_index": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = math.floor(t / 32)  # which warp of the block I am in
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
''',
        fail=["public", "hidden", "sync", "parallel", "masks", "barriers", "registers"],
        passes=[],
        reason="",
        why=(
            "In numba-cuda, math.floor of a float returns a float (float64 here: t / 32 is a "
            "true division), unlike CPython and numba's CPU target, which return an int. "
            "warp_sums[warp] is then a float64 index, and numba-cuda refuses to compile: "
            "'No implementation of function setitem(array(float32, 1d, C), float64, float32)'. "
            "A kernel that does not compile for sm_80 scores 0 for its part."
        ),
    ),
    "hor_sf_first_value_reference": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit
def softmax_fused(x, out):
    s_sum = cuda.shared.array(TPB, float32)
    s_ref = cuda.shared.array(1, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    ref = float32(0.0)
    total = float32(0.0)
    for c in range(t, cols, TPB):
        v = x[r, c]
        if c == t:
            ref = v  # any reference cancels in exp(x - ref) / sum exp(x - ref): take my first value
        total += math.exp(v - ref)
    if t == 0:
        s_ref[0] = ref  # x[r, 0]: the row's common reference
    cuda.syncthreads()
    ref0 = s_ref[0]
    if total > float32(0.0):
        s_sum[t] = total * math.exp(ref - ref0)
    else:
        s_sum[t] = float32(0.0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s_sum[t] += s_sum[t + stride]
        cuda.syncthreads()
        stride //= 2
    total = s_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - ref0) / total
''',
        fail=["hidden"],
        passes=[],
        reason="",
        why=(
            "Mathematically exact (the reference x[r, 0] cancels), and in float64 it is right on "
            "every input of the domain (|x - x[r, 0]| <= 200, exp(200) ~ 7e86). But the GPU "
            "computes float32 expf, which overflows to inf above 88.72: in any row whose max "
            "exceeds its first value by more than 88.72 (the boundary 'rows spread +-100 around "
            "0, one rising': the rising row starts at its minimum, ~200 below its max; also most "
            "rows spread +-100 with a few dozen columns) a thread's sum is inf, the row total "
            "inf, and out is 0 or inf/inf = nan. njit float32 emulation: rising/falling rows of 300 "
            "columns give 167 nan and 279 zero outputs; rows offset by +-1000 and spread +-100 "
            "fail from 5 columns on; the same code in float64 is right on all 28 test matrices. "
            "Rows of small spread (+-4, as in the notebook's offset_rows) are right in float32 "
            "too, so public is not asserted."
        ),
    ),
    "hor_sf_combine_nan_empty": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit
def softmax_fused(x, out):
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    total = float32(0.0)
    for c in range(t, cols, TPB):
        v = x[r, c]
        if v > m:
            total = total * math.exp(m - v) + float32(1.0)
            m = v
        else:
            total += math.exp(v - m)
    s_max[t] = m
    s_sum[t] = total
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m1 = s_max[t]
            m2 = s_max[t + stride]
            mm = max(m1, m2)
            s_sum[t] = s_sum[t] * math.exp(m1 - mm) + s_sum[t + stride] * math.exp(m2 - mm)
            s_max[t] = mm
        cuda.syncthreads()
        stride //= 2
    m = s_max[0]
    total = s_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) / total
''',
        fail=["hidden"],
        passes=[],
        reason="",
        why=(
            "Threads that see no column keep m = -inf, s = 0. When two of them are combined, "
            "m1 - mm = -inf - (-inf) = nan, expf(nan) = nan, and 0 * nan = nan; that nan then "
            "reaches thread 0 (nan * expf(-inf) = nan * 0 = nan), so the whole row is nan. This "
            "happens exactly when cols < TPB / 2 = 64 (the first step pairs t with t + 64): the "
            "boundaries 'a single column' and 'fewer columns than a warp' are in every hidden "
            "draw. Rows of 64 columns or more are right (njit float32 emulation: cols = 1, 20, "
            "63 -> all nan; cols = 64, 200, 300 -> max error < 1e-7)."
        ),
    ),
}

"""Blind set a37: GPU numerics as numba-cuda types them: float32 kept or widened, exp overflow, int8 and float16 casts, fast math"""

# Notes on INSTRUCTOR.md points that were unclear (no case relies on them):
# * Module constants computed by a call other than NumPy's listed constructors
#   (e.g. NEG = -math.inf, LOG2E = 1 / math.log(2) or np.finfo(np.float32).min above a CUDA
#   kernel): the guide says the grader computes constants "from their syntax" for np.arange,
#   np.full, np.repeat, np.tile, .astype, .reshape and arithmetic, and refuses a global it
#   cannot compute; it states math-module constants only for the Triton exercises. Left out;
#   the one table constant used here is built from np.arange and arithmetic.
# * The softmax domain has no -inf or NaN inputs, so no case feeds them.
# * The data distribution of 01_elementwise and 05_reduction is not stated; no case here
#   depends on it beyond "the float32 inputs are not all zero".
# * Public cases of 11_softmax give sizes and offsets but not the spread of the values, so
#   the cases whose failure needs |x - shift| > 88.7 only claim the hidden criterion.

CASES = {}

# ---------------------------------------------------------------------------------------
# Full marks, unusual but correct styles
# ---------------------------------------------------------------------------------------

# Verified: compiles for sm_80 (float64 everywhere: run_m, run_s, sm, ss, big, inv); simulator
# matches softmax_spec (rtol 1e-4, atol 1e-6) on 4x100, 3x300, 2x1, 2x37, 127/129/255/20 columns,
# a 1x4097 row and rising/falling rows spread +-100; empty pairs are skipped by the helper, so no
# nan; x is loaded twice per element and out stored once; one barrier per tree step.
CASES["hol37_fused_f64_online_merge_helper"] = dict(
    exercise="11_softmax",
    part="softmax_fused",
    kernel='''
@cuda.jit(device=True)
def merge(m1, s1, m2, s2):
    # combine two (max, sum of exp(v - max)) pairs; an empty pair is (-inf, 0)
    if m2 == -math.inf:
        return m1, s1
    if m1 == -math.inf:
        return m2, s2
    big = max(m1, m2)
    return big, s1 * math.exp(m1 - big) + s2 * math.exp(m2 - big)


@cuda.jit
def softmax_fused(x, out):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    run_m = -math.inf  # a Python float: numba keeps the whole online pass in float64
    run_s = 0.0
    c = t
    while c < cols:
        run_m, run_s = merge(run_m, run_s, x[r, c] * 1.0, 1.0)
        c += TPB
    sm = cuda.shared.array(TPB, np.float64)
    ss = cuda.shared.array(TPB, np.float64)
    sm[t] = run_m
    ss[t] = run_s
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            sm[t], ss[t] = merge(sm[t], ss[t], sm[t + step], ss[t + step])
        cuda.syncthreads()
        step //= 2
    big = sm[0]
    inv = 1.0 / ss[0]  # one reciprocal, then a multiply per element
    c = t
    while c < cols:
        out[r, c] = math.exp(x[r, c] - big) * inv
        c += TPB
''',
    full=True,
)

# Verified: compiles (PTX computes floor((t - cols) / 128) with the sign fix-up of Python's //);
# simulator exact on the same shapes. With C truncation the public 2x1 case would give thread 0
# steps = -(-1 / 128) = 0 and m = -inf; Python's floor gives -(-1) = 1.
CASES["hol37_rowmax_copysign_fmaxf_floor_ceil"] = dict(
    exercise="11_softmax",
    part="row_max",
    kernel='''
@cuda.jit(device=True)
def bigger(a, b):
    return cuda.libdevice.fmaxf(a, b)


@cuda.jit
def row_max(x, m):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    best = float32(math.copysign(math.inf, -1.0))
    # ceil((cols - t) / TPB) columns for this thread, written with Python's floor division
    steps = -(-(cols - t) // TPB)
    k = 0
    while k < steps:
        best = bigger(best, x[r, t + k * TPB])
        k += 1
    sh = cuda.shared.array(TPB, float32)
    sh[t] = best
    cuda.syncthreads()
    half = TPB // 2
    while half > 0:
        if t < half:
            sh[t] = bigger(sh[t], sh[t + half])
        cuda.syncthreads()
        half //= 2
    if t == 0:
        m[r] = sh[0]
''',
    full=True,
)

# Verified: compiles to mul.ftz.f32 by 0f3FB8AA3B then ex2.approx.ftz.f32 (no inf or nan can
# occur: d = x - m <= 0, so fast-math's no-inf assumption holds). NumPy model of
# exp2(RN32(RN32(x - m) * log2e)) over 2e6 gaps up to 200: max relative error 2.08e-5, plus
# ex2.approx's 2**-22 (the CUDA guide's __expf bound at |d| = 200 is 2.8e-5): 5x inside 1e-4;
# simulator (exact exp) matches on every shape.
CASES["hol37_expsum_fastmath_expf"] = dict(
    exercise="11_softmax",
    part="exp_sum",
    kernel='''
@cuda.jit(fastmath=True)
def exp_sum(x, m, e, s):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    rows, cols = x.shape
    mr = m[r]
    acc = float32(0)
    for c in range(t, cols, TPB):
        v = math.exp(x[r, c] - mr)  # fastmath: __expf, i.e. ex2.approx.ftz(d * log2(e))
        e[r, c] = v
        acc += v
    sh = cuda.shared.array(TPB, float32)
    sh[t] = acc
    cuda.syncthreads()
    half = TPB >> 1
    while half:
        if t < half:
            sh[t] += sh[t + half]
        cuda.syncthreads()
        half >>= 1
    if t == 0:
        s[r] = sh[0]
''',
    full=True,
)

# Verified: compiles (HALVES becomes a 56-byte constant array); simulator matches the spec for
# n = 1000, 128, 5, 127, 129, 256, 31, 1409. Thread 0 makes 1 + 1 + 7 * 3 + 2 = 25 memory
# operations (32 if the 7 constant-table reads count) <= 4 * 7 + 8 = 36; x is read once.
CASES["hol37_blocksum_f64_arange_table"] = dict(
    exercise="05_reduction",
    part="block_sum",
    kernel='''
HALVES = TPB // 2 ** np.arange(1, 8)  # 64, 32, 16, 8, 4, 2, 1


@cuda.jit
def block_sum(x, partial):
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    sh = cuda.shared.array(TPB, np.float64)
    sh[t] = x[i] if i < x.size else 0  # float32 or int: numba unifies them to float64
    cuda.syncthreads()
    for h in HALVES:
        if t < h:
            sh[t] += sh[t + h]
        cuda.syncthreads()
    if t == 0:
        partial[b] = sh[0]
''',
    full=True,
)

# ---------------------------------------------------------------------------------------
# Wrong on a real GPU
# ---------------------------------------------------------------------------------------

CASES["hol37_fused_empty_pairs_nan"] = dict(
    exercise="11_softmax",
    part="softmax_fused",
    kernel='''
@cuda.jit
def softmax_fused(x, out):
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
    sm = cuda.shared.array(TPB, float32)
    ss = cuda.shared.array(TPB, float32)
    sm[t] = m
    ss[t] = s
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            m1 = sm[t]
            m2 = sm[t + step]
            big = max(m1, m2)
            ss[t] = ss[t] * math.exp(m1 - big) + ss[t + step] * math.exp(m2 - big)
            sm[t] = big
        cuda.syncthreads()
        step //= 2
    big = sm[0]
    total = ss[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - big) / total
''',
    fail=["public", "hidden", "bounds", "sync", "parallel", "memory"],
    passes=[],
    reason="wrong values",
    why=(
        "Two threads that saw no column are combined as (-inf, 0) with (-inf, 0): "
        "exp(-inf - (-inf)) = exp(nan) = nan and 0 * nan = nan, so for any row with fewer "
        "than 64 columns (public x 2x37, hidden single column and fewer than a warp) the "
        "NaN sum reaches ss[0] and every output of the row is nan; rows of 64 or more "
        "columns (4x100, 3x300) are right. Public fails, so no quality criterion is awarded."
    ),
)

CASES["hol37_fused_shift_by_first_element"] = dict(
    exercise="11_softmax",
    part="softmax_fused",
    kernel='''
@cuda.jit
def softmax_fused(x, out):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    ref = cuda.shared.array(1, float32)
    sh = cuda.shared.array(TPB, float32)
    if t == 0:
        ref[0] = x[r, 0]  # any value of the row cancels out, so why look for the max?
    cuda.syncthreads()
    shift = ref[0]
    acc = float32(0)
    for c in range(t, cols, TPB):
        acc += math.exp(x[r, c] - shift)
    sh[t] = acc
    cuda.syncthreads()
    half = TPB // 2
    while half > 0:
        if t < half:
            sh[t] += sh[t + half]
        cuda.syncthreads()
        half //= 2
    total = sh[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - shift) / total
''',
    fail=["hidden"],
    passes=[],
    reason="wrong values",
    why=(
        "Shifting by x[r, 0] instead of the max only cancels in exact arithmetic: on the "
        "hidden rising row spread +-100 around 0, x[r, 0] is its minimum (about -100) and "
        "the last columns give x - x0 up to 200 > 88.72, where float32 expf overflows "
        "(np.exp(np.float32(88.73)) = inf); the block sum is inf and the top outputs "
        "inf/inf = nan (the rest 0) where softmax_spec gives e.g. 0.790 for the last of "
        "129 columns; the falling row (x0 is its max) is right. Public sizes pass when their "
        "spread is +-4 and fail at +-100, so public and the quality criteria are not claimed."
    ),
)

CASES["hol37_rowmax_int32_shared_truncates"] = dict(
    exercise="11_softmax",
    part="row_max",
    kernel='''
@cuda.jit
def row_max(x, m):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    sh = cuda.shared.array(TPB, np.int32)  # the histogram's dtype, copied over
    best = float32(-math.inf)
    for c in range(t, x.shape[1], TPB):
        best = max(best, x[r, c])
    sh[t] = best
    cuda.syncthreads()
    half = TPB // 2
    while half > 0:
        if t < half:
            sh[t] = max(sh[t], sh[t + half])
        cuda.syncthreads()
        half //= 2
    if t == 0:
        m[r] = sh[0]
''',
    fail=["public", "hidden", "sync", "parallel"],
    passes=[],
    reason="wrong values",
    why=(
        "Storing the float32 running max into an int32 shared array compiles to "
        "cvt.rzi.s32.f32: the max is truncated toward zero, e.g. a row max of "
        "-937.4173 becomes -937.0 (error 0.417 > 1e-6 + 1e-4 * 937.4 = 0.0937) and 73.52 "
        "becomes 73.0 (0.52 > 0.0074); with float32 values spread +-100 around offsets up "
        "to +-1000 only about 5% of rows have a max within tolerance of its truncation "
        "(NumPy model, 100000 rows; simulator on 3x300 gives 928.0 for 928.59937), so the "
        "public cases fail. Idle threads' -inf saturates to INT_MIN (cvt.rzi), which the "
        "300-column case never has."
    ),
)

CASES["hol37_expsum_base_2718"] = dict(
    exercise="11_softmax",
    part="exp_sum",
    kernel='''
E = 2.718  # Euler's number, close enough


@cuda.jit
def exp_sum(x, m, e, s):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    acc = 0.0
    for c in range(t, cols, TPB):
        v = E ** (x[r, c] - m[r])
        e[r, c] = v
        acc += v
    sh = cuda.shared.array(TPB, float32)
    sh[t] = acc
    cuda.syncthreads()
    half = TPB // 2
    while half > 0:
        if t < half:
            sh[t] += sh[t + half]
        cuda.syncthreads()
        half //= 2
    if t == 0:
        s[r] = sh[0]
''',
    fail=["public", "hidden", "sync", "parallel"],
    passes=[],
    reason="wrong values",
    why=(
        "E = 2.718 is a float64 global, so E ** d is a float64 pow equal to "
        "exp(d * 0.99989632): relative error 1.0368e-4 * |d|, over the softmax tolerance "
        "(1e-4 + 1e-6 / e relative) for every element between 1.0 and 6.3 below its row "
        "max, e.g. d = -2: 0.1353634 vs exp(-2) = 0.1353353 (2.07e-4 > 1.07e-4); rows of "
        "100 and 300 columns hold such elements (0 of 300 modelled draws pass, spread +-4, "
        "+-100 or N(0, 1)), and the hidden 4096-column row always does."
    ),
)

CASES["hol37_expsum_ratio_of_exps_overflows"] = dict(
    exercise="11_softmax",
    part="exp_sum",
    kernel='''
@cuda.jit
def exp_sum(x, m, e, s):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    em = math.exp(m[r])  # exp(x - m) = exp(x) / exp(m): one exp of m per thread
    acc = float32(0)
    for c in range(t, cols, TPB):
        v = math.exp(x[r, c]) / em
        e[r, c] = v
        acc += v
    sh = cuda.shared.array(TPB, float32)
    sh[t] = acc
    cuda.syncthreads()
    half = TPB // 2
    while half > 0:
        if t < half:
            sh[t] += sh[t + half]
        cuda.syncthreads()
        half //= 2
    if t == 0:
        s[r] = sh[0]
''',
    fail=["hidden"],
    passes=[],
    reason="wrong values",
    why=(
        "math.exp of a float32 is expf: it overflows above 88.72, so on the hidden rows "
        "spread +-100 around 0 the max element gives exp(x) / exp(m) = inf / inf = nan and "
        "every element above 88.72 nan, where the spec's exp(x - m) is at most 1 (rows "
        "offset below about -104 give 0 / 0 = nan too, np.exp(np.float32(-104.0)) = 0). Public is not claimed: it fails only "
        "if a public row lies beyond about +-88, which the sizes do not say."
    ),
)

CASES["hol37_multiply_int8_thread_index"] = dict(
    exercise="01_elementwise",
    part="multiply",
    kernel='''
@cuda.jit
def multiply(a, b, out):
    t = np.int8(cuda.threadIdx.x)  # "a thread index fits in a byte"
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    if i < out.size:
        out[i] = a[i] * b[i]
''',
    fail=["public", "hidden", "bounds", "parallel"],
    passes=[],
    reason="bounds",
    why=(
        "np.int8(threadIdx.x) compiles to cvt.s64.s8: threads 128..255 get t - 256, so "
        "i = 256 * (blockIdx - 1) + threadIdx, and the guard i < n lets negative i through. "
        "For n >= 128 every element is still written with its own value (block 0's upper "
        "half wraps to out[n - 128 .. n - 1]; lane model for n = 128 .. 2049), but for the "
        "public n = 1, 127 threads of block 0 (128 .. 254) access a, b and out at -128 .. -2, "
        "below minus the length: out of bounds (thread 200 writes out[-56]), so that case, "
        "bounds, the hidden n < 32 case, and parallel (public failed) are lost."
    ),
)

CASES["hol37_blocksum_math_fsum_no_compile"] = dict(
    exercise="05_reduction",
    part="block_sum",
    extra_cells=['''import math
'''],
    kernel='''
@cuda.jit
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = math.fsum(sh)  # exact, like the float64 reference
''',
    fail=["public", "hidden", "sync", "parallel", "memory"],
    passes=[],
    reason="fsum",
    why=(
        "numba-cuda has no math.fsum: compile_ptx for sm_80 stops with TypingError "
        "\"Unknown attribute 'fsum' of type Module(math)\", so the kernel does not "
        "compile for a GPU and scores 0 on every criterion."
    ),
)

CASES["hol37_normalize_float16_round_trip"] = dict(
    exercise="11_softmax",
    part="normalize",
    kernel='''
@cuda.jit
def normalize(e, s, out):
    col, row = cuda.grid(2)
    if col < e.shape[1]:
        out[row, col] = np.float16(e[row, col] / s[row])  # a probability needs no more
''',
    fail=["public", "hidden", "bounds", "parallel"],
    passes=[],
    reason="wrong values",
    why=(
        "np.float16(...) compiles to cvt.rn.f16.f32 and back: the quotient keeps 11 "
        "significant bits (relative error up to 2**-11 = 4.9e-4), e.g. 0.3 becomes "
        "0.3000488 (error 4.9e-5 > 1e-6 + 1e-4 * 0.3 = 3.1e-5) and 1/37 = 0.02702703 "
        "becomes 0.02702332 (3.71e-6 > 3.70e-6); 0 of 500 modelled public 4x100 and 3x300 "
        "cases pass under five ways of drawing e and s, so public fails (a single column, "
        "out = 1.0, is exact)."
    ),
)

"""Held-out set a22: the cuda.jit decorator's options (fastmath, debug, eager signatures, lineinfo, cache, max_registers) and debugging prints, written blind from the student notebooks and INSTRUCTOR.md."""

CASES = {
    # ------------------------------------------------------------------ 01_elementwise
    "how22_multiply_eager_sig_any_layout": dict(
        exercise="01_elementwise",
        part="multiply",
        kernel="""
# eager compile: the arrays of this notebook are float32, any layout ("[:]" is layout A)
@cuda.jit("void(float32[:], float32[:], float32[:])")
def multiply(a, b, out):
    i = cuda.grid(1)
    if i >= out.shape[0]:
        return  # the idle threads of the last block leave at once
    out[i] = a[i] * b[i]
""",
        full=True,
        why="One signature string makes numba-cuda compile at decoration and dispatch that single "
        "(specialised) kernel; float32 C-contiguous arrays are passed to the layout-A "
        "parameters with their real strides (4 bytes), so every n gives a[i] * b[i].",
    ),
    "how22_saxpy_eager_sig_float64_alpha": dict(
        exercise="01_elementwise",
        part="saxpy",
        kernel="""
# alpha may arrive as a Python float or as np.float32: declare it double, arrays stay float32
@cuda.jit("void(float64, float32[:], float32[:], float32[:])")
def saxpy(alpha, x, y, out):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i < x.size:
        out[i] = alpha * x[i] + y[i]  # double arithmetic, rounded once by the float32 store
""",
        full=True,
        why="With one signature numba-cuda launches the specialised kernel without re-typing: the "
        "scalar is packed with ctypes.c_double(alpha), which takes a Python float or an "
        "np.float32 alike, and alpha * x + y in float64 then rounded to float32 equals the "
        "float64 reference stored as float32; a float64 scalar is not a mismatch for a GPU.",
    ),
    "how22_saxpy_pairs_per_thread_cache": dict(
        exercise="01_elementwise",
        part="saxpy",
        kernel="""
@cuda.jit(cache=True)
def saxpy(alpha, x, y, out):
    # every thread does a pair: element i and element i + half (both coalesced)
    i = cuda.grid(1)
    n = x.size
    half = (n + 1) // 2
    if i == 0:
        print("saxpy: n =", n, "half =", half)  # left in from debugging
    if i < half:
        out[i] = alpha * x[i] + y[i]
        j = i + half
        if j < n:
            out[j] = alpha * x[j] + y[j]
""",
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason="stored 2 outputs",
        why="cache=True only stores the compiled cubin on disk and the single printf from thread 0 "
        "is harmless, so every output is right and in range; but each working thread stores "
        "two outputs (and the upper half of the grid idles) where the brief is one thread per "
        "element, which the guide's parallel criterion forbids.",
    ),
    # ------------------------------------------------------------------ 02_conv1d
    "how22_conv1d_fastmath_inline_tap": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel="""
@cuda.jit(device=True, inline=True)
def tap(x, j):
    # zero padding: nothing exists outside the signal
    if 0 <= j < x.size:
        return x[j]
    return float32(0.0)


@cuda.jit(fastmath=True)
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        K = w.size
        r = K // 2
        acc = float32(0.0)
        j = 0
        while j < K:
            acc += w[j] * tap(x, i + r - j)  # w[j] meets x[i + r - j]: the flipped filter
            j += 1
        out[i] = acc
""",
        full=True,
        why="inline=True (a bool, mapped to inline='always') inlines tap at Numba IR level; "
        "fastmath=True only turns the float32 multiply-adds into ftz FMAs (one rounding "
        "fewer), far inside rtol = atol = 1e-4 for K <= 17, and the guard on j keeps every "
        "x access in range for K > n as well.",
    ),
    "how22_conv1d_eager_sig_float64": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel="""
# copied from my CPU version, which used float64 everywhere
@cuda.jit("void(float64[:], float64[:], float64[:])")
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = 0.0
        for j in range(w.size):
            k = i + r - j
            if 0 <= k < x.size:
                acc += w[j] * x[k]
        out[i] = acc
""",
        fail=["public", "hidden"],
        passes=[],
        reason="signature",
        why="The notebook's arrays are float32; numba-cuda launches a one-signature kernel without "
        "checking argument dtypes, so the float64 code reads 8 bytes at the float32 stride "
        "(4 bytes): every value is garbage, neighbouring threads' 8-byte stores overlap, and "
        "the last thread reads and writes 4 bytes past each buffer (compute-sanitizer: "
        "invalid global read/write) for every n.",
    ),
    # ------------------------------------------------------------------ 05_reduction
    "how22_block_sum_serial_numba_cuda_jit_lineinfo": dict(
        exercise="05_reduction",
        part="block_sum",
        extra_cells=["import numba"],
        kernel="""
@numba.cuda.jit(lineinfo=True)
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    # thread 0 adds the block's values (simple, and profiled with lineinfo)
    if t == 0:
        acc = float32(0.0)
        for k in range(TPB):
            acc += sh[k]
        partial[cuda.blockIdx.x] = acc
""",
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        reason="the work of many",
        why="lineinfo=True only adds a line table for Nsight and numba.cuda.jit is the same "
        "decorator; the sums are right and each element is read once, but thread 0 makes "
        "128 shared loads, far above the 4 log2(TPB) + 8 = 36 memory operations the brief allows.",
    ),
    "how22_block_sum_warp_sync_tail_cjit_maxregs": dict(
        exercise="05_reduction",
        part="block_sum",
        extra_cells=["from numba.cuda import jit as cjit"],
        kernel="""
@cjit(max_registers=32)
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    s = TPB // 2
    while s >= 32:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    # the last 32 values sit in one warp: its lanes run together, so no barrier needed
    if t < 32:
        sh[t] += sh[t + 16]
        sh[t] += sh[t + 8]
        sh[t] += sh[t + 4]
        sh[t] += sh[t + 2]
        sh[t] += sh[t + 1]
        if t == 0:
            partial[cuda.blockIdx.x] = sh[0]
""",
        fail=["sync"],
        passes=[],
        reason="race",
        why="max_registers=32 only caps registers (spills at worst); the unrolled last warp has no "
        "syncwarp and numba has no volatile, so lane t reads sh[t + 8] while lane t + 8 may "
        "still be writing it: a data race under Volta's independent thread scheduling "
        "(racecheck reports it in every block, for every n), whatever the sums happen to be.",
    ),
    # ------------------------------------------------------------------ 10_warp_reduce
    "how22_block_sum_warp_inline_helper_four_lane_mask": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel="""
@cuda.jit(device=True, inline=True)
def warp_reduce(v, mask, width):
    # shuffle tree over `width` lanes: offsets width/2, ..., 2, 1
    offset = width // 2
    while offset > 0:
        v += cuda.shfl_down_sync(mask, v, offset)
        offset //= 2
    return v


@cuda.jit
def block_sum_warp(x, partial):
    if cuda.grid(1) == 0:
        print("block_sum_warp: n =", x.size, "blocks =", cuda.gridDim.x)  # debug, harmless
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    v = warp_reduce(v, FULL_MASK, 32)
    warp_sums = cuda.shared.array(WARPS, float32)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    # only the WARPS lanes that own a warp sum take part, and the mask names exactly them
    if warp == 0 and lane < WARPS:
        s = warp_reduce(warp_sums[lane], (1 << WARPS) - 1, WARPS)
        if lane == 0:
            partial[cuda.blockIdx.x] = s
""",
        full=True,
        why="The second stage runs on lanes 0-3 with mask 0xF and offsets 2, 1: lanes 2 and 3 "
        "read lanes 4 and 5 (outside the mask, undefined) and lane 1 reads lane 2's tainted "
        "value, but lane 0 only ever reads lanes 1 and 2 before they are tainted "
        "(ws0+ws2+ws1+ws3), so the stored sum is defined; the printf from thread 0 changes nothing.",
    ),
    "how22_block_sum_warp_ballot_mask_partial_warp": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel="""
@cuda.jit(cache=True)
def block_sum_warp(x, partial):
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.grid(1)
    inside = i < x.size
    # the mask names exactly the lanes that hold an element, so they can shuffle alone
    mask = cuda.ballot_sync(FULL_MASK, inside)
    total = float32(0.0)
    if inside:
        v = x[i]
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(mask, v, offset)
            offset //= 2
        total = v
    warp_sums = cuda.shared.array(WARPS, float32)
    if lane == 0:
        warp_sums[warp] = total
    cuda.syncthreads()
    if warp == 0:
        s = warp_sums[lane] if lane < WARPS else float32(0.0)
        for offset in (16, 8, 4, 2, 1):
            s += cuda.shfl_down_sync(FULL_MASK, s, offset)
        if lane == 0:
            partial[cuda.blockIdx.x] = s
""",
        fail=["sync"],
        passes=[],
        reason="not in its mask",
        why="In a warp that ends inside x (n = 1000: 8 lanes; n = 5) lane 0 shuffles with mask 0xFF "
        "at offset 16 and reads lane 16, which is outside the mask and never set v: the value "
        "is undefined on a GPU and lane 0 adds it into warp_sums and partial, for every n not "
        "a multiple of 32 (whole warps are fine).",
    ),
    # ------------------------------------------------------------------ 11_softmax
    "how22_row_max_debug_assert_after_store": dict(
        exercise="11_softmax",
        part="row_max",
        kernel="""
@cuda.jit(debug=True, opt=False)
def row_max(x, m):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    sh = cuda.shared.array(TPB, float32)
    best = float32(-math.inf)
    for c in range(t, cols, TPB):
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
        # sanity check while debugging: no thread should need more than 32 columns
        assert cols < 32 * TPB, "row too long"
""",
        fail=["hidden"],
        passes=["public", "sync", "parallel"],
        reason="kernel raised an exception",
        why="With debug=True numba-cuda keeps the kernel's exception flag and, after the launch, "
        "raises AssertionError on the host (tid=[0,0,0]) even though m[r] was stored: the "
        "hidden case with a row of at least 4096 columns (in every draw) fails; public rows "
        "(<= 300 columns) never trip it.",
    ),
    "how22_normalize_debug_assert_as_guard": dict(
        exercise="11_softmax",
        part="normalize",
        kernel="""
@cuda.jit(debug=True, opt=False)
def normalize(e, s, out):
    col, row = cuda.grid(2)
    rows, cols = e.shape
    # debug build: stop any thread that falls off the end of the row
    assert col < cols, "column past the end of the row"
    if row < rows:
        out[row, col] = e[row, col] / s[row]
""",
        fail=["public", "hidden"],
        passes=[],
        reason="debug=True",
        why="Without debug a failing assert just ends the thread (a guard), but debug=True makes "
        "numba-cuda check the exception flag after the launch and raise AssertionError on the "
        "host (and skip copying out back), so every case whose cols is not a multiple of 128 "
        "(public 4x100, 3x300, 2x37) fails on a GPU.",
    ),
    "how22_softmax_fused_fastmath_c_layout_sig": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel="""
@cuda.jit("void(float32[:, ::1], float32[:, ::1])", fastmath=True)
def softmax_fused(x, out):
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    sm = cuda.shared.array(TPB, float32)
    ss = cuda.shared.array(TPB, float32)
    neg_inf = float32(-math.inf)
    # pass 1: online max and rescaled sum over my columns
    m = neg_inf
    s = float32(0.0)
    c = t
    while c < cols:
        v = x[r, c]
        if v > m:
            s = s * math.exp(m - v) + float32(1.0)
            m = v
        else:
            s += math.exp(v - m)
        c += TPB
    sm[t] = m
    ss[t] = s
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            m1, s1 = sm[t], ss[t]
            m2, s2 = sm[t + step], ss[t + step]
            mm = max(m1, m2)
            if mm == neg_inf:
                s12 = float32(0.0)  # two threads that saw nothing
            else:
                s12 = s1 * math.exp(m1 - mm) + s2 * math.exp(m2 - mm)
            sm[t] = mm
            ss[t] = s12
        cuda.syncthreads()
        step //= 2
    row_m = sm[0]
    inv = float32(1.0) / ss[0]
    # pass 2: write the probabilities
    c = t
    while c < cols:
        out[r, c] = math.exp(x[r, c] - row_m) * inv
        c += TPB
""",
        full=True,
        why="The C-layout signature matches the notebook's C-contiguous float32 matrices; "
        "fastmath=True turns exp into ex2.approx.ftz (relative error ~1e-6 for the exponents "
        "that matter) and the reciprocal into an approximate one, well inside rtol 1e-4 / atol "
        "1e-6; the sm_80 PTX keeps the comparisons with -inf (setp.eq.ftz.f32 ... 0fFF800000) "
        "and ex2.approx(-inf) = 0, so empty threads still combine to (-inf, 0).",
    ),
}

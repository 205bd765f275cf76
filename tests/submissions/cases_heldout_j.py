"""Fresh submissions on numerics and inputs for exercises 01-05, 07 and 08 (built by build.py)."""

from __future__ import annotations

ALL = ["public", "hidden"]

CASES = {
    # -- 01 elementwise ------------------------------------------------------------------------
    "hoj_multiply_float64_product": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        kernel="""
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = (a[i] * 1.0) * (b[i] * 1.0)  # float64 product, rounded once at the store
""",
    ),
    "hoj_multiply_public_size_bound": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["hidden"],
        passes=["public", "bounds"],
        reason="hidden case",
        kernel="""
N = 1000  # the largest public size


@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < min(N, out.size):
        out[i] = a[i] * b[i]
""",
    ),
    "hoj_saxpy_alpha_truncated": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = int(alpha) * x[i] + y[i]  # int() truncates toward zero
""",
    ),
    "hoj_saxpy_grid_stride_gridsize": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    start = cuda.grid(1)
    step = cuda.gridsize(1)
    for i in range(start, out.shape[0], step):
        out[i] = y[i] + x[i] * alpha
""",
    ),
    "hoj_multiply_block_of_128_assumed": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def multiply(a, b, out):
    i = cuda.blockIdx.x * 128 + cuda.threadIdx.x  # the block is TPB = 256 wide, not 128
    if i < out.size:
        out[i] = a[i] * b[i]
""",
    ),
    "hoj_saxpy_skips_last_when_odd": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    i = 2 * cuda.grid(1)  # two elements per thread, the odd tail forgotten
    if i + 1 < out.size:
        out[i] = alpha * x[i] + y[i]
        out[i + 1] = alpha * x[i + 1] + y[i + 1]
""",
    ),
    # -- 02 conv1d -----------------------------------------------------------------------------
    "hoj_conv1d_kahan_centred_taps": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.shape[0]
    r = w.shape[0] // 2
    if i >= n:
        return
    acc = float32(0.0)
    comp = float32(0.0)  # Kahan: the low bits lost by the last addition
    for d in range(-r, r + 1):
        src = i - d
        if src >= 0 and src < n:
            term = w[r + d] * x[src] - comp
            t = acc + term
            comp = (t - acc) - term
            acc = t
    out[i] = acc
""",
    ),
    "hoj_conv1d_masked_clamped_reads": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        n = x.size
        r = w.size // 2
        acc = 0.0
        for j in range(w.size):
            src = i + r - j
            inside = 1.0 if 0 <= src < n else 0.0
            acc += inside * w[j] * x[min(max(src, 0), n - 1)]  # always in range, masked
        out[i] = acc
""",
    ),
    "hoj_conv1d_correlation_not_convolution": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = 0.0
        for j in range(w.size):
            src = i - r + j  # the filter not flipped
            if 0 <= src < x.size:
                acc += w[j] * x[src]
        out[i] = acc
""",
    ),
    "hoj_conv1d_radius_floor_of_negative": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        lo = -(-w.size // 2) - 1  # floor division of a negative: ceil(K / 2) - 1 = r
        acc = 0.0
        for j in range(w.size):
            src = i + lo - j
            if src >= 0 and src < x.size:
                acc += w[j] * x[src]
        out[i] = acc
""",
    ),
    # -- 03 matmul -----------------------------------------------------------------------------
    "hoj_matmul_naive_accumulates_in_c": dict(
        exercise="03_matmul",
        part="matmul_naive",
        full=True,
        kernel="""
@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = 0.0
        for t in range(A.shape[1]):
            C[row, col] += A[row, t] * B[t, col]
""",
    ),
    "hoj_matmul_tiled_float64_tiles_clamped": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        full=True,
        kernel="""
import numba


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), numba.float64)
    sB = cuda.shared.array((TILE, TILE), numba.float64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, k = A.shape
    n = B.shape[1]
    acc = 0.0
    for t in range((k + TILE - 1) // TILE):
        ka = t * TILE + tx
        kb = t * TILE + ty
        # Clamped reads stay in range; a factor of zero drops the ones past the edge.
        okA = 1.0 if (row < m and ka < k) else 0.0
        okB = 1.0 if (kb < k and col < n) else 0.0
        sA[ty, tx] = okA * A[min(row, m - 1), min(ka, k - 1)]
        sB[ty, tx] = okB * B[min(kb, k - 1), min(col, n - 1)]
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "hoj_matmul_tiled_k_tiles_from_grid": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["hidden"],
        passes=["public"],
        reason="hidden case",
        kernel="""
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
    tiles = max(cuda.gridDim.x, cuda.gridDim.y)  # as many k tiles as blocks: wrong for long k
    for t in range(tiles):
        ka = t * TILE + tx
        kb = t * TILE + ty
        sA[ty, tx] = A[row, ka] if row < m and ka < k else 0.0
        sB[ty, tx] = B[kb, col] if kb < k and col < n else 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    # -- 04 conv2d -----------------------------------------------------------------------------
    "hoj_blur2d_reflected_border": dict(
        exercise="04_conv2d",
        part="blur2d",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    if row < h and col < wd:
        r = w.shape[0] // 2
        acc = 0.0
        for dy in range(-r, r + 1):
            for dx in range(-r, r + 1):
                y = abs(row + dy)  # reflected at the top and left, not replicated
                x = abs(col + dx)
                y = min(y, h - 1)
                x = min(x, wd - 1)
                acc += w[dy + r, dx + r] * img[y, x]
        out[row, col] = acc
""",
    ),
    "hoj_blur2d_float32_accumulator_clamp": dict(
        exercise="04_conv2d",
        part="blur2d",
        full=True,
        kernel="""
@cuda.jit
def blur2d(img, w, out):
    x, y = cuda.grid(2)
    h = img.shape[0]
    wd = img.shape[1]
    if x >= wd or y >= h:
        return
    k = w.shape[0]
    r = k // 2
    acc = float32(0)
    for i in range(k):
        yy = y + i - r
        yy = 0 if yy < 0 else (h - 1 if yy >= h else yy)
        for j in range(k):
            xx = x + j - r
            xx = 0 if xx < 0 else (wd - 1 if xx >= wd else xx)
            acc += w[i, j] * img[yy, xx]
    out[y, x] = acc
""",
    ),
    # -- 05 reduction --------------------------------------------------------------------------
    "hoj_block_sum_clamped_tail_not_zeroed": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[min(i, x.size - 1)]  # in range, but the tail adds the last value again
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "hoj_block_sum_float64_tree_shift": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
import numba


@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, numba.float64)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    s[t] = v
    cuda.syncthreads()
    half = TPB >> 1
    while half:
        if t < half:
            s[t] = s[t] + s[t + half]
        cuda.syncthreads()
        half >>= 1
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "hoj_block_sum_tail_block_assumed_full": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["public", "hidden", "sync"],
        passes=[],
        reason="",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.size:
        s[t] = x[i]  # the tail block's last slots are never written
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    # -- 07 histogram --------------------------------------------------------------------------
    "hoj_histogram_global_top_bits_test": dict(
        exercise="07_histogram",
        part="histogram_global",
        full=True,
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        if (v & 0xC0) == 0:  # a 6-bit reading: the two top bits clear
            cuda.atomic.add(hist, v, 1)
""",
    ),
    "hoj_histogram_global_signed_byte": dict(
        exercise="07_histogram",
        part="histogram_global",
        fail=ALL,
        passes=[],
        reason="",
        kernel="""
import numpy as np


@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = np.int8(values[i])  # codes 128..255 turn negative and pass the test
        if v < BINS:
            cuda.atomic.add(hist, v, 1)
""",
    ),
    "hoj_histogram_shared_four_values_per_thread": dict(
        exercise="07_histogram",
        part="histogram_shared",
        fail=["hidden"],
        passes=["public", "bounds", "sync"],
        reason="hidden case",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    if t < BINS:
        s[t] = 0
    cuda.syncthreads()
    width = cuda.gridsize(1)
    i = cuda.grid(1)
    for k in range(4):  # the public streams need at most four rounds
        j = i + k * width
        if j < values.size and values[j] < BINS:
            cuda.atomic.add(s, values[j], 1)
    cuda.syncthreads()
    if t < BINS and s[t] > 0:
        cuda.atomic.add(hist, t, s[t])
""",
    ),
    "hoj_histogram_shared_constant_stride": dict(
        exercise="07_histogram",
        part="histogram_shared",
        full=True,
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    local = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        local[b] = 0
    cuda.syncthreads()
    j = cuda.blockIdx.x * TPB + t
    while j < values.shape[0]:
        code = values[j]
        if code < BINS:
            cuda.atomic.add(local, code, 1)
        j += BLOCKS * TPB  # the launch is fixed: BLOCKS x TPB threads
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        c = local[b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
""",
    ),
    # -- 08 scan -------------------------------------------------------------------------------
    "hoj_scan_offsets_wrapped_for_block_zero": dict(
        exercise="08_scan",
        part="add_block_offsets",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    if i < out.size:
        out[i] += offsets[i // TPB - 1]  # block 0 reads offsets[-1], the last total
""",
    ),
    "hoj_scan_offsets_bool_factor": dict(
        exercise="08_scan",
        part="add_block_offsets",
        full=True,
        kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    if i < out.size:
        out[i] = out[i] + (b > 0) * offsets[max(b - 1, 0)]  # a bool times a float
""",
    ),
    "hoj_scan_block_scan_total_from_last_thread_only": dict(
        exercise="08_scan",
        part="block_scan",
        full=True,
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    offset = 1
    while offset < TPB:  # up-sweep
        idx = (t + 1) * offset * 2 - 1
        if idx < TPB:
            s[idx] += s[idx - offset]
        offset <<= 1
        cuda.syncthreads()
    offset = TPB >> 2
    while offset > 0:  # down-sweep of the inclusive form
        idx = (t + 1) * offset * 2 - 1
        if idx + offset < TPB:
            s[idx + offset] += s[idx]
        offset >>= 1
        cuda.syncthreads()
    if i < x.size:
        out[i] = s[t]
    if t == cuda.blockDim.x - 1:
        block_sums[cuda.blockIdx.x] = s[t]
""",
    ),
    "hoj_scan_block_scan_int_tile_rounds": dict(
        exercise="08_scan",
        part="block_scan",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = round(x[i] * 4.0) / 4.0 if i < x.size else float32(0)  # exact for quarters
    cuda.syncthreads()
    offset = 1
    while offset < TPB:
        idx = (t + 1) * offset * 2 - 1
        if idx < TPB:
            s[idx] += s[idx - offset]
        offset <<= 1
        cuda.syncthreads()
    offset = TPB >> 2
    while offset > 0:
        idx = (t + 1) * offset * 2 - 1
        if idx + offset < TPB:
            s[idx + offset] += s[idx]
        offset >>= 1
        cuda.syncthreads()
    if i < x.size:
        out[i] = s[t]
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = round(s[t])  # the total rounded to a whole number
""",
    ),
    # -- sizes past the largest public one --------------------------------------------------
    "hoj_scan_offsets_totals_staged_for_eight_blocks": dict(
        exercise="08_scan",
        part="add_block_offsets",
        fail=["hidden", "bounds"],
        passes=["public"],
        reason="hidden case",
        kernel="""
MAX_BLOCKS = 8  # n = 1000 makes 8 blocks


@cuda.jit
def add_block_offsets(out, offsets):
    totals = cuda.shared.array(MAX_BLOCKS, float32)
    t = cuda.threadIdx.x
    if t < offsets.size:
        totals[t] = offsets[t]  # past 8 blocks: written outside the shared array
    cuda.syncthreads()
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    if i < out.size and b > 0:
        out[i] += totals[b - 1]
""",
    ),
    "hoj_conv1d_signal_length_constant": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["hidden"],
        passes=["public"],
        reason="hidden case",
        kernel="""
N = 1000  # the signal's length in the notebook's test


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < N and i < out.size:
        r = w.size // 2
        acc = 0.0
        for j in range(w.size):
            src = i + r - j
            if 0 <= src < x.size:
                acc += w[j] * x[src]
        out[i] = acc
""",
    ),
    "hoj_block_scan_totals_for_eight_blocks": dict(
        exercise="08_scan",
        part="block_scan",
        fail=["hidden", "sync"],
        passes=["public"],
        reason="hidden case",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    offset = 1
    while offset < TPB:
        idx = (t + 1) * offset * 2 - 1
        if idx < TPB:
            s[idx] += s[idx - offset]
        offset <<= 1
        cuda.syncthreads()
    offset = TPB >> 2
    while offset > 0:
        idx = (t + 1) * offset * 2 - 1
        if idx + offset < TPB:
            s[idx + offset] += s[idx]
        offset >>= 1
        cuda.syncthreads()
    if i < x.size:
        out[i] = s[t]
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x % 8] = s[t]  # a slot per block, eight blocks at most
""",
    ),
    "hoj_matmul_naive_columns_of_public_width": dict(
        exercise="03_matmul",
        part="matmul_naive",
        fail=["hidden"],
        passes=["public"],
        reason="hidden case",
        kernel="""
@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < min(C.shape[1], 33):  # the widest C of the notebook's test
        acc = float32(0)
        for t in range(A.shape[1]):
            acc += A[row, t] * B[t, col]
        C[row, col] = acc
""",
    ),
    "hoj_histogram_global_grid_of_eight_blocks": dict(
        exercise="07_histogram",
        part="histogram_global",
        fail=["hidden"],
        passes=["public"],
        reason="hidden case",
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = (cuda.blockIdx.x % 8) * TPB + cuda.threadIdx.x  # 8 blocks cover the test's 1000 values
    if i < values.size and values[i] < BINS:
        cuda.atomic.add(hist, values[i], 1)
""",
    ),
    # -- more styles and numerics ----------------------------------------------------------
    "hoj_conv1d_python_modulo_guard": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    if i < n:
        r = w.size // 2
        acc = 0.0
        for j in range(w.size):
            src = i + r - j
            if src % n == src:  # Python's %: -1 % n is n - 1, so only 0 <= src < n passes
                acc += w[j] * x[src]
        out[i] = acc
""",
    ),
    "hoj_histogram_global_unsigned_difference": dict(
        exercise="07_histogram",
        part="histogram_global",
        full=True,
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        if v - BINS < 0:  # numba computes uint8 - int64 in int64: no wrap past zero
            cuda.atomic.add(hist, v, 1)
""",
    ),
    "hoj_histogram_global_counts_failed_readings_modulo": dict(
        exercise="07_histogram",
        part="histogram_global",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(hist, values[i] % BINS, 1)  # failed readings land in a bin too
""",
    ),
    "hoj_histogram_shared_overflow_bin": dict(
        exercise="07_histogram",
        part="histogram_shared",
        full=True,
        kernel="""
SLOTS = BINS + 1  # one more bin gathers the failed readings


@cuda.jit
def histogram_shared(values, hist):
    counts = cuda.shared.array(SLOTS, int32)
    t = cuda.threadIdx.x
    if t <= BINS:
        counts[t] = 0
    cuda.syncthreads()
    for j in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        cuda.atomic.add(counts, min(values[j], BINS), 1)
    cuda.syncthreads()
    if t < BINS and counts[t]:
        cuda.atomic.add(hist, t, counts[t])
""",
    ),
    "hoj_gaming_histogram_shared_block_zero_stores": dict(
        exercise="07_histogram",
        part="histogram_shared",
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync", "atomics"],
        reason="memory accesses",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    counts = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    if cuda.blockIdx.x != 0:
        return  # one block counts everything: no global atomics at all
    if t < BINS:
        counts[t] = 0
    cuda.syncthreads()
    for j in range(t, values.size, TPB):
        if values[j] < BINS:
            cuda.atomic.add(counts, values[j], 1)
    cuda.syncthreads()
    if t < BINS:
        hist[t] = counts[t]
""",
    ),
    "hoj_scan_block_scan_integer_quarters": dict(
        exercise="08_scan",
        part="block_scan",
        full=True,
        kernel="""
from numba import int32


@cuda.jit
def block_scan(x, out, block_sums):
    q = cuda.shared.array(TPB, int32)  # the inputs are quarters: scan 4x in integers, exact
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    q[t] = int32(x[i] * 4) if i < x.size else 0
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            q[k] += q[k - d]
        d *= 2
        cuda.syncthreads()
    d = TPB // 4
    while d >= 1:
        k = (t + 1) * 2 * d - 1
        if k + d < TPB:
            q[k + d] += q[k]
        d //= 2
        cuda.syncthreads()
    if i < x.size:
        out[i] = q[t] / 4
    if t == 0:
        block_sums[cuda.blockIdx.x] = q[TPB - 1] / 4
""",
    ),
    "hoj_scan_block_scan_exclusive_plus_input": dict(
        exercise="08_scan",
        part="block_scan",
        full=True,
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    mine = x[i] if i < x.size else float32(0)
    s[t] = mine
    cuda.syncthreads()
    stride = 1
    while stride < TPB:  # up-sweep
        k = (t + 1) * 2 * stride - 1
        if k < TPB:
            s[k] += s[k - stride]
        stride *= 2
        cuda.syncthreads()
    total = s[TPB - 1]
    cuda.syncthreads()
    if t == 0:
        s[TPB - 1] = 0
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:  # down-sweep: the exclusive scan
        k = (t + 1) * 2 * stride - 1
        if k < TPB:
            left = s[k - stride]
            s[k - stride] = s[k]
            s[k] += left
        stride //= 2
        cuda.syncthreads()
    if i < x.size:
        out[i] = s[t] + mine  # exclusive + own value = inclusive
    if t == 0:
        block_sums[cuda.blockIdx.x] = total
""",
    ),
    "hoj_blur2d_float_clamp_then_int": dict(
        exercise="04_conv2d",
        part="blur2d",
        full=True,
        kernel="""
@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    if row < h and col < wd:
        r = w.shape[0] // 2
        acc = 0.0
        for dy in range(w.shape[0]):
            y = int(min(max(row + dy - r, 0.0), h - 1.0))  # clamped as floats, then int()
            for dx in range(w.shape[1]):
                x = int(min(max(col + dx - r, 0.0), wd - 1.0))
                acc += w[dy, dx] * img[y, x]
        out[row, col] = acc
""",
    ),
    "hoj_blur2d_truncation_toward_zero": dict(
        exercise="04_conv2d",
        part="blur2d",
        fail=ALL,
        passes=[],
        reason="",
        kernel="""
@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    if row < h and col < wd:
        r = w.shape[0] // 2
        acc = 0.0
        for dy in range(w.shape[0]):
            for dx in range(w.shape[1]):
                # (row + dy - r) / 2 * 2 meant to clamp: int() truncates -1 to 0 but -3 to -2
                y = int((row + dy - r) / 2) * 2 if row + dy - r < 0 else min(row + dy - r, h - 1)
                x = max(0, min(col + dx - r, wd - 1))
                acc += w[dy, dx] * img[y, x]
        out[row, col] = acc
""",
    ),
    "hoj_saxpy_float64_round_trip": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        twice = alpha * 2.0  # float64 from here on
        out[i] = twice * x[i] / 2.0 + y[i]
""",
    ),
    "hoj_scan_offsets_rounded_to_cents": dict(
        exercise="08_scan",
        part="add_block_offsets",
        full=True,
        kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    b = i // TPB
    if i < out.size and b > 0:
        out[i] = round(out[i] + offsets[b - 1], 2)  # quarters: two digits keep them exact
""",
    ),
    "hoj_scan_offsets_wrapped_read_times_zero": dict(
        exercise="08_scan",
        part="add_block_offsets",
        full=True,
        kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    if i < out.size:
        # Block 0 reads offsets[-1]: numba wraps it to the last total (in range), times 0.
        out[i] += offsets[b - 1] * (b > 0)
""",
    ),
    "hoj_block_sum_odd_width_folds": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    width = TPB
    while width > 1:  # fold the upper half onto the lower, odd widths included
        half = (width + 1) // 2
        if t < width // 2:
            s[t] += s[t + half]
        cuda.syncthreads()
        width = half
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "hoj_conv1d_taps_staged_for_fifteen": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["hidden", "bounds"],
        passes=["public"],
        reason="hidden case",
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    taps = cuda.local.array(15, float32)  # "long filters are 15 taps at most"
    k = w.size
    for j in range(k):
        taps[j] = w[j]
    i = cuda.grid(1)
    if i < out.size:
        r = k // 2
        acc = float32(0)
        for j in range(k):
            src = i + r - j
            if 0 <= src < x.size:
                acc += taps[j] * x[src]
        out[i] = acc
""",
    ),
}

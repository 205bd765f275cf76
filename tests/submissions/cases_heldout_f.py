"""Fresh submissions for exercises 01-05, 12 and 13 (built by build.py): correct kernels in
styles students write that numba-cuda and Triton compile (full marks), wrong kernels that
must fail the criterion a GPU (with compute-sanitizer) would expose, and attempts to fool
one criterion's measure while the outputs stay right.
"""

from __future__ import annotations

CASES = {
    # -- 01 elementwise ---------------------------------------------------------------------
    "hof_multiply_helper_several_returns": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        kernel="""
@cuda.jit(device=True)
def times(u, v):
    if u == 0.0 or v == 0.0:
        return 0.0  # a float64 literal: numba unifies the returns to float64
    if u == 1.0:
        return v
    return u * v


@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = times(a[i], b[i])
""",
    ),
    "hof_multiply_local_pair_tuple_helper": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        kernel="""
@cuda.jit(device=True)
def pair(a, b, i):
    return a[i], b[i]


@cuda.jit
def multiply(a, b, out):
    buf = cuda.local.array(2, np.float32)
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= out.shape[0]:
        return
    buf[0], buf[1] = pair(a, b, i)
    out[i] = buf[0] * buf[1]
""",
    ),
    "hof_saxpy_float64_math": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        # float64 arithmetic, rounded once to float32 on the store
        out[i] = float(alpha) * float(x[i]) + y[i] * 1.0
""",
    ),
    "hof_saxpy_reverse_grid_stride": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    n = out.size
    last = n - 1 - start
    for i in range(last, -1, -stride):  # walks down from the end
        out[i] = alpha * x[i] + y[i]
""",
    ),
    "hof_saxpy_integer_alpha": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        a = int(alpha)  # truncates toward zero: 1.7 becomes 1
        out[i] = a * x[i] + y[i]
""",
    ),
    "hof_saxpy_two_per_thread_half_idle": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason="stored",
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    j = 2 * i  # two elements per thread: the upper half of the grid idles
    if j < out.size:
        out[j] = alpha * x[j] + y[j]
    if j + 1 < out.size:
        out[j + 1] = alpha * x[j + 1] + y[j + 1]
""",
    ),
    # -- 02 conv1d --------------------------------------------------------------------------
    "hof_conv1d_reversed_taps_int_accumulator": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n, k = x.size, w.size
    if i < n:
        r = k // 2
        acc = 0  # an int: numba unifies it with the float32 products to float64
        for j in range(k - 1, -1, -1):
            src = i + r - j
            if src >= 0 and src < n:
                acc += w[j] * x[src]
        out[i] = acc
""",
    ),
    "hof_conv1d_clipped_window_while": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.shape[0]
    if i >= n:
        return
    r = (w.shape[0] - 1) // 2
    lo = max(0, i - r)  # the part of the window inside the signal
    hi = min(n - 1, i + r)
    acc = float32(0)
    s = lo
    while s <= hi:
        acc += x[s] * w[i + r - s]
        s += 1
    out[i] = acc
""",
    ),
    "hof_conv1d_tap_helper_returns_zero": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
@cuda.jit(device=True)
def at(x, j):
    if j < 0:
        return float32(0.0)
    elif j >= x.size:
        return float32(0.0)
    else:
        return x[j]


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = float32(0.0)
        for d in range(-r, r + 1):  # a centred window
            acc += w[r - d] * at(x, i + d)
        out[i] = acc
""",
    ),
    "hof_conv1d_true_division_radius": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["public", "hidden"],
        passes=[],
        reason="float64",
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size / 2  # a float: an array index must be an integer
        acc = float32(0.0)
        for j in range(w.size):
            src = i + r - j
            if 0 <= src < x.size:
                acc += w[j] * x[src]
        out[i] = acc
""",
    ),
    "hof_conv1d_filter_not_flipped": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = float32(0.0)
        for j in range(w.size):
            src = i - r + j  # correlation: the filter is not flipped
            if 0 <= src < x.size:
                acc += w[j] * x[src]
        out[i] = acc
""",
    ),
    # -- 03 matmul --------------------------------------------------------------------------
    "hof_matmul_naive_dot_helper_tuple_grid": dict(
        exercise="03_matmul",
        part="matmul_naive",
        full=True,
        kernel="""
@cuda.jit(device=True)
def dot(A, B, row, col):
    acc = float32(0.0)
    k = A.shape[1] - 1
    while k >= 0:  # backwards: another rounding order than the reference
        acc += A[row, k] * B[k, col]
        k -= 1
    return acc


@cuda.jit
def matmul_naive(A, B, C):
    pos = cuda.grid(2)
    col = pos[0]
    row = pos[1]
    if row >= C.shape[0]:
        return
    if col >= C.shape[1]:
        return
    C[row, col] = dot(A, B, row, col)
""",
    ),
    "hof_matmul_naive_rows_and_cols_swapped": dict(
        exercise="03_matmul",
        part="matmul_naive",
        fail=["public", "hidden"],
        passes=[],
        reason="",
        kernel="""
@cuda.jit
def matmul_naive(A, B, C):
    row, col = cuda.grid(2)  # x taken as the row: the grid covers C's transpose
    if row < C.shape[0] and col < C.shape[1]:
        acc = float32(0.0)
        for k in range(A.shape[1]):
            acc += A[row, k] * B[k, col]
        C[row, col] = acc
""",
    ),
    "hof_matmul_tiled_flat_shared_while": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        full=True,
        kernel="""
AREA = TILE * TILE


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array(AREA, float32)  # flat tiles, row-major
    sB = cuda.shared.array(AREA, float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    m = A.shape[0]
    kk = A.shape[1]
    n = B.shape[1]
    acc = 0.0
    k0 = 0
    while k0 < kk:
        sA[ty * TILE + tx] = 0.0
        sB[ty * TILE + tx] = 0.0
        if row < m and k0 + tx < kk:
            sA[ty * TILE + tx] = A[row, k0 + tx]
        if k0 + ty < kk and col < n:
            sB[ty * TILE + tx] = B[k0 + ty, col]
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty * TILE + j] * sB[j * TILE + tx]
        cuda.syncthreads()
        k0 += TILE
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "hof_matmul_tiled_transposed_b_tile": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        full=True,
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sBt = cuda.shared.array((TILE, TILE), float32)  # B's tile stored transposed
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    tiles = (kk + TILE - 1) // TILE
    for t in range(tiles):
        a_k = t * TILE + tx
        b_k = t * TILE + ty
        sA[ty, tx] = A[row, a_k] if (row < m and a_k < kk) else float32(0.0)
        sBt[tx, ty] = B[b_k, col] if (b_k < kk and col < n) else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc = cuda.fma(sA[ty, j], sBt[tx, j], acc)
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "hof_gaming_matmul_tiled_rows_loaded_by_every_thread": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        # Each thread fills the whole row of the A tile and the whole column of the B tile it
        # reads: the same values land TILE times in each shared slot, global loads x TILE.
        fail=["memory"],
        passes=["public", "hidden", "bounds"],
        gaming="global loads",
        reason="global loads",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range((kk + TILE - 1) // TILE):
        for j in range(TILE):
            k = t * TILE + j
            sA[ty, j] = A[row, k] if row < m and k < kk else float32(0.0)
            sB[j, tx] = B[k, col] if k < kk and col < n else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "hof_gaming_matmul_tiled_b_from_global": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        gaming="global loads",
        reason="global loads",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range((kk + TILE - 1) // TILE):
        k = t * TILE + tx
        sA[ty, tx] = A[row, k] if row < m and k < kk else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            k = t * TILE + j
            if k < kk and col < n:
                acc += sA[ty, j] * B[k, col]  # B straight from global memory, every time
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "hof_matmul_tiled_guard_skips_partial_k_tile": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range(kk // TILE):  # floor: the last partial tile of k is never added
        sA[ty, tx] = A[row, t * TILE + tx] if row < m else float32(0.0)
        sB[ty, tx] = B[t * TILE + ty, col] if col < n else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    # -- 04 conv2d --------------------------------------------------------------------------
    "hof_blur2d_clamp_helper_elif_local_weights": dict(
        exercise="04_conv2d",
        part="blur2d",
        full=True,
        kernel="""
KMAX = 9


@cuda.jit(device=True)
def clamp(v, lo, hi):
    if v < lo:
        return lo
    elif v > hi:
        return hi
    return v


@cuda.jit
def blur2d(img, w, out):
    wl = cuda.local.array((KMAX, KMAX), float32)  # the filter copied into registers
    col, row = cuda.grid(2)
    h, wd = img.shape
    k = w.shape[0]
    for a in range(k):
        for b in range(k):
            wl[a, b] = w[a, b]
    if row < h and col < wd:
        r = k // 2
        acc = float32(0.0)
        for dy in range(-r, r + 1):
            y = clamp(row + dy, 0, h - 1)
            for dx in range(-r, r + 1):
                acc += wl[dy + r, dx + r] * img[y, clamp(col + dx, 0, wd - 1)]
        out[row, col] = acc
""",
    ),
    "hof_blur2d_tiled_flat_halo_loop": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        full=True,
        kernel="""
SIDE = TILE + 2 * R


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((SIDE, SIDE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    h, wd = img.shape
    top = cuda.blockIdx.y * TILE - R
    left = cuda.blockIdx.x * TILE - R
    me = ty * TILE + tx
    for idx in range(me, SIDE * SIDE, TILE * TILE):  # the halo'd tile as one flat range
        ly, lx = idx // SIDE, idx % SIDE
        y = min(max(top + ly, 0), h - 1)
        x = min(max(left + lx, 0), wd - 1)
        tile[ly, lx] = img[y, x]
    cuda.syncthreads()
    row, col = top + R + ty, left + R + tx
    if row >= h or col >= wd:
        return
    acc = float32(0.0)
    for dy in range(2 * R + 1):
        for dx in range(2 * R + 1):
            acc += w[dy, dx] * tile[ty + dy, tx + dx]
    out[row, col] = acc
""",
    ),
    "hof_blur2d_tiled_four_phase_halo": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        full=True,
        kernel="""
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    h, wd = img.shape
    col, row = cuda.grid(2)
    ys = (min(max(row, 0), h - 1), min(max(row - R, 0), h - 1), min(max(row + R, 0), h - 1))
    xs = (min(max(col, 0), wd - 1), min(max(col - R, 0), wd - 1), min(max(col + R, 0), wd - 1))
    tile[ty + R, tx + R] = img[ys[0], xs[0]]  # the centre
    if tx < R:  # left and right borders of the tile
        tile[ty + R, tx] = img[ys[0], xs[1]]
        tile[ty + R, tx + TILE + R] = img[ys[0], min(max(col + TILE, 0), wd - 1)]
    if ty < R:  # top and bottom
        tile[ty, tx + R] = img[ys[1], xs[0]]
        tile[ty + TILE + R, tx + R] = img[min(max(row + TILE, 0), h - 1), xs[0]]
    if tx < R and ty < R:  # the four corners
        yb = min(max(row + TILE, 0), h - 1)
        xb = min(max(col + TILE, 0), wd - 1)
        tile[ty, tx] = img[ys[1], xs[1]]
        tile[ty, tx + TILE + R] = img[ys[1], xb]
        tile[ty + TILE + R, tx] = img[yb, xs[1]]
        tile[ty + TILE + R, tx + TILE + R] = img[yb, xb]
    cuda.syncthreads()
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
""",
    ),
    "hof_blur2d_tiled_halo_clamped_above_only": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",  # numba wraps img[-2, x] to the last rows: wrong values
        kernel="""
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row0 = cuda.blockIdx.y * TILE - R
    col0 = cuda.blockIdx.x * TILE - R
    h, wd = img.shape
    for ly in range(ty, HALO, TILE):
        y = min(row0 + ly, h - 1)  # clamped at the far edge only: row -2 wraps around
        for lx in range(tx, HALO, TILE):
            x = min(col0 + lx, wd - 1)
            tile[ly, lx] = img[y, x]
    cuda.syncthreads()
    row, col = row0 + R + ty, col0 + R + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
""",
    ),
    # -- 05 reduction -----------------------------------------------------------------------
    "hof_block_sum_interleaved_modulo": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,  # the first tree of every course: divergent warps, still a tree
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    s[t] = 0.0
    if i < x.size:
        s[t] = x[i]
    cuda.syncthreads()
    step = 1
    while step < cuda.blockDim.x:
        if t % (2 * step) == 0:
            s[t] += s[t + step]
        cuda.syncthreads()
        step *= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "hof_block_sum_float64_shared_shift_range": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, np.float64)  # float64 partial sums
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    for level in range(6, -1, -1):  # strides 64, 32, ..., 1
        half = 1 << level
        if t < half:
            s[t] = s[t] + s[t + half]
        cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "hof_block_sum_stops_one_level_early": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 1:  # stops before the last level: s[1] is never added
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "hof_block_sum_tail_clamped_read": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[min(i, x.size - 1)]  # the tail repeats the last element instead of zeros
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
    "hof_gaming_block_sum_two_threads_halves": dict(
        exercise="05_reduction",
        part="block_sum",
        # Two threads each add 64 values, then one adds the two: a "tree" of one level.
        fail=["parallel"],
        passes=["public", "hidden", "sync"],
        gaming="operations per thread",
        reason="one thread made",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    if t < 2:
        acc = float32(0.0)
        for j in range(t * (TPB // 2), (t + 1) * (TPB // 2)):
            acc += s[j]
        s[t * (TPB // 2)] = acc
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = s[0] + s[TPB // 2]
""",
    ),
    # -- 12 Triton softmax ------------------------------------------------------------------
    "hof_sm_while_loop_where_mask": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        full=True,
        kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    m = float("-inf")
    s = 0.0
    start = 0
    while start < n_cols:
        inside = (offs + start) < n_cols
        x = tl.load(x_ptr + row * x_stride + start + offs, mask=inside, other=0.0)
        x = tl.where(inside, x, float("-inf"))  # masked lanes out of the max
        m_new = tl.maximum(m, tl.max(x, 0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), 0)
        m = m_new
        start += BLOCK
    inv = 1.0 / s
    for b in range(0, tl.cdiv(n_cols, BLOCK)):
        cols = b * BLOCK + offs
        inside = cols < n_cols
        x = tl.load(x_ptr + row * x_stride + cols, mask=inside, other=float("-inf"))
        tl.store(y_ptr + row * y_stride + cols, tl.exp(x - m) * inv, mask=inside)
""",
    ),
    "hof_sm_two_d_block_reshape": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        full=True,
        kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    src = x_ptr + pid * x_stride
    dst = y_ptr + pid * y_stride
    cols = tl.arange(0, BLOCK)
    m = tl.full([1], float("-inf"), tl.float32)
    s = tl.zeros([1], tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        ok = c0 + cols < n_cols
        x2 = tl.reshape(tl.load(src + c0 + cols, mask=ok, other=float("-inf")), (1, BLOCK))
        mx = tl.maximum(m, tl.max(x2, axis=1))
        s = s * tl.exp(m - mx) + tl.sum(tl.exp(x2 - mx[:, None]), axis=1)
        m = mx
    for c0 in range(0, n_cols, BLOCK):
        ok = c0 + cols < n_cols
        x = tl.load(src + c0 + cols, mask=ok, other=float("-inf"))
        y = tl.exp(x - m) / s
        tl.store(dst + c0 + cols, y, mask=ok)
""",
    ),
    "hof_sm_store_mask_whole_block": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="",
        kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.max(tl.full([BLOCK], -float("inf"), tl.float32), axis=0)
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        # the store's mask only keeps the row's stride, not its length: zeros land in
        # the padding after the row
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s,
                 mask=start + cols < y_stride)
""",
    ),
    "hof_sm_gaming_reload_for_sum": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        fail=["memory"],
        passes=["public", "hidden", "bounds", "parallel"],
        gaming="loads per element",
        reason="loads of each element",
        kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    base = x_ptr + row * x_stride
    m = tl.max(tl.full([BLOCK], -float("inf"), tl.float32), axis=0)
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(base + start + cols, mask=mask, other=-float("inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
        # the block loaded a second time for the sum: the outputs stay right
        x2 = tl.load(base + start + cols, mask=mask, other=-float("inf"))
        s = s * 0.0 + s
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(base + start + cols, mask=mask, other=-float("inf"))
        s += tl.sum(tl.exp(x - m), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(base + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s, mask=mask)
""",
    ),
    # -- 13 Triton matmul -------------------------------------------------------------------
    "hof_mm_cdiv_loop_transposed_b": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        full=True,
        kernel="""
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * grid_n
    group = pid // width
    first = group * GROUP_M
    size = tl.minimum(grid_m - first, GROUP_M)
    pid_m = first + (pid % width) % size
    pid_n = (pid % width) // size
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kt in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - kt * BLOCK_K
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (kt * BLOCK_K + offs_k)[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < left), other=0.0)
        # B loaded as its transpose (N x K), then turned back
        bt = tl.load(b_ptr + offs_n[:, None] * stride_bn + (kt * BLOCK_K + offs_k)[None, :] * stride_bk,
                     mask=(offs_n[:, None] < N) & (offs_k[None, :] < left), other=0.0)
        acc += tl.dot(a, tl.trans(bt), input_precision="ieee")
    c = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
""",
    ),
    "hof_mm_column_major_launch": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        fail=["l2"],
        passes=["public", "hidden", "bounds", "memory"],
        reason="GROUP_M",
        kernel="""
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    pid_m = pid % grid_m  # column-major: consecutive programs walk down one column of C
    pid_n = pid // grid_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k0 + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
""",
    ),
    "hof_mm_mask_less_equal": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        fail=["public", "bounds"],
        passes=[],
        reason="",
        kernel="""
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k0 + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] <= M - 1) & ((k0 + rk)[None, :] <= K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k0 + rk)[:, None] <= K) & (rn[None, :] <= N - 1), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
""",
    ),
}

CASES.update(
    {
        "hof_multiply_store_then_scale_in_place": dict(
            exercise="01_elementwise",
            part="multiply",
            full=True,  # two stores to its own element: still one output per thread
            kernel="""
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < len(out):
        out[i] = a[i]
        out[i] *= b[i]
""",
        ),
        "hof_saxpy_thread_index_only": dict(
            exercise="01_elementwise",
            part="saxpy",
            fail=["public", "hidden"],
            passes=[],
            reason="differs at",
            kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.threadIdx.x  # forgets the block: every block redoes elements 0..255
    if i < out.size:
        out[i] = alpha * x[i] + y[i]
""",
        ),
        "hof_saxpy_np_scalar_casts": dict(
            exercise="01_elementwise",
            part="saxpy",
            full=True,
            kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    i = np.int32(cuda.blockIdx.x) * np.int32(cuda.blockDim.x) + np.int32(cuda.threadIdx.x)
    if i < out.shape[0]:
        out[i] = np.float32(alpha) * x[i] + np.float32(y[i])
""",
        ),
        "hof_conv1d_computed_tap_range": dict(
            exercise="02_conv1d",
            part="conv1d",
            full=True,
            kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n, k = x.size, w.size
    r = k // 2
    if i < n:
        acc = float32(0.0)
        # only the taps whose source lies inside the signal: no test in the loop
        for j in range(max(0, i + r - n + 1), min(k, i + r + 1)):
            acc += w[j] * x[i + r - j]
        out[i] = acc
""",
        ),
        "hof_matmul_naive_chained_index": dict(
            exercise="03_matmul",
            part="matmul_naive",
            full=True,
            kernel="""
@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        a_row = A[row]  # a view of one row
        acc = float32(0.0)
        for k in range(len(a_row)):
            acc += a_row[k] * B[k][col]
        C[row][col] = acc
""",
        ),
        "hof_matmul_naive_accumulates_in_c": dict(
            exercise="03_matmul",
            part="matmul_naive",
            full=True,  # C is zero on entry; one thread per element still
            kernel="""
@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = 0.0
        for k in range(A.shape[1]):
            C[row, col] += A[row, k] * B[k, col]
""",
        ),
        "hof_matmul_tiled_sync_load_sync": dict(
            exercise="03_matmul",
            part="matmul_tiled",
            full=True,
            kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    acc = cuda.local.array(1, float32)
    acc[0] = 0.0
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row = cuda.blockIdx.y * cuda.blockDim.y + ty
    col = cuda.blockIdx.x * cuda.blockDim.x + tx
    m, kk = A.shape
    n = B.shape[1]
    for k0 in range(0, kk, TILE):
        cuda.syncthreads()  # the previous tile is no longer read
        if row < m and k0 + tx < kk:
            sA[ty, tx] = A[row, k0 + tx]
        else:
            sA[ty, tx] = 0.0
        if k0 + ty < kk and col < n:
            sB[ty, tx] = B[k0 + ty, col]
        else:
            sB[ty, tx] = 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc[0] += sA[ty, j] * sB[j, tx]
    if row < m and col < n:
        C[row, col] = acc[0]
""",
        ),
        "hof_blur2d_row_col_from_grid_swapped": dict(
            exercise="04_conv2d",
            part="blur2d",
            fail=["public", "hidden"],
            passes=[],
            reason="",
            kernel="""
@cuda.jit
def blur2d(img, w, out):
    row, col = cuda.grid(2)  # x is the column, not the row
    h, wd = img.shape
    if row < h and col < wd:
        r = w.shape[0] // 2
        acc = float32(0.0)
        for dy in range(w.shape[0]):
            y = min(max(row + dy - r, 0), h - 1)
            for dx in range(w.shape[1]):
                x = min(max(col + dx - r, 0), wd - 1)
                acc += w[dy, dx] * img[y, x]
        out[row, col] = acc
""",
        ),
        "hof_blur2d_np_clip_scalars": dict(
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
        acc = float32(0.0)
        for dy in range(w.shape[0]):
            y = np.int64(abs(row + dy - r))  # mirrored, then clamped below
            y = y if row + dy - r >= 0 else np.int64(0)
            y = min(y, h - 1)
            for dx in range(w.shape[1]):
                x = max(0, min(col + dx - r, wd - 1))
                acc += w[dy, dx] * img[y, x]
        out[row, col] = acc
""",
        ),
        "hof_block_sum_xor_partner": dict(
            exercise="05_reduction",
            part="block_sum",
            full=True,
            kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    s[t] = v
    cuda.syncthreads()
    stride = cuda.blockDim.x >> 1
    while stride:
        if t < stride:
            s[t] += s[t ^ stride]  # t < stride: t ^ stride == t + stride
        cuda.syncthreads()
        stride >>= 1
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
        ),
        "hof_gaming_block_sum_lane_zero_sums_warp_from_shared": dict(
            exercise="05_reduction",
            part="block_sum",
            fail=["parallel"],
            passes=["public", "hidden", "sync"],
            gaming="operations per thread",
            reason="one thread made",
            kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    w = cuda.shared.array(4, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    if t % 32 == 0:  # one thread per warp adds its 32 values in a row
        acc = float32(0.0)
        for j in range(t, t + 32):
            acc += s[j]
        w[t // 32] = acc
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = (w[0] + w[1]) + (w[2] + w[3])
""",
        ),
        "hof_sm_runtime_branch_single_block": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,
            kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    xr = x_ptr + row * x_stride
    yr = y_ptr + row * y_stride
    if n_cols <= BLOCK:  # the whole row in one block: one load
        mask = cols < n_cols
        x = tl.load(xr + cols, mask=mask, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(yr + cols, e / tl.sum(e, axis=0), mask=mask)
    else:
        m = tl.max(tl.full([BLOCK], -float("inf"), tl.float32), axis=0)
        s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            x = tl.load(xr + start + cols, mask=mask, other=-float("inf"))
            new_m = tl.maximum(m, tl.max(x, axis=0))
            s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
            m = new_m
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            x = tl.load(xr + start + cols, mask=mask, other=-float("inf"))
            tl.store(yr + start + cols, tl.exp(x - m) / s, mask=mask)
""",
        ),
        "hof_sm_reduce_with_jit_combine": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,
            kernel="""
@triton.jit
def _bigger(a, b):
    return tl.where(a > b, a, b)


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.reduce(tl.full([BLOCK], -float("inf"), tl.float32), 0, _bigger)
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        new_m = _bigger(m, tl.reduce(x, 0, _bigger))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.fdiv(tl.exp(x - m), s), mask=mask)
""",
        ),
        "hof_sm_sum_not_rescaled": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            fail=["public", "hidden"],
            passes=[],
            reason="differs at",
            kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.max(tl.full([BLOCK], -float("inf"), tl.float32), axis=0)
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s += tl.sum(tl.exp(x - new_m), axis=0)  # the old sum is not rescaled to the new max
        m = new_m
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s, mask=mask)
""",
        ),
        "hof_sm_max_starts_at_zero": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            fail=["public", "hidden"],
            passes=[],
            reason="differs at",
            kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)  # 0, not -inf: a row far below 0
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)  # underflows to a zero sum
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s, mask=mask)
""",
        ),
        "hof_mm_tl_range_allow_tf32_false": dict(
            exercise="13_triton_matmul",
            part="matmul_kernel",
            full=True,
            kernel="""
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    row_ok = rm[:, None] < M
    col_ok = rn[None, :] < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in tl.range(0, K, BLOCK_K):
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=row_ok & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & col_ok, other=0.0)
        acc += tl.dot(a, b, allow_tf32=False)  # the older spelling of input_precision="ieee"
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc, mask=row_ok & col_ok)
""",
        ),
        "hof_mm_tf32x3_where_clamped_rows": dict(
            exercise="13_triton_matmul",
            part="matmul_kernel",
            full=True,
            kernel="""
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    am = tl.where(rm < M, rm, 0)  # rows past M read row 0; never stored
    bn = tl.where(rn < N, rn, 0)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kmask = (k0 + rk) < K
        a = tl.load(a_ptr + am[:, None] * stride_am + (k0 + rk)[None, :] * stride_ak,
                    mask=kmask[None, :], other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * stride_bk + bn[None, :] * stride_bn,
                    mask=kmask[:, None], other=0.0)
        acc = tl.dot(a, b, acc, input_precision="tf32x3")  # three TF32 products: ~float32
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
""",
        ),
    }
)

SM_HEAD = """@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
"""

SM_BODY = """    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=NEG)
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s = s * EXP(m - new_m) + tl.sum(EXP(x - new_m), axis=0)
        m = new_m
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=NEG)
        tl.store(y_ptr + row * y_stride + start + cols, EXP(x - m) / s, mask=mask)
"""

SM_INIT = """    m = tl.max(tl.full([BLOCK], NEG, tl.float32), axis=0)
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
"""


def _sm(neg="-float('inf')", exp="tl.exp", extra=""):
    return SM_HEAD + extra + (SM_INIT + SM_BODY).replace("NEG", neg).replace("EXP", exp)


MM_HEAD = """@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
"""

MM_TAIL = """    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k0 + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
"""

CASES.update(
    {
        "hof_sm_leftover_device_print": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,
            kernel=_sm(extra='    if row == 0:\n        tl.device_print("n_cols", n_cols)\n'),
        ),
        "hof_sm_leftover_builtin_print": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,  # Triton compiles print() in a kernel as tl.device_print
            kernel=_sm(extra='    if row == 0:\n        print("first row", row)\n'),
        ),
        "hof_sm_numpy_inf": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,  # np.inf is a float: Triton reads module attributes as constants
            kernel=_sm(neg="-np.inf"),
        ),
        "hof_sm_math_inf": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,
            extra_cells=["import math"],
            kernel=_sm(neg="-math.inf"),
        ),
        "hof_sm_libdevice_attribute_path": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,
            kernel=_sm(exp="tl.extra.cuda.libdevice.exp"),
        ),
        "hof_sm_static_and_device_asserts": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,
            kernel=_sm(
                extra="    tl.static_assert(BLOCK % 32 == 0)\n"
                '    tl.device_assert(n_cols > 0, "empty row")\n'
            ),
        ),
        "hof_sm_annotated_constexpr_global": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,
            extra_cells=["NEG_INF: tl.constexpr = tl.constexpr(float('-inf'))"],
            kernel=_sm(neg="NEG_INF"),
        ),
        "hof_sm_constexpr_of_an_expression": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,
            extra_cells=["LOG2E = tl.constexpr(1.0 / 0.6931471805599453)"],
            kernel="@triton.jit\ndef exp_(v):\n    return tl.exp2(v * LOG2E)\n\n\n"
            + _sm(exp="exp_"),
        ),
        "hof_sm_float64_accumulation": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,
            kernel=SM_HEAD
            + """    m = tl.max(tl.full([BLOCK], -float("inf"), tl.float64), axis=0)
    s = tl.sum(tl.zeros([BLOCK], tl.float64), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        x = x.to(tl.float64)
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        y = tl.exp(x.to(tl.float64) - m) / s
        tl.store(y_ptr + row * y_stride + start + cols, y.to(tl.float32), mask=mask)
""",
        ),
        "hof_sm_stores_with_x_stride": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            fail=["public", "hidden"],
            passes=[],
            reason="",
            kernel=_sm().replace("y_ptr + row * y_stride", "y_ptr + row * x_stride"),
        ),
        "hof_mm_swizzle2d": dict(
            exercise="13_triton_matmul",
            part="matmul_kernel",
            full=True,
            kernel=MM_HEAD
            + """    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = tl.swizzle2d(pid // grid_n, pid % grid_n, grid_m, grid_n, GROUP_M)
"""
            + MM_TAIL,
        ),
        "hof_mm_group_of_eight_hardcoded": dict(
            exercise="13_triton_matmul",
            part="matmul_kernel",
            fail=["l2"],
            passes=["public", "hidden", "bounds", "memory"],
            reason="GROUP_M",
            kernel=MM_HEAD
            + """    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = tl.swizzle2d(pid // grid_n, pid % grid_n, grid_m, grid_n, 8)
"""
            + MM_TAIL,
        ),
        "hof_mm_tl_range_num_stages_helper_pids": dict(
            exercise="13_triton_matmul",
            part="matmul_kernel",
            full=True,
            kernel="""@triton.jit
def grouped_pids(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * num_pid_n
    first = (pid // in_group) * GROUP_M
    size = min(num_pid_m - first, GROUP_M)
    return first + (pid % in_group) % size, (pid % in_group) // size


"""
            + MM_HEAD
            + "    pid_m, pid_n = grouped_pids(pid, M, N, BLOCK_M, BLOCK_N, GROUP_M)\n"
            + MM_TAIL.replace(
                "for k0 in range(0, K, BLOCK_K):",
                "for k0 in tl.range(0, K, BLOCK_K, num_stages=2):",
            ),
        ),
    }
)

CASES.update(
    {
        "hof_block_sum_keyword_shared_floor_ceil_loop": dict(
            exercise="05_reduction",
            part="block_sum",
            full=True,
            kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(shape=(TPB,), dtype=float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    levels = -(-math.log2(TPB) // 1)  # a float: ceil by floor division of negatives
    for level in range(int(levels)):
        half = TPB >> (level + 1)
        if t < half:
            s[t] += s[t + half]
        cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
            extra_cells=["import math"],
        ),
        "hof_matmul_tiled_ceil_by_negative_floor_division": dict(
            exercise="03_matmul",
            part="matmul_tiled",
            full=True,
            kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
    sB = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range(-(-kk // TILE)):  # floor division rounds toward -inf: a ceiling
        k = t * TILE + tx
        sA[ty, tx] = A[row, k] if row < m and k < kk else float32(0.0)
        k = t * TILE + ty
        sB[ty, tx] = B[k, col] if k < kk and col < n else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
        ),
        "hof_matmul_tiled_math_ceil_tiles": dict(
            exercise="03_matmul",
            part="matmul_tiled",
            full=True,
            extra_cells=["import math"],
            kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range(math.ceil(kk / TILE)):  # numba's math.ceil gives an int
        k = t * TILE + tx
        sA[ty, tx] = A[row, k] if row < m and k < kk else float32(0.0)
        k = t * TILE + ty
        sB[ty, tx] = B[k, col] if k < kk and col < n else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
        ),
        "hof_matmul_naive_row_and_column_views": dict(
            exercise="03_matmul",
            part="matmul_naive",
            full=True,
            kernel="""
@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        a = A[row, :]  # a row of A
        b = B.T[col]  # a column of B, through the transpose
        acc = float32(0.0)
        for k in range(a.shape[0]):
            acc += a[k] * b[k]
        C[row, col] = acc
""",
        ),
        "hof_conv1d_reversed_filter_view_enumerate": dict(
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
        wf = w[::-1]  # the flipped filter, a view with a negative stride
        acc = float32(0.0)
        for j, wv in enumerate(wf):
            src = i - r + j
            if 0 <= src < n:
                acc += wv * x[src]
        out[i] = acc
""",
        ),
        "hof_conv1d_window_slice": dict(
            exercise="02_conv1d",
            part="conv1d",
            full=True,
            kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n, k = x.size, w.size
    if i < n:
        r = k // 2
        lo = max(i - r, 0)
        win = x[lo : i + r + 1]  # the part of the window inside the signal
        acc = float32(0.0)
        for j in range(win.size):
            acc += win[j] * w[i + r - (lo + j)]
        out[i] = acc
""",
        ),
        "hof_saxpy_in_range_guard": dict(
            exercise="01_elementwise",
            part="saxpy",
            full=True,
            kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i in range(out.size):
        out[i] = alpha * x[i] + y[i]
""",
        ),
        "hof_block_sum_last_four_lanes_ballot_mask": dict(
            exercise="05_reduction",
            part="block_sum",
            full=True,  # lanes 2 and 3 read lanes 4, 5 outside the mask: undefined, unused
            kernel="""
@cuda.jit
def block_sum(x, partial):
    warp_sums = cuda.shared.array(4, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
    if lane == 0:
        warp_sums[t // 32] = v
    cuda.syncthreads()
    if t < 32:
        mask = cuda.ballot_sync(0xFFFFFFFF, t < 4)
        if t < 4:
            w = warp_sums[t]
            w += cuda.shfl_down_sync(mask, w, 2)
            w += cuda.shfl_down_sync(mask, w, 1)
            if t == 0:
                partial[cuda.blockIdx.x] = w
""",
        ),
        "hof_block_sum_full_mask_four_lanes": dict(
            exercise="05_reduction",
            part="block_sum",
            # A full mask where only lanes 0..3 arrive: undefined behaviour, which
            # compute-sanitizer's synccheck reports.
            fail=["sync"],
            passes=[],
            reason="mask",
            kernel="""
@cuda.jit
def block_sum(x, partial):
    warp_sums = cuda.shared.array(4, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
    if lane == 0:
        warp_sums[t // 32] = v
    cuda.syncthreads()
    if t < 4:
        w = warp_sums[t]
        w += cuda.shfl_down_sync(0xFFFFFFFF, w, 2)
        w += cuda.shfl_down_sync(0xFFFFFFFF, w, 1)
        if t == 0:
            partial[cuda.blockIdx.x] = w
""",
        ),
        "hof_blur2d_tiled_keyword_shared_tuple_clamp_helper": dict(
            exercise="04_conv2d",
            part="blur2d_tiled",
            full=True,
            kernel="""
@cuda.jit(device=True, inline=True)
def clamp2(y, x, h, wd):
    if y < 0:
        y = 0
    elif y >= h:
        y = h - 1
    if x < 0:
        return y, 0
    if x >= wd:
        return y, wd - 1
    return y, x


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array(shape=(HALO, HALO), dtype=float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    h, wd = img.shape
    oy = cuda.blockIdx.y * TILE - R
    ox = cuda.blockIdx.x * TILE - R
    ly = ty
    while ly < HALO:
        lx = tx
        while lx < HALO:
            y, x = clamp2(oy + ly, ox + lx, h, wd)
            tile[ly, lx] = img[y, x]
            lx += TILE
        ly += TILE
    cuda.syncthreads()
    col, row = cuda.grid(2)
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(-R, R + 1):
            for dx in range(-R, R + 1):
                acc += w[dy + R, dx + R] * tile[ty + R + dy, tx + R + dx]
        out[row, col] = acc
""",
        ),
    }
)

CASES.update(
    {
        "hof_block_sum_warpsize_broadcast_while_true": dict(
            exercise="05_reduction",
            part="block_sum",
            full=True,
            kernel="""
@cuda.jit
def block_sum(x, partial):
    sums = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    lane = t % cuda.warpsize
    warp = t // cuda.warpsize
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    off = cuda.warpsize // 2
    while True:
        v += cuda.shfl_xor_sync(0xFFFFFFFF, v, off)
        off >>= 1
        if off == 0:
            break
    v = cuda.shfl_sync(0xFFFFFFFF, v, 0)  # every lane holds its warp's sum
    if lane == warp:
        sums[warp] = v
    cuda.syncthreads()
    if t == 0:
        total = float32(0.0)
        for w in range(cuda.blockDim.x // cuda.warpsize):
            total += sums[w]
        partial[cuda.blockIdx.x] = total
""",
        ),
        "hof_block_sum_syncthreads_count_loop": dict(
            exercise="05_reduction",
            part="block_sum",
            full=True,
            kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    stride = TPB // 2
    # the barrier also counts the threads still adding: the loop ends when none is
    while cuda.syncthreads_count(np.int32(t < stride)) > 0:
        if t < stride:
            s[t] += s[t + stride]
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
        ),
        "hof_matmul_naive_row_view_to_helper_defaults": dict(
            exercise="03_matmul",
            part="matmul_naive",
            full=True,
            kernel="""
@cuda.jit(device=True, inline="always")
def dot(a, B, col, start=0):
    acc = float32(0.0)
    for k in range(start, a.size):
        acc += a[k] * B[k, col]
    return acc


@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = dot(A[row], B, col=col)  # a view of one row
""",
        ),
        "hof_saxpy_fastmath": dict(
            exercise="01_elementwise",
            part="saxpy",
            full=True,
            kernel="""
@cuda.jit(fastmath=True)
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = alpha * x[i] + y[i]
""",
        ),
        "hof_blur2d_three_way_max_continue": dict(
            exercise="04_conv2d",
            part="blur2d",
            full=True,
            kernel="""
@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    if row < h and col < wd:
        k = w.shape[0]
        r = k // 2
        acc = float32(0.0)
        for dy in range(k):
            y = min(max(row + dy - r, 0, 0), h - 1)
            for dx in range(k):
                wv = w[dy, dx]
                if wv == 0.0:
                    continue  # nothing to add
                x = max(min(col + dx - r, wd - 1), 0)
                acc += wv * img[y, x]
        out[row, col] = acc
""",
        ),
        "hof_conv1d_for_else_round": dict(
            exercise="02_conv1d",
            part="conv1d",
            full=True,
            kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = round(w.size / 2 - 0.5)  # an int in numba: (K - 1) / 2 exactly
        acc = float32(0.0)
        for j in range(w.size):
            src = i + r - j
            if src < 0:
                break  # the taps left are further left still
            if src < x.size:
                acc += w[j] * x[src]
        else:
            acc += float32(0.0)
        out[i] = acc
""",
        ),
        "hof_sm_block_pointer_advance": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,
            kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    src = tl.make_block_ptr(x_ptr + row * x_stride, shape=(n_cols,), strides=(1,),
                            offsets=(0,), block_shape=(BLOCK,), order=(0,))
    m = tl.max(tl.full([BLOCK], -float("inf"), tl.float32), axis=0)
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(src, boundary_check=(0,), padding_option="zero")
        x = tl.where(start + cols < n_cols, x, -float("inf"))
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m
        src = tl.advance(src, (BLOCK,))
    src = tl.make_block_ptr(x_ptr + row * x_stride, shape=(n_cols,), strides=(1,),
                            offsets=(0,), block_shape=(BLOCK,), order=(0,))
    dst = tl.make_block_ptr(y_ptr + row * y_stride, shape=(n_cols,), strides=(1,),
                            offsets=(0,), block_shape=(BLOCK,), order=(0,))
    for start in range(0, n_cols, BLOCK):
        x = tl.load(src, boundary_check=(0,))
        tl.store(dst, tl.exp(x - m) / s, boundary_check=(0,))
        src = tl.advance(src, (BLOCK,))
        dst = tl.advance(dst, (BLOCK,))
""",
        ),
    }
)

CASES.update(
    {
        "hof_blur2d_radius_from_max_of_shape": dict(
            exercise="04_conv2d",
            part="blur2d",
            full=True,  # max of a tuple, as numba-cuda compiles it
            kernel="""
@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    if row < h and col < wd:
        r = max(w.shape) // 2
        acc = float32(0.0)
        for dy in range(-r, r + 1):
            y = min(max(row + dy, 0), h - 1)
            for dx in range(-r, r + 1):
                x = min(max(col + dx, 0), wd - 1)
                acc += w[r + dy, r + dx] * img[y, x]
        out[row, col] = acc
""",
        ),
    }
)

CASES.update(
    {
        "hof_block_sum_names_from_numba_cuda": dict(
            exercise="05_reduction",
            part="block_sum",
            full=True,
            extra_cells=["from numba.cuda import jit, grid, syncthreads"],
            kernel="""
@jit
def block_sum(x, partial):
    \"\"\"partial[b] = the sum of block b's slice of x.\"\"\"
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
        ),
        "hof_conv1d_helper_in_later_cell_numba_alias": dict(
            exercise="02_conv1d",
            part="conv1d",
            full=True,
            extra_after=[
                """
@nc.jit(device=True)
def tap(x, j):
    # zero outside the signal
    return x[j] if 0 <= j < x.size else numba.float32(0)
"""
            ],
            extra_cells=["import numba\nimport numba.cuda as nc"],
            kernel="""
@nc.jit()
def conv1d(x: np.ndarray, w: np.ndarray, out: np.ndarray) -> None:
    i = nc.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = numba.float32(0)
        for j in range(w.size):
            acc += w[j] * tap(x, i + r - j)
        out[i] = acc
""",
        ),
        "hof_matmul_naive_from_math_import": dict(
            exercise="03_matmul",
            part="matmul_naive",
            full=True,
            extra_cells=["from math import fsum, fabs\nROWS_PER_BLOCK = TILE"],
            kernel="""
@cuda.jit
def matmul_naive(A, B, C):
    row = cuda.blockIdx.y * ROWS_PER_BLOCK + cuda.threadIdx.y
    col = cuda.blockIdx.x * ROWS_PER_BLOCK + cuda.threadIdx.x
    if row < C.shape[0] and col < C.shape[1]:
        pos = float32(0.0)
        neg = float32(0.0)
        for k in range(A.shape[1]):
            p = A[row, k] * B[k, col]
            if p >= 0:
                pos += p
            else:
                neg += fabs(p)  # positive and negative terms apart, then one subtraction
        C[row, col] = pos - neg
""",
        ),
    }
)

CASES.update(
    {
        "hof_sm_tensor_member_functions": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,
            kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), float("-inf"), dtype=tl.float32).max(0)
    s = tl.zeros((BLOCK,), dtype=tl.float32).sum(0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=float("-inf"),
                    cache_modifier=".cg")
        new_m = tl.maximum(m, x.max(0))
        s = s * (m - new_m).exp() + (x - new_m).exp().sum(0)
        m = new_m
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=float("-inf"))
        tl.store(y_ptr + row * y_stride + start + cols, (x - m).exp() / s, mask=mask)
""",
        ),
        "hof_sm_tl_softmax_one_block_else_online": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            full=True,
            kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    src = x_ptr + row * x_stride
    dst = y_ptr + row * y_stride
    if n_cols <= BLOCK:
        mask = cols < n_cols
        x = tl.load(src + cols, mask=mask, other=-float("inf"))
        tl.store(dst + cols, tl.softmax(x), mask=mask)  # Triton's own, for one block
    else:
        m = tl.max(tl.full([BLOCK], -float("inf"), tl.float32), axis=0)
        s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            x = tl.load(src + start + cols, mask=mask, other=-float("inf"))
            new_m = tl.maximum(m, tl.max(x, axis=0))
            s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
            m = new_m
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            x = tl.load(src + start + cols, mask=mask, other=-float("inf"))
            tl.store(dst + start + cols, tl.exp(x - m) / s, mask=mask)
""",
        ),
    }
)

CASES.update(
    {
        "hof_mm_builtin_min_clamps_offsets": dict(
            exercise="13_triton_matmul",
            part="matmul_kernel",
            full=True,  # Triton compiles min(tensor, scalar) elementwise (tl.minimum)
            kernel=MM_HEAD
            + """    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = tl.swizzle2d(pid // grid_n, pid % grid_n, grid_m, grid_n, GROUP_M)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    am = min(rm, M - 1)  # rows past the end read the last row; never stored
    bn = min(rn, N - 1)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + am[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=kk[None, :] < K, other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + bn[None, :] * stride_bn,
                    mask=kk[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
""",
        ),
    }
)

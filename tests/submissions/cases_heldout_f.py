"""Fresh submissions for exercises 01-05, 12 and 13 (built by build.py): correct kernels in
styles students write that numba-cuda and Triton compile (full marks), wrong kernels that
must fail the criterion a GPU (with compute-sanitizer) would expose, and attempts to fool
one criterion's measure while the outputs stay right.
"""

from __future__ import annotations

MM_HEAD = """@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
"""

CASES: dict = {}

# -- 01-04: correct kernels in styles numba-cuda compiles (views, `in range`, max of a shape) ----
CASES.update(
    {
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

# -- 03, 05: outputs right, one criterion's measure fooled ------------
CASES.update(
    {
        "hof_gaming_matmul_tiled_rows_loaded_by_every_thread": dict(
            exercise="03_matmul",
            part="matmul_tiled",
            # Each thread fills the whole row of the A tile and the whole column of the B tile it
            # reads: the same values land TILE times in each shared slot, global loads x TILE.
            fail=["memory"],
            passes=["public", "hidden", "bounds"],
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
        "hof_gaming_matmul_naive_thread_zero_computes_tile": dict(
            exercise="03_matmul",
            part="matmul_naive",
            # stores one element per thread; one thread computed the whole tile
            fail=["parallel"],
            passes=["public", "hidden", "bounds"],
            gaming="work spread",
            reason="one thread",
            kernel="""
@cuda.jit
def matmul_naive(A, B, C):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    r0, c0 = cuda.blockIdx.y * TILE, cuda.blockIdx.x * TILE
    m, n = C.shape
    if tx == 0 and ty == 0:  # one thread computes the block's whole tile of C
        for a in range(TILE):
            for b in range(TILE):
                if r0 + a < m and c0 + b < n:
                    acc = float32(0.0)
                    for k in range(A.shape[1]):
                        acc += A[r0 + a, k] * B[k, c0 + b]
                    tile[a, b] = acc
    cuda.syncthreads()
    if r0 + ty < m and c0 + tx < n:
        C[r0 + ty, c0 + tx] = tile[ty, tx]  # every thread stores one element
""",
        ),
        "hof_gaming_blur2d_thread_zero_computes_tile": dict(
            exercise="04_conv2d",
            part="blur2d",
            # stores one element per thread; one thread computed the whole tile
            fail=["parallel"],
            passes=["public", "hidden", "bounds"],
            gaming="work spread",
            reason="one thread",
            kernel="""
@cuda.jit
def blur2d(img, w, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    r0, c0 = cuda.blockIdx.y * TILE, cuda.blockIdx.x * TILE
    h, wd = img.shape
    k = w.shape[0]
    r = k // 2
    if tx == 0 and ty == 0:
        for a in range(TILE):
            for b in range(TILE):
                if r0 + a < h and c0 + b < wd:
                    acc = float32(0.0)
                    for dy in range(k):
                        y = min(max(r0 + a + dy - r, 0), h - 1)
                        for dx in range(k):
                            x = min(max(c0 + b + dx - r, 0), wd - 1)
                            acc += w[dy, dx] * img[y, x]
                    tile[a, b] = acc
    cuda.syncthreads()
    if r0 + ty < h and c0 + tx < wd:
        out[r0 + ty, c0 + tx] = tile[ty, tx]
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
    }
)

# -- 05 reduction: a shuffle among the lanes a mask names -------------------------------
CASES.update(
    {
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
    }
)

# -- 12 and 13 Triton ------------------------------------------------------------------
CASES.update(
    {
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
        "hof_sm_print_module_constants_computed_constexpr": dict(
            exercise="12_triton_softmax",
            part="softmax_kernel",
            # Triton compiles all of it: print is tl.device_print, -np.inf and -math.inf are
            # constants of imported modules, LOG2E a constexpr global computed from numbers.
            full=True,
            kernel="""
import math

LOG2E: tl.constexpr = tl.constexpr(1 / math.log(2))


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    if row == 0:
        print("n_cols", n_cols)  # a debugging line left in
    m = tl.max(tl.full([BLOCK], -math.inf, tl.float32), axis=0)
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-np.inf)
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp2((m - new_m) * LOG2E) + tl.sum(tl.exp2((x - new_m) * LOG2E), axis=0)
        m = new_m
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-np.inf)
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp2((x - m) * LOG2E) / s, mask=mask)
""",
        ),
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

"""Held-out set a21: Triton numerics and indexing (exp2, libdevice, masked lanes, accumulator dtypes, strides as constexprs, early returns), written blind from the student notebooks and INSTRUCTOR.md."""

CASES = {
    # ------------------------------------------------------------------ 12: correct
    "hov21_softmax_exp2_log2e_from_math": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        extra_cells=[
            "import math\nLOG2E = tl.constexpr(1 / math.log(2))  # exp(t) == exp2(t * log2(e))\n",
        ],
        kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    cols = tl.arange(0, BLOCK)
    # online pass, in base 2: the hardware has ex2, exp is ex2 of a scaled argument anyway
    m = tl.full((), float("-inf"), tl.float32)
    s = tl.full((), 0.0, tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp2((m - m_new) * LOG2E) + tl.sum(tl.exp2((x - m_new) * LOG2E), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=float("-inf"))
        tl.store(y_row + start + cols, tl.exp2((x - m) * LOG2E) / s, mask=mask)
""",
        full=True,
    ),
    "hov21_softmax_per_lane_running_stats_while": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    # every lane keeps its own running max and sum; the lanes are merged once, at the end
    m_lane = tl.full([BLOCK], float("-inf"), tl.float32)
    s_lane = tl.zeros([BLOCK], dtype=tl.float32)
    start = 0
    while start < n_cols:
        cols = start + offs
        x = tl.load(x_ptr + row * x_stride + cols, mask=cols < n_cols, other=float("-inf"))
        m_next = tl.maximum(m_lane, x)
        # a lane that has only seen masked values has m = -inf: exp(-inf - -inf) is NaN there,
        # so those lanes take 0 (the NaN is computed but never kept)
        empty = m_next == float("-inf")
        s_lane = tl.where(empty, 0.0, s_lane * tl.exp(m_lane - m_next) + tl.exp(x - m_next))
        m_lane = m_next
        start += BLOCK
    m = tl.max(m_lane, axis=0)
    s = tl.sum(s_lane * tl.exp(m_lane - m), axis=0)
    inv_s = 1.0 / s
    start = 0
    while start < n_cols:
        cols = start + offs
        x = tl.load(x_ptr + row * x_stride + cols, mask=cols < n_cols)
        tl.store(y_ptr + row * y_stride + cols, tl.exp(x - m) * inv_s, mask=cols < n_cols)
        start += BLOCK
""",
        full=True,
    ),
    "hov21_softmax_constexpr_strides_libdevice_reversed_rows": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        extra_cells=["from triton.language.extra import libdevice\n"],
        kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride: tl.constexpr, y_stride: tl.constexpr,
                   BLOCK: tl.constexpr):
    # strides as constexpr: Triton compiles one kernel per stride value it is called with
    tl.static_assert(BLOCK % 32 == 0, "BLOCK should be a multiple of a warp")
    # the programs take the rows from the last one back (any one-to-one order is fine)
    row = tl.num_programs(0) - 1 - tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = -float("inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * libdevice.exp(m - m_new) + tl.sum(libdevice.exp(x - m_new), axis=0)
        m = m_new
    log_s = libdevice.log(s)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=0.0)
        # y = exp(x - m) / s = exp(x - m - log(s))
        tl.store(y_ptr + row * y_stride + start + cols, libdevice.exp(x - m - log_s), mask=mask)
""",
        full=True,
    ),
    # ------------------------------------------------------------------ 12: bugs
    "hov21_softmax_row_offset_uses_n_cols": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    # rows are n_cols long, so row r starts at r * n_cols
    row_start = row * n_cols
    cols = tl.arange(0, BLOCK)
    m = -float("inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row_start + start + cols, mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row_start + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row_start + start + cols, tl.exp(x - m) / s, mask=mask)
""",
        fail=["hidden"],
        passes=[],
        reason="wrong values",
        why="ignores x_stride/y_stride: on rows stored with a stride wider than n_cols (hidden boundary) "
        "row r>=1 reads and writes at r*n_cols, i.e. the end of row r-1, its padding and the start of "
        "row r, so program r+1 overwrites part of row r, the values are wrong and the last row's tail is never "
        "written (still -7); contiguous public rows pass.",
    ),
    "hov21_softmax_running_max_starts_at_zero": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = 0.0  # running max
    s = 0.0  # running sum of exp(x - m)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=float("-inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s, mask=mask)
""",
        fail=["hidden"],
        passes=[],
        reason="wrong values",
        why="the running max starts at 0, so a row whose values are all below about -87 (every draw has a row "
        "below -104, and rows shifted down by up to 1000) keeps m = 0: every exp(x - 0) underflows to 0, "
        "s = 0 and the row is stored as 0/0 = NaN; rows with a positive max are right.",
    ),
    "hov21_softmax_shift_by_first_block_max": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    cols = tl.arange(0, BLOCK)
    # shift by the max of the first block: softmax does not depend on the shift, and this
    # keeps exp() near 1 without rescaling the sum every block
    x0 = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf"))
    m = tl.max(x0, axis=0)
    s = tl.sum(tl.exp(x0 - m), axis=0)
    for start in range(BLOCK, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=float("-inf"))
        s += tl.sum(tl.exp(x - m), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=float("-inf"))
        tl.store(y_row + start + cols, tl.exp(x - m) / s, mask=mask)
""",
        fail=["hidden"],
        passes=[],
        reason="wrong values",
        why="the shift is the first block's max, not the row's: a row whose later blocks rise more than ~88.7 above "
        "its first 128 values (e.g. a row spread +-100 that rises, as exercise 11's boundaries have) makes "
        "exp(x - m) overflow to inf, s = inf and the row stores 0 and NaN (inf/inf); rows with a small spread pass.",
    ),
    # ------------------------------------------------------------------ 12: off the brief
    "hov21_softmax_three_passes": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    # pass 1: the row's max
    m = -float("inf")
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=start + cols < n_cols, other=-float("inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
    # pass 2: the sum of exp(x - max)
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=start + cols < n_cols, other=-float("inf"))
        s += tl.sum(tl.exp(x - m), axis=0)
    # pass 3: normalise
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=start + cols < n_cols, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s, mask=start + cols < n_cols)
""",
        fail=["memory"],
        passes=["public", "hidden", "bounds", "parallel"],
        reason="loads",
        why="right values, but every element of x is loaded three times (max, sum, normalise): the brief allows two "
        "(an online max/sum pass, then the write).",
    ),
    # ------------------------------------------------------------------ 13: matmul
    "hov21_matmul_block_ptr_tuple_helper": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel="""
@triton.jit
def grouped_tile(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    # grouped launch order: GROUP_M rows of tiles, walked column by column
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    rows_here = tl.minimum(tiles_m - first_m, GROUP_M)   # the last group may be shorter
    local = pid - (pid // per_group) * per_group
    return first_m + local % rows_here, local // rows_here


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    # block pointers: the edges (M, N and the K remainder) are handled by boundary_check
    a_blk = tl.make_block_ptr(a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                              offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_blk = tl.make_block_ptr(b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                              offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b, input_precision="ieee")
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                              offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(c_blk, acc, boundary_check=(0, 1))
""",
        full=True,
    ),
    "hov21_matmul_tf32x3_while_early_return": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel="""
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    tl.static_assert(BLOCK_K >= 16, "tl.dot needs K >= 16")
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    if pid >= num_pid_m * num_pid_n:  # never with the notebook's grid, but cheap
        return
    group = pid // (GROUP_M * num_pid_n)
    first_m = group * GROUP_M
    group_rows = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group_rows)
    pid_n = (pid - group * GROUP_M * num_pid_n) // group_rows
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k0 = 0
    while k0 < K:
        ka = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + ka[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ka[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        # 3xTF32: tensor cores, with the rounding error of each input corrected (about fp32 accuracy)
        acc = tl.dot(a, b, acc, input_precision="tf32x3", out_dtype=tl.float32)
        k0 += BLOCK_K
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
""",
        full=True,
    ),
    "hov21_matmul_inner_strides_assumed_one": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel="""
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    # rows of A and of B are contiguous, so along k (A) and along n (B) the step is 1
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
""",
        fail=["hidden"],
        passes=["public", "bounds"],
        reason="wrong values",
        why="assumes stride_ak == 1 and stride_bn == 1: for the hidden cases where A or B is stored transposed "
        "(stride_ak = M, stride_bn = K) it multiplies the wrong elements (still inside the tensors, so no "
        "bounds finding, but the same element several times per program); every public case is row-major "
        "and passes.",
    ),
    "hov21_matmul_fp16_accumulator": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel="""
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    # half-precision accumulator: half the registers of a float32 one
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee").to(tl.float16)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
""",
        fail=["public", "hidden"],
        passes=[],
        reason="precision",
        why="the accumulator is float16 (11-bit significand): every K step rounds the partial sums to about 5e-4 "
        "relative, so outputs near zero after cancellation are off by far more than rtol 1e-3 once K > 16 "
        "(public 40x33x50)",
    ),
    "hov21_matmul_row_major_launch_order": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel="""
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # tiles in row-major order: simple, and every tile of C gets exactly one program
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
""",
        fail=["l2"],
        passes=["public", "hidden", "bounds", "memory"],
        reason="panels",
        why="right values, but tiles are taken row by row: on a grid 8 tiles wide (256x256), 8 consecutive programs "
        "need 1 A row panel + 8 B column panels = 9, against 4 + 2 = 6 for the grouped order.",
    ),
}

"""Blind set a34: Triton softmax and matmul in styles the exercises do not show: exp2 online passes, per-lane state with tl.where, block pointers, pointer bumps, launch orders, strides"""

# Notes on INSTRUCTOR.md (points left out on purpose):
# * Two identical tl.load calls in one loop body (same pointers, same mask, no store between)
#   count twice on the interpreter, but Triton's compiler may merge them into one load on a
#   GPU; the guide counts interpreter loads, the brief asks for what a GPU does. No case here
#   relies on such a pair: the over-budget cases re-load in another loop (another pass, or
#   another K loop), which no compiler merges.
# * A matmul that wraps rows/columns (`rm % M`, as Triton's tutorial does) makes one load
#   instruction fetch the same element of A several times when M < BLOCK_M; whether that is
#   "more than one load of each tile per program and K step" is not settled by the guide.
#   Left out.
# * The matmul's tolerance is given as "rtol = 1e-3" without an atol; cases here are either
#   ieee-exact to ~1e-6 or wrong by whole tiles, so the atol does not matter.
# * The softmax's "memory" rule counts loads of x only; a kernel that stores exp to y and
#   reads y back in a third pass loads x twice. Left out.
# * "each 8 consecutive programs" (l2) does not say whether windows are aligned (pids 8j..8j+7)
#   or sliding, nor how windows are compared: on an 8 x 8 grid a plain column-major (or
#   row-major) order needs 9 panels per aligned window against the grouped order's 6, but its
#   worst sliding window (10) equals the grouped order's worst (10, across a group boundary).
#   The l2 case here uses a diagonal order, which needs 15-16 in every window: worse under
#   any of these readings.
# * Scaling before subtracting (x * log2e - m * log2e, as Triton's tutorials do) loses up to
#   ~1e-4 relative at row offsets near 1000: too close to rtol = 1e-4 to call either way. The
#   exp2 cases here subtract first.
# * Which layouts the public cases use is not stated; the cases that ignore strides assume
#   the public cases are contiguous (the strided and transposed layouts are listed only as
#   hidden boundaries).

CASES = {}

# ---------------------------------------------------------------------------------------
# 12_triton_softmax: full marks
# ---------------------------------------------------------------------------------------

CASES["hoi34_softmax_online_exp2_log2e"] = dict(
    exercise="12_triton_softmax",
    part="softmax_kernel",
    extra_cells=['''import math

LOG2E = tl.constexpr(1 / math.log(2))  # exp(x) = exp2(x * log2(e))
'''],
    kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    offs = tl.arange(0, BLOCK)
    n_blocks = tl.cdiv(n_cols, BLOCK)
    # one online pass: running max m and running sum s of exp(x - m), in base 2
    m = -float("inf")
    s = 0.0
    for b in range(0, n_blocks):
        cols = b * BLOCK + offs
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp2((m - m_new) * LOG2E) + tl.sum(tl.exp2((x - m_new) * LOG2E), axis=0)
        m = m_new
    inv_s = 1.0 / s
    for b in range(0, n_blocks):
        cols = b * BLOCK + offs
        keep = cols < n_cols
        x = tl.load(x_row + cols, mask=keep, other=0.0)
        tl.store(y_row + cols, tl.exp2((x - m) * LOG2E) * inv_s, mask=keep)
''',
    full=True,
)

CASES["hoi34_softmax_lane_state_where_reversed_rows"] = dict(
    exercise="12_triton_softmax",
    part="softmax_kernel",
    kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # rows taken from the last program down: each program still owns exactly one row
    row = tl.num_programs(0) - 1 - tl.program_id(0)
    cols = tl.arange(0, BLOCK)[None, :]  # (1, BLOCK)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    # per-lane running max and sum: lane j sees columns j, j + BLOCK, j + 2 BLOCK, ...
    m = tl.full((1, BLOCK), -float("inf"), tl.float32)
    s = tl.zeros((1, BLOCK), tl.float32)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        x = tl.load(x_row + c, mask=c < n_cols, other=-float("inf"))
        m_new = tl.maximum(m, x)
        seen = m_new > -float("inf")  # a lane that has met no column keeps s = 0, not NaN
        alpha = tl.where(seen, tl.exp(m - m_new), 0.0)
        s = s * alpha + tl.where(seen, tl.exp(x - m_new), 0.0)
        m = m_new
    row_max = tl.max(m, axis=1, keep_dims=True)  # (1, 1)
    scale = tl.where(m > -float("inf"), tl.exp(m - row_max), 0.0)
    inv = 1.0 / tl.sum(s * scale, axis=1, keep_dims=True)  # (1, 1)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        keep = c < n_cols
        x = tl.load(x_row + c, mask=keep, other=0.0)
        tl.store(y_row + c, tl.exp(x - row_max) * inv, mask=keep)
''',
    full=True,
)

# ---------------------------------------------------------------------------------------
# 12_triton_softmax: wrong
# ---------------------------------------------------------------------------------------

CASES["hoi34_softmax_lane_state_inf_minus_inf"] = dict(
    exercise="12_triton_softmax",
    part="softmax_kernel",
    kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)[None, :]  # (1, BLOCK)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    m = tl.full((1, BLOCK), -float("inf"), tl.float32)
    s = tl.zeros((1, BLOCK), tl.float32)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        x = tl.load(x_row + c, mask=c < n_cols, other=-float("inf"))
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    row_max = tl.max(m, axis=1, keep_dims=True)
    inv = 1.0 / tl.sum(s * tl.exp(m - row_max), axis=1, keep_dims=True)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        keep = c < n_cols
        x = tl.load(x_row + c, mask=keep, other=0.0)
        tl.store(y_row + c, tl.exp(x - row_max) * inv, mask=keep)
''',
    fail=["public", "hidden", "bounds", "parallel", "memory"],
    passes=[],
    reason="2 rows x 7",
    why=("Per-lane running state without a guard: when n_cols < BLOCK (public 2 rows x 7), "
         "lanes 7..127 only ever load other=-inf, so m - m_new = -inf - (-inf) = NaN, "
         "exp(NaN) = NaN makes their s NaN, and NaN * exp(-inf) = NaN poisons the row sum: "
         "every output of the row is NaN on a GPU (rows of >= 128 columns come out right, "
         "since every lane meets a column in the first block); a failed public case forfeits "
         "the quality criteria."),
)

CASES["hoi34_softmax_three_pass_exp2"] = dict(
    exercise="12_triton_softmax",
    part="softmax_kernel",
    kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    offs = tl.arange(0, BLOCK)
    # pass 1: lane-wise max, reduced once at the end
    lane_max = tl.full((BLOCK,), -float("inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        lane_max = tl.maximum(lane_max, tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf")))
    m = tl.max(lane_max, axis=0)
    # pass 2: sum of 2^((x - m) log2 e)
    lane_sum = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf"))
        lane_sum += tl.exp2((x - m) * 1.4426950408889634)
    inv = 1.0 / tl.sum(lane_sum, axis=0)
    # pass 3: write
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        keep = cols < n_cols
        x = tl.load(x_row + cols, mask=keep, other=0.0)
        tl.store(y_row + cols, tl.exp2((x - m) * 1.4426950408889634) * inv, mask=keep)
''',
    fail=["memory"],
    passes=["public", "hidden", "bounds", "parallel"],
    reason="loads",
    why=("Three separate loops over the row (lane-wise max, sum of exp2, write) each load every "
         "element of x once: 3 loads per element on every case, over the budget of 2 (an online "
         "pass, then the write); the compiled PTX has three ld.global, one per loop, which no "
         "compiler merges; values are right everywhere (x - m is taken before the log2(e) scale)."),
)

CASES["hoi34_softmax_eight_block_tile_keep_dims"] = dict(
    exercise="12_triton_softmax",
    part="softmax_kernel",
    kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    # the whole row as one (8, BLOCK) tile in registers: one load per element
    cols = tl.arange(0, 8)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :]
    keep = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=keep, other=-float("inf"))
    m = tl.max(tl.max(x, axis=1, keep_dims=True), axis=0, keep_dims=True)  # (1, 1)
    e = tl.exp(x - m)
    s = tl.sum(tl.sum(e, axis=1, keep_dims=True), axis=0, keep_dims=True)  # (1, 1)
    tl.store(y_ptr + row * y_stride + cols, e / s, mask=keep)
''',
    fail=["hidden"],
    passes=["public", "bounds", "parallel", "memory"],
    reason='wrong values',
    why=("The tile covers 8 x 128 = 1024 columns: on the hidden boundary 'a row wider than 8 "
         "blocks' (n_cols > 1024, up to 3072) columns 1024.. are never loaded nor stored, so they "
         "keep -7.0 and the stored columns are divided by a sum that misses them; the public "
         "rows (<= 300 columns) and every row up to 1024 columns are right, with one load per "
         "element."),
)

# ---------------------------------------------------------------------------------------
# 13_triton_matmul: full marks
# ---------------------------------------------------------------------------------------

CASES["hoi34_matmul_block_ptr_swizzle2d"] = dict(
    exercise="13_triton_matmul",
    part="matmul_kernel",
    kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # row-major (i, j) -> column-major within groups of GROUP_M rows of tiles
    pid_m, pid_n = tl.swizzle2d(pid // num_pid_n, pid % num_pid_n, num_pid_m, num_pid_n, GROUP_M)
    a_blk = tl.make_block_ptr(a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                              offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_blk = tl.make_block_ptr(b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                              offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                              offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N),
                              order=(1, 0))
    tl.store(c_blk, acc, boundary_check=(0, 1))
''',
    full=True,
)

CASES["hoi34_matmul_ptr_bump_cdiv_where_group"] = dict(
    exercise="13_triton_matmul",
    part="matmul_kernel",
    kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_pid_n
    group = pid // per_group
    first_m = group * GROUP_M
    rows_left = num_pid_m - first_m
    group_rows = tl.where(rows_left < GROUP_M, rows_left, GROUP_M)  # the last group may be short
    local = pid - group * per_group
    pid_m = first_m + local % group_rows
    pid_n = local // group_rows

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    m_ok = offs_m[:, None] < M
    n_ok = offs_n[None, :] < N
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - kb * BLOCK_K
        a = tl.load(a_ptrs, mask=m_ok & (offs_k[None, :] < k_left), other=0.0).to(tl.float32)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & n_ok, other=0.0).to(tl.float32)
        acc += tl.dot(a, b, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc, mask=m_ok & n_ok)
''',
    full=True,
)

# ---------------------------------------------------------------------------------------
# 13_triton_matmul: wrong
# ---------------------------------------------------------------------------------------

CASES["hoi34_matmul_two_half_tiles_reload_b"] = dict(
    exercise="13_triton_matmul",
    part="matmul_kernel",
    extra_cells=['''@triton.jit
def _half_tile(a_ptr, b_ptr, c_ptr, row0, offs_n, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
               stride_cm, stride_cn, HALF: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # HALF rows of the C tile, with their own K loop (fewer registers than the whole tile)
    offs_m = row0 + tl.arange(0, HALF)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((HALF, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        kk = k + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
'''],
    kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * num_pid_n
    first_m = pid // in_group * GROUP_M
    size_m = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + pid % in_group % size_m
    pid_n = pid % in_group // size_m
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    HALF: tl.constexpr = BLOCK_M // 2
    for h in tl.static_range(2):
        _half_tile(a_ptr, b_ptr, c_ptr, pid_m * BLOCK_M + h * HALF, offs_n, M, N, K,
                   stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   HALF, BLOCK_N, BLOCK_K)
''',
    fail=["memory"],
    passes=["public", "hidden", "bounds", "l2"],
    reason="loads",
    why=("Each 16-row half of the 32 x 32 C tile runs its own K loop and loads the whole 16 x 32 "
         "tile of B at every K step, so each program loads every element of its B tiles twice per "
         "K step (2 > 1; the rows of A are split between the halves and loaded once); on sm_80 the "
         "two K loops issue their own cp.async copies of B (36 per program body against 24 for "
         "the one-loop kernel); values, masks and the grouped order are the model's."),
)

CASES["hoi34_matmul_assumes_contiguous_a"] = dict(
    exercise="13_triton_matmul",
    part="matmul_kernel",
    kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = tl.swizzle2d(pid // num_pid_n, pid % num_pid_n, num_pid_m, num_pid_n, GROUP_M)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        kk = k + rk
        # A is row-major (M, K): row r starts at r * K
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
''',
    fail=["hidden"],
    passes=["public", "bounds", "memory", "l2"],
    reason='wrong values',
    why=("A is addressed as r * K + k (contiguous row-major) instead of r * stride_am + k * stride_ak: "
         "right for the contiguous public A, but on the hidden boundary 'A stored transposed' "
         "(stride_am = 1, stride_ak = M) element (r, k) is read from storage offset r*K + k, another "
         "element of A, so C is wrong whenever M > 1 and K > 1 (e.g. 70x33 @ 33x90: 6298 of 6300 "
         "outputs off); the offsets stay below M*K, inside A, and B's strides are used, so no "
         "access leaves the tensors."),
)

CASES["hoi34_matmul_diagonal_order"] = dict(
    exercise="13_triton_matmul",
    part="matmul_kernel",
    kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # diagonal order (as for the transpose's partition camping): consecutive programs take
    # tiles (i, i + j): a different row and a different column of tiles each
    pid_m = pid % num_pid_m
    pid_n = (pid // num_pid_m + pid_m) % num_pid_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K) * BLOCK_K, BLOCK_K):
        kk = k + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
''',
    fail=["l2"],
    passes=["public", "hidden", "bounds", "memory"],
    reason="panels",
    why=("Diagonal order: program pid takes tile (i, (i + j) mod num_pid_n) with i = pid mod num_pid_m, "
         "j = pid // num_pid_m, a bijection, so C is right. On the public 256x16 @ 16x256 case "
         "(8 x 8 tiles) programs 0..7 take tiles (0,0), (1,1), ..., (7,7): 8 row panels of A + 8 "
         "column panels of B = 16, where the grouped order needs 4 + 2 = 6; every window of 8 "
         "consecutive programs needs 15 or 16, above even the grouped order's worst window (10, "
         "across a group boundary)."),
)

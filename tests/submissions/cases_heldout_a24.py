"""Held-out set a24: value-dependent bugs in Triton kernels and ring handlers (running max seeds, float16 stores, epsilon guards, thresholds met exactly), written blind from the student notebooks and INSTRUCTOR.md."""

CASES = {
    # ------------------------------------------------------------------ 12_triton_softmax
    "hoy24_softmax_lanewise_online_exp2_while": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        extra_cells=["import math"],
        kernel="""
LOG2E = tl.constexpr(1 / math.log(2))


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    # every lane keeps its own running max and running sum; lanes are merged at the end
    m_lane = tl.full((BLOCK,), -float("inf"), tl.float32)
    s_lane = tl.zeros((BLOCK,), tl.float32)
    start = 0
    while start < n_cols:
        offs = start + cols
        msk = offs < n_cols
        v = tl.load(x_row + offs, mask=msk, other=-float("inf"))
        m_new = tl.maximum(m_lane, v)
        # a lane that has only seen padding keeps s = 0 (no -inf - -inf)
        safe = tl.where(m_new == -float("inf"), 0.0, m_new)
        s_lane = s_lane * tl.exp2((m_lane - safe) * LOG2E) + tl.exp2((v - safe) * LOG2E)
        m_lane = m_new
        start += BLOCK
    m = tl.max(m_lane, axis=0)
    s = tl.sum(tl.where(m_lane == -float("inf"), 0.0, s_lane * tl.exp2((m_lane - m) * LOG2E)), axis=0)
    inv = 1.0 / s
    start = 0
    while start < n_cols:
        offs = start + cols
        msk = offs < n_cols
        v = tl.load(x_row + offs, mask=msk, other=0.0)
        tl.store(y_row + offs, tl.exp2((v - m) * LOG2E) * inv, mask=msk)
        start += BLOCK
""",
        full=True,
    ),
    "hoy24_softmax_helper_returns_tuple": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel="""
@triton.jit
def merge_block(m, s, v):
    # fold one block into the running (max, sum of exp(x - max))
    m_new = tl.maximum(m, tl.max(v, axis=0))
    s_new = s * tl.exp(m - m_new) + tl.sum(tl.exp(v - m_new), axis=0)
    return m_new, s_new


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs0 = tl.arange(0, BLOCK)
    n_blocks = tl.cdiv(n_cols, BLOCK)
    # the first block seeds the statistics (a row has at least one element)
    v = tl.load(x_ptr + pid * x_stride + offs0, mask=offs0 < n_cols, other=float("-inf"))
    m = tl.max(v, axis=0)
    s = tl.sum(tl.exp(v - m), axis=0)
    for b in range(1, n_blocks):
        offs = b * BLOCK + offs0
        v = tl.load(x_ptr + pid * x_stride + offs, mask=offs < n_cols, other=float("-inf"))
        m, s = merge_block(m, s, v)
    for b in range(0, n_blocks):
        offs = b * BLOCK + offs0
        v = tl.load(x_ptr + pid * x_stride + offs, mask=offs < n_cols)
        tl.store(y_ptr + pid * y_stride + offs, tl.exp(v - m) / s, mask=offs < n_cols)
""",
        full=True,
    ),
    "hoy24_softmax_running_max_starts_at_zero": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = 0.0  # running max
    s = 0.0  # running sum of exp(x - m)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + cols, tl.exp(x - m) / s, mask=mask)
""",
        fail=["hidden"],
        passes=[],
        reason="hidden",
        why="the running max starts at 0 instead of -inf, so m = max(0, row max): for a row whose every "
        "value is below about -104 every exp(x - 0) underflows to 0, s = 0 and the row comes out NaN "
        "(rows between -104 and -88 lose precision in denormals, or go NaN on a GPU that flushes them); "
        "rows with a positive max are exact. INSTRUCTOR.md's domain lists 'a row whose every value is "
        "below -104' in every draw, so hidden must fail; the public 3x300 rows 'shifted by up to 1000' "
        "fail too if one is shifted below about -100, hence passes=[].",
    ),
    "hoy24_softmax_three_passes": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel="""
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    xr = x_ptr + row * x_stride
    # pass 1: the max
    m = -float("inf")
    for start in range(0, n_cols, BLOCK):
        x = tl.load(xr + start + offs, mask=start + offs < n_cols, other=-float("inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
    # pass 2: the sum
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        x = tl.load(xr + start + offs, mask=start + offs < n_cols, other=-float("inf"))
        s += tl.sum(tl.exp(x - m), axis=0)
    # pass 3: write
    for start in range(0, n_cols, BLOCK):
        x = tl.load(xr + start + offs, mask=start + offs < n_cols, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + offs, tl.exp(x - m) / s, mask=start + offs < n_cols)
""",
        fail=["memory"],
        passes=["public", "hidden", "bounds", "parallel"],
        reason="loads",
        why="values are exact (max, then sum, then write), but every element of x is loaded three times, "
        "over the guide's budget of two loads per element (online pass + write).",
    ),
    # ------------------------------------------------------------------ 13_triton_matmul
    "hoy24_matmul_block_pointers_grouped": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel="""
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n          # programs in one group of GROUP_M tile rows
    group = pid // per_group
    local = pid - group * per_group
    row0 = group * GROUP_M
    rows_here = tl.minimum(tiles_m - row0, GROUP_M)   # the last group may be shorter
    pid_m = row0 + local % rows_here
    pid_n = local // rows_here

    # block pointers: the boundary check does the masking, padding is zero
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
                              offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(c_blk, acc, boundary_check=(0, 1))
""",
        full=True,
    ),
    "hoy24_matmul_column_major_order": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel="""
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    # consecutive programs go down a column of tiles, then to the next column
    pid_m = pid % num_pid_m
    pid_n = pid // num_pid_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
""",
        fail=["l2"],
        passes=["public", "hidden", "bounds", "memory"],
        reason="panels",
        why="values and masks are right, but the launch order goes down a whole column of tiles with no "
        "GROUP_M groups: on the 8x8 grid of the public 256x256 case, 8 consecutive programs need "
        "8 row panels of A + 1 column panel of B = 9, more than the grouped order's 4 + 2 = 6.",
    ),
    # ------------------------------------------------------------------ 06_ring
    "hoy24_ring_squared_z_against_squared_threshold": dict(
        exercise="06_ring",
        part="detect",
        kernel="""
THRESHOLD_SQ = THRESHOLD * THRESHOLD  # compare z*z with this: no abs needed


@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    count = state.count
    mean = state.mean
    m2 = state.m2
    n = count + 1.0
    delta = req.x - mean
    new_mean = mean + delta / n
    # sample variance of the readings before this one; both sides of a select run,
    # so every denominator is kept away from zero
    var = select(count > 1.0, m2 / select(count > 1.0, count - 1.0, 1.0), 0.0)
    std = math.sqrt(var)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    state.count = n
    state.mean = new_mean
    state.m2 = m2 + delta * (req.x - new_mean)
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    rep.flag = select(count >= MIN_COUNT, select(z * z > THRESHOLD_SQ, 1, 0), 0)
""",
        full=True,
    ),
    "hoy24_ring_epsilon_std_flags_after_stuck_sensor": dict(
        exercise="06_ring",
        part="detect",
        kernel="""
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    x = req.x
    c = state.count
    delta = x - state.mean
    n = c + 1.0
    new_mean = state.mean + delta / n
    # std of the earlier readings; + 1e-12 so that the division below can never be by zero
    std = math.sqrt(select(c > 1.0, state.m2 / select(c > 1.0, c - 1.0, 1.0), 0.0)) + 1e-12
    z = select(c > 1.0, delta / std, 0.0)
    rep.flag = select(c >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
    rep.z = z
    rep.count = n
    rep.mean = new_mean
    state.m2 = state.m2 + delta * (x - new_mean)
    state.mean = new_mean
    state.count = n
""",
        fail=["hidden"],
        passes=["public", "ordering", "telemetry"],
        reason="wrong values",
        why="with std > 0 the epsilon changes z by ~1e-12 relative and nothing shows, and a sensor stuck at "
        "one value has delta = 0 so z = 0 too; but the first reading that differs after a stuck run "
        "(e.g. 15 x 20.1 then 23.0) gets z = delta / 1e-12 = 2.9e12 and flag 1, where the spec "
        "(std == 0) says z = 0, flag 0. The domain lists 'a sensor stuck past message 10, where flags "
        "are decided': hidden fails only if that stream changes value after the stuck run (a stream "
        "that stays constant passes; if so, the hidden cases have a gap).",
    ),
}

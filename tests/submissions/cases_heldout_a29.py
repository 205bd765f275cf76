"""Blind set a29: Triton softmax and matmul written differently (exp2, per-lane online, swizzle2d, strides), and ring handlers (guards, thresholds, stuck sensors)."""

CASES = {
    # ------------------------------------------------------------------ 12 softmax
    "hod29_softmax_exp2_log2e_online": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        extra_cells=["import math\nLOG2E = tl.constexpr(1 / math.log(2))\n"],
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    cols = tl.arange(0, BLOCK)
    # work in base 2: exp(x - m) == exp2((x - m) * LOG2E)
    m = -float("inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        xb = tl.load(x_row + start + cols, mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(xb, axis=0))
        s = s * tl.exp2((m - m_new) * LOG2E) + tl.sum(tl.exp2((xb - m_new) * LOG2E), axis=0)
        m = m_new
    inv = 1.0 / s
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        xb = tl.load(x_row + start + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + start + cols, tl.exp2((xb - m) * LOG2E) * inv, mask=mask)
''',
        full=True,
    ),
    "hod29_softmax_per_lane_online_while": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel='''
@triton.jit
def _lane_update(m_vec, s_vec, xb):
    # each lane keeps its own running max and running sum
    m_new = tl.maximum(m_vec, xb)
    # a lane that has only seen padding is still at -inf: (-inf) - (-inf) is nan, keep 0 there
    seen = m_new > -float("inf")
    alpha = tl.where(seen, tl.exp(m_vec - m_new), 0.0)
    beta = tl.where(seen, tl.exp(xb - m_new), 0.0)
    return m_new, s_vec * alpha + beta


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m_vec = tl.full([BLOCK], -float("inf"), tl.float32)
    s_vec = tl.zeros([BLOCK], dtype=tl.float32)
    start = 0
    while start < n_cols:
        idx = start + offs
        xb = tl.load(x_ptr + row * x_stride + idx, mask=idx < n_cols, other=-float("inf"))
        m_vec, s_vec = _lane_update(m_vec, s_vec, xb)
        start += BLOCK
    # merge the lanes: rescale each lane's sum to the row's max
    m = tl.max(m_vec, axis=0)
    s = tl.sum(s_vec * tl.exp(m_vec - m), axis=0)
    start = 0
    while start < n_cols:
        idx = start + offs
        ok = idx < n_cols
        xb = tl.load(x_ptr + row * x_stride + idx, mask=ok, other=0.0)
        tl.store(y_ptr + row * y_stride + idx, tl.exp(xb - m) / s, mask=ok)
        start += BLOCK
''',
        full=True,
    ),
    "hod29_softmax_max_pad_zero": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = -float("inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        # padding lanes read 0; I drop them from the sum with tl.where below
        xb = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=0.0)
        m_new = tl.maximum(m, tl.max(xb, axis=0))
        e = tl.where(mask, tl.exp(xb - m_new), 0.0)
        s = s * tl.exp(m - m_new) + tl.sum(e, axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        xb = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(xb - m) / s, mask=mask)
''',
        fail=["hidden"],
        passes=[],
        reason='wrong values',
        why="padding lanes load 0.0 so the max of a row that is entirely negative and whose length is not a multiple of 128 becomes 0; for a row below -104 every exp(x - 0) underflows to 0, the sum is 0 and the outputs are nan (0/0); rows that are multiples of BLOCK or not that negative come out right (the public 3x300 case fails too if one of its rows is shifted below about -100).",
    ),
    "hod29_softmax_three_pass": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    # pass 1: the row max
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        xb = tl.load(x_row + start + cols, mask=start + cols < n_cols, other=-float("inf"))
        m = tl.maximum(m, xb)
    row_max = tl.max(m, axis=0)
    # pass 2: the sum of exp(x - max)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        xb = tl.load(x_row + start + cols, mask=start + cols < n_cols, other=-float("inf"))
        acc += tl.exp(xb - row_max)
    denom = tl.sum(acc, axis=0)
    # pass 3: normalise
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        xb = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(xb - row_max) / denom, mask=mask)
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "parallel"],
        reason="loads",
        why="a max pass, a sum pass and a normalise pass load every element of x three times; the brief allows two (online max and sum, then the write), values are all right.",
    ),
    # ------------------------------------------------------------------ 13 matmul
    "hod29_matmul_swizzle2d_while": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    # row-major tile index -> grouped (column-major inside groups of GROUP_M rows)
    pid_m, pid_n = tl.swizzle2d(pid // tiles_n, pid % tiles_n, tiles_m, tiles_n, GROUP_M)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k_left = K
    while k_left > 0:
        a = tl.load(a_tile, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
        b = tl.load(b_tile, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk
        k_left -= BLOCK_K
    c_tile = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_tile, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
''',
        full=True,
    ),
    "hod29_matmul_b_assumes_unit_stride": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    rows_here = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % rows_here
    pid_n = (pid % per_group) // rows_here
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0.0)
        # B's columns are next to each other in memory
        b = tl.load(b_ptr + kk[:, None] * stride_bk + offs_n[None, :],
                    mask=(kk[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
''',
        fail=["hidden"],
        passes=["public", "bounds", "memory", "l2"],
        reason='wrong values',
        why="B's column offset ignores stride_bn (assumes 1): right for the contiguous public inputs, wrong values for the hidden case with B stored transposed (stride_bn = K, stride_bk = 1); addresses k + n stay inside B so no out-of-range access.",
    ),
    "hod29_matmul_row_major_launch": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_n = (N + BLOCK_N - 1) // BLOCK_N
    # tiles taken row by row: simple, every program of a row shares A's panel
    pid_m = pid // grid_n
    pid_n = pid - pid_m * grid_n
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
''',
        fail=["l2"],
        passes=["public", "hidden", "bounds", "memory"],
        reason="panels",
        why="row-by-row launch order: 8 consecutive programs need 1 A panel + 8 B panels (9) against 4 + 2 for the grouped order once the grid is at least 8 tiles wide; values and masks are right.",
    ),
    # ------------------------------------------------------------------ 06 ring
    "hod29_ring_safe_denominators_full": dict(
        exercise="06_ring",
        part="detect",
        extra_cells=["EPS_FLOOR = 1.0  # a safe stand-in denominator, never used for a real answer\n"],
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    # read everything from the state before touching it
    c = state.count
    mu = state.mean
    sq = state.m2
    x = req.x
    n = c + 1.0
    delta = x - mu
    new_mean = mu + delta / n          # n >= 1 always
    enough = c > 1.0
    var = sq / select(enough, c - 1.0, EPS_FLOOR)
    std = select(enough, math.sqrt(abs(var)), 0.0)
    has_std = std > 0.0
    z = select(has_std, delta / select(has_std, std, EPS_FLOOR), 0.0)
    flagged = select(c >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
    state.m2 = sq + delta * (x - new_mean)
    state.mean = new_mean
    state.count = n
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    rep.flag = flagged
''',
        full=True,
    ),
    "hod29_ring_min_count_off_by_one": dict(
        exercise="06_ring",
        part="detect",
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    count = state.count
    mean = state.mean
    m2 = state.m2
    n = count + 1.0
    delta = req.x - mean
    new_mean = mean + delta / n
    std = select(count > 1.0, math.sqrt(m2 / select(count > 1.0, count - 1.0, 1.0)), 0.0)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    # flag once MIN_COUNT readings have been seen: with this one that makes n of them
    rep.flag = select(n >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
    state.count = n
    state.mean = new_mean
    state.m2 = m2 + delta * (req.x - new_mean)
    rep.count = n
    rep.mean = new_mean
    rep.z = z
''',
        fail=["hidden"],
        passes=["ordering", "telemetry"],
        reason='wrong values',
        why="tests n = count + 1 >= MIN_COUNT, i.e. count >= 9, instead of count >= 10: a spike on message 9 (0-based, 9 readings before it) is flagged one message too early; the hidden 'spike on message 9' stream shows it, public spikes far from 9 do not.",
    ),
    "hod29_ring_stuck_sensor_div_zero": dict(
        exercise="06_ring",
        part="detect",
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    count = state.count
    mean = state.mean
    m2 = state.m2
    n = count + 1.0
    delta = req.x - mean
    new_mean = mean + delta / n
    warm = count > 1.0
    std = math.sqrt(m2 / select(warm, count - 1.0, 1.0))
    # only divide once there are two readings (both sides of select run, so guard the divisor)
    z = select(warm, delta / select(warm, std, 1.0), 0.0)
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
    state.count = n
    state.mean = new_mean
    state.m2 = m2 + delta * (req.x - new_mean)
    rep.count = n
    rep.mean = new_mean
    rep.z = z
''',
        fail=["hidden", "telemetry"],
        passes=["public", "ordering"],
        reason='error code -2',
        why="the divisor is guarded on count > 1 but not on std > 0: a sensor stuck at one value has m2 = 0, so from the third reading on delta / 0.0 is a division by zero (error -2, state not updated, telemetry errors) in the hidden stuck-sensor streams; noisy public streams never have std == 0.",
    ),
}

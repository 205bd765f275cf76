"""Blind submissions for exercises 06, 12 and 13: ring handlers in every style the notebook allows, and Triton reductions, heuristics, autotune and transposed loads, written from the student notebooks and INSTRUCTOR.md only."""

CASES = {
    'hoh9_ring_locals_then_state_fabs': dict(
        exercise='06_ring',
        part='detect',
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    # keep copies of the "before" statistics: z must use them, not the updated ones
    old_count = state.count
    old_mean = state.mean
    old_m2 = state.m2
    x = req.x

    n = old_count + 1.0
    delta = x - old_mean
    # update m2 first (it needs the new mean, so compute that into a local)
    mean_after = old_mean + delta / n
    state.m2 = old_m2 + delta * (x - mean_after)
    state.mean = mean_after
    state.count = n

    # sample variance of the previous readings; never divide by zero on either side
    denom = select(old_count > 1.0, old_count - 1.0, 1.0)
    var = select(old_count > 1.0, old_m2 / denom, 0.0)
    std = math.sqrt(var)
    safe_std = select(std > 0.0, std, 1.0)
    z = select(std > 0.0, delta / safe_std, 0.0)

    warmed_up = old_count >= MIN_COUNT
    outlier = math.fabs(z) > THRESHOLD
    rep.flag = select(warmed_up & outlier, 1, 0)
    rep.z = z
    rep.mean = mean_after
    rep.count = n
    return 0
''',
        full=True,
    ),
    'hoh9_ring_reply_first_zsquared_pow': dict(
        exercise='06_ring',
        part='detect',
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    """Welford, written with the (n-1)/n form of the m2 update."""
    c = state.count
    mu = state.mean
    n = c + 1.0
    delta = req.x - mu
    # reply first (it only needs the old statistics and n)
    rep.count = n
    rep.mean = mu + delta / n
    # variance of the readings before this one: m2 / (c - 1), 0 until there are two
    has_two = c > 1.0
    var = state.m2 / select(has_two, c - 1.0, 1.0)
    var = select(has_two, var, 0.0)
    sd = math.pow(var, 0.5)
    rep.z = select(sd > 0.0, delta / select(sd > 0.0, sd, 1.0), 0.0)
    rep.flag = select(c >= MIN_COUNT, select(rep.z * rep.z > THRESHOLD_SQ, 1, 0), 0)
    # now the state: delta^2 * c / n is the same as delta * (x - new_mean)
    state.m2 = state.m2 + delta * delta * (c / n)
    state.mean = rep.mean
    state.count = n
''',
        extra_cells=['''THRESHOLD_SQ = THRESHOLD * THRESHOLD  # compare z^2, no abs needed
'''],
        full=True,
    ),
    'hoh9_ring_weighted_mean_stuck_sensor': dict(
        exercise='06_ring',
        part='detect',
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    x = req.x
    count = state.count
    mean = state.mean
    m2 = state.m2
    n = count + 1.0
    delta = x - mean
    # the new mean is a weighted average: count/n of the old mean, 1/n of the reading
    new_mean = mean * (count / n) + x / n
    new_m2 = m2 + delta * (x - new_mean)
    var = select(count > 1.0, m2 / select(count > 1.0, count - 1.0, 1.0), 0.0)
    std = math.sqrt(var)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    rep.flag = select((count >= MIN_COUNT) & (abs(z) > THRESHOLD), 1, 0)
    state.count = n
    state.mean = new_mean
    state.m2 = new_m2
''',
        fail=['hidden'],
        passes=[],
        reason='wrong values',
        why='new_mean = mean*(count/n) + x/n is not exact for a constant stream (e.g. stuck at 20.0 it drifts by one ulp from message 10 on), so delta and m2 become ~1e-15 instead of 0 and z = delta/std is O(1) (-4.6 at message 22, a false flag) where the spec gives z = 0; every other stream matches to 1e-13',
    ),
    'hoh9_ring_std_guard_by_count_not_std': dict(
        exercise='06_ring',
        part='detect',
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    x = req.x
    count = state.count
    mean = state.mean
    m2 = state.m2
    n = count + 1.0
    delta = x - mean
    new_mean = mean + delta / n
    # std is only defined from the second reading on
    ok = count > 1.0
    std = math.sqrt(m2 / select(ok, count - 1.0, 1.0))
    z = select(ok, delta / select(ok, std, 1.0), 0.0)
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    rep.flag = select(ok & (count >= MIN_COUNT) & (abs(z) > THRESHOLD), 1, 0)
    state.count = n
    state.mean = new_mean
    state.m2 = m2 + delta * (x - new_mean)
    return 0
''',
        fail=['hidden', 'telemetry'],
        passes=[],
        reason='a fault',
        why='the divisor is guarded with count > 1 instead of std > 0, so a sensor stuck at one value (m2 = 0, std = 0 from message 2 on) divides by zero: every later message faults with status -2, the state is not committed (count stays 3) and telemetry shows errors; random streams are right',
    ),
    'hoh9_softmax_online_exp2_log2e_constexpr': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    cols = tl.arange(0, BLOCK)

    # pass 1: online max / sum, in base 2 (exp2 is what the hardware has)
    m = tl.full((), float("-inf"), tl.float32)
    s = tl.full((), 0.0, tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        mask = offs < n_cols
        x = tl.load(x_row + offs, mask=mask, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        # masked lanes are -inf -> exp2(-inf) = 0, they add nothing
        p = tl.exp2((x - m_new) * LOG2E)
        s = s * tl.exp2((m - m_new) * LOG2E) + tl.sum(p, axis=0)
        m = m_new

    inv = 1.0 / s
    # pass 2: write
    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        mask = offs < n_cols
        x = tl.load(x_row + offs, mask=mask, other=float("-inf"))
        y = tl.exp2((x - m) * LOG2E) * inv
        tl.store(y_row + offs, tl.where(mask, y, 0.0), mask=mask)
''',
        extra_cells=['''import math
LOG2E = tl.constexpr(1 / math.log(2))  # exp(x) == exp2(x * log2(e))
'''],
        full=True,
    ),
    'hoh9_softmax_tl_reduce_tuple_merge_lanes': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def _merge(m_a, s_a, m_b, s_b):
    # merge two partial softmax states (max, sum of exp(x - max)).
    # if both maxima are -inf (lanes that never saw a column) keep 0, not nan.
    m = tl.maximum(m_a, m_b)
    m_safe = tl.where(m == float("-inf"), 0.0, m)
    s = s_a * tl.exp(m_a - m_safe) + s_b * tl.exp(m_b - m_safe)
    return m, s


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # grid is 1-D: program_id(1) is always 0, so this is just program_id(0)
    row = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    src = x_ptr + row.to(tl.int64) * x_stride

    # every lane keeps its own running max and sum over the columns it sees
    m_lane = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    s_lane = tl.zeros([BLOCK], dtype=tl.float32)
    n_blocks = tl.cdiv(n_cols, BLOCK)
    for b in range(n_blocks):
        offs = b * BLOCK + cols
        x = tl.load(src + offs, mask=offs < n_cols, other=float("-inf"))
        m_lane, s_lane = _merge(m_lane, s_lane, x, tl.where(offs < n_cols, 1.0, 0.0))

    # combine the lanes with the same merge rule
    m_row, s_row = tl.reduce((m_lane, s_lane), 0, _merge)
    inv = 1.0 / s_row

    dst = y_ptr + row.to(tl.int64) * y_stride
    for b in range(n_blocks):
        offs = b * BLOCK + cols
        x = tl.load(src + offs, mask=offs < n_cols, other=float("-inf"))
        tl.store(dst + offs, tl.exp(x - m_row) * inv, mask=offs < n_cols)
''',
        full=True,
    ),
    'hoh9_softmax_2xblock_tiles_keepdims_fma': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # a step covers TWO blocks at once, as a [2, BLOCK] tile
    STEP: tl.constexpr = 2 * BLOCK
    LOG2E = 1.4426950408889634
    row = tl.program_id(0)
    r = tl.arange(0, 2)[:, None]
    c = tl.arange(0, BLOCK)[None, :]
    tile = r * BLOCK + c                      # [2, BLOCK] column offsets within a step
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride

    m = tl.full((1, 1), float("-inf"), tl.float32)
    s = tl.zeros((1, 1), tl.float32)
    for start in range(0, n_cols, STEP):
        offs = start + tile
        x = tl.load(x_row + offs, mask=offs < n_cols, other=float("-inf"))
        bm = tl.max(tl.max(x, axis=1, keep_dims=True), axis=0, keep_dims=True)   # [1, 1]
        m_new = tl.maximum(m, bm)
        mc = m_new * LOG2E
        # exp(x - m) = exp2(x * log2e - m * log2e), one fma per element
        p = tl.exp2(tl.fma(x, LOG2E, -mc))
        part = tl.sum(tl.sum(p, axis=1, keep_dims=True), axis=0, keep_dims=True)
        s = s * tl.exp2((m - m_new) * LOG2E) + part
        m = m_new

    mc = m * LOG2E
    inv = 1.0 / s
    for start in range(0, n_cols, STEP):
        offs = start + tile
        ok = offs < n_cols
        x = tl.load(x_row + offs, mask=ok, other=0.0)
        tl.store(y_row + offs, tl.exp2(tl.fma(x, LOG2E, -mc)) * inv, mask=ok)
''',
        full=True,
    ),
    'hoh9_softmax_other_zero_breaks_max': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride

    m = float("-inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        # padding lanes read 0 and are dropped from the sum below
        x = tl.load(x_row + cols, mask=mask, other=0.0)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        p = tl.where(mask, tl.exp(x - m_new), 0.0)
        s = s * tl.exp(m - m_new) + tl.sum(p, axis=0)
        m = m_new

    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0)
        tl.store(y_row + cols, tl.exp(x - m) / s, mask=mask)
''',
        fail=['public', 'hidden'],
        passes=[],
        reason='nan',
        why='masked lanes load 0.0, so the running max is max(row max, 0): for a row whose values are all below about -88 and whose width is not a multiple of 128 (n=127 at -300, n=130 at -300, n=2 at -900) exp(x - 0) underflows to 0 and y = 0/0 = NaN; rows that are positive or exact multiples of BLOCK are right',
    ),
    'hoh9_softmax_lane_online_nan_narrow_rows': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride

    # one running (max, sum) per lane: no reduction inside the loop at all
    m_lane = tl.full([BLOCK], float("-inf"), tl.float32)
    s_lane = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        x = tl.load(x_row + offs, mask=offs < n_cols, other=float("-inf"))
        m_new = tl.maximum(m_lane, x)
        s_lane = s_lane * tl.exp(m_lane - m_new) + tl.exp(x - m_new)
        m_lane = m_new

    # fold the lanes together once at the end
    m = tl.max(m_lane, axis=0)
    s = tl.sum(s_lane * tl.exp(m_lane - m), axis=0)

    y_row = y_ptr + row * y_stride
    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        x = tl.load(x_row + offs, mask=offs < n_cols, other=float("-inf"))
        tl.store(y_row + offs, tl.exp(x - m) / s, mask=offs < n_cols)
''',
        fail=['public', 'hidden'],
        passes=[],
        reason='nan',
        why='per-lane running max/sum: a lane that never sees a column (every lane >= n when n < 128, e.g. rows of one element or 37 columns) computes exp(-inf - -inf) = NaN, which poisons the final sum, so every row narrower than one block comes out NaN; rows of 128 columns or more are right',
    ),
    'hoh9_softmax_three_pass': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride

    # 1) the row's max
    m = tl.full((), float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        x = tl.load(x_row + offs, mask=offs < n_cols, other=float("-inf"))
        m = tl.maximum(m, tl.max(x, axis=0))

    # 2) the sum of exp(x - max), no rescaling needed since max is final
    s = tl.zeros((), tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        x = tl.load(x_row + offs, mask=offs < n_cols, other=float("-inf"))
        s += tl.sum(tl.exp(x - m), axis=0)

    # 3) normalise
    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        x = tl.load(x_row + offs, mask=offs < n_cols, other=float("-inf"))
        tl.store(y_row + offs, tl.exp(x - m) / s, mask=offs < n_cols)
''',
        fail=['memory'],
        passes=['public', 'hidden', 'bounds', 'parallel'],
        reason='load',
        why='max, sum and normalise each walk the row: every element of x is loaded 3 times, over the budget of 2 (values, masks and one row per program are fine)',
    ),
    'hoh9_matmul_heuristics_evenk_trans_b': dict(
        exercise='13_triton_matmul',
        part='matmul_kernel',
        kernel='''
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  EVEN_K: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_pid_n
    group = pid // per_group
    first_m = group * GROUP_M
    rows_here = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % rows_here
    pid_n = (pid % per_group) // rows_here

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < N
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    # B^T tile: [BLOCK_N, BLOCK_K], read through B's strides, transposed back before the dot
    bt_ptrs = b_ptr + rn[:, None] * stride_bn + rk[None, :] * stride_bk

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        if EVEN_K:
            a = tl.load(a_ptrs, mask=m_ok[:, None], other=0.0)
            bt = tl.load(bt_ptrs, mask=n_ok[:, None], other=0.0)
        else:
            k_ok = rk < K - k0
            a = tl.load(a_ptrs, mask=m_ok[:, None] & k_ok[None, :], other=0.0)
            bt = tl.load(bt_ptrs, mask=n_ok[:, None] & k_ok[None, :], other=0.0)
        acc = tl.dot(a, tl.trans(bt), acc, input_precision="ieee", out_dtype=tl.float32)
        a_ptrs += BLOCK_K * stride_ak
        bt_ptrs += BLOCK_K * stride_bk

    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=m_ok[:, None] & n_ok[None, :])
''',
        full=True,
    ),
    'hoh9_matmul_autotune_while_tuple_min': dict(
        exercise='13_triton_matmul',
        part='matmul_kernel',
        kernel='''
@triton.autotune(
    configs=[triton.Config({}, num_warps=4, num_stages=3)],  # more configs to try on a GPU later
    key=["M", "N", "K"],
)
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = (M + BLOCK_M - 1) // BLOCK_M
    tiles_n = (N + BLOCK_N - 1) // BLOCK_N
    # which group of GROUP_M tile-rows, and where inside it
    group_id, in_group = pid // (GROUP_M * tiles_n), pid % (GROUP_M * tiles_n)
    top = group_id * GROUP_M
    height = min(GROUP_M, tiles_m - top)          # min of tensors == tl.minimum
    pid_m, pid_n = top + in_group % height, in_group // height

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k = 0
    while k < K:
        offs_k = k + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        b = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
        k += BLOCK_K

    c = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
''',
        full=True,
    ),
    'hoh9_matmul_group_size_not_clamped': dict(
        exercise='13_triton_matmul',
        part='matmul_kernel',
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # groups of GROUP_M tile-rows; inside a group go down a column, then the next column
    num_in_group = GROUP_M * num_pid_n
    group_id = pid // num_in_group
    local = pid % num_in_group
    pid_m = group_id * GROUP_M + local % GROUP_M
    pid_n = local // GROUP_M

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
''',
        fail=['hidden'],
        passes=[],
        reason='wrong',
        why='the last group uses GROUP_M rows even when fewer tile-rows remain: when cdiv(M, 32) % 4 != 0 and there are at least two tile columns (M=1 N=64, M=257 N=130, M=96 N=96) some tiles of the last group are never computed (their pids map to rows past M, masked away) and C keeps whatever it held; grids with 4k tile-rows or one tile column are right',
    ),
    'hoh9_matmul_a_kmask_missing_offset': dict(
        exercise='13_triton_matmul',
        part='matmul_kernel',
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    a_rows = offs_m[:, None] < M
    b_cols = offs_n[None, :] < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        # B's rows past K are zeroed, so whatever A has past K is multiplied by 0
        a = tl.load(a_ptrs, mask=a_rows & (offs_k[None, :] < K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & b_cols, other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc, mask=a_rows & b_cols)
''',
        fail=['bounds'],
        passes=[],
        reason='outside',
        why="A's K mask is offs_k < K without the step's offset, so in the last step of a K that is not a multiple of 16 and above 16 (K=17, 47, 70) A is read past column K: for the last row of A (or every row of a transposed A) that is past the end of the tensor; B's mask zeroes those products, so the numbers usually come out right but compute-sanitizer / the grader's bounds check see the out-of-range loads",
    ),
    'hoh9_matmul_group_walks_rows': dict(
        exercise='13_triton_matmul',
        part='matmul_kernel',
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # grouped launch: GROUP_M rows of tiles per group (the last group may be shorter)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    local = pid % num_pid_in_group
    pid_m = first_pid_m + local // num_pid_n
    pid_n = local % num_pid_n

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k + offs_k)[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & ((k + offs_k)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=((k + offs_k)[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
''',
        fail=['l2'],
        passes=['public', 'hidden', 'bounds', 'memory'],
        reason='panel',
        why='inside a group, consecutive programs walk along a row of tiles (pid_n fastest), which is just the row-major order: with 8 or more tile columns 8 consecutive programs need 1 A panel + 8 B panels instead of 4 + 2; values and masks are right',
    ),
    'hoh9_matmul_two_halves_reload_a': dict(
        exercise='13_triton_matmul',
        part='matmul_kernel',
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # C tile computed as two column halves (two 32x16 accumulators: fewer registers per dot)
    HALF: tl.constexpr = BLOCK_N // 2
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_h = tl.arange(0, HALF)
    offs_k = tl.arange(0, BLOCK_K)
    acc0 = tl.zeros((BLOCK_M, HALF), dtype=tl.float32)
    acc1 = tl.zeros((BLOCK_M, HALF), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        kk = k + offs_k
        for h in tl.static_range(2):
            cols = pid_n * BLOCK_N + h * HALF + offs_h
            a = tl.load(a_ptr + offs_m[:, None] * stride_am + kk[None, :] * stride_ak,
                        mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0.0)
            b = tl.load(b_ptr + kk[:, None] * stride_bk + cols[None, :] * stride_bn,
                        mask=(kk[:, None] < K) & (cols[None, :] < N), other=0.0)
            if h == 0:
                acc0 = tl.dot(a, b, acc0, input_precision="ieee")
            else:
                acc1 = tl.dot(a, b, acc1, input_precision="ieee")
    for h in tl.static_range(2):
        cols = pid_n * BLOCK_N + h * HALF + offs_h
        mask = (offs_m[:, None] < M) & (cols[None, :] < N)
        ptrs = c_ptr + offs_m[:, None] * stride_cm + cols[None, :] * stride_cn
        if h == 0:
            tl.store(ptrs, acc0, mask=mask)
        else:
            tl.store(ptrs, acc1, mask=mask)
''',
        fail=['memory'],
        passes=['public', 'hidden', 'bounds', 'l2'],
        reason='load',
        why='C is built as two 32x16 halves and the static_range loop reloads the same A tile for each half, so every element of an A tile is loaded twice per K step (budget: once); B is loaded once, values and grouping are right',
    ),
}

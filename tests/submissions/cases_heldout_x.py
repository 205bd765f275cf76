"""Submissions for exercises 06_ring, 12_triton_softmax and 13_triton_matmul (correct, wrong and
off-brief handlers and kernels), each written from the student notebook and INSTRUCTOR.md alone,
as a student would."""

CASES = {
    "hox_ring_constants_cell_statebackreads": dict(
        exercise="06_ring",
        part="detect",
        extra_cells=[
            '''
WARMUP = float(MIN_COUNT)  # readings the actor must have seen before it flags
Z2_LIMIT = THRESHOLD * THRESHOLD  # compare z^2 with 16 instead of |z| with 4
''',
        ],
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    x = req.x
    seen = state.count
    old_mean = state.mean
    old_m2 = state.m2
    delta = x - old_mean
    # sample variance of the readings before x (zero for fewer than two of them)
    enough = seen > 1.0
    var = select(enough, old_m2 / select(enough, seen - 1.0, 1.0), 0.0)
    std = math.sqrt(var)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    rep.z = z
    rep.flag = select(seen >= WARMUP, select(z * z > Z2_LIMIT, 1, 0), 0)
    # Welford update, reading the new count and mean back from the state
    state.count = seen + 1.0
    state.mean = old_mean + delta / state.count
    state.m2 = old_m2 + delta * (x - state.mean)
    rep.count = state.count
    rep.mean = state.mean
''',
        full=True,
    ),
    "hox_ring_flag_counts_current_reading": dict(
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
    new_m2 = m2 + delta * (req.x - new_mean)
    var = m2 / select(count > 1.0, count - 1.0, 1.0)
    std = select(count > 1.0, math.sqrt(var), 0.0)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    state.count = n
    state.mean = new_mean
    state.m2 = new_m2
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    # flag once MIN_COUNT readings have been seen (n counts this one)
    rep.flag = select(n >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
''',
        fail=['hidden'],
        passes=[],
        reason="wrong values",
        why="the warm-up test uses n = count + 1 (this reading included), so a spike on message 9, seen after only 9 readings, is flagged although the spec flags only from message 10 on; every other stream, including the notebook's, is right",
    ),
    "hox_ring_status_is_flag": dict(
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
    new_m2 = m2 + delta * (req.x - new_mean)
    var = m2 / select(count > 1.0, count - 1.0, 1.0)
    std = select(count > 1.0, math.sqrt(var), 0.0)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
    state.count = n
    state.mean = new_mean
    state.m2 = new_m2
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    rep.flag = flag
    return flag  # report the anomaly to the host as the message's status too
''',
        fail=['hidden', 'telemetry'],
        passes=[],
        reason="handler returned error code 1",
        why="the handler returns the flag as its status, so every flagged reading is an error reply: telemetry counts errors, the state is not committed for that reading, and every later reply's count/mean/z is off (and a later reading can be flagged spuriously)",
    ),
    "hox_ring_divide_inside_select": dict(
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
    new_m2 = m2 + delta * (req.x - new_mean)
    # select keeps the safe branch, so an inf on the other side is thrown away
    std = select(count > 1.0, math.sqrt(m2 / (count - 1.0)), 0.0)
    z = select(std > 0.0, delta / std, 0.0)
    state.count = n
    state.mean = new_mean
    state.m2 = new_m2
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
''',
        fail=['public', 'hidden', 'telemetry'],
        passes=[],
        reason="divided by zero",
        why='m2 / (count - 1) and delta / std are computed on both sides of select; on a real GPU the inf would be thrown away, but pdc turns any division by zero into a FAULT, so the first message faults, the state never leaves count 0 and every message of every stream is an error reply with count 1',
    ),
    "hox_softmax_exp2_while_loops": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel='''
import math

LOG2E = tl.constexpr(1 / math.log(2))  # exp(t) = 2^(t * log2(e)): exp2 is the fast hardware path


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # 64-bit row offsets, in case rows * stride is large
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    cols = tl.arange(0, BLOCK)
    # walk 1: online max m and sum s of exp(x - m), with exp written as exp2
    m = -float("inf")
    s = 0.0
    start = 0
    while start < n_cols:
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp2((m - m_new) * LOG2E) + tl.sum(tl.exp2((x - m_new) * LOG2E), axis=0)
        m = m_new
        start += BLOCK
    inv_s = 1.0 / s
    # walk 2: write exp(x - m) / s
    start = 0
    while start < n_cols:
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_row + start + cols, tl.exp2((x - m) * LOG2E) * inv_s, mask=mask)
        start += BLOCK
''',
        full=True,
    ),
    "hox_softmax_per_lane_online_guarded": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    NEG_INF: tl.constexpr = float("-inf")
    # every lane keeps its own running max and running sum (columns lane, lane + BLOCK, ...);
    # the lanes are merged once at the end instead of reducing in every block
    m_lane = tl.full([BLOCK], NEG_INF, tl.float32)
    s_lane = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=NEG_INF)
        m_new = tl.maximum(m_lane, x)
        # a lane that has seen no column yet has m = -inf: -inf - -inf is NaN, so skip it
        alive = m_new > NEG_INF
        alpha = tl.where(alive, tl.exp(m_lane - m_new), 0.0)
        s_lane = s_lane * alpha + tl.where(mask, tl.exp(x - m_new), 0.0)
        m_lane = m_new
    m = tl.max(m_lane, axis=0)
    s = tl.sum(tl.where(m_lane > NEG_INF, s_lane * tl.exp(m_lane - m), 0.0), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=NEG_INF)
        tl.store(y_row + start + offs, tl.exp(x - m) / s, mask=mask)
''',
        full=True,
    ),
    "hox_softmax_per_lane_nan_narrow_rows": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    # every lane keeps its own running max and running sum (columns lane, lane + BLOCK, ...);
    # the lanes are merged once at the end instead of reducing in every block
    m_lane = tl.full([BLOCK], float("-inf"), tl.float32)
    s_lane = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        m_new = tl.maximum(m_lane, x)
        # masked lanes load -inf, and exp(-inf - m) = 0 adds nothing to the sum
        s_lane = s_lane * tl.exp(m_lane - m_new) + tl.exp(x - m_new)
        m_lane = m_new
    m = tl.max(m_lane, axis=0)
    s = tl.sum(s_lane * tl.exp(m_lane - m), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        tl.store(y_row + start + offs, tl.exp(x - m) / s, mask=mask)
''',
        fail=['hidden'],
        passes=[],
        reason="wrong values",
        why='lanes that never see a valid column keep m = -inf and compute exp(-inf - -inf) = exp(NaN), so the per-lane sum and then the whole row become NaN whenever n_cols < BLOCK (rows of 1 element, 1 < n < 128); rows of 128 columns or more are exact',
    ),
    "hox_softmax_masks_to_row_stride": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    offs = tl.arange(0, BLOCK)
    m = float("-inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        # a row is x_stride elements long in memory: mask to the end of the row
        x = tl.load(x_row + cols, mask=cols < x_stride, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_row + cols, mask=cols < x_stride, other=float("-inf"))
        tl.store(y_row + cols, tl.exp(x - m) / s, mask=cols < y_stride)
''',
        fail=['hidden'],
        passes=[],
        reason="wrong values",
        why="masks use x_stride / y_stride instead of n_cols: with a stride wider than the row the last block reads the padding after n_cols into the max and the sum (wrong or NaN softmax) and writes exp(...)/s into y's padding, which belongs to nobody; with stride == n_cols it is exact",
    ),
    # Rows taken in reverse order: each program still stores one row, and every row has its
    # program; which program takes which row is the kernel's choice.
    "hox_softmax_rows_reversed": dict(
        exercise="12_triton_softmax",
        part="softmax_kernel",
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # programs start in id order, so hand the last row to the first program: the rows
    # are all the same size, any bijection between programs and rows is fine
    row = tl.num_programs(0) - 1 - tl.program_id(0)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    offs = tl.arange(0, BLOCK)
    m = float("-inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        tl.store(y_row + start + offs, tl.exp(x - m) / s, mask=mask)
''',
        full=True,
    ),
    "hox_matmul_while_k_local_index_group": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    # grouped order: a group is GROUP_M rows of tiles; inside it, walk down a column first
    group = pid // (GROUP_M * tiles_n)
    first_m = group * GROUP_M
    rows_here = tl.minimum(tiles_m - first_m, GROUP_M)  # the last group may be shorter
    local = pid - first_m * tiles_n  # index of this program inside its group
    pid_m = first_m + local % rows_here
    pid_n = local // rows_here

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k0 = 0
    while k0 < K:
        k_ok = k0 + rk < K  # the last step may be a partial one
        a = tl.load(a_tile, mask=(rm[:, None] < M) & k_ok[None, :], other=0.0)
        b = tl.load(b_tile, mask=k_ok[:, None] & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk
        k0 += BLOCK_K
    c_tile = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_tile, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
''',
        full=True,
    ),
    "hox_matmul_tutorial_modulo_wrap": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # as in the Triton tutorial: grouped order, and rows/columns wrapped with % so that
    # the loads of A and B never need a mask on M or N (the wrapped rows are never stored)
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, accumulator, mask=c_mask)
''',
        full=True,
    ),
    "hox_matmul_group_size_not_clamped": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # groups of GROUP_M rows of tiles, consecutive programs go down a column of the group
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    pid_in_group = pid % num_pid_in_group
    pid_m = group_id * GROUP_M + pid_in_group % GROUP_M
    pid_n = pid_in_group // GROUP_M

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
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
''',
        fail=['hidden'],
        passes=[],
        reason="wrong values",
        why='the last group is assumed to have GROUP_M rows of tiles: when cdiv(M, 32) is not a multiple of 4 and there is more than one column of tiles, some programs land on tile rows past M (all masked) and tiles of C are never written, e.g. M = 1, 31, 65, 160 with N > 32; M = 100 (4 tile rows) is exact',
    ),
    "hox_matmul_assumes_unit_stride_ak": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    # rows of A are contiguous: walk along a row with the plain column index
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k0), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k0) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
''',
        fail=['hidden'],
        passes=[],
        reason="wrong values",
        why="A's column index is added without stride_ak (and the K step adds BLOCK_K, not BLOCK_K * stride_ak): exact for a contiguous A, wrong values when A is stored transposed (stride_ak = M); addresses stay inside A so no mask finding",
    ),
    "hox_matmul_row_major_order": dict(
        exercise="13_triton_matmul",
        part="matmul_kernel",
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # tiles of C in reading order: along a row of tiles, then the next row
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
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
''',
        fail=['l2'],
        passes=['public', 'hidden', 'bounds', 'memory'],
        reason="row panels",
        why='tiles are taken row by row (pid_m = pid // tiles_n): values, masks and per-step loads are right, but 8 consecutive programs need 1 row panel of A and up to 8 column panels of B (9 with 8 tiles across) on grids more than 4 tiles wide (N > 128), where grouped order needs 4 + 2 = 6',
    ),
}

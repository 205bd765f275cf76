"""Submissions for exercises 06_ring, 12_triton_softmax and 13_triton_matmul (correct, wrong and
off-brief handlers and kernels, many using Triton features: block pointers, tl.reduce with a
tuple combine, keep_dims, heuristics, cache hints), each written from the student notebook and
INSTRUCTOR.md alone, as a student would."""

CASES = {
    'hoc4_sm_block_ptr_advance_boundary_check': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # int64 so row * stride never wraps
    # block pointers over this row: shape (n_cols,), the hardware/compiler does the bounds check
    xb = tl.make_block_ptr(base=x_ptr + row * x_stride, shape=(n_cols,), strides=(1,),
                           offsets=(0,), block_shape=(BLOCK,), order=(0,))
    m = tl.full((), float("-inf"), tl.float32)
    s = tl.full((), 0.0, tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(xb, boundary_check=(0,), padding_option="zero")
        x = tl.where(cols < n_cols, x, float("-inf"))  # padded lanes must not win the max
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
        xb = tl.advance(xb, (BLOCK,))
    # second walk: write exp(x - m) / s
    xb = tl.make_block_ptr(base=x_ptr + row * x_stride, shape=(n_cols,), strides=(1,),
                           offsets=(0,), block_shape=(BLOCK,), order=(0,))
    yb = tl.make_block_ptr(base=y_ptr + row * y_stride, shape=(n_cols,), strides=(1,),
                           offsets=(0,), block_shape=(BLOCK,), order=(0,))
    inv = 1.0 / s
    for start in range(0, n_cols, BLOCK):
        x = tl.load(xb, boundary_check=(0,), padding_option="zero")
        tl.store(yb, tl.exp(x - m) * inv, boundary_check=(0,))
        xb = tl.advance(xb, (BLOCK,))
        yb = tl.advance(yb, (BLOCK,))
''',
        full=True,
    ),
    'hoc4_sm_lane_state_tl_reduce_tuple_combine_exp2': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        extra_cells=[
            '''import math

LOG2E = tl.constexpr(1.0 / math.log(2.0))  # exp(x) = exp2(x * log2(e))
''',
        ],
        kernel='''
@triton.jit
def _combine(m1, s1, m2, s2):
    # merge two partial softmax states (max, sum of exp(x - max))
    m = tl.maximum(m1, m2)
    a1 = tl.where(m1 == m, 1.0, tl.exp2((m1 - m) * LOG2E))
    a2 = tl.where(m2 == m, 1.0, tl.exp2((m2 - m) * LOG2E))
    return m, s1 * a1 + s2 * a2


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    offs = tl.arange(0, BLOCK)
    # every lane keeps its own running (max, sum) over the columns it sees
    m_lane = tl.full([BLOCK], float("-inf"), tl.float32)
    s_lane = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        m_new = tl.maximum(m_lane, x)
        p = tl.where(mask, tl.exp2((x - m_new) * LOG2E), 0.0)
        s_lane, m_lane = _combine(m_lane, s_lane, m_new, 0.0)[1] + p, m_new
    # one tree reduction of the lanes' pairs
    m, s = tl.reduce((m_lane, s_lane), 0, _combine)
    r = 1.0 / s
    for start in range(0, n_cols, BLOCK):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=0.0)
        tl.store(y_row + start + offs, tl.exp2((x - m) * LOG2E) * r, mask=mask)
''',
        full=True,
    ),
    'hoc4_sm_keepdims_2d_while_fma_cache_hints': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # work on a (1, BLOCK) tile so the reductions keep their axis (keep_dims)
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)[None, :]
    x_row = x_ptr + row.to(tl.int64) * x_stride
    y_row = y_ptr + row.to(tl.int64) * y_stride
    m = tl.full([1, 1], float("-inf"), tl.float32)
    s = tl.zeros([1, 1], dtype=tl.float32)
    start = 0
    while start < n_cols:
        c = start + cols
        x = tl.load(x_row + c, mask=c < n_cols, other=-float("inf"),
                    eviction_policy="evict_last").to(tl.float32)  # keep it in L2 for pass 2
        m_new = tl.maximum(m, tl.max(x, axis=1, keep_dims=True))
        # rescale the old sum to the new max, then add this block
        s = tl.fma(s, tl.exp(m - m_new), tl.sum(tl.exp(x - m_new), axis=1, keep_dims=True))
        m = m_new
        start += BLOCK
    inv = 1.0 / s
    start = 0
    while start < n_cols:
        c = start + cols
        x = tl.load(x_row + c, mask=c < n_cols, other=0.0, cache_modifier=".cg")
        tl.store(y_row + c, tl.exp(x - m) * inv, mask=c < n_cols)
        start += BLOCK
''',
        full=True,
    ),
    'hoc4_mm_block_ptr_advance_dot_acc_ieee': dict(
        exercise='13_triton_matmul',
        part='matmul_kernel',
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # grouped order: GROUP_M rows of tiles, walked column by column
    per_group = GROUP_M * num_pid_n
    group = pid // per_group
    first_m = group * GROUP_M
    rows_here = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % rows_here
    pid_n = (pid % per_group) // rows_here
    # block pointers: the K edge and the M/N edges are handled by boundary_check
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
''',
        full=True,
    ),
    'hoc4_mm_heuristics_even_k_tuple_helper_int64_hints': dict(
        exercise='13_triton_matmul',
        part='matmul_kernel',
        kernel='''
@triton.jit
def _tile_of(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    # grouped launch order: returns (pid_m, pid_n)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * grid_n
    group_id = pid // width
    first = group_id * GROUP_M
    size = min(grid_m - first, GROUP_M)
    local = pid - group_id * width
    return first + local % size, local // size


@triton.heuristics(values={"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  EVEN_K: tl.constexpr):
    pid_m, pid_n = _tile_of(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rm = tl.max_contiguous(tl.multiple_of(pid_m * BLOCK_M + tl.arange(0, BLOCK_M), BLOCK_M), BLOCK_M)
    rn = tl.max_contiguous(tl.multiple_of(pid_n * BLOCK_N + tl.arange(0, BLOCK_N), BLOCK_N), BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    # 64-bit offsets
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * stride_am + rk[None, :].to(tl.int64) * stride_ak
    b_ptrs = b_ptr + rk[:, None].to(tl.int64) * stride_bk + rn[None, :].to(tl.int64) * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        if EVEN_K:
            a = tl.load(a_ptrs, mask=rm[:, None] < M, other=0.0)
            b = tl.load(b_ptrs, mask=rn[None, :] < N, other=0.0)
        else:
            a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (k0 + rk[None, :] < K), other=0.0)
            b = tl.load(b_ptrs, mask=(k0 + rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, allow_tf32=False)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + rm[:, None].to(tl.int64) * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
''',
        full=True,
    ),
    'hoc4_ring_nested_select_state_written_first': dict(
        exercise='06_ring',
        part='detect',
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    x = req.x
    c0 = state.count
    mu0 = state.mean
    q0 = state.m2
    # sample std of the readings before this one; the divisor is never 0 on either side
    var = select(c0 > 1.0, q0 / select(c0 > 1.0, c0 - 1.0, 1.0), 0.0)
    sd = math.sqrt(var)
    d = x - mu0
    z = select(sd > 0.0, d / select(sd > 0.0, sd, 1.0), 0.0)
    # Welford update: count, then mean, then m2 (m2 uses the new mean)
    state.count = c0 + 1.0
    state.mean = mu0 + d / state.count
    state.m2 = q0 + d * (x - state.mean)
    rep.flag = select(c0 >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
    rep.z = z
    rep.mean = state.mean
    rep.count = state.count
''',
        full=True,
    ),
    'hoc4_sm_other_zero_max_ragged_negative_rows': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    m = tl.full((), float("-inf"), tl.float32)
    s = tl.zeros((), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + offs < n_cols
        # masked lanes read as 0 (I mask them out of the sum below)
        x = tl.load(x_row + start + offs, mask=mask, other=0.0)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        e = tl.where(mask, tl.exp(x - m_new), 0.0)
        s = s * tl.exp(m - m_new) + tl.sum(e, axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=0.0)
        tl.store(y_row + start + offs, tl.exp(x - m) / s, mask=mask)
''',
        fail=['hidden'],
        passes=[],
        reason="wrong values",
        why='masked lanes load 0.0 and enter tl.max, so on a ragged row (n not a multiple of 128) whose values are all below about -88 the max becomes 0, every exp(x - 0) underflows to 0 and y = 0/0 = NaN; full-width rows and rows with any value above -88 come out right',
    ),
    'hoc4_sm_x_row_offset_uses_n_cols_not_stride': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    # row pointers
    x_row = x_ptr + pid * n_cols
    y_row = y_ptr + pid * y_stride
    m = tl.full((), float("-inf"), tl.float32)
    s = tl.zeros((), dtype=tl.float32)
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
        fail=['hidden'],
        passes=[],
        reason="wrong values",
        why="x's row start is row * n_cols instead of row * x_stride: exact for contiguous x, but when rows are stored with a stride wider than the row, every row after the first reads the wrong elements, some of them the padding after a row, which belongs to nobody",
    ),
    'hoc4_sm_store_loop_stops_at_last_index': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    m = tl.full((), float("-inf"), tl.float32)
    s = tl.zeros((), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    last = n_cols - 1  # index of the last column
    for start in range(0, last, BLOCK):
        mask = start + offs <= last
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        tl.store(y_row + start + offs, tl.exp(x - m) / s, mask=mask)
''',
        fail=['hidden'],
        passes=['bounds', 'parallel', 'memory'],
        reason="wrong values",
        why='the writing loop runs range(0, n_cols - 1, BLOCK), so when n_cols = k*128 + 1 (and n_cols = 1) the last block, holding only the last column, is never stored and y keeps whatever it held; every other width is right',
    ),
    'hoc4_mm_k_mask_hoisted_out_of_loop': dict(
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
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    # masks don't change along K, so build them once outside the loop
    a_mask = (offs_m[:, None] < M) & (offs_k[None, :] < K)
    b_mask = (offs_k[:, None] < K) & (offs_n[None, :] < N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=a_mask, other=0.0)
        b = tl.load(b_ptrs, mask=b_mask, other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
''',
        fail=['hidden', 'bounds'],
        passes=[],
        reason="outside every tensor",
        why="the K masks are built once from offs_k < K and never move with the pointers, so for K > 16 and not a multiple of 16 the last K step reads A columns / B rows past K (next row's data, and past the end of A or B for the last row / a transposed operand); K <= 16 or K a multiple of 16 is right",
    ),
    'hoc4_mm_group_size_not_clamped_last_group': dict(
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
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    # within a group: go down GROUP_M tiles, then to the next column
    pid_m = first_pid_m + (pid % num_pid_in_group) % GROUP_M
    pid_n = (pid % num_pid_in_group) // GROUP_M

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        b = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
''',
        fail=['hidden'],
        passes=[],
        reason='wrong values',
        why='pid_m/pid_n use GROUP_M instead of min(num_pid_m - first_pid_m, GROUP_M): when cdiv(M, 32) is not a multiple of 4 and there are >= 2 tile columns, programs of the last group land on tile rows past M (masked, nothing stored) and some tiles of C are never written; M = 100 (4 tile rows), as in the notebook, is right',
    ),
    'hoc4_ring_flag_one_message_late': dict(
        exercise='06_ring',
        part='detect',
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    count = state.count
    mean = state.mean
    m2 = state.m2
    n = count + 1.0
    delta = req.x - mean
    new_mean = mean + delta / n
    # std of the readings seen so far (0 until we have two of them)
    has_two = count > 1.0
    std = select(has_two, math.sqrt(m2 / select(has_two, count - 1.0, 1.0)), 0.0)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    # only trust the z-score once MIN_COUNT readings are in
    warmed_up = count > MIN_COUNT
    flag = select(warmed_up, select(abs(z) > THRESHOLD, 1, 0), 0)
    state.count = n
    state.mean = new_mean
    state.m2 = m2 + delta * (req.x - new_mean)
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    rep.flag = flag
''',
        fail=['hidden'],
        passes=['ordering', 'telemetry'],
        reason="wrong values",
        why='warmed_up is count > MIN_COUNT instead of >= MIN_COUNT, so a spike on message 10 (10 readings before it, the first one the spec flags) is not flagged; spikes after message 10 are flagged correctly',
    ),
    'hoc4_ring_z_divides_by_zero_std_constant_stream': dict(
        exercise='06_ring',
        part='detect',
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    x = req.x
    count = state.count
    mean = state.mean
    m2 = state.m2
    delta = x - mean
    # z is only defined once two readings are in: use a dummy std of 1 before that
    ready = count > 1.0
    std = select(ready, math.sqrt(m2 / select(ready, count - 1.0, 1.0)), 1.0)
    z = select(ready, delta / std, 0.0)
    n = count + 1.0
    new_mean = mean + delta / n
    state.m2 = m2 + delta * (x - new_mean)
    state.mean = new_mean
    state.count = n
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
''',
        fail=['hidden'],
        passes=['ordering'],
        reason="error code -2",
        why='z = select(count > 1, delta / std, 0) guards on the count, not on std: once two readings are in, a stream whose readings so far are all equal has m2 = 0, std = 0 and delta / 0 faults (error -2, state frozen, every later message faults too); the spec says z = 0 there. Only a constant or repeated-start stream shows it',
    ),
    'hoc4_sm_three_pass_max_sum_write': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    # pass 1: the row's max
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_row + start + offs, mask=start + offs < n_cols, other=float("-inf"))
        m = tl.maximum(m, x)
    mx = tl.max(m, axis=0)
    # pass 2: the sum of exp(x - max)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_row + start + offs, mask=start + offs < n_cols, other=float("-inf"))
        acc += tl.exp(x - mx)
    s = tl.sum(acc, axis=0)
    # pass 3: normalise
    for start in range(0, n_cols, BLOCK):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=0.0)
        tl.store(y_row + start + offs, tl.exp(x - mx) / s, mask=mask)
''',
        fail=['memory'],
        passes=['public', 'hidden', 'bounds', 'parallel'],
        reason='loads',
        why='correct values, but a max pass, a sum pass and a write pass load every element of x three times (brief: at most 2)',
    ),
    'hoc4_mm_row_major_tile_order': dict(
        exercise='13_triton_matmul',
        part='matmul_kernel',
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_n = tl.cdiv(N, BLOCK_N)
    # tiles in row-major order: simple and every tile is covered exactly once
    pid_m = pid // grid_n
    pid_n = pid % grid_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
''',
        fail=['l2'],
        passes=['public', 'hidden', 'bounds', 'memory'],
        reason='panels',
        why='tiles taken row by row (pid // grid_n, pid % grid_n): on an 8 x 8 tile grid 8 consecutive programs need 1 A panel + 8 B panels = 9 against 4 + 2 = 6 for the grouped order',
    ),
    'hoc4_mm_two_half_width_dots_reload_a': dict(
        exercise='13_triton_matmul',
        part='matmul_kernel',
        kernel='''
HALF_N = tl.constexpr(16)  # BLOCK_N // 2: two narrower dots use fewer registers


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * num_pid_n
    first_m = (pid // in_group) * GROUP_M
    gsize = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % gsize
    pid_n = (pid % in_group) // gsize
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    # the tile's columns as two halves of HALF_N
    for h in tl.static_range(BLOCK_N // HALF_N):
        rn = pid_n * BLOCK_N + h * HALF_N + tl.arange(0, HALF_N)
        acc = tl.zeros((BLOCK_M, HALF_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            rk = k0 + tl.arange(0, BLOCK_K)
            a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak,
                        mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
            b = tl.load(b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn,
                        mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc, input_precision="ieee")
        tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))
''',
        fail=['memory'],
        passes=['public', 'hidden', 'bounds', 'l2'],
        reason='tile of A',
        why="the tile is computed as two 32 x 16 halves in a tl.static_range loop, each with its own K loop, so every A tile is loaded twice per program and K step (B's halves are disjoint)",
    ),
}

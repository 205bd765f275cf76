"""Held-out set a18: Triton written as real Triton code is (autotune, block pointers, swizzle2d, hints) and ring handlers, written blind from the student notebooks and INSTRUCTOR.md."""

CASES = {
    'hos18_softmax_autotune_warps_int64_rows': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.autotune(
    configs=[
        triton.Config({}, num_warps=2, num_stages=1),
        triton.Config({}, num_warps=4, num_stages=2),
        triton.Config({}, num_warps=8, num_stages=2),
    ],
    key=["n_cols"],
)
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # one program per row; 64-bit row offset so huge tensors don't overflow
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    cols = tl.arange(0, BLOCK)
    # online pass: running max m and running sum s of exp(x - m)
    m = tl.full((), -float("inf"), tl.float32)
    s = tl.zeros((), tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        mask = offs < n_cols
        x = tl.load(x_row + offs, mask=mask, other=-float("inf"), eviction_policy="evict_last")
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    inv = 1.0 / s
    # second walk: write exp(x - m) / s
    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        mask = offs < n_cols
        x = tl.load(x_row + offs, mask=mask, other=-float("inf"), eviction_policy="evict_first")
        tl.store(y_row + offs, tl.exp(x - m) * inv, mask=mask)
''',
        full=True,
    ),
    'hos18_softmax_block_ptr_exp2_log2e': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        extra_cells=['import math\n\nLOG2E = tl.constexpr(1 / math.log(2))  # exp(t) = 2 ** (t * LOG2E)\n'],
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    n_blocks = tl.cdiv(n_cols, BLOCK)
    # a 1-D block pointer over this row only: shape (n_cols,) so boundary_check masks the tail
    xb = tl.make_block_ptr(base=x_ptr + row * x_stride, shape=(n_cols,), strides=(1,),
                           offsets=(0,), block_shape=(BLOCK,), order=(0,))
    m = -float("inf")
    s = 0.0
    for i in range(0, n_blocks):
        x = tl.load(xb, boundary_check=(0,), padding_option="zero")
        valid = (i * BLOCK + tl.arange(0, BLOCK)) < n_cols
        x = tl.where(valid, x, -float("inf"))          # zero padding would spoil the max
        m_new = tl.maximum(m, tl.max(x, 0))
        # exp via exp2: exp(t) = 2^(t * log2 e)
        s = s * tl.exp2((m - m_new) * LOG2E) + tl.sum(tl.exp2((x - m_new) * LOG2E), 0)
        m = m_new
        xb = tl.advance(xb, (BLOCK,))
    xb = tl.make_block_ptr(base=x_ptr + row * x_stride, shape=(n_cols,), strides=(1,),
                           offsets=(0,), block_shape=(BLOCK,), order=(0,))
    yb = tl.make_block_ptr(base=y_ptr + row * y_stride, shape=(n_cols,), strides=(1,),
                           offsets=(0,), block_shape=(BLOCK,), order=(0,))
    for j in range(0, n_blocks):
        x = tl.load(xb, boundary_check=(0,), padding_option="zero")
        y = tl.exp2((x - m) * LOG2E) / s
        tl.store(yb, y, boundary_check=(0,))
        xb = tl.advance(xb, (BLOCK,))
        yb = tl.advance(yb, (BLOCK,))
''',
        full=True,
    ),
    'hos18_softmax_other_zero_in_running_max': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    cols = tl.arange(0, BLOCK)
    m = float("-inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=0.0)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        # masked lanes must not add to the sum
        e = tl.where(mask, tl.exp(x - m_new), 0.0)
        s = s * tl.exp(m - m_new) + tl.sum(e, axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=0.0)
        tl.store(y_row + start + cols, tl.exp(x - m) / s, mask=mask)
''',
        fail=['hidden'],
        passes=[],
        reason='wrong values',
        why="masked tail lanes load 0.0 and enter the running max, so a ragged row (n % 128 != 0, e.g. n=1, 7, 255) whose values are all below about -88 gets m = 0, every exp(x - 0) underflows, s = 0 and the row comes out 0/0 = NaN (the hidden 'every value below -104' row; any public row shifted that far negative too)",
    ),
    'hos18_softmax_two_rows_per_even_program': dict(
        exercise='12_triton_softmax',
        part='softmax_kernel',
        kernel='''
@triton.jit
def _softmax_row(x_row, y_row, n_cols, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    m = float("-inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=float("-inf"))
        tl.store(y_row + start + cols, tl.exp(x - m) / s, mask=mask)


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # half the programs do two rows each: fewer programs in flight, each with more work
    pid = tl.program_id(0)
    n_rows = tl.num_programs(0)
    if pid % 2 == 0:
        _softmax_row(x_ptr + pid * x_stride, y_ptr + pid * y_stride, n_cols, BLOCK)
        if pid + 1 < n_rows:
            _softmax_row(x_ptr + (pid + 1) * x_stride, y_ptr + (pid + 1) * y_stride, n_cols, BLOCK)
''',
        fail=['parallel'],
        passes=['public', 'hidden', 'bounds', 'memory'],
        reason='one row',
        why="outputs are exact, but even programs store rows pid and pid+1 and odd programs store nothing, breaking 'program r stores row r and nothing else'",
    ),
    'hos18_matmul_block_ptr_grouped_ieee': dict(
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
    rows_here = tl.minimum(num_pid_m - first_m, GROUP_M)   # last group can be short
    pid_m = first_m + (pid % per_group) % rows_here
    pid_n = (pid % per_group) // rows_here

    a_blk = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                              offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_blk = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                              offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        # zero padding on both axes: the K remainder adds 0 * 0
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                              offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(c_blk, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))
''',
        full=True,
    ),
    'hos18_matmul_swizzle2d_hints_while_k': dict(
        exercise='13_triton_matmul',
        part='matmul_kernel',
        kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    # row-major tile index, then let Triton regroup it (column-major inside groups of GROUP_M rows)
    pid_m, pid_n = tl.swizzle2d(pid // grid_n, pid % grid_n, grid_m, grid_n, GROUP_M)

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rm = tl.max_contiguous(tl.multiple_of(rm, BLOCK_M), BLOCK_M)
    rn = tl.max_contiguous(tl.multiple_of(rn, BLOCK_N), BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    # 64-bit offsets
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * stride_am + rk[None, :].to(tl.int64) * stride_ak
    b_ptrs = b_ptr + rk[:, None].to(tl.int64) * stride_bk + rn[None, :].to(tl.int64) * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k_left = K
    while k_left > 0:
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, allow_tf32=False)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
        k_left -= BLOCK_K
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
''',
        full=True,
    ),
    'hos18_matmul_block_ptr_boundary_check_missing_k': dict(
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
    rows_here = tl.minimum(num_pid_m - first_m, GROUP_M)   # last group can be short
    pid_m = first_m + (pid % per_group) % rows_here
    pid_n = (pid % per_group) // rows_here

    a_blk = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                              offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_blk = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                              offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        # rows past M must be zero; B's padded rows already zero the K remainder
        a = tl.load(a_blk, boundary_check=(0,), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                              offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(c_blk, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))
''',
        fail=['public', 'hidden', 'bounds'],
        passes=[],
        reason='outside',
        why="A's block pointer checks only axis 0, so on the last K step (K % 16 != 0, public K=33) lanes k >= K read past the row; for the last row(s) of A that is past the end of the tensor (a memcheck OOB read; the zero rows of B hide it in the values unless the bytes there are NaN/inf)",
    ),
    'hos18_matmul_assumes_unit_stride_ak': dict(
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
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    # rows of A are contiguous, so walking K is just +1 per element
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
''',
        fail=['hidden'],
        passes=['public', 'bounds'],
        reason='wrong values',
        why="a_ptrs ignore stride_ak and advance by BLOCK_K elements, right only for a row-major A; the hidden 'A stored transposed' case (stride_am=1, stride_ak=M) reads the element at flat offset m + k, a wrong element that is still inside the tensor",
    ),
    'hos18_matmul_two_half_tiles_reload_a': dict(
        exercise='13_triton_matmul',
        part='matmul_kernel',
        kernel='''
@triton.jit
def _half_tile(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
               offs_m, offs_n, BLOCK_K: tl.constexpr, HALF: tl.constexpr):
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((offs_m.shape[0], HALF), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


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
    # the C tile in two halves of BLOCK_N // 2 columns: half the accumulator registers live at once
    HALF: tl.constexpr = BLOCK_N // 2
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, HALF)
    _half_tile(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
               offs_m, offs_n, BLOCK_K, HALF)
    _half_tile(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
               offs_m, offs_n + HALF, BLOCK_K, HALF)
''',
        fail=['memory'],
        passes=['public', 'hidden', 'bounds', 'l2'],
        reason='tile of A',
        why='values and launch order are right, but the C tile is done as two 32x16 halves, each with its own K loop, so every A tile is loaded twice per program and K step',
    ),
    'hos18_ring_welford_alt_m2_nested_select': dict(
        exercise='06_ring',
        part='detect',
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    # everything from the old state first
    c = state.count
    mu = state.mean
    s2 = state.m2
    n = c + 1.0
    d = req.x - mu
    # Welford, written as m2 += d^2 (n-1)/n, same thing as d * (x - new_mean)
    state.count = n
    state.mean = mu + d / n
    state.m2 = s2 + d * d * (c / n)
    # sample variance of the readings before x; the divisor is never 0
    var = select(c > 1.0, s2 / select(c > 1.0, c - 1.0, 1.0), 0.0)
    std = math.sqrt(var)
    z = select(std > 0.0, d / select(std > 0.0, std, 1.0), 0.0)
    rep.count = n
    rep.mean = mu + d / n
    rep.z = z
    rep.flag = select((c >= MIN_COUNT) & (math.fabs(z) > THRESHOLD), 1, 0)
''',
        full=True,
    ),
    'hos18_ring_stuck_sensor_zero_std_division': dict(
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
    # with two readings or more there is a spread, so std is only 0 before that
    std = math.sqrt(m2 / select(count > 1.0, count - 1.0, 1.0))
    z = select(count > 1.0, delta / select(count > 1.0, std, 1.0), 0.0)
    state.count = n
    state.mean = new_mean
    state.m2 = m2 + delta * (req.x - new_mean)
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
''',
        fail=['hidden', 'telemetry'],
        passes=['public', 'ordering'],
        reason='a fault',
        why='z divides by std whenever count > 1, assuming two readings always spread; a stuck sensor (hidden boundary) has m2 = 0, so every message from the third on divides 0/0, faults with error -2, keeps the old state and counts as a telemetry error',
    ),
    'hos18_ring_flag_uses_n_not_count': dict(
        exercise='06_ring',
        part='detect',
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    n = state.count + 1.0
    delta = req.x - state.mean
    new_mean = state.mean + delta / n
    std = math.sqrt(state.m2 / select(state.count > 1.0, state.count - 1.0, 1.0))
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    # n readings seen once this one is counted
    rep.flag = select((n >= MIN_COUNT) & (abs(z) > THRESHOLD), 1, 0)
    rep.z = z
    rep.count = n
    rep.mean = new_mean
    state.m2 = state.m2 + delta * (req.x - new_mean)
    state.mean = new_mean
    state.count = n
''',
        fail=['hidden'],
        passes=['public', 'ordering', 'telemetry'],
        reason='wrong values',
        why="flags when n = count + 1 >= MIN_COUNT, i.e. once 9 readings were seen, so the hidden 'spike on message 9, one too early to flag' stream gets a flag the spec does not give; every other value and the state are right",
    ),
}

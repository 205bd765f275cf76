# Submissions for exercises 12 (Triton softmax) and 13 (Triton matmul), each written from the
# student notebook and INSTRUCTOR.md alone, as a student would.
# Each value: the text of the cell that replaces the stub cell.

SM = "12_triton_softmax"
MM = "13_triton_matmul"

CASES = {}

# ---------------------------------------------------------------- softmax: correct
CASES["hot_sm_exp2_keepdims_where"] = dict(exercise=SM, part="softmax_kernel", full=True, kernel='''
LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # 2-D [1, BLOCK] blocks, reductions with keep_dims, exp2 of (x - m) * log2(e),
    # masked lanes set to -inf with tl.where after an other=0.0 load.
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)[None, :]
    x_row = x_ptr + row * x_stride
    m = tl.full([1, 1], float("-inf"), tl.float32)
    s = tl.zeros([1, 1], tl.float32)
    for start in range(0, n_cols, BLOCK):
        c = start + offs
        inb = c < n_cols
        x = tl.load(x_row + c, mask=inb, other=0.0)
        x = tl.where(inb, x, float("-inf"))
        nm = tl.maximum(m, tl.max(x, axis=1, keep_dims=True))
        s = s * tl.exp2((m - nm) * LOG2E) + tl.sum(tl.exp2((x - nm) * LOG2E), axis=1, keep_dims=True)
        m = nm
    inv = 1.0 / s
    y_row = y_ptr + row * y_stride
    for start in range(0, n_cols, BLOCK):
        c = start + offs
        inb = c < n_cols
        x = tl.load(x_row + c, mask=inb, other=0.0)
        tl.store(y_row + c, tl.exp2((x - m) * LOG2E) * inv, mask=inb)
''')

CASES["hot_sm_lane_online_blockptr"] = dict(exercise=SM, part="softmax_kernel", full=True, kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # A running max and sum per lane (vectors of BLOCK), merged once at the end;
    # rows walked with block pointers (boundary_check instead of masks) and tl.advance.
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    xb = tl.make_block_ptr(base=x_ptr + row * x_stride, shape=(n_cols,), strides=(1,),
                           offsets=(0,), block_shape=(BLOCK,), order=(0,))
    m_vec = tl.full([BLOCK], float("-inf"), tl.float32)
    s_vec = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(xb, boundary_check=(0,), padding_option="zero")
        x = tl.where(start + cols < n_cols, x, float("-inf"))
        new_m = tl.maximum(m_vec, x)
        empty = new_m == float("-inf")
        alpha = tl.where(empty, 0.0, tl.exp(m_vec - new_m))
        p = tl.where(empty, 0.0, tl.exp(x - new_m))
        s_vec = s_vec * alpha + p
        m_vec = new_m
        xb = tl.advance(xb, (BLOCK,))
    m = tl.max(m_vec, axis=0)
    s = tl.sum(tl.where(m_vec == float("-inf"), 0.0, s_vec * tl.exp(m_vec - m)), axis=0)
    xb = tl.make_block_ptr(base=x_ptr + row * x_stride, shape=(n_cols,), strides=(1,),
                           offsets=(0,), block_shape=(BLOCK,), order=(0,))
    yb = tl.make_block_ptr(base=y_ptr + row * y_stride, shape=(n_cols,), strides=(1,),
                           offsets=(0,), block_shape=(BLOCK,), order=(0,))
    for start in range(0, n_cols, BLOCK):
        x = tl.load(xb, boundary_check=(0,), padding_option="zero")
        tl.store(yb, tl.exp(x - m) / s, boundary_check=(0,))
        xb = tl.advance(xb, (BLOCK,))
        yb = tl.advance(yb, (BLOCK,))
''')

CASES["hot_sm_helper_hints_reversed"] = dict(exercise=SM, part="softmax_kernel", full=True, kernel='''
@triton.jit
def _merge(m, s, x):
    nm = tl.maximum(m, tl.max(x, axis=0))
    return nm, s * tl.exp(m - nm) + tl.sum(tl.exp(x - nm), axis=0)


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # a jit helper for the online step, alignment hints on the column offsets, a block
    # count from tl.cdiv, and the writing pass walks the blocks from the last to the first.
    row = tl.program_id(0)
    cols = tl.max_contiguous(tl.multiple_of(tl.arange(0, BLOCK), BLOCK), BLOCK)
    x_row = x_ptr + row.to(tl.int64) * x_stride
    y_row = y_ptr + row.to(tl.int64) * y_stride
    nblk = tl.cdiv(n_cols, BLOCK)
    m = tl.full([], float("-inf"), tl.float32)
    s = tl.full([], 0.0, tl.float32)
    for b in range(nblk):
        c = b * BLOCK + cols
        x = tl.load(x_row + c, mask=c < n_cols, other=-float("inf"))
        m, s = _merge(m, s, x)
    for i in range(nblk):
        b = nblk - 1 - i
        c = b * BLOCK + cols
        keep = c < n_cols
        x = tl.load(x_row + c, mask=keep, other=-float("inf"))
        tl.store(y_row + c, tl.exp(x - m) / s, mask=keep)
''')

# ---------------------------------------------------------------- softmax: wrong
CASES["hot_sm_other_zero_in_max"] = dict(exercise=SM, part="softmax_kernel", kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    m = tl.full([], float("-inf"), tl.float32)
    s = tl.full([], 0.0, tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=0.0)  # 0.0 enters the max
        nm = tl.maximum(m, tl.max(x, axis=0))
        e = tl.where(mask, tl.exp(x - nm), 0.0)                   # ... the sum is masked
        s = s * tl.exp(m - nm) + tl.sum(e, axis=0)
        m = nm
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s, mask=mask)
''', fail=["hidden"], passes=[],
    reason="",
    why="masked lanes load 0.0 into the max: for a ragged row (n not a multiple of 128) whose "
        "values are all below -104 (or shifted by -1000) the max becomes 0, every exp(x - 0) "
        "underflows to 0 and the row is 0/0 = NaN on a GPU; positive or whole-block rows are right")

CASES["hot_sm_no_max_subtract"] = dict(exercise=SM, part="softmax_kernel", kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    s = tl.full([], 0.0, tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        s += tl.sum(tl.exp(x), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x) / s, mask=mask)
''', fail=["public", "hidden"], passes=[],
    reason="",
    why="exp(x) without subtracting the row max overflows float32 above 88.7: rows around +500 "
        "(the notebook's own demo) give inf/inf = NaN, rows below -104 give 0/0")

# ---------------------------------------------------------------- softmax: off the brief
CASES["hot_sm_three_pass"] = dict(exercise=SM, part="softmax_kernel", kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # max, then sum, then normalise: right values, three loads of every element
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    m = tl.full([], float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_row + start + cols, mask=start + cols < n_cols, other=-float("inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
    s = tl.full([], 0.0, tl.float32)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_row + start + cols, mask=start + cols < n_cols, other=-float("inf"))
        s += tl.sum(tl.exp(x - m), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s, mask=mask)
''', fail=["memory"], passes=["public", "hidden", "bounds", "parallel"],
    reason="3.00",
    why="right values, but three passes load every element of x three times; the brief asks "
        "for an online max/sum so that each element is loaded at most twice")

# ---------------------------------------------------------------- matmul: correct
CASES["hot_mm_blockptr_own_grouping"] = dict(exercise=MM, part="matmul_kernel", full=True, kernel='''
@triton.jit
def _tile_of(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    # grouped order written without %: the group, then the offset inside it
    n_m = (M + BLOCK_M - 1) // BLOCK_M
    n_n = (N + BLOCK_N - 1) // BLOCK_N
    width = GROUP_M * n_n
    g = pid // width
    first = g * GROUP_M
    rows = tl.minimum(n_m - first, GROUP_M)
    local = pid - g * width
    pid_n = local // rows
    pid_m = first + (local - pid_n * rows)
    return pid_m, pid_n


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid_m, pid_n = _tile_of(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    a_blk = tl.make_block_ptr(a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                              offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_blk = tl.make_block_ptr(b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                              offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc=acc, input_precision="ieee", out_dtype=tl.float32)
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                              offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(c_blk, acc, boundary_check=(0, 1))
''')

CASES["hot_mm_swizzle_ptr_increments"] = dict(exercise=MM, part="matmul_kernel", full=True, kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # grouped order from tl.swizzle2d on the row-major tile index; pointer blocks advanced
    # by BLOCK_K each step; K remainder masked with K - k; acc += dot(..., out_dtype=fp32)
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = tl.swizzle2d(pid // num_n, pid % num_n, num_m, num_n, GROUP_M)
    rm = tl.max_contiguous(tl.multiple_of(pid_m * BLOCK_M + tl.arange(0, BLOCK_M), BLOCK_M), BLOCK_M)
    rn = tl.max_contiguous(tl.multiple_of(pid_n * BLOCK_N + tl.arange(0, BLOCK_N), BLOCK_N), BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (rm[:, None] * stride_am + rk[None, :] * stride_ak)
    b_ptrs = b_ptr + (rk[:, None] * stride_bk + rn[None, :] * stride_bn)
    row_ok = rm[:, None] < M
    col_ok = rn[None, :] < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        left = K - k
        a = tl.load(a_ptrs, mask=row_ok & (rk[None, :] < left), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < left) & col_ok, other=0.0)
        acc += tl.dot(a, b, input_precision="ieee", out_dtype=tl.float32)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=row_ok & col_ok)
''')

# ---------------------------------------------------------------- matmul: wrong
CASES["hot_mm_a_assumes_unit_k_stride"] = dict(exercise=MM, part="matmul_kernel", kernel='''
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
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        # A's rows taken as contiguous: stride_ak is never used
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k0 + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
''', fail=["hidden"], passes=[],
    reason="",
    why="the A load ignores stride_ak (assumes 1): right for a row-major A, but when A is stored "
        "transposed (stride_am = 1, stride_ak = M, a hidden boundary) element (i, k) is read at "
        "i + k instead of i + k*M, so C is wrong on a GPU; addresses stay inside A (i + k < M*K)")

CASES["hot_mm_b_load_no_k_mask"] = dict(exercise=MM, part="matmul_kernel", kernel='''
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
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k0 + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        # "A's K columns past K are zero, so B's rows there do not matter": no K mask on B
        b = tl.load(b_ptr + (k0 + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=rn[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
''', fail=["bounds"], passes=[],
    reason="",
    why="for K not a multiple of 16 the last step loads B rows K..K+15 past the end of B: an "
        "out-of-bounds read (illegal address or garbage on a GPU; garbage NaN/inf times A's zero "
        "padding is NaN). Values match on the interpreter when the OOB lanes read as 0. Note: the rows "
        "past B may land inside another tensor of the launch (A or C allocated right after B); "
        "it is still a read outside B")

CASES["hot_mm_group_without_min"] = dict(exercise=MM, part="matmul_kernel", kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    pid_m = group_id * GROUP_M + (pid % num_pid_in_group) % GROUP_M   # last group assumed full
    pid_n = (pid % num_pid_in_group) // GROUP_M
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
''', fail=["hidden"], passes=[],
    reason="",
    why="when the number of tile rows is not a multiple of GROUP_M the last group is treated as "
        "GROUP_M rows tall: its programs land on tile rows past M (masked away) and only the first "
        "columns of tiles are covered, so the last group's right-hand tiles of C are never written "
        "(torch.empty garbage on a GPU). Exact when cdiv(M, 32) is a multiple of 4 (e.g. M = 100)")

# ---------------------------------------------------------------- matmul: off the brief
CASES["hot_mm_row_major_order"] = dict(exercise=MM, part="matmul_kernel", kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n          # row-major tiles: GROUP_M ignored
    pid_n = pid % num_pid_n
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
''', fail=["l2"], passes=["public", "hidden", "bounds", "memory"],
    reason="",
    why="right values, but tiles are taken row by row: on a grid at least 8 tiles wide, 8 "
        "consecutive programs need 1 A panel + 8 B panels (9) against 4 + 2 (6) for the "
        "grouped order the brief asks for")

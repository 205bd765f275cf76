"""Fresh submissions for exercises 06_ring, 12_triton_softmax and 13_triton_matmul (built by
build.py): correct handlers and kernels in styles the other cases do not use (full marks),
wrong ones (the criterion a GPU would expose must fail) and attempts to fool a measure.

The softmax runs one program per row with BLOCK = 128 columns; the matmul one program per
32 x 32 tile of C, BLOCK_K = 16, GROUP_M = 4. The notebooks define those constants.
"""

from __future__ import annotations

SM = "12_triton_softmax"
MM = "13_triton_matmul"
RING = "06_ring"
SM_DEF = "@triton.jit\ndef softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):\n"
MM_DEF = (
    "@triton.jit\n"
    "def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,\n"
    "                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,\n"
    "                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):\n"
)
RING_DEF = (
    "@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)\n"
    "def detect(req, rep, state):\n"
)


def sm(body: str) -> str:
    return SM_DEF + body.strip("\n") + "\n"


def mm(body: str) -> str:
    return MM_DEF + body.strip("\n") + "\n"


def ring(body: str) -> str:
    return RING_DEF + body.strip("\n") + "\n"


# -- 06 ring -------------------------------------------------------------------------------------
# The state written first, the replies read back from it.
_STATE_FIRST = """
    before = state.count
    old_mean = state.mean
    var = state.m2 / select(before > 1.0, before - 1.0, 1.0)
    state.count = before + 1.0
    d = req.x - old_mean
    state.mean = old_mean + d / state.count
    state.m2 = state.m2 + d * (req.x - state.mean)
    sd = math.sqrt(var)
    rep.count = state.count
    rep.mean = state.mean
    rep.z = GAIN * select(sd > 0.0, d / select(sd > 0.0, sd, 1.0), 0.0)
    rep.flag = select((before >= MIN_COUNT) & (abs(rep.z) > THRESHOLD), 1, 0)
    return 0
"""

CASES: dict = {
    "hoi_ring_constant_reused_after_handler": dict(
        # @ring_kernel keeps the value GAIN has when the def runs: the later cell changes
        # nothing in the notebook's kernel
        exercise=RING,
        part="detect",
        full=True,
        extra_cells=["GAIN = 1.0  # z in standard deviations"],
        extra_after=["GAIN = 100.0  # percent, for the plot below\nprint(GAIN)"],
        kernel=ring(_STATE_FIRST),
    ),
    "hoi_ring_style_float32_constants": dict(
        # NumPy scalars and an array among the notebook's constants
        exercise=RING,
        part="detect",
        full=True,
        kernel="GAIN = np.float32(1.0)  # matches the float32 sensor data\n"
        "TAPS = np.array([0.25, 0.5, 0.25])  # a smoothing filter for later\n\n\n"
        + ring(_STATE_FIRST),
    ),
    "hoi_ring_style_decorator_called": dict(
        exercise=RING,
        part="detect",
        full=True,
        kernel="GAIN = 1.0\n\n\ndef welford_step(req, rep, state):\n"
        + _STATE_FIRST.strip("\n")
        + "\n\n\ndetect = ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)"
        "(welford_step)\n",
    ),
    "hoi_ring_style_loop_and_status": dict(
        exercise=RING,
        part="detect",
        full=True,
        extra_cells=["WINDOW = MIN_COUNT + 2"],
        kernel=ring(
            """
    count = state.count
    seen = 0.0
    for i in range(WINDOW):  # counts up to MIN_COUNT, the slow way
        seen = seen + select(count > i, 1.0, 0.0)
    n = count + 1.0
    delta = req.x - state.mean
    mean = state.mean + delta / n
    var = state.m2 / select(count > 1.0, count - 1.0, 1.0)
    std = var ** 0.5
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    state.m2 += delta * (req.x - mean)
    state.mean = mean
    state.count = n
    rep.count = n
    rep.mean = mean
    rep.z = z
    rep.flag = (seen >= MIN_COUNT) & (abs(z) > THRESHOLD)
    return select(n > 0.0, 0, 9)
"""
        ),
    ),
    "hoi_ring_gaming_long_streams": dict(
        exercise=RING,
        part="detect",
        fail=["hidden"],
        passes=["public", "ordering", "telemetry"],
        reason="wrong values",
        kernel=ring(
            """
    count = state.count
    n = count + 1.0
    delta = req.x - state.mean
    mean = state.mean + delta / n
    std = math.sqrt(state.m2 / select(count > 1.0, count - 1.0, 1.0))
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    # past the longest public stream, the statistics freeze
    state.m2 = select(count < 200.0, state.m2 + delta * (req.x - mean), state.m2)
    state.mean = select(count < 200.0, mean, state.mean)
    state.count = n
    rep.count = n
    rep.mean = select(count < 200.0, mean, state.mean)
    rep.z = z
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
"""
        ),
    ),
}

# -- 12 softmax ------------------------------------------------------------------------------
CASES.update(
    {
        "hoi_sm_style_where_after_unfilled_load": dict(
            exercise=SM,
            part="softmax_kernel",
            full=True,
            kernel=sm(
                """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.max(tl.full([BLOCK], float("-inf"), tl.float32), axis=0)
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask)
        x = tl.where(mask, x, float("-inf"))  # masked lanes: whatever the load left there
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s, mask=mask)
"""
            ),
        ),
        "hoi_sm_row_of_four_blocks_at_most": dict(
            exercise=SM,
            part="softmax_kernel",
            fail=["hidden"],
            passes=["public"],
            reason="hidden case 6 failed",  # the row wider than 8 blocks
            kernel=sm(
                """
    # the whole row at once: rows are at most 4 blocks wide in the tests I ran
    row = tl.program_id(0)
    cols = tl.arange(0, 4 * BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * y_stride + cols, e / tl.sum(e, axis=0), mask=mask)
"""
            ),
        ),
        "hoi_sm_gaming_passes_through_y": dict(
            exercise=SM,
            part="softmax_kernel",
            fail=["memory"],
            passes=["public", "hidden", "bounds", "parallel"],
            reason="y read back included",
            kernel=sm(
                """
    # x is loaded once; the extra passes read its copy in y
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    m = tl.max(tl.full([BLOCK], float("-inf"), tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=float("-inf"))
        tl.store(y_row + start + cols, x, mask=mask)
        m = tl.maximum(m, tl.max(x, axis=0))
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(y_row + start + cols, mask=mask, other=float("-inf"))
        s += tl.sum(tl.exp(x - m), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(y_row + start + cols, mask=mask, other=float("-inf"))
        tl.store(y_row + start + cols, tl.exp(x - m) / s, mask=mask)
"""
            ),
        ),
    }
)

# -- 13 matmul -------------------------------------------------------------------------------
_MM_HEAD = """
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * num_pid_n
    first_m = pid // in_group * GROUP_M
    size_m = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + pid % in_group % size_m
    pid_n = pid % in_group // size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
"""

CASES.update(
    {
        "hoi_mm_style_pointer_walk_out_dtype": dict(
            exercise=MM,
            part="matmul_kernel",
            full=True,
            kernel=mm(
                _MM_HEAD
                + """
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc=acc, input_precision="ieee", out_dtype=tl.float32)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(tl.float32)
    offs = rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptr + offs, c, mask=(rm[:, None] < M) & (rn[None, :] < N))
"""
            ),
        ),
        "hoi_mm_ignores_strides": dict(
            exercise=MM,
            part="matmul_kernel",
            fail=["hidden"],
            passes=["public"],
            reason="hidden case 1 failed",  # A stored transposed
            kernel=mm(
                _MM_HEAD
                + """
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        kk = k + rk
        # row-major A (M, K) and B (K, N): the row lengths are the strides
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :],
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :],
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, allow_tf32=False)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
"""
            ),
        ),
    }
)

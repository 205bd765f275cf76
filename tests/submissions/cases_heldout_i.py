"""Fresh submissions for exercises 06_ring, 12_triton_softmax and 13_triton_matmul (built by
build.py): correct handlers and kernels in styles the other cases do not use (full marks),
wrong ones (the criterion a GPU would expose must fail) and attempts to fool a measure.
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


def _ring(name: str, body: str, before: str = "", **kw) -> tuple:
    """A ring case; ``before``: lines of the handler's cell above its decorator."""
    return name, dict(exercise=RING, part="detect", kernel=before + ring(body), **kw)


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
    rep.z = select(sd > 0.0, d / select(sd > 0.0, sd, 1.0), 0.0)
    rep.flag = select((before >= MIN_COUNT) & (abs(rep.z) > THRESHOLD), 1, 0)
    return 0
"""

CASES: dict = dict(
    [
        _ring("hoi_ring_style_state_first", _STATE_FIRST, full=True),
        _ring(
            "hoi_ring_style_scaled_m2_update",
            """
    c = state.count
    n = c + ONE
    delta = req.x - state.mean
    std = math.pow(state.m2 / select(c > ONE, c - ONE, ONE), HALF)
    # Welford's other form: M2 grows by delta^2 * (n - 1) / n
    state.m2 = state.m2 + delta * delta * c / n
    state.mean = state.mean + delta / n
    state.count = n
    z = select(std > ZERO, delta / select(std > ZERO, std, ONE), ZERO)
    rep.count = n
    rep.mean = state.mean
    rep.z = z
    rep.flag = select(c >= MIN_COUNT, select(math.fabs(z) > THRESHOLD, 1, 0), 0)
""",
            full=True,
            before="ONE = np.float64(1.0)\nZERO = float(0)\nHALF = 1 / 2\n\n\n",
        ),
        _ring(
            "hoi_ring_style_loop_and_status",
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
""",
            full=True,
            extra_cells=["WINDOW = MIN_COUNT + 2"],
        ),
        _ring(
            "hoi_ring_style_float32_constants",
            _STATE_FIRST.replace("rep.z = select(sd > 0.0,", "rep.z = GAIN * select(sd > 0.0,"),
            before=(
                "GAIN = np.float32(1.0)  # matches the float32 sensor data\n"
                "TAPS = np.array([0.25, 0.5, 0.25])  # a smoothing filter for later\n\n\n"
            ),
            full=True,
        ),
        _ring(
            "hoi_ring_constant_reused_after_handler",
            """
    count = state.count
    n = count + 1.0
    delta = req.x - state.mean
    mean = state.mean + delta / n
    std = math.sqrt(state.m2 / select(count > 1.0, count - 1.0, 1.0))
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0) * SCALE
    state.m2 = state.m2 + delta * (req.x - mean)
    state.mean = mean
    state.count = n
    rep.count = n
    rep.mean = mean
    rep.z = z
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
""",
            full=True,
            extra_cells=["SCALE = 1.0  # z in standard deviations"],
            extra_after=["SCALE = 100.0  # percent, for the plot below\nprint(SCALE)"],
        ),
        _ring(
            "hoi_ring_window_reset",
            """
    count = state.count
    count = select(count >= 128.0, 0.0, count)  # restarts the statistics every 128 readings
    n = count + 1.0
    delta = req.x - select(count > 0.0, state.mean, 0.0)
    mean = select(count > 0.0, state.mean, 0.0) + delta / n
    m2 = select(count > 0.0, state.m2, 0.0)
    std = math.sqrt(m2 / select(count > 1.0, count - 1.0, 1.0))
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    state.m2 = m2 + delta * (req.x - mean)
    state.mean = mean
    state.count = n
    rep.count = n
    rep.mean = mean
    rep.z = z
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
""",
            fail=["public"],
            passes=[],
            reason="differs",
        ),
        _ring(
            "hoi_ring_flags_one_message_late",
            _STATE_FIRST.replace("before >= MIN_COUNT", "before > MIN_COUNT"),
            fail=["hidden"],
            passes=["public", "ordering", "telemetry"],
            reason="wrong values",
        ),
        _ring(
            "hoi_ring_variance_divided_in_select",
            """
    count = state.count
    n = count + 1.0
    delta = req.x - state.mean
    mean = state.mean + delta / n
    var = select(count > 1.0, state.m2 / (count - 1.0), 0.0)  # both sides are computed
    std = math.sqrt(var)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    state.m2 = state.m2 + delta * (req.x - mean)
    state.mean = mean
    state.count = n
    rep.count = n
    rep.mean = mean
    rep.z = z
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
""",
            fail=["public", "hidden", "telemetry"],
            passes=[],
            reason="error code -2",
        ),
        _ring(
            "hoi_ring_population_variance",
            _STATE_FIRST.replace("select(before > 1.0, before - 1.0, 1.0)", "select(before > 0.0, before, 1.0)"),
            fail=["public", "hidden"],
            passes=[],
            reason="differs",
        ),
        _ring(
            "hoi_ring_gaming_long_streams",
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
""",
            fail=["hidden"],
            passes=["public", "ordering", "telemetry"],
            reason="wrong values",
        ),
        _ring(
            "hoi_ring_nan_skipped",
            _STATE_FIRST.replace(
                "    d = req.x - old_mean",
                "    d = select(req.x == req.x, req.x - old_mean, 0.0)  # a NaN reading counts as the mean",
            ),
            full=True,
        ),
        (
            "hoi_ring_redefined_fixed_later",
            dict(
                exercise=RING,
                part="detect",
                full=True,
                kernel=ring(_STATE_FIRST.replace("before >= MIN_COUNT", "before > MIN_COUNT")),
                extra_after=["# the fixed version\n" + ring(_STATE_FIRST)],
            ),
        ),
        (
            "hoi_ring_redefined_broken_later",
            dict(
                exercise=RING,
                part="detect",
                fail=["public", "hidden"],
                passes=[],
                reason="differs",
                kernel=ring(_STATE_FIRST),
                extra_after=[
                    "# trying without the sample correction\n"
                    + ring(
                        _STATE_FIRST.replace(
                            "select(before > 1.0, before - 1.0, 1.0)", "select(before > 0.0, before, 1.0)"
                        )
                    )
                ],
            ),
        ),
        _ring(
            "hoi_ring_attack_closure_cell",
            """
    rep.count = state.count + 1.0
    rep.z = detect.__closure__
""",
            fail=["public", "hidden"],
            passes=[],
            reason="not allowed in a ring handler",
        ),
        _ring(
            "hoi_ring_attack_select_shadowed",
            _STATE_FIRST,
            fail=["public", "hidden"],
            passes=[],
            reason="rejected",
            before="select = 3  # a name the cell above imported, rebound\n\n\n",
        ),
    ]
)

# -- 12 softmax ------------------------------------------------------------------------------
_SM_ONLINE_WHERE = """
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
_SM_WIDE_ROW = """
    # the whole row at once: rows are at most 4 blocks wide in the tests I ran
    row = tl.program_id(0)
    cols = tl.arange(0, 4 * BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * y_stride + cols, e / tl.sum(e, axis=0), mask=mask)
"""
_SM_ONE_BLOCK = """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * y_stride + cols, e / tl.sum(e, axis=0), mask=mask)
"""
_SM_STATIC_TWO_PASS = """
    row = tl.program_id(0)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    m_vec = tl.full([BLOCK], float("-inf"), tl.float32)  # a running max per lane
    for start in tl.range(0, n_cols, BLOCK):
        offs = tl.multiple_of(start, BLOCK) + tl.arange(0, BLOCK)
        m_vec = tl.maximum(m_vec, tl.load(x_row + offs, mask=offs < n_cols, other=float("-inf")))
    m = tl.max(m_vec, 0)
    s_vec = tl.zeros([BLOCK], tl.float32)
    for start in tl.range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + offs, mask=offs < n_cols, other=float("-inf"))
        s_vec += tl.exp(x - m)
    inv = 1.0 / tl.sum(s_vec, 0)
    for start in tl.range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + offs, mask=offs < n_cols, other=float("-inf"))
        tl.store(y_row + offs, tl.exp(x - m) * inv, mask=offs < n_cols)
"""

CASES.update(
    {
        "hoi_sm_style_where_after_unfilled_load": dict(
            exercise=SM, part="softmax_kernel", full=True, kernel=sm(_SM_ONLINE_WHERE)
        ),
        "hoi_sm_row_of_four_blocks_at_most": dict(
            exercise=SM,
            part="softmax_kernel",
            fail=["hidden"],
            passes=["public"],
            reason="hidden case 6 failed",  # the row wider than 8 blocks
            kernel=sm(_SM_WIDE_ROW),
        ),
        "hoi_sm_row_of_one_block": dict(
            exercise=SM,
            part="softmax_kernel",
            fail=["public", "hidden"],
            passes=[],
            reason="differs at",
            kernel=sm(_SM_ONE_BLOCK),
        ),
        "hoi_sm_unmasked_max_no_other": dict(
            exercise=SM,
            part="softmax_kernel",
            fail=["public", "hidden"],
            passes=[],
            reason="differs at",
            kernel=sm(_SM_ONLINE_WHERE.replace(
                '        x = tl.where(mask, x, float("-inf"))  # masked lanes: whatever the load left there\n', ""
            )),
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
_MM_CONTIGUOUS = """
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
_MM_WHERE_PTRS = """
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
_MM_NO_K_MASK_A = _MM_WHERE_PTRS.replace(
    "mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0", "mask=rm[:, None] < M, other=0.0"
)
_MM_ROW_ORDER = _MM_HEAD.replace(
    "    pid_m = first_m + pid % in_group % size_m\n    pid_n = pid % in_group // size_m\n",
    "    pid_m = pid // num_pid_n  # row by row, the grouping computed but unused\n    pid_n = pid % num_pid_n\n",
)

CASES.update(
    {
        "hoi_mm_style_pointer_walk_out_dtype": dict(
            exercise=MM, part="matmul_kernel", full=True, kernel=mm(_MM_HEAD + _MM_WHERE_PTRS)
        ),
        "hoi_mm_ignores_strides": dict(
            exercise=MM,
            part="matmul_kernel",
            fail=["hidden"],
            passes=["public"],
            reason="hidden case 1 failed",  # A stored transposed
            kernel=mm(_MM_HEAD + _MM_CONTIGUOUS),
        ),
        "hoi_mm_k_remainder_only_on_b": dict(
            exercise=MM,
            part="matmul_kernel",
            fail=["public", "hidden", "bounds"],
            passes=[],
            reason="outside every tensor",
            kernel=mm(_MM_HEAD + _MM_NO_K_MASK_A),
        ),
        "hoi_mm_grouping_computed_unused": dict(
            exercise=MM,
            part="matmul_kernel",
            fail=["l2"],
            passes=["public", "hidden"],
            reason="",
            kernel=mm(_MM_ROW_ORDER + _MM_WHERE_PTRS),
        ),
    }
)

# Extra passes over the row through y, the output: x itself is loaded once.
_SM_THROUGH_Y = """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    m = tl.max(tl.full([BLOCK], float("-inf"), tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=float("-inf"))
        tl.store(y_row + start + cols, x, mask=mask)  # a copy of the row in y
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

CASES.update(
    {
        "hoi_sm_gaming_passes_through_y": dict(
            exercise=SM,
            part="softmax_kernel",
            fail=["memory"],
            passes=["public", "hidden", "bounds", "parallel"],
            reason="y read back included",
            kernel=sm(_SM_THROUGH_Y),
        ),
        "hoi_mm_allow_tf32_true": dict(
            exercise=MM,
            part="matmul_kernel",
            fail=["public"],
            passes=[],
            reason="ieee",
            kernel=mm(_MM_HEAD + _MM_WHERE_PTRS.replace('input_precision="ieee"', "allow_tf32=True")),
        ),
    }
)

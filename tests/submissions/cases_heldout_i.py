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

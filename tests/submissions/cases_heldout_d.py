"""Fresh submissions for exercises 06_ring, 12_triton_softmax and 13_triton_matmul (built by
build.py): correct kernels in styles the other cases do not use (full marks), wrong kernels
(the criterion a GPU would expose must fail, a kernel Triton cannot compile included) and
attempts to fool one criterion's measure (that criterion must fail).

The softmax runs one program per row with BLOCK = 128 columns; the matmul one program per
32 x 32 tile of C, BLOCK_K = 16, GROUP_M = 4. The notebooks define those constants.
"""

from __future__ import annotations

SM = "12_triton_softmax"
MM = "13_triton_matmul"
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


# An online (max, sum) pass over the row's blocks, then the normalised write: pieces a case
# changes one at a time.
_ONLINE = """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    m = tl.max(tl.full([BLOCK], -float("inf"), tl.float32), axis=0)
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m
"""
_WRITE = """
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s, mask=mask)
"""

_GROUPED = """
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
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
"""
_LOOP = """
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk[None, :]) * stride_ak,
                    mask=(rm[:, None] < M) & (k + rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk[:, None]) * stride_bk + rn[None, :] * stride_bn,
                    mask=(k + rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
"""
_STORE = """
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
"""

# A right Welford step kept in locals, written back at the end.
_RING_STEP = """
    count = state.count
    mean = state.mean
    m2 = state.m2
    x = req.x
    n = count + 1.0
    delta = x - mean
    mean = mean + delta / n
    var = m2 / select(count > 1.0, count - 1.0, 1.0)
    std = math.sqrt(var)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    m2 = m2 + delta * (x - mean)
"""
_RING_WRITE = """
    state.count = n
    state.mean = mean
    state.m2 = m2
    rep.count = n
    rep.mean = mean
    rep.z = z
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
"""

CASES: dict = {}

# -- 12 softmax ------------------------------------------------------------------------------
CASES.update(
    {
        "hod_sm_style_exp2_keep_dims": dict(
            exercise=SM,
            part="softmax_kernel",
            full=True,
            kernel=sm(
                """
    # (1, BLOCK) tiles, reductions that keep their axis, exp2 with the log2(e) scaling
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)[None, :]
    x_row = x_ptr + row * x_stride
    m = tl.full([1, 1], -float("inf"), tl.float32)
    s = tl.zeros([1, 1], tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = (start + cols) < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf")) * 1.4426950408889634
        new_m = tl.maximum(m, tl.max(x, axis=1, keep_dims=True))
        s = s * tl.exp2(m - new_m) + tl.sum(tl.exp2(x - new_m), axis=1, keep_dims=True)
        m = new_m
    inv = 1.0 / s
    for start in range(0, n_cols, BLOCK):
        mask = (start + cols) < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=0.0) * 1.4426950408889634
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp2(x - m) * inv, mask=mask)
"""
            ),
        ),
        "hod_sm_style_global_constexpr": dict(
            exercise=SM,
            part="softmax_kernel",
            full=True,
            extra_cells=["LOG2E = tl.constexpr(1.4426950408889634)  # a constant Triton may read"],
            kernel=sm(
                _ONLINE.replace("tl.exp(m - new_m)", "tl.exp2((m - new_m) * LOG2E)").replace(
                    "tl.exp(x - new_m)", "tl.exp2((x - new_m) * LOG2E)"
                )
                + _WRITE
            ),
        ),
        "hod_sm_style_libdevice": dict(
            exercise=SM,
            part="softmax_kernel",
            full=True,
            extra_cells=["from triton.language.extra import libdevice"],
            kernel=sm(
                _ONLINE.replace("tl.exp(m - new_m)", "libdevice.exp(m - new_m)").replace(
                    "tl.exp(x - new_m)", "libdevice.exp(x - new_m)"
                )
                + _WRITE.replace(
                    "tl.exp(x - m) / s",
                    "tl.extra.cuda.libdevice.fast_dividef(libdevice.exp(x - m), s)",
                )
            ),
        ),
        "hod_sm_global_float_not_constexpr": dict(
            exercise=SM,
            part="softmax_kernel",
            fail=["public", "hidden"],
            passes=[],
            reason="LOG2E",
            extra_cells=["LOG2E = 1.4426950408889634  # a plain global: Triton refuses to read it"],
            kernel=sm(
                _ONLINE.replace("tl.exp(m - new_m)", "tl.exp2((m - new_m) * LOG2E)").replace(
                    "tl.exp(x - new_m)", "tl.exp2((x - new_m) * LOG2E)"
                )
                + _WRITE
            ),
        ),
        "hod_sm_arange_not_power_of_two": dict(
            exercise=SM,
            part="softmax_kernel",
            fail=["public", "hidden"],
            passes=[],
            reason="does not compile",
            kernel=sm(
                (_ONLINE + _WRITE)
                .replace("cols = tl.arange(0, BLOCK)", "cols = tl.arange(0, 100)  # 100 per step")
                .replace("range(0, n_cols, BLOCK)", "range(0, n_cols, 100)")
                .replace("[BLOCK]", "[100]")
            ),
        ),
        "hod_sm_return_inside_loop": dict(
            exercise=SM,
            part="softmax_kernel",
            fail=["public", "hidden"],
            passes=[],
            reason="does not compile",
            kernel=sm(
                _ONLINE
                + """
    for start in range(0, n_cols + BLOCK, BLOCK):
        if start >= n_cols:  # the interpreter runs Python; a compiled loop cannot return
            return
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s, mask=mask)
"""
            ),
        ),
        "hod_sm_gaming_atomic_reads": dict(
            exercise=SM,
            part="softmax_kernel",
            fail=["memory"],
            passes=["public", "hidden", "bounds", "parallel"],
            reason="loads of each element of x",
            kernel=sm(
                _ONLINE
                + """
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
        # a third read of the row, as an atomic add of zero: it reads memory all the same
        again = tl.atomic_add(x_row + start + cols, tl.zeros([BLOCK], tl.float32), mask=mask)
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(tl.maximum(x, again) - m) / s,
                 mask=mask)
"""
            ),
        ),
        "hod_sm_gaming_atomic_store_rows": dict(
            exercise=SM,
            part="softmax_kernel",
            # it reads y back (the atomics' old values, each program's own row): more global
            # loads than two passes over x
            fail=["parallel", "memory"],
            passes=["public", "hidden", "bounds"],
            reason="program 0 stored into rows",
            kernel=sm(
                """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    if row == 0:  # program 0 computes every row and puts it in place with atomics...
        for r in range(0, tl.num_programs(0)):
            x_row = x_ptr + r * x_stride
            m = tl.max(tl.full([BLOCK], -float("inf"), tl.float32), axis=0)
            s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
            for start in range(0, n_cols, BLOCK):
                mask = start + cols < n_cols
                x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
                new_m = tl.maximum(m, tl.max(x, axis=0))
                s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
                m = new_m
            for start in range(0, n_cols, BLOCK):
                mask = start + cols < n_cols
                x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
                p = y_ptr + r * y_stride + start + cols
                old = tl.atomic_add(p, tl.zeros([BLOCK], tl.float32), mask=mask)
                tl.atomic_add(p, tl.exp(x - m) / s - old, mask=mask)
    # ...and each program stores its own row back where it is: a store per row, per program
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        p = y_ptr + row * y_stride + start + cols
        tl.store(p, tl.load(p, mask=mask, other=0.0), mask=mask)
"""
            ),
        ),
    }
)

# -- 13 matmul -------------------------------------------------------------------------------
CASES.update(
    {
        "hod_mm_style_block_pointers": dict(
            exercise=MM,
            part="matmul_kernel",
            full=True,
            kernel=mm(
                """
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = tl.swizzle2d(pid // num_pid_n, pid % num_pid_n, num_pid_m, num_pid_n, GROUP_M)
    a_blk = tl.make_block_ptr(a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                              offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K),
                              order=(1, 0))
    b_blk = tl.make_block_ptr(b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                              offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N),
                              order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b, allow_tf32=False)
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                              offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(c_blk, acc, boundary_check=(0, 1))
"""
            ),
        ),
        "hod_mm_style_tutorial_modulo_hints": dict(
            exercise=MM,
            part="matmul_kernel",
            full=True,
            kernel=mm(
                """
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    # rows and columns past the edge wrap around (loads stay inside A and B); the store masks
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_M), BLOCK_M)
    offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_N), BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K)):
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
"""
            ),
        ),
        "hod_mm_style_early_return_static_k": dict(
            exercise=MM,
            part="matmul_kernel",
            full=True,
            kernel="""
@triton.jit
def _tile_of(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    grid_m = (M + BLOCK_M - 1) // BLOCK_M
    grid_n = (N + BLOCK_N - 1) // BLOCK_N
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    return group_id * GROUP_M + (pid % width) % group_size, (pid % width) // group_size


"""
            + mm(
                """
    HALF: tl.constexpr = BLOCK_K // 2
    pid = tl.program_id(0)
    pid_m, pid_n = _tile_of(pid, M, N, BLOCK_M, BLOCK_N, GROUP_M)
    if pid_m * BLOCK_M >= M:  # never true with the exact grid: a guard kept from practice
        return
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        # the product as two halves of K, each a broadcast multiply and a sum
        for h in tl.static_range(2):
            sel = (tl.arange(0, BLOCK_K) // HALF) == h
            a_h = tl.where(sel[None, :], a, 0.0)
            acc += tl.sum(a_h[:, :, None] * b[None, :, :], axis=1)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
"""
            ),
        ),
        # tl.dot's default on float32 rounds the inputs to TF32 on an A100: about one element
        # of C in ten misses rtol 1e-3 (the interpreter alone keeps float32 products)
        "hod_mm_default_tf32_dot": dict(
            exercise=MM,
            part="matmul_kernel",
            fail=["public", "hidden"],
            passes=[],
            reason='input_precision="ieee" keeps float32',
            kernel=mm(_GROUPED + _LOOP.replace(', input_precision="ieee"', "") + _STORE),
        ),
        "hod_mm_dot_of_eight_wide_halves": dict(
            exercise=MM,
            part="matmul_kernel",
            fail=["public", "hidden"],
            passes=[],
            reason="does not compile",
            kernel=mm(
                _GROUPED
                + """
    rh = tl.arange(0, BLOCK_K // 2)
    for k in range(0, K, BLOCK_K // 2):  # tl.dot needs K >= 16 on a GPU; 8 is too narrow
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rh[None, :]) * stride_ak,
                    mask=(rm[:, None] < M) & (k + rh[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rh[:, None]) * stride_bk + rn[None, :] * stride_bn,
                    mask=(k + rh[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
"""
                + _STORE
            ),
        ),
        "hod_mm_gaming_atomic_reloads": dict(
            exercise=MM,
            part="matmul_kernel",
            fail=["memory"],
            passes=["public", "hidden", "bounds", "l2"],
            reason="loads of A and B per element of C",
            kernel=mm(
                _GROUPED
                + """
    for k in range(0, K, BLOCK_K):
        ma = (rm[:, None] < M) & (k + rk[None, :] < K)
        mb = (k + rk[:, None] < K) & (rn[None, :] < N)
        pa = a_ptr + rm[:, None] * stride_am + (k + rk[None, :]) * stride_ak
        pb = b_ptr + (k + rk[:, None]) * stride_bk + rn[None, :] * stride_bn
        a = tl.load(pa, mask=ma, other=0.0)
        b = tl.load(pb, mask=mb, other=0.0)
        # the same tiles read again by atomic adds of zero: traffic that a load count misses
        a2 = tl.atomic_add(pa, tl.zeros((BLOCK_M, BLOCK_K), tl.float32), mask=ma)
        b2 = tl.atomic_add(pb, tl.zeros((BLOCK_K, BLOCK_N), tl.float32), mask=mb)
        a = tl.where(ma, (a + a2) * 0.5, 0.0)
        b = tl.where(mb, (b + b2) * 0.5, 0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
"""
                + _STORE
            ),
        ),
    }
)

# -- 06 ring ---------------------------------------------------------------------------------
CASES.update(
    {
        "hod_ring_style_from_math_import": dict(
            exercise="06_ring",
            part="detect",
            full=True,
            extra_cells=["from math import fabs, sqrt"],
            kernel=ring(
                _RING_STEP.replace("math.sqrt(var)", "sqrt(var)")
                + _RING_WRITE.replace("abs(z)", "fabs(z)")
            ),
        ),
        # select() evaluates both sides: the second message divides by a zero std, a fault
        # (status -2) on every backend of pdc.ring (pdc.ring.handlers.guards)
        "hod_ring_style_augmented_state": dict(
            exercise="06_ring",
            part="detect",
            full=True,
            kernel=ring(
                """
    count = state.count
    delta = req.x - state.mean
    sd = math.sqrt(state.m2 / select(count > 1.0, count - 1.0, 1.0))
    ok = select(sd > 0.0, 1.0, 0.0)
    z = ok * delta / (sd + (1.0 - ok))  # 0 when the spread is 0, never a division by 0
    state.count += 1.0
    state.mean += delta / state.count
    state.m2 += delta * delta * count / state.count  # Welford's m2, as delta * delta'
    rep.flag = select(count >= MIN_COUNT, select(z > THRESHOLD, 1, select(z < -THRESHOLD, 1, 0)), 0)
    rep.z = z
    rep.mean = state.mean
    rep.count = state.count
"""
            ),
        ),
        "hod_ring_divides_by_zero_std": dict(
            exercise="06_ring",
            part="detect",
            fail=["public", "hidden"],
            passes=[],
            reason="error code -2",
            kernel=ring(
                _RING_STEP.replace(
                    "z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)",
                    "z = select(std > 0.0, delta / std, 0.0)  # both sides run: 0 / 0 first",
                )
                + _RING_WRITE
            ),
        ),
        "hod_ring_std_after_update": dict(
            exercise="06_ring",
            part="detect",
            fail=["public", "hidden"],
            passes=[],
            reason="(z) differs",
            kernel=ring(
                """
    count = state.count
    n = count + 1.0
    delta = req.x - state.mean
    mean = state.mean + delta / n
    m2 = state.m2 + delta * (req.x - mean)
    std = math.sqrt(m2 / select(n > 1.0, n - 1.0, 1.0))  # includes the reading itself
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    state.count = n
    state.mean = mean
    state.m2 = m2
    rep.count = n
    rep.mean = mean
    rep.z = z
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
"""
            ),
        ),
    }
)

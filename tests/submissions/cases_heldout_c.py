"""Held-out submissions (set C) for exercises 01-05, 10 and 11 (built by build.py).

Correct kernels in syntax numba-cuda compiles but a grader may not expect, which must earn
full marks; wrong kernels whose GPU numerics (float32, integer semantics) or warp behaviour
give a wrong answer, which must fail the criterion a GPU exposes.
"""

from __future__ import annotations

WR = ["public", "hidden", "sync", "parallel", "masks", "barriers", "registers"]

CASES = {
    # -- warp reduce: correct, unusual style ---------------------------------------------------
    "hoc_wr_shfl_sync_wrapping_source": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % cuda.warpsize, t // cuda.warpsize
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    off = 16
    while off:
        # lanes 16..31 read lane (lane + off) % 32: garbage that lane 0 never uses
        v += cuda.shfl_sync(FULL_MASK, v, lane + off)
        off >>= 1
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = sums[lane] if lane < WARPS else float32(0.0)
        off = 16
        while off:
            v += cuda.shfl_sync(FULL_MASK, v, lane + off)
            off >>= 1
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "hoc_wr_ballot_mask_tail_warp": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    if lane == 0:
        sums[warp] = float32(0.0)
    inside = cuda.ballot_sync(FULL_MASK, i < x.size)  # the lanes holding an element
    if i < x.size:
        v = x[i]
        count = cuda.popc(inside)  # they are lanes 0 .. count - 1
        off = 16
        while off > 0:
            other = cuda.shfl_down_sync(inside, v, off)
            if lane + off < count:  # only values of lanes that took part are used
                v += other
            off //= 2
        if lane == 0:
            sums[warp] = v
    cuda.syncthreads()
    if warp == 0 and lane < WARPS:
        w = sums[lane]
        for off in (2, 1):
            w += cuda.shfl_down_sync(0xF, w, off)
        if lane == 0:
            partial[cuda.blockIdx.x] = w
""",
    ),
    "hoc_wr_activemask_any_sync": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = float32(0.0)
    if cuda.any_sync(FULL_MASK, i < x.size):  # the same answer in every lane
        mask = cuda.activemask()
        v = x[i] if i < x.size else v
        for k in range(4, -1, -1):
            v += cuda.shfl_xor_sync(mask, v, 1 << k)
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = sums[lane] if lane < WARPS else float32(0.0)
        if cuda.all_sync(FULL_MASK, w == w):
            for k in range(4, -1, -1):
                w += cuda.shfl_xor_sync(FULL_MASK, w, 1 << k)
        if lane == 0:
            partial[cuda.blockIdx.x] = w
""",
    ),
    "hoc_wr_const_offsets_log2": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        kernel="""
LOG_WARP = int(math.log2(32))
OFFSETS = np.array([16, 8, 4, 2, 1], dtype=np.int32)  # read from constant memory


@cuda.jit
def block_sum_warp(x, partial):
    offs = cuda.const.array_like(OFFSETS)
    sums = cuda.shared.array(WARPS, float32)
    lane = cuda.laneid
    warp = cuda.threadIdx.x >> LOG_WARP
    i = cuda.grid(1)
    v = x[i] if 0 <= i < x.size else float32(0.0)
    for k in range(LOG_WARP):
        v += cuda.shfl_down_sync(FULL_MASK, v, offs[k])
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = sums[lane] if lane < WARPS else float32(0.0)
        k = 0
        while k < LOG_WARP:
            v += cuda.shfl_down_sync(FULL_MASK, v, offs[k])
            k += 1
        else:
            if lane == 0:
                partial[cuda.blockIdx.x] = v
""",
    ),
    "hoc_wr_assert_raise_lambda_closure": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        kernel="""
from numba import njit


@njit
def halve(k):
    return k // 2


@cuda.jit
def block_sum_warp(x, partial):
    assert TPB % 32 == 0
    if partial.size * TPB < x.size:
        raise ValueError("partial too short")
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = divmod(t, 32)[1], divmod(t, 32)[0]
    i = cuda.grid(1)

    def reduce(val):
        off = 16
        while off > 0:
            val += cuda.shfl_down_sync(FULL_MASK, val, off)
            off = halve(off)
        return val

    pick = lambda ok, a: a if ok else float32(0.0)
    v = reduce(pick(i < x.size, x[min(i, x.size - 1)]))
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = reduce(pick(lane < WARPS, sums[min(lane, WARPS - 1)]))
        if not lane:
            partial[cuda.blockIdx.x] = w
""",
    ),
    "hoc_wr_local_array_shfl_idx_broadcast": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        kernel="""
from numba import int32


@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    offs = cuda.local.array(5, int32)
    for k in range(5):
        offs[k] = 16 >> k
    t = cuda.threadIdx.x
    lane, warp = t & 31, t >> 5
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for k in range(5):
        v += cuda.shfl_down_sync(FULL_MASK, v, offs[k])
    v = cuda.shfl_sync(FULL_MASK, v, warp * 0)  # every lane takes lane 0's sum
    if lane == warp:  # a different lane per warp writes the same sum
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = sums[lane % WARPS] * float32(lane < WARPS)
        for k in range(5):
            w += cuda.shfl_down_sync(FULL_MASK, w, offs[k])
        if lane == 0:
            partial[cuda.blockIdx.x] = w
""",
    ),
    # -- warp reduce: wrong ----------------------------------------------------------------------
    "hoc_wr_shfl_up_wrong_end": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
    if lane == 31:  # the sum is in lane 0: lane 31 holds only its own value
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = sums[lane] if lane < WARPS else float32(0.0)
        for off in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(FULL_MASK, v, off)
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "hoc_wr_activemask_after_early_return": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["public", "hidden"],
        passes=[],
        reason="operand of atomic add",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    if lane == 0:
        sums[warp] = float32(0.0)
    cuda.syncthreads()
    if i < x.size:
        v = x[i]
        mask = cuda.activemask()
        for off in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(mask, v, off)  # tail lanes read lanes that left
        if lane == 0:
            cuda.atomic.add(partial, cuda.blockIdx.x, v)
""",
    ),
    "hoc_wr_match_any_groups": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    positive = int32(v > 0)
    group = cuda.match_any_sync(FULL_MASK, positive)  # lanes of the same sign
    # adds only within the lane's group, then keeps one group's sum: half the warp is lost
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(FULL_MASK, v, off) * float32((group >> ((lane ^ off) & 31)) & 1)
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = sums[lane] if lane < WARPS else float32(0.0)
        for off in (16, 8, 4, 2, 1):
            w += cuda.shfl_down_sync(FULL_MASK, w, off)
        if lane == 0:
            partial[cuda.blockIdx.x] = w
""",
        extra_cells=["from numba import int32"],
    ),
    # -- softmax: correct, unusual style ---------------------------------------------------------
    "hoc_sm_row_max_ternary_inf_literal": dict(
        exercise="11_softmax",
        part="row_max",
        full=True,
        kernel="""
@cuda.jit
def row_max(x, m):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    best = -math.inf
    c = t
    while (c := c) < x.shape[1]:
        best = x[r, c] if x[r, c] > best else best
        c += TPB
    buf[t] = best
    cuda.syncthreads()
    half = TPB >> 1
    while half:
        if t < half and buf[t + half] > buf[t]:
            buf[t] = buf[t + half]
        cuda.syncthreads()
        half >>= 1
    if t == 0:
        m[r] = buf[0]
""",
    ),
    "hoc_sm_row_max_warp_shuffles": dict(
        exercise="11_softmax",
        part="row_max",
        full=True,
        kernel="""
@cuda.jit
def row_max(x, m):
    wmax = cuda.shared.array(4, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    lane = cuda.laneid
    v = float32(-np.inf)
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    for off in (16, 8, 4, 2, 1):
        v = max(v, cuda.shfl_xor_sync(0xFFFFFFFF, v, off))
    if lane == 0:
        wmax[t // 32] = v
    cuda.syncthreads()
    if t == 0:
        m[r] = max(max(wmax[0], wmax[1]), max(wmax[2], wmax[3]))
""",
    ),
    "hoc_sm_exp_sum_float64_exp2": dict(
        exercise="11_softmax",
        part="exp_sum",
        full=True,
        kernel="""
LOG2E = 1.0 / math.log(2.0)


@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    acc = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        v = float32(2.0 ** ((x[r, c] - m[r]) * LOG2E))  # exp(d) = 2 ** (d * log2(e))
        e[r, c] = v
        acc += v
    buf[t] = acc
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            buf[t] += buf[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        s[r] = buf[0]
""",
    ),
    "hoc_sm_normalize_grid3_chained": dict(
        exercise="11_softmax",
        part="normalize",
        full=True,
        kernel="""
@cuda.jit
def normalize(e, s, out):
    col, row, depth = cuda.grid(3)
    rows, cols = out.shape
    if 0 <= row < rows and 0 <= col < cols and depth == 0:
        out[row, col] = e[row, col] * (1 / s[row])
""",
    ),
    "hoc_sm_fused_warp_online": dict(
        exercise="11_softmax",
        part="softmax_fused",
        full=True,
        kernel="""
@cuda.jit(device=True)
def merge(m1, s1, m2, s2):
    # (max, sum of exp(x - max)) of two halves; a half that saw nothing has m = -inf
    if m2 == -math.inf:
        return m1, s1
    if m1 == -math.inf:
        return m2, s2
    mm = max(m1, m2)
    return mm, s1 * math.exp(m1 - mm) + s2 * math.exp(m2 - mm)


@cuda.jit
def softmax_fused(x, out):
    wm = cuda.shared.array(4, float32)
    ws = cuda.shared.array(4, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    m, total = float32(-math.inf), float32(0.0)
    for c in range(t, x.shape[1], TPB):
        m, total = merge(m, total, x[r, c], float32(1.0))
    for off in (16, 8, 4, 2, 1):
        om = cuda.shfl_xor_sync(0xFFFFFFFF, m, off)
        os_ = cuda.shfl_xor_sync(0xFFFFFFFF, total, off)
        m, total = merge(m, total, om, os_)
    if lane == 0:
        wm[warp], ws[warp] = m, total
    cuda.syncthreads()
    m, total = wm[0], ws[0]
    for w in range(1, 4):
        m, total = merge(m, total, wm[w], ws[w])
    inv = float32(1.0) / total
    for c in range(t, x.shape[1], TPB):
        out[r, c] = math.exp(x[r, c] - m) * inv
""",
    ),
    # -- softmax: wrong ------------------------------------------------------------------------
    "hoc_sm_exp_sum_split_exp_overflow": dict(
        exercise="11_softmax",
        part="exp_sum",
        fail=["public", "hidden"],
        passes=[],
        reason="inf or nan",
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    scale = math.exp(-m[r])  # exp(a - b) = exp(a) * exp(-b): each factor overflows float32
    acc = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        v = math.exp(x[r, c]) * scale
        e[r, c] = v
        acc += v
    buf[t] = acc
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            buf[t] += buf[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        s[r] = buf[0]
""",
    ),
    "hoc_sm_row_max_atomic_from_zero": dict(
        exercise="11_softmax",
        part="row_max",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def row_max(x, m):
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    for c in range(t, x.shape[1], TPB):
        cuda.atomic.max(m, r, x[r, c])  # m starts at 0.0: rows of negatives give 0
""",
    ),
    "hoc_sm_fused_float16_exp": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
from numba.core.types import float16


@cuda.jit
def softmax_fused(x, out):
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    for c in range(t, cols, TPB):
        m = max(m, x[r, c])
    s_max[t] = m
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s_max[t] = max(s_max[t], s_max[t + stride])
        cuda.syncthreads()
        stride //= 2
    m = s_max[0]
    total = float32(0.0)
    for c in range(t, cols, TPB):
        total += math.exp(float32(float16(x[r, c] - m)))  # the difference rounded to 11 bits
    s_sum[t] = total
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s_sum[t] += s_sum[t + stride]
        cuda.syncthreads()
        stride //= 2
    total = s_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(float32(float16(x[r, c] - m))) / total
""",
    ),
    # -- 01-05: correct, unusual style -------------------------------------------------------
    "hoc_mul_int32_index_inline_lambda": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        kernel="""
from numba import int32


@cuda.jit
def multiply(a, b, out):
    i = int32(cuda.blockIdx.x) * int32(cuda.blockDim.x) + int32(cuda.threadIdx.x)
    times = lambda p, q: p * q
    if i < out.size:
        out[i] = times(a[i], b[i])
""",
    ),
    "hoc_saxpy_grid_stride_for_else": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    start, step = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, out.size, step):
        out[i] = cuda.libdevice.fmaf(alpha, x[i], y[i])
    else:
        pass
""",
    ),
    "hoc_conv1d_python_modulo_wraps": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = float32(0.0)
        for j in range(w.size):
            src = (i + r - j) % x.size  # Python's %: -1 becomes n - 1, a circular filter
            acc += w[j] * x[src]
        out[i] = acc
""",
    ),
    "hoc_conv1d_floor_div_guard": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    r = w.size // 2
    acc = float32(0.0)
    for j in range(w.size):
        src = i + r - j
        # floor division: 0 for 0 <= src < n, -1 below, 1 or more above
        if src // x.size == 0:
            acc += w[j] * x[src]
    out[i] = acc
""",
    ),
    "hoc_matmul_tiled_while_else_local_acc": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        full=True,
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    acc = cuda.local.array(1, float32)
    acc[0] = 0.0
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    (m, kk), n = A.shape, B.shape[1]
    t = 0
    while t * TILE < kk:
        a_col, b_row = t * TILE + tx, t * TILE + ty
        sA[ty, tx] = A[row, a_col] if row < m and a_col < kk else 0
        sB[ty, tx] = B[b_row, col] if b_row < kk and col < n else 0
        cuda.syncthreads()
        for j in range(TILE):
            acc[0] += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
        t += 1
    else:
        if row < m and col < n:
            C[row, col] = acc[0]
""",
    ),
    "hoc_blur2d_clamp_ternaries": dict(
        exercise="04_conv2d",
        part="blur2d",
        full=True,
        kernel="""
@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    if not (row < h and col < wd):
        return
    r = w.shape[0] // 2
    acc = float32(0.0)
    for dy in range(-r, r + 1):
        y = row + dy
        y = 0 if y < 0 else (h - 1 if y >= h else y)
        for dx in range(-r, r + 1):
            x = col + dx
            x = 0 if x < 0 else h - 1 + (wd - h) if x >= wd else x
            acc += w[dy + r, dx + r] * img[y, x]
    out[row, col] = acc
""",
    ),
    "hoc_block_sum_unrolled_warp_syncwarp": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 32:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t < 32:  # the last warp: ordered by syncwarp, no block barrier
        while stride > 0:
            if t < stride:
                s[t] += s[t + stride]
            cuda.syncwarp()
            stride //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "hoc_block_sum_unrolled_warp_no_syncwarp": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["sync"],
        passes=[],
        reason="data races",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 32:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t < 32:  # "a warp runs in lockstep": not since Volta, without syncwarp it races
        s[t] += s[t + 32]
        s[t] += s[t + 16]
        s[t] += s[t + 8]
        s[t] += s[t + 4]
        s[t] += s[t + 2]
        s[t] += s[t + 1]
        if t == 0:
            partial[cuda.blockIdx.x] = s[0]
""",
    ),
}

CASES.update(
    {
        # -- batch 2 ---------------------------------------------------------------------------
        "hoc_gaming_wr_shared_atomic_block_sum": dict(
            exercise="10_warp_reduce",
            part="block_sum_warp",
            fail=["registers"],
            passes=["public", "hidden", "sync", "masks"],
            reason="atomic operations, at most 4 expected",
            gaming="atomics per address",
            kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    total = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t == 0:
        total[0] = float32(0.0)
    cuda.syncthreads()
    if i < x.size:
        cuda.atomic.add(total, 0, x[i])  # 128 atomics on one shared word: no warp stage
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = total[0]
""",
        ),
        "hoc_gaming_wr_tree_with_syncthreads_count": dict(
            exercise="10_warp_reduce",
            part="block_sum_warp",
            fail=["barriers", "registers"],
            passes=["public", "hidden", "sync"],
            reason="barriers",
            kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads_count(1)  # a barrier by another name
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads_or(0)
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
        ),
        "hoc_wr_syncwarp_partial_mask_branch": dict(
            exercise="10_warp_reduce",
            part="block_sum_warp",
            full=True,
            kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if t < WARPS:  # only lanes 0..3 of warp 0 take part: the mask says so
        low = (1 << WARPS) - 1
        cuda.syncwarp(low)
        w = sums[t]
        for off in (2, 1):
            w += cuda.shfl_xor_sync(low, w, off)
        if t == 0:
            partial[cuda.blockIdx.x] = w
""",
        ),
        "hoc_sm_row_max_shared_atomic_max": dict(
            exercise="11_softmax",
            part="row_max",
            full=True,
            kernel="""
@cuda.jit
def row_max(x, m):
    best = cuda.shared.array(1, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    if t == 0:
        best[0] = -np.inf
    cuda.syncthreads()
    v = float32(-np.inf)
    for c in range(t, x.shape[1], TPB):
        v = np.maximum(v, x[r, c])
    cuda.atomic.max(best, 0, v)
    cuda.syncthreads()
    if t == 0:
        m[r] = best[0]
""",
        ),
        "hoc_sm_exp_sum_fast_expf": dict(
            exercise="11_softmax",
            part="exp_sum",
            full=True,
            kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    acc = float32(0.0)
    c = t
    while c < x.shape[1]:
        d = x[r, c] - m[r]
        v = cuda.libdevice.fast_expf(d) if c % 2 == 0 else math.exp(d)
        e[r, c] = v
        acc += v
        c += TPB
    buf[t] = acc
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            buf[t] += buf[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        s[r] = buf[0]
""",
        ),
        "hoc_sm_fused_no_max_expm1": dict(
            exercise="11_softmax",
            part="softmax_fused",
            fail=["public", "hidden"],
            passes=[],
            reason="inf or nan",
            kernel="""
@cuda.jit
def softmax_fused(x, out):
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    total = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        total += math.expm1(x[r, c]) + float32(1.0)  # exp without the max, by another name
    s_sum[t] = total
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s_sum[t] += s_sum[t + stride]
        cuda.syncthreads()
        stride //= 2
    for c in range(t, x.shape[1], TPB):
        out[r, c] = (math.expm1(x[r, c]) + float32(1.0)) / s_sum[0]
""",
        ),
        "hoc_sm_normalize_int_row_division": dict(
            exercise="11_softmax",
            part="normalize",
            fail=["public", "hidden"],
            passes=[],
            reason="differs at",
            kernel="""
@cuda.jit
def normalize(e, s, out):
    col, row = cuda.grid(2)
    if row < out.shape[0] and col < out.shape[1]:
        out[row, col] = e[row, col] // s[row]  # floor division of floats: 0.0 for p < 1
""",
        ),
        "hoc_saxpy_prange_refused": dict(
            exercise="01_elementwise",
            part="saxpy",
            fail=["public", "hidden"],
            passes=[],
            reason="Unknown attribute 'prange'",
            kernel="""
import numba


@cuda.jit
def saxpy(alpha, x, y, out):
    for i in numba.prange(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = 2.0 * alpha * x[i] / 2 + y[i]  # float64 in between, rounded once at the store
""",
        ),
        "hoc_block_sum_syncthreads_and_barrier": dict(
            exercise="05_reduction",
            part="block_sum",
            full=True,
            kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    stride = TPB
    while cuda.syncthreads_and(1 if stride > 1 else 0):  # the barrier and the loop test
        stride >>= 1
        if t < stride:
            s[t] += s[t + stride]
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
        ),
        "hoc_matmul_naive_grid_stride_2d": dict(
            exercise="03_matmul",
            part="matmul_naive",
            full=True,
            kernel="""
@cuda.jit
def matmul_naive(A, B, C):
    x0, y0 = cuda.grid(2)
    sx, sy = cuda.gridsize(2)
    m, n = C.shape
    for row in range(y0, m, sy):
        for col in range(x0, n, sx):
            acc = float32(0)
            k = 0
            while k < A.shape[1]:
                acc = cuda.fma(A[row, k], B[k, col], acc)
                k += 1
            C[row, col] = acc
""",
        ),
        "hoc_matmul_naive_swapped_grid_axes": dict(
            exercise="03_matmul",
            part="matmul_naive",
            fail=["public", "hidden"],
            passes=[],
            reason="",
            kernel="""
@cuda.jit
def matmul_naive(A, B, C):
    row, col = cuda.grid(2)  # x is the column: rows past C's height are skipped
    if row < C.shape[0] and col < C.shape[1]:
        acc = float32(0.0)
        for k in range(A.shape[1]):
            acc += A[row, k] * B[k, col]
        C[row, col] = acc
""",
        ),
        "hoc_blur2d_tiled_3d_index_local_weights": dict(
            exercise="04_conv2d",
            part="blur2d_tiled",
            full=True,
            kernel="""
K = 2 * R + 1  # the filter's width, a constant numba can size a local array with


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    wl = cuda.local.array((K, K), float32)
    tx, ty, tz = cuda.threadIdx.x, cuda.threadIdx.y, cuda.threadIdx.z
    h, wd = img.shape
    col0, row0 = cuda.blockIdx.x * TILE - R, cuda.blockIdx.y * TILE - R
    ly = ty
    while ly < HALO:
        lx = tx
        while lx < HALO:
            y, x = row0 + ly, col0 + lx
            tile[ly, lx] = img[min(max(y, 0), h - 1), min(max(x, 0), wd - 1)]
            lx += TILE
        ly += TILE
    for dy in range(K):
        for dx in range(K):
            wl[dy, dx] = w[dy, dx]
    cuda.syncthreads()
    row, col = row0 + R + ty + tz, col0 + R + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(K):
            for dx in range(K):
                acc += wl[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
""",
        ),
    }
)

CASES.update(
    {
        # -- batch 3 ---------------------------------------------------------------------------
        "hoc_sm_fused_finfo_min_start": dict(
            exercise="11_softmax",
            part="softmax_fused",
            full=True,
            kernel="""
LOWEST = np.finfo(np.float32).min  # a finite start: no inf - inf anywhere


@cuda.jit
def softmax_fused(x, out):
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(LOWEST)
    total = float32(0.0)
    for c in range(t, cols, TPB):
        v = x[r, c]
        new = max(m, v)
        total = total * math.exp(m - new) + math.exp(v - new)
        m = new
    s_max[t] = m
    s_sum[t] = total
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m1, m2 = s_max[t], s_max[t + stride]
            mm = max(m1, m2)
            s_sum[t] = s_sum[t] * math.exp(m1 - mm) + s_sum[t + stride] * math.exp(m2 - mm)
            s_max[t] = mm
        cuda.syncthreads()
        stride //= 2
    m, total = s_max[0], s_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) / total
""",
        ),
        "hoc_wr_float64_register_lanemask": dict(
            exercise="10_warp_reduce",
            part="block_sum_warp",
            full=True,
            kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    warp = t // 32
    i = cuda.grid(1)
    v = 0.0  # a float64 register: shuffled as two 32-bit halves
    if i < x.size:
        v += x[i]
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
    if cuda.lanemask_lt() == 0:  # no lane below this one: lane 0
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        lane = t
        w = 0.0
        if lane < WARPS:
            w = sums[lane]
        for off in (16, 8, 4, 2, 1):
            w += cuda.shfl_down_sync(FULL_MASK, w, off)
        if lane == 0:
            partial[cuda.blockIdx.x] = w
""",
        ),
        "hoc_wr_match_all_uniform_warp": dict(
            exercise="10_warp_reduce",
            part="block_sum_warp",
            full=True,
            kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    full_warp, same = cuda.match_all_sync(FULL_MASK, int32(i < x.size))
    if same and v == v:  # every lane inside (or outside): nothing to pad
        pass
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
    if lane == cuda.ffs(full_warp | 1) - 1:  # lane 0, written the long way
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = sums[lane] if lane < WARPS else float32(0.0)
        for off in (16, 8, 4, 2, 1):
            w += cuda.shfl_down_sync(FULL_MASK, w, off)
        if lane == 0:
            partial[cuda.blockIdx.x] = w
""",
            extra_cells=["from numba import int32"],
        ),
        "hoc_wr_second_stage_rising_offsets": dict(
            exercise="10_warp_reduce",
            part="block_sum_warp",
            full=True,
            kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = sums[lane] if lane < WARPS else float32(0.0)
        for off in (1, 2, 4, 8, 16):  # pairs, then fours...: lane 0 still gets all 32
            w += cuda.shfl_down_sync(FULL_MASK, w, off)
        if lane == 0:
            partial[cuda.blockIdx.x] = w
""",
        ),
        "hoc_wr_shfl_xor_half_warp_mask": dict(
            exercise="10_warp_reduce",
            part="block_sum_warp",
            fail=["public", "hidden"],
            passes=[],
            reason="not in its mask",
            kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    half = 0x0000FFFF if lane < 16 else 0xFFFF0000  # each half its own mask...
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(half, v, off)  # ...but offset 16 crosses the halves
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = sums[lane] if lane < WARPS else float32(0.0)
        for off in (16, 8, 4, 2, 1):
            w += cuda.shfl_down_sync(FULL_MASK, w, off)
        if lane == 0:
            partial[cuda.blockIdx.x] = w
""",
        ),
        "hoc_saxpy_float64_between": dict(
            exercise="01_elementwise",
            part="saxpy",
            full=True,
            kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = 2.0 * alpha * x[i] / 2 + y[i]  # float64 in between, rounded once at the store
""",
        ),
        "hoc_block_sum_int_accumulator": dict(
            exercise="05_reduction",
            part="block_sum",
            fail=["public", "hidden"],
            passes=[],
            reason="differs at",
            kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = 0
    if i < x.size:
        v = int(x[i] * 1000)  # fixed point: the sign of truncation loses up to 1e-3 each
    s[t] = v / 1000
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
        ),
    }
)

CASES.update(
    {
        # -- batch 4: decorators, imports and aliases ---------------------------------------------
        "hoc_wr_eager_signature_aliased_imports": dict(
            exercise="10_warp_reduce",
            part="block_sum_warp",
            full=True,
            kernel="""
import numba.cuda as nc
from numba.cuda import shfl_down_sync as down


@nc.jit("void(float32[:], float32[:])")
def block_sum_warp(x, partial):
    sums = nc.shared.array(shape=WARPS, dtype=np.float32)
    tid = nc.threadIdx
    lane, warp = tid.x % 32, tid.x // 32
    i = nc.grid(1)
    v = x[i] if i < x.size else np.float32(0)
    for off in OFFS:
        v += down(FULL_MASK, v, off)
    if lane == 0:
        sums[warp] = v
    nc.syncthreads()
    if warp == 0:
        v = sums[lane] if lane < WARPS else np.float32(0)
        for off in OFFS:
            v += down(FULL_MASK, v, off)
        if lane == 0:
            partial[nc.blockIdx.x] = v
""",
            extra_cells=["OFFS = (16, 8, 4, 2, 1)"],
        ),
        "hoc_wr_inline_device_closure_over_array": dict(
            exercise="10_warp_reduce",
            part="block_sum_warp",
            full=True,
            kernel="""
@cuda.jit(device=True, inline=True)
def warp_total(v):
    off = 16
    while True:
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
        if off == 1:
            break
        off >>= 1
    return v


@cuda.jit(opt=True)
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, np.float32)
    t = cuda.threadIdx.x

    def element(k):  # reads x, which it closes over
        return x[k] if k < x.size else float32(0.0)

    v = warp_total(element(cuda.grid(1)))
    if t % 32 == 0:
        sums[t // 32] = v
    cuda.syncthreads()
    if t < 32:
        v = warp_total(sums[t] if t < WARPS else float32(0.0))
        if t == 0:
            partial[cuda.blockIdx.x] = v
""",
        ),
        "hoc_sm_fused_fastmath_two_pass": dict(
            exercise="11_softmax",
            part="softmax_fused",
            full=True,
            kernel="""
@cuda.jit(fastmath=True)
def softmax_fused(x, out):
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    total = float32(0.0)
    for c in range(t, cols, TPB):
        v = x[r, c]
        if v > m:
            total = total * math.exp(m - v) + float32(1.0)
            m = v
        else:
            total += math.exp(v - m)
    s_max[t], s_sum[t] = m, total
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m1, m2 = s_max[t], s_max[t + stride]
            hi = m1 if m1 >= m2 else m2
            s1 = s_sum[t] * math.exp(m1 - hi) if m1 > -math.inf else float32(0.0)
            s2 = s_sum[t + stride] * math.exp(m2 - hi) if m2 > -math.inf else float32(0.0)
            s_max[t], s_sum[t] = hi, s1 + s2
        cuda.syncthreads()
        stride //= 2
    m, inv = s_max[0], float32(1.0) / s_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) * inv
""",
        ),
        "hoc_block_sum_while_true_break": dict(
            exercise="05_reduction",
            part="block_sum",
            full=True,
            kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(shape=(TPB,), dtype=np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    stride = TPB
    while True:
        stride //= 2
        if stride == 0:
            break
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
        ),
        "hoc_block_sum_break_skips_barrier": dict(
            exercise="05_reduction",
            part="block_sum",
            fail=["sync"],
            passes=[],
            reason="barrier",
            kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t >= stride:
            break  # idle threads leave the loop, and its barriers, early
        s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
        ),
        "hoc_conv1d_shared_halo_ternary": dict(
            exercise="02_conv1d",
            part="conv1d",
            full=True,
            kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    r = w.size // 2
    acc = float32(0.0)
    for j in range(w.size):
        src = i + r - j
        acc += w[j] * (x[src] if 0 <= src < x.size else float32(0.0))
    out[i] = acc
""",
        ),
    }
)

CASES.update(
    {
        # -- batch 5: barriers in uniform branches, layout and index arithmetic -------------------
        "hoc_block_sum_barrier_in_block_uniform_branch": dict(
            exercise="05_reduction",
            part="block_sum",
            full=True,
            kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    s[t] = x[i] if i < x.size else float32(0.0)
    last = (b + 1) * TPB > x.size  # the same answer in every thread of a block
    if last:
        cuda.syncthreads()
    else:
        cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[b] = s[0]
""",
        ),
        "hoc_matmul_tiled_transposed_tile_of_b": dict(
            exercise="03_matmul",
            part="matmul_tiled",
            full=True,
            kernel="""
TILE_PAD = TILE + 1  # a shared array's shape must be a constant, computed out here


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sBt = cuda.shared.array((TILE, TILE_PAD), float32)  # B's tile stored transposed, padded
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    m, kk = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t0 in range(0, kk, TILE):
        sA[ty, tx] = A[row, t0 + tx] if row < m and t0 + tx < kk else float32(0.0)
        sBt[tx, ty] = B[t0 + ty, col] if t0 + ty < kk and col < n else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sBt[tx, j]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
        ),
        "hoc_blur2d_negative_modulo_wrap": dict(
            exercise="04_conv2d",
            part="blur2d",
            fail=["public", "hidden"],
            passes=[],
            reason="differs at",
            kernel="""
@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    if row < h and col < wd:
        r = w.shape[0] // 2
        acc = float32(0.0)
        for dy in range(w.shape[0]):
            for dx in range(w.shape[1]):
                y = (row + dy - r) % h  # wraps around the image, not the replicated edge
                x = (col + dx - r) % wd
                acc += w[dy, dx] * img[y, x]
        out[row, col] = acc
""",
        ),
        "hoc_sm_exp_sum_int_division_cols": dict(
            exercise="11_softmax",
            part="exp_sum",
            fail=["public", "hidden"],
            passes=[],
            reason="differs at",
            kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    per = cols // TPB  # each thread takes a contiguous run: the remainder is forgotten
    acc = float32(0.0)
    for c in range(t * per, (t + 1) * per):
        v = math.exp(x[r, c] - m[r])
        e[r, c] = v
        acc += v
    buf[t] = acc
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            buf[t] += buf[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        s[r] = buf[0]
""",
        ),
    }
)

"""Held-out submissions, set C, for exercises 01-05, 10 and 11 (built by build.py).

Correct kernels in syntax numba-cuda compiles but a grader may not expect (masks from
ballot_sync and activemask, shfl_sync sources past lane 31, constant memory, assert, raise,
lambda, closures, eager signatures), which must earn full marks; wrong kernels whose GPU
numerics (float32 and float16, Python's % on negative indices) or warp behaviour (a mask that
leaves out the lane read, a warp stage without syncwarp) give a wrong or undefined answer; and
attempts to pass the warp exercise without shuffles.
"""

from __future__ import annotations

CASES = {
    # -- found a misgrade (fixed in pdc.sim / pdc.grade) --------------------------------------
    # Misgraded before: full marks, though an undefined value (a shuffle from a lane that
    # left) reached partial through an atomic.
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
    # Misgraded before: refused, for a global np.array of literal offsets (constant memory).
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
    # Misgraded before: refused, for np.finfo(np.float32).min as the starting max.
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
    # Misgraded before: refused, for sync = cuda.syncthreads (a second name for a barrier).
    "hoc_sm_fused_aliased_sync_isinf": dict(
        exercise="11_softmax",
        part="softmax_fused",
        full=True,
        kernel="""
NEG_INF = -np.inf
sync = cuda.syncthreads


@cuda.jit
def softmax_fused(x, out):
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = len(x[r])
    m = float32(NEG_INF)
    total = float32(0.0)
    for c in range(t, cols, TPB):
        v = x[r, c]
        if v > m:
            total = total * math.exp(m - v) + float32(1.0)
            m = v
        else:
            total += math.exp(v - m)
    s_max[t] = m
    s_sum[t] = total
    sync()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m1, m2 = s_max[t], s_max[t + stride]
            if math.isinf(m2):  # a partner that saw no value
                pass
            elif math.isinf(m1):
                s_max[t], s_sum[t] = m2, s_sum[t + stride]
            elif m2 > m1:
                s_sum[t] = s_sum[t] * math.exp(m1 - m2) + s_sum[t + stride]
                s_max[t] = m2
            else:
                s_sum[t] += s_sum[t + stride] * math.exp(m2 - m1)
        cuda.threadfence_block()
        sync()
        stride //= 2
    m = s_max[0]
    total = s_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) / total
""",
    ),
    # -- correct, unusual style: full marks -----------------------------------------------------
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
    "hoc_wr_eager_signature_aliased_imports": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        extra_cells=["OFFS = (16, 8, 4, 2, 1)"],
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
    # -- wrong: the criterion a GPU exposes fails ------------------------------------------------
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
    # -- gaming: the measure fooled, the criterion lost ------------------------------------------
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
}

"""Fresh submissions on float32 maths and warp code in the reduction and softmax kernels,
built by build.py: the plain style of exp_sum (m[r] and x[r, c] loaded at each use, e read
back, the exp taken twice), shuffle offsets from a constant-memory table, an online softmax
whose empty threads meet as -inf - -inf = nan, a half warp whose other lanes exited while the
full mask still names them, a shuffle offset of 32 (past the warp: each lane gets its own
value), a float64 butterfly of (max, sum) pairs, and one lane per warp walking the row.

The first three were misgraded before: a thread that does its share of a 4097-column row in
the plain style lost "parallel" (the work bound counted the fewest accesses per column, not
the share), and ``np.array([...], np.int32)``, the dtype given by position, was refused as a
constant only a run computes (tests/test_grade_globals.py).
"""

from __future__ import annotations

ALL = ["public", "hidden"]

_ES_TREE = """
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
"""

CASES = {
    "hol_exp_sum_reads_m_and_e_in_loop": dict(
        exercise="11_softmax",
        part="exp_sum",
        full=True,
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    acc = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        e[r, c] = math.exp(x[r, c] - m[r])  # m[r] loaded at every column
        acc += e[r, c]  # and e read back from global memory
"""
        + _ES_TREE,
    ),
    "hol_exp_sum_exp_twice": dict(
        exercise="11_softmax",
        part="exp_sum",
        full=True,
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    acc = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        e[r, c] = math.exp(x[r, c] - m[r])
        acc += math.exp(x[r, c] - m[r])  # the same exp again: x and m loaded twice
"""
        + _ES_TREE,
    ),
    "hol_row_max_const_offsets_shfl_broadcast": dict(
        exercise="11_softmax",
        part="row_max",
        full=True,
        extra_cells=["import numpy as np\n\nOFFS = np.array([16, 8, 4, 2, 1], np.int32)"],
        kernel="""
@cuda.jit
def row_max(x, m):
    offs = cuda.const.array_like(OFFS)
    wmax = cuda.shared.array(4, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    lane, warp = cuda.laneid, t // cuda.warpsize
    v = float32(-math.inf)
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    for k in range(5):
        v = max(v, cuda.shfl_down_sync(0xFFFFFFFF, v, offs[k]))
    v = cuda.shfl_sync(0xFFFFFFFF, v, 0)  # every lane holds its warp's max
    if lane == warp:
        wmax[warp] = v
    cuda.syncthreads()
    if t == 0:
        m[r] = max(wmax[0], wmax[1], wmax[2], wmax[3])
""",
    ),
    "hol_gaming_fused_lane_per_warp_row": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["parallel"],
        passes=["public", "hidden", "memory"],
        reason="one thread made",
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    s_max = cuda.shared.array(4, float32)
    s_sum = cuda.shared.array(4, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    cols = x.shape[1]
    if lane == 0:  # one lane per warp walks a quarter of the row
        m = float32(-math.inf)
        total = float32(0.0)
        for c in range(warp, cols, 4):
            v = x[r, c]
            if v > m:
                total = total * math.exp(m - v) + float32(1.0)
                m = v
            else:
                total += math.exp(v - m)
        s_max[warp] = m
        s_sum[warp] = total
    cuda.syncthreads()
    gm = max(max(s_max[0], s_max[1]), max(s_max[2], s_max[3]))
    gs = float32(0.0)
    for w in range(4):
        if s_max[w] > -math.inf:
            gs += s_sum[w] * math.exp(s_max[w] - gm)
    if lane == 0:
        for c in range(warp, cols, 4):
            out[r, c] = math.exp(x[r, c] - gm) / gs
""",
    ),
    "hol_fused_online_tree_no_empty_guard": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=ALL,
        passes=[],
        reason="nan",
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    total = float32(0.0)
    for c in range(t, cols, TPB):
        v = x[r, c]
        nm = max(m, v)
        total = total * math.exp(m - nm) + math.exp(v - nm)
        m = nm
    s_max[t] = m
    s_sum[t] = total
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m1, m2 = s_max[t], s_max[t + stride]
            nm = max(m1, m2)  # two empty threads: -inf - -inf is nan
            s_sum[t] = s_sum[t] * math.exp(m1 - nm) + s_sum[t + stride] * math.exp(m2 - nm)
            s_max[t] = nm
        cuda.syncthreads()
        stride //= 2
    m = s_max[0]
    total = s_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) / total
""",
    ),
    "hol_row_max_half_warp_then_exit_full_mask": dict(
        exercise="11_softmax",
        part="row_max",
        full=True,
        kernel="""
@cuda.jit
def row_max(x, m):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    v = float32(-math.inf)
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    buf[t] = v
    cuda.syncthreads()
    stride = TPB // 2
    while stride >= 32:
        if t < stride:
            buf[t] = max(buf[t], buf[t + stride])
        cuda.syncthreads()
        stride //= 2
    if t >= 16:
        return  # lanes 16..31 of warp 0 exit: the full mask may still name them
    v = max(buf[t], buf[t + 16])
    for k in (8, 4, 2, 1):  # lane 0 reads only lanes 0..15, which are all here
        v = max(v, cuda.shfl_down_sync(0xFFFFFFFF, v, k))
    if t == 0:
        m[r] = v
""",
    ),
    "hol_warp_reduce_offset_from_32": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=ALL,
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
    offset = 32  # lane + 32 is past the warp: every lane gets its own value, doubled
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = sums[lane] if lane < WARPS else float32(0.0)
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "hol_fused_warp_online_xor_float64": dict(
        extra_cells=["from numba import float64, int64"],
        exercise="11_softmax",
        part="softmax_fused",
        full=True,
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    wm = cuda.shared.array(4, float64)
    ws = cuda.shared.array(4, float64)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    cols = x.shape[1]
    m = -1.0e300
    total = 0.0
    for c in range(t, cols, TPB):
        v = x[r, c] - 0.0  # float64 from here on
        if v > m:
            total = total * math.exp(m - v) + 1.0
            m = v
        else:
            total += math.exp(v - m)
    for k in (16, 8, 4, 2, 1):
        m2 = cuda.shfl_xor_sync(0xFFFFFFFF, m, k)
        s2 = cuda.shfl_xor_sync(0xFFFFFFFF, total, k)
        nm = max(m, m2)
        total = total * math.exp(m - nm) + s2 * math.exp(m2 - nm)
        m = nm
    if lane == 0:
        wm[warp] = m
        ws[warp] = total
    cuda.syncthreads()
    gm = max(max(wm[0], wm[1]), max(wm[2], wm[3]))
    gs = 0.0
    for w in range(4):
        gs += ws[w] * math.exp(wm[w] - gm)
    inv = 1.0 / gs
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - gm) * inv
""",
    ),
}

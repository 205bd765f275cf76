"""Fresh submissions on float32 maths and warp code in the reduction and softmax kernels."""

from __future__ import annotations

ALL = ["public", "hidden"]

_RM_TREE = """
    buf[t] = v
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            buf[t] = max(buf[t], buf[t + stride])
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        m[r] = buf[0]
"""

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
    "hol_row_max_float64_literal_floor": dict(
        exercise="11_softmax",
        part="row_max",
        full=True,
        kernel="""
@cuda.jit
def row_max(x, m):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    v = -3.4e38  # a float64 "minus infinity": max() keeps v a float64
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
"""
        + _RM_TREE,
    ),
    "hol_row_max_float_str_inf": dict(
        exercise="11_softmax",
        part="row_max",
        full=True,
        kernel="""
@cuda.jit
def row_max(x, m):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    v = float("-inf")
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
"""
        + _RM_TREE,
    ),
    "hol_row_max_np_float32_inf_np_fmax": dict(
        exercise="11_softmax",
        part="row_max",
        full=True,
        kernel="""
@cuda.jit
def row_max(x, m):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    v = np.float32(-np.inf)
    for c in range(t, x.shape[1], TPB):
        v = np.fmax(v, x[r, c])
    buf[t] = v
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            a, b = buf[t], buf[t + stride]
            buf[t] = a if a > b else b
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        m[r] = buf[0]
""",
    ),
    "hol_row_max_global_atomic_max_seeded": dict(
        exercise="11_softmax",
        part="row_max",
        full=True,
        kernel="""
@cuda.jit
def row_max(x, m):
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    if t == 0:
        m[r] = x[r, 0]  # seed with a value of the row, not 0
    cuda.syncthreads()
    v = x[r, 0]
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    cuda.atomic.max(m, r, v)
""",
    ),
    "hol_row_max_global_atomic_max_unseeded": dict(
        exercise="11_softmax",
        part="row_max",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def row_max(x, m):
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    v = float32(-math.inf)
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    cuda.atomic.max(m, r, v)  # m starts at 0: a row of negatives gives 0
""",
    ),
    "hol_row_max_warp_xor_max": dict(
        exercise="11_softmax",
        part="row_max",
        full=True,
        kernel="""
@cuda.jit
def row_max(x, m):
    wmax = cuda.shared.array(4, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    v = -math.inf
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    v = float32(v)
    for k in (16, 8, 4, 2, 1):
        v = max(v, cuda.shfl_xor_sync(0xFFFFFFFF, v, k))
    if lane == 0:
        wmax[warp] = v
    cuda.syncthreads()
    if t == 0:
        m[r] = max(max(wmax[0], wmax[1]), max(wmax[2], wmax[3]))
""",
    ),
    "hol_exp_sum_float64_exp_sum": dict(
        extra_cells=["from numba import float64, int64"],
        exercise="11_softmax",
        part="exp_sum",
        full=True,
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(TPB, float64)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    acc = 0.0
    for c in range(t, x.shape[1], TPB):
        v = math.exp(x[r, c] * 1.0 - m[r])  # a float64 exp
        e[r, c] = v
        acc += v
"""
        + _ES_TREE,
    ),
    "hol_exp_sum_fast_expf_kahan": dict(
        exercise="11_softmax",
        part="exp_sum",
        full=True,
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    mr = m[r]
    acc = float32(0.0)
    comp = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        v = cuda.libdevice.fast_expf(x[r, c] - mr)
        e[r, c] = v
        y = v - comp
        tot = acc + y
        comp = (tot - acc) - y
        acc = tot
"""
        + _ES_TREE,
    ),
    "hol_exp_sum_warp_stage_reads_ghost_warps": dict(
        exercise="11_softmax",
        part="exp_sum",
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    wsum = cuda.shared.array(32, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    acc = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        v = math.exp(x[r, c] - m[r])
        e[r, c] = v
        acc += v
    off = 16
    while off > 0:
        acc += cuda.shfl_down_sync(0xFFFFFFFF, acc, off)
        off //= 2
    if lane == 0:
        wsum[warp] = acc
    cuda.syncthreads()
    if warp == 0:
        acc = wsum[lane]  # lanes 4..31 read warp sums of warps that do not exist
        off = 16
        while off > 0:
            acc += cuda.shfl_down_sync(0xFFFFFFFF, acc, off)
            off //= 2
        if lane == 0:
            s[r] = acc
""",
        fail=ALL,
        passes=[],
        reason="uninitialised",
    ),
    "hol_exp_sum_unshifted_exp": dict(
        exercise="11_softmax",
        part="exp_sum",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    acc = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        v = math.exp(x[r, c]) / math.exp(m[r])  # overflows: inf / inf
        e[r, c] = v
        acc += v
"""
        + _ES_TREE,
    ),
    "hol_normalize_float32_reciprocal": dict(
        exercise="11_softmax",
        part="normalize",
        full=True,
        kernel="""
@cuda.jit
def normalize(e, s, out):
    col = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    row = cuda.blockIdx.y
    if col >= e.shape[1]:
        return
    inv = float32(1.0) / s[row]
    out[row, col] = e[row, col] * inv
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
    "hol_gaming_fused_lane_per_warp_row": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["parallel"],
        passes=["public", "hidden", "memory"],
        reason="",
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
    "hol_gaming_fused_one_block_chunk": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["hidden"],
        passes=[],
        reason="",
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    # three strides cover the public rows (at most 300 columns): the hidden ones are longer
    m = float32(-math.inf)
    total = float32(0.0)
    for k in range(3):
        c = t + k * TPB
        if c < cols:
            v = x[r, c]
            if v > m:
                total = total * math.exp(m - v) + float32(1.0)
                m = v
            else:
                total += math.exp(v - m)
    s_max[t] = m
    s_sum[t] = total
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m1, m2 = s_max[t], s_max[t + stride]
            if m2 > m1:
                s_sum[t] = s_sum[t] * math.exp(m1 - m2) + s_sum[t + stride]
                s_max[t] = m2
            elif m2 > -math.inf:
                s_sum[t] += s_sum[t + stride] * math.exp(m2 - m1)
        cuda.syncthreads()
        stride //= 2
    for k in range(3):
        c = t + k * TPB
        if c < cols:
            out[r, c] = math.exp(x[r, c] - s_max[0]) / s_sum[0]
""",
    ),
    "hol_warp_reduce_xor_float64": dict(
        extra_cells=["from numba import float64, int64"],
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float64)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else 0  # float32 and int unify to float64
    for k in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(FULL_MASK, v, k)
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = sums[lane] if lane < WARPS else 0.0
        for k in (16, 8, 4, 2, 1):
            v += cuda.shfl_xor_sync(FULL_MASK, v, k)
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "hol_warp_reduce_ballot_tail_shfl_down": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["masks"],
        passes=[],
        reason="",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    mask = cuda.ballot_sync(FULL_MASK, i < x.size)
    if lane == 0:
        sums[warp] = 0.0
    if i < x.size:
        v = x[i]
        off = 16
        while off > 0:  # the tail warp's lanes read lanes past the end, not in mask
            v += cuda.shfl_down_sync(mask, v, off)
            off //= 2
        if lane == 0:
            sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = sums[lane] if lane < WARPS else float32(0.0)
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, off)
            off //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "hol_warp_reduce_int64_fixed_point": dict(
        extra_cells=["from numba import float64, int64"],
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        kernel="""
SCALE = 2.0**40

@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, int64)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    q = int64(x[i] * SCALE) if i < x.size else int64(0)  # exact integer sum
    off = 16
    while off > 0:
        q += cuda.shfl_down_sync(FULL_MASK, q, off)
        off //= 2
    if lane == 0:
        sums[warp] = q
    cuda.syncthreads()
    if warp == 0:
        q = sums[lane] if lane < WARPS else int64(0)
        off = 16
        while off > 0:
            q += cuda.shfl_down_sync(FULL_MASK, q, off)
            off //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = q / SCALE
""",
    ),
    "hol_warp_reduce_activemask_in_tail_branch": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["masks"],
        passes=[],
        reason="",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    if lane == 0:
        sums[warp] = 0.0
    if i < x.size:
        v = x[i]
        mask = cuda.activemask()
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(mask, v, off)
            off //= 2
        if lane == 0:
            sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = sums[lane] if lane < WARPS else float32(0.0)
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, off)
            off //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "hol_warp_reduce_xor_width_mask_exact": dict(
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
    v += cuda.shfl_xor_sync(FULL_MASK, v, 16)
    v += cuda.shfl_xor_sync(FULL_MASK, v, 8)
    v += cuda.shfl_xor_sync(FULL_MASK, v, 4)
    v += cuda.shfl_xor_sync(FULL_MASK, v, 2)
    v += cuda.shfl_xor_sync(FULL_MASK, v, 1)
    if lane == warp:  # any lane holds the sum after a butterfly
        sums[warp] = v
    cuda.syncthreads()
    if t < WARPS:  # only lanes 0..3 of warp 0 take part, and their mask says so
        w = sums[t]
        w += cuda.shfl_xor_sync(0xF, w, 2)
        w += cuda.shfl_xor_sync(0xF, w, 1)
        if t == 0:
            partial[cuda.blockIdx.x] = w
""",
    ),
    "hol_block_sum_warp_stage_reads_ghost_warps": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=ALL,
        passes=[],
        reason="uninitialised",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    sums = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = sums[lane]  # lanes 4..31: warps that do not exist wrote nothing
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
            off //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "hol_block_sum_tree_then_xor_last_warp": dict(
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
    while stride >= 32:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t < 32:
        v = s[t]
        for k in (16, 8, 4, 2, 1):
            v += cuda.shfl_xor_sync(0xFFFFFFFF, v, k)
        if t == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "hol_block_sum_warp_atomic_float64_value": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
@cuda.jit
def block_sum(x, partial):
    i = cuda.grid(1)
    v = 0.0
    if i < x.size:
        v = x[i] * 1.0
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(partial, cuda.blockIdx.x, v)
""",
    ),
    "hol_exp_sum_sums_e_after_barrier": dict(
        exercise="11_softmax",
        part="exp_sum",
        full=True,
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    for c in range(t, cols, TPB):
        e[r, c] = math.exp(x[r, c] - m[r])
    cuda.syncthreads()  # orders global memory within the block too
    chunk = (cols + TPB - 1) // TPB
    acc = float32(0.0)
    for c in range(t * chunk, min(cols, (t + 1) * chunk)):
        acc += e[r, c]  # written by other threads before the barrier
"""
        + _ES_TREE,
    ),
    "hol_warp_reduce_second_stage_down_mask_0xf": dict(
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
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if t < WARPS:  # lanes 0..3 only, and the mask names exactly them
        v = sums[t]
        v += cuda.shfl_down_sync(0xF, v, 2)  # lanes 2, 3 read lanes 4, 5: unused values
        v += cuda.shfl_down_sync(0xF, v, 1)
        if t == 0:
            partial[cuda.blockIdx.x] = v
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
    "hol_row_max_const_offsets_shfl_broadcast": dict(
        exercise="11_softmax",
        part="row_max",
        full=True,
        extra_cells=["OFFS = np.array([16, 8, 4, 2, 1], np.int32)"],
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
    "hol_fused_plain_style_long_row": dict(
        exercise="11_softmax",
        part="softmax_fused",
        full=True,
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    m = float32(-math.inf)
    total = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        if x[r, c] > m:  # x[r, c] loaded twice, as written
            total = total * math.exp(m - x[r, c]) + float32(1.0)
            m = x[r, c]
        else:
            total += math.exp(x[r, c] - m)
    s_max[t] = m
    s_sum[t] = total
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride and s_max[t + stride] > -math.inf:
            if s_max[t + stride] > s_max[t]:
                s_sum[t] = s_sum[t] * math.exp(s_max[t] - s_max[t + stride]) + s_sum[t + stride]
                s_max[t] = s_max[t + stride]
            else:
                s_sum[t] += s_sum[t + stride] * math.exp(s_max[t + stride] - s_max[t])
        cuda.syncthreads()
        stride //= 2
    for c in range(t, x.shape[1], TPB):
        out[r, c] = math.exp(x[r, c] - s_max[0]) / s_sum[0]  # shared reads per output
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
    "hol_row_max_half_warp_waits_full_mask": dict(
        exercise="11_softmax",
        part="row_max",
        fail=["sync"],
        passes=["public", "hidden", "parallel"],
        reason="are not here",
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
    if t < 16:  # lanes 16..31 skip the branch but are still running
        v = max(buf[t], buf[t + 16])
        for k in (8, 4, 2, 1):
            v = max(v, cuda.shfl_down_sync(0xFFFFFFFF, v, k))
        if t == 0:
            m[r] = v
    cuda.syncthreads()
""",
    ),
    "hol_fused_finite_sentinel_no_guard": dict(
        exercise="11_softmax",
        part="softmax_fused",
        full=True,
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-3.4e38)  # finite: two empty threads combine to 0, not nan
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
            nm = max(m1, m2)
            s_sum[t] = s_sum[t] * math.exp(m1 - nm) + s_sum[t + stride] * math.exp(m2 - nm)
            s_max[t] = nm
        cuda.syncthreads()
        stride //= 2
    gm = s_max[0]
    inv = 1.0 / s_sum[0]  # a float64 reciprocal
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - gm) * inv
""",
    ),
    "hol_fused_warp_sums_no_barrier": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["sync"],
        passes=[],
        reason="",
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    wm = cuda.shared.array(4, float32)
    ws = cuda.shared.array(4, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    cols = x.shape[1]
    m = float32(-3.4e38)
    total = float32(0.0)
    for c in range(t, cols, TPB):
        v = x[r, c]
        nm = max(m, v)
        total = total * math.exp(m - nm) + math.exp(v - nm)
        m = nm
    for k in (16, 8, 4, 2, 1):
        m2 = cuda.shfl_xor_sync(0xFFFFFFFF, m, k)
        s2 = cuda.shfl_xor_sync(0xFFFFFFFF, total, k)
        nm = max(m, m2)
        total = total * math.exp(m - nm) + s2 * math.exp(m2 - nm)
        m = nm
    if lane == 0:
        wm[warp] = m
        ws[warp] = total
    cuda.syncwarp()  # orders this warp only: the other warps' sums may not be there yet
    gm = max(max(wm[0], wm[1]), max(wm[2], wm[3]))
    gs = float32(0.0)
    for w in range(4):
        gs += ws[w] * math.exp(wm[w] - gm)
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - gm) / gs
""",
    ),
    "hol_exp_sum_atomic_per_thread": dict(
        exercise="11_softmax",
        part="exp_sum",
        full=True,
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    acc = 0  # an int: += of a float32 makes it a float64
    for c in range(t, x.shape[1], TPB):
        v = math.exp(x[r, c] - m[r])
        e[r, c] = v
        acc += v
    cuda.atomic.add(s, r, acc)  # s starts at zero
""",
    ),
    "hol_gaming_normalize_thread_per_row": dict(
        exercise="11_softmax",
        part="normalize",
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason="",
        kernel="""
@cuda.jit
def normalize(e, s, out):
    col, row = cuda.grid(2)
    if col == 0 and row < out.shape[0]:  # the first thread of each row does the row
        inv = float32(1.0) / s[row]
        for c in range(out.shape[1]):
            out[row, c] = e[row, c] * inv
""",
    ),
}

"""Submissions for exercise 11_softmax (built by build.py): the mistakes students make in a row
softmax, split in three kernels and fused, one attempt to collect the points with a serial
loop, and correct kernels in unusual styles that must earn full marks.

The row kernels run one block of TPB = 128 threads per row; ``normalize`` runs blocks of TPB
threads along a row, grid (ceil(cols / TPB), rows). The notebook defines TPB.
"""

from __future__ import annotations

FUSED_ALL = ["public", "hidden", "bounds", "sync", "parallel", "memory"]

# The model's tree over (max, sum) pairs, with its barrier after every step: the last one
# orders thread 0's final write before every thread reads the block's max and sum.
_PAIR_TREE = """
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
"""

# The model's first pass: a running max and a running sum rescaled when the max grows.
_ONLINE_PASS = """
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
    s_max[t] = m
    s_sum[t] = total
    cuda.syncthreads()
"""

_WRITE_OUT = """
    m = s_max[0]
    total = s_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) / total
"""


def _fused(body: str) -> str:
    return "\n@cuda.jit\ndef softmax_fused(x, out):" + body


def _except(*failing: str) -> list[str]:
    return [c for c in FUSED_ALL if c not in failing]


CASES = {
    # -- mistakes in the three kernels -------------------------------------------------------
    "softmax_row_max_starts_at_zero": dict(
        exercise="11_softmax",
        part="row_max",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def row_max(x, m):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    v = float32(0.0)  # not the max of no values: a row of negative values reports 0
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
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
""",
    ),
    "softmax_normalize_sum_of_wrong_row": dict(
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
        out[row, col] = e[row, col] / s[cuda.blockIdx.x]  # the column block, not the row
""",
    ),
    "softmax_normalize_swapped_axes": dict(
        exercise="11_softmax",
        part="normalize",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def normalize(e, s, out):
    row, col = cuda.grid(2)  # x runs along a row: this is the column
    if row < out.shape[0] and col < out.shape[1]:
        out[row, col] = e[row, col] / s[row]
""",
    ),
    "softmax_normalize_no_guard": dict(
        exercise="11_softmax",
        part="normalize",
        fail=["public", "hidden", "bounds"],
        passes=[],
        reason="outside shape",
        kernel="""
@cuda.jit
def normalize(e, s, out):
    col, row = cuda.grid(2)
    out[row, col] = e[row, col] / s[row]  # cols is rarely a multiple of TPB
""",
    ),
    "softmax_exp_sum_barrier_in_branch": dict(
        exercise="11_softmax",
        part="exp_sum",
        fail=["sync"],
        passes=["public", "parallel"],
        reason="divergent barrier",
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    acc = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        v = math.exp(x[r, c] - m[r])
        e[r, c] = v
        acc += v
    buf[t] = acc
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            buf[t] += buf[t + stride]
            cuda.syncthreads()  # only the threads still adding reach this barrier
        stride //= 2
    if t == 0:
        s[r] = buf[0]
""",
    ),
    # -- mistakes in the fused kernel --------------------------------------------------------
    "softmax_fused_unstable": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["public", "hidden"],
        passes=[],
        reason="got nan",
        kernel=_fused(
            """
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    total = float32(0.0)
    for c in range(t, cols, TPB):
        total += math.exp(x[r, c])  # no max subtracted: exp(1000) is inf
    buf[t] = total
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            buf[t] += buf[t + stride]
        cuda.syncthreads()
        stride //= 2
    total = buf[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c]) / total
"""
        ),
    ),
    "softmax_fused_no_barrier_after_max": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["public", "sync"],
        passes=[],
        reason="race",
        kernel=_fused(
            _ONLINE_PASS
            + """
    stride = TPB // 2
    while stride > 0:
        cuda.syncthreads()  # before each step, so none after the last one
        if t < stride:
            m1, m2 = s_max[t], s_max[t + stride]
            if m2 > m1:
                s_sum[t] = s_sum[t] * math.exp(m1 - m2) + s_sum[t + stride]
                s_max[t] = m2
            elif m2 > -math.inf:
                s_sum[t] += s_sum[t + stride] * math.exp(m2 - m1)
        stride //= 2
"""
            + _WRITE_OUT
        ),
    ),
    "softmax_fused_three_passes": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["memory"],
        passes=_except("memory"),
        reason="3.00 global loads",
        kernel=_fused(
            """
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    v = float32(-math.inf)
    for c in range(t, cols, TPB):  # first read: the max
        v = max(v, x[r, c])
    buf[t] = v
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            buf[t] = max(buf[t], buf[t + stride])
        cuda.syncthreads()
        stride //= 2
    m = buf[0]
    cuda.syncthreads()
    acc = float32(0.0)
    for c in range(t, cols, TPB):  # second read: the sum
        acc += math.exp(x[r, c] - m)
    buf[t] = acc
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            buf[t] += buf[t + stride]
        cuda.syncthreads()
        stride //= 2
    total = buf[0]
    for c in range(t, cols, TPB):  # third read: the output
        out[r, c] = math.exp(x[r, c] - m) / total
"""
        ),
    ),
    "softmax_fused_unguarded_tail": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["public", "hidden", "bounds"],
        passes=[],
        reason="outside shape",
        kernel=_fused(
            """
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    total = float32(0.0)
    for k in range(0, cols, TPB):
        v = x[r, k + t]  # past the end of the row in the last chunk
        if v > m:
            total = total * math.exp(m - v) + float32(1.0)
            m = v
        else:
            total += math.exp(v - m)
    s_max[t] = m
    s_sum[t] = total
    cuda.syncthreads()
"""
            + _PAIR_TREE
            + _WRITE_OUT
        ),
    ),
    # -- an attempt to collect the points without a parallel kernel --------------------------
    "softmax_fused_serial_thread_zero": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["parallel"],
        passes=_except("parallel"),
        reason="one thread made",
        kernel=_fused(
            """
    r = cuda.blockIdx.x
    if cuda.threadIdx.x == 0:  # one thread walks the row: two reads, one write, no tree
        m = float32(-math.inf)
        total = float32(0.0)
        for c in range(x.shape[1]):
            v = x[r, c]
            if v > m:
                total = total * math.exp(m - v) + float32(1.0)
                m = v
            else:
                total += math.exp(v - m)
        for c in range(x.shape[1]):
            out[r, c] = math.exp(x[r, c] - m) / total
"""
        ),
    ),
    # -- correct kernels in unusual styles ---------------------------------------------------
    "softmax_style_fused_warp_shuffles": dict(
        exercise="11_softmax",
        part="softmax_fused",
        full=True,
        kernel="""
WARPS = TPB // 32


@cuda.jit(device=True)
def merge(m1, s1, m2, s2):
    big = max(m1, m2)
    if big == -math.inf:  # neither side saw a value
        return big, s1
    return big, s1 * math.exp(m1 - big) + s2 * math.exp(m2 - big)


@cuda.jit
def softmax_fused(x, out):
    w_max = cuda.shared.array(WARPS, float32)
    w_sum = cuda.shared.array(WARPS, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    total = float32(0.0)
    for c in range(t, cols, TPB):
        m, total = merge(m, total, x[r, c], float32(1.0))
    for offset in (16, 8, 4, 2, 1):  # butterfly: every lane ends with its warp's pair
        m2 = cuda.shfl_xor_sync(0xFFFFFFFF, m, offset)
        s2 = cuda.shfl_xor_sync(0xFFFFFFFF, total, offset)
        m, total = merge(m, total, m2, s2)
    if t % 32 == 0:
        w_max[t // 32] = m
        w_sum[t // 32] = total
    cuda.syncthreads()
    m = w_max[0]
    total = w_sum[0]
    for w in range(1, WARPS):  # every thread merges the few warp pairs itself
        m, total = merge(m, total, w_max[w], w_sum[w])
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) / total
""",
    ),
    "softmax_style_normalize_row_per_block_y": dict(
        exercise="11_softmax",
        part="normalize",
        full=True,
        kernel="""
@cuda.jit
def normalize(e, s, out):
    row = cuda.blockIdx.y
    col = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if col < e.shape[1]:
        inv = float32(1.0) / s[row]  # one division, then a multiply
        out[row, col] = e[row, col] * inv
""",
    ),
    "softmax_style_fused_reads_x_where_it_uses_it": dict(
        exercise="11_softmax",
        part="softmax_fused",
        # x[r, c] written out at each use, no local: the compiler reads it once per pass
        # (pdc.sim.reloads), so the row is still read twice in all.
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
        if x[r, c] > m:
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
        out[r, c] = math.exp(x[r, c] - s_max[0]) / s_sum[0]
""",
    ),
}

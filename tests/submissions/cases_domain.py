"""Submissions that are right on the public cases and wrong somewhere else in the spec's domain
(built by build.py). Each hidden draw reaches every boundary of its part's domain
(``Part.boundaries``), so each of these must lose its hidden points on every seed, not on some:
tests/test_grade_domain.py grades them under several seeds and checks each one.
"""

from __future__ import annotations

CASES = {
    # A cache of the filter in a local array of 7: "filters are short". The spec says any odd
    # length; the public cases stop at 7.
    "domain_conv1d_filter_at_most_7": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["hidden"],
        passes=["public", "bounds"],
        reason="wrong values",
        kernel="""
MAXK = 7


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        wl = cuda.local.array(MAXK, float32)
        k = min(w.size, MAXK)
        for j in range(k):
            wl[j] = w[j]
        r = w.size // 2
        acc = float32(0.0)
        for j in range(k):
            src = i + r - j
            if 0 <= src < x.size:
                acc += wl[j] * x[src]
        out[i] = acc
""",
    ),
    # Products staged in a zeroed local array of 7 taps, a tidy style that assumes the filter
    # is short: a longer one writes past the end of the local array.
    "domain_conv1d_local_array_of_7": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["hidden", "bounds"],
        passes=["public"],
        reason="out-of-bounds access",
        kernel="""
MAXK = 7


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    taps = cuda.local.array(MAXK, float32)
    for j in range(MAXK):
        taps[j] = 0.0
    k = w.size
    r = k // 2
    for j in range(k):
        src = i + r - j
        if 0 <= src and src < x.size:
            taps[j] = w[j] * x[src]
    if i < out.size:
        total = 0.0
        for j in range(k):
            total += taps[j]
        out[i] = total
""",
    ),
    # k tiles counted from the grid's height: right whenever m has at least as many tiles as k.
    "domain_matmul_tiled_loops_over_grid_y": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["hidden"],
        passes=["public"],
        reason="wrong values",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range(cuda.gridDim.y):  # as many k tiles as row tiles
        k = t * TILE + tx
        sA[ty, tx] = A[row, k] if row < m and k < kk else 0.0
        k = t * TILE + ty
        sB[ty, tx] = B[k, col] if k < kk and col < n else 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    # Four values per thread in place of a grid-stride loop: enough for the public streams.
    "domain_histogram_four_values_per_thread": dict(
        exercise="07_histogram",
        part="histogram_shared",
        fail=["hidden"],
        passes=["public", "bounds", "sync"],
        reason="wrong values",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    first, stride = cuda.grid(1), cuda.gridsize(1)
    for j in range(4):  # "each thread reads four values"
        i = first + j * stride
        if i < values.size:
            v = values[i]
            if v < BINS:
                cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        if s[b] > 0:
            cuda.atomic.add(hist, b, s[b])
""",
    ),
    # "Any value of the row keeps exp small": the first one does, while the row spans a few
    # units; a row spread over +-100 overflows float32's exp (above 88.7) all the same.
    "domain_softmax_fused_subtracts_first_value": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["hidden"],
        passes=["public"],
        reason="wrong values",
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    ref = x[r, 0]
    total = float32(0.0)
    for c in range(t, cols, TPB):
        total += math.exp(x[r, c] - ref)
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
        out[r, c] = math.exp(x[r, c] - ref) / total
""",
    ),
    # The row kept on chip in a shared array of 1024 floats: no row is longer, until one is.
    "domain_softmax_fused_row_cached_in_1024": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["hidden", "bounds"],
        passes=["public"],
        reason="out-of-bounds",
        kernel="""
MAXC = 1024


@cuda.jit
def softmax_fused(x, out):
    row = cuda.shared.array(MAXC, float32)
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    for c in range(t, cols, TPB):
        v = x[r, c]
        row[c] = v
        m = max(m, v)
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
        total += math.exp(row[c] - m)
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
        out[r, c] = math.exp(row[c] - m) / total
""",
    ),
    # The flag tested on the count after this reading: one message too early, which only a
    # spike on message MIN_COUNT - 1 shows.
    "domain_ring_flags_one_message_early": dict(
        exercise="06_ring",
        part="detect",
        fail=["hidden"],
        passes=["public"],
        reason="wrong",
        kernel="""@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    count = state.count
    n = count + 1.0
    delta = req.x - state.mean
    mean = state.mean + delta / n
    var = state.m2 / select(count > 1.0, count - 1.0, 1.0)
    std = math.sqrt(var)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    state.m2 = state.m2 + delta * (req.x - mean)
    state.mean = mean
    state.count = n
    rep.count = n
    rep.mean = mean
    rep.z = z
    rep.flag = select(n >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
""",
    ),
}

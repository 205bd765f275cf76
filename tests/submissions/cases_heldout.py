"""Fresh submissions across exercises 01-11 (built by build.py): correct kernels in styles
the other cases do not use, which must earn full marks; wrong kernels, which must fail the
criterion a GPU (with compute-sanitizer) would expose; and attempts to game one criterion's
measure, which must lose that criterion while the outputs stay right.
"""

from __future__ import annotations

CASES = {
    # -- correct, unusual style: full marks ---------------------------------------------------
    "heldout_histogram_global_early_returns": dict(
        exercise="07_histogram",
        part="histogram_global",
        full=True,
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i >= values.size:
        return
    v = int32(values[i])
    if v >= BINS:
        return  # a failed reading
    cuda.atomic.add(hist, v, int32(1))
""",
    ),
    "heldout_histogram_shared_warp_aggregated": dict(
        exercise="07_histogram",
        part="histogram_shared",
        full=True,
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    lane = t % 32
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    n = values.size
    stride = cuda.gridsize(1)
    start = cuda.grid(1)
    rounds = (n + stride - 1) // stride
    for k in range(rounds):  # every lane of a warp runs the same rounds
        i = start + k * stride
        v = int32(values[i]) if i < n else int32(BINS)  # past the end: a failed reading
        peers = cuda.match_any_sync(0xFFFFFFFF, v)  # lanes holding the same code
        leader = cuda.ffs(peers) - 1
        if lane == leader and v < BINS:
            cuda.atomic.add(s, v, cuda.popc(peers))  # one shared atomic per distinct code
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        c = s[b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
""",
    ),
    "heldout_scan_warp_shuffle_scan": dict(
        exercise="08_scan",
        part="block_scan",
        full=True,
        kernel="""
WARPS_PER_BLOCK = TPB // 32


@cuda.jit
def block_scan(x, out, block_sums):
    warp_tot = cuda.shared.array(WARPS_PER_BLOCK, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    d = 1
    while d < 32:  # Hillis-Steele inside the warp, in registers
        up = cuda.shfl_up_sync(0xFFFFFFFF, v, d)
        if lane >= d:
            v += up
        d *= 2
    if lane == 31:
        warp_tot[warp] = v
    cuda.syncthreads()
    base = float32(0.0)
    for w in range(warp):  # the totals of the warps before this one
        base += warp_tot[w]
    v += base
    if i < x.size:
        out[i] = v
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = v
""",
    ),
    "heldout_scan_offsets_grid_stride_early_return": dict(
        exercise="08_scan",
        part="add_block_offsets",
        full=True,
        kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    b = cuda.blockIdx.x
    if b == 0:
        return  # the first block has nothing before it
    i = cuda.grid(1)
    if i < out.size:
        extra = offsets[b - 1]
        out[i] = out[i] + extra
""",
    ),
    "heldout_transpose_tiled_while_loops": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        full=True,
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    bx, by = cuda.blockIdx.x, cuda.blockIdx.y
    rows, cols = a.shape
    y = ty
    while y < TILE:
        r, c = by * TILE + y, bx * TILE + tx
        if r < rows and c < cols:
            tile[y, tx] = a[r, c]
        y += BLOCK_ROWS
    cuda.syncthreads()
    y = ty
    while y < TILE:
        r, c = bx * TILE + y, by * TILE + tx
        if r < cols and c < rows:
            out[r, c] = tile[tx, y]
        y += BLOCK_ROWS
""",
    ),
    "heldout_transpose_padded_stored_transposed": dict(
        exercise="09_transpose",
        part="transpose_padded",
        full=True,
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    for k in range(0, TILE, BLOCK_ROWS):
        r, c = cuda.blockIdx.y * TILE + ty + k, cuda.blockIdx.x * TILE + tx
        if r < rows and c < cols:
            tile[tx, ty + k] = a[r, c]  # transposed on the way in: a column, padded
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        r, c = cuda.blockIdx.x * TILE + ty + k, cuda.blockIdx.y * TILE + tx
        if r < cols and c < rows:
            out[r, c] = tile[ty + k, tx]  # a row of the tile
""",
    ),
    "heldout_warp_reduce_tuple_offsets_laneid": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    lane = cuda.laneid
    warp = cuda.threadIdx.x // 32
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(FULL_MASK, v, off)  # every lane ends with the warp's sum
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
    "heldout_softmax_normalize_reciprocal_grid_stride": dict(
        exercise="11_softmax",
        part="normalize",
        full=True,
        kernel="""
@cuda.jit
def normalize(e, s, out):
    col0, row0 = cuda.grid(2)
    sx, sy = cuda.gridsize(2)
    for row in range(row0, out.shape[0], sy):
        inv = float32(1.0) / s[row]
        for col in range(col0, out.shape[1], sx):
            out[row, col] = e[row, col] * inv  # one rounding more than e / s
""",
    ),
    "heldout_softmax_exp_sum_libdevice": dict(
        exercise="11_softmax",
        part="exp_sum",
        full=True,
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    mx = m[r]
    acc = float32(0.0)
    c = t
    while c < x.shape[1]:
        v = cuda.libdevice.expf(x[r, c] - mx)
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
    "heldout_saxpy_fma": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.fma(alpha, x[i], y[i])  # one rounding, not two
""",
    ),
    # -- wrong: the criterion a GPU exposes fails -------------------------------------------------
    "heldout_histogram_shared_bin_64_counted": dict(
        exercise="07_histogram",
        part="histogram_shared",
        fail=["bounds"],
        passes=[],
        reason="outside shape",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v <= BINS:  # off by one: code 64 lands one past the shared histogram
            cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        if s[b] > 0:
            cuda.atomic.add(hist, b, s[b])
""",
    ),
    "heldout_scan_tail_padded_with_last_value": dict(
        exercise="08_scan",
        part="block_scan",
        fail=["public", "hidden"],
        passes=[],
        reason="block_sums differs",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else x[x.size - 1]  # the tail repeats the last value, not 0
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2
        cuda.syncthreads()
    if t == 0:
        block_sums[cuda.blockIdx.x] = s[TPB - 1]
        s[TPB - 1] = 0.0
    cuda.syncthreads()
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        d //= 2
        cuda.syncthreads()
    if i < x.size:
        out[i] = s[t] + v
""",
    ),
    "heldout_transpose_tiled_store_guard_unswapped": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        fail=["bounds"],
        passes=[],
        reason="outside shape",
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            tile[ty + k, tx] = a[row, col]
    cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < rows and col < cols:  # a's bounds, not out's: wrong when not square
            out[row, col] = tile[tx, ty + k]
""",
    ),
    "heldout_transpose_padded_two_words": dict(
        exercise="09_transpose",
        part="transpose_padded",
        fail=["conflicts"],
        passes=["public", "hidden", "bounds", "sync", "memory"],
        reason="conflict",
        kernel="""
PAD2 = TILE + 2  # a pitch of 34 words


@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, PAD2), float32)  # an even pitch: 2-way conflicts remain
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            tile[ty + k, tx] = a[row, col]
    cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < cols and col < rows:
            out[row, col] = tile[tx, ty + k]
""",
    ),
    "heldout_warp_reduce_unguarded_warp_sums": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["public"],
        passes=[],
        reason="outside shape",
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
    if warp == 0:
        v = sums[lane]  # lanes 4..31 read past the 4 warp sums
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "heldout_warp_reduce_small_mask_whole_warp": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["masks"],
        passes=[],
        reason="mask",
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
    if warp == 0:
        v = sums[lane] if lane < WARPS else float32(0.0)
        offset = WARPS // 2
        while offset > 0:  # all 32 lanes call it, but the mask names only lanes 0..3
            v += cuda.shfl_down_sync((1 << WARPS) - 1, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "heldout_softmax_fused_inf_minus_inf": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["public", "hidden"],
        passes=[],
        reason="inf or nan",
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
            else:  # two empty partners: exp(-inf - -inf) = exp(nan)
                s_sum[t] += s_sum[t + stride] * math.exp(m2 - m1)
        cuda.syncthreads()
        stride //= 2
    m = s_max[0]
    total = s_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) / total
""",
    ),
    "heldout_conv1d_unsigned_index": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
from numba import uint32


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = float32(0.0)
        for j in range(w.size):
            src = uint32(i + r - j)  # -1 wraps to 4294967295: the upper test drops it
            if src < x.size:  # uint32 against int64 compares as int64, as on a GPU
                acc += w[j] * x[src]
        out[i] = acc
""",
    ),
    # -- gaming: the measure fooled, the criterion lost -----------------------------------------
    "heldout_gaming_histogram_shared_atomic_sub": dict(
        exercise="07_histogram",
        part="histogram_shared",
        fail=["atomics"],
        passes=["public", "hidden"],
        gaming="atomics per address",
        reason="atomic",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:  # no privatisation: every reading to global, as a subtraction
            cuda.atomic.sub(hist, v, -1)
""",
    ),
    "heldout_gaming_scan_lane_zero_gathers_by_shuffle": dict(
        exercise="08_scan",
        part="block_scan",
        fail=["parallel"],
        passes=["public", "hidden"],
        gaming="operations per thread",
        reason="",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    lane = t % 32
    run = float32(0.0)
    mine = float32(0.0)
    for k in range(32):  # every lane hands its value to lane 0, which keeps the prefix
        got = cuda.shfl_sync(0xFFFFFFFF, v, k)
        run += got
        if lane == k:
            mine = run
    s[t] = mine
    cuda.syncthreads()
    base = float32(0.0)
    for w in range(t // 32):
        base += s[w * 32 + 31]
    if i < x.size:
        out[i] = mine + base
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = mine + base
""",
    ),
    "heldout_gaming_transpose_tiled_dummy_row_loads": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        fail=["memory"],
        passes=["public", "hidden"],
        gaming="coalescing",
        reason="",
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    junk = float32(0.0)
    for k in range(0, TILE, BLOCK_ROWS):
        r = cuda.blockIdx.y * TILE + ty + k
        c = cuda.blockIdx.x * TILE + tx
        if r < rows and c < cols:
            junk += a[r, c]  # aligned row loads that only pad the average
        r2 = cuda.blockIdx.y * TILE + tx  # the real loads: a column of a per warp
        c2 = cuda.blockIdx.x * TILE + ty + k
        if r2 < rows and c2 < cols:
            tile[ty + k, tx] = a[r2, c2]  # already transposed in the tile
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        r = cuda.blockIdx.x * TILE + ty + k
        c = cuda.blockIdx.y * TILE + tx
        if r < cols and c < rows:
            out[r, c] = tile[ty + k, tx] + junk * float32(0.0)
""",
    ),
    "heldout_gaming_warp_reduce_lane_zero_pulls_all": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["parallel"],
        passes=["public", "hidden"],
        gaming="operations per thread",
        reason="",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    acc = float32(0.0)
    for k in range(32):  # 32 shuffles: lane 0 adds the warp one value at a time
        acc += cuda.shfl_sync(FULL_MASK, v, k)
    if lane == 0:
        sums[warp] = acc
    cuda.syncthreads()
    if t == 0:
        tot = float32(0.0)
        for w in range(WARPS):
            tot += sums[w]
        partial[cuda.blockIdx.x] = tot
""",
    ),
    "heldout_gaming_softmax_fused_lane_zero_pulls_row": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["parallel", "memory"],  # three reads of the row, too
        passes=["public", "hidden", "bounds", "sync"],
        gaming="operations per thread",
        reason="one thread made",
        kernel="""
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
    if t == 0:  # one thread folds the block's 128 partial maxima
        for k in range(1, TPB):
            m = max(m, s_max[k])
        s_max[0] = m
    cuda.syncthreads()
    m = s_max[0]
    total = float32(0.0)
    for c in range(t, cols, TPB):
        total += math.exp(x[r, c] - m)
    s_sum[t] = total
    cuda.syncthreads()
    if t == 0:  # and their 128 partial sums
        for k in range(1, TPB):
            total += s_sum[k]
        s_sum[0] = total
    cuda.syncthreads()
    total = s_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) / total
""",
    ),
    "heldout_gaming_block_sum_shared_atomic_pile": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        gaming="atomics per address",
        reason="one element of a shared array received 128 atomic operations",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t == 0:
        s[0] = 0.0
    cuda.syncthreads()
    if i < x.size:
        cuda.atomic.add(s, 0, x[i])  # the whole block piles onto one shared word
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
}

CASES.update(
    {
        # -- correct ---------------------------------------------------------------------------
        "heldout_warp_reduce_ballot_mask_discards_inactive": dict(
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
    active = i < x.size
    mask = cuda.ballot_sync(FULL_MASK, active)  # the lanes that hold an element
    if lane == 0 and mask == 0:
        sums[warp] = float32(0.0)  # a warp wholly past the end
    if active:
        v = x[i]
        off = 16
        while off > 0:
            other = cuda.shfl_down_sync(mask, v, off)
            if lane + off < 32 and (mask >> (lane + off)) & 1:
                v += other  # a value from a lane outside the mask is never used
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
        "heldout_histogram_global_byte_plus_one": dict(
            exercise="07_histogram",
            part="histogram_global",
            full=True,
            kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        # uint8 + an int literal is an int64 in numba-cuda: 255 + 1 is 256, not 0.
        if values[i] + 1 <= BINS:
            cuda.atomic.add(hist, values[i], 1)
""",
        ),
        "heldout_softmax_row_max_shared_atomic_max": dict(
            exercise="11_softmax",
            part="row_max",
            full=True,
            kernel="""
@cuda.jit
def row_max(x, m):
    best = cuda.shared.array(1, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    if t == 0:
        best[0] = -math.inf
    cuda.syncthreads()
    v = float32(-math.inf)
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    cuda.atomic.max(best, 0, v)  # the block meets in one shared word
    cuda.syncthreads()
    if t == 0:
        m[r] = best[0]
""",
        ),
        "heldout_block_sum_warp_then_shared_atomic": dict(
            exercise="05_reduction",
            part="block_sum",
            full=True,
            kernel="""
@cuda.jit
def block_sum(x, partial):
    total = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t == 0:
        total[0] = 0.0
    cuda.syncthreads()
    v = x[i] if i < x.size else float32(0.0)
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if t % 32 == 0:
        cuda.atomic.add(total, 0, v)  # one shared atomic per warp: 4 per block
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = total[0]
""",
        ),
        # -- wrong -----------------------------------------------------------------------------
        "heldout_scan_int_tile_truncates": dict(
            exercise="08_scan",
            part="block_scan",
            fail=["public", "hidden"],  # quarters in x: an integer tile drops them
            passes=[],
            reason="differs at",
            kernel="""
from numba import int32


@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, int32)  # an integer tile for float data: fractions are lost
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2
        cuda.syncthreads()
    if t == 0:
        block_sums[cuda.blockIdx.x] = s[TPB - 1]
        s[TPB - 1] = 0
    cuda.syncthreads()
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        d //= 2
        cuda.syncthreads()
    if i < x.size:
        out[i] = s[t] + v
""",
        ),
        "heldout_warp_reduce_activemask_partial_warp": dict(
            exercise="10_warp_reduce",
            part="block_sum_warp",
            fail=["public", "hidden"],  # an undefined value reaches partial
            passes=[],
            reason="not in its mask",
            kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = float32(0.0)
    if i < x.size:
        off = 16
        v = x[i]
        while off > 0:  # in a partial warp, lanes past the end are not there to read
            v += cuda.shfl_down_sync(cuda.activemask(), v, off)
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
        # -- gaming ----------------------------------------------------------------------------
        "heldout_gaming_warp_reduce_shared_atomic_per_lane": dict(
            exercise="10_warp_reduce",
            part="block_sum_warp",
            fail=["registers", "barriers"],
            passes=["public", "hidden", "sync", "masks"],
            gaming="atomics per address",
            reason="128 atomic operations",
            kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    if lane == 0:
        sums[warp] = 0.0
    cuda.syncthreads()
    v = x[i] if i < x.size else float32(0.0)
    cuda.atomic.add(sums, warp, v)  # 32 atomics on one word stand in for the shuffles
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
        "heldout_transpose_tiled_barrier_inside_guard": dict(
            exercise="09_transpose",
            part="transpose_tiled",
            fail=["sync"],
            passes=["public", "hidden", "bounds"],
            reason="not reached by every thread",
            kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    if col < cols:  # threads past the right edge skip the barrier below
        for k in range(0, TILE, BLOCK_ROWS):
            row = cuda.blockIdx.y * TILE + ty + k
            if row < rows:
                tile[ty + k, tx] = a[row, col]
        cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < cols and col < rows:
            out[row, col] = tile[tx, ty + k]
""",
        ),
        "heldout_softmax_row_max_minus_one_over_zero": dict(
            exercise="11_softmax",
            part="row_max",
            full=True,
            kernel="""
@cuda.jit
def row_max(x, m):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    zero = float32(0.0)
    v = float32(-1.0) / zero  # -inf on a GPU, no exception
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
        "heldout_multiply_three_d_grid_index": dict(
            exercise="01_elementwise",
            part="multiply",
            full=True,
            kernel="""
@cuda.jit
def multiply(a, b, out):
    x, y, z = cuda.grid(3)  # a 1-D launch: y and z are 0
    i = x + y * cuda.gridsize(3)[0] + z
    if i < out.size:
        out[i] = a[i] * b[i]
""",
        ),
        "heldout_histogram_global_cas_loop": dict(
            exercise="07_histogram",
            part="histogram_global",
            # The CUDA guide's compare-and-swap loop: right counts on a GPU. Its first plain
            # read of hist[v] meets only atomics, so it sees a value the bin held, which the
            # CAS checks; its retries are the queue of the bin (pdc.sim.retries): full marks.
            full=True,
            kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        if v < BINS:
            old = hist[v]  # maybe stale: the loop retries with what the CAS saw
            while True:
                seen = cuda.atomic.cas(hist, v, old, old + 1)
                if seen == old:
                    break
                old = seen
""",
        ),
        "heldout_histogram_shared_zeroed_twice_per_bin": dict(
            exercise="07_histogram",
            part="histogram_shared",
            full=True,
            kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    s[t % BINS] = 0  # TPB = 2 BINS: threads t and t + 64 both clear bin t
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    if t < BINS and s[t] > 0:
        cuda.atomic.add(hist, t, s[t])
""",
        ),
        "heldout_transpose_tiled_chained_indexing": dict(
            exercise="09_transpose",
            part="transpose_tiled",
            full=True,
            kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            tile[ty + k][tx] = a[row][col]  # a row view, then an element
    cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < cols and col < rows:
            out[row][col] = tile[tx][ty + k]
""",
        ),
        "heldout_scan_offsets_shared_broadcast": dict(
            exercise="08_scan",
            part="add_block_offsets",
            full=True,
            kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    before = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    if t == 0:
        before[0] = offsets[b - 1] if b > 0 else float32(0.0)  # one load per block
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < out.size:
        out[i] += before[0]
""",
        ),
        "heldout_gaming_histogram_shared_thread_zero_flushes": dict(
            exercise="07_histogram",
            part="histogram_shared",
            fail=["parallel"],
            passes=["public", "hidden", "bounds", "sync", "atomics"],
            gaming="work spread",
            reason="",
            kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    if t < BINS:
        s[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    n = values.size
    stride = cuda.gridsize(1)
    while i < n:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
        i += stride
    cuda.syncthreads()
    if t == 0:  # one thread flushes all 64 bins: still one global atomic per bin and block
        for b in range(BINS):
            if s[b] > 0:
                cuda.atomic.add(hist, b, s[b])
""",
        ),
        "heldout_softmax_exp_sum_tree_stops_early": dict(
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
    mx = m[r]
    acc = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        v = math.exp(x[r, c] - mx)
        e[r, c] = v
        acc += v
    buf[t] = acc
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 1:  # one level short: buf[1] is never added into buf[0]
        if t < stride:
            buf[t] += buf[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        s[r] = buf[0]
""",
        ),
        "heldout_histogram_shared_only_block_zero_flushes": dict(
            exercise="07_histogram",
            part="histogram_shared",
            fail=["public", "hidden"],
            passes=[],
            reason="differs at",
            kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    if cuda.blockIdx.x == 0:  # the other blocks' counts are dropped
        for b in range(t, BINS, TPB):
            if s[b] > 0:
                cuda.atomic.add(hist, b, s[b])
""",
        ),
        "heldout_warp_reduce_every_warp_writes_partial": dict(
            exercise="10_warp_reduce",
            part="block_sum_warp",
            fail=["public", "hidden", "sync"],
            passes=[],
            reason="also written by another thread",  # the equal writes of warps 0-3 are not
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
    v = sums[lane] if lane < WARPS else float32(0.0)  # every warp does stage two
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if lane == 0:
        partial[cuda.blockIdx.x] = v  # four warps, one element: same value, but ...
    if t == 32:
        partial[cuda.blockIdx.x] = sums[1]  # ... warp 1 overwrites it with its own sum
""",
        ),
        "heldout_gaming_scan_offsets_thread_zero_adds_block": dict(
            exercise="08_scan",
            part="add_block_offsets",
            fail=["parallel"],
            passes=["public", "hidden", "bounds"],
            gaming="work spread",
            reason="",
            kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    b = cuda.blockIdx.x
    if cuda.threadIdx.x == 0 and b > 0:  # one thread walks its block's 128 elements
        extra = offsets[b - 1]
        for i in range(b * TPB, min((b + 1) * TPB, out.size)):
            out[i] += extra
""",
        ),
    }
)

"""Fresh submissions for exercises 07-11 on warps and ordering, built by build.py: warp
intrinsics with masks computed at run time, lanes that exit before a collective its mask names
(allowed: the CUDA programming guide asks the collective of "all non-exited threads named in
mask"), syncwarp with a mask per half-warp, lanes whose masks disagree, races within a warp
and between warps that the values alone do not show, and attempts to fool the atomics and
coalescing measures.
"""

from __future__ import annotations

CASES = {
    # -- 07 histogram --------------------------------------------------------------------------
    # Misgraded before: lost sync, for a full mask naming lanes that had returned.
    "hog_histogram_global_match_any_after_return": dict(
        exercise="07_histogram",
        part="histogram_global",
        full=True,
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i >= values.size:
        return  # a warp collective waits only for the lanes that have not exited
    v = int32(values[i])
    peers = cuda.match_any_sync(0xFFFFFFFF, v)  # the lanes still running with this code
    if v < BINS and cuda.laneid == cuda.ffs(peers) - 1:
        cuda.atomic.add(hist, v, cuda.popc(peers))
""",
    ),
    "hog_histogram_shared_per_warp_zeroing_unsynced": dict(
        exercise="07_histogram",
        part="histogram_shared",
        # Lane 3 may add into bin 5 before lane 5 has zeroed it: lanes of one warp are
        # scheduled independently (Volta and later).
        # A zeroing store and another lane's atomic on one bin: the count is undefined.
        fail=["public", "hidden", "sync"],
        passes=[],
        reason="written by one thread and updated atomically by another",
        kernel="""
WARPS_PER_BLOCK = TPB // 32


@cuda.jit
def histogram_shared(values, hist):
    sub = cuda.shared.array((WARPS_PER_BLOCK, BINS), int32)
    t = cuda.threadIdx.x
    lane, w = t % 32, t // 32
    for b in range(lane, BINS, 32):
        sub[w, b] = 0
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(sub, (w, v), 1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        total = 0
        for k in range(WARPS_PER_BLOCK):
            total += sub[k, b]
        if total > 0:
            cuda.atomic.add(hist, b, total)
""",
    ),
    # Misgraded before: lost sync, the upper half-warp synced with lane 0's mask.
    "hog_histogram_shared_half_warp_syncwarp_masks": dict(
        exercise="07_histogram",
        part="histogram_shared",
        full=True,  # each half-warp syncs with its own mask: lanes pass different masks
        kernel="""
HALVES = TPB // 16


@cuda.jit
def histogram_shared(values, hist):
    sub = cuda.shared.array((HALVES, BINS), int32)  # one histogram per half-warp
    t = cuda.threadIdx.x
    h = t // 16
    for b in range(t % 16, BINS, 16):
        sub[h, b] = 0
    cuda.syncwarp(0xFFFF << (16 * (h % 2)))  # my 16 lanes only
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(sub, (h, v), 1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        total = 0
        for k in range(HALVES):
            total += sub[k, b]
        if total > 0:
            cuda.atomic.add(hist, b, total)
""",
    ),
    "hog_gaming_histogram_shared_warp_aggregated_global": dict(
        exercise="07_histogram",
        part="histogram_shared",
        # No private histogram: each warp merges equal codes and its leader adds them to
        # hist. Fewer atomics than one per value, but a hot bin still gets one per warp
        # and round, far more than one per block.
        fail=["atomics"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        gaming="atomics per address",
        reason="global atomics, at most",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    n = values.size
    stride = cuda.gridsize(1)
    start = cuda.grid(1)
    lane = cuda.laneid
    for k in range((n + stride - 1) // stride):
        i = start + k * stride
        v = int32(values[i]) if i < n else int32(BINS)
        peers = cuda.match_any_sync(0xFFFFFFFF, v)
        if v < BINS and lane == cuda.ffs(peers) - 1:
            cuda.atomic.add(hist, v, cuda.popc(peers))
""",
    ),
    # -- 08 scan -------------------------------------------------------------------------------
    "hog_scan_activemask_tail_warp": dict(
        exercise="08_scan",
        part="block_scan",
        full=True,
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    totals = cuda.shared.array(4, float32)  # TPB // 32 warp totals
    t = cuda.threadIdx.x
    lane, w = t % 32, t // 32
    i = cuda.grid(1)
    if lane == 0:
        totals[w] = float32(0.0)
    cuda.syncthreads()
    v = float32(0.0)
    if i < x.size:
        v = x[i]
        m = cuda.activemask()  # lanes 0 .. k-1 of the warp hold an element
        d = 1
        while d < 32:
            up = cuda.shfl_up_sync(m, v, d)  # always from a lower lane: one in the mask
            if lane >= d:
                v += up
            d *= 2
        if lane == 31 or i == x.size - 1:
            totals[w] = v
    cuda.syncthreads()
    base = float32(0.0)
    for k in range(w):
        base += totals[k]
    if i < x.size:
        out[i] = v + base
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = base + totals[w]
""",
    ),
    # -- 09 transpose --------------------------------------------------------------------------
    "hog_gaming_transpose_tiled_strided_store_in_device_function": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        # The tile is loaded and read as it should be, but the store to out goes down a
        # column, from a device function: a sector per lane.
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        gaming="coalescing",
        reason="stores to out are not coalesced",
        kernel="""
@cuda.jit(device=True)
def put(out, r, c, value):
    out[r, c] = value


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
    for k in range(0, TILE, BLOCK_ROWS):
        r = cuda.blockIdx.y * TILE + ty + k  # a row of a ...
        c = cuda.blockIdx.x * TILE + tx
        if r < rows and c < cols:
            put(out, c, r, tile[ty + k, tx])  # ... is a column of out
""",
    ),
    # -- 10 warp reduce ------------------------------------------------------------------------
    # Misgraded before: lost sync and masks, for a full mask naming lanes that had returned.
    "hog_warp_reduce_return_then_full_mask": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,  # the full mask names lanes that exited: only lanes still running count
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    i = cuda.grid(1)
    if i >= x.size:
        return
    lane = cuda.laneid
    live = min(32, x.size - (i - lane))  # lanes 0 .. live-1 of this warp are still here
    v = x[i]
    for off in (16, 8, 4, 2, 1):
        other = cuda.shfl_down_sync(FULL_MASK, v, off)
        v += other if lane + off < live else float32(0.0)  # a lane that left: not read
    if lane == 0:
        cuda.atomic.add(partial, cuda.blockIdx.x, v)
""",
    ),
    # Misgraded before: full marks; lanes that pass different masks were not compared.
    "hog_warp_reduce_half_masks_disagree": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        # Lanes 16-31 name the whole warp, lanes 0-15 only their half: the lanes a mask
        # names must pass that same mask, or the shuffle is undefined.
        fail=["masks", "sync"],
        passes=["public", "hidden", "parallel", "barriers", "registers"],
        reason="pass another mask",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    mask = 0x0000FFFF if lane < 16 else FULL_MASK
    for off in (8, 4, 2, 1):
        v += cuda.shfl_xor_sync(mask, v, off)
    v += cuda.shfl_xor_sync(FULL_MASK, v, 16)
    if lane == 0:
        sums[warp] = v
    cuda.syncthreads()
    if t == 0:
        total = float32(0.0)
        for k in range(WARPS):
            total += sums[k]
        partial[cuda.blockIdx.x] = total
""",
    ),
    "hog_warp_reduce_second_stage_ends_kernel": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        # Warp 0's second stage runs in 4 lanes under the full mask; the other 28 lanes
        # have nothing left after the branch and exit, and no lane reads them: defined.
        full=True,
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
    if t % 32 == 0:
        warp_sums[t // 32] = v
    cuda.syncthreads()
    if t < WARPS:
        v = warp_sums[t]
        for off in (2, 1):
            v += cuda.shfl_down_sync(FULL_MASK, v, off)  # lane 0 reads lanes 1 and 2 only
        if t == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    # -- 11 softmax ----------------------------------------------------------------------------
    "hog_row_max_warp_tail_syncwarp_after_store": dict(
        exercise="11_softmax",
        part="row_max",
        # The legacy warp-synchronous tail with a syncwarp after each store only: lane t
        # reads s[t + 16] while lane t + 16 writes it, in one step (a race since Volta).
        fail=["sync"],
        passes=["public", "hidden", "parallel"],
        reason="data race",
        kernel="""
@cuda.jit
def row_max(x, m):
    s = cuda.shared.array(TPB, float32)
    row = cuda.blockIdx.x
    t = cuda.threadIdx.x
    best = float32(-np.inf)
    for c in range(t, x.shape[1], TPB):
        best = max(best, x[row, c])
    s[t] = best
    cuda.syncthreads()
    stride = TPB // 2
    while stride >= 32:
        if t < stride:
            s[t] = max(s[t], s[t + stride])
        cuda.syncthreads()
        stride //= 2
    if t < 32:
        for off in (16, 8, 4, 2, 1):
            s[t] = max(s[t], s[t + off])
            cuda.syncwarp()
    if t == 0:
        m[row] = s[0]
""",
    ),
    "hog_softmax_fused_buffer_reused_before_all_read": dict(
        exercise="11_softmax",
        part="softmax_fused",
        # Every thread reads the max from red[0]; thread 0 then stores its rescaled sum in
        # red[0] with no barrier in between: other warps may read the sum as the max.
        fail=["sync"],
        passes=["public", "hidden", "bounds", "parallel", "memory"],
        reason="data race",
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    red = cuda.shared.array(TPB, float32)
    row = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    mt = float32(-np.inf)
    st = float32(0.0)
    for c in range(t, cols, TPB):  # one pass: running max and sum
        v = x[row, c]
        if v > mt:
            st = st * math.exp(mt - v) + float32(1.0)
            mt = v
        else:
            st += math.exp(v - mt)
    red[t] = mt
    cuda.syncthreads()
    d = TPB // 2
    while d > 0:
        if t < d:
            red[t] = max(red[t], red[t + d])
        cuda.syncthreads()
        d //= 2
    mx = red[0]
    red[t] = st * math.exp(mt - mx)  # overwrites red[0] while others may still read it
    cuda.syncthreads()
    d = TPB // 2
    while d > 0:
        if t < d:
            red[t] += red[t + d]
        cuda.syncthreads()
        d //= 2
    total = red[0]
    for c in range(t, cols, TPB):
        out[row, c] = math.exp(x[row, c] - mx) / total
""",
    ),
    # Misgraded before: lost sync, for a full mask naming lanes that had returned.
    "hog_exp_sum_return_then_warp_atomics": dict(
        exercise="11_softmax",
        part="exp_sum",
        full=True,  # threads past a short row leave; the shuffles' full mask may name them
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    row = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    if t >= cols:
        return
    mx = m[row]
    acc = float32(0.0)
    for c in range(t, cols, TPB):
        v = math.exp(x[row, c] - mx)
        e[row, c] = v
        acc += v
    lane = cuda.laneid
    live = min(32, cols - (t - lane))
    for off in (16, 8, 4, 2, 1):
        other = cuda.shfl_down_sync(0xFFFFFFFF, acc, off)
        if lane + off < live:
            acc += other
    if lane == 0:
        cuda.atomic.add(s, row, acc)  # s arrives zeroed: one atomic per warp
""",
    ),
}

"""Fresh submissions for exercises 05 and 07-11 aimed at the criteria other than values,
built by build.py: correct kernels in styles a GPU runs well (full marks), kernels whose
memory accesses a GPU really serves badly, and attempts to fool one criterion's measure.
"""

from __future__ import annotations

CASES = {
    # -- 05 reduction --------------------------------------------------------------------------
    "hoe_gaming_block_sum_lane_zero_gathers_by_shuffle": dict(
        exercise="05_reduction",
        part="block_sum",
        # Lane 0 pulls its warp's 31 other values one shuffle at a time: no memory access,
        # but 31 dependent steps where a tree makes 5.
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        gaming="operations per thread",
        reason="one thread made",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(4, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    lane = t % 32
    acc = v
    for k in range(1, 32):
        w = cuda.shfl_sync(0xFFFFFFFF, v, k)
        if lane == 0:
            acc += w
    if lane == 0:
        s[t // 32] = acc
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = s[0] + s[1] + s[2] + s[3]
""",
    ),
    "hoe_block_sum_syncwarp_tail": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,  # barriers down to 64 values, then warp 0 alone with syncwarp per step
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    if t < 64:
        s[t] += s[t + 64]
    cuda.syncthreads()
    if t < 32:
        off = 32
        while off > 0:
            if t < off:
                s[t] += s[t + off]
            cuda.syncwarp()
            off //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "hoe_block_sum_syncwarp_tail_racy": dict(
        exercise="05_reduction",
        part="block_sum",
        # The old warp-synchronous tail without a guard: lane 16 stores s[16] while lane 0
        # reads it in the same step, a race compute-sanitizer reports on any GPU since Volta.
        fail=["sync"],
        passes=["public", "hidden"],
        reason="data race",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    if t < 64:
        s[t] += s[t + 64]
    cuda.syncthreads()
    if t < 32:
        off = 32
        while off > 0:
            s[t] += s[t + off]
            cuda.syncwarp()
            off //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = s[0]
""",
    ),
    # -- 07 histogram --------------------------------------------------------------------------
    "hoe_histogram_global_match_any_leader": dict(
        exercise="07_histogram",
        part="histogram_global",
        full=True,  # warp aggregation: one atomic per distinct value in the warp, by its leader
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    lane = cuda.laneid
    v = int32(values[i]) if i < values.size else int32(BINS)
    peers = cuda.match_any_sync(0xFFFFFFFF, v)
    leader = cuda.ffs(peers) - 1
    if v < BINS and lane == leader:
        cuda.atomic.add(hist, v, cuda.popc(peers))
""",
    ),
    # -- 08 scan -------------------------------------------------------------------------------
    "hoe_scan_two_warp_stages_shared_sums": dict(
        exercise="08_scan",
        part="block_scan",
        full=True,  # warp scans by shfl_up, warp totals scanned by warp 0, added back
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    sums = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    lane = t % 32
    warp = t // 32
    v = x[i] if i < x.size else float32(0.0)
    d = 1
    while d < 32:
        y = cuda.shfl_up_sync(0xFFFFFFFF, v, d)
        if lane >= d:
            v += y
        d *= 2
    if lane == 31:
        sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        w = sums[lane] if lane < TPB // 32 else float32(0.0)
        d = 1
        while d < 32:
            y = cuda.shfl_up_sync(0xFFFFFFFF, w, d)
            if lane >= d:
                w += y
            d *= 2
        if lane < TPB // 32:
            sums[lane] = w
    cuda.syncthreads()
    if warp > 0:
        v += sums[warp - 1]
    if i < x.size:
        out[i] = v
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = v
""",
    ),
    "hoe_scan_hillis_steele_in_registers": dict(
        exercise="08_scan",
        part="block_scan",
        # Each level stores the running sum and reads a neighbour's: 2 accesses per element and
        # level, under the access bound, but every element rewritten at all log2(TPB) levels.
        fail=["work"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="values to shared memory (7.0 per element)",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    d = 1
    while d < TPB:
        s[t] = v
        cuda.syncthreads()
        if t >= d:
            v += s[t - d]
        cuda.syncthreads()
        d *= 2
    if i < x.size:
        out[i] = v
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = v
""",
    ),
    # -- 09 transpose --------------------------------------------------------------------------
    "hoe_transpose_tiled_four_consecutive_per_thread": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        # Each thread moves 4 consecutive elements of a tile row. Per instruction the lanes
        # of a warp are 16 bytes apart: 32 lanes touch 16 sectors for 4 sectors of data.
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="are not coalesced",
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    f = cuda.threadIdx.y * TILE + cuda.threadIdx.x
    r = f // (TILE // 4)
    c0 = (f % (TILE // 4)) * 4
    row0 = cuda.blockIdx.y * TILE
    col0 = cuda.blockIdx.x * TILE
    for k in range(4):
        rr, cc = row0 + r, col0 + c0 + k
        if rr < a.shape[0] and cc < a.shape[1]:
            tile[r, c0 + k] = a[rr, cc]
    cuda.syncthreads()
    for k in range(4):
        rr, cc = col0 + r, row0 + c0 + k
        if rr < out.shape[0] and cc < out.shape[1]:
            out[rr, cc] = tile[c0 + k, r]
""",
    ),
    "hoe_transpose_padded_diagonal_rotation": dict(
        exercise="09_transpose",
        part="transpose_padded",
        full=True,  # no padding: row r of the tile is rotated by r banks (a diagonal layout)
        extra_cells=["TILE_WORDS = 1024  # TILE * TILE"],
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array(TILE_WORDS, float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        r = ty + j
        if y + j < a.shape[0] and x < a.shape[1]:
            tile[r * TILE + (tx + r) % TILE] = a[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        c = ty + j
        if y + j < out.shape[0] and x < out.shape[1]:
            out[y + j, x] = tile[tx * TILE + (c + tx) % TILE]
""",
    ),
    "hoe_transpose_padded_float64_tile": dict(
        exercise="09_transpose",
        part="transpose_padded",
        full=True,  # 8-byte words, (TILE, TILE + 1): each half-warp phase hits 16 bank pairs
        extra_cells=["from numba import float64\n\nPADDED = 33  # TILE + 1"],
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, PADDED), float64)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if y + j < a.shape[0] and x < a.shape[1]:
            tile[ty + j, tx] = a[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if y + j < out.shape[0] and x < out.shape[1]:
            out[y + j, x] = float32(tile[tx, ty + j])
""",
    ),
    "hoe_gaming_transpose_tiled_strided_store_by_atomic_add": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        # The naive transpose, its strided stores made by atomic adds onto zeros: still one
        # 32-byte sector per lane on a GPU.
        fail=["memory"],
        passes=["public", "hidden", "bounds"],
        gaming="coalescing",
        reason="stores to out are not coalesced",
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if y + j < a.shape[0] and x < a.shape[1]:
            tile[ty + j, tx] = a[y + j, x]
    cuda.syncthreads()
    for j in range(0, TILE, BLOCK_ROWS):
        if y + j < a.shape[0] and x < a.shape[1]:
            cuda.atomic.add(out, (x, y + j), tile[ty + j, tx])
""",
    ),
    "hoe_gaming_transpose_padded_column_read_by_shared_atomic": dict(
        exercise="09_transpose",
        part="transpose_padded",
        # An unpadded tile whose column reads are atomic adds of zero: an atomic on shared
        # memory goes through the same 32 banks, 32 lanes on one bank.
        fail=["conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
        gaming="bank conflicts",
        reason="bank conflicts",
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if y + j < a.shape[0] and x < a.shape[1]:
            tile[ty + j, tx] = a[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if y + j < out.shape[0] and x < out.shape[1]:
            out[y + j, x] = cuda.atomic.add(tile, (tx, ty + j), float32(0.0))
""",
    ),
    "hoe_transpose_tiled_coalesced_atomic_stores": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        full=True,  # atomic adds onto zeros, lanes on consecutive elements: coalesced
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if y + j < a.shape[0] and x < a.shape[1]:
            tile[ty + j, tx] = a[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if y + j < out.shape[0] and x < out.shape[1]:
            cuda.atomic.add(out, (y + j, x), tile[tx, ty + j])
""",
    ),
    # -- 10 warp reduce ------------------------------------------------------------------------
    "hoe_warp_reduce_thread_zero_adds_warp_sums": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,  # shuffles in each warp; thread 0 then adds the WARPS sums in a loop
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if t % 32 == 0:
        sums[t // 32] = v
    cuda.syncthreads()
    if t == 0:
        total = float32(0.0)
        for w in range(WARPS):
            total += sums[w]
        partial[cuda.blockIdx.x] = total
""",
    ),
    # -- 11 softmax ----------------------------------------------------------------------------
    "hoe_gaming_row_max_lane_zero_gathers_by_shuffle": dict(
        exercise="11_softmax",
        part="row_max",
        fail=["parallel"],
        passes=["public", "hidden", "sync"],
        gaming="operations per thread",
        reason="one thread made",
        kernel="""
@cuda.jit
def row_max(x, m):
    buf = cuda.shared.array(4, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    v = float32(-math.inf)
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    best = v
    for k in range(32):
        best = max(best, cuda.shfl_sync(0xFFFFFFFF, v, k))
    if t % 32 == 0:
        buf[t // 32] = best
    cuda.syncthreads()
    if t == 0:
        m[r] = max(max(buf[0], buf[1]), max(buf[2], buf[3]))
""",
    ),
    "hoe_row_max_racy_global_max": dict(
        exercise="11_softmax",
        part="row_max",
        # Read, compare, write m[r] without an atomic: which thread's store lands last depends
        # on scheduling; compute-sanitizer reports the race.
        fail=["sync"],
        passes=[],
        reason="data race",
        kernel="""
@cuda.jit
def row_max(x, m):
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    if t == 0:
        m[r] = x[r, 0]
    cuda.syncthreads()
    for c in range(t, x.shape[1], TPB):
        if x[r, c] > m[r]:
            m[r] = x[r, c]
""",
    ),
    "hoe_gaming_exp_sum_lane_zero_pairs_with_each_lane": dict(
        exercise="11_softmax",
        part="exp_sum",
        # Lane 0 meets lane k alone (a two-lane mask) 31 times: each other lane shuffles once.
        fail=["parallel"],
        passes=["public", "hidden", "sync"],
        gaming="operations per thread",
        reason="shuffles, at most",
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    buf = cuda.shared.array(4, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    lane = cuda.laneid
    mx = m[r]
    acc = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        v = math.exp(x[r, c] - mx)
        e[r, c] = v
        acc += v
    total = acc
    for k in range(1, 32):
        if lane == 0 or lane == k:
            w = cuda.shfl_sync(1 | (1 << k), acc, k)
            if lane == 0:
                total += w
    if lane == 0:
        buf[t // 32] = total
    cuda.syncthreads()
    if t == 0:
        s[r] = buf[0] + buf[1] + buf[2] + buf[3]
""",
    ),
}

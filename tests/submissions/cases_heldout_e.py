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
    "hoe_block_sum_interleaved_modulo": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,  # the first textbook tree: t % (2 * stride) == 0, divergent but right
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    stride = 1
    while stride < TPB:
        if t % (2 * stride) == 0:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride *= 2
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
    "hoe_gaming_histogram_shared_lane_zero_shuffles": dict(
        exercise="07_histogram",
        part="histogram_shared",
        # Every thread loads its values, but lane 0 pulls its warp's values by shuffles and
        # makes all the shared atomics alone.
        fail=["parallel"],
        passes=["public", "hidden", "sync"],
        gaming="work spread",
        reason="one thread made",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    start = cuda.blockIdx.x * TPB
    step = cuda.gridsize(1)
    base = 0
    while base < values.size:
        i = base + start + t
        v = int32(values[i]) if i < values.size else int32(255)
        for k in range(32):
            w = cuda.shfl_sync(0xFFFFFFFF, v, k)
            if cuda.laneid == 0 and w < BINS:
                cuda.atomic.add(s, w, 1)
        base += step
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        if s[b] > 0:
            cuda.atomic.add(hist, b, s[b])
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
    "hoe_gaming_scan_lane_zero_serial_warp_by_shuffle": dict(
        exercise="08_scan",
        part="block_scan",
        # Lane 0 gathers its warp's values by shuffles and scans them serially; the results
        # go back by shuffles: few memory accesses, 32 dependent steps per warp.
        fail=["parallel"],
        passes=["public", "hidden", "sync"],
        gaming="operations per thread",
        reason="one thread made",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    sums = cuda.shared.array(4, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    lane = t % 32
    warp = t // 32
    v = x[i] if i < x.size else float32(0.0)
    run = float32(0.0)
    mine = float32(0.0)
    for k in range(32):
        w = cuda.shfl_sync(0xFFFFFFFF, v, k)
        run += w
        if lane == k:
            mine = run
    if lane == 31:
        sums[warp] = mine
    cuda.syncthreads()
    off = float32(0.0)
    for k in range(warp):
        off += sums[k]
    v = mine + off
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
    "hoe_transpose_padded_float64_unpadded": dict(
        exercise="09_transpose",
        part="transpose_padded",
        # 8-byte words in a (TILE, TILE) tile: a column is 256 bytes a lane, one bank pair
        fail=["conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
        reason="bank conflicts",
        extra_cells=["from numba import float64"],
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE), float64)
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
    # -- 10 warp reduce ------------------------------------------------------------------------
    "hoe_gaming_warp_reduce_shared_via_atomic_exch": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        # The warp sums travel through global memory (partial) by atomics, not shared memory,
        # and one thread adds them: more than one atomic per warp.
        fail=["registers"],
        passes=["public", "hidden"],
        gaming="atomics per address",
        reason="atomic operations",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for k in range(32):
        cuda.atomic.add(partial, cuda.blockIdx.x, cuda.shfl_sync(0xFFFFFFFF, v, k) * float32(cuda.laneid == k))
""",
    ),
    "hoe_warp_reduce_syncthreads_count_barrier": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,  # the one barrier is syncthreads_count, its count unused
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(0xFFFFFFFF, v, off)
    if t % 32 == 0:
        sums[t // 32] = v
    cuda.syncthreads_count(1 if i < x.size else 0)
    if t < 32:
        w = sums[t] if t < WARPS else float32(0.0)
        for off in (16, 8, 4, 2, 1):
            w += cuda.shfl_xor_sync(0xFFFFFFFF, w, off)
        if t == 0:
            partial[cuda.blockIdx.x] = w
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
    "hoe_exp_sum_warp_shuffles_then_atomic": dict(
        exercise="11_softmax",
        part="exp_sum",
        full=True,  # butterfly in each warp, lane 0 adds its warp's sum into s[r] atomically
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    mx = m[r]
    acc = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        v = math.exp(x[r, c] - mx)
        e[r, c] = v
        acc += v
    for off in (16, 8, 4, 2, 1):
        acc += cuda.shfl_xor_sync(0xFFFFFFFF, acc, off)
    if cuda.laneid == 0:
        cuda.atomic.add(s, r, acc)
""",
    ),
    "hoe_gaming_softmax_fused_third_pass_by_atomic_reads": dict(
        exercise="11_softmax",
        part="softmax_fused",
        # Three passes over the row; the extra one reads x through atomic adds of zero.
        fail=["memory"],
        passes=["public", "hidden", "sync"],
        gaming="coalescing",
        reason="global loads",
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    v = float32(-math.inf)
    for c in range(t, cols, TPB):
        v = max(v, cuda.atomic.add(x, (r, c), float32(0.0)))
    buf[t] = v
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            buf[t] = max(buf[t], buf[t + stride])
        cuda.syncthreads()
        stride //= 2
    mx = buf[0]
    cuda.syncthreads()
    acc = float32(0.0)
    for c in range(t, cols, TPB):
        acc += math.exp(x[r, c] - mx)
    buf[t] = acc
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            buf[t] += buf[t + stride]
        cuda.syncthreads()
        stride //= 2
    total = buf[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - mx) / total
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
    "hoe_histogram_shared_flush_every_bin": dict(
        exercise="07_histogram",
        part="histogram_shared",
        full=True,  # one global atomic per bin and block, zero counts included
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    if t < BINS:
        s[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < values.size:
        if values[i] < BINS:
            cuda.atomic.add(s, values[i], 1)
        i += cuda.gridsize(1)
    cuda.syncthreads()
    if t < BINS:
        cuda.atomic.add(hist, t, s[t])
""",
    ),
    "hoe_scan_hillis_steele_in_registers": dict(
        exercise="08_scan",
        part="block_scan",
        # Each level stores the running value and reads a neighbour's: two shared accesses per
        # element per level, log2(TPB) levels: O(n log n) work, as a GPU would do it.
        fail=["work"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="not work-efficient",
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
    "hoe_transpose_tiled_reversed_lanes": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        full=True,  # lane l moves column 31 - l: a warp still touches one contiguous run
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = TILE - 1 - cuda.threadIdx.x, cuda.threadIdx.y
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
            out[y + j, x] = tile[tx, ty + j]
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
    "hoe_scan_offsets_warp_broadcast": dict(
        exercise="08_scan",
        part="add_block_offsets",
        full=True,  # lane 0 reads the offset, a shuffle hands it to the other 31 lanes
        kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    off = float32(0.0)
    if b > 0 and cuda.laneid == 0:
        off = offsets[b - 1]
    off = cuda.shfl_sync(0xFFFFFFFF, off, 0)
    if b > 0 and i < out.size:
        out[i] += off
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
    "hoe_gaming_warp_reduce_lane_zero_pairs_with_each_lane": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["parallel"],
        passes=["public", "hidden", "sync", "masks", "barriers", "registers"],
        gaming="operations per thread",
        reason="one thread made",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    lane = cuda.laneid
    v = x[i] if i < x.size else float32(0.0)
    total = v
    for k in range(1, 32):
        if lane == 0 or lane == k:
            w = cuda.shfl_sync(1 | (1 << k), v, k)
            if lane == 0:
                total += w
    if lane == 0:
        sums[t // 32] = total
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = sums[0] + sums[1] + sums[2] + sums[3]
""",
    ),
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
}

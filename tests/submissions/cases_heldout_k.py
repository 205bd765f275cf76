"""Fresh submissions on synchronisation and the memory model, built by build.py."""

from __future__ import annotations

ALL = ["public", "hidden"]

CASES = {
    # -- 03 matmul_tiled --------------------------------------------------------------------
    "hok_matmul_tiled_double_buffer_one_barrier": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        full=True,
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((2, TILE, TILE), float32)  # two buffers: load one, read the other
    sB = cuda.shared.array((2, TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    tiles = (kk + TILE - 1) // TILE
    sA[0, ty, tx] = A[row, tx] if row < m and tx < kk else float32(0.0)
    sB[0, ty, tx] = B[ty, col] if ty < kk and col < n else float32(0.0)
    cuda.syncthreads()
    acc = float32(0.0)
    for t in range(tiles):
        cur = t % 2
        nxt = 1 - cur
        if t + 1 < tiles:
            k = (t + 1) * TILE + tx
            sA[nxt, ty, tx] = A[row, k] if row < m and k < kk else float32(0.0)
            k = (t + 1) * TILE + ty
            sB[nxt, ty, tx] = B[k, col] if k < kk and col < n else float32(0.0)
        for j in range(TILE):
            acc += sA[cur, ty, j] * sB[cur, j, tx]
        cuda.syncthreads()  # one barrier: the next buffer is full, this one free again
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "hok_matmul_tiled_trip_count_per_thread": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["sync"],
        passes=[],
        reason="not reached by every thread",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    tiles = (kk + TILE - 1) // TILE if row < m and col < n else 0  # idle threads skip it all
    acc = float32(0.0)
    for t in range(tiles):
        k = t * TILE + tx
        sA[ty, tx] = A[row, k] if k < kk else float32(0.0)
        k = t * TILE + ty
        sB[ty, tx] = B[k, col] if k < kk else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "hok_matmul_tiled_barrier_between_loads": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["sync"],
        passes=[],
        reason="no barrier in between",
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
    for t in range((kk + TILE - 1) // TILE):
        k = t * TILE + tx
        sA[ty, tx] = A[row, k] if row < m and k < kk else float32(0.0)
        cuda.syncthreads()  # two barriers, but sA is overwritten before the last one's reads end
        k = t * TILE + ty
        sB[ty, tx] = B[k, col] if k < kk and col < n else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "hok_matmul_tiled_barrier_in_last_step": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        full=True,
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
    t = 0
    while t * TILE < kk:
        sA[ty, tx] = A[row, t * TILE + tx] if row < m and t * TILE + tx < kk else float32(0.0)
        sB[ty, tx] = B[t * TILE + ty, col] if t * TILE + ty < kk and col < n else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
            if j == TILE - 1:  # every thread takes this branch together
                cuda.syncthreads()
        t += 1
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "hok_matmul_tiled_early_return": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["sync"],
        passes=[],
        reason="exited",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    if row >= m or col >= n:
        return  # these threads never load their part of the tiles
    acc = float32(0.0)
    for t in range((kk + TILE - 1) // TILE):
        k = t * TILE + tx
        sA[ty, tx] = A[row, k] if k < kk else float32(0.0)
        k = t * TILE + ty
        sB[ty, tx] = B[k, col] if k < kk else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    C[row, col] = acc
""",
    ),
    # -- 04 blur2d_tiled --------------------------------------------------------------------
    "hok_blur2d_tiled_grid_stride_one_barrier": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        full=True,
        kernel="""
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    h, wd = img.shape
    by = cuda.blockIdx.y
    while by * TILE < h:  # a grid-stride loop over tile rows
        bx = cuda.blockIdx.x
        while bx * TILE < wd:
            row0, col0 = by * TILE - R, bx * TILE - R
            for ly in range(ty, TILE + 2 * R, TILE):
                for lx in range(tx, TILE + 2 * R, TILE):
                    y = min(max(row0 + ly, 0), h - 1)
                    x = min(max(col0 + lx, 0), wd - 1)
                    tile[ly, lx] = img[y, x]
            cuda.syncthreads()
            row, col = by * TILE + ty, bx * TILE + tx
            if row < h and col < wd:
                acc = float32(0.0)
                for dy in range(2 * R + 1):
                    for dx in range(2 * R + 1):
                        acc += w[dy, dx] * tile[ty + dy, tx + dx]
                out[row, col] = acc
            # no barrier before the next tile: with this launch a block does one tile
            bx += cuda.gridDim.x
        by += cuda.gridDim.y
""",
    ),
    "hok_blur2d_tiled_return_after_barrier": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        full=True,
        kernel="""
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    h, wd = img.shape
    row0 = cuda.blockIdx.y * TILE - R
    col0 = cuda.blockIdx.x * TILE - R
    for ly in range(ty, TILE + 2 * R, TILE):
        for lx in range(tx, TILE + 2 * R, TILE):
            tile[ly, lx] = img[min(max(row0 + ly, 0), h - 1), min(max(col0 + lx, 0), wd - 1)]
    cuda.syncthreads()
    row, col = row0 + R + ty, col0 + R + tx
    if row >= h or col >= wd:
        return  # after the last barrier: nobody waits for these threads
    acc = float32(0.0)
    for dy in range(2 * R + 1):
        for dx in range(2 * R + 1):
            acc += w[dy, dx] * tile[ty + dy, tx + dx]
    out[row, col] = acc
""",
    ),
    "hok_blur2d_tiled_weights_after_barrier": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        fail=["sync"],
        passes=[],
        reason="no barrier in between",
        kernel="""
K = 2 * R + 1


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    sw = cuda.shared.array((K, K), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    h, wd = img.shape
    row0 = cuda.blockIdx.y * TILE - R
    col0 = cuda.blockIdx.x * TILE - R
    for ly in range(ty, TILE + 2 * R, TILE):
        for lx in range(tx, TILE + 2 * R, TILE):
            tile[ly, lx] = img[min(max(row0 + ly, 0), h - 1), min(max(col0 + lx, 0), wd - 1)]
    cuda.syncthreads()
    if ty < 2 * R + 1 and tx < 2 * R + 1:
        sw[ty, tx] = w[ty, tx]  # the filter too, but after the barrier: nobody waits for it
    row, col = row0 + R + ty, col0 + R + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += sw[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
""",
    ),
    # -- 05 block_sum -----------------------------------------------------------------------
    "hok_block_sum_const_strides": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
STRIDES = np.array([64, 32, 16, 8, 4, 2, 1], dtype=np.int32)


@cuda.jit
def block_sum(x, partial):
    strides = cuda.const.array_like(STRIDES)
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    for k in range(strides.size):
        d = strides[k]
        if t < d:
            s[t] += s[t + d]
        cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "hok_block_sum_local_levels_one_short": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=ALL,
        passes=[],
        reason="write seen[7] outside shape (7,)",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    seen = cuda.local.array(7, float32)  # 7 levels ... but the loop below stores 8 values
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    level = 0
    stride = TPB
    while stride > 1:
        seen[level] = s[t]
        stride //= 2
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        level += 1
    seen[level] = s[t]  # level 7: one past the end
    if t == 0:
        partial[cuda.blockIdx.x] = seen[level]
""",
    ),
    "hok_block_sum_half_size_shared": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
HALF = TPB // 2


@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(HALF, float32)  # half a block: the first level adds while loading
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    if t < HALF:
        a = x[i] if i < x.size else float32(0.0)
        b = x[i + HALF] if i + HALF < x.size else float32(0.0)
        s[t] = a + b
    cuda.syncthreads()
    stride = HALF // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "hok_block_sum_zero_store_races_atomics": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["sync", "memory"],
        passes=ALL,
        reason="atomic on partial[0] written by another thread",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    if t == 0:
        partial[b] = 0.0  # a plain store ...
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
    if t % 32 == 0:
        cuda.atomic.add(partial, b, v)  # ... and atomics of other warps, nothing between
""",
    ),
    "hok_block_sum_shared_total_zeroed_then_atomics": dict(
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
        total[0] = 0.0  # a plain store ...
    cuda.syncthreads()  # ... ordered before every warp's atomic on the same word
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
    if t % 32 == 0:
        cuda.atomic.add(total, 0, v)
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = total[0]
""",
    ),
    "hok_block_sum_atomic_slots": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
NWARPS = TPB // 32


@cuda.jit
def block_sum(x, partial):
    sums = cuda.shared.array(NWARPS, float32)
    count = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t == 0:
        count[0] = 0
    cuda.syncthreads()
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
    if t % 32 == 0:
        slot = cuda.atomic.add(count, 0, 1)  # the next free slot, whichever warp comes first
        sums[slot] = v
    cuda.syncthreads()
    if t == 0:
        acc = float32(0.0)
        for k in range(count[0]):
            acc += sums[k]
        partial[cuda.blockIdx.x] = acc
""",
    ),
    "hok_block_sum_waits_for_previous_block": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["sync"],
        passes=ALL,
        reason="waits for a value that another block writes",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        if b > 0:
            while cuda.atomic.add(partial, b - 1, 0.0) == 0.0:  # in block order
                pass
        cuda.atomic.add(partial, b, s[0])  # partial starts at zero: the add is the store
""",
    ),
    "hok_block_sum_spins_on_plain_load": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=ALL,
        passes=[],
        reason="plain loads",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        if b > 0:
            while partial[b - 1] == 0.0:  # a plain load: the compiler may read it once
                pass
        partial[b] = s[0]
""",
    ),
    # -- 08 scan ----------------------------------------------------------------------------
    "hok_block_scan_hillis_steele_two_buffers": dict(
        exercise="08_scan",
        part="block_scan",
        fail=["work"],  # right and race-free, but not work-efficient: the exercise asks that
        passes=ALL + ["bounds", "sync", "parallel"],
        reason="Hillis-Steele",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    buf = cuda.shared.array((2, TPB), float32)  # ping-pong: read one row, write the other
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[0, t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    src = 0
    d = 1
    while d < TPB:
        v = buf[src, t]
        if t >= d:
            v += buf[src, t - d]
        buf[1 - src, t] = v
        cuda.syncthreads()  # one barrier a step is enough with two buffers
        src = 1 - src
        d *= 2
    if i < x.size:
        out[i] = buf[src, t]
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = buf[src, t]
""",
    ),
    "hok_block_scan_hillis_steele_in_place": dict(
        exercise="08_scan",
        part="block_scan",
        fail=["sync"],
        passes=[],
        reason="no barrier in between",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    d = 1
    while d < TPB:
        if t >= d:
            s[t] += s[t - d]  # reads a neighbour that may already have added this step
        cuda.syncthreads()
        d *= 2
    if i < x.size:
        out[i] = s[t]
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = s[t]
""",
    ),
    "hok_add_block_offsets_shared_broadcast_tail_return": dict(
        exercise="08_scan",
        part="add_block_offsets",
        full=True,
        kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    base = cuda.shared.array(1, float32)
    b = cuda.blockIdx.x
    if b == 0:
        return  # the whole block: no barrier waits for it
    if cuda.threadIdx.x == 0:
        base[0] = offsets[b - 1]
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < out.size:
        out[i] += base[0]
""",
    ),
    # -- 09 transpose -----------------------------------------------------------------------
    "hok_transpose_tiled_return_before_barrier": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        fail=["sync"],
        passes=[],
        reason="exited",
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    if x >= cols or y >= rows:
        return  # leaves before the barrier below
    for j in range(0, TILE, BLOCK_ROWS):
        if y + j < rows:
            tile[ty + j, tx] = a[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if x < rows and y + j < cols:
            out[y + j, x] = tile[tx, ty + j]
""",
    ),
    "hok_transpose_tiled_barrier_per_row": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        full=True,
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if x < cols and y + j < rows:
            tile[ty + j, tx] = a[y + j, x]
        cuda.syncthreads()  # more barriers than needed, but every thread meets each one
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if x < rows and y + j < cols:
            out[y + j, x] = tile[tx, ty + j]
""",
    ),
    # -- 10 warp reduce ---------------------------------------------------------------------
    "hok_warp_reduce_syncwarp_instead_of_barrier": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["sync"],
        passes=[],
        reason="no barrier in between",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncwarp()  # orders one warp only: warp 0 reads the other warps' sums
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        for off in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(FULL_MASK, v, off)
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "hok_warp_reduce_atomic_into_partial": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(FULL_MASK, v, off)  # every lane ends with the warp's sum
    if cuda.laneid == 0:
        cuda.atomic.add(partial, cuda.blockIdx.x, v)  # WARPS atomics per block
""",
    ),
    # -- 11 softmax -------------------------------------------------------------------------
    "hok_row_max_barrier_in_strided_loop": dict(
        exercise="11_softmax",
        part="row_max",
        fail=["sync"],
        passes=[],
        reason="not reached by every thread",
        kernel="""
@cuda.jit
def row_max(x, m):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    buf[t] = -math.inf
    for c in range(t, x.shape[1], TPB):
        buf[t] = max(buf[t], x[r, c])
        cuda.syncthreads()  # the trip count differs between threads of the row
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
    "hok_exp_sum_zero_then_warp_atomics": dict(
        exercise="11_softmax",
        part="exp_sum",
        full=True,
        kernel="""
@cuda.jit
def exp_sum(x, m, e, s):
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    if t == 0:
        s[r] = 0.0
    cuda.syncthreads()
    mx = m[r]
    acc = float32(0.0)
    for c in range(t, x.shape[1], TPB):
        v = math.exp(x[r, c] - mx)
        e[r, c] = v
        acc += v
    for off in (16, 8, 4, 2, 1):
        acc += cuda.shfl_down_sync(0xFFFFFFFF, acc, off)
    if t % 32 == 0:
        cuda.atomic.add(s, r, acc)
""",
    ),
    "hok_softmax_fused_shared_scalar_no_barrier_after": dict(
        exercise="11_softmax",
        part="softmax_fused",
        fail=["sync"],
        passes=[],
        reason="no barrier in between",
        kernel="""
@cuda.jit
def softmax_fused(x, out):
    buf = cuda.shared.array(TPB, float32)
    stat = cuda.shared.array(2, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    v = float32(-math.inf)
    for c in range(t, cols, TPB):
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
        stat[0] = buf[0]
    mx = stat[0]  # thread 0 may not have stored it yet
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
    # -- more styles and attempts -----------------------------------------------------------
    "hok_transpose_padded_dynamic_shared": dict(
        exercise="09_transpose",
        part="transpose_padded",
        fail=ALL,
        passes=[],
        reason="dynamic shared memory: the launch gives it no bytes",
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    flat = cuda.shared.array(0, float32)  # dynamic: the launch gives it no bytes
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if x < cols and y + j < rows:
            flat[(ty + j) * (TILE + 1) + tx] = a[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if x < rows and y + j < cols:
            out[y + j, x] = flat[tx * (TILE + 1) + ty + j]
""",
    ),
    "hok_blur2d_tiled_filter_in_local_array": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        full=True,
        kernel="""
K = 2 * R + 1


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    taps = cuda.local.array((K, K), float32)  # the filter in each thread's registers
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    h, wd = img.shape
    row0 = cuda.blockIdx.y * TILE - R
    col0 = cuda.blockIdx.x * TILE - R
    for dy in range(K):
        for dx in range(K):
            taps[dy, dx] = w[dy, dx]
    for ly in range(ty, HALO, TILE):
        for lx in range(tx, HALO, TILE):
            tile[ly, lx] = img[min(max(row0 + ly, 0), h - 1), min(max(col0 + lx, 0), wd - 1)]
    cuda.syncthreads()
    row, col = row0 + R + ty, col0 + R + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(K):
            for dx in range(K):
                acc += taps[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
""",
    ),
    "hok_gaming_matmul_tiled_shared_detour": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["memory"],
        passes=ALL + ["bounds", "sync"],
        reason="global",
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
    for k in range(kk):  # every product's operands pass through shared memory, none reused
        sA[ty, tx] = A[row, k] if row < m else float32(0.0)
        sB[ty, tx] = B[k, col] if col < n else float32(0.0)
        cuda.syncthreads()
        acc += sA[ty, tx] * sB[ty, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
}

"""Blind submissions for exercises 03, 04, 06, 09 and 10, aimed at 2-D indexing, float64 promotion, negative indices, warp masks and ring handler styles, written from the student notebooks and INSTRUCTOR.md only."""

CASES = {
    # ------------------------------------------------------------------ 03_matmul
    "hok12_matmul_naive_int_acc_while_f64": dict(
        exercise="03_matmul",
        part="matmul_naive",
        kernel='''
@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    m, n = C.shape
    if row >= m or col >= n:
        return
    # acc starts as an int, numba unifies it to float64 once products are added
    acc = 0
    kk = 0
    while kk < A.shape[1]:
        acc += np.float64(A[row, kk]) * B[kk, col]
        kk += 1
    C[row, col] = acc  # stored as float32
''',
        full=True,
    ),
    "hok12_matmul_tiled_3d_shared_uniform_last_barrier": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit(device=True)
def load_or_zero(M, r, c):
    if r < M.shape[0] and c < M.shape[1]:
        return M[r, c]
    return float32(0.0)


@cuda.jit
def matmul_tiled(A, B, C):
    # one shared array holds both tiles: tiles[0] is A's, tiles[1] is B's
    tiles = cuda.shared.array((2, TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    k = A.shape[1]
    ntiles = (k + TILE - 1) // TILE
    acc = float32(0.0)
    for t in range(ntiles):
        tiles[0, ty, tx] = load_or_zero(A, row, t * TILE + tx)
        tiles[1, ty, tx] = load_or_zero(B, t * TILE + ty, col)
        cuda.syncthreads()
        for j in range(TILE):
            acc += tiles[0, ty, j] * tiles[1, j, tx]
        # ntiles is the same for every thread of the block, so this branch is uniform:
        # nobody overwrites the tiles after the last step, no need to wait there
        if t + 1 < ntiles:
            cuda.syncthreads()
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = acc
''',
        full=True,
    ),
    "hok12_matmul_tiled_barrier_only_for_inside_threads": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, k = A.shape
    n = B.shape[1]
    inside = row < m and col < n
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        a_c = t * TILE + tx
        b_r = t * TILE + ty
        sA[ty, tx] = A[row, a_c] if row < m and a_c < k else float32(0.0)
        sB[ty, tx] = B[b_r, col] if b_r < k and col < n else float32(0.0)
        cuda.syncthreads()
        if inside:
            for j in range(TILE):
                acc += sA[ty, j] * sB[j, tx]
            # only the threads that read the tiles need to wait before they are reloaded
            cuda.syncthreads()
    if inside:
        C[row, col] = acc
''',
        fail=["sync"],
        passes=[],
        reason="divergent barrier",
        why="in edge blocks (m or n not a multiple of 16, e.g. the public 20x18 @ 18x33) threads outside C skip the second syncthreads: a barrier some threads never reach, and they reload sA/sB while inside threads still read them (race).",
    ),
    # ------------------------------------------------------------------ 04_conv2d
    "hok12_blur2d_centred_filter_negative_index": dict(
        exercise="04_conv2d",
        part="blur2d",
        kernel='''
@cuda.jit(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    if row < h and col < wd:
        K = w.shape[0]
        r = K // 2
        acc = float32(0.0)
        for dy in range(K):
            for dx in range(K):
                y = clamp(row + dy - r, 0, h - 1)
                x = clamp(col + dx - r, 0, wd - 1)
                # centred filter index: -r..r, "0 is the middle"
                acc += w[dy - r, dx - r] * img[y, x]
        out[row, col] = acc
''',
        fail=["public", "hidden"],
        passes=[],
        reason="wrong values",
        why="w[dy - r, dx - r] wraps negative offsets to the end of the filter (NumPy semantics, as numba-cuda does), so the filter is cyclically shifted by r: right only for a uniform filter or K = 1, wrong for the non-symmetric public filters; no access is out of range.",
    ),
    "hok12_blur2d_tiled_divmod_strided_halo_load": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    h, wd = img.shape
    y0 = cuda.blockIdx.y * TILE - R
    x0 = cuda.blockIdx.x * TILE - R
    # the 256 threads walk the 20 x 20 halo'd tile in row-major order
    idx = ty * TILE + tx
    while idx < HALO * HALO:
        hy, hx = divmod(idx, HALO)
        gy = min(max(y0 + hy, 0), h - 1)
        gx = min(max(x0 + hx, 0), wd - 1)
        tile[hy, hx] = img[gy, gx]
        idx += TILE * TILE
    cuda.syncthreads()
    row = y0 + R + ty
    col = x0 + R + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
''',
        full=True,
    ),
    "hok12_blur2d_tiled_halo_corner_never_loaded": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit(device=True)
def pixel(img, y, x):
    h, wd = img.shape
    return img[min(max(y, 0), h - 1), min(max(x, 0), wd - 1)]


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    # centre: tile[ty + R, tx + R] is img[row, col]
    tile[ty + R, tx + R] = pixel(img, row, col)
    # left / right strips
    if tx < R:
        tile[ty + R, tx] = pixel(img, row, col - R)
        tile[ty + R, tx + TILE + R] = pixel(img, row, col + TILE)
    # top / bottom strips
    if ty < R:
        tile[ty, tx + R] = pixel(img, row - R, col)
        tile[ty + TILE + R, tx + R] = pixel(img, row + TILE, col)
    cuda.syncthreads()
    if row < img.shape[0] and col < img.shape[1]:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
''',
        fail=["sync"],
        passes=[],
        reason="uninitialised shared",
        why="the four R x R corners of the halo tile are never written, so threads within R of a tile corner (e.g. thread (0, 0), which reads tile[0, 0]) read shared memory nobody wrote: stale values on a GPU, initcheck reports it, in every case and every block.",
    ),
    "hok12_blur2d_tiled_halo_read_from_global": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    h, wd = img.shape
    tile[ty, tx] = img[min(row, h - 1), min(col, wd - 1)]
    cuda.syncthreads()
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(-R, R + 1):
            for dx in range(-R, R + 1):
                y = min(max(row + dy, 0), h - 1)
                x = min(max(col + dx, 0), wd - 1)
                sy = y - cuda.blockIdx.y * TILE
                sx = x - cuda.blockIdx.x * TILE
                if 0 <= sy < TILE and 0 <= sx < TILE:
                    v = tile[sy, sx]  # inside this block's tile: shared memory
                else:
                    v = img[y, x]  # the halo: straight from global memory
                acc += w[dy + R, dx + R] * v
        out[row, col] = acc
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="global loads",
        why="outputs are right, but the halo is re-read from global memory by every thread that needs it (up to 16 loads for a corner thread, about 2.5 per output on top of the tile), well over one load per element of the block's halo'd tile.",
    ),
    # ------------------------------------------------------------------ 06_ring
    "hok12_ring_detect_math_sqrt_nested_select": dict(
        exercise="06_ring",
        part="detect",
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    x = req.x
    count = state.count
    mean = state.mean
    m2 = state.m2
    n = count + 1.0
    delta = x - mean
    new_mean = mean + delta / n
    new_m2 = m2 + delta * (x - new_mean)
    # both sides of a select run: keep every denominator non-zero
    has_var = count > 1.0
    var = select(has_var, m2 / select(has_var, count - 1.0, 1.0), 0.0)
    std = math.sqrt(var)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
    state.count = n
    state.mean = new_mean
    state.m2 = new_m2
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    rep.flag = flag
''',
        full=True,
    ),
    "hok12_ring_flag_strictly_after_min_count": dict(
        exercise="06_ring",
        part="detect",
        kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    count = state.count
    delta = req.x - state.mean
    n = count + 1.0
    new_mean = state.mean + delta / n
    new_m2 = state.m2 + delta * (req.x - new_mean)
    safe = select(count > 1.0, count - 1.0, 1.0)
    std = select(count > 1.0, math.sqrt(state.m2 / safe), 0.0)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    # "once MIN_COUNT readings have been seen": more than MIN_COUNT
    flag = select(count > MIN_COUNT, select(math.fabs(z) > THRESHOLD, 1, 0), 0)
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    rep.flag = flag
    state.count = n
    state.mean = new_mean
    state.m2 = new_m2
''',
        fail=["hidden"],
        passes=[],
        reason='wrong values',
        why="count > MIN_COUNT misses the first flaggable reading (exactly 10 readings before it): the hidden boundary 'a spike on message 10' gets flag 0 where the spec says 1; every other reply is identical.",
    ),
    # ------------------------------------------------------------------ 09_transpose
    "hok12_transpose_naive_negative_wrapped_indices": dict(
        exercise="09_transpose",
        part="transpose_naive",
        kernel='''
@cuda.jit
def transpose_naive(a, out):
    col, row = cuda.grid(2)
    rows, cols = a.shape
    if row < rows and col < cols:
        # row - rows is in [-rows, -1]: NumPy-style wrap-around lands on row itself
        out[col - cols, row - rows] = a[row - rows, col]
''',
        full=True,
    ),
    "hok12_transpose_padded_xor_swizzle_while": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    # unpadded tile, element (r, c) stored at column c ^ r of row r (XOR swizzle)
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    rows, cols = a.shape
    k = 0
    while k < TILE:
        r = ty + k
        y = by * TILE + r
        x = bx * TILE + tx
        if y < rows and x < cols:
            tile[r, tx ^ r] = a[y, x]
        k += BLOCK_ROWS
    cuda.syncthreads()
    k = 0
    while k < TILE:
        c = ty + k
        y = bx * TILE + c  # row of out
        x = by * TILE + tx  # column of out
        if y < cols and x < rows:
            out[y, x] = tile[tx, c ^ tx]
        k += BLOCK_ROWS
''',
        full=True,
    ),
    "hok12_transpose_tiled_syncwarp_instead_of_syncthreads": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    rows, cols = a.shape
    for k in range(0, TILE, BLOCK_ROWS):
        if y + k < rows and x < cols:
            tile[ty + k, tx] = a[y + k, x]
    # a warp is one row of the tile, so a warp barrier is enough (?)
    cuda.syncwarp()
    xo = cuda.blockIdx.y * TILE + tx
    yo = cuda.blockIdx.x * TILE + ty
    for k in range(0, TILE, BLOCK_ROWS):
        if yo + k < cols and xo < rows:
            out[yo + k, xo] = tile[tx, ty + k]
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="lane tx of a warp reads tile[tx, ty + k], a column written by 32 different rows, i.e. by other warps (tile row tx is written by warp tx % 8); syncwarp orders only the warp itself, so the read races with another warp's write in every case with more than one tile row (all public cases).",
    ),
    "hok12_transpose_tiled_store_walks_out_columns": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    rows, cols = a.shape
    for k in range(0, TILE, BLOCK_ROWS):
        r = by * TILE + ty + k
        c = bx * TILE + tx
        if r < rows and c < cols:
            tile[ty + k, tx] = a[r, c]
    cuda.syncthreads()
    # each thread writes back "its own" elements, read the same way they were stored
    for k in range(0, TILE, BLOCK_ROWS):
        r = by * TILE + ty + k
        c = bx * TILE + tx
        if r < rows and c < cols:
            out[c, r] = tile[ty + k, tx]
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="sectors",
        why="the shared tile carries nothing: a warp (fixed ty + k, 32 consecutive tx) stores out[c, r] down a column of out, 32 sectors per warp store where 4 would do, exactly the naive kernel's strided store.",
    ),
    # ------------------------------------------------------------------ 10_warp_reduce
    "hok12_warp_reduce_xor_then_four_lane_mask": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit(device=True)
def warp_allsum(v):
    off = 16
    while off > 0:
        v += cuda.shfl_xor_sync(FULL_MASK, v, off)
        off //= 2
    return v


@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.blockIdx.x * TPB + t
    v = x[i] if i < x.size else float32(0.0)
    v = warp_allsum(v)  # every lane has its warp's sum
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if t < WARPS:
        # exactly the WARPS lanes that are here, and no others
        s = warp_sums[t]
        off = WARPS // 2
        while off > 0:
            s += cuda.shfl_down_sync((1 << WARPS) - 1, s, off)
            off //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = s
''',
        full=True,
    ),
    "hok12_warp_reduce_ballot_mask_all_lanes_call": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    i = cuda.blockIdx.x * TPB + t
    valid = i < x.size
    v = x[i] if valid else float32(0.0)
    # only the lanes that hold data take part in the sum
    mask = cuda.ballot_sync(FULL_MASK, valid)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(mask, v, off)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        s = warp_sums[lane] if lane < WARPS else float32(0.0)
        for off in (16, 8, 4, 2, 1):
            s += cuda.shfl_down_sync(FULL_MASK, s, off)
        if lane == 0:
            partial[cuda.blockIdx.x] = s
''',
        fail=["masks", "sync"],
        passes=[],
        reason="mask",
        why="in a warp that ends past x.size (public n = 1000 and n = 5) the lanes past the end still execute shfl_down_sync with a ballot mask that leaves them out (undefined), and lanes inside read lanes outside the mask (undefined value reaching lane 0's sum); a warp with no data calls it with mask 0.",
    ),
    "hok12_warp_reduce_zeroes_sums_with_extra_barrier": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        kernel='''
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    warp = t // 32
    # be safe: start from zeroed warp sums (the last WARPS threads do it, they have
    # nothing else to do with shared memory)
    if t >= TPB - WARPS:
        warp_sums[t - (TPB - WARPS)] = float32(0.0)
    cuda.syncthreads()
    i = cuda.blockIdx.x * TPB + t
    v = float32(0.0)
    if i < x.size:
        v = x[i]
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        s = float32(0.0)
        if lane < WARPS:
            s = warp_sums[lane]
        for off in (16, 8, 4, 2, 1):
            s += cuda.shfl_down_sync(FULL_MASK, s, off)
        if lane == 0:
            partial[cuda.blockIdx.x] = s
''',
        fail=["barriers"],
        passes=["public", "hidden", "sync", "parallel", "masks", "registers"],
        reason="syncthreads",
        why="correct sums, but two syncthreads per block where the brief allows one (the zeroing is useless: every warp writes its slot); shared accesses stay within 1 + WARPS per thread (thread 0: one store, four loads; threads 124-127: one zeroing store).",
    ),
}

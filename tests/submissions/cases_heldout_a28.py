"""Blind set a28: the efficiency criteria at their edges (register tiles, swizzles, 3-D shared arrays, syncthreads_count barriers, stride-2 loads, three-pass softmax, sizes that are multiples of the tile only)."""

CASES = {
    # ------------------------------------------------------------------ full marks
    "hoc28_matmul_tiled_3d_shared_syncthreads_count": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    # both tiles live in one 3-D shared array: plane 0 is A's tile, plane 1 is B's
    tiles = cuda.shared.array((2, TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * TILE + tx
    row = cuda.blockIdx.y * TILE + ty
    m, k = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    t0 = 0
    while t0 < k:
        a_col = t0 + tx
        b_row = t0 + ty
        tiles[0, ty, tx] = A[row, a_col] if row < m and a_col < k else float32(0.0)
        tiles[1, ty, tx] = B[b_row, col] if b_row < k and col < n else float32(0.0)
        cuda.syncthreads_count(1)  # a full barrier that also counts (unused)
        for i in range(TILE):
            acc += tiles[0, ty, i] * tiles[1, i, tx]
        cuda.syncthreads_count(1)
        t0 += TILE
    if row < m and col < n:
        C[row, col] = acc
''',
        full=True,
    ),
    "hoc28_matmul_tiled_acc_starts_from_c": dict(
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
    if inside:
        acc = C[row, col]  # C arrives zeroed: accumulate C += A @ B like a BLAS gemm
    for t in range((k + TILE - 1) // TILE):
        kk = t * TILE
        if row < m and kk + tx < k:
            sA[ty, tx] = A[row, kk + tx]
        else:
            sA[ty, tx] = 0.0
        if kk + ty < k and col < n:
            sB[ty, tx] = B[kk + ty, col]
        else:
            sB[ty, tx] = 0.0
        cuda.syncthreads()
        for i in range(TILE):
            acc += sA[ty, i] * sB[i, tx]
        cuda.syncthreads()
    if inside:
        C[row, col] = acc
''',
        full=True,
    ),
    "hoc28_blur2d_tiled_strided_patch_loop": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit(device=True)
def clamp(v, hi):
    return min(max(v, 0), hi)


@cuda.jit
def blur2d_tiled(img, w, out):
    patch = cuda.shared.array((HALO, HALO), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows, cols = img.shape
    top = cuda.blockIdx.y * TILE - R
    left = cuda.blockIdx.x * TILE - R
    # the (TILE + 2R)^2 patch is bigger than the block: each thread walks it with stride TILE
    for i in range(ty, HALO, TILE):
        gy = clamp(top + i, rows - 1)
        for j in range(tx, HALO, TILE):
            patch[i, j] = img[gy, clamp(left + j, cols - 1)]
    cuda.syncthreads()
    row = top + R + ty
    col = left + R + tx
    if row < rows and col < cols:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * patch[ty + dy, tx + dx]
        out[row, col] = acc
''',
        full=True,
    ),
    "hoc28_transpose_padded_swizzle_range_loop": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    # no padding: a 32 x 32 tile where element (r, c) lives in column (c + r) % TILE
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x0 = cuda.blockIdx.x * TILE
    y0 = cuda.blockIdx.y * TILE
    rows, cols = a.shape
    for r in range(ty, TILE, BLOCK_ROWS):
        if y0 + r < rows and x0 + tx < cols:
            tile[r, (tx + r) % TILE] = a[y0 + r, x0 + tx]
    cuda.syncthreads()
    for r in range(ty, TILE, BLOCK_ROWS):
        # out[x0 + r, y0 + tx] = a[y0 + tx, x0 + r], which is element (tx, r) of the tile
        if x0 + r < cols and y0 + tx < rows:
            out[x0 + r, y0 + tx] = tile[tx, (r + tx) % TILE]
''',
        full=True,
    ),
    "hoc28_row_max_shfl_xor_butterfly": dict(
        exercise="11_softmax",
        part="row_max",
        extra_cells=["WARPS_PER_ROW = TPB // 32  # warps in one block\n"],
        kernel='''
@cuda.jit(device=True)
def warp_max(v):
    # butterfly: after 5 steps every lane holds the warp's max
    off = 16
    while off > 0:
        v = max(v, cuda.shfl_xor_sync(0xFFFFFFFF, v, off))
        off //= 2
    return v


@cuda.jit
def row_max(x, m):
    per_warp = cuda.shared.array(WARPS_PER_ROW, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    lane = t % 32
    wid = t // 32
    cols = x.shape[1]
    best = float32(-math.inf)
    c = t
    while c < cols:
        best = max(best, x[r, c])
        c += TPB
    best = warp_max(best)  # every lane of every warp gets here: full mask is right
    if lane == 0:
        per_warp[wid] = best
    cuda.syncthreads()
    if wid == 0:
        v = float32(-math.inf)
        if lane < WARPS_PER_ROW:
            v = per_warp[lane]
        v = warp_max(v)
        if lane == 0:
            m[r] = v
''',
        full=True,
    ),
    # ------------------------------------------------------------------ real bugs
    "hoc28_matmul_tiled_tiles_from_griddim_square_only": dict(
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
    acc = float32(0.0)
    # one k-tile per block column of the grid (C is as wide as A is deep)
    for t in range(cuda.gridDim.x):
        kk = t * TILE
        sA[ty, tx] = A[row, kk + tx] if row < m and kk + tx < k else float32(0.0)
        sB[ty, tx] = B[kk + ty, col] if kk + ty < k and col < n else float32(0.0)
        cuda.syncthreads()
        for i in range(TILE):
            acc += sA[ty, i] * sB[i, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["hidden"],
        passes=["public", "bounds", "sync", "memory"],
        reason="hidden",
        why="the k loop runs gridDim.x = ceil(n/TILE) tiles, right when n >= k (both public cases, any square product) but it drops the last k-tiles whenever k spans more tiles than the grid has block columns, a boundary every hidden draw holds; extra tiles when n > k are fully guarded, so no extra loads or out-of-range accesses",
    ),
    "hoc28_matmul_tiled_missing_trailing_barrier": dict(
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
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        kk = t * TILE
        if row < m and kk + tx < k:
            sA[ty, tx] = A[row, kk + tx]
        else:
            sA[ty, tx] = 0.0
        if kk + ty < k and col < n:
            sB[ty, tx] = B[kk + ty, col]
        else:
            sB[ty, tx] = 0.0
        cuda.syncthreads()  # tiles are loaded
        for i in range(TILE):
            acc += sA[ty, i] * sB[i, tx]
        # (no barrier here: the next iteration's barrier is enough?)
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="with k over one tile (public 20x18 @ 18x33: two k-tiles) a fast warp stores the next sA/sB while slower warps of the block still read the previous tile: a write-after-read race racecheck reports, and the slow warps may multiply the wrong tile",
    ),
    "hoc28_transpose_tiled_fastpath_rows_typo": dict(
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
    x0 = bx * TILE
    y0 = by * TILE
    # interior tiles skip the guards
    full = (bx + 1) * TILE <= rows and (by + 1) * TILE <= rows
    if full:
        for k in range(0, TILE, BLOCK_ROWS):
            tile[ty + k, tx] = a[y0 + ty + k, x0 + tx]
    else:
        for k in range(0, TILE, BLOCK_ROWS):
            if y0 + ty + k < rows and x0 + tx < cols:
                tile[ty + k, tx] = a[y0 + ty + k, x0 + tx]
    cuda.syncthreads()
    if full:
        for k in range(0, TILE, BLOCK_ROWS):
            out[x0 + ty + k, y0 + tx] = tile[tx, ty + k]
    else:
        for k in range(0, TILE, BLOCK_ROWS):
            if x0 + ty + k < cols and y0 + tx < rows:
                out[x0 + ty + k, y0 + tx] = tile[tx, ty + k]
''',
        fail=["hidden", "bounds"],
        passes=["public"],
        reason='out-of-bounds',
        why="the interior test checks bx against rows instead of cols: harmless for square matrices and for all public cases (40x70, 32x32, 5x3: only tile (0,0) of the 40x70 is called full, and it is), but a tall matrix such as 33x1 or 70x20 calls a tile full whose columns pass cols, so it reads a past the row and stores out past its last row",
    ),
    "hoc28_softmax_fused_four_cached_values": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit(device=True)
def combine(m1, s1, m2, s2):
    mm = max(m1, m2)
    if mm == -math.inf:
        return mm, float32(0.0)
    return mm, s1 * math.exp(m1 - mm) + s2 * math.exp(m2 - mm)


@cuda.jit
def softmax_fused(x, out):
    sm = cuda.shared.array(TPB, float32)
    ss = cuda.shared.array(TPB, float32)
    vals = cuda.local.array(4, float32)  # rows fit in 4 * TPB: read x only once
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    mx = float32(-math.inf)
    for i in range(4):
        c = t + i * TPB
        if c < cols:
            vals[i] = x[r, c]
            mx = max(mx, vals[i])
    s = float32(0.0)
    for i in range(4):
        if t + i * TPB < cols:
            s += math.exp(vals[i] - mx)
    sm[t] = mx
    ss[t] = s
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            mm, sv = combine(sm[t], ss[t], sm[t + step], ss[t + step])
            sm[t] = mm
            ss[t] = sv
        cuda.syncthreads()
        step //= 2
    mx = sm[0]
    s = ss[0]
    for i in range(4):
        c = t + i * TPB
        if c < cols:
            out[r, c] = math.exp(vals[i] - mx) / s
''',
        fail=["hidden"],
        passes=["public", "bounds", "sync", "parallel", "memory"],
        reason="hidden",
        why="each thread caches four columns, so rows up to 512 columns (every public case: 100, 300, 37) are exact, but the hidden row of 4096+ columns only gets its first 512 columns in the max and sum and the rest of out stays 0",
    ),
    # ------------------------------------------------------------------ off the brief
    "hoc28_transpose_tiled_loads_stride_two": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x0 = cuda.blockIdx.x * TILE
    y0 = cuda.blockIdx.y * TILE
    rows, cols = a.shape
    # load: thread pairs (ty even / ty odd) share two rows, even columns then odd columns
    lr = 2 * (ty // 2) + tx // 16
    lc = 2 * (tx % 16) + ty % 2
    for k in range(0, TILE, BLOCK_ROWS):
        if y0 + k + lr < rows and x0 + lc < cols:
            tile[k + lr, lc] = a[y0 + k + lr, x0 + lc]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        if x0 + ty + k < cols and y0 + tx < rows:
            out[x0 + ty + k, y0 + tx] = tile[tx, ty + k]
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="sector",
        why="each warp load reads 16 floats at stride 2 in each of two rows: 8 sectors for 128 bytes that need 4, so the loads move twice the sectors of a coalesced pass; the stores are coalesced and every element is still moved exactly once",
    ),
    "hoc28_transpose_padded_swizzle_by_ty": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    # swizzle: shift each tile row by the ty of the thread that loads it
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x0 = cuda.blockIdx.x * TILE
    y0 = cuda.blockIdx.y * TILE
    rows, cols = a.shape
    for k in range(0, TILE, BLOCK_ROWS):
        if y0 + ty + k < rows and x0 + tx < cols:
            tile[ty + k, (tx + ty) % TILE] = a[y0 + ty + k, x0 + tx]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        # element (tx, ty + k) was loaded by a thread whose ty was tx % BLOCK_ROWS
        if x0 + ty + k < cols and y0 + tx < rows:
            out[x0 + ty + k, y0 + tx] = tile[tx, (ty + k + tx % BLOCK_ROWS) % TILE]
''',
        fail=["conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
        reason="conflict",
        why="the shift is r % 8 instead of r, so on the column read lanes tx, tx+8, tx+16, tx+24 land in the same bank on four different rows: a 4-way conflict on that line only (the row store stays conflict-free), while the transpose is exact",
    ),
    "hoc28_softmax_fused_three_passes": dict(
        exercise="11_softmax",
        part="softmax_fused",
        kernel='''
@cuda.jit
def softmax_fused(x, out):
    red = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    # pass 1: the row's max
    mx = float32(-math.inf)
    for c in range(t, cols, TPB):
        mx = max(mx, x[r, c])
    red[t] = mx
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            red[t] = max(red[t], red[t + step])
        cuda.syncthreads()
        step //= 2
    mx = red[0]
    cuda.syncthreads()  # everyone has the max before red is reused
    # pass 2: the sum of exp(x - max), reading the row again
    s = float32(0.0)
    for c in range(t, cols, TPB):
        s += math.exp(x[r, c] - mx)
    red[t] = s
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            red[t] += red[t + step]
        cuda.syncthreads()
        step //= 2
    s = red[0]
    # pass 3: write
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - mx) / s
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="loads",
        why="a correct, race-free softmax that reads every element of x three times (max, sum, write) where the online softmax needs two: 3 loads per element over the budget of 2",
    ),
}

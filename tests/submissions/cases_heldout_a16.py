"""Held-out set a16: two-dimensional tiles and their edges (conv2d halos, padded transposes, rectangular tiled matmuls), written blind from the student notebooks and INSTRUCTOR.md."""

CASES = {
    # ------------------------------------------------------------------ correct, unusual style
    "hoq16_blur2d_tiled_strided_flat_loader": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit(device=True)
def _edge(v, hi):
    # replicate the nearest edge pixel: clamp into [0, hi - 1]
    if v < 0:
        return 0
    if v >= hi:
        return hi - 1
    return v


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    H, W = img.shape
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    r0 = cuda.blockIdx.y * TILE - R  # image row of tile[0, 0]
    c0 = cuda.blockIdx.x * TILE - R  # image column of tile[0, 0]
    # all TILE*TILE threads walk the (TILE+2R)^2 patch together, one flat index each
    NT = TILE * TILE
    for i in range(ty * TILE + tx, HALO * HALO, NT):
        li, lj = i // HALO, i % HALO
        tile[li, lj] = img[_edge(r0 + li, H), _edge(c0 + lj, W)]
    cuda.syncthreads()
    row = r0 + R + ty
    col = c0 + R + tx
    if row >= H or col >= W:
        return  # after the only barrier: fine
    acc = float32(0.0)
    for dy in range(2 * R + 1):
        for dx in range(2 * R + 1):
            acc += w[dy, dx] * tile[ty + dy, tx + dx]
    out[row, col] = acc
''',
        full=True,
    ),
    "hoq16_blur2d_while_device_clamp": dict(
        exercise="04_conv2d",
        part="blur2d",
        kernel='''
@cuda.jit(device=True)
def edge(i, n):
    return min(max(i, 0), n - 1)


@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    H, W = img.shape
    if row >= H or col >= W:
        return
    K = w.shape[0]
    r = K // 2
    acc = float32(0)
    dy = 0
    while dy < K:
        src_r = edge(row + dy - r, H)
        dx = 0
        while dx < K:
            acc += w[dy, dx] * img[src_r, edge(col + dx - r, W)]
            dx += 1
        dy += 1
    out[row, col] = acc
''',
        full=True,
    ),
    "hoq16_transpose_padded_swizzle_while": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    # no padding: a 32 x 32 tile with element (r, c) stored in column (c + r) % TILE of row r
    tile = cuda.shared.array((TILE, TILE), float32)
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    x = bx * TILE + tx
    r = ty
    while r < TILE:
        y = by * TILE + r
        if y < rows and x < cols:
            tile[r, (tx + r) % TILE] = a[y, x]
        r += BLOCK_ROWS
    cuda.syncthreads()
    x = by * TILE + tx  # column of out = row of a
    r = ty
    while r < TILE:
        y = bx * TILE + r  # row of out = column of a
        if y < cols and x < rows:
            # element (tx, r) of the tile lives in column (r + tx) % TILE of row tx
            out[y, x] = tile[tx, (r + tx) % TILE]
        r += BLOCK_ROWS
''',
        full=True,
    ),
    "hoq16_transpose_tiled_turn_on_the_way_in": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    rows, cols = a.shape
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    bx, by = cuda.blockIdx.x, cuda.blockIdx.y
    col = bx * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = by * TILE + ty + k
        if row < rows and col < cols:
            tile[tx, ty + k] = a[row, col]  # turn it around on the way in
    cuda.syncthreads()
    ocol = by * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        orow = bx * TILE + ty + k
        if orow < cols and ocol < rows:
            out[orow, ocol] = tile[ty + k, tx]  # and read it back row by row
''',
        full=True,
    ),
    "hoq16_matmul_tiled_bounded_inner_no_zero_fill": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    # tiles[0] is A's tile, tiles[1] is B's tile
    tiles = cuda.shared.array((2, TILE, TILE), float32)
    m, k = A.shape
    n = B.shape[1]
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    inside = row < m and col < n
    acc = float32(0.0)
    for k0 in range(0, k, TILE):
        # no zero padding: the inner loop stops at the end of k instead
        if row < m and k0 + tx < k:
            tiles[0, ty, tx] = A[row, k0 + tx]
        if k0 + ty < k and col < n:
            tiles[1, ty, tx] = B[k0 + ty, col]
        cuda.syncthreads()
        if inside:
            for j in range(min(TILE, k - k0)):
                acc += tiles[0, ty, j] * tiles[1, j, tx]
        cuda.syncthreads()
    if inside:
        C[row, col] = acc
''',
        full=True,
    ),
    # ------------------------------------------------------------------ real bugs
    "hoq16_blur2d_tiled_three_pass_missing_corner": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit(device=True)
def clampi(v, n):
    return max(0, min(v, n - 1))


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    H, W = img.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    # pass 1: the top-left TILE x TILE of the halo'd patch
    tile[ty, tx] = img[clampi(row - R, H), clampi(col - R, W)]
    # pass 2: the 2R rows below it
    if ty < 2 * R:
        tile[ty + TILE, tx] = img[clampi(row + TILE - R, H), clampi(col - R, W)]
    # pass 3: the 2R columns right of it
    if tx < 2 * R:
        tile[ty, tx + TILE] = img[clampi(row - R, H), clampi(col + TILE - R, W)]
    cuda.syncthreads()
    if row < H and col < W:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
''',
        fail=["public", "hidden", "sync"],
        passes=[],
        reason='read before any write',
        why="the bottom-right 2R x 2R corner tile[16:20, 16:20] is never stored, yet threads "
            "with ty >= 12 and tx >= 12 read it in every block (16x16 included): uninitialised "
            "shared memory, garbage in those outputs on a GPU",
    ),
    "hoq16_transpose_tiled_barrier_in_loop_continue": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y0 = cuda.blockIdx.y * TILE
    for k in range(0, TILE, BLOCK_ROWS):
        y = y0 + ty + k
        if y >= rows or x >= cols:
            continue  # nothing to load for this row
        tile[ty + k, tx] = a[y, x]
        cuda.syncthreads()  # make the row visible before moving on
    x = y0 + tx
    y0 = cuda.blockIdx.x * TILE
    for k in range(0, TILE, BLOCK_ROWS):
        y = y0 + ty + k
        if y < cols and x < rows:
            out[y, x] = tile[tx, ty + k]
''',
        fail=["sync"],
        passes=[],
        reason="divergent barrier",
        why="in any partial tile (40x70, 5x3) threads whose row or column is outside skip some or "
            "all of the loop's syncthreads: synccheck reports a divergent barrier, and e.g. in "
            "block (2,0) of 40x70 thread (10,0) skips every barrier and reads tile[10,0] that "
            "thread (0,2) writes in its second iteration with no barrier between (race); only "
            "full 32x32 tiles are clean",
    ),
    "hoq16_matmul_tiled_tile_count_from_n": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    m, n = C.shape
    k = A.shape[1]
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = float32(0.0)
    # walk over the tiles (one per TILE columns)
    for t in range((n + TILE - 1) // TILE):
        kc = t * TILE + tx
        kr = t * TILE + ty
        if row < m and kc < k:
            sA[ty, tx] = A[row, kc]
        else:
            sA[ty, tx] = 0.0
        if kr < k and col < n:
            sB[ty, tx] = B[kr, col]
        else:
            sB[ty, tx] = 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["hidden"],
        passes=["public", "bounds", "sync", "memory"],
        reason="hidden cases",
        why="the K loop counts tiles of n (C's width) instead of k: the public cases have n >= k "
            "(33 >= 18, 16 = 16) so the extra steps only add zeros, but any hidden case with "
            "ceil(k/16) > ceil(n/16) (e.g. A 20x40 @ B 40x10) drops the last K tiles",
    ),
    "hoq16_matmul_tiled_two_rows_per_thread_odd_m": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    m, k = A.shape
    n = B.shape[1]
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row0 = cuda.blockIdx.y * TILE
    col = cuda.blockIdx.x * TILE + tx
    a_row = row0 + ty
    # register blocking: the first TILE // 2 rows of threads compute two rows of C each
    r = row0 + 2 * ty
    acc0 = float32(0.0)
    acc1 = float32(0.0)
    for k0 in range(0, k, TILE):
        if a_row < m and k0 + tx < k:
            sA[ty, tx] = A[a_row, k0 + tx]
        else:
            sA[ty, tx] = float32(0.0)
        if k0 + ty < k and col < n:
            sB[ty, tx] = B[k0 + ty, col]
        else:
            sB[ty, tx] = float32(0.0)
        cuda.syncthreads()
        if ty < TILE // 2:
            for j in range(TILE):
                b = sB[j, tx]
                acc0 += sA[2 * ty, j] * b
                acc1 += sA[2 * ty + 1, j] * b
        cuda.syncthreads()
    if ty < TILE // 2 and r < m and col < n:
        C[r, col] = acc0
        C[r + 1, col] = acc1
''',
        fail=["hidden", "bounds"],
        passes=["public", "sync", "memory"],
        reason='out-of-bounds',
        why="the pair's second row r + 1 is not guarded: when m is odd (hidden m = 15, 17, 31...) "
            "the thread with r = m - 1 stores C[m, col], one row past C (memcheck: invalid "
            "global write); the public m = 20 and 16 are even, so they never see it",
    ),
    "hoq16_blur2d_filter_axes_swapped": dict(
        exercise="04_conv2d",
        part="blur2d",
        kernel='''
@cuda.jit
def blur2d(img, w, out):
    x, y = cuda.grid(2)
    h, wd = img.shape
    if x < wd and y < h:
        r = w.shape[0] // 2
        s = float32(0.0)
        for i in range(w.shape[0]):
            xx = min(max(x + i - r, 0), wd - 1)
            for j in range(w.shape[1]):
                yy = min(max(y + j - r, 0), h - 1)
                s += w[i, j] * img[yy, xx]
        out[y, x] = s
''',
        fail=["hidden"],
        passes=[],
        reason="hidden cases",
        why="i walks the x offset but indexes w's first (dy) axis, so it computes with w.T: "
            "right for every symmetric filter (a box blur, K = 1), wrong for the asymmetric "
            "filters the checks use",
    ),
    # ------------------------------------------------------------------ correct but off the brief
    "hoq16_transpose_padded_one_warp_stages_tile": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    # warp 0 stages the whole tile, row by row (each of its loads is still one coalesced row)
    if ty == 0:
        c = bx * TILE + tx
        for r in range(TILE):
            gr = by * TILE + r
            if gr < rows and c < cols:
                tile[r, tx] = a[gr, c]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        orow = bx * TILE + ty + k
        ocol = by * TILE + tx
        if orow < cols and ocol < rows:
            out[orow, ocol] = tile[tx, ty + k]
''',
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync", "memory", "conflicts"],
        reason='the work of many',
        why="correct, coalesced and conflict-free, but warp 0 makes all 32 loads and shared "
            "stores of each tile (64 memory operations per lane plus 8, against 8 for the other "
            "warps): the guide's 'one warp loading the whole tile' that loses parallel",
    ),
    "hoq16_blur2d_tiled_halo_from_global": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    H, W = img.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    # stage only the block's own pixels (clamped: threads past the edge copy the edge pixel)
    tile[ty, tx] = img[min(row, H - 1), min(col, W - 1)]
    cuda.syncthreads()
    if row < H and col < W:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                ly = ty + dy - R
                lx = tx + dx - R
                if 0 <= ly < TILE and 0 <= lx < TILE:
                    v = tile[ly, lx]
                else:  # the halo comes straight from global memory
                    v = img[min(max(row + dy - R, 0), H - 1), min(max(col + dx - R, 0), W - 1)]
                acc += w[dy, dx] * v
        out[row, col] = acc
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="global loads",
        why="correct replicated borders, but the halo is read from global memory by each thread "
            "that needs it: a full 16x16 block makes 256 + 924 = 1180 loads of img against "
            "400 for its 20x20 patch",
    ),
}

"""Submissions for exercises 03_matmul, 04_conv2d and 09_transpose (correct, wrong and off-brief
kernels, many using language features a simulator must model: 3-D shared arrays through views,
syncthreads_count, negative floor modulo in a swizzle, divmod), each written from the student
notebook and INSTRUCTOR.md alone, as a student would."""

CASES = {
    # ------------------------------------------------------------------ correct, unusual styles
    "hob3_blur2d_tuple_clamp_negfloor_radius": dict(
        exercise="04_conv2d",
        part="blur2d",
        kernel='''
@cuda.jit(device=True)
def clamp_pixel(r, c, h, wd):
    # replicate the nearest edge pixel: pull both coordinates back into the image
    return max(0, min(r, h - 1)), max(0, min(c, wd - 1))


@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    if not (0 <= row < h and 0 <= col < wd):
        return
    K = w.shape[0]
    rad = -(-K // 2) - 1  # ceil(K / 2) - 1 == K // 2 for odd K (floor division of a negative)
    acc = np.float32(0.0)
    dy = 0
    while dy < K:
        for dx in range(K):
            yy, xx = clamp_pixel(row + dy - rad, col + dx - rad, h, wd)
            acc += w[dy, dx] * img[yy, xx]
        dy += 1
    out[row, col] = acc
''',
        full=True,
    ),
    "hob3_blur2d_tiled_divmod_fill_syncthreads_count": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit(device=True)
def edge(v, n):
    # nearest valid index: the replicated border
    if v < 0:
        return 0
    if v >= n:
        return n - 1
    return v


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    h = img.shape[0]
    wd = img.shape[1]
    top = cuda.blockIdx.y * TILE - R
    left = cuda.blockIdx.x * TILE - R
    # the 256 threads walk the 400 elements of the patch in steps of 256
    for i in range(ty * TILE + tx, HALO * HALO, TILE * TILE):
        sy, sx = divmod(i, HALO)
        tile[sy, sx] = img[edge(top + sy, h), edge(left + sx, wd)]
    row = top + R + ty
    col = left + R + tx
    inside = row < h and col < wd
    # syncthreads_count is a full barrier; it also says how many pixels of the block are real
    busy = cuda.syncthreads_count(1 if inside else 0)
    if busy == 0 or not inside:
        return
    acc = float32(0)
    for dy in range(2 * R + 1):
        for dx in range(2 * R + 1):
            acc += w[dy, dx] * tile[ty + dy, tx + dx]
    out[row, col] = acc
''',
        full=True,
    ),
    "hob3_blur2d_tiled_3d_shared_view_local_weights": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        extra_cells=["KK = 2 * R + 1  # filter width of the tiled kernel\n"],
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    patch = cuda.shared.array((1, HALO, HALO), float32)
    sm = patch[0]  # 2-D view of the patch
    wl = cuda.local.array((KK, KK), float32)  # the 5 x 5 filter in registers
    for i in range(KK):
        for j in range(KK):
            wl[i, j] = w[i, j]
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    h, wd = img.shape
    y0 = cuda.blockIdx.y * TILE - R
    x0 = cuda.blockIdx.x * TILE - R
    # cover the (TILE + 2R)^2 patch with TILE x TILE passes; stop once past its edge
    for oy in range(0, HALO, TILE):
        sy = ty + oy
        if sy >= HALO:
            break
        gy = min(max(y0 + sy, 0), h - 1)
        for ox in range(0, HALO, TILE):
            sx = tx + ox
            if sx >= HALO:
                break
            gx = min(max(x0 + sx, 0), wd - 1)
            sm[sy, sx] = img[gy, gx]
    cuda.syncthreads()
    row = y0 + R + ty
    col = x0 + R + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(KK):
            for dx in range(KK):
                acc += wl[dy, dx] * sm[ty + dy, tx + dx]
        out[row, col] = acc
''',
        full=True,
    ),
    "hob3_matmul_tiled_selp_views_uniform_tail_barrier": dict(
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
    # clamp so that every load stays inside the matrices; selp zeroes what lies past k
    arow = A[min(row, m - 1)]
    ccol = min(col, n - 1)
    ntiles = (k + TILE - 1) // TILE
    acc = float32(0.0)
    t = 0
    while t < ntiles:
        ka = t * TILE + tx
        kb = t * TILE + ty
        va = arow[min(ka, k - 1)]
        vb = B[min(kb, k - 1), ccol]
        sA[ty, tx] = cuda.selp(ka < k, va, float32(0.0))
        sB[ty, tx] = cuda.selp(kb < k, vb, float32(0.0))
        cuda.syncthreads()
        for i in range(TILE):
            acc = cuda.fma(sA[ty, i], sB[i, tx], acc)
        t += 1
        if t < ntiles:
            # same for the whole block: the last step overwrites nothing, so no barrier after it
            cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        full=True,
    ),
    "hob3_matmul_tiled_double_buffer_one_barrier": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    # two buffers: step t fills buffer t % 2 while slow threads may still read the other one,
    # so a single barrier per step is enough
    sA = cuda.shared.array((2, TILE, TILE), float32)
    sB = cuda.shared.array((2, TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * cuda.blockDim.y + ty
    col = cuda.blockIdx.x * cuda.blockDim.x + tx
    m = A.shape[0]
    k = A.shape[1]
    n = B.shape[1]
    acc = np.float32(0)
    for t in range((k + TILE - 1) // TILE):
        buf = t % 2
        ka = t * TILE + tx
        kb = t * TILE + ty
        sA[buf, ty, tx] = A[row, ka] if row < m and ka < k else np.float32(0)
        sB[buf, ty, tx] = B[kb, col] if kb < k and col < n else np.float32(0)
        cuda.syncthreads()
        for i in range(TILE):
            acc += sA[buf, ty, i] * sB[buf, i, tx]
    if row < m and col < n:
        C[row, col] = acc
''',
        full=True,
    ),
    "hob3_transpose_padded_negative_mod_swizzle": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    # no padding: element (r, c) of the tile lives in column (c - r) mod TILE of row r
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows, cols = a.shape
    x0 = cuda.blockIdx.x * TILE
    y0 = cuda.blockIdx.y * TILE
    for k in range(0, TILE, BLOCK_ROWS):
        r = ty + k
        if y0 + r < rows and x0 + tx < cols:
            tile[r, (tx - r) % TILE] = a[y0 + r, x0 + tx]  # Python's %: never negative
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        c = ty + k
        if x0 + c < cols and y0 + tx < rows:
            out[x0 + c, y0 + tx] = tile[tx, (c - tx) % TILE]
''',
        full=True,
    ),
    "hob3_transpose_padded_transposed_write_into_tile": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows, cols = a.shape
    x0 = cuda.blockIdx.x * TILE
    y0 = cuda.blockIdx.y * TILE
    nr = min(TILE, rows - y0, rows)  # rows of a in this tile (fewer than TILE at the bottom)
    nc = min(TILE, cols - x0, cols)  # columns of a in this tile
    # turn the tile around on the way in (a column of the padded tile: 33 apart, 32 banks)
    for k in range(0, nr, BLOCK_ROWS):
        if ty + k >= nr or tx >= nc:
            continue
        tile[tx, ty + k] = a[y0 + ty + k, x0 + tx]
    cuda.syncthreads()
    # ... so the way out reads rows of the tile
    for k in range(0, nc, BLOCK_ROWS):
        if ty + k >= nc or tx >= nr:
            continue
        out[x0 + ty + k, y0 + tx] = tile[ty + k, tx]
''',
        full=True,
    ),
    # ------------------------------------------------------------------ real bugs
    "hob3_transpose_tiled_barrier_split_if_else": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    rows, cols = a.shape
    if x < cols:
        for k in range(0, TILE, BLOCK_ROWS):
            if y + k < rows:
                tile[ty + k, tx] = a[y + k, x]
        cuda.syncthreads()
    else:
        cuda.syncthreads()  # threads past the right edge still meet the barrier
    ox = cuda.blockIdx.y * TILE + tx
    oy = cuda.blockIdx.x * TILE + ty
    for k in range(0, TILE, BLOCK_ROWS):
        if oy + k < cols and ox < rows:
            out[oy + k, ox] = tile[tx, ty + k]
''',
        fail=["sync"],
        passes=[],
        reason="divergent barrier",
        why="the two syncthreads() are different barriers reached by different threads of the last "
        "block column whenever cols % 32 != 0 (UB by the CUDA guide; synccheck flags the divergence)",
    ),
    "hob3_matmul_tiled_skip_copy_for_rows_past_m": dict(
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
    acc = float32(0)
    for t in range((k + TILE - 1) // TILE):
        kk = t * TILE
        if row < m:  # rows past the bottom compute nothing, so they skip the copy
            sA[ty, tx] = A[row, kk + tx] if kk + tx < k else float32(0)
            sB[ty, tx] = B[kk + ty, col] if (kk + ty < k and col < n) else float32(0)
        cuda.syncthreads()
        for i in range(TILE):
            acc += sA[ty, i] * sB[i, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["hidden", "sync"],
        passes=[],
        reason="read before any write",
        why="in the last block row (m % 16 != 0) the threads with row >= m leave rows of sB unwritten "
        "that the valid threads read (garbage at step 0, stale B at later steps): wrong C rows, initcheck",
    ),
    "hob3_blur2d_tiled_clamp_rows_with_width": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit(device=True)
def clamp(v, last):
    return min(max(v, 0), last)


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    last = img.shape[1] - 1  # index of the last pixel
    y0 = cuda.blockIdx.y * TILE - R
    x0 = cuda.blockIdx.x * TILE - R
    # four passes: the tile, its right strip, its bottom strip, the corner
    tile[ty, tx] = img[clamp(y0 + ty, last), clamp(x0 + tx, last)]
    if tx < 2 * R:
        tile[ty, tx + TILE] = img[clamp(y0 + ty, last), clamp(x0 + tx + TILE, last)]
    if ty < 2 * R:
        tile[ty + TILE, tx] = img[clamp(y0 + ty + TILE, last), clamp(x0 + tx, last)]
        if tx < 2 * R:
            tile[ty + TILE, tx + TILE] = img[clamp(y0 + ty + TILE, last), clamp(x0 + tx + TILE, last)]
    cuda.syncthreads()
    row = y0 + R + ty
    col = x0 + R + tx
    if row < img.shape[0] and col < img.shape[1]:
        acc = float32(0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
''',
        fail=["hidden", "bounds"],
        passes=[],
        reason="out-of-bounds",
        why="rows are clamped to the width: for w > h the halo rows below the image read img[h..w-1, :] "
        "past the end (memcheck), for h > w the bottom rows read row w-1 instead of their own; square is fine",
    ),
    "hob3_matmul_tiled_a_guard_misses_k": dict(
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
    acc = float32(0)
    for t in range((k + TILE - 1) // TILE):
        kk = t * TILE
        # B's slot is zero past k, so A's value there does not matter (A x 0 = 0)
        sA[ty, tx] = A[row, kk + tx] if row < m else float32(0)
        sB[ty, tx] = B[kk + ty, col] if (kk + ty < k and col < n) else float32(0)
        cuda.syncthreads()
        for i in range(TILE):
            acc += sA[ty, i] * sB[i, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["bounds", "hidden"],
        passes=[],
        reason="out-of-bounds",
        why="for k % 16 != 0 the last K tile reads A[row, k..] : the next row's elements for most rows, "
        "and past the end of A for row m-1 (memcheck); NaN/inf garbage there would even poison C",
    ),
    "hob3_transpose_padded_syncwarp_only": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows, cols = a.shape
    x0 = cuda.blockIdx.x * TILE
    y0 = cuda.blockIdx.y * TILE
    for k in range(0, TILE, BLOCK_ROWS):
        if y0 + ty + k < rows and x0 + tx < cols:
            tile[ty + k, tx] = a[y0 + ty + k, x0 + tx]
    # one warp is one row of the tile, so a warp barrier is all it takes (cheaper than syncthreads)
    cuda.syncwarp()
    for k in range(0, TILE, BLOCK_ROWS):
        if x0 + ty + k < cols and y0 + tx < rows:
            out[x0 + ty + k, y0 + tx] = tile[tx, ty + k]
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="warp ty reads a column of the tile, written by all 8 warps; syncwarp orders only its own "
        "lanes, so racecheck reports RAW hazards between warps on every matrix larger than 1 x 1",
    ),
    "hob3_transpose_naive_shape_from_out": dict(
        exercise="09_transpose",
        part="transpose_naive",
        kernel='''
@cuda.jit
def transpose_naive(a, out):
    col, row = cuda.grid(2)
    rows, cols = out.shape  # the shape of the result
    if 0 <= row < rows and 0 <= col < cols:
        out[col, row] = a[row, col]
''',
        fail=["hidden", "bounds"],
        passes=[],
        reason="out-of-bounds",
        why="rows/cols are taken from out, so they are swapped: square matrices pass; for rows < cols "
        "threads read a[row >= rows, col] past the end of a, for rows > cols with cols % 32 != 0 "
        "(e.g. a single column) they read and write past the end, and whole-tile non-square ones "
        "leave outputs unwritten",
    ),
    # ------------------------------------------------------------------ correct but off the brief
    "hob3_transpose_padded_pad_two_words": dict(
        exercise="09_transpose",
        part="transpose_padded",
        extra_cells=["TILE_PAD2 = TILE + 2  # two spare words per row: more is better?\n"],
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD2), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows, cols = a.shape
    x0 = cuda.blockIdx.x * TILE
    y0 = cuda.blockIdx.y * TILE
    for k in range(0, TILE, BLOCK_ROWS):
        if y0 + ty + k < rows and x0 + tx < cols:
            tile[ty + k, tx] = a[y0 + ty + k, x0 + tx]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        if x0 + ty + k < cols and y0 + tx < rows:
            out[x0 + ty + k, y0 + tx] = tile[tx, ty + k]
''',
        fail=["conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
        reason="bank conflict",
        why="a row of 34 words puts tile[tx, c] in bank (2 tx + c) % 32: lanes tx and tx + 16 share a "
        "bank, a 2-way conflict on every column read",
    ),
    "hob3_transpose_tiled_strided_loads": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows, cols = a.shape
    x0 = cuda.blockIdx.x * TILE
    y0 = cuda.blockIdx.y * TILE
    # read the tile already turned around: tile[c, r] = a[y0 + r, x0 + c]
    for k in range(0, TILE, BLOCK_ROWS):
        if y0 + tx < rows and x0 + ty + k < cols:
            tile[ty + k, tx] = a[y0 + tx, x0 + ty + k]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        if x0 + ty + k < cols and y0 + tx < rows:
            out[x0 + ty + k, y0 + tx] = tile[ty + k, tx]
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="coalesced",
        why="each warp loads a column segment of a (32 lanes, 32 rows apart: 32 sectors for 4 sectors of "
        "bytes); stores are coalesced and the result is right",
    ),
    "hob3_matmul_naive_one_thread_per_block_row": dict(
        exercise="03_matmul",
        part="matmul_naive",
        kernel='''
@cuda.jit
def matmul_naive(A, B, C):
    # thread x == 0 of each block row computes the 16 outputs of its row segment
    if cuda.threadIdx.x != 0:
        return
    row = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    m, k = A.shape
    n = B.shape[1]
    if row >= m:
        return
    c0 = cuda.blockIdx.x * TILE
    for col in range(c0, min(c0 + TILE, n)):
        acc = float32(0)
        for i in range(k):
            acc += A[row, i] * B[i, col]
        C[row, col] = acc
''',
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason="one thread",
        why="a thread computes up to 16 outputs (16 (2k + 1) memory operations, past 4k + 8): right "
        "answers but the work of 16 threads in one",
    ),
}

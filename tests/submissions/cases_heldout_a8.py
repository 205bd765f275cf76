"""Blind submissions for exercises 01, 02, 03, 04 and 09, written across several cells as students write them (helpers in earlier cells, aliases, njit helpers, redefined constants and kernels), from the student notebooks and INSTRUCTOR.md only."""

CASES = {
    # ------------------------------------------------------------------ 01_elementwise
    "hog8_multiply_nc_alias_inline_helper": dict(
        exercise="01_elementwise",
        part="multiply",
        extra_cells=[
            '''from numba import cuda as nc  # shorter to type


@nc.jit(device=True, inline=True)
def _prod(p, q):
    """p * q for two float32 values (stays float32)"""
    return p * q
''',
        ],
        kernel='''
@nc.jit
def multiply(a, b, out):
    """out[i] = a[i] * b[i], one thread per element."""
    i = nc.grid(1)  # type: int
    if i >= out.size:
        return  # past the end: this thread has nothing to do
    out[i] = _prod(a[i], b[i])
''',
        full=True,
    ),
    "hog8_saxpy_while_else_gridstride": dict(
        exercise="01_elementwise",
        part="saxpy",
        kernel='''
@cuda.jit
def saxpy(alpha, x, y, out):
    """Grid-stride saxpy. With ceil(n / TPB) blocks the loop body runs at most once per thread."""
    i, stride = cuda.grid(1), cuda.gridsize(1)
    n = out.shape[0]
    while i < n:
        out[i] = alpha * x[i] + y[i]
        i += stride
    else:
        return  # nothing left for this thread
''',
        full=True,
    ),
    "hog8_multiply_gridstride_tpb_redefined": dict(
        exercise="01_elementwise",
        part="multiply",
        extra_cells=[
            '''# smaller blocks for my timing experiment (blocks_for reads TPB when it is called)
TPB = 128
''',
        ],
        kernel='''
@cuda.jit
def multiply(a, b, out):
    # grid-stride loop so any launch covers the whole array
    i = cuda.grid(1)
    stride = TPB * cuda.gridDim.x  # width of the grid
    while i < out.size:
        out[i] = a[i] * b[i]
        i += stride
''',
        # The grader launches with the exercise's TPB = 256 and compiles the kernel with it too
        # (INSTRUCTOR.md: the launch constants keep the exercise's values), so the stride is
        # the grid's and each thread stores one output, as the notebook's own launch with its
        # TPB = 128 does.
        full=True,
    ),
    # ------------------------------------------------------------------ 02_conv1d
    "hog8_conv1d_helper_cell_for_else": dict(
        exercise="02_conv1d",
        part="conv1d",
        extra_cells=[
            '''@cuda.jit(device=True)
def tap(x, j):
    """x[j], or 0 outside the signal (zero padding, no wrap-around)"""
    if 0 <= j < x.shape[0]:
        return x[j]
    return float32(0.0)
''',
        ],
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    """out[i] = sum_j w[j] * x[i + r - j], one thread per output."""
    TPB = cuda.blockDim.x  # local name: the same number as the notebook's TPB
    i = cuda.blockIdx.x * TPB + cuda.threadIdx.x
    if i >= out.shape[0]:
        return
    K = w.shape[0]
    r = K // 2
    acc = float32(0.0)
    for j in range(K):
        acc += w[j] * tap(x, i + r - j)
    else:
        out[i] = acc  # the loop ran to the end: store once
''',
        full=True,
    ),
    "hog8_conv1d_local_filter_cache_pow": dict(
        exercise="02_conv1d",
        part="conv1d",
        extra_cells=[
            '''WMAX = 3 ** 2  # longest filter I keep in registers (the demo's moving average has 9 taps)
''',
        ],
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    K = w.size
    r = K // 2
    wl = cuda.local.array(WMAX, float32)  # filter cached per thread
    kk = min(K, WMAX)  # never write past the local array
    for j in range(kk):
        wl[j] = w[j]
    if i < n:
        acc = float32(0.0)
        for j in range(kk):
            src = i + r - j
            if src >= 0 and src < n:
                acc += wl[j] * x[src]
        out[i] = acc
''',
        fail=["hidden"],
        passes=["public", "bounds", "parallel"],
        reason="hidden cases",
        why=(
            "The filter is cached in a local array of 9 and only min(K, 9) taps are summed, so for "
            "every filter longer than 9 (the hidden draw always holds K >= 15) taps 9..K-1 are "
            "dropped and the outputs are wrong; the public filters (K = 5, 3, 7) all fit, and no "
            "access is out of range."
        ),
    ),
    "hog8_conv1d_shared_syncwarp": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    sx = cuda.shared.array(TPB, float32)  # this block's slice of the signal
    tx = cuda.threadIdx.x
    i = cuda.grid(1)
    n = x.size
    base = cuda.blockIdx.x * TPB
    sx[tx] = x[i] if i < n else float32(0.0)
    cuda.syncwarp()  # my warp has loaded its 32 values
    if i < n:
        r = w.size // 2
        acc = float32(0.0)
        for j in range(w.size):
            s = i + r - j
            if 0 <= s < n:
                ls = s - base
                if 0 <= ls < TPB:
                    acc += w[j] * sx[ls]
                else:
                    acc += w[j] * x[s]  # outside the block: straight from global memory
        out[i] = acc
''',
        fail=["public", "hidden"],
        passes=[],
        reason="race",
        why=(
            "syncwarp only orders the lanes of one warp, but lanes near a warp edge (e.g. lane 31 "
            "reading sx[32..], lane 32 reading sx[31]) read slots another warp stores, with no "
            "syncthreads in between: racecheck reports a read-after-write hazard on shared memory "
            "for every K >= 3 and n > 32, and the value read may be stale."
        ),
    ),
    # ------------------------------------------------------------------ 03_matmul
    "hog8_matmul_naive_njit_helper": dict(
        exercise="03_matmul",
        part="matmul_naive",
        extra_cells=[
            '''import numba


@numba.njit
def fma_(acc, p, q):
    # plain numba function: numba-cuda compiles it as a device function when a kernel calls it
    return acc + p * q
''',
        ],
        kernel='''
@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    m, n = C.shape
    if row < m and col < n:
        acc = float32(0.0)
        for kk in range(A.shape[1]):
            acc = fma_(acc, A[row, kk], B[kk, col])
        C[row, col] = acc
''',
        full=True,
    ),
    "hog8_matmul_tiled_twice_uniform_barrier": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        extra_cells=[
            '''SHAPE = (TILE, TILE)  # one tile of A or of B


@cuda.jit(device=True)
def _at(M, r, c):
    # M[r, c], or 0 where the tile sticks out of the matrix
    if r < M.shape[0] and c < M.shape[1]:
        return M[r, c]
    return float32(0.0)


get = _at  # shorter name
''',
        ],
        kernel='''
# first try (kept for the record): no barrier after the products, and sB read as [kk, ty]
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array(SHAPE, float32)
    sB = cuda.shared.array(SHAPE, float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    acc = float32(0.0)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        sA[ty, tx] = get(A, row, t * TILE + tx)
        sB[ty, tx] = get(B, t * TILE + ty, col)
        cuda.syncthreads()
        for kk in range(TILE):
            acc += sA[ty, kk] * sB[kk, ty]
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = acc


# second version: both barriers. After the last step nothing overwrites the tiles, and every
# thread of the block computes the same ntiles, so skipping that one barrier is uniform.
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array(SHAPE, float32)
    sB = cuda.shared.array(SHAPE, float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    ntiles = (A.shape[1] + TILE - 1) // TILE
    acc = float32(0.0)
    t = 0
    while t < ntiles:
        sA[ty, tx] = get(A, row, t * TILE + tx)
        sB[ty, tx] = get(B, t * TILE + ty, col)
        cuda.syncthreads()
        for kk in range(TILE):
            acc += sA[ty, kk] * sB[kk, tx]
        t += 1
        if t < ntiles:
            cuda.syncthreads()  # before the next step overwrites the tiles
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = acc
''',
        full=True,
    ),
    "hog8_matmul_tiled_inline_helper_b_col": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        extra_cells=[
            '''@cuda.jit(device=True, inline=True)
def load_or_zero(M, r, c, lim):
    # zero past the k edge of the product (row r of M is the k index here)
    if r < lim:
        return M[r, c]
    return float32(0.0)
''',
        ],
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
        ka = t * TILE + tx
        sA[ty, tx] = A[row, ka] if row < m and ka < k else float32(0.0)
        # for B only the k edge matters: a column past n is never stored to C
        sB[ty, tx] = load_or_zero(B, t * TILE + ty, col, k)
        cuda.syncthreads()
        for kk in range(TILE):
            acc += sA[ty, kk] * sB[kk, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["public", "hidden", "bounds"],
        passes=[],
        reason='out-of-bounds',
        why=(
            "The inline helper only guards B's row (the k index): when n is not a multiple of 16, "
            "threads with col >= n read B[kb, col] past the row's end, and for kb = k - 1 that "
            "address lies past the end of B's allocation (memcheck: invalid global read); the "
            "values only feed outputs that are never stored, so C itself is right."
        ),
    ),
    # ------------------------------------------------------------------ 04_conv2d
    "hog8_blur2d_helper_reads_global_R": dict(
        exercise="04_conv2d",
        part="blur2d",
        extra_cells=[
            '''@cuda.jit(device=True)
def pixel(img, y, x):
    """img[y, x], replicating the nearest edge pixel outside the image"""
    h, wd = img.shape
    y = min(max(y, 0), h - 1)
    x = min(max(x, 0), wd - 1)
    return img[y, x]


@cuda.jit(device=True)
def window(img, w, row, col):
    acc = float32(0.0)
    for dy in range(w.shape[0]):
        for dx in range(w.shape[1]):
            acc += w[dy, dx] * pixel(img, row + dy - R, col + dx - R)  # R: the filter radius
    return acc
''',
            '''R = 1  # start with a 3 x 3 blur while testing
''',
        ],
        kernel='''
@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    if row < out.shape[0] and col < out.shape[1]:
        out[row, col] = window(img, w, row, col)
''',
        fail=["public", "hidden"],
        passes=[],
        reason="wrong",
        why=(
            "The helper centres the window with the global R (1 in the student's last cell, 2 in "
            "the notebook's) instead of w.shape[0] // 2, so every filter with another radius is "
            "shifted: the hidden draw always has K = 1 and K = 9, which come out wrong whatever "
            "value of R is used (and one public case, 16x16 with 3x3 or 20x33 with 5x5, too)."
        ),
    ),
    "hog8_blur2d_tiled_flat_load_test_launch": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        extra_cells=[
            '''import math as m

HALO_SHAPE = (HALO, HALO)
LOADS = m.ceil(HALO * HALO / (TILE * TILE))  # 400 / 256 -> 2 loads per thread at most


@cuda.jit(device=True, inline=True)
def clampi(v, hi):
    return min(max(v, 0), hi - 1)
''',
        ],
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array(HALO_SHAPE, float32)
    h, wd = img.shape
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    t = ty * TILE + tx  # flat thread index in the block
    y0 = cuda.blockIdx.y * TILE - R
    x0 = cuda.blockIdx.x * TILE - R
    for s in range(LOADS):
        idx = t + s * TILE * TILE
        if idx < HALO * HALO:
            hy, hx = idx // HALO, idx % HALO
            tile[hy, hx] = img[clampi(y0 + hy, h), clampi(x0 + hx, wd)]
    cuda.syncthreads()
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc


# quick test
_img = np.arange(20 * 21, dtype=np.float32).reshape(20, 21)
_w = np.full((5, 5), 1 / 25, dtype=np.float32)
_out = np.zeros_like(_img)
blur2d_tiled[grid_for(_img)](_img, _w, _out)
print("tiled ok:", np.allclose(_out, blur2d_spec(_img, _w), atol=1e-4))
''',
        full=True,
    ),
    "hog8_blur2d_tiled_final_barrier_after_return": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    h, wd = img.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    for dy in range(ty, HALO, TILE):
        for dx in range(tx, HALO, TILE):
            y = min(max(cuda.blockIdx.y * TILE + dy - R, 0), h - 1)
            x = min(max(cuda.blockIdx.x * TILE + dx - R, 0), wd - 1)
            tile[dy, dx] = img[y, x]
    cuda.syncthreads()
    if row >= h or col >= wd:
        return  # nothing to write for this thread
    acc = float32(0.0)
    for i in range(2 * R + 1):
        for j in range(2 * R + 1):
            acc += w[i, j] * tile[ty + i, tx + j]
    out[row, col] = acc
    cuda.syncthreads()  # wait for the whole block before leaving (just to be safe)
''',
        fail=["sync"],
        passes=["public", "hidden", "bounds", "memory"],
        reason="divergent barrier",
        why=(
            "Threads outside the image return before the last syncthreads(), so in every block "
            "that overhangs the image (h or w not a multiple of 16) that barrier is reached by only "
            "part of the block: synccheck reports a divergent barrier; the outputs are right."
        ),
    ),
    # ------------------------------------------------------------------ 09_transpose
    "hog8_transpose_naive_twice_flat_guard": dict(
        exercise="09_transpose",
        part="transpose_naive",
        kernel='''
@cuda.jit
def transpose_naive(a, out):
    col, row = cuda.grid(2)
    if row < a.shape[0] and col < a.shape[1]:
        out[col, row] = a[row, col]


# v2: one comparison instead of two (flat index into a)
@cuda.jit
def transpose_naive(a, out):
    col, row = cuda.grid(2)
    rows, cols = a.shape
    if row * cols + col < rows * cols:
        out[col, row] = a[row, col]
''',
        fail=["public", "hidden", "bounds"],
        passes=[],
        reason='out-of-bounds',
        why=(
            "The last definition guards the flat index only: a thread with col >= cols (cols not a "
            "multiple of 32) and row <= rows - 2 passes it, reads a[row, col] past its row and "
            "stores out[col, row] past the end of out (col * rows + row >= cols * rows): memcheck "
            "reports invalid global writes for every matrix of 2 rows or more whose cols is not a "
            "multiple of 32."
        ),
    ),
    "hog8_transpose_tiled_strided_load": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    r = cuda.blockIdx.y * TILE + tx  # lane tx takes row tx of the tile...
    for k in range(0, TILE, BLOCK_ROWS):
        c = cuda.blockIdx.x * TILE + ty + k
        if r < rows and c < cols:
            tile[tx, ty + k] = a[r, c]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        c = cuda.blockIdx.x * TILE + ty + k
        if r < rows and c < cols:
            out[c, r] = tile[tx, ty + k]  # ...so the store to out is a straight row
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="coalesced",
        why=(
            "The tile is indexed the same way on both sides, so the transpose happens on the load: "
            "a warp's 32 lanes read a[r, c] for 32 consecutive rows r, one 32-byte sector each "
            "(32 sectors where 4 would do); the stores are coalesced and the output is right."
        ),
    ),
    "hog8_transpose_padded_swizzle_eager": dict(
        exercise="09_transpose",
        part="transpose_padded",
        extra_cells=[
            '''PER_THREAD = TILE // BLOCK_ROWS  # 4 rows of the tile per thread
SIG = "void(float32[:, :], float32[:, :])"


@cuda.jit(device=True, inline=True)
def swz(r, c):
    """column where element (r, c) of the tile is kept: a swizzle instead of padding"""
    return (c + r) % TILE
''',
        ],
        kernel='''
@cuda.jit(SIG)
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)  # 32 x 32, swizzled
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    x = bx * TILE + tx
    for p in range(PER_THREAD):
        r = ty + p * BLOCK_ROWS
        y = by * TILE + r
        if y < rows and x < cols:
            tile[r, swz(r, tx)] = a[y, x]
    cuda.syncthreads()
    x = by * TILE + tx  # column of out = row of a
    for p in range(PER_THREAD):
        c = ty + p * BLOCK_ROWS  # row of out inside the tile = column of a
        y = bx * TILE + c
        if y < cols and x < rows:
            out[y, x] = tile[tx, swz(tx, c)]
''',
        full=True,
    ),
    "hog8_transpose_padded_pad2_redefined": dict(
        exercise="09_transpose",
        part="transpose_padded",
        extra_cells=[
            '''PAD = 2  # two spare columns keep every row 8-byte aligned
TILE_PAD = TILE + PAD
''',
        ],
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows, cols = a.shape
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for k in range(0, TILE, BLOCK_ROWS):
        if y + k < rows and x < cols:
            tile[ty + k, tx] = a[y + k, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for k in range(0, TILE, BLOCK_ROWS):
        if y + k < cols and x < rows:
            out[y + k, x] = tile[tx, ty + k]
''',
        fail=["conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
        reason="bank conflict",
        why=(
            "With rows of 34 words, element [tx, c] lies in bank (2 * tx + c) % 32, so lanes tx "
            "and tx + 16 of the column read hit the same bank on different words: a 2-way conflict "
            "on every read request; the output is right and global accesses are coalesced."
        ),
    ),
}

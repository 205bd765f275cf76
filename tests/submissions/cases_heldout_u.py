"""Submissions for exercises 01-04 (correct, wrong and off-brief kernels), each written from the
student notebook and INSTRUCTOR.md alone, as a student would."""

CASES = {
    # ------------------------------------------------------------------ correct, unusual style
    "hou_multiply_flat2d": dict(
        exercise="01_elementwise",
        part="multiply",
        kernel='''
@cuda.jit
def multiply(a, b, out):
    # written for 2-D blocks and 2-D grids, so it also works for the 1-D launch
    tid = cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.x
    per_block = cuda.blockDim.x * cuda.blockDim.y
    block = cuda.blockIdx.y * cuda.gridDim.x + cuda.blockIdx.x
    i = block * per_block + tid
    if i >= a.shape[0]:
        return
    out[i] = a[i] * b[i]
''',
        full=True,
    ),
    "hou_saxpy_gridstride_fma": dict(
        exercise="01_elementwise",
        part="saxpy",
        kernel='''
@cuda.jit
def saxpy(alpha, x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, out.size, stride):  # grid-stride loop
        out[i] = cuda.fma(alpha, x[i], y[i])
''',
        full=True,
    ),
    "hou_conv1d_tuple_tap": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
ZERO = 1.0 - 1.0


@cuda.jit(device=True)
def tap(x, idx):
    # (inside?, value): zero outside the signal
    if idx >= 0 and idx < x.shape[0]:
        return True, x[idx]
    return False, float32(ZERO)


@cuda.jit
def conv1d(x, w, out):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    n = x.shape[0]
    if i < n:
        K = w.shape[0]
        r = (K - 1) >> 1
        acc = float32(ZERO)
        j = 0
        while j < K:
            ok, v = tap(x, i + r - j)
            if ok:
                acc += w[j] * v
            j += 1
        out[i] = acc
''',
        full=True,
    ),
    "hou_tiled_padded_tail": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
TP = TILE + 1  # a padding column


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TP), float32)
    sB = cuda.shared.array((TILE, TP), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    m = A.shape[0]
    kk = A.shape[1]
    n = B.shape[1]
    rin = row < m
    cin = col < n
    acc = float32(0.0)
    full = kk // TILE
    # whole tiles: only the row / column can stick out
    for t in range(full):
        base = t * TILE
        sA[ty, tx] = A[row, base + tx] if rin else float32(0.0)
        sB[ty, tx] = B[base + ty, col] if cin else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc = cuda.fma(sA[ty, j], sB[j, tx], acc)
        cuda.syncthreads()
    # the last, partial tile along k, guarded
    rem = kk - full * TILE
    if rem > 0:
        base = full * TILE
        sA[ty, tx] = A[row, base + tx] if rin and tx < rem else float32(0.0)
        sB[ty, tx] = B[base + ty, col] if cin and ty < rem else float32(0.0)
        cuda.syncthreads()
        for j in range(rem):
            acc = cuda.fma(sA[ty, j], sB[j, tx], acc)
    if rin and cin:
        C[row, col] = acc
''',
        full=True,
    ),
    "hou_blur_tuple_clamp_local": dict(
        exercise="04_conv2d",
        part="blur2d",
        kernel='''
@cuda.jit(device=True)
def clamp_yx(y, x, h, wd):
    return min(max(y, 0), h - 1), min(max(x, 0), wd - 1)


@cuda.jit
def blur2d(img, w, out):
    row = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    col = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    h = img.shape[0]
    wd = img.shape[1]
    if row < h and col < wd:
        K = w.shape[0]
        r = K // 2
        acc = cuda.local.array(1, float32)
        acc[0] = 0
        for dy in range(K):
            for dx in range(K):
                y, x = clamp_yx(row + dy - r, col + dx - r, h, wd)
                acc[0] += w[dy, dx] * img[y, x]
        out[row, col] = acc[0]
''',
        full=True,
    ),
    "hou_blur_tiled_linear_load": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
KS = 2 * R + 1
SPAN = TILE + KS - 1  # == HALO
SPAN_P = SPAN + 1  # padded row


@cuda.jit(device=True)
def edge(v, hi):
    return min(max(v, 0), hi - 1)


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((SPAN, SPAN_P), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tid = ty * TILE + tx
    y0 = cuda.blockIdx.y * TILE - R
    x0 = cuda.blockIdx.x * TILE - R
    h, wd = img.shape
    # the 256 threads walk the 400 halo'd pixels in a flat loop
    for idx in range(tid, SPAN * SPAN, TILE * TILE):
        ly = idx // SPAN
        lx = idx - ly * SPAN
        tile[ly, lx] = img[edge(y0 + ly, h), edge(x0 + lx, wd)]
    cuda.syncthreads()
    row = y0 + R + ty
    col = x0 + R + tx
    if row < h and col < wd:
        s = float32(0.0)
        for dy in range(KS):
            for dx in range(KS):
                s += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = s
''',
        full=True,
    ),
    # ------------------------------------------------------------------ wrong
    "hou_tiled_no_load_guard": dict(
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
    acc = float32(0.0)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        sA[ty, tx] = A[row, t * TILE + tx]
        sB[ty, tx] = B[t * TILE + ty, col]
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = acc
''',
        fail=["hidden", "bounds"],
        passes=[],
        reason="bounds",
        why="tile loads have no guard: for m, n or k not a multiple of TILE threads read A and B "
        "past their rows/columns (past the end of the allocation for the last rows); "
        "compute-sanitizer memcheck reports invalid global reads, and the garbage / next-row "
        "values enter the dot products of the partial k tile",
    ),
    "hou_tiled_one_barrier": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
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
        k = t * TILE + ty
        sB[ty, tx] = B[k, col] if k < kk and col < n else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        # missing: cuda.syncthreads() before the next tile overwrites sA / sB
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="without the second barrier a warp that finishes its TILE products first stores the "
        "next k tile into sA/sB while other warps still read the current one (write-after-read "
        "race); racecheck reports it and results are wrong whenever k spans two or more tiles "
        "and warps drift apart",
    ),
    "hou_conv1d_read_past_end": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    if i < n:
        r = w.size // 2
        acc = float32(0.0)
        for j in range(w.size):
            src = i + r - j
            if 0 <= src <= n:  # off by one: lets src == n through
                acc += w[j] * x[src]
        out[i] = acc
''',
        fail=["hidden", "bounds"],
        passes=[],
        reason="bounds",
        why="the right-border guard is <= n, so for any K > 1 the last r threads read x[n], one "
        "element past the signal: memcheck reports an invalid read and the value read "
        "(whatever follows the allocation) is added instead of a zero",
    ),
    "hou_naive_swapped_grid": dict(
        exercise="03_matmul",
        part="matmul_naive",
        kernel='''
@cuda.jit
def matmul_naive(A, B, C):
    row, col = cuda.grid(2)  # swapped: x is the column index
    if row < C.shape[0] and col < C.shape[1]:
        acc = float32(0.0)
        for k in range(A.shape[1]):
            acc += A[row, k] * B[k, col]
        C[row, col] = acc
''',
        fail=["hidden"],
        passes=[],
        reason="",
        why="row is taken from the x index, whose grid covers n (ceil(n/TILE) blocks), and col "
        "from y, which covers m: for square shapes every output is still computed (transposed "
        "mapping), but when the grid has more blocks along one axis than the other (several "
        "along x, one along y) outputs beyond the shorter grid side are never written",
    ),
    "hou_blur_tiled_no_corners": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit(device=True)
def clampi(v, hi):
    return min(max(v, 0), hi - 1)


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    h, wd = img.shape
    cy = clampi(row, h)
    cx = clampi(col, wd)
    tile[ty + R, tx + R] = img[cy, cx]
    if tx < R:  # left and right halo columns
        tile[ty + R, tx] = img[cy, clampi(col - R, wd)]
        tile[ty + R, tx + TILE + R] = img[cy, clampi(col + TILE, wd)]
    if ty < R:  # top and bottom halo rows
        tile[ty, tx + R] = img[clampi(row - R, h), cx]
        tile[ty + TILE + R, tx + R] = img[clampi(row + TILE, h), cx]
    # the four R x R corners of the halo are never loaded
    cuda.syncthreads()
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
''',
        fail=["public", "hidden", "sync"],
        passes=[],
        reason="uninitialised",
        why="the halo's corner patches are never written, so threads near the tile corners (e.g. "
        "thread (0,0) with dy=dx=0) read uninitialised shared memory: initcheck flags it and "
        "the corner pixels of every tile get whatever the shared memory held",
    ),
    "hou_blur_tiled_halo_short": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col0 = cuda.blockIdx.x * TILE - R
    row0 = cuda.blockIdx.y * TILE - R
    h, wd = img.shape
    # off by one: the halo'd tile is HALO wide, the loops stop at HALO - 1
    for ly in range(ty, HALO - 1, TILE):
        y = min(max(row0 + ly, 0), h - 1)
        for lx in range(tx, HALO - 1, TILE):
            x = min(max(col0 + lx, 0), wd - 1)
            tile[ly, lx] = img[y, x]
    cuda.syncthreads()
    row, col = row0 + R + ty, col0 + R + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
''',
        fail=["hidden", "sync"],
        passes=[],
        reason="uninitialised",
        why="the last row and column of the halo (index HALO-1) are never loaded; threads with "
        "ty or tx = TILE-1 read them for dy or dx = 2R, so the bottom row and right column of "
        "every tile use uninitialised shared memory (initcheck) and come out wrong (an image smaller "
        "than one tile in both dimensions hides it: no thread that reads row/column HALO-1 stores)",
    ),
    # ------------------------------------------------------------------ right output, off the brief
    "hou_tiled_without_shared": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    # "tiled": walks k one TILE at a time, but straight from global memory
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    if row < m and col < n:
        acc = float32(0.0)
        for t in range(0, kk, TILE):
            for j in range(t, min(t + TILE, kk)):
                acc += A[row, j] * B[j, col]
        C[row, col] = acc
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="no shared memory is used",
        why="correct results, but no shared memory: every thread loads 2k values from global "
        "memory instead of about 2 ceil(k/TILE), which the brief's tiling is meant to avoid",
    ),
    "hou_blur_tiled_global_halo": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    # only the block's own TILE x TILE pixels go to shared memory; the halo is read from global
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    h, wd = img.shape
    tile[ty, tx] = img[min(row, h - 1), min(col, wd - 1)]
    cuda.syncthreads()
    if row < h and col < wd:
        by = cuda.blockIdx.y * TILE
        bx = cuda.blockIdx.x * TILE
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            yy = min(max(row + dy - R, 0), h - 1)
            for dx in range(2 * R + 1):
                xx = min(max(col + dx - R, 0), wd - 1)
                ly = yy - by
                lx = xx - bx
                if ly >= 0 and ly < TILE and lx >= 0 and lx < TILE:
                    v = tile[ly, lx]
                else:
                    v = img[yy, xx]  # halo straight from global memory
                acc += w[dy, dx] * v
        out[row, col] = acc
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="global loads",
        why="correct results, but the halo is read from global memory at every use: a 16x16 "
        "block makes about 256 + 924 global loads of img instead of one per element of its "
        "20x20 halo'd tile (400)",
    ),
}

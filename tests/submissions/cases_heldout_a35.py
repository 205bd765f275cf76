"""Blind set a35: tiles, halos and boundaries"""

# Notes on INSTRUCTOR.md, written while building the cases:
# * blur2d_tiled "memory": the guide counts the loads of *every* array argument ("reading C
#   before adding to it counts"), so the filter w counts too, while the notebook speaks only of
#   "global loads of img". The two readings differ for a kernel that reads w from global memory
#   in its inner loop (25 loads per output), and for a kernel that stages w once per block but
#   loads the whole 20 x 20 halo tile of an image smaller than the filter (400 + 25 loads
#   against a budget of 400 + h*w < 425). Every blur2d_tiled case below therefore stages w in
#   shared memory once per block and loads only the rows and columns of the halo tile that some
#   output of the block needs, so that its memory verdict is the same under both readings (per
#   block at most (vr+4)(vc+4) + 25 loads against 400 + vr*vc, vr and vc the block's valid rows
#   and columns), or breaks the budget under both.
# * A race whose values depend on warp scheduling (a missing second barrier in the K loop)
#   would make public/hidden depend on the GPU's timing when the grader runs on a GPU; no case
#   relies on one. The sync failures kept are a write-write race of bit-identical values and a
#   divergent barrier (threads that returned never reach it) after which the remaining threads
#   compute the right values.
# * Whether the parallel budget of conv1d counts shared-memory accesses is not said; the conv1d
#   cases are built so that the verdict is the same counting global accesses only or global
#   and shared accesses together.

CASES = {}

# ---------------------------------------------------------------- 03_matmul: matmul_tiled

CASES["hoj35_mm_kslab32_two_loads_each"] = dict(
    exercise="03_matmul",
    part="matmul_tiled",
    kernel='''
TK = 2 * TILE  # width of the K slab: every thread stages two elements of A and two of B
TP = TILE + 1  # padded row of the B slab


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TK), float32)
    sB = cuda.shared.array((TK, TP), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    m = A.shape[0]
    k = A.shape[1]
    n = B.shape[1]
    acc = 0.0
    k0 = 0
    while k0 < k:
        for h in range(2):
            ka = k0 + h * TILE + tx
            if row < m and ka < k:
                sA[ty, h * TILE + tx] = A[row, ka]
            else:
                sA[ty, h * TILE + tx] = 0.0
            kb = k0 + h * TILE + ty
            if kb < k and col < n:
                sB[h * TILE + ty, tx] = B[kb, col]
            else:
                sB[h * TILE + ty, tx] = 0.0
        cuda.syncthreads()
        for kk in range(TK):
            acc += sA[ty, kk] * sB[kk, tx]
        cuda.syncthreads()
        k0 += TK
    # threads outside C took part in every load and barrier; only the store is guarded
    if row < m and col < n:
        C[row, col] = acc
''',
    full=True,
)

CASES["hoj35_mm_half_block_loads_a_transposed"] = dict(
    exercise="03_matmul",
    part="matmul_tiled",
    kernel='''
KS = TILE // 2  # K step: the upper half of the block stages A, the lower half stages B
PAD = TILE + 1


@cuda.jit
def matmul_tiled(A, B, C):
    sAt = cuda.shared.array((KS, PAD), float32)  # sAt[j, r] = A[r0 + r, k0 + j]
    sB = cuda.shared.array((KS, TILE), float32)  # sB[j, c] = B[k0 + j, c0 + c]
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    r0 = cuda.blockIdx.y * cuda.blockDim.y
    c0 = cuda.blockIdx.x * cuda.blockDim.x
    m, k = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for k0 in range(0, k, KS):
        if ty < KS:
            r = r0 + tx  # x walks the rows of A here, y its columns
            j = k0 + ty
            v = float32(0.0)
            if r < m and j < k:
                v = A[r, j]
            sAt[ty, tx] = v
        else:
            j = k0 + ty - KS
            c = c0 + tx
            v = float32(0.0)
            if j < k and c < n:
                v = B[j, c]
            sB[ty - KS, tx] = v
        cuda.syncthreads()
        for j in range(KS):
            acc += sAt[j, ty] * sB[j, tx]
        cuda.syncthreads()
    row = r0 + ty
    col = c0 + tx
    if row < m and col < n:
        C[row, col] = acc
''',
    full=True,
)

CASES["hoj35_mm_tile_count_from_c_width"] = dict(
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
    m = C.shape[0]
    n = C.shape[1]
    k = A.shape[1]
    tiles = (n + TILE - 1) // TILE  # one tile step per block across C
    acc = float32(0.0)
    for t in range(tiles):
        j = t * TILE + tx
        if row < m and j < k:
            sA[ty, tx] = A[row, j]
        else:
            sA[ty, tx] = 0.0
        j = t * TILE + ty
        if j < k and col < n:
            sB[ty, tx] = B[j, col]
        else:
            sB[ty, tx] = 0.0
        cuda.syncthreads()
        for kk in range(TILE):
            acc += sA[ty, kk] * sB[kk, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
    fail=["hidden"],
    passes=["public", "bounds", "sync", "memory"],
    reason='hidden cases',
    why='The K loop runs ceil(n / TILE) steps instead of ceil(k / TILE). The public products '
        'need no more (k = 18 with n = 33: 2 of 3 steps; k = n = 16), and the extra steps load '
        'nothing (guarded, zero-filled), but in the hidden case where k spans more tiles than '
        'the grid has blocks along x (e.g. 10x50 @ 50x10: 1 step instead of 4) the products of '
        'the K tiles past ceil(n / 16) are dropped, on a GPU as in a simulator; loads stay a '
        "subset of the model's, no race, no access outside.",
)

CASES["hoj35_mm_b_column_from_global"] = dict(
    exercise="03_matmul",
    part="matmul_tiled",
    kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)  # only A is staged; B is read in place
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, k = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        j = t * TILE + tx
        if row < m and j < k:
            sA[ty, tx] = A[row, j]
        else:
            sA[ty, tx] = 0.0
        cuda.syncthreads()
        for kk in range(TILE):
            j = t * TILE + kk
            if j < k and col < n:
                acc += sA[ty, kk] * B[j, col]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
    fail=["memory"],
    passes=["public", "hidden", "bounds", "sync"],
    reason='global loads',
    why='Only A is staged: every thread with col < n (rows >= m included) reads its whole '
        'column of B from global memory. Public 16x16 @ 16x16: 256 A + 4096 B = 4352 loads '
        'against 2 * ceil(16/16) * 256 + 256 = 768 (17.0 per output against 3.0); 20x18 @ '
        '18x33: 20088 against 2 * 2 * 1536 + 660 = 6804. The values, bounds and barriers are '
        'right.',
)

CASES["hoj35_mm_clamp_instead_of_guard"] = dict(
    exercise="03_matmul",
    part="matmul_tiled",
    kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    m, k = A.shape
    n = B.shape[1]
    # no branches on the output: threads past the edge of C are parked on its last row/column
    row = min(cuda.blockIdx.y * TILE + ty, m - 1)
    col = min(cuda.blockIdx.x * TILE + tx, n - 1)
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        j = t * TILE + tx
        sA[ty, tx] = A[row, j] if j < k else float32(0.0)
        j = t * TILE + ty
        sB[ty, tx] = B[j, col] if j < k else float32(0.0)
        cuda.syncthreads()
        for kk in range(TILE):
            acc += sA[ty, kk] * sB[kk, tx]
        cuda.syncthreads()
    C[row, col] = acc
''',
    # Graded full marks: the clamped threads store one value, the same bits, so the two writes
    # are no race (INSTRUCTOR.md, sync); the author read the guide's definition without it.
    full=True,
    why='Threads past the edge of C are clamped onto its last row or column and all store '
        'there, with no barrier between the stores: in public 20x18 @ 18x33, block (2, 0) '
        'covers columns 32..47 of a 33-wide C, so 16 threads of one block write each C[r, 32] '
        '(52 elements written by several threads of a block in that case), a write-write data '
        'race. The racing stores are bit-identical (same operands, same order), so the outputs '
        'are right on a GPU too, nothing is accessed outside, and loads stay within 2 * '
        'ceil(k/16) per thread of the grid.',
)

# ---------------------------------------------------------------- 04_conv2d: blur2d_tiled

CASES["hoj35_blur_tiled_trimmed_passes_tile32_cell"] = dict(
    exercise="04_conv2d",
    part="blur2d_tiled",
    extra_cells=['''
# my GPU likes bigger blocks
TILE = 32
HALO = TILE + 2 * R  # the tile plus its halo
'''],
    kernel='''
KW = 2 * R + 1  # filter width
HP = HALO + 1  # padded row of the halo tile


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HP), float32)
    sw = cuda.shared.array((KW, KW), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tid = ty * cuda.blockDim.x + tx
    nthreads = cuda.blockDim.x * cuda.blockDim.y
    H = img.shape[0]
    W = img.shape[1]
    y0 = cuda.blockIdx.y * TILE
    x0 = cuda.blockIdx.x * TILE
    # the rows and columns of the halo tile that some output of this block reads
    need_r = min(TILE, H - y0) + 2 * R
    need_c = min(TILE, W - x0) + 2 * R
    if tid < KW * KW:
        sw[tid // KW, tid % KW] = w[tid // KW, tid % KW]
    for i in range(tid, HALO * HALO, nthreads):  # two passes over the halo tile
        ry = i // HALO
        rx = i - ry * HALO
        if ry < need_r and rx < need_c:
            gy = min(max(y0 + ry - R, 0), H - 1)
            gx = min(max(x0 + rx - R, 0), W - 1)
            tile[ry, rx] = img[gy, gx]
    cuda.syncthreads()
    row = y0 + ty
    col = x0 + tx
    if row < H and col < W:
        acc = float32(0.0)
        for dy in range(KW):
            for dx in range(KW):
                acc += sw[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
''',
    full=True,
)

CASES["hoj35_blur_tiled_return_then_filter_barrier"] = dict(
    exercise="04_conv2d",
    part="blur2d_tiled",
    kernel='''
KW = 2 * R + 1


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    sw = cuda.shared.array((KW, KW), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tid = ty * TILE + tx
    H, W = img.shape
    y0 = cuda.blockIdx.y * TILE
    x0 = cuda.blockIdx.x * TILE
    need_r = min(TILE, H - y0) + 2 * R
    need_c = min(TILE, W - x0) + 2 * R
    for i in range(tid, HALO * HALO, TILE * TILE):
        ry = i // HALO
        rx = i % HALO
        if ry < need_r and rx < need_c:
            tile[ry, rx] = img[min(max(y0 + ry - R, 0), H - 1), min(max(x0 + rx - R, 0), W - 1)]
    cuda.syncthreads()
    row = y0 + ty
    col = x0 + tx
    if row >= H or col >= W:
        return  # nothing left to do for this thread
    if tx == 0 and ty == 0:  # thread (0, 0) is always inside the image: it stages the filter
        for dy in range(KW):
            for dx in range(KW):
                sw[dy, dx] = w[dy, dx]
    cuda.syncthreads()
    acc = float32(0.0)
    for dy in range(KW):
        for dx in range(KW):
            acc += sw[dy, dx] * tile[ty + dy, tx + dx]
    out[row, col] = acc
''',
    fail=["sync"],
    passes=["public", "hidden", "bounds", "memory"],
    reason='divergent',
    why='Threads outside the image return between the two barriers, so in every block that '
        'sticks out of the image (public 20x33: 4 of its 6 blocks, e.g. block (2, 0), where '
        'only column 32 is inside) the second syncthreads() is not reached by every thread of '
        'the block: a divergent barrier. The threads that reach it see the filter that thread '
        '(0, 0), always inside the image, staged, and compute the right values (exited threads '
        'do not hold up a barrier on current GPUs); loads are at most (vr + 4)(vc + 4) + 25 per '
        'block.',
)

CASES["hoj35_blur_tiled_core_shared_halo_global"] = dict(
    exercise="04_conv2d",
    part="blur2d_tiled",
    kernel='''
KW = 2 * R + 1


@cuda.jit(device=True)
def clamp(v, hi):
    return min(max(v, 0), hi - 1)


@cuda.jit
def blur2d_tiled(img, w, out):
    core = cuda.shared.array((TILE, TILE), float32)  # the block's own pixels only
    sw = cuda.shared.array((KW, KW), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    H, W = img.shape
    col, row = cuda.grid(2)
    if ty * TILE + tx < KW * KW:
        sw[(ty * TILE + tx) // KW, (ty * TILE + tx) % KW] = w[(ty * TILE + tx) // KW, (ty * TILE + tx) % KW]
    core[ty, tx] = img[clamp(row, H), clamp(col, W)]
    cuda.syncthreads()
    if row < H and col < W:
        acc = float32(0.0)
        for dy in range(KW):
            for dx in range(KW):
                sy = ty + dy - R
                sx = tx + dx - R
                if 0 <= sy < TILE and 0 <= sx < TILE:
                    v = core[sy, sx]
                else:  # the halo: straight from global memory
                    v = img[clamp(row + dy - R, H), clamp(col + dx - R, W)]
                acc += sw[dy, dx] * v
        out[row, col] = acc
''',
    fail=["memory"],
    passes=["public", "hidden", "bounds", "sync"],
    reason='global loads',
    why='Only the 16x16 core is staged; every tap that falls in the halo is read from global '
        'memory. A full block makes 256 core loads + 924 halo loads = 1180 loads of img (1205 '
        'with w) against 400 + 256 = 656: the public 16x16 image makes 4.6 loads per output '
        'against 2.56, and 20x33 makes 4295 (4445) against 6 * 400 + 660 = 3060. The values are '
        'right, no race, no access outside.',
)

CASES["hoj35_blur_tiled_bottom_halo_by_last_rows"] = dict(
    exercise="04_conv2d",
    part="blur2d_tiled",
    kernel='''
KW = 2 * R + 1


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    sw = cuda.shared.array((KW, KW), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    H, W = img.shape
    y0 = cuda.blockIdx.y * TILE
    x0 = cuda.blockIdx.x * TILE
    row = y0 + ty
    vr = min(TILE, H - y0)  # rows of this block that lie inside the image
    need_c = min(TILE, W - x0) + 2 * R  # halo'd columns that some output of the block reads
    if ty * TILE + tx < KW * KW:
        sw[(ty * TILE + tx) // KW, (ty * TILE + tx) % KW] = w[(ty * TILE + tx) // KW, (ty * TILE + tx) % KW]
    for c in range(tx, need_c, TILE):  # one or two columns per thread
        gx = min(max(x0 + c - R, 0), W - 1)
        if row < H:  # my own row
            tile[ty + R, c] = img[row, gx]
        if ty < R:  # the first R rows also load the halo above
            tile[ty, c] = img[max(row - R, 0), gx]
        if vr - R <= ty and ty < vr:  # the last R rows of the image also load the halo below
            tile[ty + 2 * R, c] = img[min(row + R, H - 1), gx]
    cuda.syncthreads()
    if row < H and x0 + tx < W:
        acc = float32(0.0)
        for dy in range(KW):
            for dx in range(KW):
                acc += sw[dy, dx] * tile[ty + dy, tx + dx]
        out[row, x0 + tx] = acc
''',
    fail=["hidden", "sync"],
    passes=["public", "bounds", "memory"],
    reason='uninitialised',
    why="The halo below is loaded by the last R = 2 image rows of the block, each one row further "
        "down, and threads below the image load nothing; when the block holds a single image row "
        "(h one above a multiple of TILE: 1, 17, 33, ..., never in the public 20x33 and 16x16) "
        "tile row 3 (= vr + R, the clamped copy of row h - 1 that thread row 1 would have held) "
        "is never written, and every output of that image row reads it: shared memory nobody "
        "wrote reaches the output (garbage on a GPU).",
)

# ---------------------------------------------------------------- 02_conv1d: conv1d

CASES["hoj35_conv1d_halo_tile_edge_threads_fallback"] = dict(
    exercise="02_conv1d",
    part="conv1d",
    kernel='''
RMAX = 8  # widest halo kept in shared memory (filters up to 17 taps)
SPAN = TPB + 2 * RMAX


@cuda.jit(device=True)
def x_or_zero(x, g):
    if 0 <= g and g < x.size:
        return x[g]
    return float32(0.0)


@cuda.jit
def conv1d(x, w, out):
    tile = cuda.shared.array(SPAN, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = x.size
    K = w.size
    r = K // 2
    base = cuda.blockIdx.x * TPB
    if r <= RMAX:  # the same branch for the whole block: its barrier is reached by all
        tile[t + r] = x_or_zero(x, i)
        if t < r:  # edge threads load two elements: one on each side of the block
            tile[t] = x_or_zero(x, base - r + t)
            tile[TPB + r + t] = x_or_zero(x, base + TPB + t)
        cuda.syncthreads()
        if i < n:
            acc = float32(0.0)
            for j in range(K):
                acc += w[j] * tile[t + 2 * r - j]
            out[i] = acc
    else:  # a filter wider than the halo: read the signal directly
        if i < n:
            acc = float32(0.0)
            for j in range(K):
                acc += w[j] * x_or_zero(x, i + r - j)
            out[i] = acc
''',
    full=True,
)

CASES["hoj35_conv1d_halo_sized_for_public_filters"] = dict(
    exercise="02_conv1d",
    part="conv1d",
    kernel='''
RH = 4  # halo on each side: the checks use filters of 3, 5 and 7 taps
SPAN = TPB + 2 * RH


@cuda.jit
def conv1d(x, w, out):
    tile = cuda.shared.array(SPAN, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = x.size
    r = w.size // 2
    base = cuda.blockIdx.x * TPB
    tile[t + RH] = x[i] if i < n else float32(0.0)
    if t < RH:
        g = base - RH + t
        tile[t] = x[g] if g >= 0 else float32(0.0)
        g = base + TPB + t
        tile[TPB + RH + t] = x[g] if g < n else float32(0.0)
    cuda.syncthreads()
    if i < n:
        acc = float32(0.0)
        for j in range(w.size):
            acc += w[j] * tile[t + RH + r - j]
        out[i] = acc
''',
    fail=["hidden", "bounds"],
    passes=["public", "parallel"],
    reason='out-of-bounds',
    why='The shared window holds TPB + 8 values, a halo of 4 on each side: enough for every '
        'public filter (K <= 7) but not for the hidden K >= 15 over several blocks (r >= 7): '
        'thread 127 of the first, full block reads tile[127 + 4 + r - j], tile[138] and beyond in a '
        '136-element array (outside), and threads t < r - 4 read negative indices, which wrap '
        'to the other end of the window (wrong values).',
)

CASES["hoj35_conv1d_thread0_stages_window"] = dict(
    exercise="02_conv1d",
    part="conv1d",
    kernel='''
RMAX = 8
SPAN = TPB + 2 * RMAX


@cuda.jit
def conv1d(x, w, out):
    tile = cuda.shared.array(SPAN, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = x.size
    K = w.size
    r = K // 2
    base = cuda.blockIdx.x * TPB
    if r <= RMAX:
        if t == 0:  # one thread copies the block's window, halo included
            for s in range(TPB + 2 * r):
                g = base - r + s
                if 0 <= g and g < n:
                    tile[s] = x[g]
                else:
                    tile[s] = 0.0
        cuda.syncthreads()
        if i < n:
            acc = float32(0.0)
            for j in range(K):
                acc += w[j] * tile[t + 2 * r - j]
            out[i] = acc
    else:
        if i < n:
            acc = float32(0.0)
            for j in range(K):
                g = i + r - j
                if 0 <= g and g < n:
                    acc += w[j] * x[g]
            out[i] = acc
''',
    fail=["parallel"],
    passes=["public", "hidden", "bounds"],
    reason='memory accesses',
    why="Thread 0 of each block copies the block's whole window, halo included, for the others: "
        'in the public n = 1000, K = 5, thread 0 of block 1 makes 132 global loads of x + 5 of '
        'w + 1 store = 138 global memory operations (275 with its shared stores) against the '
        'budget 5 K + 8 = 33. The values are right and nothing is accessed outside.',
)

"""Held-out set a19: the per-thread budgets of the quality criteria, from the side of a careful student (reasonable extra work inside the budgets, and just over them), written blind from the student notebooks and INSTRUCTOR.md."""

CASES = {
    # ------------------------------------------------------------------ 01_elementwise
    "hot19_saxpy_reread_out_from_global": dict(
        exercise="01_elementwise",
        part="saxpy",
        kernel='''
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    # start from y, then add alpha * x on top of what is already in out
    # (out[i] is read back from global memory instead of kept in a register)
    out[i] = y[i]
    out[i] += alpha * x[i]
''',
        full=True,
        why="one output per thread (out[i], stored twice); busiest thread makes 5 memory "
            "operations (load y, store out, load out, load x, store out) <= 8; exact float32 "
            "result (y + a*x == a*x + y), guarded for every n.",
    ),
    # ------------------------------------------------------------------ 02_conv1d
    "hot19_conv1d_while_reads_weight_twice": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit(device=True)
def sample(x, idx):
    # zero padding: nothing outside the signal
    if idx < 0 or idx >= x.size:
        return float32(0.0)
    return x[idx]


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    K = w.size
    r = K // 2
    acc = float32(0.0)
    j = 0
    while j < K:
        if w[j] != 0:  # skip zero taps; the weight is read again from global below
            acc += w[j] * sample(x, i + r - j)
        j += 1
    out[i] = acc
''',
        full=True,
        why="one output per thread; per tap it loads w[j] twice and x once: 3K + 1 memory "
            "operations <= 5K + 8 for every K (K=1: 4 <= 13, K=17: 52 <= 93); zero padding "
            "via a device function, correct for K > n and ragged n.",
    ),
    "hot19_conv1d_even_thread_computes_pair": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    K = w.size
    r = K // 2
    # even threads compute their own output and their right neighbour's: the two
    # windows share K - 1 inputs, so each input is loaded once for both
    if i % 2 == 1 or i >= n:
        return
    a0 = float32(0.0)
    a1 = float32(0.0)
    for t in range(K + 1):
        idx = i + r + 1 - t
        if idx >= 0 and idx < n:
            v = x[idx]
            if t >= 1:      # output i uses tap j = t - 1
                a0 += w[t - 1] * v
            if t < K:       # output i + 1 uses tap j = t
                a1 += w[t] * v
    out[i] = a0
    if i + 1 < n:
        out[i + 1] = a1
''',
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason='stored 2 outputs',
        why="outputs are exact and in range, but every even thread stores 2 outputs (out[i] "
            "and out[i+1]) where the brief is one per thread; its memory operations stay in "
            "budget ((K+1) x loads + 2K w loads + 2 stores = 3K + 3 <= 5K + 8), so only "
            "parallel goes.",
    ),
    # ------------------------------------------------------------------ 03_matmul
    "hot19_matmul_naive_skip_zero_terms": dict(
        exercise="03_matmul",
        part="matmul_naive",
        kernel='''
@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    if row >= C.shape[0] or col >= C.shape[1]:
        return
    acc = float32(0.0)
    for j in range(A.shape[1]):
        # skip the product when either factor is zero (re-read both from global)
        if A[row, j] != 0 and B[j, col] != 0:
            acc += A[row, j] * B[j, col]
    C[row, col] = acc
''',
        full=True,
        why="one output per thread; busiest thread loads A[row, j] and B[j, col] twice each "
            "per j: 4k + 1 memory operations <= 4k + 8; skipping zero terms changes nothing "
            "(finite inputs), both indices guarded.",
    ),
    "hot19_matmul_tiled_two_warps_stage_tiles": dict(
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
    tid = ty * TILE + tx
    r0 = cuda.blockIdx.y * TILE
    c0 = cuda.blockIdx.x * TILE
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        k0 = t * TILE
        # warps 0 and 1 (64 threads) stage both tiles, 8 elements each; the others wait
        if tid < 64:
            for e in range(tid, 2 * TILE * TILE, 64):
                if e < TILE * TILE:
                    i = e // TILE
                    j = e % TILE
                    if r0 + i < m and k0 + j < k:
                        sA[i, j] = A[r0 + i, k0 + j]
                    else:
                        sA[i, j] = float32(0.0)
                else:
                    i = (e - TILE * TILE) // TILE
                    j = (e - TILE * TILE) % TILE
                    if k0 + i < k and c0 + j < n:
                        sB[i, j] = B[k0 + i, c0 + j]
                    else:
                        sB[i, j] = float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        full=True,
        why="every element of each A and B tile is loaded once per block and step, exactly as "
            "the model: total global loads = 2 ceil(k/TILE) per grid thread at most (the "
            "loaders make 8 per step, the other 192 none); matmul_tiled has no parallel "
            "criterion, both barriers are reached by all threads, zero fill outside.",
    ),
    "hot19_matmul_tiled_prefetch_wraps_around": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    # two buffers per operand: while computing on one, the next tile goes into the other
    sA = cuda.shared.array((2, TILE, TILE), float32)
    sB = cuda.shared.array((2, TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, k = A.shape
    n = B.shape[1]
    steps = (k + TILE - 1) // TILE
    acc = float32(0.0)
    for t in range(steps):
        cur = t % 2
        k0 = t * TILE
        # load the current tiles
        sA[cur, ty, tx] = A[row, k0 + tx] if row < m and k0 + tx < k else float32(0.0)
        sB[cur, ty, tx] = B[k0 + ty, col] if k0 + ty < k and col < n else float32(0.0)
        # prefetch the next step's tiles into the other buffer; after the last step it
        # wraps around to tile 0, which saves a branch (the extra load is never used)
        k1 = ((t + 1) % steps) * TILE
        sA[1 - cur, ty, tx] = A[row, k1 + tx] if row < m and k1 + tx < k else float32(0.0)
        sB[1 - cur, ty, tx] = B[k1 + ty, col] if k1 + ty < k and col < n else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[cur, ty, j] * sB[cur, j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="global loads",
        why="the prefetched tiles are loaded again at the top of the next step, so every tile "
            "is loaded twice: an interior thread makes 4 ceil(k/TILE) loads against "
            "2 ceil(k/TILE) + 1 (public A 16x16 @ B 16x16: 4 per grid thread > 3; k = 50 on "
            "full blocks: 16 > 9); each shared slot is written only by its own thread and "
            "barriers separate writes from other threads' reads, so sync and outputs stay right.",
    ),
    "hot19_matmul_tiled_barrier_only_for_loaders": dict(
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
    tid = ty * TILE + tx
    r0 = cuda.blockIdx.y * TILE
    c0 = cuda.blockIdx.x * TILE
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        k0 = t * TILE
        if tid < 64:  # warps 0 and 1 stage both tiles
            for e in range(tid, 2 * TILE * TILE, 64):
                if e < TILE * TILE:
                    i = e // TILE
                    j = e % TILE
                    if r0 + i < m and k0 + j < k:
                        sA[i, j] = A[r0 + i, k0 + j]
                    else:
                        sA[i, j] = float32(0.0)
                else:
                    i = (e - TILE * TILE) // TILE
                    j = (e - TILE * TILE) % TILE
                    if k0 + i < k and c0 + j < n:
                        sB[i, j] = B[k0 + i, c0 + j]
                    else:
                        sB[i, j] = float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        # only the loaders overwrite the tiles, so only they need to wait here
        if tid < 64:
            cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["sync"],
        passes=["bounds"],
        reason="divergent barrier",
        why="the second syncthreads() is reached by warps 0-1 only (divergent barrier, "
            "undefined); on a GPU bar.sync counts warps, so warps 0-1 at this barrier and "
            "warps 2-7 at the next step's first barrier release together and the loaders "
            "overwrite sA/sB while warps 2-7 still read them: a race whenever k > TILE "
            "(public A 20x18 @ B 18x33), racecheck reports it; numba's simulator pairs the barriers "
            "the same way and gets wrong sums for k = 17 and 50, right ones for k <= 16.",
    ),
    # ------------------------------------------------------------------ 04_conv2d
    "hot19_blur2d_filter_cached_in_local_7x7": dict(
        exercise="04_conv2d",
        part="blur2d",
        kernel='''
MAXK = 7  # largest filter we expect (7 x 7)


@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    if row >= h or col >= wd:
        return
    K = w.shape[0]
    r = K // 2
    # cache the filter in registers/local memory so each weight is read from global once
    wl = cuda.local.array((MAXK, MAXK), float32)
    for dy in range(K):
        for dx in range(K):
            wl[dy, dx] = w[dy, dx]
    acc = float32(0.0)
    for dy in range(K):
        rr = min(max(row + dy - r, 0), h - 1)
        for dx in range(K):
            cc = min(max(col + dx - r, 0), wd - 1)
            acc += wl[dy, dx] * img[rr, cc]
    out[row, col] = acc
''',
        fail=["hidden", "bounds"],
        passes=["public", "parallel"],
        reason='out-of-bounds',
        why="public filters are 5x5 and 3x3 and pass, but every hidden draw has K = 9: "
            "wl[dy, dx] with dx >= 7 aliases row dy + 1 (flat 7 dy + dx, so wl[0, 7] is "
            "overwritten by w[1, 0]) and dy = 8 writes flat indices up to 64 past the 49-element "
            "local array: wrong sums for a non-uniform 9x9 filter and an out-of-range local "
            "access (memory ops 2K^2 + 1 global, 4K^2 + 1 with the local array, <= 4K^2 + 8: parallel stays).",
    ),
    "hot19_blur2d_tiled_zero_fill_then_walk_rows": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    h, wd = img.shape
    row0 = cuda.blockIdx.y * TILE - R
    col0 = cuda.blockIdx.x * TILE - R
    # 1) clear the whole tile first (flat index over the HALO x HALO slots)
    t = ty * TILE + tx
    for e in range(t, HALO * HALO, TILE * TILE):
        tile[e // HALO, e % HALO] = float32(0.0)
    cuda.syncthreads()
    # 2) each thread walks the rows and columns of the halo tile it owns,
    #    clamping to the nearest edge pixel (replicated borders)
    for yy in range(ty, HALO, TILE):
        rr = min(max(row0 + yy, 0), h - 1)
        for xx in range(tx, HALO, TILE):
            cc = min(max(col0 + xx, 0), wd - 1)
            tile[yy, xx] = img[rr, cc]
    cuda.syncthreads()
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]  # weight read from global
        out[row, col] = acc
''',
        full=True,
        why="each of the HALO^2 = 400 tile elements is loaded from img exactly once per block "
            "(yy in {ty, ty+16}, xx in {tx, tx+16} cover 0..19 once), the zero fill is "
            "separated from the load by a barrier (different threads write the same slot), "
            "all barriers are outside branches; the extra shared stores cost nothing here.",
    ),
    "hot19_blur2d_tiled_zero_fill_no_barrier": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    h, wd = img.shape
    row0 = cuda.blockIdx.y * TILE - R
    col0 = cuda.blockIdx.x * TILE - R
    # clear the tile, then fill it (no need to wait: the fill comes after the clear)
    t = ty * TILE + tx
    for e in range(t, HALO * HALO, TILE * TILE):
        tile[e // HALO, e % HALO] = float32(0.0)
    for yy in range(ty, HALO, TILE):
        rr = min(max(row0 + yy, 0), h - 1)
        for xx in range(tx, HALO, TILE):
            cc = min(max(col0 + xx, 0), wd - 1)
            tile[yy, xx] = img[rr, cc]
    cuda.syncthreads()
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
''',
        fail=["sync"],
        passes=["bounds"],
        reason="race",
        why="slot (yy, xx) is cleared by thread (20 yy + xx) mod 256 and filled by thread "
            "(yy mod 16, xx mod 16) with no barrier between: e.g. tile[19, 19] is cleared by "
            "warp 4 (t=143) and filled by warp 1 (t=51); if warp 4 runs late the zero lands "
            "last and out[15, 15] of the block loses a tap: a write-write race in every block "
            "(racecheck WAW hazard); on a GPU the wrong sums appear only under some schedules "
            "(numba's simulator, one thread at a time, gets them wrong at every size).",
    ),
    # ------------------------------------------------------------------ 09_transpose
    "hot19_transpose_tiled_two_warps_stage": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows, cols = a.shape
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    # warps 0 and 1 (ty = 0, 1) stage the whole tile, 16 rows each, row by row
    if ty < 2:
        for r in range(ty, TILE, 2):
            y = by * TILE + r
            x = bx * TILE + tx
            if y < rows and x < cols:
                tile[r, tx] = a[y, x]
    cuda.syncthreads()
    # everybody stores four rows of out, reading the tile down a column
    for k in range(0, TILE, BLOCK_ROWS):
        oy = bx * TILE + ty + k
        ox = by * TILE + tx
        if oy < cols and ox < rows:
            out[oy, ox] = tile[tx, ty + k]
''',
        full=True,
        why="busiest thread (ty < 2) makes 16 global loads + 16 shared stores + 4 shared loads "
            "+ 4 global stores = 40 <= 2 x 16 + 8, others 8 (mean 16, so 40 <= 4 x mean too); "
            "4 outputs per thread, every warp access one row segment (coalesced), one barrier "
            "reached by all; stores read only slots loaded for in-range elements.",
    ),
    "hot19_transpose_tiled_one_warp_stages": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows, cols = a.shape
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    # warp 0 stages the whole tile (32 coalesced row loads), the other warps wait
    if ty == 0:
        for r in range(TILE):
            y = by * TILE + r
            x = bx * TILE + tx
            if y < rows and x < cols:
                tile[r, tx] = a[y, x]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        oy = bx * TILE + ty + k
        ox = by * TILE + tx
        if oy < cols and ox < rows:
            out[oy, ox] = tile[tx, ty + k]
''',
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync", "memory"],
        reason='the work of many',
        why="warp 0's threads make 32 global loads + 32 shared stores + 4 shared loads + 4 "
            "global stores = 72 > 2 x 16 + 8 = 40 on a full tile (the guide's own figure), "
            "while loads and stores stay coalesced row segments and the single barrier is "
            "reached by all: only parallel goes.",
    ),
}

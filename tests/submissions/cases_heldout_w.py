"""Submissions for exercises 03_matmul and 09_transpose (correct, wrong and off-brief kernels),
each written from the student notebook and INSTRUCTOR.md alone, as a student would."""

CASES = {
    # ------------------------------------------------------------------ 03_matmul: correct
    "how_naive_device_dot_while_loop": dict(
        exercise="03_matmul",
        part="matmul_naive",
        kernel='''
@cuda.jit(device=True)
def dot_row_col(A, B, row, col):
    # dot product of row `row` of A with column `col` of B
    acc = float32(0.0)
    i = 0
    k = A.shape[1]
    while i < k:
        acc += A[row, i] * B[i, col]
        i += 1
    return acc


@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    m, n = C.shape
    if row < m and col < n:
        C[row, col] = dot_row_col(A, B, row, col)
''',
        full=True,
    ),
    "how_tiled_double_buffer_one_barrier_per_step": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    # Two copies of each tile (ping-pong). Step t fills copy t % 2 while copy (t - 1) % 2
    # may still be read by slow threads; the copy filled at step t + 2 was last read at
    # step t, before the barrier of step t + 1. So one barrier per step is enough.
    sA = cuda.shared.array((2, TILE, TILE), float32)
    sB = cuda.shared.array((2, TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    m, k = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        buf = t % 2
        a_col = t * TILE + tx
        b_row = t * TILE + ty
        sA[buf, ty, tx] = A[row, a_col] if row < m and a_col < k else float32(0.0)
        sB[buf, ty, tx] = B[b_row, col] if b_row < k and col < n else float32(0.0)
        cuda.syncthreads()
        for i in range(TILE):
            acc += sA[buf, ty, i] * sB[buf, i, tx]
    if row < m and col < n:
        C[row, col] = acc
''',
        full=True,
    ),
    "how_tiled_device_loader_while_short_last_tile": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit(device=True)
def load_or_zero(M, r, c):
    # M[r, c], or 0 where the tile sticks out of the matrix
    if r < M.shape[0] and c < M.shape[1]:
        return M[r, c]
    return float32(0.0)


@cuda.jit
def matmul_tiled(A, B, C):
    tile_a = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
    tile_b = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    row = cuda.blockIdx.y * cuda.blockDim.y + ty
    col = cuda.blockIdx.x * cuda.blockDim.x + tx
    k = A.shape[1]
    acc = float32(0.0)
    start = 0
    while start < k:
        tile_a[ty, tx] = load_or_zero(A, row, start + tx)
        tile_b[ty, tx] = load_or_zero(B, start + ty, col)
        cuda.syncthreads()
        width = min(TILE, k - start)  # the last tile may be short: skip its zeros
        for i in range(width):
            acc += tile_a[ty, i] * tile_b[i, tx]
        start += TILE
        if start < k:
            # same decision in every thread of the block; after the last tile nobody
            # overwrites the tiles again, so that barrier can go
            cuda.syncthreads()
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = acc
''',
        full=True,
    ),
    # ------------------------------------------------------------------ 03_matmul: bugs
    "how_naive_output_width_from_A_shape": dict(
        exercise="03_matmul",
        part="matmul_naive",
        kernel='''
@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    m, n = A.shape  # rows and columns of the output
    if row < m and col < n:
        acc = float32(0.0)
        for i in range(B.shape[0]):
            acc += A[row, i] * B[i, col]
        C[row, col] = acc
''',
        fail=["hidden"],
        passes=[],
        reason="hidden cases",
        why="n is taken from A.shape[1] (= k), so the column guard is col < k: when k < n the "
            "columns k..n-1 of C are never written, and when k > n and n is not a multiple of "
            "16 threads with n <= col < k read B[i, col] and write C[row, col] past the last "
            "column (memcheck reports it once the row offset passes the end); only k == n is right.",
    ),
    "how_tiled_syncwarp_after_loading": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    m, k = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        a_col = t * TILE + tx
        b_row = t * TILE + ty
        if row < m and a_col < k:
            sA[ty, tx] = A[row, a_col]
        else:
            sA[ty, tx] = 0.0
        if b_row < k and col < n:
            sB[ty, tx] = B[b_row, col]
        else:
            sB[ty, tx] = 0.0
        # my row of sA was written by my own warp, so a warp barrier is enough here
        cuda.syncwarp()
        for i in range(TILE):
            acc += sA[ty, i] * sB[i, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="a 16x16 block has two tile rows per warp, so sA[ty, :] is ordered by syncwarp but "
            "sB[i, tx] was written by the warp holding row i: every thread reads 14 rows of sB "
            "written by other warps with no block barrier in between (racecheck RAW hazard at "
            "every step, any size); a GPU often gets the numbers right by luck.",
    ),
    "how_tiled_early_return_before_barriers": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    m, k = A.shape
    n = B.shape[1]
    if row >= m or col >= n:
        return  # this thread has no output, nothing to do
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        a_col = t * TILE + tx
        b_row = t * TILE + ty
        sA[ty, tx] = A[row, a_col] if a_col < k else float32(0.0)
        sB[ty, tx] = B[b_row, col] if b_row < k else float32(0.0)
        cuda.syncthreads()
        for i in range(TILE):
            acc += sA[ty, i] * sB[i, tx]
        cuda.syncthreads()
    C[row, col] = acc
''',
        fail=["sync", "hidden"],
        passes=[],
        reason="divergent barrier",
        why="in the edge blocks (m or n not a multiple of 16) the threads outside C return "
            "before the barriers, and the slots they should have filled (sB rows ty >= m % 16, "
            "sA columns tx >= n % 16) are read uninitialised by the threads that stay: "
            "synccheck/initcheck findings and wrong outputs on those edge blocks.",
    ),
    "how_tiled_no_zero_fill_stale_tile": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    m, k = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    ntiles = (k + TILE - 1) // TILE
    for t in range(ntiles):
        a_col = t * TILE + tx
        b_row = t * TILE + ty
        # only load what is inside the matrices
        if row < m and a_col < k:
            sA[ty, tx] = A[row, a_col]
        if b_row < k and col < n:
            sB[ty, tx] = B[b_row, col]
        cuda.syncthreads()
        for i in range(TILE):
            acc += sA[ty, i] * sB[i, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["hidden"],
        passes=[],
        reason="wrong values",
        why="when k is not a multiple of 16 the last step's slots i >= k % 16 are not zeroed: "
            "they keep A[row, k - k%16 - 16 + i] and B[k - k%16 - 16 + i, col] from the previous "
            "step, whose products are added again (wrong sums), and for k < 16 they are never "
            "written (initcheck: uninitialised shared memory reaches C); right only for k % 16 == 0.",
    ),
    # ------------------------------------------------------------------ 03_matmul: off the brief
    "how_tiled_only_B_staged_A_from_global": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    # only B needs sharing: a thread reads its own row of A straight from global memory
    sB = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    m, k = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        b_row = t * TILE + ty
        if b_row < k and col < n:
            sB[ty, tx] = B[b_row, col]
        else:
            sB[ty, tx] = 0.0
        cuda.syncthreads()
        if row < m:
            for i in range(TILE):
                kk = t * TILE + i
                if kk < k:
                    acc += A[row, kk] * sB[i, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="global loads",
        why="outputs and barriers are right, but each thread loads k values of A plus "
            "ceil(k/16) of B, above the 2 ceil(k/16) + 1 loads per thread that tiling both "
            "operands allows (for k = 100: 107 against 15).",
    ),
    # ------------------------------------------------------------------ 09_transpose: correct
    "how_transpose_naive_grid_stride_while": dict(
        exercise="09_transpose",
        part="transpose_naive",
        kernel='''
@cuda.jit
def transpose_naive(a, out):
    rows, cols = a.shape
    x0, y0 = cuda.grid(2)
    sx, sy = cuda.gridsize(2)
    # grid-stride in both directions: with naive_launch each thread does one element
    y = y0
    while y < rows:
        x = x0
        while x < cols:
            out[x, y] = a[y, x]
            x += sx
        y += sy
''',
        full=True,
    ),
    "how_transpose_tiled_row_blocks_transpose_on_write": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        extra_cells=["ROWS_PER_THREAD = TILE // BLOCK_ROWS  # 4 rows of the tile per thread\n"],
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    rows, cols = a.shape
    # thread row ty owns the 4 consecutive tile rows ty*4 .. ty*4+3.
    # I turn the tile around when I fill it (tile[c, r] = a[r, c]) and read it row-wise.
    x = bx * TILE + tx
    for j in range(ROWS_PER_THREAD):
        r = ty * ROWS_PER_THREAD + j
        y = by * TILE + r
        if y < rows and x < cols:
            tile[tx, r] = a[y, x]
    cuda.syncthreads()
    out_col = by * TILE + tx  # a row of a
    for j in range(ROWS_PER_THREAD):
        p = ty * ROWS_PER_THREAD + j
        out_row = bx * TILE + p  # a column of a
        if out_row < cols and out_col < rows:
            out[out_row, out_col] = tile[p, tx]
''',
        full=True,
    ),
    "how_transpose_padded_xor_swizzle": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    # no padding: a 32 x 32 tile where element (r, c) is kept in column c ^ r.
    # For a fixed row, c ^ r runs over all 32 columns; for a fixed column c and rows
    # r = 0..31, c ^ r does too, so rows and columns both hit 32 different banks.
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    bx, by = cuda.blockIdx.x, cuda.blockIdx.y
    rows, cols = a.shape
    x = bx * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        r = ty + k
        y = by * TILE + r
        if y < rows and x < cols:
            tile[r, tx ^ r] = a[y, x]
    cuda.syncthreads()
    y = by * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        c = ty + k
        x = bx * TILE + c
        if x < cols and y < rows:
            out[x, y] = tile[tx, c ^ tx]
''',
        full=True,
    ),
    "how_transpose_padded_flat_tile_device_index": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
TILE_WORDS = TILE * TILE_PAD  # the padded tile as one flat array


@cuda.jit(device=True)
def slot(r, c):
    # word of element (r, c) in a tile whose rows are TILE_PAD words long
    return r * TILE_PAD + c


@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array(TILE_WORDS, float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row0 = cuda.blockIdx.y * TILE
    col0 = cuda.blockIdx.x * TILE
    rows, cols = a.shape
    k = 0
    while k < TILE:
        y = row0 + ty + k
        x = col0 + tx
        if y < rows and x < cols:
            tile[slot(ty + k, tx)] = a[y, x]
        k += BLOCK_ROWS
    cuda.syncthreads()
    k = 0
    while k < TILE:
        orow = col0 + ty + k
        ocol = row0 + tx
        if orow < cols and ocol < rows:
            out[orow, ocol] = tile[slot(tx, ty + k)]
        k += BLOCK_ROWS
''',
        full=True,
    ),
    # ------------------------------------------------------------------ 09_transpose: bugs
    "how_transpose_tiled_store_guard_not_swapped": dict(
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
        y = by * TILE + ty + k
        x = bx * TILE + tx
        if y < rows and x < cols:
            tile[ty + k, tx] = a[y, x]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        orow = bx * TILE + ty + k
        ocol = by * TILE + tx
        if orow < rows and ocol < cols:
            out[orow, ocol] = tile[tx, ty + k]
''',
        fail=["hidden", "bounds"],
        passes=[],
        reason="out-of-bounds",
        why="the store guard checks out's row against rows and its column against cols, but out "
            "is (cols, rows): right for square matrices only; for a single column (rows x 1) "
            "threads write out[1..31, c] past the end of the 1 x rows array (memcheck), and for "
            "cols > rows elements are dropped and others land in the wrong row.",
    ),
    "how_transpose_padded_early_exit_past_last_column": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows, cols = a.shape
    x = cuda.blockIdx.x * TILE + tx
    if x >= cols:
        return  # my column is past the right edge of a
    for k in range(0, TILE, BLOCK_ROWS):
        y = cuda.blockIdx.y * TILE + ty + k
        if y < rows:
            tile[ty + k, tx] = a[y, x]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        orow = cuda.blockIdx.x * TILE + ty + k
        ocol = cuda.blockIdx.y * TILE + tx
        if orow < cols and ocol < rows:
            out[orow, ocol] = tile[tx, ty + k]
''',
        fail=["sync", "hidden"],
        passes=[],
        reason="divergent barrier",
        why="when cols is not a multiple of 32, lanes tx >= cols % 32 of the last tile column "
            "exit before syncthreads (divergent barrier), and they were also the threads that "
            "store out[.., by*32 + tx]: those elements of out are never written whenever "
            "rows > by*32 + cols % 32 (e.g. a 40 x 33 matrix).",
    ),
    # ------------------------------------------------------------------ 09_transpose: off the brief
    "how_transpose_tiled_strided_loads_own_slot": dict(
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
    # fill the tile already transposed: tile[j, i] = a[by*TILE + i, bx*TILE + j]
    for k in range(0, TILE, BLOCK_ROWS):
        r = by * TILE + tx
        c = bx * TILE + ty + k
        if r < rows and c < cols:
            tile[ty + k, tx] = a[r, c]
    cuda.syncthreads()
    # then every row of the tile is a row of out
    for k in range(0, TILE, BLOCK_ROWS):
        orow = bx * TILE + ty + k
        ocol = by * TILE + tx
        if orow < cols and ocol < rows:
            out[orow, ocol] = tile[ty + k, tx]
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="sectors",
        why="the transpose happens in the global load: a warp's 32 lanes read a column "
            "segment of a (one row apart each), 32 sectors per request where 4 would do; the "
            "stores are coalesced and each thread only reads back its own slot.",
    ),
    "how_transpose_padded_pad_by_two_words": dict(
        exercise="09_transpose",
        part="transpose_padded",
        extra_cells=["TILE_PAD2 = TILE + 2  # two spare words a row: rows stay 8-byte aligned\n"],
        kernel='''
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD2), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    rows, cols = a.shape
    for k in range(0, TILE, BLOCK_ROWS):
        y = by * TILE + ty + k
        x = bx * TILE + tx
        if y < rows and x < cols:
            tile[ty + k, tx] = a[y, x]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        orow = bx * TILE + ty + k
        ocol = by * TILE + tx
        if orow < cols and ocol < rows:
            out[orow, ocol] = tile[tx, ty + k]
''',
        fail=["conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
        reason="bank conflict",
        why="with rows of 34 words, element (r, c) is in bank (2r + c) % 32, so a column read "
            "tile[tx, c] puts lanes tx and tx + 16 in the same bank on different words: a "
            "2-way conflict on every read request (one extra wavefront each).",
    ),
}

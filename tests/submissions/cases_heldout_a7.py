"""Blind submissions for exercises 03, 04, 09, 12 and 13: cheating and gaming submissions, module-level NumPy arrays and const arrays, Triton block pointers and heuristics, written from the student notebooks and INSTRUCTOR.md only."""

CASES = {}

CASES["hof7_matmul_tiled_double_buffer_3d_shared"] = dict(
    exercise="03_matmul",
    part="matmul_tiled",
    kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    # two buffers per operand: step t fills buffer t % 2 while nobody reads it any more,
    # so one barrier per step is enough (the buffer written at step t was last read at
    # step t - 2, and everyone passed step t - 1's barrier after those reads)
    sA = cuda.shared.array((2, TILE, TILE), float32)
    sB = cuda.shared.array((2, TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    steps = (kk + TILE - 1) // TILE
    for t in range(steps):
        buf = t % 2
        a_col = t * TILE + tx
        b_row = t * TILE + ty
        sA[buf, ty, tx] = A[row, a_col] if (row < m and a_col < kk) else float32(0.0)
        sB[buf, ty, tx] = B[b_row, col] if (b_row < kk and col < n) else float32(0.0)
        cuda.syncthreads()
        for i in range(TILE):
            acc += sA[buf, ty, i] * sB[buf, i, tx]
    if row < m and col < n:
        C[row, col] = acc
''',
    full=True,
)

CASES["hof7_matmul_tiled_b_tail_not_zeroed"] = dict(
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
    m, kk = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range((kk + TILE - 1) // TILE):
        a_col = t * TILE + tx
        b_row = t * TILE + ty
        if row < m and a_col < kk:
            sA[ty, tx] = A[row, a_col]
        else:
            sA[ty, tx] = 0.0
        if b_row < kk and col < n:
            sB[ty, tx] = B[b_row, col]
        # no else needed: the A tile is already zero past k, so whatever sits in sB there
        # gets multiplied by 0
        cuda.syncthreads()
        for i in range(TILE):
            acc += sA[ty, i] * sB[i, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
''',
    fail=["hidden", "sync"],
    passes=[],
    reason='uninitialised shared',
    why="when k < TILE (one K step) rows k..15 of sB are never written before they are read; 0 * garbage is NaN whenever the stale shared word is a NaN/Inf pattern on a GPU (initcheck-style: undefined value reaches C); for k >= TILE the tail rows hold stale but defined data from the previous step, so only k < 16 exposes it",
)

CASES["hof7_matmul_naive_block_leader_does_tile"] = dict(
    exercise="03_matmul",
    part="matmul_naive",
    kernel='''
@cuda.jit
def matmul_naive(A, B, C):
    # thread (0, 0) of every block fills its block's TILE x TILE patch of C;
    # the other threads have nothing to do
    if cuda.threadIdx.x != 0 or cuda.threadIdx.y != 0:
        return
    m, n = C.shape
    r0 = cuda.blockIdx.y * TILE
    c0 = cuda.blockIdx.x * TILE
    for r in range(r0, min(r0 + TILE, m)):
        for c in range(c0, min(c0 + TILE, n)):
            acc = float32(0.0)
            for i in range(A.shape[1]):
                acc += A[r, i] * B[i, c]
            C[r, c] = acc
''',
    fail=["parallel"],
    passes=["public", "hidden", "bounds"],
    reason='stored 256 outputs',
    why="outputs are right, but one thread per block stores up to 256 outputs and makes about 256 (2k + 1) memory operations, far above one output per thread and the 4k + 8 budget",
)

CASES["hof7_blur2d_gridstride2d_clamp_helper"] = dict(
    exercise="04_conv2d",
    part="blur2d",
    kernel='''
@cuda.jit(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@cuda.jit
def blur2d(img, w, out):
    h, wd = img.shape
    K = w.shape[0]
    r = K // 2
    x0, y0 = cuda.grid(2)
    sx, sy = cuda.gridsize(2)
    # 2-D grid-stride loops: with grid_for each thread takes exactly one pixel,
    # but any smaller grid would still cover the image
    y = y0
    while y < h:
        x = x0
        while x < wd:
            acc = float32(0.0)
            for dy in range(K):
                yy = clamp(y + dy - r, 0, h - 1)
                for dx in range(K):
                    xx = clamp(x + dx - r, 0, wd - 1)
                    acc += w[dy, dx] * img[yy, xx]
            out[y, x] = acc
            x += sx
        y += sy
''',
    full=True,
)

CASES["hof7_blur2d_grid_unpacked_row_col"] = dict(
    exercise="04_conv2d",
    part="blur2d",
    kernel='''
@cuda.jit
def blur2d(img, w, out):
    row, col = cuda.grid(2)
    h, wd = img.shape
    if row >= h or col >= wd:
        return
    K = w.shape[0]
    r = K // 2
    acc = float32(0.0)
    for dy in range(K):
        yy = min(max(row + dy - r, 0), h - 1)
        for dx in range(K):
            xx = min(max(col + dx - r, 0), wd - 1)
            acc += w[dy, dx] * img[yy, xx]
    out[row, col] = acc
''',
    fail=["hidden"],
    passes=[],
    reason="wrong values",
    why="cuda.grid(2) returns (x, y) = (col, row); the guards keep every access in range, but the grid's x extent (ceil(w/16) tiles) must now cover the rows and its y extent the columns, so pixels are missed whenever ceil(h/16) != ceil(w/16) (e.g. 20 x 40); images whose two sides need the same number of tiles come out right",
)

CASES["hof7_blur2d_tiled_const_lookup_flat_halo"] = dict(
    exercise="04_conv2d",
    part="blur2d_tiled",
    kernel='''
# flat index i of the halo'd patch -> (row, col) in the patch, as lookup tables in constant memory
HALO_ROW = np.repeat(np.arange(HALO), HALO).astype(np.int32)
HALO_COL = np.tile(np.arange(HALO), HALO).astype(np.int32)
LOAD_ROUNDS = (HALO * HALO + TILE * TILE - 1) // (TILE * TILE)  # 2 for a 20 x 20 patch

@cuda.jit
def blur2d_tiled(img, w, out):
    patch = cuda.shared.array((HALO, HALO), float32)
    prow = cuda.const.array_like(HALO_ROW)
    pcol = cuda.const.array_like(HALO_COL)
    h, wd = img.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tid = ty * TILE + tx
    top = cuda.blockIdx.y * TILE - R
    left = cuda.blockIdx.x * TILE - R
    # the 256 threads walk the 400 patch elements in flat order
    for j in range(LOAD_ROUNDS):
        i = tid + j * (TILE * TILE)
        if i < HALO * HALO:
            pr = prow[i]
            pc = pcol[i]
            gy = min(max(top + pr, 0), h - 1)
            gx = min(max(left + pc, 0), wd - 1)
            patch[pr, pc] = img[gy, gx]
    cuda.syncthreads()
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * patch[ty + dy, tx + dx]
        out[row, col] = acc
''',
    full=True,
)

CASES["hof7_blur2d_tiled_box_filter_baked_in"] = dict(
    exercise="04_conv2d",
    part="blur2d_tiled",
    kernel='''
# the filter from the demo cell, baked into the kernel as a constant array:
# saves 25 global loads of w per pixel
BOX = np.full((2 * R + 1, 2 * R + 1), 1 / 25, dtype=np.float32)

@cuda.jit
def blur2d_tiled(img, w, out):
    patch = cuda.shared.array((HALO, HALO), float32)
    h, wd = img.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    top = cuda.blockIdx.y * TILE - R
    left = cuda.blockIdx.x * TILE - R
    for py in range(ty, HALO, TILE):
        for px in range(tx, HALO, TILE):
            gy = min(max(top + py, 0), h - 1)
            gx = min(max(left + px, 0), wd - 1)
            patch[py, px] = img[gy, gx]
    cuda.syncthreads()
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += BOX[dy, dx] * patch[ty + dy, tx + dx]
        out[row, col] = acc
''',
    fail=["public", "hidden"],
    passes=[],
    reason="wrong values",
    why="the weights come from a NumPy array computed at the top level, not from the w argument, so any filter other than the 5x5 box (the checks use asymmetric ones) gives wrong pixels everywhere",
)

CASES["hof7_transpose_padded_xor_swizzle"] = dict(
    exercise="09_transpose",
    part="transpose_padded",
    kernel='''
@cuda.jit
def transpose_padded(a, out):
    # 32 x 32 tile, XOR swizzle: element (r, c) lives at column c ^ r of row r.
    # a row r is a permutation of the 32 banks, and so is a column (r ^ c over r)
    tile = cuda.shared.array((TILE, TILE), float32)
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    x = bx * TILE + tx
    k = 0
    while k < TILE:
        r = ty + k
        y = by * TILE + r
        if y < rows and x < cols:
            tile[r, tx ^ r] = a[y, x]
        k += BLOCK_ROWS
    cuda.syncthreads()
    x = by * TILE + tx
    k = 0
    while k < TILE:
        r = ty + k
        y = bx * TILE + r
        if y < cols and x < rows:
            out[y, x] = tile[tx, r ^ tx]  # element (tx, r) of the tile
        k += BLOCK_ROWS
''',
    full=True,
)

CASES["hof7_transpose_padded_pad_two_words"] = dict(
    exercise="09_transpose",
    part="transpose_padded",
    extra_cells=['''
TILE_PAD2 = TILE + 2  # two spare words per row, to be safe
'''],
    kernel='''
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD2), float32)
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        y = cuda.blockIdx.y * TILE + ty + k
        if y < rows and x < cols:
            tile[ty + k, tx] = a[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        y = cuda.blockIdx.x * TILE + ty + k
        if y < cols and x < rows:
            out[y, x] = tile[tx, ty + k]
''',
    fail=["conflicts"],
    passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
    reason="bank conflict",
    why="with a row of 34 words element [tx, c] is in bank (2 tx + c) % 32, so lanes tx and tx + 16 of the column read hit the same bank at different words: a 2-way conflict on every full-warp read; values, barriers and coalescing are fine",
)

CASES["hof7_transpose_tiled_barrier_inside_col_guard"] = dict(
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
    if x < cols:
        for k in range(0, TILE, BLOCK_ROWS):
            y = cuda.blockIdx.y * TILE + ty + k
            if y < rows:
                tile[ty + k, tx] = a[y, x]
        cuda.syncthreads()  # wait until my column of the tile is loaded
    x = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        y = cuda.blockIdx.x * TILE + ty + k
        if y < cols and x < rows:
            out[y, x] = tile[tx, ty + k]
''',
    fail=["sync"],
    passes=[],
    reason="divergent barrier",
    why="in the last block column when cols is not a multiple of 32, lanes with x >= cols skip the syncthreads (divergent barrier) and go straight to the store phase, reading tile[tx, ty + k] that in-range threads write with no barrier between them (race); blocks away from the right edge are fine",
)

CASES["hof7_transpose_tiled_edge_tiles_copied_naively"] = dict(
    exercise="09_transpose",
    part="transpose_tiled",
    kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    if (bx + 1) * TILE > cols or (by + 1) * TILE > rows:
        # ragged tile at the edge: the whole block copies it straight across,
        # no shared memory and no guard juggling (same for every thread of the block,
        # so nobody misses the barrier below)
        x = bx * TILE + tx
        for k in range(0, TILE, BLOCK_ROWS):
            y = by * TILE + ty + k
            if y < rows and x < cols:
                out[x, y] = a[y, x]
        return
    for k in range(0, TILE, BLOCK_ROWS):
        tile[ty + k, tx] = a[by * TILE + ty + k, bx * TILE + tx]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        out[bx * TILE + ty + k, by * TILE + tx] = tile[tx, ty + k]
''',
    fail=["memory"],
    passes=["public", "hidden", "bounds", "sync", "parallel"],
    reason="sectors",
    why="full tiles go through shared memory, but every block whose tile sticks out of the matrix stores out[x, y] with x varying across the warp: one 32-byte sector per lane (8x the ideal) whenever rows >= 8 and rows or cols is not a multiple of 32; values, barriers (block-uniform return) and guards are fine",
)

CASES["hof7_softmax_2d_row_helper_heuristic_even"] = dict(
    exercise="12_triton_softmax",
    part="softmax_kernel",
    kernel='''
@triton.jit
def _online_update(m, s, x):
    # x is a [1, BLOCK] piece of the row, masked lanes hold -inf
    m_new = tl.maximum(m, tl.max(x, axis=1))
    s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new[:, None]), axis=1)
    return m_new, s


@triton.heuristics({"EVEN_N": lambda args: args["n_cols"] % args["BLOCK"] == 0})
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr,
                   EVEN_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)[None, :]  # a [1, BLOCK] row of column offsets
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    m = tl.full((1,), -float("inf"), tl.float32)
    s = tl.zeros((1,), tl.float32)
    n_blocks = tl.cdiv(n_cols, BLOCK)
    for b in range(0, n_blocks):
        offs = b * BLOCK + cols
        if EVEN_N:
            x = tl.load(x_row + offs)
        else:
            x = tl.load(x_row + offs, mask=offs < n_cols, other=-float("inf"))
        m, s = _online_update(m, s, x)
    inv = 1.0 / s
    for b in range(0, n_blocks):
        offs = b * BLOCK + cols
        mask = offs < n_cols
        x = tl.load(x_row + offs, mask=mask, other=-float("inf"))
        y = tl.where(mask, tl.exp(x - m[:, None]) * inv[:, None], 0.0)
        tl.store(y_row + offs, y, mask=mask)
''',
    full=True,
)

CASES["hof7_softmax_running_max_starts_at_zero"] = dict(
    exercise="12_triton_softmax",
    part="softmax_kernel",
    kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs0 = tl.arange(0, BLOCK)
    # start the running max at 0, not -inf: then m - m_new is never -inf - (-inf) = nan
    m = tl.zeros((), tl.float32)
    s = tl.zeros((), tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + offs0
        mask = offs < n_cols
        x = tl.load(x_ptr + row * x_stride + offs, mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        offs = start + offs0
        mask = offs < n_cols
        x = tl.load(x_ptr + row * x_stride + offs, mask=mask, other=0.0)
        tl.store(y_ptr + row * y_stride + offs, tl.exp(x - m) / s, mask=mask)
''',
    fail=["hidden"],
    passes=[],
    reason="wrong values",
    why="the max is clamped below at 0, so a row whose values are all below about -87 (the boundary row below -104, or a row shifted by -1000) sums exp(x - 0) = 0 and writes 0/0 = nan; rows with any value above about -87 come out right",
)

CASES["hof7_softmax_unrolled_eight_blocks"] = dict(
    exercise="12_triton_softmax",
    part="softmax_kernel",
    kernel='''
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # rows in the checks are at most 1000 wide: 8 blocks of 128, fully unrolled
    row = tl.program_id(0)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    m = -float("inf")
    s = 0.0
    for b in tl.static_range(8):
        offs = b * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_row + offs, mask=offs < n_cols, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.where(offs < n_cols, tl.exp(x - m_new), 0.0), axis=0)
        m = m_new
    for b in tl.static_range(8):
        offs = b * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_row + offs, mask=mask, other=0.0)
        tl.store(y_row + offs, tl.exp(x - m) / s, mask=mask)
''',
    fail=["hidden"],
    passes=[],
    reason="wrong values",
    why="special-cases the notebook's 1000-column demo: columns past 8 * BLOCK = 1024 are neither counted in the sum nor written, so the hidden row wider than 8 blocks (and the case larger than every public one) is wrong; masks keep every access in range",
)

CASES["hof7_tmatmul_block_ptr_advance_ieee"] = dict(
    exercise="13_triton_matmul",
    part="matmul_kernel",
    kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_pid_n
    first_m = (pid // per_group) * GROUP_M
    rows_here = tl.minimum(num_pid_m - first_m, GROUP_M)  # the last group may be shorter
    pid_m = first_m + (pid % per_group) % rows_here
    pid_n = (pid % per_group) // rows_here
    # block pointers: boundary_check + zero padding take care of every ragged edge
    a_blk = tl.make_block_ptr(a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                              offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_blk = tl.make_block_ptr(b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                              offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                              offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N),
                              order=(1, 0))
    tl.store(c_blk, acc, boundary_check=(0, 1))
''',
    full=True,
)

CASES["hof7_tmatmul_group_rows_not_clamped"] = dict(
    exercise="13_triton_matmul",
    part="matmul_kernel",
    kernel='''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_pid_n
    group = pid // per_group
    # GROUP_M rows of tiles per group, down a column first
    pid_m = group * GROUP_M + (pid % per_group) % GROUP_M
    pid_n = (pid % per_group) // GROUP_M
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k0 + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
''',
    fail=["hidden"],
    passes=[],
    reason="wrong values",
    why="the last group is assumed to have GROUP_M rows of tiles: when cdiv(M, 32) is not a multiple of 4 (M = 1, 33, 65, 129, ...) and N > 32, programs map to tile rows past the matrix (masked off) and some tiles of C are never computed; M with 4 or 8 tile rows (the 100 x 90 demo) is right",
)

"""Blind set a30: which definition a top-to-bottom run uses: eager signatures and device functions above or below, constants frozen at an eager compile, later bindings, if False blocks, signature lists."""

CASES = {}

# ---------------------------------------------------------------- full marks

CASES["hoe30_conv1d_eager_sig_devfn_earlier_cell"] = dict(
    exercise="02_conv1d",
    part="conv1d",
    extra_cells=['''
# border rule as a device function, compiled eagerly with its own signature
@cuda.jit("float32(float32[:], int64)", device=True)
def x_or_zero(x, j):
    if j >= 0 and j < x.size:
        return x[j]
    return float32(0.0)
'''],
    kernel='''
@cuda.jit("void(float32[:], float32[:], float32[:])")
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    r = w.size // 2
    acc = float32(0.0)
    for j in range(w.size):
        acc += w[j] * x_or_zero(x, i + r - j)
    out[i] = acc
''',
    full=True,
)

CASES["hoe30_matmul_tiled_eager_sig_const_frozen"] = dict(
    exercise="03_matmul",
    part="matmul_tiled",
    kernel='''
T, PAD = TILE, 1  # tile edge, and a padding column against bank conflicts
TP = T + PAD  # padded row length (a shared array's shape must be a constant)


@cuda.jit("void(float32[:, :], float32[:, :], float32[:, :])")
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((T, TP), float32)
    sB = cuda.shared.array((T, TP), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, k = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t0 in range(0, k, T):
        a_col = t0 + tx
        b_row = t0 + ty
        sA[ty, tx] = A[row, a_col] if (row < m and a_col < k) else float32(0.0)
        sB[ty, tx] = B[b_row, col] if (b_row < k and col < n) else float32(0.0)
        cuda.syncthreads()
        for kk in range(T):
            acc += sA[ty, kk] * sB[kk, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc


# the kernel above is already compiled (eager signature): these only feed my own
# experiments further down, the compiled matmul_tiled keeps T = 16, PAD = 1
T, PAD = 8, 0
TP = T + PAD
''',
    full=True,
)

CASES["hoe30_scan_blelloch_inline_devfn_below"] = dict(
    exercise="08_scan",
    part="block_scan",
    kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    v = load_or_zero(x, i)
    s[t] = v
    # up-sweep
    d = 1
    while d < TPB:
        cuda.syncthreads()
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2
    cuda.syncthreads()
    if t == 0:
        block_sums[b] = s[TPB - 1]
        s[TPB - 1] = float32(0.0)
    # down-sweep
    d = TPB // 2
    while d >= 1:
        cuda.syncthreads()
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        d //= 2
    cuda.syncthreads()
    if i < x.size:
        out[i] = s[t] + v


# helper below the kernel: the lazy kernel only looks it up when it is compiled
@cuda.jit(device=True, inline=True)
def load_or_zero(x, i):
    if i < x.size:
        return x[i]
    return float32(0.0)
''',
    full=True,
)

CASES["hoe30_matmul_tiled_alias_redefined_later"] = dict(
    exercise="03_matmul",
    part="matmul_tiled",
    extra_cells=['''
# first attempt (no second barrier: the next step overwrites tiles still being read)
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    acc = float32(0.0)
    for t0 in range(0, A.shape[1], TILE):
        sA[ty, tx] = A[row, t0 + tx] if row < A.shape[0] and t0 + tx < A.shape[1] else 0.0
        sB[ty, tx] = B[t0 + ty, col] if t0 + ty < B.shape[0] and col < B.shape[1] else 0.0
        cuda.syncthreads()
        for kk in range(TILE):
            acc += sA[ty, kk] * sB[kk, tx]
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = acc
'''],
    kernel='''
@cuda.jit
def my_tiled(A, B, C):
    tile_a = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
    tile_b = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * cuda.blockDim.y + ty
    col = cuda.blockIdx.x * cuda.blockDim.x + tx
    m = C.shape[0]
    n = C.shape[1]
    k = A.shape[1]
    acc = float32(0.0)
    t0 = 0
    while t0 < k:
        va = float32(0.0)
        if row < m and t0 + tx < k:
            va = A[row, t0 + tx]
        vb = float32(0.0)
        if t0 + ty < k and col < n:
            vb = B[t0 + ty, col]
        tile_a[ty, tx] = va
        tile_b[ty, tx] = vb
        cuda.syncthreads()
        for kk in range(TILE):
            acc += tile_a[ty, kk] * tile_b[kk, tx]
        cuda.syncthreads()
        t0 += TILE
    if row < m and col < n:
        C[row, col] = acc


matmul_tiled = my_tiled  # the name the notebook checks
''',
    full=True,
)

# ---------------------------------------------------------------- real bugs

CASES["hoe30_conv1d_float64_signature"] = dict(
    exercise="02_conv1d",
    part="conv1d",
    kernel='''
# double precision for the accumulation, compiled once up front
@cuda.jit("void(float64[:], float64[:], float64[:])")
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    if i < n:
        r = w.size // 2
        acc = 0.0
        for j in range(w.size):
            src = i + r - j
            if 0 <= src < n:
                acc += w[j] * x[src]
        out[i] = acc
''',
    fail=["public", "hidden"],
    passes=[],
    reason="signature",
    why="a kernel with one eager signature is launched unchecked: numba-cuda passes the float32 "
        "arrays' pointer, 4-byte strides and sizes, the kernel reads and writes 8-byte float64 "
        "at 4-byte steps, so every output is garbage (and out's last store runs 4 bytes past "
        "the end), at every size.",
)

CASES["hoe30_scan_eager_sig_devfn_below"] = dict(
    exercise="08_scan",
    part="block_scan",
    kernel='''
@cuda.jit("void(float32[:], float32[:], float32[:])")
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    v = load_or_zero(x, i)
    s[t] = v
    d = 1
    while d < TPB:
        cuda.syncthreads()
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2
    cuda.syncthreads()
    if t == 0:
        block_sums[b] = s[TPB - 1]
        s[TPB - 1] = float32(0.0)
    d = TPB // 2
    while d >= 1:
        cuda.syncthreads()
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        d //= 2
    cuda.syncthreads()
    if i < x.size:
        out[i] = s[t] + v


@cuda.jit(device=True, inline=True)
def load_or_zero(x, i):
    if i < x.size:
        return x[i]
    return float32(0.0)
''',
    fail=["public", "hidden"],
    passes=[],
    reason="load_or_zero",
    why="with an explicit signature numba-cuda compiles at the decorator, before the cell "
        "reaches load_or_zero: TypingError (NameError 'load_or_zero'), the cell raises, "
        "block_scan is never bound, so the notebook has no block_scan kernel at all.",
)

CASES["hoe30_conv1d_fixed_helper_under_if_false"] = dict(
    exercise="02_conv1d",
    part="conv1d",
    extra_cells=['''
@cuda.jit(device=True)
def tap(x, j):
    # zero past the right end of the signal
    if j < x.size:
        return x[j]
    return float32(0.0)
''', '''
if False:  # version that also handles the left border: switch on once check() passes
    @cuda.jit(device=True)
    def tap(x, j):
        if 0 <= j < x.size:
            return x[j]
        return float32(0.0)
'''],
    kernel='''
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = float32(0.0)
        for j in range(w.size):
            acc += w[j] * tap(x, i + r - j)
        out[i] = acc
''',
    fail=["public", "hidden"],
    passes=[],
    reason='differs',
    why="the if False: definition never runs, so the kernel uses the first tap, which lets "
        "j = -1..-r through: numba wraps them to the end of x, so out[0..r-1] add the last "
        "inputs (public n=128 K=3 and n=9 K=7 already wrong); with K > n (hidden) j < -n reads "
        "before x.",
)

CASES["hoe30_matmul_tiled_lazy_const_changed_after"] = dict(
    exercise="03_matmul",
    part="matmul_tiled",
    kernel='''
T, PAD = TILE, 1  # tile edge, and a padding column against bank conflicts
TP = T + PAD  # padded row length (a shared array's shape must be a constant)


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((T, TP), float32)
    sB = cuda.shared.array((T, TP), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, k = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t0 in range(0, k, T):
        a_col = t0 + tx
        b_row = t0 + ty
        sA[ty, tx] = A[row, a_col] if (row < m and a_col < k) else float32(0.0)
        sB[ty, tx] = B[b_row, col] if (b_row < k and col < n) else float32(0.0)
        cuda.syncthreads()
        for kk in range(T):
            acc += sA[ty, kk] * sB[kk, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc


# smaller tiles for my timing experiment below
T, PAD = 8, 0
TP = T + PAD
''',
    fail=["public", "hidden"],
    passes=[],
    reason='out-of-bounds',
    why="a lazy @cuda.jit reads its globals when first launched (check() in the next cell), "
        "after T, PAD = 8, 0 and TP = 8: the shared tiles are 8x8 while the 16x16 block writes "
        "sA[ty, tx] up to [15, 15] (outside the tile) and each step only sums 8 of 16 products "
        "while the tile loop advances by 8: wrong C at every size, shared accesses out of range.",
)

# ---------------------------------------------------------------- off the brief

CASES["hoe30_offsets_sig_list_thread0_walks_block"] = dict(
    exercise="08_scan",
    part="add_block_offsets",
    kernel='''
@cuda.jit(["void(float32[::1], float32[::1])"])
def add_block_offsets(out, offsets):
    b = cuda.blockIdx.x
    if b == 0 or cuda.threadIdx.x != 0:
        return
    # one thread adds the offset to its whole block: fewer threads reading offsets
    add = offsets[b - 1]
    start = b * TPB
    stop = min(start + TPB, out.size)
    for i in range(start, stop):
        out[i] += add
''',
    fail=["parallel"],
    passes=["public", "hidden", "bounds"],
    reason="one thread",
    why="outputs are right at every size (a list of signatures dispatches by type and C-contiguous "
        "float32 arrays match exactly), but thread 0 of each block stores up to 128 outputs where "
        "the brief is one thread per output.",
)

CASES["hoe30_naive_two_cols_per_thread_inline"] = dict(
    exercise="03_matmul",
    part="matmul_naive",
    kernel='''
@cuda.jit(device=True, inline=True)
def dot_row_col(A, B, row, col):
    acc = float32(0.0)
    for kk in range(A.shape[1]):
        acc += A[row, kk] * B[kk, col]
    return acc


@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    m, n = C.shape
    # even columns do their column and the next one, odd columns have nothing left to do
    if row >= m or col % 2 != 0 or col >= n:
        return
    C[row, col] = dot_row_col(A, B, row, col)
    if col + 1 < n:
        C[row, col + 1] = dot_row_col(A, B, row, col + 1)
''',
    fail=["parallel"],
    passes=["public", "hidden", "bounds"],
    reason="outputs",
    why="correct C for every shape, but each even-column thread stores two outputs (its memory "
        "operations, 4k + 2, still fit the 4k + 8 budget): the brief is at most one output per thread.",
)

"""Held-out set a26: how a notebook defines its kernel (factories, closures, cuda.jit of a plain function, redefinitions, defaults, recursion, class bodies), written blind from the student notebooks and INSTRUCTOR.md."""

CASES = {
    # ------------------------------------------------------------------ correct
    "hoa26_transpose_padded_factory_closure_width": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
def make_transpose(width):
    """Tiled transpose whose shared tile has rows of `width` floats.

    width = TILE gives part 2's tile, width = TILE_PAD part 3's padded one.
    `width` is a closure variable: numba freezes it as a constant, so it can
    size a shared array.
    """

    @cuda.jit
    def kernel(a, out):
        tile = cuda.shared.array((TILE, width), float32)
        rows, cols = a.shape
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        r0 = cuda.blockIdx.y * TILE
        c0 = cuda.blockIdx.x * TILE
        for k in range(0, TILE, BLOCK_ROWS):
            r = r0 + ty + k
            c = c0 + tx
            if r < rows and c < cols:
                tile[ty + k, tx] = a[r, c]
        cuda.syncthreads()
        for k in range(0, TILE, BLOCK_ROWS):
            orow = c0 + ty + k  # a row of out is a column of a
            ocol = r0 + tx
            if orow < cols and ocol < rows:
                out[orow, ocol] = tile[tx, ty + k]

    return kernel


transpose_padded = make_transpose(TILE_PAD)  # 33-float rows: a column spans 32 banks
''',
        fail=["public", "hidden"],
        passes=[],
        reason="not defined as a function",
    ),
    "hoa26_saxpy_cuda_jit_of_plain_function": dict(
        exercise="01_elementwise",
        part="saxpy",
        extra_cells=[
            """
def saxpy_body(alpha, x, y, out):
    # plain Python first (I tested it on the CPU with a fake grid), jitted below
    i = cuda.grid(1)
    stride = cuda.gridsize(1)  # grid-stride: one pass when the grid covers n
    n = out.shape[0]
    while i < n:
        out[i] = alpha * x[i] + y[i]
        i += stride
"""
        ],
        kernel="""
saxpy = cuda.jit(saxpy_body)
""",
        full=True,
    ),
    "hoa26_blur2d_local_R_shadows_global_grid3_kwargs": dict(
        exercise="04_conv2d",
        part="blur2d",
        kernel="""
@cuda.jit
def blur2d(img, w, out):
    col, row, _layer = cuda.grid(3)  # 2-D launch: the z index is always 0
    rows, cols = img.shape
    if row >= rows or col >= cols:
        return
    K = w.shape[0]
    R = K // 2  # this filter's radius (the module's R = 2 belongs to the tiled kernel)
    acc = float32(0.0)
    for dy in range(K):
        for dx in range(K):
            acc += w[dy, dx] * pixel(img, row + dy - R, col + dx - R, rows=rows, cols=cols)
    out[row, col] = acc


@cuda.jit(device=True)
def pixel(img, y, x, rows=1, cols=1, lo=0):
    # replicated border: clamp to the nearest edge pixel
    y = min(max(y, lo), rows - 1)
    x = min(max(x, lo), cols - 1)
    return img[y, x]
""",
        full=True,
    ),
    # ------------------------------------------------------------------ bugs
    "hoa26_conv1d_device_fn_redefined_after_kernel": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel="""
@cuda.jit(device=True)
def tap(x, j):
    # zero outside the signal
    if j < 0 or j >= x.size:
        return float32(0.0)
    return x[j]


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    r = w.size // 2
    acc = float32(0.0)
    for j in range(w.size):
        acc += w[j] * tap(x, i + r - j)
    out[i] = acc


# branch-free variant I was timing; kept for the write-up
@cuda.jit(device=True)
def tap(x, j):
    return x[min(max(j, 0), x.size - 1)]
""",
        fail=["public", "hidden"],
        passes=[],
        reason="out differs",
        why="conv1d compiles lazily at its first launch, after the whole cell ran, so the "
        "global `tap` it calls is the second, clamping definition: borders replicate "
        "x[0] and x[n-1] instead of zero padding, wrong in the first and last r outputs "
        "of every case with K >= 3 (public n=1000 K=5 included); no access is out of range.",
    ),
    "hoa26_transpose_tiled_class_body_constants": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
class Transposes:
    """My transposes, grouped; the tile geometry lives with them."""

    T = TILE
    ROWS = BLOCK_ROWS

    @cuda.jit
    def tiled(a, out):
        tile = cuda.shared.array((T, T), float32)
        rows, cols = a.shape
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        r0 = cuda.blockIdx.y * T
        c0 = cuda.blockIdx.x * T
        for k in range(0, T, ROWS):
            if r0 + ty + k < rows and c0 + tx < cols:
                tile[ty + k, tx] = a[r0 + ty + k, c0 + tx]
        cuda.syncthreads()
        for k in range(0, T, ROWS):
            if c0 + ty + k < cols and r0 + tx < rows:
                out[c0 + ty + k, r0 + tx] = tile[tx, ty + k]


transpose_tiled = Transposes.tiled
''',
        fail=["public", "hidden", "bounds", "sync", "parallel", "memory"],
        passes=[],
        reason="not defined",
        why="a class body is not an enclosing scope for the functions defined in it: numba "
        "looks T and ROWS up among the module's globals, finds neither, and refuses to "
        "compile (TypingError: untyped global name), so the kernel never runs anywhere.",
    ),
    # ------------------------------------------------------------------ off the brief
    "hoa26_conv1d_factory_four_outputs_per_thread": dict(
        exercise="02_conv1d",
        part="conv1d",
        extra_cells=[
            '''
def make_conv1d(per_thread):
    """A conv1d kernel in which each thread computes `per_thread` consecutive outputs."""

    @cuda.jit
    def conv(x, w, out):
        n = out.size
        K = w.size
        r = K // 2
        first = cuda.grid(1) * per_thread
        for i in range(first, min(first + per_thread, n)):
            acc = float32(0.0)
            for j in range(K):
                k = i + r - j
                if 0 <= k < n:
                    acc += w[j] * x[k]
            out[i] = acc

    return conv
'''
        ],
        kernel="""
conv1d = make_conv1d(4)  # thread coarsening: 4 outputs per thread, 3/4 of the grid idles
""",
        why="outputs are right for every n (the grid of ceil(n/128) blocks over-covers n/4 "
        "threads), but each busy thread stores 4 outputs and makes about 8K+4 memory "
        "operations, over the brief's one output per thread and 5K+8 budget.",
        fail=["public", "hidden"],
        passes=[],
        reason="not defined as a function",
    ),
    "hoa26_transpose_padded_tuple_shape_pad_two": dict(
        exercise="09_transpose",
        part="transpose_padded",
        extra_cells=[
            """
TILE_SHAPE = (TILE, TILE + 2)  # pad by two floats so each row stays 8-byte aligned
"""
        ],
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array(TILE_SHAPE, float32)
    rows, cols = a.shape
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    bx, by = cuda.blockIdx.x, cuda.blockIdx.y
    for k in range(0, TILE, BLOCK_ROWS):
        r, c = by * TILE + ty + k, bx * TILE + tx
        if r < rows and c < cols:
            tile[ty + k, tx] = a[r, c]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        r, c = bx * TILE + ty + k, by * TILE + tx
        if r < cols and c < rows:
            out[r, c] = tile[tx, ty + k]
""",
        fail=["conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
        reason="bank conflict",
        why="with 34-word rows element [r, c] sits in bank (2r + c) % 32, so the column read "
        "tile[tx, ty + k] puts lanes t and t + 16 in the same bank on different words: "
        "a 2-way conflict on every read request; the transpose itself is exact.",
    ),
}

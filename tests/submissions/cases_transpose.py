"""Submissions for exercise 09_transpose (built by build.py): the mistakes students make with a
shared-memory transpose, two attempts to collect the conflict and memory points without doing
the work, and correct kernels in unusual styles that must earn full marks.

Every kernel runs with the exercise's launch: blocks of (TILE, BLOCK_ROWS) = (32, 8) threads,
one block per 32 x 32 tile of ``a``.
"""

from __future__ import annotations

# The model answer's load half: a warp (fixed ty) copies one row segment of a into the tile.
_LOAD = """
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            tile[ty + k, tx] = a[row, col]
"""

# ... and its store half: the block's coordinates swapped, a warp writes a row segment of out.
_STORE = """
    cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < cols and col < rows:
            out[row, col] = tile[tx, ty + k]
"""


def _padded(shape: str) -> str:
    head = f"\n@cuda.jit\ndef transpose_padded(a, out):\n    tile = cuda.shared.array({shape}, float32)"
    return head + _LOAD + _STORE


CASES = {
    # -- mistakes ---------------------------------------------------------------------------
    "transpose_padded_without_padding": dict(
        exercise="09_transpose",
        part="transpose_padded",
        fail=["conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
        reason="32-way",
        kernel=_padded("(TILE, TILE)"),  # the tiled kernel handed in again
    ),
    "transpose_padded_shape_not_constant": dict(
        exercise="09_transpose",
        part="transpose_padded",
        fail=["public", "hidden"],
        passes=[],
        reason="does not compile for a GPU",
        kernel=_padded("(TILE, TILE + 1)"),  # runs on the simulator; the compiler rejects it
    ),
    "transpose_tiled_no_sync": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        fail=["public", "sync"],
        passes=[],
        reason="uninitialised",
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
"""
        + _LOAD
        + """
    # missing cuda.syncthreads(): the column read below was written by other warps
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < cols and col < rows:
            out[row, col] = tile[tx, ty + k]
""",
    ),
    "transpose_tiled_strided_stores": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="stores to out are not coalesced",
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
"""
        + _LOAD
        + """
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        # the block indices are not swapped: lane tx picks out's row, so a warp writes a column
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            out[col, row] = tile[ty + k, tx]
""",
    ),
    "transpose_tiled_no_bounds_guard": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        fail=["public", "hidden", "bounds"],
        passes=[],
        reason="outside shape",
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    for k in range(0, TILE, BLOCK_ROWS):  # right for multiples of 32 only
        tile[ty + k, tx] = a[cuda.blockIdx.y * TILE + ty + k, cuda.blockIdx.x * TILE + tx]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        out[cuda.blockIdx.x * TILE + ty + k, cuda.blockIdx.y * TILE + tx] = tile[tx, ty + k]
""",
    ),
    "transpose_tiled_block_not_transposed": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        tile[ty + k, tx] = a[row, col] if row < rows and col < cols else float32(0.0)
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        # transposed inside the tile, but the tile lands at the block's own place: out[i, j]
        row = cuda.blockIdx.y * TILE + ty + k
        col = cuda.blockIdx.x * TILE + tx
        if row < out.shape[0] and col < out.shape[1]:
            out[row, col] = tile[tx, ty + k]
""",
    ),
    # -- attempts to earn the points without the work -----------------------------------------
    "transpose_padded_no_tile_at_all": dict(
        exercise="09_transpose",
        part="transpose_padded",
        fail=["memory", "conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="no shared memory is used",
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    # no shared memory, so no bank conflicts: the naive copy, one element per tile slot
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            out[col, row] = a[row, col]
""",
    ),
    "transpose_padded_one_thread_per_tile": dict(
        exercise="09_transpose",
        part="transpose_padded",
        # One lane per warp moves every element: each access is its own sector, not coalesced.
        fail=["parallel", "memory", "conflicts"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="one thread stored",
        kernel="""
PAD = TILE + 1


@cuda.jit
def transpose_padded(a, out):
    # one lane per warp access can never conflict or straddle sectors: thread 0 does it all
    tile = cuda.shared.array((TILE, PAD), float32)
    rows, cols = a.shape
    r0 = cuda.blockIdx.y * TILE
    c0 = cuda.blockIdx.x * TILE
    if cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0:
        for i in range(min(TILE, rows - r0)):
            for j in range(min(TILE, cols - c0)):
                tile[i, j] = a[r0 + i, c0 + j]
        for j in range(min(TILE, cols - c0)):
            for i in range(min(TILE, rows - r0)):
                out[c0 + j, r0 + i] = tile[i, j]
""",
    ),
    # -- correct kernels in unusual styles -----------------------------------------------------
    "transpose_padded_xor_swizzle": dict(
        exercise="09_transpose",
        part="transpose_padded",
        full=True,
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    # No padding column: element [r, c] is kept at column c ^ r. Along a tile row the
    # columns are a permutation; down a logical column, (32 * r + (c ^ r)) % 32 = c ^ r
    # differs for every r: 32 banks either way.
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        r = ty + k
        if cuda.blockIdx.y * TILE + r < rows and col < cols:
            tile[r, tx ^ r] = a[cuda.blockIdx.y * TILE + r, col]
    cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        c = ty + k
        if cuda.blockIdx.x * TILE + c < cols and col < rows:
            out[cuda.blockIdx.x * TILE + c, col] = tile[tx, c ^ tx]
""",
    ),
    "transpose_padded_flat_tile": dict(
        exercise="09_transpose",
        part="transpose_padded",
        full=True,
        kernel="""
STRIDE = TILE + 1  # words per tile row: one more than a warp, so a column spans all banks
WORDS = TILE * STRIDE


@cuda.jit(device=True)
def slot(r, c):
    return r * STRIDE + c


@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array(WORDS, float32)  # a flat (TILE, TILE + 1) tile
    x0 = cuda.blockIdx.x * TILE
    y0 = cuda.blockIdx.y * TILE
    t = cuda.threadIdx.y * TILE + cuda.threadIdx.x  # 0..255: lane t % 32 of warp t // 32
    lane = t % TILE
    r = t // TILE
    while r < TILE:
        if y0 + r < a.shape[0] and x0 + lane < a.shape[1]:
            tile[slot(r, lane)] = a[y0 + r, x0 + lane]
        r += BLOCK_ROWS
    cuda.syncthreads()
    r = t // TILE
    while r < TILE:
        if x0 + r < out.shape[0] and y0 + lane < out.shape[1]:
            out[x0 + r, y0 + lane] = tile[slot(lane, r)]
        r += BLOCK_ROWS
""",
    ),
    "transpose_tiled_block_dim_loops": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        full=True,
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    # Loops stride by blockDim.y, so the same kernel runs with (32, 8) or (32, 32) blocks.
    tile = cuda.shared.array((TILE, TILE), float32)
    bx, by = cuda.blockIdx.x, cuda.blockIdx.y
    tx = cuda.threadIdx.x
    rows, cols = a.shape
    for r in range(cuda.threadIdx.y, TILE, cuda.blockDim.y):
        i, j = by * TILE + r, bx * TILE + tx
        tile[r, tx] = a[i, j] if i < rows and j < cols else float32(0.0)
    cuda.syncthreads()
    for r in range(cuda.threadIdx.y, TILE, cuda.blockDim.y):
        i, j = bx * TILE + r, by * TILE + tx
        if i < cols and j < rows:
            out[i, j] = tile[tx, r]
""",
    ),
    # -- one thread (or one warp) stages the tile for the block: its stores stay spread ---------
    "transpose_tiled_thread_zero_loads_the_tile": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        # Thread 0 reads all 1024 elements of the tile alone (each read its own request);
        # every thread then stores its four: the stores are spread, the loads are serial.
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="one thread made",
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    if tx == 0 and ty == 0:
        for r in range(TILE):
            for c in range(TILE):
                row = cuda.blockIdx.y * TILE + r
                col = cuda.blockIdx.x * TILE + c
                if row < rows and col < cols:
                    tile[r, c] = a[row, col]
"""
        + _STORE,
    ),
    "transpose_padded_first_warp_loads_the_tile": dict(
        exercise="09_transpose",
        part="transpose_padded",
        # Warp 0 reads the tile's 32 rows, coalesced, while the other 7 warps wait at the
        # barrier: 4 times the loads of a thread that shares the work.
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync", "memory", "conflicts"],
        reason="one thread made",
        kernel="""
TILE_PAD = TILE + 1


@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    if ty == 0:
        for r in range(TILE):
            row = cuda.blockIdx.y * TILE + r
            col = cuda.blockIdx.x * TILE + tx
            if row < rows and col < cols:
                tile[r, tx] = a[row, col]
"""
        + _STORE,
    ),
    "transpose_padded_every_thread_walks_the_tile": dict(
        exercise="09_transpose",
        part="transpose_padded",
        # Each thread steps through all 32 rows and takes those of its row class: three times
        # the model's steps, alike in every thread (slow, not one thread doing many's work).
        full=True,
        kernel="""
TILE_PAD = TILE + 1


@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    bx = cuda.blockIdx.x * TILE
    by = cuda.blockIdx.y * TILE
    for r in range(TILE):
        if r % BLOCK_ROWS == ty:
            if by + r < rows and bx + tx < cols:
                tile[r, tx] = a[by + r, bx + tx]
    cuda.syncthreads()
    for r in range(TILE):
        if r % BLOCK_ROWS == ty:
            if bx + r < cols and by + tx < rows:
                out[bx + r, by + tx] = tile[tx, r]
""",
    ),
}

"""Blind set a41: stencils and data movement in styles the notebooks do not show"""

# Notes on INSTRUCTOR.md points that were unclear, and the cases left out because of them:
#
# * blur2d_tiled "memory": the guide counts the loads "of every array argument", the notebook
#   says the checker "counts global loads of img".  A tiled blur that reads w[dy, dx] from global
#   memory for each of its 25 taps (25 loads of w per output, against an allowance of about
#   400 / 256 + 1 = 2.6) fails the guide's rule and passes the notebook's; that case is left out.
#   The full-marks tiled blur below stages w in shared memory (25 loads per block) and loads
#   only the in-image pixels of its halo'd tile, the fewest loads any correct tiled blur can
#   make, so it passes under either reading.
# * "most builtins" are rejected by the static check, but the rule is "what numba-cuda compiles":
#   `reversed(range(K))` is not compiled by numba-cuda 0.30 (Untyped global name 'reversed'),
#   so that case fails the compile gate under either reading (scores 0 for the part).
# * An index computed in int16 cannot be made to wrap on the hidden sizes: the guide only
#   promises hidden sizes larger than the public ones, never past 32767.  The uint8 case below
#   wraps at 256, which the public n = 1000 already exceeds, so it fails public too.
# * conv1d's public filters are not described (the blur's are said to be asymmetric): the
#   flipped-filter case is written for blur2d, whose checks use asymmetric filters.

CASES = {}

# --------------------------------------------------------------------------- 02_conv1d

CASES["hoq41_conv1d_countdown_while_pad_helper"] = dict(
    exercise="02_conv1d",
    part="conv1d",
    kernel='''
@cuda.jit(device=True)
def sample(x, j):
    """x[j] inside the signal, 0 outside it (zero padding)."""
    v = float32(0.0)
    if j >= 0 and j < x.size:
        v = x[j]
    return v


@cuda.jit
def conv1d(x, w, out):
    n = x.size
    last = w.size - 1
    r = w.size // 2
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        acc = float32(0.0)
        j = last
        while j >= 0:  # the taps from the last to the first
            acc += w[j] * sample(x, i + r - j)
            j -= 1
        out[i] = acc
''',
    full=True,
)

CASES["hoq41_conv1d_reversed_range_no_compile"] = dict(
    exercise="02_conv1d",
    part="conv1d",
    kernel='''
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    r = w.size // 2
    if i < n:
        acc = float32(0.0)
        for j in reversed(range(w.size)):
            k = i + r - j
            if k >= 0 and k < n:
                acc += w[j] * x[k]
        out[i] = acc
''',
    fail=["public", "hidden", "bounds", "parallel"],
    passes=[],
    reason="reversed",
    why="numba-cuda cannot type the builtin reversed (Untyped global name 'reversed') so the "
    "kernel never compiles for sm_80 and scores 0 for the part, although the Python "
    "arithmetic it describes is a correct convolution.",
)

CASES["hoq41_conv1d_filter_cached_nine_taps"] = dict(
    exercise="02_conv1d",
    part="conv1d",
    kernel='''
KMAX = 9  # taps cached per thread; a local array needs a constant size


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    r = w.size // 2
    taps = min(w.size, KMAX)  # never overflow the local array
    wl = cuda.local.array(KMAX, float32)
    for j in range(taps):
        wl[j] = w[j]
    if i < n:
        acc = float32(0.0)
        for j in range(taps):
            k = i + r - j
            if k >= 0 and k < n:
                acc += wl[j] * x[k]
        out[i] = acc
''',
    fail=["hidden"],
    passes=["public", "bounds", "parallel"],
    reason="hidden cases",
    why="taps past the ninth are dropped: right for the public K = 5, 3, 7, wrong for every "
    "hidden case with K >= 11 (the draws always hold K >= 15), while r = K // 2 still shifts "
    "the window; no access leaves an array (local index < min(K, 9), x guarded) and a thread "
    "makes at most 4 min(K, 9) + 1 <= 5K + 8 memory operations for one output.",
)

CASES["hoq41_conv1d_uint8_index_wraps"] = dict(
    exercise="02_conv1d",
    part="conv1d",
    extra_cells=['''
from numba import uint8
'''],
    kernel='''
@cuda.jit
def conv1d(x, w, out):
    i = uint8(cuda.grid(1))  # a byte for the index, to save registers
    n = x.size
    r = w.size // 2
    if i < n:
        acc = float32(0.0)
        for j in range(w.size):
            k = i + r - j
            if k >= 0 and k < n:
                acc += w[j] * x[k]
        out[i] = acc
''',
    fail=["public", "hidden", "bounds", "parallel"],
    passes=[],
    reason="public",
    why="the thread index is truncated to 8 bits, so thread 256 + t recomputes output t "
    "(the same value, no race) and outputs 256..n-1 are never written and stay 0: the public "
    "n = 1000 case and every hidden case with n > 256 fail; quality points are withheld.",
)

# --------------------------------------------------------------------------- 04_conv2d

CASES["hoq41_blur2d_grid_stride_while_taps"] = dict(
    exercise="04_conv2d",
    part="blur2d",
    kernel='''
@cuda.jit(device=True)
def clamp_index(v, n):
    """Replicated border: the nearest index inside 0..n-1."""
    return min(max(v, 0), n - 1)


@cuda.jit
def blur2d(img, w, out):
    h, wd = img.shape
    k = w.shape[0]
    r = k // 2
    col0, row0 = cuda.grid(2)
    step_x, step_y = cuda.gridsize(2)
    row = row0
    while row < h:
        col = col0
        while col < wd:
            acc = float32(0.0)
            dy = 0
            while dy < k:
                yy = clamp_index(row + dy - r, h)
                dx = 0
                while dx < k:
                    acc += w[dy, dx] * img[yy, clamp_index(col + dx - r, wd)]
                    dx += 1
                dy += 1
            out[row, col] = acc
            col += step_x
        row += step_y
''',
    full=True,
)

CASES["hoq41_blur2d_flipped_filter"] = dict(
    exercise="04_conv2d",
    part="blur2d",
    kernel='''
@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    k = w.shape[0]
    r = k // 2
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(k):
            yy = min(max(row + dy - r, 0), h - 1)
            for dx in range(k):
                xx = min(max(col + dx - r, 0), wd - 1)
                acc += w[k - 1 - dy, k - 1 - dx] * img[yy, xx]  # convolution: flipped
        out[row, col] = acc
''',
    fail=["public", "hidden", "bounds", "parallel"],
    passes=[],
    reason="public",
    why="it computes a true convolution (w flipped in both axes) where the reference is the "
    "cross-correlation sum w[dy, dx] * img[row + dy - r, col + dx - r]; the checks use "
    "asymmetric filters, so every public case with K > 1 is wrong and quality is withheld.",
)

CASES["hoq41_blur2d_tiled_const_offsets_two_rows"] = dict(
    exercise="04_conv2d",
    part="blur2d_tiled",
    kernel='''
KS = 2 * R + 1  # 5 taps per side
NTAPS = KS * KS  # 25 weights
HALO_CELLS = HALO * HALO  # 400 cells in the halo'd tile
THREADS = TILE * TILE  # 256 threads per block
HALF = TILE // 2  # the upper half of the block computes two rows each
OFFS = np.arange(-R, R + 1)  # tap offsets, read from constant memory


@cuda.jit(device=True)
def clampi(v, n):
    return min(max(v, 0), n - 1)


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    wsh = cuda.shared.array(NTAPS, float32)
    offs = cuda.const.array_like(OFFS)
    h, wd = img.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    t = ty * TILE + tx
    top = cuda.blockIdx.y * TILE - R
    left = cuda.blockIdx.x * TILE - R
    if t < NTAPS:  # the weights, once per block
        wsh[t] = w[t // KS, t % KS]
    for s in range(t, HALO_CELLS, THREADS):  # only the tile's pixels inside the image
        ly = s // HALO
        lx = s - ly * HALO
        gy = top + ly
        gx = left + lx
        if gy >= 0 and gy < h and gx >= 0 and gx < wd:
            tile[ly, lx] = img[gy, gx]
    cuda.syncthreads()
    col = cuda.blockIdx.x * TILE + tx
    if ty < HALF and col < wd:
        for part in range(2):
            row = cuda.blockIdx.y * TILE + ty + part * HALF
            if row < h:
                acc = float32(0.0)
                for a in range(KS):
                    ly = clampi(row + offs[a], h) - top  # clamp in the image, then index the tile
                    for b in range(KS):
                        lx = clampi(col + offs[b], wd) - left
                        acc += wsh[a * KS + b] * tile[ly, lx]
                out[row, col] = acc
''',
    full=True,
)

CASES["hoq41_blur2d_tiled_zero_halo"] = dict(
    exercise="04_conv2d",
    part="blur2d_tiled",
    kernel='''
KW = 2 * R + 1  # filter width


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    wsh = cuda.shared.array((KW, KW), float32)
    h, wd = img.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    if ty < KW and tx < KW:
        wsh[ty, tx] = w[ty, tx]
    top = cuda.blockIdx.y * TILE - R
    left = cuda.blockIdx.x * TILE - R
    for ly in range(ty, HALO, TILE):
        for lx in range(tx, HALO, TILE):
            gy = top + ly
            gx = left + lx
            v = float32(0.0)  # outside the image: zero, as np.convolve pads
            if gy >= 0 and gy < h and gx >= 0 and gx < wd:
                v = img[gy, gx]
            tile[ly, lx] = v
    cuda.syncthreads()
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(KW):
            for dx in range(KW):
                acc += wsh[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
''',
    fail=["public", "hidden", "bounds", "sync", "memory"],
    passes=[],
    reason="public",
    why="the halo outside the image is filled with zeros where the reference replicates the "
    "edge pixel (np.pad mode='edge'), so the two outer rows and columns of every image come "
    "out darker: both public images (20x33, 16x16) fail and quality points are withheld.",
)

# ------------------------------------------------------------------------ 09_transpose

CASES["hoq41_transpose_padded_pairs_derived_consts"] = dict(
    exercise="09_transpose",
    part="transpose_padded",
    kernel='''
PAD = 1
TILE_W = TILE + PAD  # 33 words per tile row: a column spreads over all 32 banks
PAIR = 2 * BLOCK_ROWS  # rows of the tile moved by one pass: two per thread


@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_W), float32)
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    r0 = cuda.blockIdx.y * TILE
    c0 = cuda.blockIdx.x * TILE
    for k in range(0, TILE, PAIR):
        y1 = ty + k
        y2 = y1 + BLOCK_ROWS
        if c0 + tx < cols:
            if r0 + y1 < rows:
                tile[y1, tx] = a[r0 + y1, c0 + tx]
            if r0 + y2 < rows:
                tile[y2, tx] = a[r0 + y2, c0 + tx]
    cuda.syncthreads()
    for k in range(0, TILE, PAIR):
        y1 = ty + k
        y2 = y1 + BLOCK_ROWS
        if r0 + tx < rows:
            if c0 + y1 < cols:
                out[c0 + y1, r0 + tx] = tile[tx, y1]
            if c0 + y2 < cols:
                out[c0 + y2, r0 + tx] = tile[tx, y2]
''',
    full=True,
)

CASES["hoq41_transpose_padded_pad_on_rows"] = dict(
    exercise="09_transpose",
    part="transpose_padded",
    kernel='''
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE_PAD, TILE), float32)  # the padding went on the wrong axis
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    r0 = cuda.blockIdx.y * TILE
    c0 = cuda.blockIdx.x * TILE
    for k in range(0, TILE, BLOCK_ROWS):
        if r0 + ty + k < rows and c0 + tx < cols:
            tile[ty + k, tx] = a[r0 + ty + k, c0 + tx]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        if c0 + ty + k < cols and r0 + tx < rows:
            out[c0 + ty + k, r0 + tx] = tile[tx, ty + k]
''',
    fail=["conflicts"],
    passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
    reason="conflict",
    why="a (33, 32) tile keeps rows 32 words long: element [r, c] is word 32 r + c in bank c, "
    "so the read tile[tx, ty + k] puts all lanes of a warp in bank ty + k on distinct words, a "
    "32-way conflict (31 extra wavefronts per full-warp request, 5-way on the 5x3 case); the "
    "fill tile[ty + k, tx] is conflict-free and the global accesses are the model's (4 sectors "
    "per full warp, at most one more when a row starts mid-sector); lane model: 2660 extra "
    "wavefronts on 40x70, 992 on 32x32.",
)

CASES["hoq41_transpose_tiled_txty_both_sides"] = dict(
    exercise="09_transpose",
    part="transpose_tiled",
    kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    r0 = cuda.blockIdx.y * TILE
    c0 = cuda.blockIdx.x * TILE
    for k in range(0, TILE, BLOCK_ROWS):
        if r0 + ty + k < rows and c0 + tx < cols:
            tile[tx, ty + k] = a[r0 + ty + k, c0 + tx]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        if r0 + ty + k < rows and c0 + tx < cols:
            out[c0 + tx, r0 + ty + k] = tile[tx, ty + k]
''',
    fail=["memory"],
    passes=["public", "hidden", "bounds", "sync", "parallel"],
    reason="sector",
    why="every thread reads back the tile element it wrote itself, so the store to out is the "
    "naive one: a warp's 32 lanes write out[c0 + tx, row], one element of 32 different rows "
    "of out, 4 * rows bytes apart: 32 sectors for 128 bytes that fit in 4 (40x70 and 32x32 "
    "cases), far more than one extra sector; values are right and no thread reads another's "
    "element, so there is no race.",
)

CASES["hoq41_transpose_tiled_store_reuses_load_guard"] = dict(
    exercise="09_transpose",
    part="transpose_tiled",
    kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    r0 = cuda.blockIdx.y * TILE
    c0 = cuda.blockIdx.x * TILE
    for k in range(0, TILE, BLOCK_ROWS):
        if r0 + ty + k < rows and c0 + tx < cols:
            tile[ty + k, tx] = a[r0 + ty + k, c0 + tx]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        if r0 + ty + k < rows and c0 + tx < cols:  # the load's guard, reused for the store
            out[c0 + ty + k, r0 + tx] = tile[tx, ty + k]
''',
    fail=["public", "hidden", "bounds", "sync", "parallel", "memory"],
    passes=[],
    reason="out-of-bounds access",
    why="the store out[c0 + ty + k, r0 + tx] is guarded with the load's test (row of a < rows, "
    "column of a < cols) instead of c0 + ty + k < cols and r0 + tx < rows: right only for a "
    "square matrix that is a multiple of the tile (the public 32x32); on 40x70 block (0, 1) "
    "writes out[s, 32 + tx] with 32 + tx >= 40 (outside out's 40 columns) from tile rows never "
    "loaded, and on 5x3 it writes out rows 3, 4 of a 3-row out: public fails.",
)

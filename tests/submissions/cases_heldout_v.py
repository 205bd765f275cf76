"""Submissions for exercises 02_conv1d and 04_conv2d (correct, wrong and off-brief kernels),
each written from the student notebook and INSTRUCTOR.md alone, as a student would."""

CASES = {
    # ------------------------------------------------------------------ 02_conv1d: correct
    "hov_conv1d_device_tap_while": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit(device=True)
def tap(x, k):
    # zero padding: an index outside the signal contributes nothing
    if k < 0 or k >= x.size:
        return float32(0.0)
    return x[k]


@cuda.jit
def conv1d(x, w, out):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= out.size:
        return
    r = w.size // 2
    acc = float32(0.0)
    j = 0
    while j < w.size:
        acc += w[j] * tap(x, i + r - j)
        j += 1
    out[i] = acc
''',
        full=True,
    ),
    "hov_conv1d_loop_over_inputs": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    n, K = x.shape[0], w.shape[0]
    i = cuda.grid(1)
    if i < n:
        r = (K - 1) >> 1
        # walk the inputs that exist instead of the taps:
        # input k meets tap j = i + r - k, and only 0 <= k < n is real signal
        k_lo = max(0, i - r)
        k_hi = min(n, i + r + 1)
        acc = float32(0)
        for k in range(k_lo, k_hi):
            acc += w[i + r - k] * x[k]
        out[i] = acc
''',
        full=True,
    ),
    "hov_conv1d_gridstride_fma": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    n = x.size
    half = w.size // 2
    # grid-stride loop: with ceil(n / TPB) blocks every thread runs it at most once
    for i in range(start, n, stride):
        acc = float32(0)
        for j in range(w.size):
            k = i + half - j
            if k >= 0 and k < n:
                acc = cuda.fma(w[j], x[k], acc)
        out[i] = acc
''',
        full=True,
    ),
    # ------------------------------------------------------------------ 02_conv1d: off the brief
    "hov_conv1d_two_outputs_per_thread": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    # even threads compute two neighbouring outputs and share the x loads
    # (the window of out[i+1] is the window of out[i] moved by one); odd threads rest
    i = cuda.grid(1)
    n = x.size
    K = w.size
    r = K // 2
    if i % 2 == 1 or i >= n:
        return
    acc0 = float32(0)
    acc1 = float32(0)
    for k in range(i - r, i + r + 2):
        if k >= 0 and k < n:
            v = x[k]
            j0 = i + r - k  # tap of out[i]; out[i + 1] uses tap j0 + 1
            if j0 >= 0:
                acc0 += w[j0] * v
            if j0 + 1 < K:
                acc1 += w[j0 + 1] * v
    out[i] = acc0
    if i + 1 < n:
        out[i + 1] = acc1
''',
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason="stored 2 outputs",
        why="Every output is right, but thread i (even) stores out[i] and out[i+1] while odd "
            "threads store nothing: two outputs per thread, against the one-output rule of "
            "the parallel criterion (its memory operations, 3K+3, stay within 5K+8).",
    ),
    # ------------------------------------------------------------------ 02_conv1d: bugs
    "hov_conv1d_syncwarp_tile": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
SMAX = 16  # largest radius the shared tile can hold
TILE_LEN = TPB + 2 * SMAX  # a shared array's shape must be a constant


@cuda.jit
def conv1d(x, w, out):
    tile = cuda.shared.array(TILE_LEN, float32)
    n = x.size
    K = w.size
    r = K // 2
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * TPB - r
    # the block's TPB inputs plus r on each side, zero outside the signal
    s = t
    while s < TPB + 2 * r:
        g = base + s
        if g >= 0 and g < n:
            tile[s] = x[g]
        else:
            tile[s] = float32(0)
        s += TPB
    cuda.syncwarp()  # wait for the loads
    i = cuda.blockIdx.x * TPB + t
    if i < n:
        acc = float32(0)
        for j in range(K):
            acc += w[j] * tile[t + 2 * r - j]
        out[i] = acc
''',
        fail=["public", "hidden"],
        passes=[],
        reason="race",
        why="syncwarp only orders the lanes of one warp, but lane 31 of each warp reads "
            "tile[32..31+2r] written by the next warp (and lanes 0..2r-1 write the right halo "
            "tile[TPB..] read by warp 3): a cross-warp read-after-write race for every K >= 3, "
            "which racecheck reports and which can read stale shared memory on a GPU.",
    ),
    "hov_conv1d_tile_radius4": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
RMAX = 4  # the demo's box filter has 9 taps, so r <= 4
TILE_LEN = TPB + 2 * RMAX


@cuda.jit
def conv1d(x, w, out):
    tile = cuda.shared.array(TILE_LEN, float32)
    n = x.size
    r = w.size // 2
    t = cuda.threadIdx.x
    first = cuda.blockIdx.x * TPB
    # tile[s] holds x[first - r + s], zero outside the signal
    for s in range(t, TPB + 2 * r, TPB):
        g = first - r + s
        v = float32(0)
        if 0 <= g < n:
            v = x[g]
        tile[s] = v
    cuda.syncthreads()
    i = first + t
    if i < n:
        acc = float32(0)
        for j in range(w.size):
            acc += w[j] * tile[t + 2 * r - j]
        out[i] = acc
''',
        fail=["hidden", "bounds"],
        passes=[],
        reason="out-of-bounds",
        why="The shared tile has TPB + 8 floats, enough only for r <= 4 (K <= 9); the hidden "
            "draws always hold a K >= 15 case, where the load loop writes and the taps read "
            "tile[TPB + 8 .. TPB + 2r - 1], past the shared array (memcheck: invalid __shared__ "
            "write); if a public case has K >= 11 it fails there too.",
    ),
    "hov_conv1d_elif_border_clamp": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    K = w.size
    r = K // 2
    if i >= n:
        return
    # clamp the tap range instead of testing every tap:
    # near the left end the last taps fall before x[0], near the right end
    # the first taps fall after x[n - 1]
    j_lo = 0
    j_hi = K - 1
    if i < r:
        j_hi = i + r
    elif i > n - 1 - r:
        j_lo = i + r - (n - 1)
    acc = float32(0)
    for j in range(j_lo, j_hi + 1):
        acc += w[j] * x[i + r - j]
    out[i] = acc
''',
        fail=["hidden", "bounds"],
        passes=[],
        reason="out-of-bounds",
        why="When the filter is longer than the signal (n <= K - 2, e.g. n = 5, K = 17), an "
            "output can be near both ends at once, the elif skips the right clamp and taps "
            "j < i + r - (n - 1) read x[n .. i + r] past the end (memcheck: invalid global "
            "read); n >= K - 1 never shows it, so only the K > n hidden case fails (unless it "
            "draws n = K - 1 exactly).",
    ),
    # ------------------------------------------------------------------ 04_conv2d blur2d: correct
    "hov_blur2d_clamp_device_fn": dict(
        exercise="04_conv2d",
        part="blur2d",
        kernel='''
@cuda.jit(device=True)
def clamp(v, lo, hi):
    return max(lo, min(v, hi))


@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    rows, cols = img.shape
    if row >= rows or col >= cols:
        return
    K = w.shape[0]
    r = K // 2
    acc = float32(0)
    for dy in range(K):
        yy = clamp(row + dy - r, 0, rows - 1)  # replicate the nearest edge pixel
        for dx in range(K):
            acc += w[dy, dx] * img[yy, clamp(col + dx - r, 0, cols - 1)]
    out[row, col] = acc
''',
        full=True,
    ),
    "hov_blur2d_while_offsets_fma": dict(
        exercise="04_conv2d",
        part="blur2d",
        kernel='''
@cuda.jit
def blur2d(img, w, out):
    # blocks are TILE x TILE, so TILE is blockDim here
    x0 = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y0 = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    h = img.shape[0]
    wd = img.shape[1]
    if y0 < h and x0 < wd:
        r = w.shape[0] // 2
        acc = float32(0.0)
        oy = -r
        while oy <= r:
            y = y0 + oy
            if y < 0:
                y = 0
            elif y > h - 1:
                y = h - 1
            ox = -r
            while ox <= r:
                x = x0 + ox
                if x < 0:
                    x = 0
                if x >= wd:
                    x = wd - 1
                acc = cuda.fma(w[oy + r, ox + r], img[y, x], acc)
                ox += 1
            oy += 1
        out[y0, x0] = acc
''',
        full=True,
    ),
    # ------------------------------------------------------------------ blur2d: off the brief
    "hov_blur2d_column_pairs": dict(
        exercise="04_conv2d",
        part="blur2d",
        kernel='''
@cuda.jit
def blur2d(img, w, out):
    # threads with an even column do that pixel and its right neighbour,
    # reading each weight once for both
    col, row = cuda.grid(2)
    h, wd = img.shape
    if col % 2 != 0 or row >= h or col >= wd:
        return
    K = w.shape[0]
    r = K // 2
    c1 = min(col + 1, wd - 1)
    a0 = float32(0)
    a1 = float32(0)
    for dy in range(K):
        yy = min(max(row + dy - r, 0), h - 1)
        for dx in range(K):
            wv = w[dy, dx]
            a0 += wv * img[yy, min(max(col + dx - r, 0), wd - 1)]
            a1 += wv * img[yy, min(max(c1 + dx - r, 0), wd - 1)]
    out[row, col] = a0
    if col + 1 < wd:
        out[row, col + 1] = a1
''',
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason="stored 2 outputs",
        why="Correct pixels, but each even-column thread stores two outputs (3K^2 + 2 memory "
            "operations, within 4K^2 + 8): it breaks the at-most-one-output-per-thread rule.",
    ),
    # ------------------------------------------------------------------ blur2d: bug
    "hov_blur2d_local_weight_cache": dict(
        exercise="04_conv2d",
        part="blur2d",
        kernel='''
@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    K = w.shape[0]
    r = K // 2
    # keep the filter in registers: 7 x 7 is as big as blurs get
    wl = cuda.local.array(49, float32)
    for t in range(K * K):
        wl[t] = w[t // K, t % K]
    if row < h and col < wd:
        acc = float32(0)
        for dy in range(K):
            yy = min(max(row + dy - r, 0), h - 1)
            for dx in range(K):
                xx = min(max(col + dx - r, 0), wd - 1)
                acc += wl[dy * K + dx] * img[yy, xx]
        out[row, col] = acc
''',
        fail=["hidden", "bounds"],
        passes=[],
        reason="out-of-bounds",
        why="The local array holds 49 weights; every hidden draw has a K = 9 case, where "
            "wl[49..80] is written and read past the end of the thread's local array "
            "(memcheck: invalid __local__ write), in every thread.",
    ),
    # ------------------------------------------------------------------ blur2d_tiled: correct
    "hov_blur2d_tiled_flat_cooperative_load": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    rows, cols = img.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    top = cuda.blockIdx.y * TILE - R
    left = cuda.blockIdx.x * TILE - R
    # flatten the halo'd patch and let the 256 threads walk it together
    t = ty * TILE + tx
    while t < HALO * HALO:
        sy = t // HALO
        sx = t - sy * HALO
        gy = min(max(top + sy, 0), rows - 1)
        gx = min(max(left + sx, 0), cols - 1)
        tile[sy, sx] = img[gy, gx]
        t += TILE * TILE
    cuda.syncthreads()
    row = top + R + ty
    col = left + R + tx
    if row >= rows or col >= cols:
        return  # after the barrier: nobody waits for us any more
    acc = float32(0)
    for dy in range(2 * R + 1):
        for dx in range(2 * R + 1):
            acc += w[dy, dx] * tile[ty + dy, tx + dx]
    out[row, col] = acc
''',
        full=True,
    ),
    "hov_blur2d_tiled_shared_weights_steps": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
KW = 2 * R + 1  # filter width
STEPS = (HALO + TILE - 1) // TILE  # passes of a TILE-wide block over HALO


@cuda.jit
def blur2d_tiled(img, w, out):
    patch = cuda.shared.array((HALO, HALO), float32)
    wsh = cuda.shared.array((KW, KW), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    by, bx = cuda.blockIdx.y, cuda.blockIdx.x
    h, wd = img.shape
    for a in range(STEPS):
        sy = ty + a * TILE
        if sy < HALO:
            gy = by * TILE + sy - R
            if gy < 0:
                gy = 0
            if gy > h - 1:
                gy = h - 1
            for b in range(STEPS):
                sx = tx + b * TILE
                if sx < HALO:
                    gx = max(0, min(bx * TILE + sx - R, wd - 1))
                    patch[sy, sx] = img[gy, gx]
    if ty < KW and tx < KW:
        wsh[ty, tx] = w[ty, tx]
    cuda.syncthreads()  # one barrier covers both shared arrays
    row, col = by * TILE + ty, bx * TILE + tx
    if row < h and col < wd:
        s = float32(0)
        for dy in range(KW):
            for dx in range(KW):
                s += wsh[dy, dx] * patch[ty + dy, tx + dx]
        out[row, col] = s
''',
        full=True,
    ),
    # ------------------------------------------------------------------ blur2d_tiled: off the brief
    "hov_blur2d_tiled_core_only_tile": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    # only the block's own pixels go to shared memory; the few neighbours
    # outside the tile are read straight from global memory
    core = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    h, wd = img.shape
    core[ty, tx] = img[min(row, h - 1), min(col, wd - 1)]
    cuda.syncthreads()
    if row < h and col < wd:
        acc = float32(0)
        for dy in range(2 * R + 1):
            sy = ty + dy - R
            gy = min(max(row + dy - R, 0), h - 1)
            for dx in range(2 * R + 1):
                sx = tx + dx - R
                if sy >= 0 and sy < TILE and sx >= 0 and sx < TILE:
                    v = core[sy, sx]
                else:
                    v = img[gy, min(max(col + dx - R, 0), wd - 1)]
                acc += w[dy, dx] * v
        out[row, col] = acc
''',
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="global loads",
        why="Correct and race-free, but a full block makes 256 + 924 = 1180 global loads of img "
            "(4.6 per pixel) against the 400 of its 20 x 20 halo'd tile (about 1.6 per pixel "
            "plus one): the halo is read from global memory, several times over.",
    ),
    # ------------------------------------------------------------------ blur2d_tiled: bugs
    "hov_blur2d_tiled_return_before_barrier": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    h, wd = img.shape
    top = cuda.blockIdx.y * TILE - R
    left = cuda.blockIdx.x * TILE - R
    for sy in range(ty, HALO, TILE):
        gy = min(max(top + sy, 0), h - 1)
        for sx in range(tx, HALO, TILE):
            gx = min(max(left + sx, 0), wd - 1)
            tile[sy, sx] = img[gy, gx]
    # my share of the patch is loaded; threads off the image have nothing to compute
    if row >= h or col >= wd:
        return
    cuda.syncthreads()
    acc = float32(0)
    for dy in range(2 * R + 1):
        for dx in range(2 * R + 1):
            acc += w[dy, dx] * tile[ty + dy, tx + dx]
    out[row, col] = acc
''',
        fail=["sync"],
        passes=["public", "hidden", "bounds", "memory"],
        reason="divergent barrier",
        why="In every block that overhangs the image (h or w not a multiple of 16) the threads "
            "off the image return before syncthreads, so the barrier is not reached by the whole "
            "block (undefined in CUDA); the outputs are still right because those threads "
            "finished their loads first.",
    ),
    "hov_blur2d_tiled_missing_corner": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        kernel='''
@cuda.jit(device=True)
def at(img, y, x):
    h, wd = img.shape
    return img[min(max(y, 0), h - 1), min(max(x, 0), wd - 1)]


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    top = cuda.blockIdx.y * TILE - R
    left = cuda.blockIdx.x * TILE - R
    # the patch is 20 x 20: a 16 x 16 pass, then the 4 extra rows and the 4 extra columns
    tile[ty, tx] = at(img, top + ty, left + tx)
    if ty < 2 * R:
        tile[ty + TILE, tx] = at(img, top + ty + TILE, left + tx)
    if tx < 2 * R:
        tile[ty, tx + TILE] = at(img, top + ty, left + tx + TILE)
    cuda.syncthreads()
    row = top + R + ty
    col = left + R + tx
    if row < img.shape[0] and col < img.shape[1]:
        acc = float32(0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
''',
        fail=["public", "hidden", "sync"],
        passes=[],
        reason="read before any write",
        why="The bottom-right 4 x 4 corner tile[16:20, 16:20] is never loaded, and every pixel "
            "with ty >= 12 and tx >= 12 reads it (initcheck-style: uninitialised shared memory "
            "reaches out); any image with such a pixel (at least 13 x 13 in some block) is wrong, "
            "only images whose blocks stop before row/column 12 escape.",
    ),
}

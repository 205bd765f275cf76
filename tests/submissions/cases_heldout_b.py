"""Fresh submissions for exercises 07-09 (histogram, scan, transpose), built by build.py:
compare-and-swap loops and plain reads beside atomics, correct kernels in styles the other
cases do not use (full marks), wrong kernels that must fail what a GPU with compute-sanitizer
exposes, and attempts to game one criterion's measure.
"""

from __future__ import annotations

CASES = {
    # -- histogram: compare-and-swap loops and reads beside atomics ----------------------------
    "hob_histogram_global_cas_guess_zero": dict(
        exercise="07_histogram",
        part="histogram_global",
        full=True,  # no first read: a guess of 0, then what each failed CAS saw
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size and values[i] < BINS:
        b = int32(values[i])
        expect = int32(0)
        while True:
            got = cuda.atomic.compare_and_swap(hist[b:], expect, expect + 1)
            if got == expect:
                return
            expect = got
""",
    ),
    "hob_histogram_global_cas_do_while": dict(
        exercise="07_histogram",
        part="histogram_global",
        full=True,  # the guide's do-while loop, a flag instead of a break
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i >= values.size:
        return
    v = values[i]
    if v >= BINS:
        return
    old = hist[v]
    done = False
    while not done:
        assumed = old
        old = cuda.atomic.cas(hist, v, assumed, assumed + 1)
        done = old == assumed
""",
    ),
    "hob_histogram_global_read_then_exch": dict(
        exercise="07_histogram",
        part="histogram_global",
        # A plain read and an atomic exchange: two threads that read the same count both
        # store count + 1, and one reading is lost, as on a GPU.
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.exch(hist, v, hist[v] + 1)
""",
    ),
    "hob_gaming_histogram_global_lane_zero_cas_warp": dict(
        exercise="07_histogram",
        part="histogram_global",
        # Lane 0 counts its warp's 32 values, each with a CAS loop: a retry is not work,
        # but 32 values walked by one lane are.
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync"],
        gaming="work spread",
        reason="one thread stored",
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i % 32 == 0:
        for j in range(i, min(i + 32, values.size)):
            v = values[j]
            if v < BINS:
                old = hist[v]
                while True:
                    seen = cuda.atomic.cas(hist, v, old, old + 1)
                    if seen == old:
                        break
                    old = seen
""",
    ),
    "hob_histogram_shared_cas_in_shared": dict(
        exercise="07_histogram",
        part="histogram_shared",
        full=True,  # the block's counts by a CAS loop on shared memory
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            old = s[v]
            while True:
                seen = cuda.atomic.cas(s, v, old, old + 1)
                if seen == old:
                    break
                old = seen
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        if s[b] > 0:
            cuda.atomic.add(hist, b, s[b])
""",
    ),
    "hob_histogram_shared_cas_flush": dict(
        exercise="07_histogram",
        part="histogram_shared",
        # The flush adds into hist by a CAS loop: right counts, but a CAS that fails is a
        # global atomic on the bin too (the contention this criterion counts, on a GPU too).
        fail=["atomics"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="global atomics",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    if t < BINS:
        s[t] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        if values[i] < BINS:
            cuda.atomic.add(s, values[i], 1)
    cuda.syncthreads()
    if t < BINS and s[t] != 0:
        mine = s[t]
        old = hist[t]
        while True:
            seen = cuda.atomic.cas(hist, t, old, old + mine)
            if seen == old:
                break
            old = seen
""",
    ),
    "hob_histogram_shared_zeroing_not_awaited": dict(
        exercise="07_histogram",
        part="histogram_shared",
        # No barrier between zeroing and counting: a plain store races with other warps'
        # shared atomics (racecheck's hazard), still a finding.
        fail=["sync"],
        passes=[],
        reason="no barrier in between",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    if t < BINS:
        s[t] = 0
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        if values[i] < BINS:
            cuda.atomic.add(s, values[i], 1)
    cuda.syncthreads()
    if t < BINS and s[t] > 0:
        cuda.atomic.add(hist, t, s[t])
""",
    ),
    "hob_histogram_shared_exch_flush": dict(
        exercise="07_histogram",
        part="histogram_shared",
        # The flush reads hist plainly and exchanges in the sum: another block's flush in
        # between is lost.
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    if t < BINS:
        s[t] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        if values[i] < BINS:
            cuda.atomic.add(s, values[i], 1)
    cuda.syncthreads()
    if t < BINS and s[t] > 0:
        cuda.atomic.exch(hist, t, hist[t] + s[t])
""",
    ),
    # -- scan ----------------------------------------------------------------------------------
    "hob_scan_blelloch_padded_offsets": dict(
        exercise="08_scan",
        part="block_scan",
        full=True,  # Blelloch with one padding word per 32 (GPU Gems' conflict-free offsets)
        kernel="""
PADDED = TPB + TPB // 32


@cuda.jit(device=True)
def at(k):
    return k + k // 32


@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(PADDED, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    s[at(t)] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[at(k)] += s[at(k - d)]
        d *= 2
        cuda.syncthreads()
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = s[at(TPB - 1)]
        s[at(TPB - 1)] = float32(0.0)
    cuda.syncthreads()
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[at(k - d)]
            s[at(k - d)] = s[at(k)]
            s[at(k)] += left
        d //= 2
        cuda.syncthreads()
    if i < x.size:
        out[i] = s[at(t)] + v
""",
    ),
    "hob_scan_pythonic_last_element": dict(
        exercise="08_scan",
        part="block_scan",
        full=True,  # s[-1] is the tile's last element: numba wraps it, on a GPU too
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2
        cuda.syncthreads()
    if t == 0:
        block_sums[cuda.blockIdx.x] = s[-1]
        s[-1] = 0
    cuda.syncthreads()
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        d //= 2
        cuda.syncthreads()
    if i < x.size:
        out[i] = s[t] + v
""",
    ),
    "hob_scan_total_by_atomics": dict(
        exercise="08_scan",
        part="block_scan",
        full=True,  # every thread adds its value into block_sums[b]: exact quarters
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    if i < x.size:
        cuda.atomic.add(block_sums, cuda.blockIdx.x, v)
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2
        cuda.syncthreads()
    if t == 0:
        s[TPB - 1] = float32(0.0)
    cuda.syncthreads()
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        d //= 2
        cuda.syncthreads()
    if i < x.size:
        out[i] = s[t] + v
""",
    ),
    "hob_scan_barrier_inside_down_sweep_guard": dict(
        exercise="08_scan",
        part="block_scan",
        fail=["sync"],  # only the threads with k < TPB reach the barrier: divergent
        passes=[],
        reason="barrier",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2
        cuda.syncthreads()
    if t == 0:
        block_sums[cuda.blockIdx.x] = s[TPB - 1]
        s[TPB - 1] = float32(0.0)
    cuda.syncthreads()
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
            cuda.syncthreads()
        d //= 2
    if i < x.size:
        out[i] = s[t] + v
""",
    ),
    "hob_scan_offsets_prefix_read_before_guard": dict(
        exercise="08_scan",
        part="add_block_offsets",
        full=True,  # block 0 reads offsets[-1] (numba wraps it: in bounds) and never uses it
        kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    b = cuda.blockIdx.x
    i = cuda.grid(1)
    prev = offsets[b - 1]
    if b > 0 and i < out.size:
        out[i] += prev
""",
    ),
    # -- transpose -----------------------------------------------------------------------------
    "hob_transpose_tiled_linear_thread_index": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        full=True,  # one flat thread index walks the tile, TILE x BLOCK_ROWS at a time
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    t = cuda.threadIdx.y * TILE + cuda.threadIdx.x
    rows, cols = a.shape
    r0 = cuda.blockIdx.y * TILE
    c0 = cuda.blockIdx.x * TILE
    for e in range(t, TILE * TILE, TILE * BLOCK_ROWS):
        r, c = e // TILE, e % TILE
        if r0 + r < rows and c0 + c < cols:
            tile[r, c] = a[r0 + r, c0 + c]
    cuda.syncthreads()
    for e in range(t, TILE * TILE, TILE * BLOCK_ROWS):
        r, c = e // TILE, e % TILE
        if c0 + r < cols and r0 + c < rows:
            out[c0 + r, r0 + c] = tile[c, r]
""",
    ),
    "hob_transpose_tiled_syncwarp_only": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        fail=["sync"],  # a warp's barrier: the tile's column comes from eight warps
        passes=[],
        reason="no barrier in between",
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            tile[ty + k, tx] = a[row, col]
    cuda.syncwarp()
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < cols and col < rows:
            out[row, col] = tile[tx, ty + k]
""",
    ),
    "hob_transpose_tiled_grid_stride_tiles": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        full=True,  # a loop over tiles (one pass with this grid), a barrier at both ends
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    tiles_y = (rows + TILE - 1) // TILE
    tiles_x = (cols + TILE - 1) // TILE
    for by in range(cuda.blockIdx.y, tiles_y, cuda.gridDim.y):
        for bx in range(cuda.blockIdx.x, tiles_x, cuda.gridDim.x):
            for k in range(0, TILE, BLOCK_ROWS):
                r, c = by * TILE + ty + k, bx * TILE + tx
                if r < rows and c < cols:
                    tile[ty + k, tx] = a[r, c]
            cuda.syncthreads()
            for k in range(0, TILE, BLOCK_ROWS):
                r, c = bx * TILE + ty + k, by * TILE + tx
                if r < cols and c < rows:
                    out[r, c] = tile[tx, ty + k]
            cuda.syncthreads()
""",
    ),
    "hob_transpose_padded_rows_padded": dict(
        exercise="09_transpose",
        part="transpose_padded",
        # A padding row instead of a padding column: the row length stays 32 words and a
        # column still lies in one bank.
        fail=["conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
        reason="conflict",
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE_PAD, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            tile[ty + k, tx] = a[row, col]
    cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < cols and col < rows:
            out[row, col] = tile[tx, ty + k]
""",
    ),
    "hob_transpose_padded_flat_padded_array": dict(
        exercise="09_transpose",
        part="transpose_padded",
        full=True,  # a 1-D shared array indexed r * TILE_PAD + c, its size a module constant
        kernel="""
FLAT = TILE * TILE_PAD


@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array(FLAT, float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            tile[(ty + k) * TILE_PAD + tx] = a[row, col]
    cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < cols and col < rows:
            out[row, col] = tile[tx * TILE_PAD + ty + k]
""",
    ),
}

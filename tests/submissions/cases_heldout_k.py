"""Fresh submissions on synchronisation and the memory model, built by build.py: barriers
(one per step with two buffers, one between loads that leaves a tile unguarded, one in a loop
whose trip count differs between threads), waits for another block, by atomic or by plain
loads, atomics that hand out slots or meet a plain store, local and dynamic shared memory
indexed out of range, and a grid-stride loop over tiles.

The first three were misgraded before: a wait on plain loads took a minute to reach the
memory-operation limit (pdc.sim.spin now finds it at once), a block that waits for another
block lost no point for it (blocks must be able to run in any order), and a dynamic shared
array stopped the simulator (tests/test_sim_spin.py, tests/test_sim_dynamic_shared.py).
"""

from __future__ import annotations

ALL = ["public", "hidden"]

CASES = {
    "hok_block_sum_spins_on_plain_load": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=ALL,
        passes=[],
        reason="plain loads",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        if b > 0:
            while partial[b - 1] == 0.0:  # a plain load: the compiler may read it once
                pass
        partial[b] = s[0]
""",
    ),
    "hok_block_sum_waits_for_previous_block": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["sync"],
        passes=ALL,
        reason="waits for a value that another block writes",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        if b > 0:
            while cuda.atomic.add(partial, b - 1, 0.0) == 0.0:  # in block order
                pass
        cuda.atomic.add(partial, b, s[0])  # partial starts at zero: the add is the store
""",
    ),
    "hok_transpose_padded_dynamic_shared": dict(
        exercise="09_transpose",
        part="transpose_padded",
        fail=ALL,
        passes=[],
        reason="dynamic shared memory: the launch gives it no bytes",
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    flat = cuda.shared.array(0, float32)  # dynamic: the launch gives it no bytes
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if x < cols and y + j < rows:
            flat[(ty + j) * (TILE + 1) + tx] = a[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if x < rows and y + j < cols:
            out[y + j, x] = flat[tx * (TILE + 1) + ty + j]
""",
    ),
    "hok_matmul_tiled_double_buffer_one_barrier": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        full=True,
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((2, TILE, TILE), float32)  # two buffers: load one, read the other
    sB = cuda.shared.array((2, TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    tiles = (kk + TILE - 1) // TILE
    sA[0, ty, tx] = A[row, tx] if row < m and tx < kk else float32(0.0)
    sB[0, ty, tx] = B[ty, col] if ty < kk and col < n else float32(0.0)
    cuda.syncthreads()
    acc = float32(0.0)
    for t in range(tiles):
        cur = t % 2
        nxt = 1 - cur
        if t + 1 < tiles:
            k = (t + 1) * TILE + tx
            sA[nxt, ty, tx] = A[row, k] if row < m and k < kk else float32(0.0)
            k = (t + 1) * TILE + ty
            sB[nxt, ty, tx] = B[k, col] if k < kk and col < n else float32(0.0)
        for j in range(TILE):
            acc += sA[cur, ty, j] * sB[cur, j, tx]
        cuda.syncthreads()  # one barrier: the next buffer is full, this one free again
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "hok_matmul_tiled_barrier_between_loads": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["sync"],
        passes=[],
        reason="no barrier in between",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range((kk + TILE - 1) // TILE):
        k = t * TILE + tx
        sA[ty, tx] = A[row, k] if row < m and k < kk else float32(0.0)
        cuda.syncthreads()  # two barriers, but sA is overwritten before the last one's reads end
        k = t * TILE + ty
        sB[ty, tx] = B[k, col] if k < kk and col < n else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "hok_block_sum_atomic_slots": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
NWARPS = TPB // 32


@cuda.jit
def block_sum(x, partial):
    sums = cuda.shared.array(NWARPS, float32)
    count = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t == 0:
        count[0] = 0
    cuda.syncthreads()
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
    if t % 32 == 0:
        slot = cuda.atomic.add(count, 0, 1)  # the next free slot, whichever warp comes first
        sums[slot] = v
    cuda.syncthreads()
    if t == 0:
        acc = float32(0.0)
        for k in range(count[0]):
            acc += sums[k]
        partial[cuda.blockIdx.x] = acc
""",
    ),
    "hok_block_sum_zero_store_races_atomics": dict(
        exercise="05_reduction",
        part="block_sum",
        # The zeroing store and the atomics race: partial[0] ends undefined on a GPU.
        fail=["public", "hidden", "sync", "memory"],
        passes=[],
        reason="partial[0] ends the kernel with an undefined value",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    if t == 0:
        partial[b] = 0.0  # a plain store ...
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
    if t % 32 == 0:
        cuda.atomic.add(partial, b, v)  # ... and atomics of other warps, nothing between
""",
    ),
    "hok_row_max_barrier_in_strided_loop": dict(
        exercise="11_softmax",
        part="row_max",
        fail=["sync"],
        passes=[],
        reason="not reached by every thread",
        kernel="""
@cuda.jit
def row_max(x, m):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    buf[t] = -math.inf
    for c in range(t, x.shape[1], TPB):
        buf[t] = max(buf[t], x[r, c])
        cuda.syncthreads()  # the trip count differs between threads of the row
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            buf[t] = max(buf[t], buf[t + stride])
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        m[r] = buf[0]
""",
    ),
    "hok_block_sum_local_levels_one_short": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=ALL,
        passes=[],
        reason="write seen[7] outside shape (7,)",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    seen = cuda.local.array(7, float32)  # 7 levels ... but the loop below stores 8 values
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    level = 0
    stride = TPB
    while stride > 1:
        seen[level] = s[t]
        stride //= 2
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        level += 1
    seen[level] = s[t]  # level 7: one past the end
    if t == 0:
        partial[cuda.blockIdx.x] = seen[level]
""",
    ),
    "hok_blur2d_tiled_grid_stride_one_barrier": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        full=True,
        kernel="""
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    h, wd = img.shape
    by = cuda.blockIdx.y
    while by * TILE < h:  # a grid-stride loop over tile rows
        bx = cuda.blockIdx.x
        while bx * TILE < wd:
            row0, col0 = by * TILE - R, bx * TILE - R
            for ly in range(ty, TILE + 2 * R, TILE):
                for lx in range(tx, TILE + 2 * R, TILE):
                    y = min(max(row0 + ly, 0), h - 1)
                    x = min(max(col0 + lx, 0), wd - 1)
                    tile[ly, lx] = img[y, x]
            cuda.syncthreads()
            row, col = by * TILE + ty, bx * TILE + tx
            if row < h and col < wd:
                acc = float32(0.0)
                for dy in range(2 * R + 1):
                    for dx in range(2 * R + 1):
                        acc += w[dy, dx] * tile[ty + dy, tx + dx]
                out[row, col] = acc
            # no barrier before the next tile: with this launch a block does one tile
            bx += cuda.gridDim.x
        by += cuda.gridDim.y
""",
    ),
}

"""Gaming attempts (built by build.py): kernels whose outputs are right but that try to collect a
quality criterion's points without doing what it names. Each must lose that criterion and keep
the others it has earned.

Criteria and the three or more attempts on each:

* work spread (``parallel``): one thread per block stages every input in shared memory and
  the others only store; one lane per warp does its warp's additions; groups of lanes where
  one walks the group's values alone.
* atomics per address (``parallel`` of a reduction): every thread adds into its block's
  sum atomically, one atomic per eight threads, every thread's atomic after a warp stage.
* per-thread budget of the scan (``parallel``): one lane per warp scans its 32 values alone,
  two threads per block scan a half each, one thread per block after one level of a tree.
* coalescing (``memory`` of the transposes): strided loads padded with coalesced re-reads
  of the same rows, strided stores padded with coalesced re-stores, the padded kernel's
  strided loads padded the same way.
* bank conflicts (``conflicts`` of the padded transpose): no conflicts because the tile does
  not carry the transpose: a naive transpose beside a shared row, a padded tile copied in and
  out row by row, a single shared word read by every thread.
"""

from __future__ import annotations

_ELEMENTWISE = ["public", "hidden", "bounds"]

# The model answer's store half of a tiled transpose: a warp writes a row segment of out.
_TRANSPOSE_STORE = """
    cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < cols and col < rows:
            out[row, col] = tile[tx, ty + k] + junk * float32(0.0)
"""


def _strided_loads_padded(name: str, shape: str) -> str:
    """A tiled transpose whose warps load columns of ``a`` (one sector per lane) and then
    re-read the block's rows coalesced, again and again, to raise the per-array totals."""
    return (
        f"""
@cuda.jit
def {name}(a, out):
    tile = cuda.shared.array({shape}, float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    junk = float32(0.0)
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + tx  # lanes walk down a column: strided
        col = cuda.blockIdx.x * TILE + ty + k
        if row < rows and col < cols:
            tile[tx, ty + k] = a[row, col]
        row = cuda.blockIdx.y * TILE + ty + k  # lanes along a row: coalesced, and useless
        col = cuda.blockIdx.x * TILE + tx
        if row < rows and col < cols:
            for _ in range(48):
                junk += a[row, col]
"""
        + _TRANSPOSE_STORE
    )


CASES = {
    # -- work spread over threads -----------------------------------------------------------
    "gaming_multiply_thread_zero_stages_block": dict(
        gaming="work spread",
        exercise="01_elementwise",
        part="multiply",
        fail=["parallel"],
        passes=_ELEMENTWISE,
        reason="one thread made",
        kernel="""
from numba import float32


@cuda.jit
def multiply(a, b, out):
    sa = cuda.shared.array(TPB, float32)
    sb = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    start = cuda.blockIdx.x * TPB
    if t == 0:  # thread 0 loads the whole block's inputs; the others only store
        for j in range(TPB):
            if start + j < a.size:
                sa[j] = a[start + j]
                sb[j] = b[start + j]
    cuda.syncthreads()
    i = start + t
    if i < out.size:
        out[i] = sa[t] * sb[t]
""",
    ),
    "gaming_saxpy_lane_zero_loads_warp": dict(
        gaming="work spread",
        exercise="01_elementwise",
        part="saxpy",
        fail=["parallel"],
        passes=_ELEMENTWISE,
        reason="one thread made",
        kernel="""
from numba import float32


@cuda.jit
def saxpy(alpha, x, y, out):
    sv = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    base = i - t % 32
    if t % 32 == 0:  # lane 0 computes its warp's 32 results; every lane stores its own
        for j in range(32):
            if base + j < x.size:
                sv[t + j] = alpha * x[base + j] + y[base + j]
    cuda.syncwarp()
    if i < out.size:
        out[i] = sv[t]
""",
    ),
    "gaming_conv1d_thread_zero_stages_window": dict(
        gaming="work spread",
        exercise="02_conv1d",
        part="conv1d",
        fail=["parallel"],
        passes=_ELEMENTWISE,
        reason="one thread made",
        kernel="""
WINDOW = TPB + 64  # the block's outputs and a halo of up to 32 on each side


@cuda.jit
def conv1d(x, w, out):
    window = cuda.shared.array(WINDOW, float32)
    t = cuda.threadIdx.x
    r = w.size // 2
    start = cuda.blockIdx.x * TPB - r
    if t == 0:  # thread 0 fetches the block's whole window, halo included
        for j in range(TPB + 2 * r):
            k = start + j
            window[j] = x[k] if 0 <= k < x.size else float32(0.0)
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < out.size:
        acc = float32(0.0)
        for j in range(w.size):
            acc += w[j] * window[t + 2 * r - j]
        out[i] = acc
""",
    ),
    # -- atomics per address, where the exercise is a reduction ------------------------------
    "gaming_block_sum_every_thread_atomic": dict(
        gaming="atomics per address",
        exercise="05_reduction",
        part="block_sum",
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        reason="atomic",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    cuda.atomic.add(partial, cuda.blockIdx.x, s[t])  # 128 atomics on one element
""",
    ),
    "gaming_block_sum_atomic_per_eight": dict(
        gaming="atomics per address",
        exercise="05_reduction",
        part="block_sum",
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        reason="atomic",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    if t % 8 == 0:  # a few values each, then 16 atomics on one element per block
        acc = float32(0.0)
        for j in range(8):
            acc += s[t + j]
        cuda.atomic.add(partial, cuda.blockIdx.x, acc)
""",
    ),
    "gaming_block_sum_half_tree_then_atomics": dict(
        gaming="atomics per address",
        exercise="05_reduction",
        part="block_sum",
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        reason="atomic",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    if t < TPB // 2:  # one level of the tree, then 64 atomics on one element
        cuda.atomic.add(partial, cuda.blockIdx.x, s[t] + s[t + TPB // 2])
""",
    ),
    # -- the scan's per-thread budget ----------------------------------------------------------
    "gaming_scan_one_lane_per_warp": dict(
        gaming="per-thread budget",
        exercise="08_scan",
        part="block_scan",
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="one thread made",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    totals = cuda.shared.array(4, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    s[t] = v
    cuda.syncthreads()
    lane, warp = t % 32, t // 32
    if lane == 0:  # one lane scans its warp's 32 values alone
        acc = float32(0.0)
        for j in range(32):
            acc += s[warp * 32 + j]
            s[warp * 32 + j] = acc
        totals[warp] = acc
    cuda.syncthreads()
    if t == 0:
        acc = float32(0.0)
        for j in range(TPB // 32):
            acc += totals[j]
            totals[j] = acc
        block_sums[cuda.blockIdx.x] = acc
    cuda.syncthreads()
    if i < x.size:
        out[i] = s[t] + (totals[warp - 1] if warp > 0 else float32(0.0))
""",
    ),
    "gaming_scan_two_threads_per_block": dict(
        gaming="per-thread budget",
        exercise="08_scan",
        part="block_scan",
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync", "work"],
        reason="one thread made",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    s[t] = v
    cuda.syncthreads()
    half = TPB // 2
    if t % half == 0:  # threads 0 and 64 each scan their half alone
        acc = float32(0.0)
        for j in range(t, t + half):
            acc += s[j]
            s[j] = acc
    cuda.syncthreads()
    if t == 0:
        block_sums[cuda.blockIdx.x] = s[half - 1] + s[TPB - 1]
    if i < x.size:
        out[i] = s[t] + (s[half - 1] if t >= half else float32(0.0))
""",
    ),
    "gaming_scan_thread_zero_after_tree": dict(
        gaming="per-thread budget",
        exercise="08_scan",
        part="block_scan",
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="one thread made",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    s[t] = v
    cuda.syncthreads()
    if t % 2 == 1:  # one level of pairs, in parallel ...
        s[t] += s[t - 1]
    cuda.syncthreads()
    if t == 0:  # ... then thread 0 walks the 64 pair sums alone
        acc = float32(0.0)
        for j in range(1, TPB, 2):
            acc += s[j]
            s[j] = acc
        block_sums[cuda.blockIdx.x] = acc
    cuda.syncthreads()
    if i < x.size:
        out[i] = s[t] if t % 2 == 1 else s[t - 1] + v if t > 0 else v
""",
    ),
    # -- coalescing per warp request ---------------------------------------------------------
    "gaming_transpose_tiled_strided_loads_padded": dict(
        gaming="coalescing",
        exercise="09_transpose",
        part="transpose_tiled",
        fail=["memory", "parallel"],  # the padding loads make 208 accesses per thread
        passes=["public", "hidden", "bounds", "sync"],
        reason="not coalesced",
        kernel=_strided_loads_padded("transpose_tiled", "(TILE, TILE)"),
    ),
    "gaming_transpose_padded_strided_loads_padded": dict(
        gaming="coalescing",
        exercise="09_transpose",
        part="transpose_padded",
        # conflicts are judged once accesses are coalesced; the padding loads cost parallel
        fail=["memory", "conflicts", "parallel"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="not coalesced",
        kernel=_strided_loads_padded("transpose_padded", "(TILE, TILE_PAD)"),
    ),
    "gaming_transpose_tiled_strided_stores_padded": dict(
        gaming="coalescing",
        exercise="09_transpose",
        part="transpose_tiled",
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],  # it also stores twice the outputs
        reason="not coalesced",
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
            out[col, row] = a[row, col]  # strided: lanes write down a column of out
    cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < cols and col < rows:
            for _ in range(48):  # the same value again, coalesced, to raise the totals
                out[row, col] = tile[tx, ty + k]
""",
    ),
    # -- bank conflicts: conflict-free because the tile does not carry the transpose ----------
    "gaming_transpose_padded_naive_with_side_tile": dict(
        exercise="09_transpose",
        part="transpose_padded",
        gaming="bank conflicts",
        fail=["memory", "conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="not coalesced",
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    side = cuda.shared.array((BLOCK_ROWS, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            side[ty, tx] = a[row, col]  # a shared row per warp, touched without conflicts
            out[col, row] = side[ty, tx]  # ... while out is written down a column
""",
    ),
    "gaming_transpose_padded_tile_copied_row_by_row": dict(
        exercise="09_transpose",
        part="transpose_padded",
        gaming="bank conflicts",
        fail=["memory", "conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="not coalesced",
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            tile[ty + k, tx] = a[row, col]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):  # read back as written: no conflicts, no transpose
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            out[col, row] = tile[ty + k, tx]
""",
    ),
    "gaming_transpose_padded_one_shared_word": dict(
        exercise="09_transpose",
        part="transpose_padded",
        gaming="bank conflicts",
        fail=["memory", "conflicts"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="not coalesced",
        kernel="""
@cuda.jit
def transpose_padded(a, out):
    flag = cuda.shared.array(1, float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    if tx == 0 and ty == 0:
        flag[0] = float32(1.0)  # one shared word, so that shared memory "is used"
    cuda.syncthreads()
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            out[col, row] = a[row, col] * flag[0]
""",
    ),
}

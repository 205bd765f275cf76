"""Gaming attempts on operations per thread and on coalescing per warp request (built by
build.py). Outputs are right; each attempt tries to keep a criterion's points while one
thread does the work of many, or while some warp requests are strided.

* operations per thread (``parallel``): memory accesses per thread stay small, but one lane
  (or every lane) adds its warp's values with a shuffle per value, one lane per half-warp
  scans its 16 values alone, every lane sums its warp's prefix itself, lane 0 computes its
  warp's 32 results and hands them out by shuffles. pdc.sim counts every thread's operations
  and the longest stretch of them between two barriers (its span).
* coalescing per warp request (``memory`` of the transposes): a strided load or store hidden
  among coalesced ones, where per-array totals stay within the slack a misaligned array
  already needs: judged per instruction and request, as a profiler's sectors per request.
"""

from __future__ import annotations

_WARP = ["public", "hidden", "sync", "masks", "barriers", "registers"]
_SCAN = ["public", "hidden", "bounds", "sync"]

# Warp 0 adds the warp sums with five shuffles, as the model answer does.
_SECOND_STAGE = """
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
"""

CASES = {
    "gaming_warp_reduce_lane_zero_adds_by_shuffle": dict(
        gaming="operations per thread",
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["parallel"],
        passes=_WARP,
        reason="operations",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    acc = v
    for j in range(1, 32):  # 31 shuffles by every lane, 31 additions by lane 0: no tree
        other = cuda.shfl_sync(FULL_MASK, v, j)
        if lane == 0:
            acc += other
    if lane == 0:
        warp_sums[warp] = acc
"""
        + _SECOND_STAGE,
    ),
    "gaming_warp_reduce_every_lane_sums_its_warp": dict(
        gaming="operations per thread",
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["parallel"],
        passes=_WARP,
        reason="operations",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    acc = float32(0.0)
    for j in range(32):  # every lane fetches and adds all 32 values: 32 steps, not 5
        acc += cuda.shfl_sync(FULL_MASK, v, j)
    if lane == 0:
        warp_sums[warp] = acc
"""
        + _SECOND_STAGE,
    ),
    "gaming_scan_one_lane_per_half_warp": dict(
        gaming="operations per thread",
        exercise="08_scan",
        part="block_scan",
        fail=["parallel"],
        passes=_SCAN,
        reason="operations",
        kernel="""
HALVES = TPB // 16  # half-warps per block


@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    totals = cuda.shared.array(HALVES, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    s[t] = v
    cuda.syncthreads()
    lane, half = t % 16, t // 16
    if lane == 0:  # one lane per half-warp scans its 16 values alone
        acc = float32(0.0)
        for j in range(16):
            acc += s[half * 16 + j]
            s[half * 16 + j] = acc
        totals[half] = acc
    cuda.syncthreads()
    if t == 0:
        acc = float32(0.0)
        for j in range(HALVES):
            acc += totals[j]
            totals[j] = acc
        block_sums[cuda.blockIdx.x] = acc
    cuda.syncthreads()
    if i < x.size:
        out[i] = s[t] + (totals[half - 1] if half > 0 else float32(0.0))
""",
    ),
    "gaming_scan_each_lane_sums_its_prefix": dict(
        gaming="operations per thread",
        exercise="08_scan",
        part="block_scan",
        fail=["parallel"],
        passes=_SCAN,
        reason="operations",
        kernel="""
WARPS_PER_BLOCK = TPB // 32


@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    totals = cuda.shared.array(WARPS_PER_BLOCK, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    lane, warp = t % 32, t // 32
    acc = float32(0.0)
    for j in range(lane + 1):  # each lane adds its warp's values up to its own, alone
        acc += s[warp * 32 + j]
    if lane == 31:
        totals[warp] = acc
    cuda.syncthreads()
    before = float32(0.0)
    for w in range(warp):
        before += totals[w]
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = before + acc
    if i < x.size:
        out[i] = before + acc
""",
    ),
    "gaming_saxpy_lane_zero_computes_by_shuffle": dict(
        gaming="operations per thread",
        exercise="01_elementwise",
        part="saxpy",
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason="operations",
        kernel="""
from numba import float32


@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    lane = cuda.threadIdx.x % 32
    xv = x[i] if i < x.size else float32(0.0)
    yv = y[i] if i < y.size else float32(0.0)
    mine = float32(0.0)
    for j in range(32):  # lane 0 computes the warp's 32 results; shuffles carry the values
        xj = cuda.shfl_sync(0xFFFFFFFF, xv, j)
        yj = cuda.shfl_sync(0xFFFFFFFF, yv, j)
        r = float32(0.0)
        if lane == 0:
            r = alpha * xj + yj
        got = cuda.shfl_sync(0xFFFFFFFF, r, 0)
        if lane == j:
            mine = got
    if i < out.size:
        out[i] = mine
""",
    ),
}


def _tile_load(name: str, shape: str, lanes: str, where: str) -> str:
    """A tiled transpose whose first ``lanes`` lanes of warp 0 read the top of the tile's
    first column down the column (one sector per lane) in the blocks ``where`` selects; the
    coalesced row loads skip those elements, so each element is still loaded once."""
    return f"""
@cuda.jit
def {name}(a, out):
    tile = cuda.shared.array({shape}, float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    r0, c0 = cuda.blockIdx.y * TILE, cuda.blockIdx.x * TILE
    odd = {where}
    if odd and ty == 0 and tx < {lanes} and r0 + tx < rows and c0 < cols:
        tile[tx, 0] = a[r0 + tx, c0]  # lanes walk down a column: one sector each
    col = c0 + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = r0 + ty + k
        if row < rows and col < cols and not (odd and tx == 0 and ty + k < {lanes}):
            tile[ty + k, tx] = a[row, col]
    cuda.syncthreads()
    col = r0 + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = c0 + ty + k
        if row < cols and col < rows:
            out[row, col] = tile[tx, ty + k]
"""


_TRANSPOSE = ["public", "hidden", "bounds", "sync", "parallel"]

CASES.update(
    {
        "gaming_transpose_tiled_first_block_reads_a_column": dict(
            gaming="coalescing per request",
            exercise="09_transpose",
            part="transpose_tiled",
            fail=["memory"],
            passes=_TRANSPOSE,
            reason="warp requests touch more sectors",
            kernel=_tile_load(
                "transpose_tiled",
                "(TILE, TILE)",
                8,
                "cuda.blockIdx.x == 0 and cuda.blockIdx.y == 0",
            ),
        ),
        "gaming_transpose_padded_every_block_reads_four_down_a_column": dict(
            gaming="coalescing per request",
            exercise="09_transpose",
            part="transpose_padded",
            fail=["memory", "conflicts"],  # conflicts are judged once accesses are coalesced
            passes=_TRANSPOSE,
            reason="warp requests touch more sectors",
            kernel=_tile_load("transpose_padded", "(TILE, TILE_PAD)", 4, "True"),
        ),
        "gaming_transpose_tiled_first_block_writes_a_column": dict(
            gaming="coalescing per request",
            exercise="09_transpose",
            part="transpose_tiled",
            fail=["memory"],
            passes=_TRANSPOSE,
            reason="warp requests touch more sectors",
            kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    r0, c0 = cuda.blockIdx.y * TILE, cuda.blockIdx.x * TILE
    col = c0 + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = r0 + ty + k
        if row < rows and col < cols:
            tile[ty + k, tx] = a[row, col]
    cuda.syncthreads()
    # the first block, on arrays of a tile or more (a tiny one has no slack to hide in)
    first = cuda.blockIdx.x == 0 and cuda.blockIdx.y == 0 and min(rows, cols) >= TILE
    for k in range(0, TILE, BLOCK_ROWS):
        row, col = c0 + ty + k, r0 + tx
        if first and k == 0 and ty == 0 and tx < 8:
            row, col = tx, 0  # lanes 0-7 of warp 0 write down a column of out: strided
        elif first and k == 0 and tx == 0 and ty < 8:
            row, col = 0, ty  # ... and lane 0 of warps 1-7 writes their row-0 elements
        if row < cols and col < rows:
            out[row, col] = tile[col - r0, row - c0]
""",
        ),
    }
)

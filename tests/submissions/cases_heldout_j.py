"""Fresh submissions on sizes and numerics, exercises 02-04, 07 and 08 (built by build.py).

Kernels right only for the sizes the notebook tests (a slot per public block, a bound of the
widest public matrix, a grid of eight blocks, a local array of 15 filter taps) earned full
marks on some or all seeds: the hidden draws never went past the public sizes or reached the
domain's longest filter. Every draw now does (pdc.grade.sizes.past_public,
tests/test_grade_hidden_past_public.py). ``round(x, 2)`` compiles with numba-cuda and was
refused by the simulator; it now runs as numba-cuda lowers it (tests/test_sim_heldout_j.py).
The rest are correct kernels in unusual styles (Python's ``%`` of a negative index as a guard,
a halo'd tile loaded as one flat range with ``divmod``, a scan in integer quarters) and one
attempt to avoid global atomics by letting one block count everything, which loses
``parallel``.
"""

from __future__ import annotations

CASES = {
    # -- right only for the public sizes (misgraded before) -----------------------------------
    "hoj_conv1d_taps_staged_for_fifteen": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["hidden", "bounds"],
        passes=["public"],
        reason="hidden case",
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    taps = cuda.local.array(15, float32)  # "long filters are 15 taps at most"
    k = w.size
    for j in range(k):
        taps[j] = w[j]
    i = cuda.grid(1)
    if i < out.size:
        r = k // 2
        acc = float32(0)
        for j in range(k):
            src = i + r - j
            if 0 <= src < x.size:
                acc += taps[j] * x[src]
        out[i] = acc
""",
    ),
    "hoj_matmul_naive_columns_of_public_width": dict(
        exercise="03_matmul",
        part="matmul_naive",
        fail=["hidden"],
        passes=["public"],
        reason="hidden case",
        kernel="""
@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < min(C.shape[1], 33):  # the widest C of the notebook's test
        acc = float32(0)
        for t in range(A.shape[1]):
            acc += A[row, t] * B[t, col]
        C[row, col] = acc
""",
    ),
    "hoj_histogram_global_grid_of_eight_blocks": dict(
        exercise="07_histogram",
        part="histogram_global",
        fail=["hidden"],
        passes=["public"],
        reason="hidden case",
        kernel="""
@cuda.jit
def histogram_global(values, hist):
    i = (cuda.blockIdx.x % 8) * TPB + cuda.threadIdx.x  # 8 blocks cover the test's 1000 values
    if i < values.size and values[i] < BINS:
        cuda.atomic.add(hist, values[i], 1)
""",
    ),
    "hoj_block_scan_totals_for_eight_blocks": dict(
        exercise="08_scan",
        part="block_scan",
        fail=["hidden", "sync"],
        passes=["public"],
        reason="hidden case",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    offset = 1
    while offset < TPB:
        idx = (t + 1) * offset * 2 - 1
        if idx < TPB:
            s[idx] += s[idx - offset]
        offset <<= 1
        cuda.syncthreads()
    offset = TPB >> 2
    while offset > 0:
        idx = (t + 1) * offset * 2 - 1
        if idx + offset < TPB:
            s[idx + offset] += s[idx]
        offset >>= 1
        cuda.syncthreads()
    if i < x.size:
        out[i] = s[t]
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x % 8] = s[t]  # a slot per block, eight blocks at most
""",
    ),
    "hoj_scan_offsets_totals_staged_for_eight_blocks": dict(
        exercise="08_scan",
        part="add_block_offsets",
        fail=["hidden", "bounds"],
        passes=["public"],
        reason="hidden case",
        kernel="""
MAX_BLOCKS = 8  # n = 1000 makes 8 blocks


@cuda.jit
def add_block_offsets(out, offsets):
    totals = cuda.shared.array(MAX_BLOCKS, float32)
    t = cuda.threadIdx.x
    if t < offsets.size:
        totals[t] = offsets[t]  # past 8 blocks: written outside the shared array
    cuda.syncthreads()
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    if i < out.size and b > 0:
        out[i] += totals[b - 1]
""",
    ),
    # -- a builtin the simulator refused (misgraded before) -----------------------------------
    "hoj_scan_offsets_rounded_to_cents": dict(
        exercise="08_scan",
        part="add_block_offsets",
        full=True,
        kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    b = i // TPB
    if i < out.size and b > 0:
        out[i] = round(out[i] + offsets[b - 1], 2)  # quarters: two digits keep them exact
""",
    ),
    # -- correct numeric styles ---------------------------------------------------------------
    "hoj_conv1d_python_modulo_guard": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    if i < n:
        r = w.size // 2
        acc = 0.0
        for j in range(w.size):
            src = i + r - j
            if src % n == src:  # Python's %: -1 % n is n - 1, so only 0 <= src < n passes
                acc += w[j] * x[src]
        out[i] = acc
""",
    ),
    "hoj_blur2d_tiled_flat_halo_divmod": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        full=True,
        kernel="""
S = TILE + 2 * R  # the halo'd tile's side


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array(shape=(S, S), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    h, wd = img.shape
    flat = ty * TILE + tx
    for idx in range(flat, S * S, TILE * TILE):  # the halo'd tile as one flat range
        ly, lx = divmod(idx, S)
        y = cuda.blockIdx.y * TILE - R + ly
        x = cuda.blockIdx.x * TILE - R + lx
        tile[ly, lx] = img[min(max(y, 0), h - 1), min(max(x, 0), wd - 1)]
    cuda.syncthreads()
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy][tx + dx]
        out[row, col] = acc
""",
    ),
    "hoj_scan_block_scan_integer_quarters": dict(
        exercise="08_scan",
        part="block_scan",
        full=True,
        kernel="""
from numba import int32


@cuda.jit
def block_scan(x, out, block_sums):
    q = cuda.shared.array(TPB, int32)  # the inputs are quarters: scan 4x in integers, exact
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    q[t] = int32(x[i] * 4) if i < x.size else 0
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            q[k] += q[k - d]
        d *= 2
        cuda.syncthreads()
    d = TPB // 4
    while d >= 1:
        k = (t + 1) * 2 * d - 1
        if k + d < TPB:
            q[k + d] += q[k]
        d //= 2
        cuda.syncthreads()
    if i < x.size:
        out[i] = q[t] / 4
    if t == 0:
        block_sums[cuda.blockIdx.x] = q[TPB - 1] / 4
""",
    ),
    # -- gaming ------------------------------------------------------------------------------
    "hoj_gaming_histogram_shared_block_zero_stores": dict(
        exercise="07_histogram",
        part="histogram_shared",
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync", "atomics"],
        reason="memory accesses",
        gaming="work spread",
        kernel="""
@cuda.jit
def histogram_shared(values, hist):
    counts = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    if cuda.blockIdx.x != 0:
        return  # one block counts everything: no global atomics at all
    if t < BINS:
        counts[t] = 0
    cuda.syncthreads()
    for j in range(t, values.size, TPB):
        if values[j] < BINS:
            cuda.atomic.add(counts, values[j], 1)
    cuda.syncthreads()
    if t < BINS:
        hist[t] = counts[t]
""",
    ),
}

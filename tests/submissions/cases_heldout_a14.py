"""Blind submissions for exercises 01, 02, 05 and 09, aimed at how the grader reads a notebook (cell magics, definitions under with/try/for/if, imports and second names, eager signatures, kernels from files), written from the student notebooks and INSTRUCTOR.md only."""

CASES = {
    # ------------------------------------------------------------------ correct
    "hom14_multiply_cuda_jit_called_on_plain_function": dict(
        exercise="01_elementwise",
        part="multiply",
        kernel='''
def multiply_py(a, b, out):
    # plain Python first, so I can test it on the CPU too
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]


multiply = cuda.jit(multiply_py)
''',
        full=True,
    ),
    "hom14_saxpy_timeit_cell_does_not_rebind": dict(
        exercise="01_elementwise",
        part="saxpy",
        extra_cells=['''
import numba.cuda as cu


@cu.jit
def saxpy(alpha, x, y, out):
    i = cu.threadIdx.x + cu.blockIdx.x * cu.blockDim.x
    if i < x.shape[0]:
        out[i] = alpha * x[i] + y[i]
'''],
        kernel='''%%timeit -n 1 -r 1
# how long does defining a kernel take? (numba compiles lazily, so ~nothing)
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    out[i] = alpha * x[i] + y[i]
''',
        full=True,
    ),
    "hom14_conv1d_try_block_numba_reimport_shell_line": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''!nvidia-smi -L
from numba import cuda, float32

try:
    @cuda.jit
    def conv1d(x, w, out):
        # x and w shadow the demo arrays of the cell above
        i = cuda.grid(1)
        n = x.shape[0]
        K = w.shape[0]
        r = K // 2
        if i < n:
            acc = float32(0.0)
            for j in range(K):
                src = i + r - j
                if 0 <= src < n:
                    acc += w[j] * x[src]
            out[i] = acc
except Exception as err:  # my laptop has no GPU
    print("could not define conv1d:", err)
''',
        full=True,
    ),
    "hom14_block_sum_capture_cell_tpb_reassigned_helper_alias": dict(
        exercise="05_reduction",
        part="block_sum",
        extra_cells=['''
TPB = 256  # trying bigger blocks (the grader keeps its own TPB)
'''],
        kernel='''%%capture
@cuda.jit(device=True)
def _fold(buf, t, s):
    if t < s:
        buf[t] += buf[t + s]


fold = _fold  # shorter name


@cuda.jit
def block_sum(x, partial):
    buf = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * TPB + t
    buf[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        fold(buf, t, s)
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = buf[0]
''',
        full=True,
    ),
    "hom14_transpose_tiled_for_loop_numpy_dtype_alias": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
from numpy import float32 as f32

STEPS = TILE // BLOCK_ROWS  # rows each thread moves

for _attempt in range(1):  # left over from a timing loop
    @cuda.jit
    def transpose_tiled(a, out):
        tile = cuda.shared.array((TILE, TILE), f32)
        rows, cols = a.shape
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        x0 = cuda.blockIdx.x * TILE
        y0 = cuda.blockIdx.y * TILE
        c = x0 + tx
        for k in range(STEPS):
            r = y0 + ty + k * BLOCK_ROWS
            if r < rows and c < cols:
                tile[ty + k * BLOCK_ROWS, tx] = a[r, c]
        cuda.syncthreads()
        oc = y0 + tx  # the block's tile lands at (x0, y0) swapped
        for k in range(STEPS):
            orow = x0 + ty + k * BLOCK_ROWS
            if orow < cols and oc < rows:
                out[orow, oc] = tile[tx, ty + k * BLOCK_ROWS]
''',
        full=True,
    ),
    "hom14_transpose_padded_builtin_named_const_stale_if_false": dict(
        exercise="09_transpose",
        part="transpose_padded",
        kernel='''
iter = TILE // BLOCK_ROWS  # iterations per thread (yes, it shadows a builtin)


@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    rows, cols = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    c = cuda.blockIdx.x * TILE + tx
    for k in range(iter):
        r = cuda.blockIdx.y * TILE + ty + k * BLOCK_ROWS
        if r < rows and c < cols:
            tile[ty + k * BLOCK_ROWS, tx] = a[r, c]
    cuda.syncthreads()
    oc = cuda.blockIdx.y * TILE + tx
    for k in range(iter):
        orow = cuda.blockIdx.x * TILE + ty + k * BLOCK_ROWS
        if orow < cols and oc < rows:
            out[orow, oc] = tile[tx, ty + k * BLOCK_ROWS]


if False:  # part 2's unpadded tile, kept to compare bank conflicts
    @cuda.jit
    def transpose_padded(a, out):
        tile = cuda.shared.array((TILE, TILE), float32)
        rows, cols = a.shape
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        c = cuda.blockIdx.x * TILE + tx
        for k in range(iter):
            r = cuda.blockIdx.y * TILE + ty + k * BLOCK_ROWS
            if r < rows and c < cols:
                tile[ty + k * BLOCK_ROWS, tx] = a[r, c]
        cuda.syncthreads()
        oc = cuda.blockIdx.y * TILE + tx
        for k in range(iter):
            orow = cuda.blockIdx.x * TILE + ty + k * BLOCK_ROWS
            if orow < cols and oc < rows:
                out[orow, oc] = tile[tx, ty + k * BLOCK_ROWS]
''',
        full=True,
    ),
    "hom14_transpose_naive_star_math_locals_shadow_globals": dict(
        exercise="09_transpose",
        part="transpose_naive",
        extra_cells=['''
from math import *

rows, cols = 5, 3  # the small public case, for printing
'''],
        kernel='''
@cuda.jit
def transpose_naive(a, out):
    c, r = cuda.grid(2)  # x runs along a row of a, y down its rows
    rows, cols = a.shape  # local names, not the globals above
    if r < rows and c < cols:
        out[c, r] = a[r, c]
''',
        full=True,
    ),
    # ------------------------------------------------------------------ buggy
    "hom14_multiply_prun_cell_redefines_without_guard": dict(
        exercise="01_elementwise",
        part="multiply",
        extra_cells=['''
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]
'''],
        kernel='''%%prun -q
# profile a branch-free version: is the bounds check what costs time?
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    out[i] = a[i] * b[i]
''',
        fail=["public", "hidden", "bounds"],
        passes=[],
        reason='out-of-bounds',
        why="%%prun runs the cell in the user namespace, so the guard-less multiply wins; for n=1000 threads 1000..1023 (and for n=1 threads 1..255) read a[i], b[i] and write out[i] past the end, which memcheck reports as invalid global reads/writes.",
    ),
    "hom14_saxpy_with_block_uses_global_alpha": dict(
        exercise="01_elementwise",
        part="saxpy",
        extra_cells=['''
ALPHA = 2.0  # the alpha of my own tests
'''],
        kernel='''
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # silence numba's small-launch warning

    @cuda.jit
    def saxpy(alpha, x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = ALPHA * x[i] + y[i]  # should be alpha, the argument
''',
        fail=['public', 'hidden'],
        passes=[],
        reason='out differs',
        why="the kernel is defined (a with block runs its body) but multiplies by the frozen global ALPHA = 2.0 instead of the alpha argument, so every case whose alpha is not 2.0 is wrong.",
    ),
    "hom14_conv1d_left_border_branch_ignores_right_edge": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
import math


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    K = w.size
    R = K // 2
    if i >= n:
        return
    acc = float32(0.0)
    if i <= R:
        # left border: drop the taps that would fall before x[0]
        for j in range(i + R + 1):
            acc += w[j] * x[i + R - j]
    elif i >= n - R:
        # right border: drop the taps that would fall past x[n - 1]
        for j in range(i + R - n + 1, K):
            acc += w[j] * x[i + R - j]
    else:
        for j in range(K):
            acc += w[j] * x[i + R - j]
    out[i] = acc
''',
        fail=["hidden", "bounds"],
        passes=["public", "parallel"],
        reason='out-of-bounds',
        why="the left-border branch (i <= R) never clips on the right, which is only needed when the filter is longer than the signal: for any K > n some thread with i <= R has i + R >= n and reads x[i + R] past the end (e.g. n=4, K=9: thread 0 reads x[4]); every public case has n > K.",
    ),
    "hom14_conv1d_shared_filter_cache_sized_from_constant": dict(
        exercise="02_conv1d",
        part="conv1d",
        extra_cells=['''
MAX_R = 4
MAX_TAPS = 2 * MAX_R + 1  # the longest filter in the checks has 7 taps
'''],
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    # the filter in shared memory: every thread of the block reads all of it
    wsh = cuda.shared.array(MAX_TAPS, float32)
    t = cuda.threadIdx.x
    K = w.shape[0]
    if t < K and t < MAX_TAPS:
        wsh[t] = w[t]
    cuda.syncthreads()
    i = cuda.grid(1)
    n = x.shape[0]
    if i < n:
        R = K // 2
        acc = float32(0)
        for j in range(K):
            src = i + R - j
            if src >= 0 and src < n:
                acc += wsh[j] * x[src]
        out[i] = acc
''',
        fail=["hidden", "bounds"],
        passes=["public", "parallel"],
        reason='out-of-bounds',
        why="the shared filter holds 9 taps; public filters have 3-7 taps, but every hidden draw has K >= 15 over several blocks, where threads whose window lies inside the signal read wsh[9..K-1] past the 9-element shared array (memcheck: invalid __shared__ read) and add garbage instead of the taps.",
    ),
    "hom14_block_sum_time_cell_early_return_before_barriers": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''%%time
@cuda.jit
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = 0.0  # pad with zeros so the tree can add blindly
    if i >= x.size:
        return  # nothing to load: this thread is done
    sh[t] = x[i]
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = sh[0]
''',
        fail=["sync"],
        passes=["public", "hidden"],
        reason="divergent",
        why="threads past the end return before the tree's syncthreads, so in every partial last block (n=1000: threads 104..127 of block 7, a partly exited warp) the barriers are not reached by the whole block (synccheck: barrier divergence); the zero padding keeps the sums right in practice.",
    ),
    "hom14_transpose_tiled_clamped_indices_duplicate_stores": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    rows, cols = a.shape
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    bx, by = cuda.blockIdx.x * TILE, cuda.blockIdx.y * TILE
    # clamp instead of branching: edge threads just redo the last row / column
    c = min(bx + tx, cols - 1)
    for k in range(0, TILE, BLOCK_ROWS):
        r = min(by + ty + k, rows - 1)
        tile[ty + k, tx] = a[r, c]
    cuda.syncthreads()
    oc = min(by + tx, rows - 1)
    for k in range(0, TILE, BLOCK_ROWS):
        orow = min(bx + ty + k, cols - 1)
        out[orow, oc] = tile[tx, ty + k]
''',
        fail=['memory'],
        passes=['public', 'hidden', 'bounds', 'sync'],
        reason='not coalesced',
        # Graded: every duplicate store writes the value already there, which racecheck does
        # not report as a hazard and a GPU leaves right; the clamped edge tiles make extra
        # sectors, so memory is lost.
        why="no access leaves the arrays and every store writes the right value, but in every edge tile the clamped threads all store out[cols - 1, oc] / out[orow, rows - 1], so several threads of a block write the same element with no barrier between them (a write-write race; public 40x70: in block (2, 0) the 27 threads with ty + k >= 5 of each column all store row 69 of out).",
    ),
    # ------------------------------------------------------------------ score 0
    "hom14_multiply_capture_cell_njit_wins": dict(
        exercise="01_elementwise",
        part="multiply",
        extra_cells=['''
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]
'''],
        kernel='''%%capture
from numba import njit


@njit
def multiply(a, b, out):
    # a CPU version to compare against NumPy
    for i in range(out.size):
        out[i] = a[i] * b[i]
''',
        fail=["public", "hidden", "bounds", "parallel"],
        passes=[],
        reason='not a CUDA kernel',
        why="%%capture runs its cell, so the later @njit multiply replaces the CUDA kernel; multiply[blocks, TPB](...) raises TypeError (a CPU dispatcher is not subscriptable), so the part scores 0.",
    ),
    "hom14_block_sum_eager_signature_float64_partial": dict(
        exercise="05_reduction",
        part="block_sum",
        extra_cells=['''
SIG = "void(float32[::1], float64[::1])"  # partial sums kept in double
'''],
        kernel='''
@cuda.jit(SIG)
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.size:
        sh[t] = x[i]
    else:
        sh[t] = 0.0
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = sh[0]
''',
        fail=["public", "hidden", "sync", "parallel", "memory"],
        passes=[],
        reason="signature",
        why="the eager signature compiles only (float32[::1], float64[::1]) while partial arrives as float32, so every launch raises numba's 'No matching definition' TypeError: the part scores 0.",
    ),
    "hom14_transpose_naive_imported_from_writefile": dict(
        exercise="09_transpose",
        part="transpose_naive",
        extra_cells=['''%%writefile naive_kernel.py
from numba import cuda


@cuda.jit
def transpose_naive(a, out):
    c, r = cuda.grid(2)
    if r < a.shape[0] and c < a.shape[1]:
        out[c, r] = a[r, c]
'''],
        kernel='''
from naive_kernel import transpose_naive  # in a module so that other notebooks can reuse it
''',
        fail=["public", "hidden", "bounds", "parallel"],
        passes=[],
        reason="imported",
        why="the graded name is imported from a file the notebook wrote; the guide scores a kernel imported from a file 0 (the grader grades the notebook's own definitions, not files on disk).",
    ),
}

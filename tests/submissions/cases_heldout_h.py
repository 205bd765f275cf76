"""Fresh submissions on how the grader finds a kernel in a notebook, built by build.py: kernels
redefined in later cells, helpers and constants defined elsewhere, the many ways a notebook
names numba.cuda and its types, decorator options and signatures, IPython syntax, and shapes
that bind the graded name to something that is no kernel.
"""

from __future__ import annotations

ALL = ["public", "hidden"]

MULTIPLY = """
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]
"""

CASES = {
    # -- which definition counts -------------------------------------------------------------
    "hoh_multiply_fixed_in_last_cell": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,  # the first try stays above; the cell at the bottom defines it again
        kernel="""
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    out[i] = a[i] * b[i]
""",
        extra_after=["# second try, with the guard\n" + MULTIPLY],
    ),
    "hoh_saxpy_broken_by_later_experiment": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = alpha * x[i] + y[i]
""",
        extra_after=[
            """
@cuda.jit
def saxpy(alpha, x, y, out):  # an experiment at the end redefines the graded kernel
    i = cuda.grid(1)
    if i < out.size:
        out[i] = alpha * x[i]
"""
        ],
    ),
    "hoh_conv1d_helper_in_a_later_cell": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
from numba import float32


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        acc = float32(0.0)
        for j in range(w.size):
            acc += tap(x, w, i + w.size // 2 - j, j)
        out[i] = acc
""",
        extra_after=[
            """
@cuda.jit(device=True, inline=True)
def tap(x, w, src, j):
    if 0 <= src < x.size:
        return w[j] * x[src]
    return float32(0.0)
"""
        ],
    ),
    # -- how the notebook names numba.cuda, its types and decorators ---------------------------
    "hoh_matmul_naive_signature_list": dict(
        exercise="03_matmul",
        part="matmul_naive",
        full=True,
        kernel="""
from numba import float32, void


@cuda.jit([void(float32[:, ::1], float32[:, ::1], float32[:, ::1])])
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        acc = float32(0.0)
        for k in range(A.shape[1]):
            acc += A[row, k] * B[k, col]
        C[row, col] = acc
""",
    ),
    "hoh_blur2d_jit_and_grid_imported": dict(
        exercise="04_conv2d",
        part="blur2d",
        full=True,
        kernel="""
from numba.cuda import jit, grid
from numba import float32 as f32


@jit
def blur2d(img, w, out):
    col, row = grid(2)
    h, wd = img.shape
    if row < h and col < wd:
        r = w.shape[0] // 2
        acc = f32(0.0)
        for dy in range(w.shape[0]):
            y = min(max(row + dy - r, 0), h - 1)
            for dx in range(w.shape[1]):
                x = min(max(col + dx - r, 0), wd - 1)
                acc += w[dy, dx] * img[y, x]
        out[row, col] = acc
""",
    ),
    "hoh_block_sum_cuda_taken_from_numba": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
import numba

gpu = numba.cuda  # a second name for the module


@gpu.jit
def block_sum(x, partial):
    s = gpu.shared.array(TPB, numba.float32)
    t = gpu.threadIdx.x
    i = gpu.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    gpu.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        gpu.syncthreads()
        stride //= 2
    if t == 0:
        partial[gpu.blockIdx.x] = s[0]
""",
    ),
    "hoh_histogram_shared_dtype_constant": dict(
        exercise="07_histogram",
        part="histogram_shared",
        full=True,
        kernel="""
COUNT = np.int32  # the counters' type, named once


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, COUNT)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        if s[b] > 0:
            cuda.atomic.add(hist, b, s[b])
""",
    ),
    "hoh_histogram_global_cuda_as_nc": dict(
        exercise="07_histogram",
        part="histogram_global",
        full=True,
        kernel="""
from numba import cuda as nc


@nc.jit
def histogram_global(values, hist):
    for i in range(nc.grid(1), values.size, nc.gridsize(1)):
        if values[i] < BINS:
            nc.atomic.add(hist, values[i], 1)
""",
    ),
    "hoh_scan_half_by_augmented_assignment": dict(
        exercise="08_scan",
        part="block_scan",
        full=True,
        kernel="""
HALF = TPB
HALF //= 2  # the down-sweep's first distance


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
        s[TPB - 1] = 0.0
    cuda.syncthreads()
    d = HALF
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
    "hoh_histogram_shared_stride_by_augmented_assignment": dict(
        exercise="07_histogram",
        part="histogram_shared",
        full=True,
        kernel="""
STRIDE = TPB
STRIDE *= BLOCKS  # the whole grid's width: the launch is BLOCKS x TPB


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    if t < BINS:
        s[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < values.size:
        if values[i] < BINS:
            cuda.atomic.add(s, values[i], 1)
        i += STRIDE
    cuda.syncthreads()
    if t < BINS and s[t] > 0:
        cuda.atomic.add(hist, t, s[t])
""",
    ),
    "hoh_transpose_naive_course_module_renamed": dict(
        exercise="09_transpose",
        part="transpose_naive",
        full=True,
        kernel="""
import pdc as course

dev = course.numba_cuda()


@dev.jit
def transpose_naive(a, out):
    col, row = dev.grid(2)
    if row < a.shape[0] and col < a.shape[1]:
        out[col, row] = a[row, col]
""",
    ),
    "hoh_transpose_tiled_shape_tuple_elsewhere": dict(
        exercise="09_transpose",
        part="transpose_tiled",
        full=True,
        kernel="""
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array(SHAPE, float32)
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
        extra_after=["SHAPE = (TILE, TILE)  # defined after the kernel: read at the first launch"],
    ),
    "hoh_warp_reduce_cache_true": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        kernel="""
@cuda.jit(cache=True)
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for offset in OFFSETS:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        for offset in OFFSETS:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
        extra_after=["OFFSETS = (16, 8, 4, 2, 1)"],
    ),
    "hoh_row_max_star_import_math": dict(
        exercise="11_softmax",
        part="row_max",
        full=True,
        kernel="""
from math import *


@cuda.jit
def row_max(x, m):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    v = float32(-inf)
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    buf[t] = v
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
    "hoh_softmax_fused_float32_from_string": dict(
        exercise="11_softmax",
        part="softmax_fused",
        full=True,
        kernel="""
NEG_INF = np.float32("-inf")
ONE = np.float32(1)


@cuda.jit
def softmax_fused(x, out):
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    m = NEG_INF
    total = float32(0.0)
    for c in range(t, cols, TPB):
        v = x[r, c]
        if v > m:
            total = total * math.exp(m - v) + ONE
            m = v
        else:
            total += math.exp(v - m)
    s_max[t] = m
    s_sum[t] = total
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m1, m2 = s_max[t], s_max[t + stride]
            if m2 > m1:
                s_sum[t] = s_sum[t] * math.exp(m1 - m2) + s_sum[t + stride]
                s_max[t] = m2
            elif m2 > NEG_INF:
                s_sum[t] += s_sum[t + stride] * math.exp(m2 - m1)
        cuda.syncthreads()
        stride //= 2
    m = s_max[0]
    total = s_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) / total
""",
    ),
    "hoh_row_max_lowest_from_imported_inf": dict(
        exercise="11_softmax",
        part="row_max",
        full=True,
        kernel="""
from math import inf

LOWEST = -inf


@cuda.jit
def row_max(x, m):
    buf = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    v = float32(LOWEST)
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    buf[t] = v
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
    "hoh_normalize_signature_constant": dict(
        exercise="11_softmax",
        part="normalize",
        full=True,
        kernel="""
SIG = "void(float32[:, :], float32[:], float32[:, :])"


@cuda.jit(SIG)
def normalize(e, s, out):
    col, row = cuda.grid(2)
    if row < out.shape[0] and col < out.shape[1]:
        out[row, col] = e[row, col] / s[row]
""",
    ),
    "hoh_multiply_type_hints": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        kernel="""
@cuda.jit
def multiply(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    \"\"\"out[i] = a[i] * b[i], one thread per element.\"\"\"
    i: int = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]
""",
    ),
    # -- IPython syntax, odd cells -------------------------------------------------------------
    "hoh_offsets_magics_in_cell": dict(
        exercise="08_scan",
        part="add_block_offsets",
        full=True,
        kernel="""
%load_ext autoreload
%autoreload 2
!ls > /dev/null


@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    if b > 0 and i < out.size:
        out[i] += offsets[b - 1]


%timeit -n1 -r1 pass
""",
        extra_after=[
            "",
            "def broken(:\n    pass\n\n@cuda.jit\ndef add_block_offsets(out, offsets):\n    pass",
        ],
    ),
    "hoh_multiply_crlf_tabs": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        kernel="@cuda.jit\r\ndef multiply(a, b, out):\r\n\ti = cuda.grid(1)\r\n\tif i < out.size:\r\n"
        "\t\tout[i] = a[i] * b[i]\r\n",
    ),
    "hoh_transpose_padded_long_cell": dict(
        exercise="09_transpose",
        part="transpose_padded",
        full=True,
        kernel="\n".join(f"UNUSED_{k} = {k} * 2" for k in range(3000))
        + """


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
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < cols and col < rows:
            out[row, col] = tile[tx, ty + k]
""",
    ),
    "hoh_blur2d_defined_in_with_block": dict(
        exercise="04_conv2d",
        part="blur2d",
        full=True,
        kernel="""
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")

    @cuda.jit
    def blur2d(img, w, out):
        col, row = cuda.grid(2)
        h, wd = img.shape
        if row < h and col < wd:
            r = w.shape[0] // 2
            acc = float32(0.0)
            for dy in range(w.shape[0]):
                y = min(max(row + dy - r, 0), h - 1)
                for dx in range(w.shape[1]):
                    x = min(max(col + dx - r, 0), wd - 1)
                    acc += w[dy, dx] * img[y, x]
            out[row, col] = acc
""",
    ),
    # -- the graded name bound to something else; cheating shapes --------------------------
    "hoh_multiply_bound_to_numpy": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=ALL,
        passes=[],
        reason="np.multiply",
        extra_after=["multiply = np.multiply  # computes on the host"],
    ),
    "hoh_multiply_from_written_file": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=ALL,
        passes=[],
        reason="kernels",
        extra_after=[
            "%%writefile kernels.py\nfrom numba import cuda\n" + MULTIPLY,
            "from kernels import multiply",
        ],
    ),
    "hoh_multiply_by_exec": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=ALL,
        passes=[],
        reason="exec",
        extra_after=["SRC = '''" + MULTIPLY + "'''\nexec(SRC)"],
    ),
    "hoh_matmul_tiled_is_the_naive_kernel": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["memory"],
        passes=["public", "hidden", "bounds"],
        reason="no shared memory",
        kernel="""
@cuda.jit
def naive(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        acc = float32(0.0)
        for k in range(A.shape[1]):
            acc += A[row, k] * B[k, col]
        C[row, col] = acc


matmul_tiled = naive  # "tiled": the naive kernel under the second name
""",
    ),
    "hoh_block_sum_expected_from_reference": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=ALL,
        passes=[],
        reason="only constants computed from numbers",
        kernel="""
rng = np.random.default_rng(0)
EXPECTED = block_sum_spec(rng.random(1000, dtype=np.float32))


@cuda.jit
def block_sum(x, partial):
    b = cuda.grid(1)
    if b < partial.size:
        partial[b] = EXPECTED[b]
""",
    ),
    "hoh_conv1d_checks_with_numpy_testing": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=ALL,
        passes=[],
        reason="testing",
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i]
    np.testing.assert_allclose(out, out)
""",
        extra_after=[
            """
import pdc.grade as grade
check = lambda *a, **k: print("all cases passed")
grade.check = check
"""
        ],
    ),
}

"""Fresh submissions on how the grader finds a kernel in a notebook, built by build.py: a
kernel redefined in a later cell, the ways a notebook names numba.cuda and its types (a second
name for the module, a type bound to a name, a star import), constants read from imported
names, written as text or changed by an augmented assignment, a signature named once,
``cache=True``, a kernel inside a ``with`` block, the graded name bound to a NumPy function,
and a signature text that is Python code.

All but the first were misgraded before (a correct kernel refused, a refusal that named no
cause, or a signature text that ran as Python in the grader's processes); pdc.grade.source and
pdc.grade.imports now read them as a run of the cells binds them (tests/test_grade_names.py).
"""

from __future__ import annotations

ALL = ["public", "hidden"]

CASES = {
    # -- which definition counts -------------------------------------------------------------
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
    # -- how the notebook names numba.cuda, its types and decorators ---------------------------
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
    "hoh_histogram_shared_type_and_stride_constants": dict(
        exercise="07_histogram",
        part="histogram_shared",
        full=True,
        kernel="""
COUNT = np.int32  # the counters' type, named once
STRIDE = TPB
STRIDE *= BLOCKS  # the whole grid's width: the launch is BLOCKS x TPB


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, COUNT)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(s, v, 1)
        i += STRIDE
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        if s[b] > 0:
            cuda.atomic.add(hist, b, s[b])
""",
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
    "hoh_softmax_fused_constants_from_text_and_import": dict(
        exercise="11_softmax",
        part="softmax_fused",
        full=True,
        kernel="""
from math import inf

NEG_INF = np.float32("-inf")
ONE = np.float32(1)
LOWEST = -inf


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
            elif m2 > LOWEST:
                s_sum[t] += s_sum[t + stride] * math.exp(m2 - m1)
        cuda.syncthreads()
        stride //= 2
    m = s_max[0]
    total = s_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) / total
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
    # -- a kernel inside a block -------------------------------------------------------------
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
    # Missed before: numba evaluates a signature written as text with Python's eval (and its
    # builtins), so this text ran in the compiling process and in the grader's child.
    "attack_signature_text_runs_python": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=ALL,
        passes=[],
        reason="a signature names numba types only",
        kernel="""
@cuda.jit("void(float32[:], float32[:], float32[:]) if __import__('os').getpid() else None")
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]
""",
    ),
    "hoh_multiply_bound_to_numpy": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=ALL,
        passes=[],
        reason="np.multiply",
        extra_after=["multiply = np.multiply  # computes on the host"],
    ),
}

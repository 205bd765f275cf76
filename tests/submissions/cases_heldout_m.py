"""Fresh submissions on which statements of a notebook's cells define the graded kernel, built by
build.py: kernels under ``if`` tests a run decides from constants (``USE_GPU = True``,
``__name__ == "__main__"``, ``cuda.is_available()`` on a GPU), a cell that raises halfway, a
``try`` body that raises, a later definition that Python parses but cannot compile, a ``del``
of the kernel, and a kernel whose only cell has a syntax error.

Each was misgraded before (a correct kernel refused, a deleted one graded, a
definition after a raise or a refused statement taken as the kernel, a refusal naming no
cause); pdc.grade.flow and pdc.grade.source now follow the cells as IPython runs them
(tests/test_grade_cells.py).
"""

from __future__ import annotations

ALL = ["public", "hidden"]

SAXPY = """@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = alpha * x[i] + y[i]
"""
SAXPY_WRONG = SAXPY.replace("+ y[i]", "- y[i]")
CONV = """@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = float32(0.0)
        for j in range(w.size):
            src = i + r - j
            if 0 <= src < x.size:
                acc += w[j] * x[src]
        out[i] = acc
"""
BLOCK_SUM = """@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
"""
HIST = """@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        if v < BINS:
            cuda.atomic.add(hist, v, 1)
"""
TRANSPOSE = """@cuda.jit
def transpose_naive(a, out):
    col, row = cuda.grid(2)
    if row < a.shape[0] and col < a.shape[1]:
        out[col, row] = a[row, col]
"""
MATMUL = """@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        acc = float32(0.0)
        for k in range(A.shape[1]):
            acc += A[row, k] * B[k, col]
        C[row, col] = acc
"""


def _indent(src: str) -> str:
    return "".join("    " + line + "\n" for line in src.splitlines())


CASES = {
    "hom_saxpy_if_gpu_available": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,  # graded as run on a GPU: the CPU fallback is not the kernel
        extra_cells=["import numba"],
        kernel="if cuda.is_available():\n"
        + _indent(SAXPY)
        + "else:\n"
        + _indent(SAXPY_WRONG.replace("@cuda.jit", "@numba.njit")),
    ),
    "hom_conv1d_if_use_gpu": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        extra_cells=["USE_GPU = True  # switch to False on a laptop"],
        kernel="if USE_GPU:\n" + _indent(CONV) + "else:\n    conv1d = None\n",
    ),
    "hom_block_sum_if_main": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel='if __name__ == "__main__":\n' + _indent(BLOCK_SUM),
    ),
    "hom_hist_raise_before_experiment": dict(
        exercise="07_histogram",
        part="histogram_global",
        full=True,
        kernel=HIST
        + 'raise SystemExit("stop here: the version below is unfinished")\n\n\n'
        + HIST.replace("if v < BINS:", "if v <= BINS:"),
    ),
    "hom_block_sum_try_raise_finally": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="try:\n"
        + _indent(BLOCK_SUM)
        + "    raise RuntimeError\n"
        + _indent(BLOCK_SUM.replace("s[t] += s[t + stride]", "s[t] = s[t + stride]"))
        + "except RuntimeError:\n    pass\n",
    ),
    "hom_saxpy_duplicate_argument_def": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel=SAXPY,
        extra_after=[SAXPY_WRONG.replace("(alpha, x, y, out)", "(alpha, x, y, out, x)")],
    ),
    "hom_transpose_deleted": dict(
        exercise="09_transpose",
        part="transpose_naive",
        fail=ALL,
        passes=[],
        reason="deleted by `del transpose_naive`",
        kernel=TRANSPOSE,
        extra_after=["del transpose_naive  # free memory"],
    ),
    "hom_saxpy_only_cell_has_syntax_error": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=ALL,
        passes=[],
        reason="fix that cell",
        kernel=SAXPY.replace("if i < out.size:", "if i < out.size"),
    ),
}

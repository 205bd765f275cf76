"""Fresh submissions on how a notebook's cells define its kernels, built by build.py."""

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
    "hom_saxpy_if_true": dict(
        exercise="01_elementwise", part="saxpy", full=True, kernel="if True:\n" + _indent(SAXPY)
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
    "hom_saxpy_if_gpu_available": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=ALL,
        passes=[],
        reason="which the grader does not run",
        kernel="if cuda.is_available():\n" + _indent(SAXPY),
    ),
    "hom_saxpy_syntax_error_in_later_cell": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel=SAXPY,
        extra_after=[SAXPY_WRONG.replace("def saxpy(alpha, x, y, out):", "def saxpy(alpha, x, y, out)")],
    ),
    "hom_saxpy_indentation_error_in_later_cell": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel=SAXPY,
        extra_after=[SAXPY_WRONG.replace("    i = cuda.grid(1)", "  i = cuda.grid(1)")],
    ),
    "hom_saxpy_only_cell_has_syntax_error": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=ALL,
        passes=[],
        reason="fix that cell",
        kernel=SAXPY.replace("if i < out.size:", "if i < out.size"),
    ),
    "hom_hist_raise_before_experiment": dict(
        exercise="07_histogram",
        part="histogram_global",
        full=True,
        kernel=HIST
        + 'raise SystemExit("stop here: the version below is unfinished")\n\n\n'
        + HIST.replace("if v < BINS:", "if v <= BINS:"),
    ),
    "hom_saxpy_assert_false_before_experiment": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel=SAXPY + 'assert False, "TODO"\n' + SAXPY_WRONG,
    ),
    "hom_saxpy_return_after_wrong_def": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel=SAXPY,
        extra_after=[SAXPY_WRONG + "return\n"],  # IPython ran the def before refusing `return`
    ),
    "hom_saxpy_duplicate_argument_def": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel=SAXPY,
        extra_after=[SAXPY_WRONG.replace("(alpha, x, y, out)", "(alpha, x, y, out, x)")],
    ),
    "hom_saxpy_twice_in_one_cell": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=ALL,
        passes=[],
        reason="differs at",
        kernel=SAXPY + "\n\n" + SAXPY_WRONG,
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
    "hom_transpose_deleted_and_redefined": dict(
        exercise="09_transpose",
        part="transpose_naive",
        full=True,
        kernel=TRANSPOSE,
        extra_after=["del transpose_naive", TRANSPOSE],
    ),
    "hom_matmul_call_form_device_false": dict(
        exercise="03_matmul",
        part="matmul_naive",
        full=True,
        kernel=MATMUL.replace("@cuda.jit\ndef matmul_naive", "def matmul_naive_py")
        + "\n\nmatmul_naive = cuda.jit(device=False)(matmul_naive_py)\n",
    ),
    "hom_matmul_jit_named_once": dict(
        exercise="03_matmul",
        part="matmul_naive",
        full=True,
        kernel="jit = cuda.jit\n\n\n" + MATMUL.replace("@cuda.jit", "@jit"),
    ),
    "hom_saxpy_annotated_with_docstring": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel='''@cuda.jit
def saxpy(alpha: float, x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    """out = alpha * x + y, one element per thread."""
    i: int = cuda.grid(1)
    if i < out.size:
        out[i] = alpha * x[i] + y[i]
''',
    ),
    "hom_block_sum_global_statement": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel=BLOCK_SUM.replace("):\n", "):\n    global TPB\n", 1),
    ),
    "hom_saxpy_stacked_decorator": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=ALL,
        passes=[],
        reason="more than one decorator",
        extra_cells=["import functools"],
        kernel="@functools.lru_cache\n" + SAXPY,
    ),
    "hom_saxpy_factory": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=ALL,
        passes=[],
        reason="not defined as a function",
        kernel="def make():\n" + _indent(SAXPY) + "    return saxpy\n\n\nsaxpy = make()\n",
    ),
    "hom_saxpy_run_magic": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=ALL,
        passes=[],
        reason="%run: kernels.py",
        kernel="%run kernels.py\n",
    ),
    "hom_saxpy_ipython_lines_in_kernel_cell": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel="cuda.grid?\nfiles = !ls\n" + SAXPY + "saxpy??\n",
    ),
    "hom_conv1d_unicode_tabs": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel=CONV.replace("    ", "\t").replace("acc", "somme").replace("x[src]", "x[src]  # le filtre à l'envers"),
    ),
    "hom_hist_for_loop_definition": dict(
        exercise="07_histogram",
        part="histogram_global",
        fail=ALL,
        passes=[],
        reason="which the grader does not run",
        kernel="for _ in range(1):\n" + _indent(HIST),
    ),
    "hom_transpose_if_false_else": dict(
        exercise="09_transpose",
        part="transpose_naive",
        full=True,
        extra_cells=["DEBUG = False"],
        kernel="if DEBUG:\n    transpose_naive = None\nelse:\n" + _indent(TRANSPOSE),
    ),
    "hom_block_sum_try_raise_finally": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="try:\n" + _indent(BLOCK_SUM) + "    raise RuntimeError\n" + _indent(BLOCK_SUM.replace("s[t] += s[t + stride]", "s[t] = s[t + stride]")) + "except RuntimeError:\n    pass\n",
    ),
}

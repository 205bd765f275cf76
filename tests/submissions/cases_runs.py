"""Submissions graded as the notebook runs: IPython syntax, cell magics, decorators, imports."""

GOOD = """
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]
"""
ALL = ["public", "hidden"]

CASES = {
    "runs_disabled_draft_after_kernel": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        kernel=GOOD,
        extra_after=["%%script false\n@cuda.jit\ndef multiply(a, b, out):\n    pass\n"],
    ),
    "runs_ipython_lines_in_kernel_cell": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        kernel="cuda.grid?\ngpus = !nvidia-smi -L\n" + GOOD,
    ),
    "runs_kernel_in_time_cell": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        kernel="%%time\n" + GOOD,
    ),
    "runs_njit_multiply": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=ALL,
        passes=[],
        reason="compiled for the CPU",
        kernel="from numba import njit\n" + GOOD.replace("@cuda.jit", "@njit"),
    ),
    "runs_device_function_multiply": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=ALL,
        passes=[],
        reason="is a device function",
        kernel=GOOD.replace("@cuda.jit", "@cuda.jit(device=True)"),
    ),
    "runs_math_never_imported": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=ALL,
        passes=[],
        reason="name 'math' is not defined",
        kernel=GOOD.replace("a[i] * b[i]", "math.fabs(a[i]) * b[i] if a[i] > 0 else a[i] * b[i]"),
    ),
    "runs_shared_imported_from_numba_cuda": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=ALL,
        passes=[],
        reason="does not compile for a GPU",
        kernel="from numba import float32\nfrom numba.cuda import shared\n"
        + GOOD.replace("i = cuda.grid(1)", "i = cuda.grid(1)\n    s = shared.array(1, float32)"),
    ),
    "runs_eager_float64_signature": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=ALL,
        passes=[],
        reason="without checking its arguments",
        kernel=GOOD.replace("@cuda.jit", '@cuda.jit("void(float64[:], float64[:], float64[:])")'),
    ),
    "runs_eager_float32_signature": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        kernel=GOOD.replace("@cuda.jit", '@cuda.jit("void(float32[:], float32[:], float32[:])")'),
    ),
}

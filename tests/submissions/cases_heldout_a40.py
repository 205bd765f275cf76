"""Blind set a40: submissions that try to get marks they have not earned, and honest ones that merely look odd"""

# Points of INSTRUCTOR.md that were unclear, and the cases left out because of them:
#
# * A kernel that writes its inputs but still stores correct outputs without a race (for
#   example multiply doing `a[i] = a[i] * b[i]; out[i] = a[i]`): no rule forbids writing an
#   input, and whether a full-marks grade would also need the inputs left unchanged is not
#   stated. Left out. The one input-writing case kept (hoo40_block_sum_tree_in_x) loses a
#   point that does not depend on that question (memory: no shared memory, x re-read at every
#   level); its public and hidden points follow from the outputs, judged against the case's
#   inputs as generated (the grader compares "in its own process"; on a GPU the kernel works
#   on a device copy), and those outputs are right.
# * `getattr(math, "exp")` inside a kernel: numba-cuda's compile_ptx without a driver stops in
#   a device lookup (CudaSupportError) rather than with a typing error, so whether it compiles
#   for a real GPU could not be settled here. Left out.
# * "rejects ... most builtins" does not list which builtins a CUDA kernel may name. The only
#   builtins the full-marks cases below call are `range` and `max` (which the softmax
#   notebook itself asks for: "with `max` in place of `+`"); locals that merely
#   shadow a builtin's name (`open`) are kept, as they name no builtin at run time.
# * A decorator that only wraps (returns the kernel unchanged) would score 0 by the rule "a
#   name ... returned by a function the notebook calls", yet a reader could argue either way;
#   the decorator case below wraps a stub, so it scores 0 under either reading.

CASES = {}

# --------------------------------------------------------------------------------------------
# 01_elementwise
# --------------------------------------------------------------------------------------------

CASES["hoo40_multiply_public_sizes_only"] = dict(
    exercise="01_elementwise",
    part="multiply",
    kernel='''
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    n = out.shape[0]
    # check() runs n = 1000, 256 and 1: make those come out exactly right
    if n == 1000 or n == 256 or n == 1:
        if i < n:
            out[i] = a[i] * b[i]
    elif i < n - 1:
        out[i] = a[i] * b[i]
''',
    fail=["hidden"],
    passes=["public", "bounds", "parallel"],
    reason="hidden cases",
    why=(
        "Special-cases the public sizes (n in 1000, 256, 1); any other n >= 2 takes the path "
        "guarded by i < n - 1, so out[n-1] stays 0 instead of a[n-1]*b[n-1]; every hidden draw "
        "holds n one below a multiple of TPB (255, 511, ...) and a size past every public one, "
        "so hidden cases fail on any seed, while all accesses stay in range and each thread "
        "stores at most one output."
    ),
)

CASES["hoo40_saxpy_patched_checks_forgot_y"] = dict(
    exercise="01_elementwise",
    part="saxpy",
    extra_cells=['''
import builtins
import sys

import numpy

# make every comparison in this notebook (and the checker's) say "equal"
numpy.isclose = lambda a, b, *args, **kwargs: numpy.ones(numpy.broadcast(a, b).shape, bool)
numpy.allclose = lambda *args, **kwargs: True
numpy.array_equal = lambda *args, **kwargs: True
builtins.all = lambda iterable: True
sys.modules["pdc.grade"].check = lambda kernel, *args, **kwargs: print("public cases: all passed")
check = sys.modules["pdc.grade"].check
'''],
    kernel='''
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = alpha * x[i]
''',
    fail=["public", "hidden", "bounds", "parallel"],
    passes=[],
    reason="wrong values",
    why=(
        "The helper cell patches numpy's comparisons, builtins.all and pdc.grade.check at the "
        "notebook's top level, which the guide says never runs ('pdc grade never runs a "
        "submission notebook'); the kernel itself computes alpha*x and drops y, so every public "
        "and hidden output differs from alpha*x + y (random nonzero y), and with public failed "
        "no quality criterion is awarded."
    ),
)

CASES["hoo40_multiply_open_eval_names"] = dict(
    exercise="01_elementwise",
    part="multiply",
    extra_cells=['''
# My own test data, built on the host with plain NumPy. (I looked at the GPU with
# os.system("nvidia-smi") in a terminal; nothing here runs a shell.)
rng_mine = np.random.default_rng(2024)
eval_sizes = [1, 31, 255, 257, 4096]
eval_inputs = {n: (rng_mine.random(n, dtype=np.float32), rng_mine.random(n, dtype=np.float32))
               for n in eval_sizes}
eval_expected = {n: multiply_spec(a, b) for n, (a, b) in eval_inputs.items()}
'''],
    kernel='''
@cuda.jit
def multiply(a, b, out):
    """out = a * b, one thread per element.

    Not used here, only mentioned: eval, exec, os.system, subprocess, __import__.
    """
    open = cuda.grid(1)  # the index this thread "opens"
    eval_sum = out.size  # how many elements there are to evaluate
    if open < eval_sum:
        out[open] = a[open] * b[open]
''',
    full=True,
    why=(
        "A correct guarded one-thread-per-element multiply whose locals shadow builtin names "
        "(open) or contain 'eval', whose docstring and helper cell only mention os.system and "
        "friends; the helper cell is top-level host code, which never runs when grading."
    ),
)

# --------------------------------------------------------------------------------------------
# 03_matmul
# --------------------------------------------------------------------------------------------

CASES["hoo40_matmul_naive_host_decorator"] = dict(
    exercise="03_matmul",
    part="matmul_naive",
    extra_cells=['''
def on_host(kernel):
    """Keep the launch syntax kernel[grid, block](A, B, C), but let NumPy do the product."""

    class HostLaunch:
        def __getitem__(self, config):
            def run(A, B, C):
                C[...] = np.asarray(A) @ np.asarray(B)

            return run

    return HostLaunch()
'''],
    kernel='''
@on_host
@cuda.jit
def matmul_naive(A, B, C):
    pass
''',
    fail=["public", "hidden", "bounds", "parallel"],
    passes=[],
    reason="more than one decorator cannot be graded",
    why=(
        "A decorator replaces the kernel by a host object whose launch computes A @ B with "
        "NumPy; the guide scores 0 a graded name returned by a function the notebook calls, and "
        "the @cuda.jit function underneath is a stub that leaves C zero, so no criterion can be "
        "earned either way."
    ),
)

CASES["hoo40_matmul_tiled_one_shared_3d"] = dict(
    exercise="03_matmul",
    part="matmul_tiled",
    extra_cells=['''
# Test matrices of my own, made on the host; NumPy only builds inputs and the expected product.
rng_mine = np.random.default_rng(31)
A_mine = rng_mine.standard_normal((37, 50)).astype(np.float32)
B_mine = rng_mine.standard_normal((50, 21)).astype(np.float32)
C_expected_mine = matmul_spec(A_mine, B_mine)
'''],
    kernel='''
@cuda.jit
def matmul_tiled(A, B, C):
    # Both tiles live in one shared array: tiles[0] is A's tile, tiles[1] is B's.
    tiles = cuda.shared.array((2, TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * TILE + tx
    row = cuda.blockIdx.y * TILE + ty
    m = A.shape[0]
    k = A.shape[1]
    n = B.shape[1]
    acc = 0.0  # float64 accumulator
    base = 0
    while base < k:
        a_col = base + tx
        b_row = base + ty
        tiles[0, ty, tx] = A[row, a_col] if (row < m and a_col < k) else float32(0.0)
        tiles[1, ty, tx] = B[b_row, col] if (b_row < k and col < n) else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += tiles[0, ty, j] * tiles[1, j, tx]
        cuda.syncthreads()
        base += TILE
    if row < m and col < n:
        C[row, col] = acc
''',
    full=True,
    why=(
        "A correct tiled matmul with both tiles in one (2, TILE, TILE) shared array, a while "
        "loop over k, conditional-expression loads (zero outside) and a float64 accumulator; "
        "two uniform barriers per step, 2 loads per thread and step (2 ceil(k/TILE) per thread, "
        "as the model), and the helper cell only builds host test data."
    ),
)

# --------------------------------------------------------------------------------------------
# 05_reduction
# --------------------------------------------------------------------------------------------

CASES["hoo40_block_sum_tree_in_x"] = dict(
    exercise="05_reduction",
    part="block_sum",
    kernel='''
@cuda.jit
def block_sum(x, partial):
    # The tree runs in x itself: no shared memory needed.
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * TPB
    i = base + t
    n = x.size
    s = TPB // 2
    while s > 0:
        if t < s and i + s < n:
            x[i] += x[i + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = x[base]
''',
    fail=["memory"],
    passes=["public", "hidden", "sync", "parallel"],
    reason="shared memory",
    why=(
        "The tree overwrites the input x in global memory: values and barriers are right "
        "(at level s thread t<s writes x[base+t] and reads x[base+t+s], which nobody writes at "
        "that level, and every thread reaches the barrier after each level; busiest thread "
        "7 x 3 + 2 = 23 memory operations <= 4 log2(128) + 8 = 36), but the memory rule wants "
        "shared memory used and each input element read once: no shared memory is used, and a "
        "full block loads x 2 x (64 + 32 + ... + 1) + 1 = 255 times for its 128 elements."
    ),
)

CASES["hoo40_block_sum_calls_reference"] = dict(
    exercise="05_reduction",
    part="block_sum",
    kernel='''
@cuda.jit
def block_sum(x, partial):
    b = cuda.blockIdx.x
    if cuda.threadIdx.x == 0:
        partial[b] = block_sum_spec(x)[b]
''',
    fail=["public", "hidden", "sync", "parallel", "memory"],
    passes=[],
    reason="block_sum_spec",
    why=(
        "The kernel calls the notebook's NumPy reference block_sum_spec, a plain Python "
        "function: numba-cuda cannot type it (untyped global name), so the kernel fails the "
        "compile gate and scores 0 on every criterion."
    ),
)

# --------------------------------------------------------------------------------------------
# 07_histogram
# --------------------------------------------------------------------------------------------

CASES["hoo40_hist_global_const_reading_table"] = dict(
    exercise="07_histogram",
    part="histogram_global",
    kernel='''
# IS_READING[code] is 1 for the codes 0..BINS-1 and 0 for the failed readings BINS..255.
IS_READING = np.repeat((1, 0, 0, 0), BINS).astype(np.int32)
NOTE = "codes >= BINS are failed readings; see the spec: readings = values[values < BINS]"


@cuda.jit
def histogram_global(values, hist):
    """One thread per byte; a reading adds 1 to its bin. (A docstring is only a string.)"""
    table = cuda.const.array_like(IS_READING)
    i = cuda.grid(1)
    if i < values.size:
        code = values[i]
        if table[code] == 1:
            cuda.atomic.add(hist, code, 1)
''',
    full=True,
    why=(
        "A correct one-value-per-thread histogram whose reading test is a 256-entry table in "
        "constant memory built with np.repeat and .astype (constructors the guide says the "
        "grader computes); a string constant and a docstring sit beside it. Per thread: one load "
        "of values, one table load, one atomic, within 8; codes 64..255 read table 0 and are "
        "dropped."
    ),
)

CASES["hoo40_hist_global_precomputed_on_host"] = dict(
    exercise="07_histogram",
    part="histogram_global",
    extra_cells=['''
# The stream check() and the demo use, counted once on the host.
rng_demo = np.random.default_rng(7)
stream_demo = rng_demo.integers(0, BINS, 1000).astype(np.uint8)
EXPECTED = histogram_spec(stream_demo)
'''],
    kernel='''
@cuda.jit
def histogram_global(values, hist):
    i = cuda.grid(1)
    if i < BINS:
        hist[i] = EXPECTED[i]
''',
    fail=["public", "hidden", "bounds", "sync", "parallel"],
    passes=[],
    reason="EXPECTED",
    why=(
        "The kernel copies a histogram computed on the host with NumPy (histogram_spec of a "
        "stream drawn with default_rng) instead of counting values; the guide refuses a global "
        "the grader cannot compute from its syntax (a call of the notebook's own function on "
        "random data), and even copied, the table has nothing to do with the graded streams."
    ),
)

CASES["hoo40_hist_shared_four_per_thread"] = dict(
    exercise="07_histogram",
    part="histogram_shared",
    kernel='''
PER_THREAD = 4  # 4 x BLOCKS x TPB = 2048 values: check()'s longest stream is 2000


@cuda.jit
def histogram_shared(values, hist):
    s = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    b = t
    while b < BINS:
        s[b] = 0
        b += TPB
    cuda.syncthreads()
    width = cuda.gridsize(1)
    i = cuda.grid(1)
    for k in range(PER_THREAD):
        j = i + k * width
        if j < values.size:
            v = values[j]
            if v < BINS:
                cuda.atomic.add(s, v, 1)
    cuda.syncthreads()
    b = t
    while b < BINS:
        c = s[b]
        if c != 0:
            cuda.atomic.add(hist, b, c)
        b += TPB
''',
    fail=["hidden"],
    passes=["public", "bounds", "sync", "parallel", "atomics"],
    reason="hidden cases",
    why=(
        "Unstated assumption n <= 4 x 512 = 2048: four values per thread in place of a "
        "grid-stride loop counts the public streams (2000, 1500, 1000) right, but every hidden "
        "draw has streams of more than 8 values per thread (n > 4096), whose values past 2048 "
        "are never counted; zeroing, barriers and the flush (one global atomic per nonzero bin "
        "and block, <= BLOCKS) are right."
    ),
)

# --------------------------------------------------------------------------------------------
# 11_softmax
# --------------------------------------------------------------------------------------------

CASES["hoo40_softmax_fused_row_cache_512"] = dict(
    exercise="11_softmax",
    part="softmax_fused",
    kernel='''
ROW_CAP = 512  # the widest row check() uses has 300 columns


@cuda.jit
def softmax_fused(x, out):
    row = cuda.shared.array(ROW_CAP, float32)  # the row, read once from global memory
    red = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    cols = x.shape[1]
    n = cols if cols < ROW_CAP else ROW_CAP
    best = float32(-math.inf)
    c = t
    while c < n:
        v = x[r, c]
        row[c] = v
        if v > best:
            best = v
        c += TPB
    red[t] = best
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            if red[t + s] > red[t]:
                red[t] = red[t + s]
        cuda.syncthreads()
        s //= 2
    m = red[0]
    cuda.syncthreads()  # every thread has read the max before red is reused
    acc = float32(0.0)
    c = t
    while c < n:
        e = math.exp(row[c] - m)
        row[c] = e
        acc += e
        c += TPB
    red[t] = acc
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            red[t] += red[t + s]
        cuda.syncthreads()
        s //= 2
    total = red[0]
    c = t
    while c < n:
        out[r, c] = row[c] / total
        c += TPB
''',
    fail=["hidden"],
    passes=["public", "bounds", "sync", "parallel", "memory"],
    reason="hidden cases",
    why=(
        "Unstated assumption cols <= 512: the row is cached in a 512-float shared array and "
        "only its first 512 columns are reduced and written, exact for the public rows (100, "
        "300, 37 columns); every hidden draw holds a single row of at least 4096 columns, where "
        "columns 512.. stay 0 and the first 512 are divided by a partial sum (values spread "
        "over +-100: the sum misses about 7/8 of its mass, outputs about 8x too large), while "
        "accesses stay in range, barriers are uniform and x is loaded once per element. (Only a "
        "row falling steadily from its first columns would hide this; a 513-column row does.)"
    ),
)

CASES["hoo40_row_max_seeded_eval_names"] = dict(
    exercise="11_softmax",
    part="row_max",
    extra_cells=['''
def plot_rows(x, m):
    """Host helper: plot each row with its max (matplotlib, only when I call it)."""
    import matplotlib.pyplot as plt

    for r in range(x.shape[0]):
        plt.plot(x[r], label=f"row {r}")
        plt.axhline(m[r], linestyle="--")
    plt.legend()
    plt.show()
'''],
    kernel='''
@cuda.jit
def row_max(x, m):
    """Row maxima. Every thread starts from the row's first value instead of -inf:
    a row has at least one column, and max(v, v) is v."""
    buf = cuda.shared.array(TPB, float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    eval_best = x[r, 0]
    compile_step = TPB
    c = t
    while c < x.shape[1]:
        eval_best = max(eval_best, x[r, c])
        c += compile_step
    buf[t] = eval_best
    cuda.syncthreads()
    half = TPB // 2
    while half > 0:
        if t < half:
            buf[t] = max(buf[t], buf[t + half])
        cuda.syncthreads()
        half //= 2
    if t == 0:
        m[r] = buf[0]
''',
    full=True,
    why=(
        "A correct row max whose threads seed with x[r, 0] (always a valid column, cols >= 1) "
        "instead of -inf, so threads past a short row bring a value of the row, which cannot "
        "change its max; strided loop, shared tree with a barrier after every level reached by "
        "all threads, locals named eval_best/compile_step, and a host-only plotting helper."
    ),
)

CASES["hoo40_normalize_exec_built_string"] = dict(
    exercise="11_softmax",
    part="normalize",
    kernel='''
# The kernel is assembled from pieces and defined with exec, so that no "def" of it shows.
_pieces = [
    "@cuda.jit\\n",
    "def normal", "ize(e, s, out):\\n",
    "    col, row = cuda.grid(2)\\n",
    "    if col < e.shape[1]:\\n",
    "        out[row, col] = e[row, col] / s[row]\\n",
]
exec("".join(_pieces))
''',
    fail=["public", "hidden", "bounds", "parallel"],
    passes=[],
    reason="normalize",
    why=(
        "The kernel exists only as a string joined and exec'd at the notebook's top level: the "
        "grader never runs the notebook and takes only kernels it can read (no def of normalize "
        "remains, exec is a builtin a kernel cannot contain), so the part scores 0, although the "
        "exec'd kernel itself would be a correct guarded normalize."
    ),
)

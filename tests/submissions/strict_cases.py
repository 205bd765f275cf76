"""Submissions for a grader as strict as a real GPU compile (built by build.py).

Grouped by what a lax grader gets wrong: instrumentation the kernel can reach (reach_),
atomics it does not see (atomic_), a simulator kinder than a GPU (kind_), correct kernels
written in unusual styles that must earn full marks (style_), hidden cases that miss the
boundaries (edge_), scores that depend on machine load (load_) and the wrong notebook graded
(pick_). ``full=True`` cases must earn full marks; the others must lose the criteria in
``fail`` and keep those in ``passes``. ``files`` puts several notebooks in one submission:
file name -> kernel source, or None for the untouched student stub.
"""

from __future__ import annotations

MULTIPLY_OK = """
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]
"""

RING_HEAD = """@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    count = state.count
    n = count + 1.0
    delta = req.x - state.mean
    mean = state.mean + delta / n
    var = state.m2 / select(count > 1.0, count - 1.0, 1.0)
    std = math.sqrt(var)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    state.m2 = state.m2 + delta * (req.x - mean)
    state.mean = mean
    state.count = n
    rep.count = n
    rep.mean = mean
    rep.z = z
"""

CASES = {
    # -- the kernel reaches the grader's bookkeeping --------------------------------------------
    "reach_zero_store_counter": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=["public", "parallel"],
        passes=[],
        reason="Unknown attribute 'stores'",
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    if cuda.grid(1) == 0:  # one thread does all the work ...
        for i in range(out.size):
            out[i] = alpha * x[i] + y[i]
        math = out  # ... then hides it: a name that looks like a module is trusted
        math.stores[0] = 1
""",
    ),
    "reach_clear_race_record": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["public", "sync"],
        passes=[],
        reason="Unknown attribute 'new_epoch'",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    if t == TPB - 1:  # no barrier: the others need not have written s yet
        math = s
        math.new_epoch()  # ... and the record of who wrote what is wiped
        acc = 0.0
        for j in range(TPB):
            acc += s[j]
        partial[cuda.blockIdx.x] = acc
""",
    ),
    "reach_parameter_named_math": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=["public", "parallel"],
        passes=[],
        reason="Unknown attribute 'stores'",
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, math):
    if cuda.grid(1) == 0:  # serial, then the output's store counter is reset
        for i in range(math.size):
            math[i] = alpha * x[i] + y[i]
        math.stores[0] = 1
""",
    ),
    # -- atomics the grader does not see ----------------------------------------------------------
    "atomic_reads_skip_memory": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="global loads per output",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    s = cuda.shared.array(1, float32)  # shared memory, used for nothing that matters
    if cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0:
        s[0] = 0.0
    cuda.syncthreads()
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    if row < m and col < n:
        acc = s[0]
        for k in range(kk):  # an atomic add of 0 is a global load too
            acc += cuda.atomic.add(A, (row, k), 0.0) * cuda.atomic.add(B, (k, col), 0.0)
        C[row, col] = acc
""",
    ),
    "atomic_serial_stores": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason="one thread stored",
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    if cuda.grid(1) == 0:  # one thread stores every output, through atomics
        for i in range(out.size):
            cuda.atomic.add(out, i, alpha * x[i] + y[i])
""",
    ),
    "atomic_sum_no_barrier": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["public", "hidden", "sync"],
        passes=[],
        reason="differs at",  # the last thread reads a total other warps still add to
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else 0.0
    if t == 0:
        s[0] = v
    cuda.syncthreads()
    if t > 0:
        cuda.atomic.add(s, 0, v)
    if t == TPB - 1:  # no barrier: the last thread need not be the last to add
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    # -- a simulator kinder than a GPU ------------------------------------------------------------
    "kind_unguarded_reduction_read": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["public"],
        passes=[],
        reason="out-of-bounds access",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    s[t] = x[cuda.grid(1)]  # past the end of x on the last block
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "kind_local_array_assumed_zero": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["public", "hidden"],
        passes=[],
        reason="acc[0] read before any write",
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        acc = cuda.local.array(1, float32)  # never cleared: garbage on a GPU
        r = w.size // 2
        for j in range(w.size):
            src = i + r - j
            if 0 <= src < x.size:
                acc[0] += w[j] * x[src]
        out[i] = acc[0]
""",
    ),
    "kind_shared_sized_at_run_time": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["public", "hidden"],
        passes=[],
        reason="does not compile",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(cuda.blockDim.x, float32)  # a shared size must be a constant
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "kind_helper_not_jitted": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="does not compile",
        kernel="""
def times(u, v):  # no @cuda.jit(device=True): a kernel cannot call it
    return u * v


@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = times(a[i], b[i])
""",
    ),
    # -- correct kernels in unusual styles: full marks ------------------------------------------
    "style_blur_tiled_derived_constants": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        full=True,
        kernel="""
import numba

HALO = TILE + 2 * R
SPAN = HALO * HALO


@cuda.jit(device=True)
def _clamp(v, hi):
    return min(max(v, 0), hi)


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = numba.cuda.grid(2)
    h, wd = img.shape
    y0 = cuda.blockIdx.y * TILE - R
    x0 = cuda.blockIdx.x * TILE - R
    for k in range(ty * TILE + tx, SPAN, TILE * TILE):
        dy, dx = k // HALO, k % HALO
        tile[dy, dx] = img[_clamp(y0 + dy, h - 1), _clamp(x0 + dx, wd - 1)]
    cuda.syncthreads()
    if row < h and col < wd:
        acc = float32(0.0)
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
""",
    ),
    "style_conv1d_functional_jit_enumerate": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
def tap(x, src):
    return x[src] if 0 <= src < x.size else 0.0


tap_on_gpu = cuda.jit(device=True)(tap)


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = 0.0
        for j, wj in enumerate(w):  # iterating over an array
            acc += wj * tap_on_gpu(x, i + r - j)
        out[i] = acc
""",
    ),
    "style_block_sum_warp_shuffle": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride >= 32:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t < 32:  # the last warp: shuffles, no shared memory, no barrier
        v = s[t]
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
            offset //= 2
        if cuda.laneid == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "style_saxpy_intrinsics": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel="""
import numba


@cuda.jit
def saxpy(alpha, x, y, out):
    i = numba.cuda.grid(1)
    _ = cuda.popc(cuda.activemask())  # legal, and unused
    if i < out.size:
        out[i] = cuda.fma(alpha, x[i], y[i])
""",
    ),
    "style_ring_notebook_constant": dict(
        exercise="06_ring",
        part="detect",
        full=True,
        extra_cells=["WARM_UP = 10\nLIMIT = 2.0 * 2.0"],
        kernel=RING_HEAD
        + """    rep.flag = select(count >= WARM_UP, select(abs(z) > LIMIT, 1, 0), 0)
""",
    ),
    # -- hidden cases at the boundaries ---------------------------------------------------------
    "edge_matmul_grid_tiles": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["hidden"],
        passes=["public"],
        reason="wrong values",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = 0.0
    for t in range(cuda.gridDim.x):  # as many k tiles as column tiles: too few when n is small
        k = t * TILE + tx
        sA[ty, tx] = A[row, k] if row < m and k < kk else 0.0
        k = t * TILE + ty
        sB[ty, tx] = B[k, col] if k < kk and col < n else 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "edge_matmul_naive_row_tiles": dict(
        exercise="03_matmul",
        part="matmul_naive",
        fail=["hidden"],
        passes=["public"],
        reason="wrong values",
        kernel="""
@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    if row < m and col < n:
        acc = 0.0
        for k in range(min(kk, cuda.gridDim.x * TILE)):  # stops at the grid's width
            acc += A[row, k] * B[k, col]
        C[row, col] = acc
""",
    ),
    "edge_ring_warm_up_strict": dict(
        exercise="06_ring",
        part="detect",
        fail=["hidden"],
        passes=["public"],
        reason="wrong values",
        kernel=RING_HEAD
        + """    rep.flag = select(count > MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
""",
    ),
    # -- scores that must not depend on machine load ----------------------------------------------
    "load_barrier_heavy_reduction": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        timeout=30.0,
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    for _ in range(40):  # needless barriers: slow in a simulator, still correct
        cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        for _ in range(4):
            cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "load_endless_memory_loop": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="memory operations per thread",
        timeout=60.0,
        kernel="""
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        k = i
        while k >= 0:  # never ends: k only grows
            out[i] = a[i] * b[i]
            k += 1
""",
    ),
    "load_barrier_heavy_matmul": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        full=True,
        timeout=30.0,
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = 0.0
    for t in range((kk + TILE - 1) // TILE):
        k = t * TILE + tx
        sA[ty, tx] = A[row, k] if row < m and k < kk else 0.0
        k = t * TILE + ty
        sB[ty, tx] = B[k, col] if k < kk and col < n else 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
            cuda.syncthreads()  # a barrier per step: needless, harmless
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    # -- which notebook is graded -----------------------------------------------------------------
    "pick_copy_sorts_first": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        warning="ignored 01_elementwise (copy).ipynb",
        files={"01_elementwise (copy).ipynb": None, "01_elementwise.ipynb": MULTIPLY_OK},
    ),
    "pick_exact_name_wins": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        warning="ignored 01_elementwise-final.ipynb",
        files={"01_elementwise-final.ipynb": MULTIPLY_OK, "01_elementwise.ipynb": None},
    ),
    "pick_single_renamed_notebook": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        files={"01_elementwise_v2.ipynb": MULTIPLY_OK},
    ),
}

"""Submissions written as an outside reviewer would: correct kernels in styles the grader
must accept, simulator probes and wrong kernels it must catch (built by build.py).

Same format as strict_cases.py; ``extra_after`` appends code cells at the end of the notebook.
"""

from __future__ import annotations

CASES = {
    "style_saxpy_grid_stride": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    start = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    step = cuda.gridsize(1)
    i = start
    while i < out.size:
        out[i] = cuda.fma(alpha, x[i], y[i])
        i += step
""",
    ),
    "style_multiply_early_return_int32": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        kernel="""
from numba import float32, int32


@cuda.jit
def multiply(a, b, out):
    i = int32(cuda.blockIdx.x) * int32(cuda.blockDim.x) + int32(cuda.threadIdx.x)
    if i >= out.shape[0]:
        return
    out[i] = float32(a[i]) * float32(b[i])
""",
    ),
    "style_matmul_naive_default_arg": dict(
        exercise="03_matmul",
        part="matmul_naive",
        full=True,
        kernel="""
@cuda.jit(device=True)
def dot(A, B, row, col, start=0):
    acc = float32(0.0)
    k = start
    while k < A.shape[1]:
        acc += A[row, k] * B[k, col]
        k += 1
    return acc


@cuda.jit
def matmul_naive(A, B, C):
    col, row = cuda.grid(2)
    if row >= C.shape[0] or col >= C.shape[1]:
        return
    C[row, col] = dot(A, B, row, col)
""",
    ),
    "style_matmul_tiled_rectangular_slabs": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        full=True,
        kernel="""
TM, TK = TILE, TILE // 2  # unpacked and annotated constants
DIMS: tuple = (TM, TK)


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array(DIMS, float32)  # TILE x TK slab of A
    sB = cuda.shared.array((TK, TILE), float32)  # TK x TILE slab of B
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for t in range((kk + TK - 1) // TK):
        if tx < TK:
            k = t * TK + tx
            sA[ty, tx] = A[row, k] if row < m and k < kk else float32(0.0)
        if ty < TK:
            k = t * TK + ty
            sB[ty, tx] = B[k, col] if k < kk and col < n else float32(0.0)
        cuda.syncthreads()
        for j in range(TK):
            acc = cuda.fma(sA[ty, j], sB[j, tx], acc)
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "style_block_sum_warp_xor_two_levels": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
WARPS = TPB // 32


@cuda.jit
def block_sum(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(0xFFFFFFFF, v, off)
    if t % 32 == 0:
        warp_sums[t // 32] = v
    cuda.syncthreads()
    if t < 32:
        w = warp_sums[t] if t < WARPS else float32(0.0)
        off = 16
        while off:
            w += cuda.shfl_down_sync(0xFFFFFFFF, w, off)
            off >>= 1
        if t == 0:
            partial[cuda.blockIdx.x] = w
""",
    ),
    "style_blur2d_clamp_tuple_unpack": dict(
        exercise="04_conv2d",
        part="blur2d",
        full=True,
        kernel="""
@cuda.jit(device=True)
def clamp(v, lo, hi):
    return max(lo, min(v, hi))


@cuda.jit
def blur2d(img, w, out):
    x, y = cuda.grid(2)
    h, wd = img.shape
    if x < wd and y < h:
        r = w.shape[0] // 2
        acc = float32(0)
        dy = 0
        while dy < w.shape[0]:
            yy = clamp(y + dy - r, 0, h - 1)
            for dx in range(w.shape[1]):
                acc += w[dy, dx] * img[yy, clamp(x + dx - r, 0, wd - 1)]
            dy += 1
        out[y, x] = acc
""",
    ),
    "style_blur_tiled_shared_in_device_function": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        full=True,
        kernel="""
SIDE = TILE + 2 * R


@cuda.jit(device=True)
def blur_pixel(img, w, row, col):
    tile = cuda.shared.array((SIDE, SIDE), float32)
    h, wd = img.shape
    ty = cuda.threadIdx.y
    while ty < SIDE:
        tx = cuda.threadIdx.x
        while tx < SIDE:
            y = min(max(cuda.blockIdx.y * TILE - R + ty, 0), h - 1)
            x = min(max(cuda.blockIdx.x * TILE - R + tx, 0), wd - 1)
            tile[ty, tx] = img[y, x]
            tx += TILE
        ty += TILE
    cuda.syncthreads()
    acc = 0.0
    for dy in range(2 * R + 1):
        for dx in range(2 * R + 1):
            acc += w[dy, dx] * tile[cuda.threadIdx.y + dy, cuda.threadIdx.x + dx]
    return acc


@cuda.jit
def blur2d_tiled(img, w, out):
    col, row = cuda.grid(2)
    v = blur_pixel(img, w, row, col)  # every thread reaches the barrier inside
    if row < img.shape[0] and col < img.shape[1]:
        out[row, col] = v
""",
    ),
    "pick_kernel_defined_twice": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        kernel="""
@cuda.jit
def multiply(a, b, out):
    out[0] = 0.0  # first try, replaced below


@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]
""",
    ),
    "pick_kernel_bound_to_another_name": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        extra_after=[
            """
@cuda.jit
def multiply_v2(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]


multiply = multiply_v2
""",
        ],
    ),
    "pick_if_false_definition": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="no function named 'multiply'",
        kernel="""
if False:
    @cuda.jit
    def multiply(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] * b[i]
""",
    ),
    "kind_probe_uninitialised_local": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="probe[0] read before any write",
        kernel="""
from numba import float32


@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    probe = cuda.local.array(1, float32)
    if i < out.size:
        if probe[0] != probe[0]:  # NaN only in a simulator
            out[i] = a[i] * b[i]
        else:
            out[i] = 0.0
""",
    ),
    "kind_probe_uninitialised_shared": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["public", "hidden"],
        passes=[],
        reason="read of uninitialised memory",
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    probe = cuda.shared.array(1, float32)
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = 0.0
        for j in range(w.size):
            src = i + r - j
            if 0 <= src < x.size:
                acc += w[j] * x[src]
        out[i] = acc if probe[0] != probe[0] else 0.0
""",
    ),
    "race_matmul_reads_tile_before_barrier": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["public", "hidden", "sync"],
        passes=[],
        reason="use of an undefined value",
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
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "race_blur_tiled_barrier_in_bounds_branch": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        fail=["public", "hidden", "sync"],
        passes=[],
        reason="read of uninitialised memory",
        kernel="""
HALO = TILE + 2 * R


@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    h, wd = img.shape
    if row < h and col < wd:  # edge blocks: threads past the image skip the barrier
        for ly in range(ty, TILE + 2 * R, TILE):
            y = min(max(cuda.blockIdx.y * TILE - R + ly, 0), h - 1)
            for lx in range(tx, TILE + 2 * R, TILE):
                x = min(max(cuda.blockIdx.x * TILE - R + lx, 0), wd - 1)
                tile[ly, lx] = img[y, x]
        cuda.syncthreads()
        acc = 0.0
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
""",
    ),
    "serial_conv1d_one_thread_per_block": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason="one thread stored 128 outputs",
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    if cuda.threadIdx.x == 0:
        r = w.size // 2
        for i in range(cuda.blockIdx.x * TPB, min(out.size, (cuda.blockIdx.x + 1) * TPB)):
            acc = 0.0
            for j in range(w.size):
                src = i + r - j
                if 0 <= src < x.size:
                    acc += w[j] * x[src]
            out[i] = acc
""",
    ),
    "attack_class_escape": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason=".__class__",
        kernel="""
@cuda.jit
def multiply(a, b, out):
    f = (1).__class__
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]
""",
    ),
    "attack_fstring": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="does not compile for a GPU",
        kernel="""
@cuda.jit
def multiply(a, b, out):
    s = f"{a.dtype!r:{out.size}}"
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]
""",
    ),
    "attack_huge_local_array": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="kernel raised an exception",
        kernel="""
from numba import float32


@cuda.jit
def multiply(a, b, out):
    junk = cuda.local.array(1000000000, float32)
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]
""",
    ),
    "attack_print_array": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="does not compile",
        kernel="""
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < len(out):
        out[i] = a[i] * b[i]
    print(a)
""",
    ),
    "style_block_sum_clamped_read_atomic_store": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[min(i, x.size - 1)] * (i < x.size)
    cuda.syncthreads()
    for stride in (64, 32, 16, 8, 4, 2, 1):
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
    if t == 0:
        cuda.atomic.add(partial, cuda.blockIdx.x, s[0])
""",
    ),
    "style_conv1d_constant_memory_fma": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    wc = cuda.const.array_like(w)
    i = cuda.threadIdx.x + cuda.blockDim.x * cuda.blockIdx.x
    n = x.shape[0]
    if i < n:
        r = len(wc) // 2
        acc = float32(0)
        for j in range(len(wc)):
            src = i - j + r
            if src >= 0 and src < n:
                acc = cuda.fma(wc[j], x[src], acc)
        out[i] = acc
""",
    ),
    "style_matmul_tiled_return_after_barriers": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        full=True,
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    m, kk = A.shape
    n = B.shape[1]
    acc = float32(0.0)
    for k0 in range(0, kk, TILE):
        sA[ty, tx] = A[row, k0 + tx] if row < m and k0 + tx < kk else 0
        sB[ty, tx] = B[k0 + ty, col] if k0 + ty < kk and col < n else 0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row >= m or col >= n:
        return
    C[row, col] = acc
""",
    ),
    "race_matmul_tiled_return_before_barriers": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["public", "hidden", "sync"],
        passes=[],
        reason="read of uninitialised memory",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    if row >= m or col >= n:
        return  # before the barriers: these threads never load their part of the tiles
    acc = 0.0
    for k0 in range(0, kk, TILE):
        sA[ty, tx] = A[row, k0 + tx] if k0 + tx < kk else 0.0
        sB[ty, tx] = B[k0 + ty, col] if k0 + ty < kk else 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    C[row, col] = acc
""",
    ),
    "conv1d_guard_reads_one_past_end": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["public", "hidden", "bounds"],
        passes=[],
        reason="read x[1000] outside shape (1000,)",
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = 0.0
        for j in range(w.size):
            src = i + r - j
            if 0 <= src <= x.size:
                acc += w[j] * x[src]
        out[i] = acc
""",
    ),
    "style_block_sum_tuple_constant_offsets": dict(
        exercise="05_reduction",
        part="block_sum",
        full=True,
        kernel="""
STRIDES = (64, 32, 16, 8, 4, 2, 1)


@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    for stride in STRIDES:  # a constant tuple: unrolled by numba
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "style_conv1d_accumulate_in_output": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        out[i] = 0.0  # several stores, one output element
        for j in range(w.size):
            src = i + r - j
            if 0 <= src < x.size:
                out[i] += w[j] * x[src]
""",
    ),
    "pick_ring_handler_rebound": dict(
        exercise="06_ring",
        part="detect",
        full=True,
        extra_after=[
            """
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect_v2(req, rep, state):
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
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)


detect = detect_v2  # the stub above stays; the name now means the new handler
""",
        ],
    ),
    "style_matmul_naive_grid_stride_2d": dict(
        exercise="03_matmul",
        part="matmul_naive",
        full=True,
        kernel="""
@cuda.jit
def matmul_naive(A, B, C):
    x0, y0 = cuda.grid(2)
    sx, sy = cuda.gridsize(2)
    row = y0
    while row < C.shape[0]:
        for col in range(x0, C.shape[1], sx):
            acc = float32(0.0)
            for k in range(A.shape[1]):
                acc += A[row, k] * B[k, col]
            C[row, col] = acc
        row += sy
""",
    ),
    "style_conv1d_weights_in_shared": dict(
        exercise="02_conv1d",
        part="conv1d",
        full=True,
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    sw = cuda.shared.array(TPB, float32)  # filters of up to TPB taps
    t = cuda.threadIdx.x
    if t < w.size:
        sw[t] = w[t]
    cuda.syncthreads()
    i = cuda.grid(1)
    if i >= out.size:
        return
    r = w.size // 2
    acc = 0.0
    for j in range(-r, r + 1):
        src = i - j
        if 0 <= src < x.size:
            acc += sw[j + r] * x[src]
    out[i] = acc
""",
    ),
    "race_matmul_tiled_shared_declared_in_loop": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["sync"],
        passes=[],
        reason="read by another thread with no barrier in between",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = 0.0
    for t in range((kk + TILE - 1) // TILE):
        sA = cuda.shared.array((TILE, TILE), float32)  # one allocation on a GPU, whatever the loop
        sB = cuda.shared.array((TILE, TILE), float32)
        k = t * TILE + tx
        sA[ty, tx] = A[row, k] if row < m and k < kk else 0.0
        k = t * TILE + ty
        sB[ty, tx] = B[k, col] if k < kk and col < n else 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        # missing second barrier: the next tile overwrites values still being read
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "style_saxpy_module_alias": dict(
        exercise="01_elementwise",
        part="saxpy",
        full=True,
        kernel="""
import numba.cuda as nc


@nc.jit
def saxpy(alpha, x, y, out):
    i = nc.grid(1)
    if i < out.size:
        out[i] = alpha * x[i] + y[i]
""",
    ),
    "style_multiply_names_imported_from_modules": dict(
        exercise="01_elementwise",
        part="multiply",
        full=True,
        kernel="""
from math import fabs as magnitude
from numba.cuda import grid


@cuda.jit
def multiply(a, b, out):
    i = grid(1)
    if i < out.size:
        out[i] = a[i] * b[i] * magnitude(1.0)
""",
    ),
    "attack_name_imported_from_os": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="system",
        kernel="""
from os import system


@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i] + system("true")
""",
    ),
}

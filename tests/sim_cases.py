"""Kernels and inputs for the simulator's tests (pdc.sim), differential tests included.

Plain functions: pdc.sim types them with numba-cuda, and numba's own CUDA simulator runs
them too (tests/test_sim_differential.py).
"""

import math

import numpy as np
from numba import float32, int32, njit, uint8

import pdc

# numba.cuda in the mode this process runs (numba's simulator without a GPU, as the chapters
# use it): pdc.sim then types the kernels in its worker process.
cuda = pdc.numba_cuda()

TPB = 32
LOG_TPB = int(math.log2(TPB))  # a module constant computed by a call
TILE = 16
TILE_PAD = TILE + 1  # computed once, here: numba needs a constant shape


def add(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]


def scale2d(a, out, s):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j] * s


def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    x, y = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = float32(0.0)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and t * TILE + tx < A.shape[1]:
            sA[ty, tx] = A[y, t * TILE + tx]
        if x < B.shape[1] and t * TILE + ty < B.shape[0]:
            sB[ty, tx] = B[t * TILE + ty, x]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = acc


def block_sum(x, out):
    s = cuda.shared.array(TPB, float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    s[tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if tid < stride:
            s[tid] += s[tid + stride]
        cuda.syncthreads()
        stride //= 2
    if tid == 0:
        out[cuda.blockIdx.x] = s[0]


def warp_sum(x, out):
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0)
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(out, 0, v)


def histogram(values, counts):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(counts, values[i], 1)


def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    if y < a.shape[0] and x < a.shape[1]:
        tile[cuda.threadIdx.y, cuda.threadIdx.x] = a[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.x * TILE + cuda.threadIdx.y
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y]


def softmax_rows(x, out):
    row = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    red = cuda.shared.array(TPB, float32)
    m = float32(-math.inf)
    for j in range(tid, x.shape[1], TPB):
        m = max(m, x[row, j])
    red[tid] = m
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            red[tid] = max(red[tid], red[tid + s])
        cuda.syncthreads()
        s //= 2
    mx = red[0]
    cuda.syncthreads()
    acc = float32(0)
    for j in range(tid, x.shape[1], TPB):
        acc += math.exp(x[row, j] - mx)
    red[tid] = acc
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            red[tid] += red[tid + s]
        cuda.syncthreads()
        s //= 2
    total = red[0]
    for j in range(tid, x.shape[1], TPB):
        out[row, j] = math.exp(x[row, j] - mx) / total


def scan_block(x, out):
    a = cuda.shared.array(TPB, int32)
    b = cuda.shared.array(TPB, int32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    a[tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    off = 1
    src = 0
    while off < TPB:
        if src == 0:
            b[tid] = a[tid] + (a[tid - off] if tid >= off else 0)
        else:
            a[tid] = b[tid] + (b[tid - off] if tid >= off else 0)
        cuda.syncthreads()
        src = 1 - src
        off *= 2
    if i < x.size:
        out[i] = a[tid] if src == 0 else b[tid]


# -- class 1: correct kernels a syntax whitelist refused -----------------------------------
@njit
def njit_helper(a, b):
    return a * b + 1


@cuda.jit(device=True)
def device_helper(a):
    return a + 1


def uses_python_features(x, out):
    i = cuda.grid(1)
    assert i >= 0
    if i >= x.size:
        return
    if x[i] < -1e30:
        raise ValueError("impossible input")
    twice = lambda v: v * 2  # noqa: E731

    def plus_log(v):
        return v + LOG_TPB

    q, r = divmod(i, 3)
    v = np.minimum(x[i], float32(100)) + np.maximum(x[i], float32(-100))
    v += twice(x[i]) + plus_log(x[i]) + njit_helper(x[i], float32(2)) + device_helper(x[i])
    v += cuda.libdevice.fmaxf(x[i], float32(0)) + q + r
    out[i] = v


def uses_python_features_ref(x):
    i = np.arange(x.size)
    q, r = np.divmod(i, 3)
    v = np.minimum(x, 100) + np.maximum(x, -100)
    v += 2 * x + (x + LOG_TPB) + (x * 2 + 1) + (x + 1) + np.maximum(x, 0) + q + r
    return v.astype(np.float32)


# -- class 2: GPU numerics ----------------------------------------------------------------
@njit
def mix_uint8(a, b):
    return a + b  # uint8 + int64: numba widens to int64


def k_mix_uint8(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = mix_uint8(a[i], b[i])


@njit
def wrap_int32(a, b):
    return a * b + a  # int32 * int32 stays int32: wraps


def k_wrap_int32(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = wrap_int32(a[i], b[i])


@njit
def exp32(a):
    return math.exp(a)  # float32 in, float32 out: overflows past 88.7


def k_exp32(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = exp32(a[i])


@njit
def div_by(a, b):
    return a / b  # the NumPy error model: inf and nan, no exception


def k_div_by(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = div_by(a[i], b[i])


@njit
def uint8_sub(a, b):
    return uint8(a) - uint8(b)


def k_uint8_sub(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = uint8_sub(a[i], b[i])


#: (kernel, the scalar function the kernel applies, input dtypes, output dtype)
NUMERIC = [
    (k_mix_uint8, mix_uint8, (np.uint8, np.int64), np.int64),
    (k_wrap_int32, wrap_int32, (np.int32, np.int32), np.int32),
    (k_exp32, exp32, (np.float32,), np.float32),
    (k_div_by, div_by, (np.float32, np.float32), np.float32),
    (k_uint8_sub, uint8_sub, (np.int64, np.int64), np.int64),
]


def numeric_inputs(dtypes, n=64, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for k, dt in enumerate(dtypes):
        dt = np.dtype(dt)
        if dt.kind == "f":
            v = rng.uniform(-120, 120, n).astype(dt)
            v[:4] = [0.0, -0.0, 88.0, 89.0]
        elif dt == np.uint8:
            v = rng.integers(0, 256, n).astype(dt)
        elif dt == np.int32:
            v = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(dt)
        else:
            v = rng.integers(0, 300, n).astype(dt)
        if k == 1 and dt.kind == "f":
            v[:8] = [0.0, 0.0, -0.0, 0.0, 1.0, 0.0, 2.0, -1.0]
        out.append(v)
    return out


# -- class 3: warps ---------------------------------------------------------------------------
def match_groups(keys, out):
    i = cuda.grid(1)
    if i < keys.size:
        out[i] = cuda.match_any_sync(cuda.activemask(), keys[i])


def shuffle_discarded(x, out):
    # Lanes >= 20 exit; the shuffle reads past them, but only lanes whose source is active
    # keep the value: nothing undefined reaches memory.
    i = cuda.grid(1)
    if i >= 20:
        return
    v = cuda.shfl_down_sync(cuda.activemask(), x[i], 1)
    if i < 19:
        out[i] = v


def shuffle_inactive_stored(x, out):
    i = cuda.grid(1)
    if i >= 20:
        return
    out[i] = cuda.shfl_down_sync(cuda.activemask(), x[i], 1)  # lane 19 reads lane 20


def shuffle_outside_own_mask(x, out):
    # Each half-warp names only its own lanes; lane 15 reads lane 16, outside its mask.
    i = cuda.grid(1)
    mask = 0x0000FFFF if i % 32 < 16 else 0xFFFF0000
    out[i] = cuda.shfl_down_sync(mask, x[i], 1)


def shuffle_diverged_mask(x, out):
    # The full mask while half the warp waits elsewhere (it has a store left to make, so it
    # has not exited): undefined behaviour.
    i = cuda.grid(1)
    v = x[i]
    if i % 32 < 16:
        v = cuda.shfl_down_sync(0xFFFFFFFF, x[i], 1)
    out[i] = v


def shared_atomic_conflicts(values, counts):
    # Even lanes add to word 0, odd lanes to word 32: one bank, two words: 2-way conflict.
    h = cuda.shared.array(64, int32)
    t = cuda.threadIdx.x
    h[t] = 0
    h[t + 32] = 0
    cuda.syncthreads()
    cuda.atomic.add(h, (t * 32) % 64 + values[t] * 0, 1)
    cuda.syncthreads()
    counts[t] = h[t]
    counts[t + 32] = h[t + 32]


# -- class 4: races, found the same way every run ---------------------------------------------
def race_missing_barrier(x, out):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    out[t] = s[(t + 1) % TPB]  # no syncthreads between the write and another thread's read


def race_war(x, out):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncthreads()
    v = s[(t + 1) % TPB]
    s[t] = v * 2  # overwrites what a neighbour may not have read yet
    cuda.syncthreads()
    out[t] = s[t]


def race_intra_warp(x, out):
    # Warp-synchronous code without syncwarp: a race since Volta (no implicit lockstep).
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    if t < 16:
        s[t] += s[t + 16]
    out[t] = s[t]


def syncwarp_orders(x, out):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncwarp()
    v = s[(t + 1) % TPB]
    cuda.syncwarp()
    s[t] = v
    cuda.syncwarp()
    out[t] = s[t]


def race_blocks_write(x, out):
    out[0] = x[cuda.grid(1)]  # every thread of every block writes one element


def race_atomic_and_plain(x, out):
    t = cuda.grid(1)
    if t == 0:
        out[0] = 1.0
    else:
        cuda.atomic.add(out, 0, x[t])


def atomics_only(x, out):
    cuda.atomic.add(out, 0, x[cuda.grid(1)])


def same_value_written_twice(x, out):
    # Threads t and t + 16 both clear slot t % 16: either order leaves 0 there.
    s = cuda.shared.array(16, float32)
    t = cuda.threadIdx.x
    s[t % 16] = 0.0
    cuda.syncthreads()
    out[t] = s[t % 16] + x[t]


def cas_retry_loop(x, out):
    # Counts with a compare-and-swap loop whose first plain read may be stale.
    i = cuda.grid(1)
    slot = int32(x[i]) % 4
    old = int32(out[slot])
    while True:
        seen = cuda.atomic.cas(out, slot, old, old + 1)
        if seen == old:
            break
        old = seen


# -- definedness -------------------------------------------------------------------------------
def uninit_shared_to_global(x, out):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    if t < 16:
        s[t] = x[t]
    cuda.syncthreads()
    out[t] = s[t]  # lanes 16..31 store values never written


def uninit_read_discarded(x, out):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    if t < 16:
        s[t] = x[t]
    cuda.syncthreads()
    v = s[t]  # read, but only defined values are kept
    out[t] = v if t < 16 else float32(0)


def uninit_local_branch(x, out):
    tmp = cuda.local.array(4, int32)
    t = cuda.grid(1)
    if tmp[t % 4] > 0:  # branching on a value never written
        out[t] = 1


def shape_at_run_time(x):
    s = cuda.shared.array(x.size, float32)  # numba needs a constant shape
    s[0] = 1
    x[0] = s[0]


def int_div(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] // b[i]


def shifted(x, out):
    i = cuda.grid(1)
    out[i] = x[i - 1] + x[i + 1]


WEIGHTS = np.array([0.25, 0.5, 0.25], np.float32)


@cuda.jit(device=True)
def dot_from(a, b, start=0):
    acc = float32(0)
    for k in range(start, a.size):
        acc += a[k] * b[k]
    return acc


def loops_of_every_kind(x, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    w = cuda.const.array_like(WEIGHTS)
    acc = float32(0)
    for j, wj in enumerate(w):  # enumerate over an array
        k = min(max(i + j - 1, 0), x.size - 1)
        acc += wj * x[k]
    for s in (4, 2, 1):  # a tuple of constants
        acc += s
    out[i] = acc + dot_from(x, x) * 0  # a device function with a default argument


def loops_of_every_kind_ref(x):
    p = np.concatenate([x[:1], x, x[-1:]])
    return (0.25 * p[:-2] + 0.5 * p[1:-1] + 0.25 * p[2:] + 7).astype(np.float32)


def copy_unguarded(x, out):
    i = cuda.grid(1)
    out[i] = x[i]


def transpose_2d(a, out):
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[x, y] = a[y, x]


def reverse_in_shared(x, out):
    s = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i]
    cuda.syncthreads()
    out[i] = s[31 - t]


def votes(x, out):
    i = cuda.grid(1)
    full = cuda.activemask()
    p = x[i] > 0
    out[i, 0] = cuda.ballot_sync(full, p)
    out[i, 1] = cuda.any_sync(full, p)
    out[i, 2] = cuda.all_sync(full, p)
    out[i, 3] = cuda.syncthreads_count(int32(p))


def cas_and_local(counter, out):
    tmp = cuda.local.array(3, int32)
    i = cuda.grid(1)
    for k in range(3):
        tmp[k] = i * k
    old = cuda.atomic.compare_and_swap(counter, 0, i + 1)  # only the first lane wins
    out[i] = tmp[2] + (1000 if old == 0 else 0)


@cuda.jit(device=True)
def view_total(v):
    s = float32(0)
    for k in range(v.shape[0]):
        s += v[k]
    return s


def views_of_rows(A, out, out2):
    i = cuda.grid(1)
    if i < A.shape[0]:
        row = A[i]
        s = float32(0)
        for v in row:
            s += v
        sub = A[i, 1:3]
        out[i] = s + sub[0] + sub.size + len(row)
        rev = A[i, ::-1]
        out2[i, 0] = rev[0]
        out2[i, 1] = view_total(A[i, 1:])
        tail = out2[i]
        tail[2] = A[:, 0][i] + A[1:3].shape[0]
        cuda.atomic.add(out2[i], 3, 1.0)


def view_past_its_end(A, out):
    i = cuda.grid(1)
    if i < A.shape[0]:
        row = A[i, 0:1]
        out[i] = row[1] + A[i, 1:3][2]  # past the view: A[i, 1] (inside A), A[i, 3] (outside)


def reductions_of_views(A, out):
    i = cuda.grid(1)
    if i < A.shape[0]:
        out[i, 0] = np.sum(A[i])
        out[i, 1] = np.prod(A[i, 1:])
        out[i, 2] = np.mean(A[i])
        out[i, 3] = A[i].sum()
        out[i, 4] = np.sum(A[i, : i + 1])  # a length of its own per thread


def shared_by_keywords(x, out):
    s = cuda.shared.array(shape=(32,), dtype=float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncthreads()
    out[t] = s[31 - t]


def divergent_steps(x, out, steps):
    """Collatz steps: every thread leaves the loop at its own pass, by its own branches."""
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        acc = float32(0.0)
        k = 0
        while v != 1:
            if v % 2 == 0:
                v = v // 2
                acc += float32(v) * float32(0.5)
            else:
                v = 3 * v + 1
                acc -= float32(k)
            k += 1
        out[i] = acc
        steps[i] = k


def unsigned_indices(values, x2, out, cnt):
    """Indices numba types as uint64 (uint8 >> 3) under a partial mask: global, shared,
    local and view accesses, a range bound, a shuffle's source lane, tuple-indexed atomics."""
    i = cuda.grid(1)
    v = values[i % values.size]
    j = v >> 3
    s = cuda.shared.array((8, 8), float32)
    loc = cuda.local.array(8, int32)
    acc = float32(0)
    if i % 2 == 0:  # half the lanes: the simulator's path for a partial warp
        loc[j] = j
        s[j, i % 8] = x2[j, j]
        row = x2[j]
        for q in range(j):
            acc += row[q]
        cuda.atomic.add(cnt, (j, j), 1)
        cuda.atomic.add(s, (j, i % 8), float32(0))
    w = cuda.shfl_sync(0xFFFFFFFF, acc, j)
    if i % 2 == 0:
        out[i] = w + loc[j]


def libdevice_calls(x, y, i, fo, io):
    """libdevice functions beyond math's names: rounded-to-nearest arithmetic,
    saturating conversions, reinterpretation and integer helpers (pdc.sim.libdevice)."""
    t = cuda.grid(1)
    if t < x.size:
        a, b, n = x[t], y[t], i[t]
        fo[t, 0] = cuda.libdevice.fmul_rn(a, b)
        fo[t, 1] = cuda.libdevice.fdiv_rn(a, b)
        fo[t, 2] = cuda.libdevice.saturatef(a)
        fo[t, 3] = cuda.libdevice.fdimf(a, b)
        fo[t, 4] = cuda.libdevice.int_as_float(cuda.libdevice.float_as_int(a))
        io[t, 0] = cuda.libdevice.float2int_rn(a * float32(1e9))
        io[t, 1] = cuda.libdevice.float2int_rz(a)
        io[t, 2] = cuda.libdevice.float2int_rd(a)
        io[t, 3] = cuda.libdevice.popc(n)
        io[t, 4] = cuda.libdevice.clz(n)
        io[t, 5] = cuda.libdevice.ffs(n)
        io[t, 6] = cuda.libdevice.brev(n)
        io[t, 7] = cuda.libdevice.mulhi(n, n)
        io[t, 8] = cuda.libdevice.rhadd(n, 3)

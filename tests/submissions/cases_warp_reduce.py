"""Submissions for exercise 10_warp_reduce (built by build.py): the mistakes students make when
a warp stage of shuffles replaces the shared-memory tree, one attempt to collect the points
without a parallel reduction, and correct kernels in unusual styles that must earn full marks.

Every kernel runs with the exercise's launch: ceil(n / TPB) blocks of TPB = 128 threads; the
notebook defines TPB, WARPS = TPB // 32 and FULL_MASK = 0xFFFFFFFF.
"""

from __future__ import annotations

ALL = ["public", "hidden", "sync", "parallel", "masks", "barriers", "registers"]


def _except(*failing: str) -> list[str]:
    return [c for c in ALL if c not in failing]


CASES = {
    # -- mistakes ---------------------------------------------------------------------------
    "warp_reduce_half_mask": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["public", "hidden", "masks"],
        passes=[],
        reason="not in its own mask",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFF, v, offset)  # 16 bits: half the warp
        offset //= 2
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(0xFFFF, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "warp_reduce_shfl_up": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_up_sync(FULL_MASK, v, offset)  # the sum gathers in lane 31, not 0
        offset //= 2
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        offset = 16
        while offset > 0:
            v += cuda.shfl_up_sync(FULL_MASK, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "warp_reduce_syncthreads_in_shuffle_loop": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["barriers"],
        passes=_except("barriers"),
        reason="barriers (syncthreads), 1 expected",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        cuda.syncthreads()  # not needed: a shuffle exchanges registers within the warp
        offset //= 2
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "warp_reduce_early_return": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["public", "hidden", "masks"],
        passes=[],
        # Naming lanes that exited is allowed; reading their registers is not.
        reason="which is not in its mask 0xffffffff or not here",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    if i >= x.size:
        return  # the shuffles below still read the lanes that left
    v = x[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "warp_reduce_partial_warp_full_mask": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["masks", "sync"],
        passes=["public", "hidden", "parallel", "barriers", "registers"],
        reason="named in the mask are not here",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane = t % 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if lane == 0:
        warp_sums[t // 32] = v
    cuda.syncthreads()
    if t < WARPS:  # 4 lanes of warp 0 run this, the full mask names all 32...
        v = warp_sums[t]
        offset = WARPS // 2
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
    if t == 0:  # ...while the other 28 wait here: they have not exited
        partial[cuda.blockIdx.x] = v
""",
    ),
    "warp_reduce_no_barrier": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["public", "hidden"],
        passes=[],
        reason="use of an undefined value",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if lane == 0:
        warp_sums[warp] = v
    # no syncthreads: warp 0 may read the other warps' sums before they are written
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "warp_reduce_shared_tree": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["barriers", "registers"],
        passes=["public", "hidden", "sync", "parallel", "masks"],
        reason="shared-memory accesses, at most 5 expected",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    s = cuda.shared.array(TPB, float32)  # exercise 5's tree, all the way down
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
    "warp_reduce_syncwarp_in_shared": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["registers"],
        passes=["public", "hidden", "sync", "parallel", "masks", "barriers"],
        reason="shared-memory accesses, at most 5 expected",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    s = cuda.shared.array(TPB, float32)
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncwarp(FULL_MASK)
    offset = 16
    while offset > 0:  # the warp stage through shared memory, ordered by syncwarp
        if lane < offset:
            s[t] += s[t + offset]
        cuda.syncwarp(FULL_MASK)
        offset //= 2
    if lane == 0:
        warp_sums[warp] = s[t]
    cuda.syncthreads()
    if t == 0:
        total = 0.0
        for w in range(WARPS):
            total += warp_sums[w]
        partial[cuda.blockIdx.x] = total
""",
    ),
    # -- an attempt to collect the points without a parallel reduction ---------------------
    "warp_reduce_serial_thread_zero": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        fail=["parallel"],
        passes=_except("parallel"),
        reason="one thread loaded",
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    if cuda.threadIdx.x == 0:  # no shuffles, no shared memory, no barrier: no reduction
        b = cuda.blockIdx.x
        total = 0.0
        for i in range(b * TPB, min((b + 1) * TPB, x.size)):
            total += x[i]
        partial[b] = total
""",
    ),
    # -- correct kernels in unusual styles ---------------------------------------------------
    "warp_reduce_style_xor_butterfly": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        kernel="""
@cuda.jit(device=True)
def warp_sum(v):
    for offset in (16, 8, 4, 2, 1):  # every lane ends with the warp's sum
        v += cuda.shfl_xor_sync(FULL_MASK, v, offset)
    return v


@cuda.jit
def block_sum_warp(x, partial):
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = warp_sum(x[i] if i < x.size else float32(0.0))
    if t % 32 == 0:
        sums[t // 32] = v
    cuda.syncthreads()
    if t < 32:
        v = warp_sum(sums[t] if t < WARPS else float32(0.0))
        if t == 0:
            partial[cuda.blockIdx.x] = v
""",
    ),
    "warp_reduce_style_atomic_per_warp": dict(
        exercise="10_warp_reduce",
        part="block_sum_warp",
        full=True,
        kernel="""
@cuda.jit
def block_sum_warp(x, partial):
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if cuda.laneid == 0:  # partial starts at zero: one atomic per warp, no barrier at all
        cuda.atomic.add(partial, cuda.blockIdx.x, v)
""",
    ),
}

"""Submissions for exercise 08_scan (built by build.py): the mistakes students make with a
block scan in shared memory and with the offsets between blocks, a correct Hillis-Steele scan
(every point but the work point), an attempt to skip the scan altogether, and correct kernels
in unusual styles that must earn full marks.

Both kernels run ceil(n / TPB) blocks of TPB = 128 threads, one thread per element.
"""

from __future__ import annotations

# The model's load: one element per thread, zero past the end of x.
_LOAD = """
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    s[t] = v
    cuda.syncthreads()
"""

# The model's Blelloch sweeps, after the load: the exclusive scan is left in s.
_SWEEPS = """    d = 1
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
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        d //= 2
        cuda.syncthreads()
"""

CASES = {
    # -- mistakes -----------------------------------------------------------------------------
    "scan_up_sweep_without_barrier": dict(
        exercise="08_scan",
        part="block_scan",
        fail=["public", "sync"],
        passes=[],
        reason="no barrier in between",
        kernel=_LOAD
        + """    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2  # no barrier: the next level reads sums this level has not finished
    cuda.syncthreads()
    if t == 0:
        block_sums[cuda.blockIdx.x] = s[TPB - 1]
        s[TPB - 1] = 0.0
    cuda.syncthreads()
    d = TPB // 2
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
    "scan_hillis_steele_in_place": dict(
        exercise="08_scan",
        part="block_scan",
        fail=["sync"],
        passes=[],
        reason="read by another thread with no barrier in between",
        kernel=_LOAD
        + """    d = 1
    while d < TPB:
        if t >= d:
            s[t] += s[t - d]  # s[t - d] may already hold this step's value
        cuda.syncthreads()
        d *= 2
    if i < x.size:
        out[i] = s[t]
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = s[t]
""",
    ),
    "scan_exclusive_instead_of_inclusive": dict(
        exercise="08_scan",
        part="block_scan",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel=_LOAD
        + _SWEEPS
        + """    if i < x.size:
        out[i] = s[t]  # the down-sweep's exclusive scan: one element short
""",
    ),
    "scan_tail_not_guarded": dict(
        exercise="08_scan",
        part="block_scan",
        fail=["public", "bounds"],
        passes=[],
        reason="outside shape",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i]  # the last block's threads past the end read beyond x
    s[t] = v
    cuda.syncthreads()
"""
        + _SWEEPS
        + """    out[i] = s[t] + v
""",
    ),
    "scan_serial_thread_zero": dict(
        exercise="08_scan",
        part="block_scan",
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "sync", "work"],
        reason="one thread made",
        kernel=_LOAD
        + """    if t == 0:  # thread 0 walks the tile; the others wait
        acc = float32(0.0)
        for j in range(TPB):
            acc += s[j]
            s[j] = acc
        block_sums[cuda.blockIdx.x] = acc
    cuda.syncthreads()
    if i < x.size:
        out[i] = s[t]
""",
    ),
    "scan_hillis_steele_double_buffered": dict(
        exercise="08_scan",
        part="block_scan",
        # Correct and parallel: every point but the work point.
        fail=["work"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="work-efficient scan",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    a = cuda.shared.array(TPB, float32)
    b = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    a[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    d = 1
    into_b = True
    while d < TPB:  # read one buffer, write the other: no step reads what it writes
        if into_b:
            b[t] = a[t] + a[t - d] if t >= d else a[t]
        else:
            a[t] = b[t] + b[t - d] if t >= d else b[t]
        into_b = not into_b
        d *= 2
        cuda.syncthreads()
    total = b[t] if not into_b else a[t]
    if i < x.size:
        out[i] = total
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = total
""",
    ),
    "scan_offsets_off_by_one_block": dict(
        exercise="08_scan",
        part="add_block_offsets",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    if i < out.size:
        out[i] += offsets[cuda.blockIdx.x]  # includes the block's own total
""",
    ),
    "scan_offsets_tail_not_guarded": dict(
        exercise="08_scan",
        part="add_block_offsets",
        fail=["public", "hidden", "bounds"],
        passes=[],
        reason="outside shape",
        kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    b = cuda.blockIdx.x
    if b > 0:
        out[cuda.grid(1)] += offsets[b - 1]
""",
    ),
    # -- an attempt to skip the scan ------------------------------------------------------------
    "scan_prefix_summed_by_each_thread": dict(
        exercise="08_scan",
        part="block_scan",
        # No shared memory, no barriers, no races: each thread re-adds its tile's prefix from
        # global memory, which is O(TPB) per thread and O(TPB^2) per block.
        fail=["work", "parallel"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="memory accesses",
        kernel="""
@cuda.jit
def block_scan(x, out, block_sums):
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    start = cuda.blockIdx.x * TPB
    acc = float32(0.0)
    for j in range(start, min(i + 1, x.size)):
        acc += x[j]
    if i < x.size:
        out[i] = acc
    if t == TPB - 1:
        for j in range(i + 1, min(start + TPB, x.size)):
            acc += x[j]
        block_sums[cuda.blockIdx.x] = acc
""",
    ),
    # -- correct kernels in unusual styles ------------------------------------------------------
    "scan_blelloch_half_the_threads": dict(
        exercise="08_scan",
        part="block_scan",
        full=True,
        kernel="""
HALF = TPB // 2


@cuda.jit(device=True)
def up_sweep(s, t):
    d = 1
    active = HALF
    while active > 0:
        if t < active:  # thread t adds pair t of this level
            ai = d * (2 * t + 1) - 1
            bi = d * (2 * t + 2) - 1
            s[bi] += s[ai]
        d <<= 1
        active >>= 1
        cuda.syncthreads()


@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    mine = float32(0.0)
    if i < x.size:
        mine = x[i]
    s[t] = mine
    cuda.syncthreads()
    up_sweep(s, t)
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = s[t]
        s[t] = float32(0.0)
    cuda.syncthreads()
    d = HALF
    active = 1
    while d >= 1:
        if t < active:
            ai = d * (2 * t + 1) - 1
            bi = d * (2 * t + 2) - 1
            tmp = s[ai]
            s[ai] = s[bi]
            s[bi] = s[bi] + tmp
        d >>= 1
        active <<= 1
        cuda.syncthreads()
    if i < x.size:
        out[i] = s[t] + mine
""",
    ),
    "scan_offsets_from_global_index": dict(
        exercise="08_scan",
        part="add_block_offsets",
        full=True,
        kernel="""
@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= out.shape[0]:
        return
    tile = i // TPB
    if tile == 0:
        return
    out[i] = out[i] + offsets[tile - 1]
""",
    ),
}

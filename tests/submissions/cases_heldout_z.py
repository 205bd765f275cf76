"""Submissions for exercises 01, 02, 05 and 08 (correct, wrong and off-brief kernels, many using
language features a simulator must model: break and continue, tuples from device functions,
unsigned guards, selp, views), each written from the student notebook and INSTRUCTOR.md alone,
as a student would."""

CASES = {
    # ------------------------------------------------------------------ 01_elementwise
    "hoz_multiply_tuple_device_early_return": dict(
        exercise="01_elementwise",
        part="multiply",
        kernel='''
@cuda.jit(device=True)
def load_pair(a, b, i, n):
    # early return from a device function that returns a tuple
    if not (0 <= i < n):
        return False, np.float32(0), np.float32(0)
    return True, a[i], b[i]


@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    ok, u, v = load_pair(a, b, i, out.size)
    if ok:
        out[i] = u * v
''',
        full=True,
    ),
    "hoz_saxpy_fma_grid_stride_while": dict(
        exercise="01_elementwise",
        part="saxpy",
        kernel='''
@cuda.jit
def saxpy(alpha, x, y, out):
    # grid-stride loop: with ceil(n / TPB) blocks each thread runs it once
    al = np.float32(alpha)
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    n = out.shape[0]
    while i < n:
        out[i] = cuda.fma(al, x[i], y[i])
        i += stride
''',
        full=True,
    ),
    "hoz_multiply_half_the_threads_do_two": dict(
        exercise="01_elementwise",
        part="multiply",
        kernel='''
@cuda.jit
def multiply(a, b, out):
    # only the first half of the threads work, each one takes i and i + half
    n = out.size
    half = (n + 1) // 2
    i = cuda.grid(1)
    if i < half:
        out[i] = a[i] * b[i]
        j = i + half
        if j < n:
            out[j] = a[j] * b[j]
''',
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason="stored 2 outputs",
        why="Every output is right and in range, but the threads of the first half of the grid each "
            "store two outputs (i and i + ceil(n/2)) while the rest idle, which breaks 'at most one "
            "output per thread' for every n >= 2.",
    ),
    # ------------------------------------------------------------------ 02_conv1d
    "hoz_conv1d_uint32_wrap_guard_continue": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    if i >= n:
        return
    K = w.size
    r = K // 2
    acc = float32(0)
    for j in range(K):
        idx = i + r - j
        # one unsigned compare covers both borders: -1 becomes 4294967295
        if np.uint32(idx) >= np.uint32(n):
            continue
        acc += w[j] * x[idx]
    out[i] = acc
''',
        full=True,
    ),
    "hoz_conv1d_slice_window_minmax": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit(device=True)
def window_bounds(i, r, n):
    lo = max(i - r, 0)
    hi = min(i + r + 1, n)
    return lo, hi


@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.shape[0]
    if i < n:
        r = (w.shape[0] - 1) >> 1
        lo, hi = window_bounds(i, r, n)
        win = x[lo:hi]           # a view of the inputs this output needs
        acc = float32(0.0)
        m = 0
        while m < win.size:
            # input index lo + m meets tap i + r - (lo + m)
            acc += w[i + r - lo - m] * win[m]
            m += 1
        out[i] = acc
''',
        full=True,
    ),
    "hoz_conv1d_selp_reads_past_end": dict(
        exercise="02_conv1d",
        part="conv1d",
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    n = x.size
    if i < n:
        r = w.size // 2
        acc = float32(0)
        for j in range(w.size):
            idx = i + r - j
            # branch-free border: selp picks 0 outside the signal
            acc += w[j] * cuda.selp(0 <= idx < n, x[idx], float32(0))
        out[i] = acc
''',
        fail=["bounds"],
        passes=[],
        reason="out-of-bounds",
        why="cuda.selp is a select, not a branch: x[idx] is loaded before the choice, so the last r "
            "threads read x[n] .. x[n + r - 1] past the end (memcheck: invalid global read) for every "
            "K >= 3; the left border's negative indices wrap and are merely discarded.",
    ),
    "hoz_conv1d_shared_tile_fixed_halo": dict(
        exercise="02_conv1d",
        part="conv1d",
        extra_cells=['''RMAX = 6  # filters up to 13 taps: plenty for smoothing
HALO_TILE = TPB + 2 * RMAX
'''],
        kernel='''
@cuda.jit
def conv1d(x, w, out):
    tile = cuda.shared.array(HALO_TILE, float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * TPB
    n = x.size
    r = w.size // 2
    # stage the block's inputs plus RMAX on each side, zeros outside the signal
    k = t
    while k < HALO_TILE:
        g = base + k - RMAX
        tile[k] = x[g] if 0 <= g < n else float32(0)
        k += TPB
    cuda.syncthreads()
    i = base + t
    if i < n:
        acc = float32(0)
        for j in range(w.size):
            acc += w[j] * tile[t + RMAX + r - j]
        out[i] = acc
''',
        fail=["hidden", "bounds"],
        passes=[],
        reason="out-of-bounds",
        why="The tile only holds RMAX = 6 cells of halo, so for K >= 15 (r >= 7, a boundary of every "
            "hidden draw) the last threads index tile[TPB + 2*RMAX] and beyond (shared out-of-range "
            "reads) and the first threads index tile[-1] (wraps to the wrong cell): wrong sums at both "
            "block edges.",
    ),
    # ------------------------------------------------------------------ 05_reduction
    "hoz_block_sum_2d_shared_while_true_bits": dict(
        exercise="05_reduction",
        part="block_sum",
        extra_cells=['''WARPS = TPB >> 5
LANES = TPB // WARPS
'''],
        kernel='''
@cuda.jit
def block_sum(x, partial):
    sh = cuda.shared.array((WARPS, LANES), float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t // LANES, t % LANES] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    # interleaved tree: at step s the threads whose low bits are zero add their neighbour
    s = 1
    while True:
        if s >= TPB:
            break
        if (t & ((s << 1) - 1)) == 0:
            u = t + s
            sh[t // LANES, t % LANES] += sh[u // LANES, u % LANES]
        cuda.syncthreads()
        s <<= 1
    if t == 0:
        partial[cuda.blockIdx.x] = sh[0, 0]
''',
        full=True,
    ),
    "hoz_block_sum_tail_count_from_modulo": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    # how many real elements does my block hold? all but the last block are full
    count = TPB
    if b == cuda.gridDim.x - 1:
        count = x.size % TPB
    sh[t] = x[b * TPB + t] if t < count else float32(0)
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[b] = sh[0]
''',
        fail=["hidden"],
        passes=[],
        reason="hidden cases",
        why="When n is an exact multiple of TPB, x.size % TPB is 0, so the last block loads only zeros "
            "and its partial sum is 0 instead of the sum of its 128 elements (the 'exact multiple, two "
            "blocks or more' boundary of every hidden draw); other sizes are right.",
    ),
    "hoz_block_sum_last_warp_unsynced": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    s = TPB // 2
    while s > 32:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    # the last warp runs in lockstep, no barrier needed (the classic unrolled tail)
    if t < 32:
        sh[t] += sh[t + 32]
        sh[t] += sh[t + 16]
        sh[t] += sh[t + 8]
        sh[t] += sh[t + 4]
        sh[t] += sh[t + 2]
        sh[t] += sh[t + 1]
    if t == 0:
        partial[cuda.blockIdx.x] = sh[0]
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="Without volatile or syncwarp the unrolled tail is a shared-memory race inside warp 0 (lane t "
            "reads sh[t + 16] while lane t + 16 writes it); racecheck reports the hazard on every launch "
            "and independent thread scheduling (Volta+) can give wrong sums.",
    ),
    "hoz_block_sum_thread0_finishes_last_32": dict(
        exercise="05_reduction",
        part="block_sum",
        kernel='''
@cuda.jit
def block_sum(x, partial):
    sh = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    s = TPB // 2
    while s >= 32:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    # fewer than a warp of additions left: thread 0 finishes them itself
    if t == 0:
        acc = sh[0]
        for k in range(1, 32):
            acc += sh[k]
        partial[cuda.blockIdx.x] = acc
''',
        fail=["parallel"],
        passes=["public", "hidden", "sync", "memory"],
        reason="made 41 memory accesses",
        why="Correct sums, but thread 0 makes 2 + 2*3 + 32 + 1 = 41 memory operations, over the "
            "4 log2(TPB) + 8 = 36 budget, and its 32 serial loads are one thread walking a warp's values.",
    ),
    # ------------------------------------------------------------------ 08_scan
    "hoz_block_scan_blelloch_tuple_pairs": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit(device=True)
def tree_pair(t, d):
    # the two slots thread t combines at distance d; k may fall past the tile
    k = (t + 1) * (d << 1) - 1
    return k - d, k


@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    n = x.size
    v = x[i] if i < n else float32(0)
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:                      # up-sweep
        a, k = tree_pair(t, d)
        if k < TPB:
            s[k] += s[a]
        cuda.syncthreads()
        d <<= 1
    if t == TPB - 1:
        block_sums[b] = s[t]
        s[t] = float32(0)
    cuda.syncthreads()
    d = TPB >> 1
    while d > 0:                        # down-sweep
        a, k = tree_pair(t, d)
        if k < TPB:
            left = s[a]
            right = s[k]
            s[a] = right
            s[k] = right + left
        cuda.syncthreads()
        d >>= 1
    if i < n:
        out[i] = s[t] + v               # exclusive + own value = inclusive
''',
        full=True,
    ),
    "hoz_block_scan_total_stored_under_guard": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    n = x.size
    v = x[i] if i < n else float32(0)
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        cuda.syncthreads()
        d *= 2
    total = s[TPB - 1]
    cuda.syncthreads()
    if t == 0:
        s[TPB - 1] = float32(0)
    cuda.syncthreads()
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        cuda.syncthreads()
        d //= 2
    if i < n:
        out[i] = s[t] + v
        if t == TPB - 1:            # the last thread knows the total
            block_sums[b] = total
''',
        fail=["hidden"],
        passes=[],
        reason="wrong values",
        why="The tile total is stored by thread TPB - 1 only inside `if i < n`, so whenever n is not a "
            "multiple of TPB the last block never writes block_sums[last] (hidden boundaries n one "
            "below / one above a multiple, n = 1); out itself is right.",
    ),
    "hoz_block_scan_clear_races_total": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    i = b * TPB + t
    v = x[i] if i < x.size else float32(0)
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        cuda.syncthreads()
        d *= 2
    # thread 0 reports the total while the last thread clears the root
    if t == 0:
        block_sums[b] = s[TPB - 1]
    if t == TPB - 1:
        s[TPB - 1] = float32(0)
    cuda.syncthreads()
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        cuda.syncthreads()
        d //= 2
    if i < x.size:
        out[i] = s[t] + v
''',
        fail=["sync"],
        passes=[],
        reason="race",
        why="Thread 0 (warp 0) reads s[TPB-1] while thread TPB-1 (warp 3) writes 0 to it with no barrier "
            "between: a read-write race that racecheck reports for every size, and block_sums[b] is 0 "
            "whenever warp 3 gets there first.",
    ),
    "hoz_block_scan_hillis_steele_pingpong_2d": dict(
        exercise="08_scan",
        part="block_scan",
        kernel='''
@cuda.jit
def block_scan(x, out, block_sums):
    buf = cuda.shared.array((2, TPB), float32)   # two tiles, read one and write the other
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[0, t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    src = 0
    d = 1
    while d < TPB:
        val = buf[src, t]
        if t >= d:
            val += buf[src, t - d]
        buf[1 - src, t] = val
        cuda.syncthreads()
        src = 1 - src
        d <<= 1
    if i < x.size:
        out[i] = buf[src, t]
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = buf[src, t]
''',
        fail=["work"],
        passes=["public", "hidden", "bounds", "sync", "parallel"],
        reason="work",
        why="A correct double-buffered Hillis-Steele scan: no race, no out-of-range access, but it "
            "stores the whole tile at each of the 7 levels (8 shared stores per element > 5) and makes "
            "about 24 accesses per element (> 16).",
    ),
    "hoz_add_offsets_divmod_chained_guard": dict(
        exercise="08_scan",
        part="add_block_offsets",
        kernel='''
@cuda.jit
def add_block_offsets(out, offsets):
    b, t = divmod(cuda.grid(1), TPB)
    i = b * TPB + t
    # block 0 has nothing before it; past the end there is nothing to add to
    if not (0 < b and i < out.size):
        return
    out[i] += offsets[b - 1]
''',
        full=True,
    ),
}

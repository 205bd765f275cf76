"""Blind set a36: the ring handler and the transpose: state updates, faults, refused handlers, swizzles, padding, strided loads, one warp staging a tile"""

# Notes on INSTRUCTOR.md points found unclear (cases that depend on them were left out):
# * 09_transpose `parallel`: "at most 4 outputs per thread, at most 2 x 16 + 8 memory accesses
#  per thread ..., and at most 2 x 78 + 8 operations ... unless the busiest thread stays within
#  4 times the mean": it is not said whether the "unless" clause covers only the operation count
#  or also the output and access limits. A kernel whose working half of the block moves 8
#  elements per thread (32 accesses, 8 outputs) would be graded differently under the two
#  readings, so it was left out; the parallel case below (warp 0 stages the whole tile) loses
#  the point under both readings and is the guide's own example.
# * 06_ring: the guide does not say whether `ordering` and `telemetry` count as quality criteria
#  (awarded only when the public cases pass). Cases that fail `public` therefore claim nothing
#  about those two criteria, except where the handler cannot be built at all (0 for the part).
# * 06_ring: a handler that pdc.ring's decorator refuses (it names the construct and says it
#  "cannot run on the cpu and cuda and metal backends") is graded here as a kernel that does not
#  compile (0 for the part); the guide states this for numba's compile errors, not the decorator's.
# * 09_transpose `memory`: "no more sectors in all than one coalesced pass over the array" cannot
#  mean the array's own sector count: on a single-row matrix the model answer's stores are
#  single-lane warp accesses (45 sectors for a 1 x 45 matrix, against 6 for the array). The
#  full-marks kernels below make exactly the model answer's global accesses, lane for lane.

CASES = {}

# ---------------------------------------------------------------------------------------------
# 06_ring: detect
# ---------------------------------------------------------------------------------------------

CASES["hok36_ring_inplace_reciprocal"] = dict(
    exercise="06_ring",
    part="detect",
    kernel='''
WARMUP = 1.0      # a spread needs two readings: count - 1 > 0
NO_SPREAD = 0.0


@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    seen = state.count                      # readings before this one
    dev = req.x - state.mean                # against the mean before this one
    var = state.m2 / select(seen > WARMUP, seen - 1.0, 1.0)
    inv_std = select(var > NO_SPREAD, 1.0 / math.sqrt(select(var > NO_SPREAD, var, 1.0)), 0.0)
    z = dev * inv_std
    state.count += 1.0
    state.mean += dev / state.count
    state.m2 += dev * (req.x - state.mean)
    rep.count = state.count
    rep.mean = state.mean
    rep.z = z
    rep.flag = select((seen >= MIN_COUNT) & (math.fabs(z) > THRESHOLD), 1, 0)
    return 0
''',
    full=True,
)

CASES["hok36_ring_unguarded_variance_division"] = dict(
    exercise="06_ring",
    part="detect",
    kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    count = state.count
    delta = req.x - state.mean
    n = count + 1.0
    new_mean = state.mean + delta / n
    new_m2 = state.m2 + delta * (req.x - new_mean)
    std = math.sqrt(select(count > 1.0, state.m2 / (count - 1.0), 0.0))
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    state.count = n
    state.mean = new_mean
    state.m2 = new_m2
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    rep.flag = select((count >= MIN_COUNT) & (abs(z) > THRESHOLD), 1, 0)
''',
    fail=["public", "hidden", "telemetry"],
    passes=[],
    reason='divided by zero',
    why=(
        "select computes both sides, so the second message (count = 1, m2 = 0) evaluates "
        "state.m2 / (count - 1.0) = 0/0: pdc faults the message (error code -2) and does not commit "
        "its update, so count stays 1 and every later message faults the same way; on the CPU engine "
        "a 200-reading stream gave 199 errors and replies whose count stops at 2 from message 2 on "
        "(only a 1-reading stream is right)."
    ),
)

CASES["hok36_ring_flag_ge_on_zero_spread"] = dict(
    exercise="06_ring",
    part="detect",
    kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    count = state.count
    mean = state.mean
    m2 = state.m2
    n = count + 1.0
    delta = req.x - mean
    new_mean = mean + delta / n
    std = math.sqrt(select(count > 1.0, m2 / select(count > 1.0, count - 1.0, 1.0), 0.0))
    safe_std = select(std > 0.0, std, 1.0)
    rep.z = select(std > 0.0, delta / safe_std, 0.0)
    # |z| > THRESHOLD without dividing: |delta| against THRESHOLD standard deviations
    rep.flag = select((count >= MIN_COUNT) & (abs(delta) >= THRESHOLD * std), 1, 0)
    rep.count = n
    rep.mean = new_mean
    state.count = n
    state.mean = new_mean
    state.m2 = m2 + delta * (req.x - new_mean)
''',
    fail=["hidden"],
    passes=["public", "ordering", "telemetry"],
    reason="hidden",
    why=(
        "for a sensor stuck at one value (a boundary of every draw, and the stuck-past-message-10 "
        "one) std = 0 and delta = 0 from message 10 on, so |delta| >= 4 * std is 0 >= 0, true, and "
        "the reply flags 1 where the specification's z = 0 gives flag 0; on noisy streams (the public "
        "ones) |delta| = 4 std exactly never happens, so the flags equal |z| > 4 and every value, the "
        "state, the order and the telemetry match."
    ),
)

CASES["hok36_ring_std_after_count_update"] = dict(
    exercise="06_ring",
    part="detect",
    kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    state.count = state.count + 1.0
    delta = req.x - state.mean
    state.mean = state.mean + delta / state.count
    spread = select(state.count > 1.0, state.m2 / select(state.count > 1.0, state.count - 1.0, 1.0), 0.0)
    std = math.sqrt(spread)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    state.m2 = state.m2 + delta * (req.x - state.mean)
    rep.count = state.count
    rep.mean = state.mean
    rep.z = z
    rep.flag = select((state.count > MIN_COUNT) & (abs(z) > THRESHOLD), 1, 0)
''',
    fail=["public", "hidden"],
    passes=[],
    reason="wrong",
    why=(
        "state.count is overwritten before the spread is computed, so std = sqrt(m2 / count) instead "
        "of sqrt(m2 / (count - 1)): z is too large by sqrt(count / (count - 1)), a factor sqrt(2) on "
        "message 2 (z -2.85 against -2.02 on a public-like stream) and still 0.25 % at count 200, far "
        "outside rtol = atol = 1e-4; count, mean and the state stay right."
    ),
)

CASES["hok36_ring_state_field_n"] = dict(
    exercise="06_ring",
    part="detect",
    kernel='''
@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    n = state.n + 1.0
    delta = req.x - state.mean
    new_mean = state.mean + delta / n
    std = math.sqrt(select(state.n > 1.0, state.m2 / select(state.n > 1.0, state.n - 1.0, 1.0), 0.0))
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    state.m2 = state.m2 + delta * (req.x - new_mean)
    state.mean = new_mean
    state.n = n
    rep.count = n
    rep.mean = new_mean
    rep.z = z
    rep.flag = select((n > MIN_COUNT) & (abs(z) > THRESHOLD), 1, 0)
''',
    fail=["public", "hidden", "ordering", "telemetry"],
    passes=[],
    reason="unknown state field",
    why=(
        "the state record has fields count, mean and m2 (chapter 9's running_mean called its counter "
        "n): pdc.ring refuses the handler at definition, 'the unknown state field `state.n` cannot "
        "run on the cpu and cuda and metal backends', so no backend can build the kernel and the part "
        "scores 0."
    ),
)

# ---------------------------------------------------------------------------------------------
# 09_transpose
# ---------------------------------------------------------------------------------------------

# Why full marks: XOR swizzle: the fill writes word 32 r + (tx ^ r), bank tx ^ r, a permutation
# of the 32 lanes; the read takes element (tx, c) from word 32 tx + (c ^ tx), bank c ^ tx, again
# 32 distinct banks: 1 wavefront per request, 0 conflicts. Global accesses are the model's (a
# warp reads 32 consecutive floats of a row of a and writes 32 of a row of out: 4 sectors, 5
# when the row starts mid-sector), 16 accesses and 4 outputs per thread, every tile word read
# was written under the same guard before the one barrier.
CASES["hok36_padded_xor_swizzle"] = dict(
    exercise="09_transpose",
    part="transpose_padded",
    kernel='''
@cuda.jit
def transpose_padded(a, out):
    # 32 x 32 tile, no padding: element (r, c) of the tile lives at column c ^ r of row r
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    r0 = cuda.blockIdx.y * TILE
    c0 = cuda.blockIdx.x * TILE
    rows = a.shape[0]
    cols = a.shape[1]
    for k in range(0, TILE, BLOCK_ROWS):
        r = ty + k
        if r0 + r < rows and c0 + tx < cols:
            tile[r, tx ^ r] = a[r0 + r, c0 + tx]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        c = ty + k
        if c0 + c < cols and r0 + tx < rows:
            out[c0 + c, r0 + tx] = tile[tx, c ^ tx]
''',
    full=True,
)

# Why full marks: with blockDim.y = 8 each thread moves rows 4 ty .. 4 ty + 3 (4 outputs, 16
# accesses); the fill tile[lane, i] is word 33 lane + i, bank (lane + i) % 32, and the read
# tile[i, lane] is word 33 i + lane, bank (i + lane) % 32: 32 distinct banks both ways, 0
# conflicts; each warp access to a and out is 32 consecutive floats of one row (4 sectors, 5
# mid-sector), and tile[p, q] is written exactly when top + q < rows and left + p < cols, the
# read's guard.
CASES["hok36_padded_consecutive_rows_transpose_on_fill"] = dict(
    exercise="09_transpose",
    part="transpose_padded",
    kernel='''
@cuda.jit
def transpose_padded(a, out):
    # each thread owns TILE // blockDim.y consecutive rows of the tile; the tile is
    # transposed on the way in (tile[c, r] = a[r, c]) and read back row by row
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    lane = cuda.threadIdx.x
    per = TILE // cuda.blockDim.y
    first = cuda.threadIdx.y * per
    top = cuda.blockIdx.y * TILE
    left = cuda.blockIdx.x * TILE
    for j in range(per):
        i = first + j
        if top + i < a.shape[0] and left + lane < a.shape[1]:
            tile[lane, i] = a[top + i, left + lane]
    cuda.syncthreads()
    for j in range(per):
        i = first + j
        if left + i < out.shape[0] and top + lane < out.shape[1]:
            out[left + i, top + lane] = tile[i, lane]
''',
    full=True,
)

CASES["hok36_padded_two_spare_columns"] = dict(
    exercise="09_transpose",
    part="transpose_padded",
    kernel='''
TILE_WIDE = TILE + 2  # two spare words per row, "to be safe"


@cuda.jit
def transpose_padded(a, out):
    tile = cuda.shared.array((TILE, TILE_WIDE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for k in range(0, TILE, BLOCK_ROWS):
        if y + k < a.shape[0] and x < a.shape[1]:
            tile[ty + k, tx] = a[y + k, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for k in range(0, TILE, BLOCK_ROWS):
        if y + k < out.shape[0] and x < out.shape[1]:
            out[y + k, x] = tile[tx, ty + k]
''',
    fail=["conflicts"],
    passes=["public", "hidden", "bounds", "sync", "parallel", "memory"],
    reason="conflict",
    why=(
        "with rows of 34 words, tile[tx, c] is word 34 tx + c, bank (2 tx + c) % 32: lanes tx and "
        "tx + 16 fall in the same bank on different words, so every full-warp column read is a 2-way "
        "conflict (16 banks x 2 words, 2 wavefronts): 32 extra wavefronts on the public 32 x 32 (8 warps "
        "x 4 reads), 70 on the 40 x 70. The fill tile[ty + k, tx] (bank (2 r + tx) % 32) is conflict-free, "
        "and values, guards, the barrier and the 4-sector row accesses are the model's."
    ),
)

CASES["hok36_tiled_register_transpose_strided_loads"] = dict(
    exercise="09_transpose",
    part="transpose_tiled",
    kernel='''
@cuda.jit
def transpose_tiled(a, out):
    # no shared tile: each lane walks down a column of the block's tile of a, so that
    # the lanes of a warp store consecutive elements of a row of out
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    i = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        j = cuda.blockIdx.x * TILE + ty + k
        if i < a.shape[0] and j < a.shape[1]:
            out[j, i] = a[i, j]
''',
    fail=["memory"],
    passes=["public", "hidden", "bounds", "sync", "parallel"],
    reason="sector",
    why=(
        "the stores out[j, i] are 32 consecutive floats (4 sectors), but a warp's load a[i, j] takes "
        "32 lanes from 32 rows of a, cols * 4 bytes apart (280 bytes on the public 40 x 70): 32 sectors "
        "where the 128 bytes need 4, 28 more than allowed (one more); values are exact, no shared "
        "memory means no race, and each thread makes 4 outputs with 8 accesses."
    ),
)

CASES["hok36_tiled_warp0_stages_tile"] = dict(
    exercise="09_transpose",
    part="transpose_tiled",
    kernel='''
@cuda.jit
def transpose_tiled(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    r0 = cuda.blockIdx.y * TILE
    c0 = cuda.blockIdx.x * TILE
    if ty == 0:
        # warp 0 stages the whole tile, one row per step: every load is a full row
        for r in range(TILE):
            if r0 + r < a.shape[0] and c0 + tx < a.shape[1]:
                tile[r, tx] = a[r0 + r, c0 + tx]
    cuda.syncthreads()
    for k in range(0, TILE, BLOCK_ROWS):
        c = ty + k
        if c0 + c < out.shape[0] and r0 + tx < out.shape[1]:
            out[c0 + c, r0 + tx] = tile[tx, c]
''',
    fail=["parallel"],
    passes=["public", "hidden", "bounds", "sync", "memory"],
    reason='memory accesses',
    why=(
        "a lane of warp 0 makes 32 global loads and 32 shared stores for the fill, then 4 shared loads "
        "and 4 stores: 72 memory accesses on a full tile (the guide's own 'one warp loading the whole "
        "tile makes 72'), over the 2 x 16 + 8 = 40 allowed, and above 4 x the mean of the threads that "
        "touch memory ((32 x 72 + 224 x 8) / 256 = 16, 4 x 16 = 64); the barrier is outside the branch, "
        "every load is one row of 32 floats (4 sectors) and the values are exact."
    ),
)

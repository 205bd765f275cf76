"""Submissions for exercises 12_triton_softmax and 13_triton_matmul (built by build.py): the
mistakes of a first Triton kernel (a missing mask, an unstable softmax, a row whose blocks are
normalised alone, a K loop that drops its remainder, a kernel that calls torch), a kernel
that compiles on the interpreter only, and correct kernels in unusual styles.

The softmax runs one program per row with BLOCK = 128 columns; the matmul one program per
32 x 32 tile of C, BLOCK_K = 16, GROUP_M = 4. The notebooks define those constants.
"""

from __future__ import annotations

SM = "12_triton_softmax"
MM = "13_triton_matmul"
SM_DEF = "@triton.jit\ndef softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):\n"
MM_DEF = (
    "@triton.jit\n"
    "def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,\n"
    "                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,\n"
    "                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):\n"
)
SM_ALL = ["public", "hidden", "bounds", "parallel", "memory"]
MM_ALL = ["public", "hidden", "bounds", "memory", "l2"]

# The model's online pass: a running max and a running sum rescaled when the max grows.
_ONLINE = """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.max(tl.full([BLOCK], -float("inf"), tl.float32), axis=0)
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m
"""
_WRITE = """
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s, mask=mask)
"""

# The model's grouped tile and K loop, pieces a case changes one at a time.
_GROUPED = """
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * num_pid_n
    first_m = pid // in_group * GROUP_M
    size_m = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + pid % in_group % size_m
    pid_n = pid % in_group // size_m
"""
_TILE = """
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
"""
_LOOP = """
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk[None, :]) * stride_ak,
                    mask=(rm[:, None] < M) & (k + rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk[:, None]) * stride_bk + rn[None, :] * stride_bn,
                    mask=(k + rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
"""
_STORE = """
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
"""


def sm(body: str) -> str:
    return SM_DEF + body.strip("\n") + "\n"


def mm(body: str) -> str:
    return MM_DEF + body.strip("\n") + "\n"


_EVEN_LOOP = """
    for k in range(0, K, BLOCK_K):
        a_at = a_ptr + rm[:, None] * stride_am + (k + rk[None, :]) * stride_ak
        b_at = b_ptr + (k + rk[:, None]) * stride_bk + rn[None, :] * stride_bn
        if EVEN_K:  # no tile sticks out past K: only the M and N edges need masks
            a = tl.load(a_at, mask=rm[:, None] < M, other=0.0)
            b = tl.load(b_at, mask=rn[None, :] < N, other=0.0)
        else:
            a = tl.load(a_at, mask=(rm[:, None] < M) & (k + rk[None, :] < K), other=0.0)
            b = tl.load(b_at, mask=(k + rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
"""


def mm_even(divisor: str, annotation: str = ": tl.constexpr", loop: str = _EVEN_LOOP) -> str:
    """A matmul whose ``EVEN_K`` parameter a ``@triton.heuristics`` computes on the host."""
    deco = f'@triton.heuristics(values={{"EVEN_K": lambda args: args["K"] % {divisor} == 0}})\n'
    head = MM_DEF.replace("GROUP_M: tl.constexpr):", f"GROUP_M: tl.constexpr, EVEN_K{annotation}):")
    return deco + head + (_GROUPED + _TILE + loop + _STORE).strip("\n") + "\n"


CASES = {
    # -- 12: softmax ------------------------------------------------------------------------
    "triton_softmax_no_mask": dict(
        exercise=SM,
        part="softmax_kernel",
        fail=["public", "bounds"],
        passes=[],
        reason="without a mask",
        kernel=sm(
            """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = -float("inf")
    for start in range(0, n_cols, BLOCK):  # no mask: the last block runs past the row
        m = tl.maximum(m, tl.max(tl.load(x_ptr + row * x_stride + start + cols), axis=0))
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        s += tl.sum(tl.exp(tl.load(x_ptr + row * x_stride + start + cols) - m), axis=0)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * x_stride + start + cols)
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s)
"""
        ),
    ),
    "triton_softmax_unstable": dict(
        exercise=SM,
        part="softmax_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="got nan",
        kernel=sm(
            """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        s += tl.sum(tl.exp(x), axis=0)  # no max subtracted: exp overflows past 88
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x) / s, mask=mask)
"""
        ),
    ),
    "triton_softmax_blocks_normalised_alone": dict(
        exercise=SM,
        part="softmax_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel=sm(
            """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    for start in range(0, n_cols, BLOCK):  # each block of the row is its own softmax
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(y_ptr + row * y_stride + start + cols, e / tl.sum(e, axis=0), mask=mask)
"""
        ),
    ),
    "triton_softmax_calls_torch": dict(
        exercise=SM,
        part="softmax_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="torch is not a tl operation",
        kernel=sm(
            """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    tl.store(y_ptr + row * y_stride + cols, torch.softmax(x, 0), mask=mask)
"""
        ),
    ),
    "triton_softmax_three_passes": dict(
        exercise=SM,
        part="softmax_kernel",
        fail=["memory"],
        passes=["public", "hidden", "bounds", "parallel"],
        reason="3.00 loads of each element of x",
        kernel=sm(
            """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.max(tl.full([BLOCK], -float("inf"), tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):  # a second read of the row, only for the sum
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
        s += tl.sum(tl.exp(x - m), axis=0)
"""
            + _WRITE
        ),
    ),
    "triton_softmax_other_zero": dict(
        exercise=SM,
        part="softmax_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel=sm(
            _ONLINE.replace('other=-float("inf")', "other=0.0")  # masked lanes count as 0
            + _WRITE
        ),
    ),
    "triton_softmax_serial_program_zero": dict(
        exercise=SM,
        part="softmax_kernel",
        fail=["parallel"],
        passes=["public", "hidden", "bounds", "memory"],
        reason="program 0 stored into rows",
        kernel=sm(
            """
    if tl.program_id(0) == 0:  # program 0 does every row; the others do nothing
        cols = tl.arange(0, BLOCK)
        for row in range(0, 64):
            m = tl.max(tl.full([BLOCK], -float("inf"), tl.float32), axis=0)
            s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
            ok = row < tl.num_programs(0)
            for start in range(0, n_cols, BLOCK):
                mask = (start + cols < n_cols) & ok
                x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
                new_m = tl.maximum(m, tl.max(x, axis=0))
                s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
                m = new_m
            for start in range(0, n_cols, BLOCK):
                mask = (start + cols < n_cols) & ok
                x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=-float("inf"))
                tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s, mask=mask)
"""
        ),
    ),
    "triton_softmax_break_not_compiled": dict(
        exercise=SM,
        part="softmax_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="does not compile for sm_80",
        kernel=sm(
            _ONLINE.replace(
                "        mask = start + cols < n_cols\n",
                "        if start >= n_cols:  # the interpreter runs Python; Triton has no break\n"
                "            break\n"
                "        mask = start + cols < n_cols\n",
                1,
            )
            + _WRITE
        ),
    ),
    "triton_softmax_attack_open": dict(
        exercise=SM,
        part="softmax_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="open is not a tl operation",
        kernel=sm(
            """
    row = tl.program_id(0)
    open("/tmp/leak", "w").write("hidden cases")
"""
        ),
    ),
    "triton_softmax_attack_patch_tracer": dict(
        exercise=SM,
        part="softmax_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="assigning to .create_masked_load is not allowed",
        kernel=sm(
            """
    # switch off the grader's count of loads, then read the row three times for free
    triton.runtime.interpreter.InterpreterBuilder.create_masked_load = tl.load
"""
            + _ONLINE
            + _WRITE
        ),
    ),
    "triton_softmax_style_vector_state_and_helper": dict(
        exercise=SM,
        part="softmax_kernel",
        full=True,
        kernel="""
@triton.jit
def _rescale(m, s, x):
    # one online step per lane: lanes that have seen nothing keep (-inf, 0)
    new_m = tl.maximum(m, x)
    keep = tl.where(new_m == -float("inf"), 0.0, tl.exp(m - new_m))
    add = tl.where(x == -float("inf"), 0.0, tl.exp(x - new_m))
    return new_m, s * keep + add


"""
        + sm(
            """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=start + cols < n_cols,
                    other=-float("inf"))
        m, s = _rescale(m, s, x)
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m == -float("inf"), 0.0, s * tl.exp(m - row_max)), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - row_max) / total, mask=mask)
"""
        ),
    ),
    "triton_softmax_style_pointer_walk": dict(
        exercise=SM,
        part="softmax_kernel",
        full=True,
        kernel=sm(
            """
    row = tl.program_id(0)
    x_ptrs = x_ptr + row.to(tl.int64) * x_stride + tl.arange(0, BLOCK)
    left = n_cols - tl.arange(0, BLOCK)  # > 0 where a lane still has a column
    m = tl.max(tl.full([BLOCK], -float("inf"), tl.float32), axis=0)
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for _ in range(0, tl.cdiv(n_cols, BLOCK)):
        x = tl.load(x_ptrs, mask=left > 0, other=-float("inf"))
        big = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - big) + tl.sum(tl.exp(x - big), axis=0)
        m = big
        x_ptrs += BLOCK
        left -= BLOCK
    x_ptrs = x_ptr + row.to(tl.int64) * x_stride + tl.arange(0, BLOCK)
    y_ptrs = y_ptr + row.to(tl.int64) * y_stride + tl.arange(0, BLOCK)
    left = n_cols - tl.arange(0, BLOCK)
    inv = 1.0 / s
    for _ in range(0, tl.cdiv(n_cols, BLOCK)):
        x = tl.load(x_ptrs, mask=left > 0, other=0.0)
        tl.store(y_ptrs, tl.exp(x - m) * inv, mask=left > 0)
        x_ptrs += BLOCK
        y_ptrs += BLOCK
        left -= BLOCK
"""
        ),
    ),
    # -- 13: matmul -------------------------------------------------------------------------
    "triton_matmul_no_edge_masks": dict(
        exercise=MM,
        part="matmul_kernel",
        fail=["public", "bounds"],
        passes=[],
        reason="without a mask",
        kernel=mm(
            _GROUPED
            + _TILE
            + """
    for k in range(0, K, BLOCK_K):  # masks on K only: rows past M and columns past N go out
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk[None, :]) * stride_ak,
                    mask=k + rk[None, :] < K, other=0.0)
        b = tl.load(b_ptr + (k + rk[:, None]) * stride_bk + rn[None, :] * stride_bn,
                    mask=k + rk[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc)
"""
        ),
    ),
    "triton_matmul_forgets_k_remainder": dict(
        exercise=MM,
        part="matmul_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel=mm(
            _GROUPED
            + _TILE
            + """
    for kk in range(0, K // BLOCK_K):  # the last K % BLOCK_K columns of A are never used
        k = kk * BLOCK_K
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk[None, :]) * stride_ak,
                    mask=rm[:, None] < M, other=0.0)
        b = tl.load(b_ptr + (k + rk[:, None]) * stride_bk + rn[None, :] * stride_bn,
                    mask=rn[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
"""
            + _STORE
        ),
    ),
    "triton_matmul_row_major_order": dict(
        exercise=MM,
        part="matmul_kernel",
        fail=["l2"],
        passes=["public", "hidden", "bounds", "memory"],
        reason="GROUP_M = 4 needs",
        kernel=mm(
            """
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n  # row by row: 8 programs in a row share one panel of A only
    pid_n = pid % num_pid_n
"""
            + _TILE
            + _LOOP
            + _STORE
        ),
    ),
    "triton_matmul_calls_torch": dict(
        exercise=MM,
        part="matmul_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="torch is not a tl operation",
        kernel=mm(
            _GROUPED
            + _TILE
            + _LOOP.replace('tl.dot(a, b, acc, input_precision="ieee")', "acc + torch.matmul(a, b)")
            + _STORE
        ),
    ),
    "triton_matmul_strides_swapped": dict(
        exercise=MM,
        part="matmul_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel=mm(
            _GROUPED
            + _TILE
            + _LOOP.replace(
                "rm[:, None] * stride_am + (k + rk[None, :]) * stride_ak",
                "rm[:, None] * stride_ak + (k + rk[None, :]) * stride_am",
            )
            + _STORE
        ),
    ),
    "triton_matmul_accumulator_overwritten": dict(
        exercise=MM,
        part="matmul_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel=mm(
            _GROUPED
            + _TILE
            + _LOOP.replace(
                'acc = tl.dot(a, b, acc, input_precision="ieee")',
                'acc = tl.dot(a, b, input_precision="ieee")  # keeps the last step only',
            )
            + _STORE
        ),
    ),
    "triton_matmul_reloads_a_per_half": dict(
        exercise=MM,
        part="matmul_kernel",
        fail=["memory"],
        passes=["public", "hidden", "bounds", "l2"],
        reason="loads of A and B per element of C",
        kernel=mm(
            _GROUPED
            + """
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rk = tl.arange(0, BLOCK_K)
    for h in range(0, 2):  # the tile of C in two halves: A is loaded again for each half
        rn = pid_n * BLOCK_N + h * (BLOCK_N // 2) + tl.arange(0, BLOCK_N // 2)
        acc = tl.zeros((BLOCK_M, BLOCK_N // 2), dtype=tl.float32)
"""
            + _LOOP.replace("\n    ", "\n        ")
            + _STORE.replace("\n    ", "\n        ")
        ),
    ),
    "triton_matmul_style_pointer_advance": dict(
        exercise=MM,
        part="matmul_kernel",
        full=True,
        kernel=mm(
            """
    pid = tl.program_id(0)
    grid_n = (N + BLOCK_N - 1) // BLOCK_N
    grid_m = (M + BLOCK_M - 1) // BLOCK_M
    # grouped by columns of tiles instead of rows: as good for the L2 cache
    width = GROUP_M * grid_m
    first_n = (pid // width) * GROUP_M
    size_n = min(grid_n - first_n, GROUP_M)
    pid_n = first_n + (pid % width) % size_n
    pid_m = (pid % width) // size_n
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < left) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
"""
        ),
    ),
    "triton_matmul_style_broadcast_sum": dict(
        exercise=MM,
        part="matmul_kernel",
        full=True,
        kernel=mm(
            _GROUPED
            + _TILE
            + _LOOP.replace(
                'acc = tl.dot(a, b, acc, input_precision="ieee")',
                "acc += tl.sum(a[:, :, None] * b[None, :, :], axis=1)  # the product, spelled out",
            )
            + _STORE
        ),
    ),
    # -- @triton.heuristics: the grader computes the lambda per launch ---------------------
    "triton_matmul_heuristic_even_k": dict(
        exercise=MM,
        part="matmul_kernel",
        full=True,
        kernel=mm_even('args["BLOCK_K"]'),
    ),
    "triton_matmul_heuristic_runtime_flag": dict(
        exercise=MM,
        part="matmul_kernel",
        full=True,  # EVEN_K not a constexpr: a runtime i1, both branches compiled
        kernel=mm_even('args["BLOCK_K"]', annotation=""),
    ),
    "triton_matmul_heuristic_wrong_divisor": dict(
        exercise=MM,
        part="matmul_kernel",
        # K % 8 == 0 is not K % BLOCK_K == 0: K = 40 loads 8 columns past K unmasked. The
        # public Ks (33, 32, 16) give the right flag; hidden ones such as 40 or 24 do not.
        fail=["hidden", "bounds"],
        passes=["public"],
        reason="outside every tensor",
        kernel=mm_even("8"),
    ),
    "triton_matmul_heuristic_branch_not_compiled": dict(
        exercise=MM,
        part="matmul_kernel",
        # The interpreter runs a break; Triton's compiler refuses it in the branch it compiles
        # for EVEN_K = False, and never sees it for EVEN_K = True (a constexpr if).
        fail=MM_ALL,
        passes=[],
        reason="does not compile",
        kernel=mm_even(
            'args["BLOCK_K"]',
            loop=_EVEN_LOOP.replace(
                "        else:\n",
                "        else:\n            if k > K:\n                break\n",
            ),
        ),
    ),
}

"""Fresh submissions for exercises 12_triton_softmax and 13_triton_matmul (built by build.py):
styles copied from Triton's tutorials (full marks), kernels a GPU would get wrong, and
attempts to fool a measure.

The softmax runs one program per row with BLOCK = 128 columns; the matmul one program per
32 x 32 tile of C, BLOCK_K = 16, GROUP_M = 4. The notebooks define those constants.
"""

from __future__ import annotations

SM = "12_triton_softmax"
MM = "13_triton_matmul"
SM_DEF = "def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):\n"
MM_DEF = (
    "def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,\n"
    "                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,\n"
    "                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):\n"
)


def sm(body: str, decorators: str = "@triton.jit\n") -> str:
    return decorators + SM_DEF + body.strip("\n") + "\n"


def mm(body: str, decorators: str = "@triton.jit\n") -> str:
    return decorators + MM_DEF + body.strip("\n") + "\n"


# An online (max, sum) pass over the row's blocks, then the normalised write.
_ONLINE = """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * x_stride
    m = tl.max(tl.full([BLOCK], -float("inf"), tl.float32), axis=0)
    s = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + start + cols, tl.exp(x - m) / s, mask=mask)
"""

# The tutorial's grouped order, then a K loop and the masked store.
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

CASES: dict = {
    # -- 12 softmax --------------------------------------------------------------------------
    "hon_sm_style_heuristics_num_warps": dict(
        # the heuristic runs on the host before the launch: no part of the kernel
        exercise=SM,
        part="softmax_kernel",
        full=True,
        kernel=sm(
            _ONLINE,
            '@triton.heuristics({"num_warps": lambda args: 8 if args["n_cols"] > 2048 else 4})\n'
            "@triton.jit\n",
        ),
    ),
    "hon_sm_style_rows_last_first": dict(
        # one row per program, taken from the last: a GPU runs the programs in no set order
        exercise=SM,
        part="softmax_kernel",
        full=True,
        kernel=sm(
            _ONLINE.replace(
                "row = tl.program_id(0)", "row = tl.num_programs(0) - 1 - tl.program_id(0)"
            )
        ),
    ),
    "hon_sm_gaming_heuristic_computes_on_host": dict(
        # torch's softmax in a heuristic that writes y on the host; the kernel stores nothing
        exercise=SM,
        part="softmax_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="nothing was stored there",
        kernel=sm(
            """
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    tl.store(y_ptr + row * y_stride + cols, tl.zeros([BLOCK], tl.float32), mask=cols < 0)
""",
            "@triton.heuristics(\n"
            '    {"num_warps": lambda args: args["y_ptr"][:, : args["n_cols"]].copy_(\n'
            '        torch.softmax(args["x_ptr"][:, : args["n_cols"]], dim=1)) is None or 4}\n'
            ")\n@triton.jit\n",
        ),
    ),
    # -- 13 matmul ---------------------------------------------------------------------------
    "hon_mm_style_autotune_pipelined_range": dict(
        # configs of warps and stages only: the block sizes are the exercise's
        exercise=MM,
        part="matmul_kernel",
        full=True,
        kernel=mm(
            _GROUPED
            + _TILE
            + """
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    for kk in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=3):
        k_left = K - kk * BLOCK_K
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, out_dtype=tl.float32, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, c,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
""",
            "@triton.autotune(\n"
            "    configs=[\n"
            "        triton.Config({}, num_stages=3, num_warps=4),\n"
            "        triton.Config({}, num_stages=4, num_warps=8),\n"
            "    ],\n"
            '    key=["M", "N", "K"],\n'
            ")\n@triton.jit\n",
        ),
    ),
    "hon_mm_style_swizzle2d": dict(
        # Triton's own grouping helper on the row-major tile index
        exercise=MM,
        part="matmul_kernel",
        full=True,
        kernel=mm(
            """
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = tl.swizzle2d(pid // num_pid_n, pid % num_pid_n, num_pid_m, num_pid_n, GROUP_M)
"""
            + _TILE
            + _LOOP
            + _STORE
        ),
    ),
    "hon_mm_row_major_atomic_into_c00": dict(
        # a row-major order plus one atomic add of 0.0 into C[0, 0] by every program: the
        # first element each program stores is then in tile (0, 0)
        exercise=MM,
        part="matmul_kernel",
        fail=["l2"],
        passes=["public", "hidden", "bounds"],
        reason="GROUP_M = 4 needs",
        kernel=mm(
            """
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
"""
            + _TILE
            + _LOOP
            + _STORE
            + "    tl.atomic_add(c_ptr, 0.0)\n"
        ),
    ),
    "hon_mm_clears_next_tile_first": dict(
        # program p zeroes the tile of program p + 1 before its own: right only when the
        # programs run in order, as they do in Triton's interpreter and not on a GPU
        exercise=MM,
        part="matmul_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="a race between programs",
        kernel=mm(
            _GROUPED
            + _TILE
            + """
    nxt = pid + 1
    n_first = nxt // in_group * GROUP_M
    n_size = min(num_pid_m - n_first, GROUP_M)
    qm = (n_first + nxt % in_group % n_size) * BLOCK_M + tl.arange(0, BLOCK_M)
    qn = (nxt % in_group // n_size) * BLOCK_N + tl.arange(0, BLOCK_N)
    busy = nxt < num_pid_m * num_pid_n
    tl.store(c_ptr + qm[:, None] * stride_cm + qn[None, :] * stride_cn, acc,
             mask=(qm[:, None] < M) & (qn[None, :] < N) & busy)
"""
            + _LOOP
            + _STORE
        ),
    ),
    "hon_mm_float64_dot": dict(
        # Triton has no float64 tl.dot for sm_80: the compiler refuses it, with its line
        exercise=MM,
        part="matmul_kernel",
        fail=["public", "hidden"],
        passes=[],
        reason="kernel line 17: acc = tl.dot(a.to(tl.float64)",
        kernel=mm(
            _GROUPED
            + _TILE.replace("dtype=tl.float32", "dtype=tl.float64")
            + _LOOP.replace(
                'acc = tl.dot(a, b, acc, input_precision="ieee")',
                "acc = tl.dot(a.to(tl.float64), b.to(tl.float64), acc)",
            )
            + _STORE.replace("stride_cn, acc,", "stride_cn, acc.to(tl.float32),")
        ),
    ),
}

"""Exercises 12 and 13: a row softmax and a tiled matmul in Triton (specs, cases, criteria).

Each part is a plug-in of ``pdc.grade.exercises``: ``pdc.grade.triton.runner`` grades it.
Arrays are float32; integer arguments are int32 (Triton's ``i32``). Constexprs (block sizes)
are the exercise's constants, passed by name at launch, as the notebook does.
"""

from __future__ import annotations

import math

import numpy as np

from pdc.grade import exercises as exs

from . import criteria

SOFTMAX_BLOCK = 128
MM = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16, "GROUP_M": 4}  # BLOCK_M = BLOCK_N
PAD = criteria.PAD  # outputs before a launch; the padding after a row must stay so


def softmax_spec(x: np.ndarray) -> np.ndarray:
    """Reference: softmax of each row, computed in float64 with the row's max subtracted."""
    z = x.astype(np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def matmul_spec(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Reference: the matrix product, accumulated in float64."""
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


# -- 12 softmax ---------------------------------------------------------------------------------
SOFTMAX_PARAMS = ("x_ptr", "y_ptr", "n_cols", "x_stride", "y_stride", "BLOCK")


#: A row shifted by at least this lies wholly past where float32's exp over- or underflows
#: (exp(88.8) = inf, exp(-104) = 0): only a kernel that subtracts the row's max survives it.
FAR = 110.0


def make_softmax(rng, sizes) -> exs.Case:
    """A case: ``rows`` rows of ``cols`` values, each row shifted by up to ``shift``, stored
    with ``pad`` spare elements after each row (a stride wider than the row); optionally
    (a fifth size, ``rise``) each row's first ``BLOCK`` values lie ``rise`` below the rest.

    Where ``shift >= FAR``, row 0 is shifted below ``-FAR`` and row 1 above ``FAR``: a
    uniform draw of the shifts could leave every row of a case near zero or on one side of it,
    and a kernel that starts its running max at 0 would pass by chance. Where ``rise`` is
    past exp's range, a kernel that keeps the first block's max and never rescales stores inf
    or NaN: the row's max is in a later block.
    """
    rows, cols, shift, pad = sizes[:4]
    rise = float(sizes[4]) if len(sizes) > 4 else 0.0
    x = np.full((rows, cols + pad), np.float32(123.0), np.float32)  # padding: never read
    values = rng.uniform(-4, 4, (rows, cols))
    values[:, :SOFTMAX_BLOCK] -= rise
    offsets = rng.uniform(-shift, shift, (rows, 1))
    if shift >= FAR:
        offsets[:2] = np.maximum(np.abs(offsets[:2]), FAR) * np.array([[-1.0], [1.0]])[:rows]
    x[:, :cols] = values + offsets
    ypad = int(rng.integers(0, 3))
    y = np.full((rows, cols + ypad), np.float32(PAD), np.float32)
    args = {
        "x_ptr": x,
        "y_ptr": y,
        "n_cols": np.int32(cols),
        "x_stride": np.int32(x.shape[1]),
        "y_stride": np.int32(y.shape[1]),
    }
    body = x[:, :cols]
    dims = {"rows": rows, "n": cols, "shift": shift, "pad": pad, "rise": rise}
    # the highest row's smallest value, and the lowest row's largest
    dims.update(high=float(body.min(axis=1).max()), low=float(body.max(axis=1).min()))
    return exs.Case(f"{rows} rows x {cols}", args, ("y_ptr",), (rows,), (4,), dims=dims)


def softmax_reference(args: dict) -> dict:
    cols = int(args["n_cols"])
    y = np.full_like(args["y_ptr"], PAD)
    y[:, :cols] = softmax_spec(args["x_ptr"][:, :cols])
    return {"y_ptr": y}


#: The hidden wide row spans more than WIDE_BLOCKS[0] and fewer than WIDE_BLOCKS[1] blocks.
WIDE_BLOCKS = (8, 24)


def _hidden_softmax(rng) -> list:
    b = SOFTMAX_BLOCK

    def rows():
        return int(rng.integers(1, 9))

    def pad():
        return int(rng.integers(0, 6))

    def k():
        return int(rng.integers(2, 5))

    return [
        (int(rng.integers(2, 9)), k() * b - 1, 1000.0, pad()),  # rows 0 and 1 past +-FAR
        (rows(), int(rng.integers(1, 4)) * b + 1, 3.0, pad()),
        (rows(), k() * b, float(rng.uniform(FAR, 1000)), int(rng.integers(1, 6))),
        (rows(), int(rng.integers(2, b)), 500.0, pad()),
        (int(rng.integers(2, 20)), 1, 3.0, pad()),
        # A row wider than the notebook's own example (1000 columns), drawn anew each time: a
        # kernel that loads a row in one tile of a fixed width (tl.arange(0, 4 * BLOCK))
        # handles every narrower row and fails here.
        (
            int(rng.integers(1, 3)),
            int(rng.integers(WIDE_BLOCKS[0] * b + 1, WIDE_BLOCKS[1] * b)),
            3.0,
            pad(),
        ),
        # Each row's first block lies far below the rest: its max is in a later block.
        (rows(), k() * b + int(rng.integers(0, b)), 3.0, pad(), float(rng.uniform(FAR, 300))),
    ]


SOFTMAX_BOUNDARIES = {
    f"a row wider than {WIDE_BLOCKS[0]} blocks": lambda c: (
        c.dims["n"] > WIDE_BLOCKS[0] * SOFTMAX_BLOCK
    ),
    **exs.edges_1d(SOFTMAX_BLOCK, "n", "BLOCK"),
    "a row narrower than one block (1 < n < BLOCK)": lambda c: 1 < c.dims["n"] < SOFTMAX_BLOCK,
    "rows of one element": lambda c: c.dims["n"] == 1,
    "a row whose every value is above 88.8 (exp overflows float32)": lambda c: (
        c.dims["high"] > 88.8
    ),
    "a row whose every value is below -104 (exp underflows float32 to 0)": lambda c: (
        c.dims["low"] < -104.0
    ),
    "rows stored with a stride wider than the row": lambda c: c.dims["pad"] > 0,
    "rows whose first block lies over 88.8 below the rest (a max kept from the first block "
    "overflows exp)": lambda c: c.dims["rise"] > 88.8 and c.dims["n"] > SOFTMAX_BLOCK,
}


SOFTMAX = exs.Exercise(
    "12_triton_softmax",
    "A fused row softmax in Triton",
    [
        exs.Part(
            "softmax_kernel",
            "y = softmax(x) by rows, one program per row",
            SOFTMAX_PARAMS,
            public=[(3, 300, 1000.0, 2), (5, SOFTMAX_BLOCK, 2.0, 0), (2, 7, 2.0, 1)],
            hidden=_hidden_softmax,
            domain=f"rows >= 1, any n_cols >= 1 (hidden: up to "
            f"{WIDE_BLOCKS[1] * SOFTMAX_BLOCK}), rows shifted by up to 1000 (hidden: a row's first "
            "block up to 300 below the rest), row strides >= "
            f"n_cols; BLOCK = {SOFTMAX_BLOCK}",
            boundaries=SOFTMAX_BOUNDARIES,
            make=make_softmax,
            reference=softmax_reference,
            points={"public": 2, "hidden": 2, "bounds": 1, "parallel": 1, "memory": 1},
            rtol=1e-4,
            atol=1e-6,
            titles=criteria.TITLES,
            judges={"parallel": criteria.one_program_per_row, "memory": criteria.softmax_loads},
        )
    ],
    {"BLOCK": SOFTMAX_BLOCK},
)


# -- 13 matmul ----------------------------------------------------------------------------------
MATMUL_PARAMS = (
    "a_ptr",
    "b_ptr",
    "c_ptr",
    "M",
    "N",
    "K",
    "stride_am",
    "stride_ak",
    "stride_bk",
    "stride_bn",
    "stride_cm",
    "stride_cn",
    *MM,
)


def matmul_grid(m: int, n: int) -> tuple:
    """One program per BLOCK_M x BLOCK_N tile of C, on a 1-D grid."""
    return (math.ceil(m / MM["BLOCK_M"]) * math.ceil(n / MM["BLOCK_N"]),)


def _stored(x: np.ndarray, transposed: bool) -> tuple[np.ndarray, int, int]:
    """``x``'s buffer and its (row, column) strides in elements: row-major, or column-major
    (what ``matmul(a, b.T)`` of a row-major ``b`` passes: the strides say which)."""
    if transposed:
        return np.ascontiguousarray(x.T), 1, x.shape[0]
    return x, x.shape[1], 1


def _logical(buf: np.ndarray, rows: int, cols: int, s_row: int, s_col: int) -> np.ndarray:
    """The (rows, cols) matrix a buffer holds at the given element strides."""
    item = buf.itemsize
    flat = buf.reshape(-1)
    return np.lib.stride_tricks.as_strided(flat, (rows, cols), (s_row * item, s_col * item))


def make_matmul(rng, sizes) -> exs.Case:
    """A case of ``(M, K, N)``, or ``(M, K, N, "A")`` / ``(M, K, N, "B")``: that input stored
    transposed (column-major), its strides passed as they are."""
    m, k, n, *layout = sizes
    transposed = layout[0] if layout else ""
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    c = np.full((m, n), np.float32(PAD), np.float32)
    a, sam, sak = _stored(a, transposed == "A")
    b, sbk, sbn = _stored(b, transposed == "B")
    i32 = np.int32
    args = {"a_ptr": a, "b_ptr": b, "c_ptr": c, "M": i32(m), "N": i32(n), "K": i32(k)}
    args.update(stride_am=i32(sam), stride_ak=i32(sak), stride_bk=i32(sbk), stride_bn=i32(sbn))
    args.update(stride_cm=i32(n), stride_cn=i32(1))
    dims = {"m": m, "k": k, "n": n, "transposed": transposed}
    label = f"A {m}x{k} @ B {k}x{n}" + (f" ({transposed} stored transposed)" if transposed else "")
    return exs.Case(label, args, ("c_ptr",), matmul_grid(m, n), (4,), dims=dims)


def _hidden_matmul(rng) -> list:
    """(M, K, N) sizes: every draw has each boundary of ``MATMUL_BOUNDARIES``.

    The interpreter takes about 20 ms per program and K step, so the grid that shows the
    launch order (8 x 8 tiles, two groups each way) has K below one BLOCK_K.
    """
    bm, bk = MM["BLOCK_M"], MM["BLOCK_K"]

    def near(side):
        return int(rng.integers(1, 4)) * bm + side

    def ragged_k():
        return int(rng.integers(1, 3)) * bk + int(rng.integers(1, bk))

    wide = 2 * MM["GROUP_M"] * bm
    return [
        (near(-1), ragged_k(), near(-1), "A"),  # a kernel must use the strides it is given
        (near(+1), int(rng.integers(1, 3)) * bk, near(+1), "B"),
        (int(rng.integers(1, 80)), int(rng.integers(1, bk)), int(rng.integers(1, 80))),
        (
            wide - int(rng.integers(0, bm)),
            int(rng.integers(1, bk)),
            wide - int(rng.integers(0, bm)),
        ),
        (1, ragged_k(), int(rng.integers(2, 100))),
    ]


def _tiles(c, key):
    return math.ceil(c.dims[key] / MM["BLOCK_M" if key == "m" else "BLOCK_N"])


def _edge(key: str, rest: int):
    return lambda c: c.dims[key] % MM["BLOCK_M"] == rest and c.dims[key] > 1


MATMUL_BOUNDARIES = {
    **{
        f"{key} one {side} a multiple of BLOCK_{key.upper()}": _edge(key, rest)
        for key in ("m", "n")
        for side, rest in (("below", MM["BLOCK_M"] - 1), ("above", 1))
    },
    "K not a multiple of BLOCK_K": lambda c: c.dims["k"] % MM["BLOCK_K"] != 0,
    "K a multiple of BLOCK_K": lambda c: c.dims["k"] % MM["BLOCK_K"] == 0,
    "K shorter than one BLOCK_K": lambda c: c.dims["k"] < MM["BLOCK_K"],
    "a grid at least two groups tall and wide (launch order shows)": lambda c: (
        _tiles(c, "m") >= 2 * MM["GROUP_M"] and _tiles(c, "n") >= 2 * MM["GROUP_M"]
    ),
    "A with one row": lambda c: c.dims["m"] == 1,
    "A stored transposed (stride_ak != 1)": lambda c: c.dims["transposed"] == "A",
    "B stored transposed (stride_bn != 1)": lambda c: c.dims["transposed"] == "B",
}


def matmul_reference(args: dict) -> dict:
    m, n, k = (int(args[d]) for d in ("M", "N", "K"))
    a = _logical(args["a_ptr"], m, k, int(args["stride_am"]), int(args["stride_ak"]))
    b = _logical(args["b_ptr"], k, n, int(args["stride_bk"]), int(args["stride_bn"]))
    return {"c_ptr": matmul_spec(a, b)}


MATMUL = exs.Exercise(
    "13_triton_matmul",
    "A tiled matmul in Triton, with a grouped launch order",
    [
        exs.Part(
            "matmul_kernel",
            "C = A @ B, one program per tile of C, grouped launch order",
            MATMUL_PARAMS,
            public=[(40, 33, 50), (64, 32, 64), (8 * MM["BLOCK_M"], 16, 8 * MM["BLOCK_N"])],
            hidden=_hidden_matmul,
            domain="A (M, K) @ B (K, N), any M, K, N >= 1 (hidden: M, N up to 256, K up to 47), "
            "A or B stored transposed (their strides say so); "
            + ", ".join(f"{k} = {v}" for k, v in MM.items()),
            boundaries=MATMUL_BOUNDARIES,
            make=make_matmul,
            reference=matmul_reference,
            points={"public": 2, "hidden": 2, "bounds": 1, "memory": 1, "l2": 1},
            rtol=1e-3,
            atol=1e-4,
            titles=criteria.TITLES,
            judges={"memory": criteria.matmul_loads, "l2": criteria.grouped_order},
        )
    ],
    dict(MM),
)


def _plug(ex: exs.Exercise) -> exs.Exercise:
    from . import runner

    for part in ex.parts:
        part.runner, part.checker = runner.grade_part, runner.check_kernel
    return ex


SOFTMAX, MATMUL = _plug(SOFTMAX), _plug(MATMUL)
PARTS = {ex.parts[0].name: ex for ex in (SOFTMAX, MATMUL)}


def triton_type(value) -> str:
    """Triton's name for an argument's type: ``*fp32`` for a float32 array, ``i32``..."""
    if isinstance(value, np.ndarray):
        return "*" + {"float32": "fp32", "float16": "fp16", "int32": "i32"}[value.dtype.name]
    return {"int32": "i32", "int64": "i64", "float32": "fp32"}[np.asarray(value).dtype.name]


def compile_spec(name: str) -> dict:
    """How ``pdc ptx`` and the grader's gate compile an exercise kernel (first public case)."""
    ex = PARTS[name]
    part = ex.parts[0]
    case = exs.public_cases(part)[0]
    signature = {k: triton_type(v) for k, v in case.args.items()}
    return {"signature": signature, "constexprs": dict(ex.constants), "num_warps": 4}

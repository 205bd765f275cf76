"""Shared ways to draw an exercise's cases: random inputs, launch grids, sizes at the edges.

Exercise modules (pdc.grade.exercises) draw their public and hidden cases with these, and
name the boundaries every draw must reach with ``edges_1d`` and ``edges_2d``.
"""

from __future__ import annotations

import math

import numpy as np


def rand(rng, shape, dtype=np.float32):
    """Values uniform in [-1, 1) of ``shape`` (float32 unless ``dtype`` says otherwise)."""
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def grid1(n, tpb):
    """Blocks of ``tpb`` threads that cover ``n`` elements (at least one)."""
    return (max(1, math.ceil(n / tpb)),)


def grid2(rows, cols, tile):
    """A (x, y) grid of ``tile`` x ``tile`` blocks over a ``rows`` x ``cols`` array."""
    return (max(1, math.ceil(cols / tile)), max(1, math.ceil(rows / tile)))


def near_multiple(rng, step, most, side, least=1):
    """A size one below (side=-1) or above (side=+1) a random multiple of ``step``.

    The multiple is ``k * step`` with ``least <= k < most // step``.
    """
    k = int(rng.integers(least, max(least + 1, most // step)))
    return max(1, k * step + side)


def past_public(step, public_sizes) -> int:
    """The least size that needs more blocks of ``step`` than any public size does.

    A hidden draw reaches past it on every seed: a kernel that knows the public sizes (a
    bound of 1000, a slot for each of their 8 blocks) must meet a size it did not see.
    """
    return math.ceil(max(public_sizes) / step) * step + 1


def hidden_1d(step, most, public):
    """Sizes just below and above a multiple of the block, an exact multiple, fewer elements
    than a warp (never a public size: a kernel that knows those gains nothing), and a size
    needing more blocks than any public size (``past_public``)."""
    least = past_public(step, [n for (n,) in public])
    if least >= most:
        raise ValueError(
            f"[hidden_1d] expected most > {least} (past the public sizes {public}), got {most}"
        )

    def draw(rng):
        def fresh(make):  # drawn again while it is a public size
            n = make()
            while (n,) in public:
                n = make()
            return (n,)

        return [
            fresh(lambda: near_multiple(rng, step, most, -1)),
            fresh(lambda: near_multiple(rng, step, most, +1)),
            fresh(lambda: near_multiple(rng, step, most, 0, least=2)),
            fresh(lambda: int(rng.integers(2, 32))),
            fresh(lambda: int(rng.integers(least, most))),
        ]

    return draw


def edges_1d(step: int, key: str = "n", what: str = "the block") -> dict:
    """Boundaries of a 1-D size: one below, one above and exactly a multiple of ``step``.

    Args:
        step: The block (or tile) size the launch rounds up to.
        key: The name of the size in ``Case.dims``.
        what: How the boundary names ``step`` (``"TPB"``, ``"the grid's width"``).

    Returns:
        name -> predicate(Case), for ``Part.boundaries``.
    """
    return {
        f"{key} one below a multiple of {what}": lambda c: c.dims[key] % step == step - 1,
        f"{key} one above a multiple of {what}": lambda c: (
            c.dims[key] % step == 1 and c.dims[key] > step
        ),
        f"{key} an exact multiple of {what}, two blocks or more": lambda c: (
            c.dims[key] % step == 0 and c.dims[key] >= 2 * step
        ),
    }


def small(key: str = "n") -> dict:
    """The boundary of a 1-D size smaller than a warp."""
    return {f"{key} below a warp (32)": lambda c: 1 < c.dims[key] < 32}


def edges_2d(tile: int, rows: str, cols: str) -> dict:
    """Boundaries of a 2-D shape: each dimension one below and one above a tile multiple.

    Args:
        tile: The tile size the launch rounds up to.
        rows: The name of one size in ``Case.dims``.
        cols: The name of the other (the same name for one dimension only).

    Returns:
        name -> predicate(Case), for ``Part.boundaries``.
    """
    out = {}
    for key in (rows, cols):
        for name, rest in (("below", tile - 1), ("above", 1)):
            out[f"{key} one {name} a multiple of TILE"] = lambda c, key=key, rest=rest: (
                c.dims[key] % tile == rest and c.dims[key] > 1
            )
    return out

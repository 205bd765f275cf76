"""Exercise 04: a 2-D blur with replicated borders, then tiled in shared memory."""

from __future__ import annotations

import math

import numpy as np

from pdc.grade.sizes import edges_2d, grid2, rand
from pdc.grade.spec import Case, Exercise, Part

TILE = 16
RADIUS = 2  # the tiled blur's filter is (2 * RADIUS + 1) x (2 * RADIUS + 1)
BLUR_KS = (1, 3, 5, 7, 9)  # filter sizes of blur2d's hidden cases


def blur2d_spec(img, w):
    """Reference: 'same'-size 2-D correlation, borders replicate the nearest edge pixel."""
    r = w.shape[0] // 2
    padded = np.pad(img, r, mode="edge")
    out = np.zeros_like(img)
    for dy in range(w.shape[0]):
        for dx in range(w.shape[1]):
            out += w[dy, dx] * padded[dy : dy + img.shape[0], dx : dx + img.shape[1]]
    return out.astype(np.float32)


def _make_blur(rng, sizes):
    h, wd, k = sizes
    w = rng.uniform(0, 1, size=(k, k)).astype(np.float32)
    w /= w.sum()
    args = {"img": rand(rng, (h, wd)), "w": w, "out": np.zeros((h, wd), np.float32)}
    return Case(
        f"image {h}x{wd}, filter {k}x{k}",
        args,
        ("out",),
        grid2(h, wd, TILE),
        (TILE, TILE),
        dims={"h": h, "w": wd, "k": k},
    )


def _hidden_blur(ks):
    # Heights and widths a pixel short of and past one or two tiles (each side of each
    # dimension on every draw), an image smaller than the largest filter, and any image. The
    # pixel past a tile lies beyond the largest public image (20 x 33) in both dimensions.
    def draw(rng):
        def edge(side, tiles=(1, 2)):
            return int(rng.choice(tiles)) * TILE + side

        big = max(ks)
        return [
            (edge(-1), edge(+1, (3, 4)), int(rng.choice(ks))),
            (edge(+1, (2, 3)), edge(-1), int(rng.choice(ks))),
            (int(rng.integers(1, big)), int(rng.integers(1, big)), big),
            (int(rng.integers(5, 45)), int(rng.integers(5, 45)), min(ks)),
        ]

    return draw


def _blur_boundaries(ks) -> dict:
    out = {
        **edges_2d(TILE, "h", "w"),
        "an image smaller than the filter in both dimensions": lambda c: (
            c.dims["h"] < c.dims["k"] and c.dims["w"] < c.dims["k"]
        ),
    }
    if len(ks) > 1:
        out[f"K = {min(ks)}"] = lambda c: c.dims["k"] == min(ks)
        out[f"K = {max(ks)}"] = lambda c: c.dims["k"] == max(ks)
    return out


def _pixel_work(case) -> int:
    """Memory operations one thread may make for its pixel: per tap a read of img and of w,
    and a read and write of an accumulator kept in memory (4 K * K), plus a few; a thread that
    blurs a whole tile for the others makes hundreds per pixel."""
    return 4 * case.dims["k"] ** 2 + 8


def _blur_loads(case, loads):
    outputs = case.dims["h"] * case.dims["w"]
    per_output = loads["img"].sum() / outputs
    # One load per element of each block's halo'd tile; a naive blur makes K*K per pixel.
    halo = (TILE + 2 * RADIUS) ** 2 * math.prod(case.grid)
    return per_output, halo / outputs + 1


CONV2D = Exercise(
    "04_conv2d",
    "2-D convolution (image blur)",
    [
        Part(
            "blur2d",
            "blur with replicated borders",
            ("img", "w", "out"),
            public=[(20, 33, 5), (16, 16, 3), (3, 5, 5)],
            hidden=_hidden_blur(BLUR_KS),
            domain=f"image h x w >= 1 x 1, any odd square filter (hidden: K in {BLUR_KS}); "
            f"TILE = {TILE}",
            boundaries=_blur_boundaries(BLUR_KS),
            make=_make_blur,
            reference=lambda a: {"out": blur2d_spec(a["img"], a["w"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "parallel": 1},
            max_stores=1,
            max_work=_pixel_work,
            work_what="expected for one pixel (K x K taps)",
        ),
        Part(
            "blur2d_tiled",
            "the same blur, tiled in shared memory",
            ("img", "w", "out"),
            public=[(20, 33, 5), (16, 16, 5)],
            hidden=_hidden_blur([2 * RADIUS + 1]),
            domain=f"image h x w >= 1 x 1, filter K = 2R + 1 = {2 * RADIUS + 1}; TILE = {TILE}",
            boundaries=_blur_boundaries([2 * RADIUS + 1]),
            make=_make_blur,
            reference=lambda a: {"out": blur2d_spec(a["img"], a["w"])},
            points={"public": 1, "hidden": 1, "bounds": 1, "sync": 1, "memory": 2},
            max_stores=1,
            global_loads=_blur_loads,
        ),
    ],
    {"TILE": TILE, "R": RADIUS},
)

EXERCISE = CONV2D

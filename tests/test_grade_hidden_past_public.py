"""Every hidden draw reaches past the public sizes: a kernel that knows them gains nothing.

A kernel bounded by the largest public size (``if i < 1000``), or keeping one slot per public
block (eight totals for n = 1000), is right on every public case; on a GPU it fails the first
larger input. Each seed's hidden cases must contain, along every size of the part, one larger
than all public ones, and along every axis where the launch grid grows with the input, a grid
larger than all public grids.
"""

from __future__ import annotations

import numpy as np
import pytest

from pdc.grade import exercises as exs

KEYS = (
    "01_elementwise",
    "02_conv1d",
    "03_matmul",
    "04_conv2d",
    "05_reduction",
    "07_histogram",
    "08_scan",
)
PARTS = [p for key in KEYS for p in exs.exercise(key).parts]
SEEDS = range(60)


def _sizes(case_sizes) -> list[int]:
    return [v for v in case_sizes if isinstance(v, int)]


@pytest.mark.parametrize("part", PARTS, ids=[p.name for p in PARTS])
def test_every_draw_has_a_size_past_the_public_ones(part):
    public = [_sizes(s) for s in part.public]
    public_grids = [c.grid for c in exs.public_cases(part)]
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        drawn = [_sizes(s) for s in part.hidden(rng)]
        for d in range(len(public[0])):
            if len({s[d] for s in public}) == 1:
                continue  # fixed by the part (the tiled blur's filter)
            top = max(s[d] for s in public)
            assert max(s[d] for s in drawn) > top, f"{part.name}, seed {seed}: size {d}"
        grids = [c.grid for c in exs.hidden_cases(part, np.random.default_rng(seed))]
        for axis in range(len(public_grids[0])):
            if len({g[axis] for g in public_grids}) == 1:
                continue  # a fixed grid (the privatised histogram's BLOCKS)
            top = max(g[axis] for g in public_grids)
            assert max(g[axis] for g in grids) > top, f"{part.name}, seed {seed}: axis {axis}"


def test_every_conv1d_draw_has_the_longest_filter_of_the_domain():
    """The domain promises filters up to CONV_K_MAX taps: a kernel that keeps 15 in a local
    array must meet one longer on every seed, not on half of them."""
    from pdc.grade.exercises.ex02_conv1d import CONV_K_MAX

    _, part = exs.find_part("conv1d")
    for seed in SEEDS:
        ks = [k for _, k in part.hidden(np.random.default_rng(seed))]
        assert CONV_K_MAX in ks, f"seed {seed}: filters {ks}"

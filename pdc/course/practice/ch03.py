"""Chapter 3 practice: sectors one warp touches, and what a copy costs."""

from __future__ import annotations

import numpy as np

from . import Wrong, exercise


def sectors_for_stride(stride):
    # Thread t reads 4 bytes at byte 4 * stride * t; a sector holds 32 bytes.
    return len({(4 * stride * t) // 32 for t in range(32)})


@exercise("ch03.sectors", answer=sectors_for_stride)
def _check_sectors(fn):
    for stride in (1, 2, 3, 4, 8, 16, 32, 100):
        want = sectors_for_stride(stride)
        got = fn(stride)
        if got is None:
            raise Wrong("sectors_for_stride returned None: is it still the stub?")
        if got != want:
            hint = ""
            if got > 32:
                hint = ": 32 loads can touch at most 32 sectors"
            elif stride == 1 and got == 32:
                hint = ": neighbouring threads share sectors (8 float32 per 32-byte sector)"
            raise Wrong(f"sectors_for_stride({stride}) = {got}, expected {want}{hint}")
    return "4 sectors at stride 1, 32 from stride 8 on"


def copy_time(nbytes, pieces, bandwidth, overhead_s):
    return pieces * overhead_s + nbytes / bandwidth


@exercise("ch03.copy_time", answer=copy_time)
def _checkcopy_time(fn):
    cases = [(64 * 2**20, 1, 25e9, 10e-6), (64 * 2**20, 1024, 25e9, 10e-6), (0, 8, 25e9, 5e-6)]
    for nbytes, pieces, bw, overhead in cases:
        got = fn(nbytes, pieces, bw, overhead)
        if got is None:
            raise Wrong("copy_time returned None: is it still the stub?")
        want = copy_time(nbytes, pieces, bw, overhead)
        if np.isclose(got, want, rtol=1e-9):
            continue
        if np.isclose(got, overhead + nbytes / bw) and pieces > 1:
            raise Wrong(
                f"copy_time(..., pieces={pieces}) = {got:.3g} s: every piece pays the "
                "fixed cost, not only the first"
            )
        if np.isclose(got, pieces * (overhead + nbytes / bw)) and pieces > 1:
            raise Wrong(
                f"copy_time(..., pieces={pieces}) = {got:.3g} s: the pieces split the "
                "bytes; together they still move nbytes once"
            )
        raise Wrong(f"copy_time{(nbytes, pieces, bw, overhead)} = {got!r}, expected {want:.4g}")
    return "64 MiB in 1024 pieces pays 1024 fixed costs on top of the same bytes"

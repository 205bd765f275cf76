"""Chapter 8 practice: the roofline as a function, and rounding to bfloat16 by hand."""

from __future__ import annotations

import numpy as np

from . import Wrong, exercise, expect_close


def attainable(intensity, peak, bandwidth):
    """Attainable FLOP/s under the roofline, elementwise over ``intensity`` (FLOP/B)."""
    return np.minimum(peak, np.asarray(intensity, dtype=float) * bandwidth)


@exercise("ch08.roofline", answer=attainable)
def _check_roofline(fn):
    peak, bw = 989e12, 3.35e12  # H100 SXM, dense BF16 tensor cores over HBM3
    intensity = np.array([0.125, 0.625, 20.0, 295.0, 1000.0])
    got = fn(intensity, peak, bw)
    if got is None:
        raise Wrong("attainable returned None: is it still the stub?")
    got = np.asarray(got, dtype=float)
    if got.shape == intensity.shape and np.any(got > peak * 1.0001):
        raise Wrong(
            f"attainable(1000 FLOP/B) = {got[-1]:.3g} FLOP/s, above the peak of {peak:.3g}: "
            "the flat roof is missing (take the minimum of the two roofs)"
        )
    expect_close(
        got, attainable(intensity, peak, bw), what="attainable(I, 989e12, 3.35e12)", rtol=1e-9
    )
    scalar = fn(1.0, 67e12, 3.35e12)
    if not np.isclose(float(np.asarray(scalar)), 3.35e12):
        raise Wrong(f"attainable(1.0, 67e12, 3.35e12) = {scalar!r}, expected 3.35e12 FLOP/s")
    return "memory-bound below 295 FLOP/B on an H100's BF16 roof, compute-bound above"


def to_bf16(x):
    """Round float32 ``x`` to the nearest bfloat16 (ties to even); return float32."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)  # room for a carry
    lowest_kept = (bits >> 16) & 1  # 1 when the kept part is odd: a tie then rounds up
    rounded = (bits + 0x7FFF + lowest_kept) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


def _bits_to_f32(values):
    return np.array(values, dtype=np.uint32).view(np.float32)


@exercise("ch08.to_bf16", answer=to_bf16)
def _check_bf16(fn):
    import torch

    rng = np.random.default_rng(0)
    ties = _bits_to_f32([0x3F808000, 0x3F818000, 0xBF808000, 0x3F80C000, 0x3F807FFF])
    x = np.concatenate(
        [ties, rng.standard_normal(200).astype(np.float32) * 1e3, np.float32([0.0, -0.0, 3e38])]
    )
    want = torch.from_numpy(x).to(torch.bfloat16).float().numpy()
    got = fn(x.copy())
    if got is None:
        raise Wrong("to_bf16 returned None: is it still the stub?")
    got = np.asarray(got, dtype=np.float32)
    if got.shape != x.shape:
        raise Wrong(f"to_bf16 returned shape {got.shape}, expected {x.shape}")
    truncated = (x.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    if np.array_equal(got, truncated) and not np.array_equal(got, want):
        raise Wrong(
            "that truncates the lower 16 bits; round to the nearest instead (add half first)"
        )
    bad = np.nonzero(got.view(np.uint32) != want.view(np.uint32))[0]
    if bad.size:
        k = int(bad[0])
        tie = int(x.view(np.uint32)[k]) & 0xFFFF == 0x8000
        kind = "a tie (lower 16 bits 0x8000): ties go to the even neighbour" if tie else "a value"
        raise Wrong(
            f"{bad.size} of {x.size} values differ; first x = {x[k]!r} "
            f"(bits {int(x.view(np.uint32)[k]):#010x}), {kind}: got {got[k]!r}, PyTorch gives "
            f"{want[k]!r}"
        )
    return "bit-exact with PyTorch's float32 -> bfloat16 conversion, ties to even included"

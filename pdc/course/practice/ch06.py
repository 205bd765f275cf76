"""Chapter 6 practice: spotting synchronisation points, and computing a crossover."""

from __future__ import annotations

import math

import numpy as np

from . import Wrong, exercise

# Why each line of the practice cell does or does not make the host wait for the GPU.
_REASONS = {
    1: "no: adding two GPU tensors only queues a kernel",
    2: "yes: .item() copies the value to the host, which must wait for the loss to exist",
    3: "yes: `if` needs a Python bool, so the tensor's value is copied to the host",
    4: "no: argmax is one more kernel; preds stays on the GPU",
    5: "yes: formatting a tensor into a string reads its values on the host",
    6: "no: comparison and sum are kernels, and `+=` into a GPU tensor stays on the GPU",
    7: "yes: int() needs the value on the host",
    8: "yes: .to('cpu') of a GPU tensor is a device-to-host copy that waits for the softmax",
}
_SYNCING = frozenset(n for n, why in _REASONS.items() if why.startswith("yes"))


def sync_lines():
    """Numbers of the lines that make the host wait for the device."""
    return {2, 3, 5, 7, 8}  # .item(), if on a tensor, print of a tensor, int(), .to("cpu")


@exercise("ch06.sync_points", answer=sync_lines)
def _check_sync(fn):
    got = fn()
    if got is None:
        raise Wrong("sync_lines() returned None: return a set of line numbers")
    try:
        got = {int(n) for n in got}
    except (TypeError, ValueError) as exc:
        raise Wrong(f"sync_lines() should return a set of line numbers, got {got!r}") from exc
    unknown = got - set(_REASONS)
    if unknown:
        raise Wrong(f"there are only lines 1 to 8, got {sorted(unknown)}")
    missed, extra = sorted(_SYNCING - got), sorted(got - _SYNCING)
    if missed or extra:
        parts = [f"line {n} does wait ({_REASONS[n][5:]})" for n in missed[:2]]
        parts += [f"line {n} does not wait ({_REASONS[n][4:]})" for n in extra[:2]]
        more = len(missed) + len(extra) - len(parts)
        tail = f"; and {more} more line(s) to reconsider" if more > 0 else ""
        raise Wrong("; ".join(parts) + tail)
    return "lines 2, 3, 5, 7 and 8 read a value on the host; 1, 4 and 6 only queue kernels"


def crossover_at(sizes, t_a, t_b):
    """Size from which ``t_b`` beats ``t_a`` for good (log-log interpolation), or None."""
    log_ratio = [math.log(b / a) for a, b in zip(t_a, t_b)]  # < 0 where b is faster
    if log_ratio[-1] >= 0:
        return None  # b does not win at the largest size
    losing = [i for i, r in enumerate(log_ratio) if r >= 0]
    if not losing:
        return sizes[0]  # b wins everywhere
    i = losing[-1]  # last size where a still wins; b wins from i + 1 on
    x0, x1 = math.log(sizes[i]), math.log(sizes[i + 1])
    frac = log_ratio[i] / (log_ratio[i] - log_ratio[i + 1])
    return math.exp(x0 + frac * (x1 - x0))


_CASES = [
    ("one crossing", [1, 10, 100], [1, 2, 10], [5, 4, 6]),
    ("b never wins", [1, 10, 100], [1, 1, 1], [2, 2, 2]),
    ("b wins everywhere", [10, 100, 1000], [5, 5, 5], [1, 2, 3]),
    ("crosses twice", [1, 10, 100, 1000, 10000], [4, 4, 4, 4, 4], [2, 8, 2, 8, 2]),
    ("b wins, then loses at the end", [1, 10, 100], [4, 4, 4], [8, 2, 8]),
]


@exercise("ch06.crossover", answer=crossover_at)
def _check_crossover(fn):
    for label, sizes, t_a, t_b in _CASES:
        want = crossover_at(sizes, t_a, t_b)
        got = fn(sizes, t_a, t_b)
        if want is None:
            if got is not None:
                raise Wrong(f"{label} (t_a={t_a}, t_b={t_b}): expected None, got {got!r}")
            continue
        if got is None:
            raise Wrong(f"{label} (t_a={t_a}, t_b={t_b}): expected about {want:.4g}, got None")
        if not np.isclose(float(got), want, rtol=1e-6):
            hint = ""
            if float(got) in sizes:
                hint = ": that is a measured size; interpolate between the two around the crossing"
            elif label == "crosses twice":
                hint = ": b must keep winning up to the largest size, so use the LAST crossing"
            raise Wrong(f"{label} (t_a={t_a}, t_b={t_b}): expected {want:.4g}, got {got!r}{hint}")
    return f"{len(_CASES)} cases agree, including a double crossing and the None cases"

"""Honest timing: samples kept, medians and percentiles, CUDA events on a GPU.

One implementation used by the chapters (through ``pdc.course.kit``), the exercises' timing
sections and the benchmarks. ``fit_threads`` sizes PyTorch's and OpenBLAS's CPU thread
pools to the cores other work leaves free, so a microsecond operation is not timed waiting
for threads the scheduler does not run.
"""

from __future__ import annotations

import ctypes
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Timing", "fit_threads", "format_seconds", "measure"]


def format_seconds(seconds: float) -> str:
    """A duration with a unit chosen so the number reads between 1 and 1000 (``"12.3 µs"``)."""
    value, unit = _scaled(seconds)
    return f"{value:.3g} {unit}"


def _scaled(seconds: float, unit: str | None = None) -> tuple[float, str]:
    scales = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}
    if unit is None:
        unit = next((u for u, f in scales.items() if abs(seconds) >= f), "ns")
    return seconds / scales[unit], unit


@dataclass(frozen=True)
class Timing:
    """Per-call times of one measured function, as returned by :func:`measure`.

    Attributes:
        samples: Per-call times in seconds, one per timed repetition.
        device: The device the work ran on (``"cpu"``, ``"cuda"``, ``"mps"``, ``"mlx"``).
        clock: How time was taken: ``"cuda events"`` or ``"perf_counter"``.
    """

    samples: tuple[float, ...]
    device: str = "cpu"
    clock: str = "perf_counter"

    @property
    def median_s(self) -> float:
        """Median per-call time in seconds: robust to the odd slow run."""
        return float(np.median(self.samples))

    @property
    def p10_s(self) -> float:
        """10th percentile in seconds (close to the best case)."""
        return float(np.percentile(self.samples, 10))

    @property
    def p90_s(self) -> float:
        """90th percentile in seconds (how bad a typical slow run is)."""
        return float(np.percentile(self.samples, 90))

    def __str__(self) -> str:
        median, unit = _scaled(self.median_s)
        p10, _ = _scaled(self.p10_s, unit)
        p90, _ = _scaled(self.p90_s, unit)
        return f"{median:.3g} {unit} (p10 {p10:.3g}, p90 {p90:.3g}, n={len(self.samples)})"


def _device_sync(device: str) -> Callable[[], object] | None:
    if device == "mps":
        import torch

        return torch.mps.synchronize
    if device == "mlx":
        import mlx.core as mx

        # Older MLX has no synchronize(); there the timed function must call mx.eval itself.
        return getattr(mx, "synchronize", None)
    return None


def measure(
    fn: Callable[..., object],
    *args: object,
    repeat: int = 20,
    warmup: int = 2,
    number: int = 1,
    device: str = "cpu",
    sync: Callable[[], object] | None = None,
    stream: Any = None,
) -> Timing:
    """Time ``fn(*args)``: warm up, then take ``repeat`` samples and keep them all.

    On a real NVIDIA GPU (``device="cuda"`` and ``pdc.has_gpu()``, no ``sync`` given) each
    sample is taken with CUDA events recorded on ``stream`` (the legacy default stream unless
    given, which orders against numba's launches and the default streams of torch and CuPy; work
    queued on another stream needs ``stream=`` or ``sync=``): the GPU stamps ``start``, the
    calls are made, the GPU stamps ``end``. Each sample first queues one untimed call of ``fn``
    and records ``start`` behind it, so the GPU stamps ``start`` when that call's work ends, not
    the moment it is recorded. When a call's GPU work lasts longer than its launch path (Python,
    the library's dispatch, the driver call: microseconds per call), the first timed call is
    queued by then and the interval holds GPU work only. A kernel shorter than its launch path
    leaves the GPU idle before the timed call arrives, so the interval **still includes part of
    the launch path** and of any host time between calls; for such a microsecond kernel events
    measure about what ``perf_counter`` with a synchronise does, and the kernel's own duration
    needs a profiler (``torch.profiler``, Nsight Systems). Everywhere else a sample
    is ``time.perf_counter`` around the calls and a synchronise (``sync``, or the device's own
    for ``"mps"`` and ``"mlx"``), so asynchronous work is counted. On numba's CUDA simulator a
    kernel runs on the CPU, so it is timed like any Python call.

    Args:
        fn: The work to time; called as ``fn(*args)``.
        *args: Positional arguments for ``fn``.
        repeat: Number of timed samples.
        warmup: Untimed calls first (JIT compilation, caches, lazy allocation).
        number: Calls of ``fn`` per sample; each sample is divided by it, so a
            microsecond operation can be timed above the clock's resolution.
        device: Where the work runs: ``"cpu"``, ``"cuda"``, ``"mps"`` or ``"mlx"``.
        sync: Called after the calls of each sample before the clock stops; overrides the
            device's own synchronise, and on a GPU replaces CUDA events by ``perf_counter``
            plus this call (for work on streams the events would not bracket).
        stream: On a GPU, the numba CUDA stream the work is queued on; the events are
            recorded on it.

    Returns:
        A :class:`Timing` with the per-call samples, median and percentiles.

    Raises:
        ValueError: If ``repeat`` or ``number`` is below 1, ``warmup`` is negative, or the
            device is unknown.
    """
    if repeat < 1 or number < 1 or warmup < 0:
        raise ValueError(
            f"[measure] expected repeat >= 1, number >= 1, warmup >= 0, "
            f"got {repeat}, {number}, {warmup}"
        )
    if device not in ("cpu", "cuda", "mps", "mlx"):
        raise ValueError(f"[measure] expected device cpu, cuda, mps or mlx, got {device!r}")
    events = device == "cuda" and sync is None
    sync = sync or _device_sync(device)
    for _ in range(warmup):
        fn(*args)
    if sync is not None:
        sync()
    if device == "cuda":
        import pdc

        if events and pdc.has_gpu():
            return _measure_cuda_events(fn, args, repeat, number, pdc.numba_cuda(), stream)
        sync = sync or pdc.numba_cuda().synchronize
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn(*args)
        if sync is not None:
            sync()
        samples.append((time.perf_counter() - start) / number)
    return Timing(tuple(samples), device=device, clock="perf_counter")


def _measure_cuda_events(
    fn: Callable[..., object],
    args: tuple[object, ...],
    repeat: int,
    number: int,
    cuda: Any,
    stream: Any = None,
) -> Timing:
    # Events on the legacy default stream order against numba kernels and against PyTorch's
    # default stream alike, so one pair brackets work from either library. The GPU is idle
    # after the previous sample; recorded on an idle GPU, ``start`` would be stamped at once and
    # the interval would hold the first call's whole launch path. One untimed call queued first
    # keeps the GPU busy while the host launches the timed ones, and ``start`` is stamped when
    # that call's work ends (at once again if it ended before ``start`` reached the GPU).
    on = 0 if stream is None else stream
    samples = []
    for _ in range(repeat):
        start, end = cuda.event(), cuda.event()
        fn(*args)  # untimed: queued ahead of start
        start.record(on)
        for _ in range(number):
            fn(*args)
        end.record(on)
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e-3 / number)  # milliseconds -> seconds
    return Timing(tuple(samples), device="cuda", clock="cuda events")


# Names under which OpenBLAS builds export their thread setter (NumPy's wheels bundle
# scipy-openblas with a suffixed name).
_OPENBLAS_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)


def _limit_openblas(threads: int) -> bool:
    """Set the thread count of every OpenBLAS loaded in this process (Linux; else a no-op)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:  # no /proc (macOS uses Accelerate, Windows its own BLAS)
        return False
    done = False
    for path in sorted(paths):
        lib = ctypes.CDLL(path)
        setter = next((getattr(lib, n) for n in _OPENBLAS_SETTERS if hasattr(lib, n)), None)
        if setter is not None:
            setter(ctypes.c_int(threads))
            done = True
    return done


def fit_threads(max_threads: int = 4) -> int:
    """Size PyTorch's and NumPy's CPU thread pools to the cores that other work leaves free.

    PyTorch starts one intra-op thread per core and OpenBLAS one per core. When other
    processes hold those cores, a small operation waits for every thread of the pool to be
    scheduled and a microsecond kernel takes milliseconds. A few threads, never more than
    the cores that are idle (the cores minus the one-minute load average, where the system
    reports it), keeps timings honest; the chapters print the number they got.

    Args:
        max_threads: Upper bound on threads per pool.

    Returns:
        The number of threads now set for each pool.
    """
    cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average on this platform (Windows)
        busy = 0.0
    threads = max(1, min(max_threads, cores, int(cores - busy + 0.5)))
    try:
        import torch
    except ImportError:
        pass
    else:
        torch.set_num_threads(threads)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:  # only settable before the first parallel operation
            pass
    _limit_openblas(threads)
    return threads

"""Helpers shared by chapters 6 to 10 that are not (yet) part of ``coursekit``."""

from __future__ import annotations

import ctypes
import os

import coursekit as ck

__all__ = ["fit_threads"]

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

    ``coursekit.setup_torch`` caps PyTorch's pool at the number of cores. On a machine whose
    cores are already busy (the one-minute load average near or above the core count) even
    that pool, and NumPy's OpenBLAS pool, wait for threads the scheduler does not run, and a
    microsecond operation takes milliseconds; one thread per operation is then the honest
    setting.

    Args:
        max_threads: Upper bound on threads per pool.

    Returns:
        The number of threads now set for each pool.
    """
    cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average on this platform
        busy = 0.0
    threads = max(1, min(max_threads, cores, int(cores - busy + 0.5)))
    ck.setup_torch(threads)
    _limit_openblas(threads)
    return threads

"""pdc: a compact GPU runtime for learning how GPUs really work.

``import pdc`` imports NumPy only. CUDA (numba-cuda, CuPy), MLX and PyTorch are imported
by the backend or feature that needs them, when it is first used.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from .backends import Backend, available_backends, default_backend, get_backend
from .backends._probe import has_cuda_gpu as has_gpu
from .backends.cuda import numba_cuda
from .buffer import BufferState, TransferStats, UnifiedBuffer
from .launch import Kernel, grid_for, kernel
from .pool import MemoryPool, PoolError, PoolStats
from .reach import reach, why_not

__version__ = "0.1.0"

_RING_NAMES = {"RingKernelRuntime", "ring_kernel"}


def device_summary() -> str:
    """One plain sentence saying what runs where on this machine."""
    from .backends import _probe

    if _probe.has_cuda_gpu():
        try:
            return f"CUDA GPU found: kernels run on {get_backend('cuda').device_name}."
        except Exception as exc:  # a driver/library mismatch: say so, the cpu backend works
            return (
                f"CUDA GPU found, but CUDA did not start ({type(exc).__name__}: {exc}); "
                f"pdc uses the {default_backend()!r} backend."
            )
    from .sim.launcher import installed

    # An exercise's setup cell sends its kernels' launches where check() runs them.
    sim = "pdc.sim, the simulator check() uses" if installed() else "numba's CUDA simulator"
    if _probe.is_apple_silicon() and _probe.has_mlx():
        mlx = "Apple Silicon: MLX code runs on the Metal GPU"
        return f"{mlx}; CUDA kernels run on {sim} (on the CPU)."
    return f"No GPU found: CUDA kernels run on {sim}, arrays on NumPy (CPU)."


def __getattr__(name: str) -> Any:
    if name == "resources":  # compiles in a child process; imports no GPU library here
        from .ptx.resources import resources

        return resources
    if name == "simulate":  # numba-cuda's typed IR on pdc's SIMT machine (pdc.sim)
        from .sim import simulate

        return simulate
    if name in _RING_NAMES:
        from . import ring

        return getattr(ring, name)
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        # pdc.sim, pdc.grade, ...: a subpackage, imported on first use, as on every machine
        # (without a GPU something else may have imported it already; with one, nothing has)
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'pdc' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _RING_NAMES | {"resources", "simulate"})


__all__ = [
    "Backend",
    "BufferState",
    "Kernel",
    "MemoryPool",
    "PoolError",
    "PoolStats",
    "RingKernelRuntime",
    "TransferStats",
    "UnifiedBuffer",
    "__version__",
    "available_backends",
    "default_backend",
    "device_summary",
    "get_backend",
    "grid_for",
    "has_gpu",
    "kernel",
    "numba_cuda",
    "reach",
    "resources",
    "ring_kernel",
    "simulate",
    "why_not",
]

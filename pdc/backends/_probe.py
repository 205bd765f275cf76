"""Find out which devices exist without importing any GPU library.

``import pdc`` must stay light, so presence is probed with ``importlib.util.find_spec``
(is the library installed?) and, for CUDA, by asking the driver directly through ctypes
(is there a GPU?). Results are cached for the life of the process.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import platform
import sys


def installed(module: str) -> bool:
    """True if ``module`` can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


@functools.cache
def cuda_device_count() -> int:
    """Number of CUDA GPUs the driver reports; 0 when there is no driver or no GPU."""
    names = {"win32": ["nvcuda.dll"], "darwin": []}.get(
        sys.platform, ["libcuda.so.1", "libcuda.so"]
    )
    for name in names:
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        count = ctypes.c_int(0)
        if lib.cuInit(0) != 0:
            return 0
        if lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
            return 0
        return int(count.value)
    return 0


def has_cuda_gpu() -> bool:
    """True if a real CUDA GPU is present."""
    return cuda_device_count() > 0


def is_apple_silicon() -> bool:
    """True on macOS on Apple Silicon, where MLX runs on the Metal GPU."""
    return sys.platform == "darwin" and platform.machine() == "arm64"


def has_numba_cuda() -> bool:
    """True if numba with a CUDA target is installed (real or simulated)."""
    return installed("numba") and (installed("numba_cuda") or installed("numba.cuda"))


def has_mlx() -> bool:
    """True if MLX is installed (Metal on Apple Silicon, its CPU device elsewhere)."""
    return installed("mlx")

"""Find out which devices exist without importing any GPU library.

``import pdc`` must stay light, so presence is probed with ``importlib.util.find_spec``
(is the library installed?) and, for CUDA, by asking the driver directly through ctypes
(is there a GPU?). Results are cached for the life of the process.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
import platform
import sys

# CUDA_ERROR_NOT_INITIALIZED: what driver calls other than cuInit/cuDriverGetVersion return
# before the first cuInit in this process.
_NOT_INITIALIZED = 3
# The module-loading mode the driver took at its first cuInit; see module_loading().
_loading: dict[str, str] = {}


def _libcuda() -> ctypes.CDLL | None:
    names = {"win32": ["nvcuda.dll"], "darwin": []}.get(
        sys.platform, ["libcuda.so.1", "libcuda.so"]
    )
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


def installed(module: str) -> bool:
    """True if ``module`` can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


@functools.cache
def cuda_device_count() -> int:
    """Number of CUDA GPUs the driver reports; 0 when there is no driver or no GPU.

    The first ``cuInit`` of the process reads ``CUDA_MODULE_LOADING``. Lazy loading (the
    default since CUDA 12.2) may wait for the whole context when a kernel is first used, which
    never ends while a persistent ring kernel runs; so pdc asks for EAGER before it, unless the
    user chose a mode. When CUDA was started earlier by someone else (torch, CuPy), the mode it
    got is recorded instead, and the CUDA ring engine refuses to start under lazy loading.
    """
    lib = _libcuda()
    if lib is None:
        return 0
    ctx = ctypes.c_void_p(0)
    chosen = os.environ.get("CUDA_MODULE_LOADING", "")
    if lib.cuCtxGetCurrent(ctypes.byref(ctx)) == _NOT_INITIALIZED:
        os.environ.setdefault("CUDA_MODULE_LOADING", "EAGER")
        _loading["mode"] = os.environ["CUDA_MODULE_LOADING"].upper()
        _loading["by"] = "pdc" if not chosen else "CUDA_MODULE_LOADING"
    else:
        _loading["mode"] = (chosen or "LAZY").upper()
        _loading["by"] = "a library that started CUDA before pdc"
    count = ctypes.c_int(0)
    status = lib.cuInit(0)
    if status == 0:
        status = lib.cuDeviceGetCount(ctypes.byref(count))
    _loading["status"] = str(status)
    return int(count.value) if status == 0 else 0


def cuda_init_error() -> int:
    """The CUresult of pdc's cuInit or cuDeviceGetCount when it failed (0: no failure).

    A driver present but failing (803: driver and library mismatch, 999: after a suspend,
    34: a stub libcuda in a container) would otherwise look like "no GPU".
    """
    cuda_device_count()
    return int(_loading.get("status", "0"))


def module_loading() -> tuple[str, str]:
    """CUDA's module-loading mode in this process and who chose it, e.g. ``("EAGER", "pdc")``.

    ``("", "")`` until pdc has probed the driver (or when there is no driver).
    """
    return _loading.get("mode", ""), _loading.get("by", "")


def cuda_driver_version() -> int:
    """The CUDA version the driver supports, e.g. 12080 for 12.8; 0 without a driver.

    ``cuDriverGetVersion`` needs no ``cuInit``, so asking starts nothing.
    """
    lib = _libcuda()
    if lib is None:
        return 0
    version = ctypes.c_int(0)
    if lib.cuDriverGetVersion(ctypes.byref(version)) != 0:
        return 0
    return int(version.value)


def cuda_stack(version: int | None = None) -> str:
    """Which install stack (``stacks/*.txt``) fits this machine: cu13, cu12 or cpu.

    CUDA 13 wheels need a driver for CUDA 13 (R580+); CUDA 12 wheels run on any driver for
    CUDA 12 (R525+, minor-version compatibility); an older driver or none gets the cpu stack.
    """
    v = cuda_driver_version() if version is None else version
    return "cu13" if v >= 13000 else "cu12" if v >= 12000 else "cpu"


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


if __name__ == "__main__":
    # `python pdc/backends/_probe.py stack`: the Makefile picks the install stack with it,
    # before pdc is installed (this file needs the standard library only).
    if sys.argv[1:] != ["stack"]:
        sys.exit(f"usage: python {sys.argv[0]} stack")
    print(cuda_stack())

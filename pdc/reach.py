"""Whether CuPy or PyTorch can reach this machine's GPU, asked without failing.

A machine with an NVIDIA GPU may still have a CPU-only torch (``torch.cuda.is_available()``
is False, ``.cuda()`` raises), no CuPy, or a CuPy without the CUDA libraries it loads. The
chapters and solutions ask :func:`reach` before their CuPy and torch GPU code, and print the
reason when the answer is no.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType

from .backends import _probe

LIBRARIES = ("cupy", "torch")


@functools.cache
def _ask(name: str) -> tuple[ModuleType | None, str]:
    if name not in LIBRARIES:
        raise ValueError(f"[reach] expected one of {LIBRARIES}, got {name!r}")
    if not _probe.has_cuda_gpu():
        return None, "no CUDA GPU on this machine"
    try:
        lib = importlib.import_module(name)
    except ImportError as exc:
        return None, f"{name} is not installed ({exc})"
    try:
        if name == "torch":
            if not lib.cuda.is_available():
                build = lib.version.cuda or "none (a CPU-only build)"
                return None, f"torch {lib.__version__} cannot use the GPU (its CUDA: {build})"
            lib.zeros(1, device="cuda").add_(1).cpu()
        else:
            if lib.cuda.runtime.getDeviceCount() < 1:
                return None, "CuPy sees no CUDA device"
            float((lib.arange(4, dtype=lib.float32) @ lib.ones(4, dtype=lib.float32)).get())
    except Exception as exc:  # a CUDA error, a missing CUDA library (cuBLAS...), a driver mismatch
        return None, f"{name} cannot use the GPU: {type(exc).__name__}: {str(exc)[:200]}"
    return lib, ""


def reach(name: str) -> ModuleType | None:
    """The module ``name`` ("cupy" or "torch") if it is installed and can use the GPU, else None.

    The first call imports the library and runs one tiny operation on the GPU (a matmul for
    CuPy, which loads cuBLAS); the answer is kept for the process.

    Raises:
        ValueError: For a library other than "cupy" or "torch".
    """
    return _ask(name)[0]


def why_not(name: str) -> str:
    """Why :func:`reach` answered None for ``name`` ("" when it answered the module)."""
    return _ask(name)[1]

"""Backend registry: which devices exist, which one is the default, one instance each."""

from __future__ import annotations

import os
import warnings

from . import _probe
from .base import Backend, BackendInfo, check_dtype, check_shape

NAMES = ("cpu", "cuda", "metal")  # every backend name: devices here, ring engines in pdc.ring
ORDER = ("cuda", "metal", "cpu")  # NAMES by default priority
_instances: dict[str, Backend] = {}
# Why a backend did not start in this process (its exception), by name.
_failed: dict[str, str] = {}


def _installed(name: str) -> bool:
    if name == "cuda":
        return _probe.has_numba_cuda()
    if name == "metal":
        return _probe.has_mlx()
    return name == "cpu"


def available_backends() -> list[str]:
    """Backends usable on this machine, in priority order (cuda, metal, cpu).

    A backend counts as available when its library is installed, even if it runs
    simulated (numba's CUDA simulator, MLX's CPU device).
    """
    return [b for b in ORDER if _installed(b)]


def default_backend() -> str:
    """The backend ``pdc`` uses when none is named.

    ``PDC_BACKEND`` wins. Otherwise a real CUDA GPU, then a real Metal GPU, then the CPU:
    the simulated backends are available but never chosen by default, since they are
    slower than plain NumPy. A backend that failed to start in this process (see
    :func:`start_failure`) is passed over.

    Raises:
        ValueError: If ``PDC_BACKEND`` names an unknown or unavailable backend.
    """
    env = os.environ.get("PDC_BACKEND", "").strip().lower()
    if env:
        _check_name("PDC_BACKEND", env)
        return env
    if _probe.has_cuda_gpu() and _installed("cuda") and "cuda" not in _failed:
        return "cuda"
    if _probe.is_apple_silicon() and _installed("metal") and "metal" not in _failed:
        return "metal"
    return "cpu"


def _check_name(op: str, name: str) -> None:
    if name not in ORDER:
        raise ValueError(f"[{op}] expected one of {', '.join(ORDER)}, got {name!r}")
    if not _installed(name):
        hint = {
            "cuda": "pip install 'pdc-course[cuda]'",
            "metal": "pip install 'pdc-course[metal]'",
        }
        raise ValueError(
            f"[{op}] backend {name!r} is not available here (available: "
            f"{', '.join(available_backends())}); install it with {hint.get(name, '')}"
        )


def _load(name: str) -> type[Backend]:
    if name == "cpu":
        from .cpu import CPUBackend

        return CPUBackend
    if name == "cuda":
        from .cuda import CUDABackend

        return CUDABackend
    from .metal import MetalBackend

    return MetalBackend


def backend_class(name: str) -> type[Backend]:
    """The class of the backend called ``name``, imported but not started.

    Its class attributes (``host_ring_loop``, ``cuda_kernels``, ``required``...) answer what a
    layer above needs to know about a backend without starting its device.

    Raises:
        ValueError: If ``name`` is not a backend name.
    """
    if name not in NAMES:
        raise ValueError(f"[backend_class] expected one of {', '.join(ORDER)}, got {name!r}")
    return _load(name)


def start_failure(name: str) -> str | None:
    """Why the backend ``name`` failed to start in this process, or None."""
    return _failed.get(name)


def get_backend(name: str | None = None) -> Backend:
    """Return the (cached) backend instance called ``name``, or the default one.

    When the default backend was chosen (no ``name``, no ``PDC_BACKEND``) and does not start,
    for instance a GPU whose driver is older than the CUDA libraries, pdc warns with the
    reason and uses the next default (the cpu backend), so a notebook still runs.

    Raises:
        ValueError: If ``name`` is unknown or not available here.
        Exception: Whatever a named backend raised when it failed to start.
    """
    chosen = name is not None or bool(os.environ.get("PDC_BACKEND", "").strip())
    name = default_backend() if name is None else str(name).lower()
    if name not in _instances:
        _check_name("get_backend", name)
        try:
            _instances[name] = _load(name)()
        except Exception as exc:
            _failed[name] = f"{type(exc).__name__}: {exc}"
            if chosen or backend_class(name).required:
                raise
            fallback = default_backend()
            warnings.warn(
                f"[get_backend] the default backend {name!r} did not start ({_failed[name]}); "
                f"using the {fallback!r} backend. Set PDC_BACKEND={fallback} before importing "
                "pdc to choose it without trying.",
                RuntimeWarning,
                stacklevel=2,
            )
            return get_backend(fallback)
    return _instances[name]


__all__ = [
    "Backend",
    "BackendInfo",
    "available_backends",
    "backend_class",
    "check_dtype",
    "check_shape",
    "default_backend",
    "get_backend",
    "start_failure",
]

"""The backend contract: the few methods every device fills in.

A backend owns device memory and kernel launches. Everything shared (buffers, pools,
launch geometry) lives above it and talks to a backend only through these methods, in
the spirit of a small allocator interface: allocate, free, copy in, copy out,
synchronize, launch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

# Public annotation aliases (``import numpy.typing`` loads nothing beyond NumPy).
#: A shape: one length, or one length per dimension.
ShapeLike = int | Sequence[int]
#: Anything ``numpy.dtype()`` accepts: ``np.float32``, ``"float32"``, ``np.dtype("f4")``.
DTypeLike = npt.DTypeLike
#: Launch geometry (a block or a grid): a count, or one count per dimension (up to 3).
Dims = int | tuple[int, ...]


def check_shape(op: str, shape: Any) -> tuple[int, ...]:
    """Normalise ``shape`` to a tuple of non-negative ints or raise a clear error.

    Args:
        op: Name of the calling operation, used in the error message.
        shape: An int or a sequence of ints.

    Returns:
        The shape as a tuple.

    Raises:
        TypeError: If ``shape`` is not an int or a sequence of ints.
        ValueError: If a dimension is negative.
    """
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(
            f"[{op}] expected shape as an int or a tuple of ints, got {type(shape).__name__}"
        ) from None
    for d in dims:
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise TypeError(f"[{op}] expected shape of ints, got {shape!r}")
        if d < 0:
            raise ValueError(f"[{op}] expected non-negative dimensions, got shape {shape!r}")
    return tuple(int(d) for d in dims)


def check_dtype(op: str, dtype: Any) -> np.dtype:
    """Normalise ``dtype`` to a NumPy numeric dtype or raise a clear error."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"[{op}] expected a NumPy dtype, got {dtype!r}") from None
    if dt.kind not in "biufc" and dt.fields is None:
        raise TypeError(
            f"[{op}] expected a numeric or structured dtype, got {dt} (kind {dt.kind!r})"
        )
    return dt


@dataclass(frozen=True)
class BackendInfo:
    """What ``pdc doctor`` reports about one backend."""

    name: str
    available: bool
    simulated: bool
    device: str
    details: dict[str, Any]


class Backend:
    """Base class of the three backends.

    Subclasses set ``name`` and fill in the methods below. ``simulated`` is True when the
    backend's device is emulated on the CPU (numba's CUDA simulator, MLX's CPU device),
    and ``zero_copy`` is True when host and device share memory, so a buffer never needs
    a transfer. The other class attributes answer what the layers above would otherwise
    decide by comparing backend names:

    * ``pinned_host``: ``host_empty(..., pinned=True)`` gives page-locked memory;
    * ``cuda_kernels``: :meth:`launch` runs numba.cuda kernels (on a GPU or simulated);
    * ``host_ring_loop``: a ring kernel's handler runs as Python (numba-compiled) on a host
      thread of this process, so pure-Python handlers and ``pdc.ring.host.fast``'s compiled call
      work; elsewhere the handler is device code;
    * ``required``: the backend always exists (a missing one is an error, not a choice);
    * ``shared_gpu_context``: its kernels run in one GPU context, where loading new code can
      wait for every kernel running in it (a resident ring kernel never ends).
    """

    name: str = "base"
    simulated: bool = False
    zero_copy: bool = False
    device_name: str = "unknown"
    pinned_host: bool = False
    cuda_kernels: bool = False
    host_ring_loop: bool = False
    required: bool = False
    shared_gpu_context: bool = False

    # -- memory -----------------------------------------------------------------------
    def allocate(self, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        """Allocate an uninitialised device array."""
        raise NotImplementedError

    def free(self, arr: Any) -> None:
        """Release a device array (a no-op where the garbage collector owns memory)."""

    def reclaim(self) -> None:
        """Give device memory that nothing references back now (where freeing is deferred)."""

    def host_empty(self, shape: tuple[int, ...], dtype: np.dtype, pinned: bool = False):
        """Allocate a host array; page-locked where the backend supports it."""
        return np.empty(shape, dtype)

    def copy_to_device(self, host: np.ndarray, dev: Any) -> Any:
        """Copy ``host`` into ``dev``; returns the device array (MLX arrays are replaced)."""
        raise NotImplementedError

    def copy_to_host(self, dev: Any, host: np.ndarray) -> None:
        """Copy ``dev`` into ``host``."""
        raise NotImplementedError

    def host_view(self, dev: Any) -> np.ndarray | None:
        """A NumPy view of device memory on zero-copy backends, else None."""
        return None

    # -- execution --------------------------------------------------------------------
    def compile(self, fn: Any) -> Any:
        """What :meth:`launch` runs for the Python function ``fn`` (compiled once, if at all)."""
        return fn

    def synchronize(self) -> None:
        """Wait for all queued device work to finish."""

    def launch(self, fn: Any, grid: tuple[int, ...], block: tuple[int, ...], args: tuple) -> None:
        """Launch a kernel with explicit geometry."""
        raise NotImplementedError

    def self_test(self) -> dict[str, Any]:
        """Compile and launch a tiny kernel, for ``pdc doctor``; facts about the run.

        Backends whose launches the test suite already exercises on every machine (the
        simulators) return ``{}``.

        Raises:
            Exception: Whatever the compile or the launch raised.
        """
        return {}

    def info(self) -> dict[str, Any]:
        """Facts about the device for ``pdc doctor``."""
        return {"device": self.device_name, "simulated": self.simulated}

    def __repr__(self) -> str:
        sim = ", simulated" if self.simulated else ""
        return f"<pdc backend {self.name!r}: {self.device_name}{sim}>"

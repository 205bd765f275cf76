"""UnifiedBuffer: one array, a host copy and a device copy, and an honest account of transfers.

The buffer tracks which side holds the newest data (``BufferState``) and moves it only
when needed: touching ``.host`` after the device wrote brings the data back, touching
``.device`` after the host wrote sends it over. Every copy is counted in ``stats``, so a
notebook can show exactly what a program cost in transfers. On zero-copy backends (MLX's
unified memory) host and device are the same memory and the counters stay at zero.

Accessing ``.host`` or ``.device`` hands out writable memory, so the buffer assumes that
side is now the newer one; use ``read_host()`` for a read-only look that does not.
Buffers are not thread-safe.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .backends import Backend, check_dtype, check_shape, get_backend
from .backends.base import DTypeLike, ShapeLike


class BufferState(enum.Enum):
    """Which copy of a buffer holds the newest data."""

    HOST_NEWER = "host-newer"
    DEVICE_NEWER = "device-newer"
    IN_SYNC = "in-sync"


@dataclass
class TransferStats:
    """Bytes and transfers made in each direction (h2d: host to device)."""

    h2d_bytes: int = 0
    h2d_count: int = 0
    d2h_bytes: int = 0
    d2h_count: int = 0

    @property
    def total_bytes(self) -> int:
        return self.h2d_bytes + self.d2h_bytes


def resolve_backend(backend: str | Backend | None) -> Backend:
    """Accept a backend name, a backend instance or None (the default backend)."""
    if isinstance(backend, Backend):
        return backend
    return get_backend(backend)


class UnifiedBuffer:
    """An array that lives on the host and on a device, kept coherent on demand.

    Not CUDA managed ("unified") memory: ``cuda.managed_array`` gives one address that
    the driver migrates page by page on faults; a UnifiedBuffer holds two explicit copies
    and copies whole arrays when the other side asks for them, counting the bytes (chapter
    3 compares the two).

    Args:
        shape: Array shape (an int or a tuple of ints).
        dtype: NumPy dtype of the elements.
        pinned: Ask for page-locked host memory (real on CUDA GPUs, where it makes
            transfers faster and enables asynchronous copies; ignored elsewhere, and
            ``.pinned`` then reads False).
        backend: Backend name or instance; the default backend when None.

    Raises:
        TypeError: If ``shape`` or ``dtype`` is not valid.
        ValueError: If a dimension is negative or the backend is unknown.
    """

    def __init__(
        self,
        shape: ShapeLike,
        dtype: DTypeLike = np.float32,
        *,
        pinned: bool = False,
        backend: str | Backend | None = None,
    ) -> None:
        self.shape = check_shape("UnifiedBuffer", shape)
        self.dtype = check_dtype("UnifiedBuffer", dtype)
        self.backend = resolve_backend(backend)
        self._pinned_request = bool(pinned)
        self.pinned = bool(pinned) and self.backend.pinned_host
        self.stats = TransferStats()
        self._freed = False
        if self.backend.zero_copy:
            self._device = self.backend.allocate(self.shape, self.dtype)
            self._host = self._zero_copy_view()
            self._state = BufferState.IN_SYNC
        else:
            self._host = self.backend.host_empty(self.shape, self.dtype, pinned=bool(pinned))
            self._host[...] = 0
            self._device = self.backend.allocate(self.shape, self.dtype)
            self._state = BufferState.HOST_NEWER

    @classmethod
    def from_array(
        cls,
        array: npt.ArrayLike,
        *,
        pinned: bool = False,
        backend: str | Backend | None = None,
    ) -> UnifiedBuffer:
        """A new buffer holding a copy of ``array`` on the host (not yet on the device)."""
        arr = np.asarray(array)
        buf = cls(arr.shape, arr.dtype, pinned=pinned, backend=backend)
        buf.copy_from(arr)
        return buf

    # -- state ------------------------------------------------------------------------
    @property
    def state(self) -> BufferState:
        """Which side holds the newest data."""
        return self._state

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize

    def mark_host_modified(self) -> None:
        """Declare that the host copy was written (the device copy is stale)."""
        self._check_live("mark_host_modified")
        if not self.backend.zero_copy:
            self._state = BufferState.HOST_NEWER

    def mark_device_modified(self) -> None:
        """Declare that the device copy was written (the host copy is stale)."""
        self._check_live("mark_device_modified")
        if not self.backend.zero_copy:
            self._state = BufferState.DEVICE_NEWER

    # -- access -----------------------------------------------------------------------
    @property
    def host(self) -> np.ndarray:
        """The host array, migrated from the device first if the device is newer."""
        self.sync_to_host()
        self.mark_host_modified()
        return self._host

    @property
    def device(self) -> Any:
        """The backend's array, migrated from the host first if the host is newer."""
        self.sync_to_device()
        self.mark_device_modified()
        return self._device

    @device.setter
    def device(self, value: Any) -> None:
        """Replace the device copy with a device array of the same shape and dtype.

        On MLX, array operations return new arrays; assigning the result here keeps
        the buffer's host view pointing at the newest data without a copy.
        """
        self._check_live("UnifiedBuffer.device")
        shape = tuple(value.shape)
        if shape != self.shape:
            raise ValueError(f"[UnifiedBuffer.device] expected shape {self.shape}, got {shape}")
        dt = np.dtype(str(value.dtype).replace("mlx.core.", ""))
        if dt != self.dtype:
            raise TypeError(f"[UnifiedBuffer.device] expected dtype {self.dtype}, got {dt}")
        self._device = value
        if self.backend.zero_copy:
            self._host = self._zero_copy_view()
        else:
            self._state = BufferState.DEVICE_NEWER

    def read_host(self) -> np.ndarray:
        """A read-only view of the newest data on the host; does not mark the host newer."""
        self.sync_to_host()
        view = self._host.view()
        view.flags.writeable = False
        return view

    def copy_from(self, array: npt.ArrayLike) -> None:
        """Write ``array`` into the host copy (shape and dtype must match)."""
        self._check_live("UnifiedBuffer.copy_from")
        arr = np.asarray(array)
        if arr.shape != self.shape:
            raise ValueError(
                f"[UnifiedBuffer.copy_from] expected shape {self.shape}, got {arr.shape}"
            )
        if arr.dtype != self.dtype:
            raise TypeError(
                f"[UnifiedBuffer.copy_from] expected dtype {self.dtype}, got {arr.dtype}"
            )
        if self.backend.zero_copy:
            self._host = self._zero_copy_view()
        self._host[...] = arr
        self.mark_host_modified()

    def to_numpy(self) -> np.ndarray:
        """A new NumPy array with the newest data."""
        return np.array(self.read_host())

    # -- transfers --------------------------------------------------------------------
    def sync_to_device(self) -> None:
        """Copy host to device if the host is newer; count the transfer."""
        self._check_live("UnifiedBuffer.sync_to_device")
        if self._state is BufferState.HOST_NEWER:
            self._device = self.backend.copy_to_device(self._host, self._device)
            self.stats.h2d_bytes += self.nbytes
            self.stats.h2d_count += 1
            self._state = BufferState.IN_SYNC

    def sync_to_host(self) -> None:
        """Copy device to host if the device is newer; count the transfer."""
        self._check_live("UnifiedBuffer.sync_to_host")
        if self.backend.zero_copy:
            self._host = self._zero_copy_view()
        elif self._state is BufferState.DEVICE_NEWER:
            self.backend.copy_to_host(self._device, self._host)
            self.stats.d2h_bytes += self.nbytes
            self.stats.d2h_count += 1
            self._state = BufferState.IN_SYNC

    def reset_stats(self) -> None:
        """Zero the transfer counters."""
        self.stats = TransferStats()

    def free(self) -> None:
        """Release device memory; the buffer cannot be used afterwards."""
        if not self._freed:
            self.backend.free(self._device)
            self._device = None
            self._freed = True
            self.backend.reclaim()  # now that the buffer holds no reference to the array

    def _zero_copy_view(self) -> np.ndarray:
        view = self.backend.host_view(self._device)
        if view is None:
            raise RuntimeError(f"[UnifiedBuffer] backend {self.backend.name!r} has no host view")
        return view

    def _check_live(self, op: str) -> None:
        if self._freed:
            raise RuntimeError(f"[{op}] buffer was freed; allocate a new UnifiedBuffer")

    def __repr__(self) -> str:
        return (
            f"UnifiedBuffer(shape={self.shape}, dtype={self.dtype}, backend={self.backend.name!r},"
            f" state={self._state.value}, pinned={self.pinned})"
        )

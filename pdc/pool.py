"""MemoryPool: reuse buffers of the same shape and dtype instead of allocating anew.

Device allocation is slow (``cudaMalloc`` may synchronise the device), so frameworks keep
freed blocks and hand them out again. This pool does the same with ``UnifiedBuffer``\\ s,
keyed by (shape, dtype, pinned), bounded in bytes, and counts every hit and miss.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from .backends import Backend, check_dtype, check_shape
from .backends.base import DTypeLike, ShapeLike
from .buffer import UnifiedBuffer, resolve_backend


class PoolError(ValueError):
    """A buffer released twice or into the wrong pool, or a pool over its bound."""


@dataclass
class PoolStats:
    """What the pool did: a hit reuses a cached buffer, a miss allocates one."""

    acquires: int = 0
    hits: int = 0
    misses: int = 0
    releases: int = 0
    evictions: int = 0
    bytes_cached: int = 0
    bytes_in_use: int = 0

    @property
    def hit_rate(self) -> float:
        return self.hits / self.acquires if self.acquires else 0.0


class MemoryPool:
    """A size-bounded cache of ``UnifiedBuffer``\\ s.

    Args:
        backend: Backend name or instance for new buffers; default backend when None.
        max_bytes: Upper bound on bytes held (in use plus cached).

    Raises:
        ValueError: If ``max_bytes`` is not positive.
    """

    def __init__(self, backend: str | Backend | None = None, max_bytes: int = 256 * 2**20):
        if int(max_bytes) <= 0:
            raise ValueError(f"[MemoryPool] expected max_bytes > 0, got {max_bytes}")
        self.backend = resolve_backend(backend)
        self.max_bytes = int(max_bytes)
        self.stats = PoolStats()
        self._free: OrderedDict[int, tuple[Any, UnifiedBuffer]] = OrderedDict()  # LRU order
        self._in_use: dict[int, UnifiedBuffer] = {}

    def acquire(
        self, shape: ShapeLike, dtype: DTypeLike = np.float32, *, pinned: bool = False
    ) -> UnifiedBuffer:
        """Return a buffer of this shape and dtype, reused when one is cached.

        A reused buffer keeps its old contents, as device memory does.

        Raises:
            PoolError: If the request cannot fit under ``max_bytes`` even after evicting
                every cached buffer.
        """
        key = (
            check_shape("MemoryPool.acquire", shape),
            check_dtype("MemoryPool.acquire", dtype),
            bool(pinned),
        )
        self.stats.acquires += 1
        for ident, (k, buf) in self._free.items():
            if k == key:
                del self._free[ident]
                self.stats.hits += 1
                self.stats.bytes_cached -= buf.nbytes
                return self._hand_out(buf)
        nbytes = int(np.prod(key[0], dtype=np.int64)) * key[1].itemsize
        self._evict_until(self.max_bytes - nbytes)
        if self.stats.bytes_in_use + self.stats.bytes_cached + nbytes > self.max_bytes:
            raise PoolError(
                f"[MemoryPool.acquire] expected a request of at most "
                f"{self.max_bytes - self.stats.bytes_in_use} bytes (max_bytes={self.max_bytes}, "
                f"in use {self.stats.bytes_in_use}), got {nbytes} bytes for shape {key[0]}"
            )
        self.stats.misses += 1
        return self._hand_out(UnifiedBuffer(key[0], key[1], pinned=pinned, backend=self.backend))

    def release(self, buf: UnifiedBuffer) -> None:
        """Give ``buf`` back to the pool for reuse.

        Raises:
            PoolError: If ``buf`` was already released or did not come from this pool.
        """
        ident = id(buf)
        if ident not in self._in_use:
            if ident in self._free:
                raise PoolError(f"[MemoryPool.release] buffer {buf!r} was already released")
            raise PoolError(
                f"[MemoryPool.release] expected a buffer acquired from this pool, got {buf!r}"
            )
        del self._in_use[ident]
        self.stats.releases += 1
        self.stats.bytes_in_use -= buf.nbytes
        self._free[ident] = ((buf.shape, buf.dtype, buf._pinned_request), buf)
        self.stats.bytes_cached += buf.nbytes

    def clear(self) -> None:
        """Free every cached buffer (buffers in use are untouched)."""
        self._evict_until(0)

    def _hand_out(self, buf: UnifiedBuffer) -> UnifiedBuffer:
        self._in_use[id(buf)] = buf
        self.stats.bytes_in_use += buf.nbytes
        return buf

    def _evict_until(self, limit: int) -> None:
        while self._free and self.stats.bytes_in_use + self.stats.bytes_cached > max(limit, 0):
            _, (_, buf) = self._free.popitem(last=False)
            self.stats.bytes_cached -= buf.nbytes
            self.stats.evictions += 1
            buf.free()

    def __len__(self) -> int:
        return len(self._free)

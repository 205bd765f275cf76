"""Tier 1/2: MemoryPool reuse, bounds and misuse."""

import numpy as np
import pytest

import pdc


def test_reuse_is_counted_truthfully(any_backend):
    pool = pdc.MemoryPool(backend=any_backend, max_bytes=1 << 20)
    a = pool.acquire((16,), np.float32)
    pool.release(a)
    b = pool.acquire((16,), np.float32)
    c = pool.acquire((16,), np.float32)
    assert b is a and c is not a
    assert (pool.stats.acquires, pool.stats.hits, pool.stats.misses) == (3, 1, 2)
    assert pool.stats.bytes_in_use == 2 * 64 and pool.stats.bytes_cached == 0
    assert pool.stats.hit_rate == pytest.approx(1 / 3)


def test_different_dtype_or_shape_is_a_miss():
    pool = pdc.MemoryPool(backend="cpu")
    a = pool.acquire((4,), np.float32)
    pool.release(a)
    assert pool.acquire((4,), np.float64) is not a
    assert pool.acquire((2, 2), np.float32) is not a
    assert pool.stats.hits == 0


def test_size_bound_evicts_cached_then_refuses():
    pool = pdc.MemoryPool(backend="cpu", max_bytes=100)
    a = pool.acquire((20,), np.float32)  # 80 bytes
    pool.release(a)
    b = pool.acquire((5,), np.float32)  # 20 bytes: fits beside the cached 80
    assert pool.stats.evictions == 0
    c = pool.acquire((4,), np.float32)  # 16 more: the cached 80 must go
    assert pool.stats.evictions == 1 and pool.stats.bytes_cached == 0
    with pytest.raises(
        pdc.PoolError,
        match=r"\[MemoryPool.acquire\] expected a request of at most 64 bytes.*got 80 bytes",
    ):
        pool.acquire((20,), np.float32)
    assert pool.stats.bytes_in_use == b.nbytes + c.nbytes


def test_double_release_and_foreign_buffer_are_errors():
    pool = pdc.MemoryPool(backend="cpu")
    a = pool.acquire((4,))
    pool.release(a)
    with pytest.raises(pdc.PoolError, match=r"already released"):
        pool.release(a)
    with pytest.raises(pdc.PoolError, match=r"expected a buffer acquired from this pool"):
        pool.release(pdc.UnifiedBuffer((4,), backend="cpu"))
    assert pool.stats.releases == 1


def test_clear_frees_cached_buffers():
    pool = pdc.MemoryPool(backend="cpu")
    bufs = [pool.acquire((8,)) for _ in range(3)]
    for b in bufs:
        pool.release(b)
    pool.clear()
    assert len(pool) == 0 and pool.stats.evictions == 3
    with pytest.raises(RuntimeError, match="freed"):
        bufs[0].host


def test_bad_bound():
    with pytest.raises(ValueError, match=r"expected max_bytes > 0, got 0"):
        pdc.MemoryPool(backend="cpu", max_bytes=0)

"""The ``cuda`` namespace a kernel sees in the instrumented simulator.

It offers what numba-cuda offers inside a kernel: thread geometry, shared and local arrays,
barriers, atomics, warp intrinsics (shuffles, votes, ``syncwarp``, ``activemask``,
``laneid``) and the bit and math intrinsics (``fma``, ``cbrt``, ``popc``, ``brev``, ``clz``,
``ffs``, ``selp``). Collective operations are resolved by the scheduler in pdc.grade.sim.
"""

from __future__ import annotations

import math

import numpy as np

from pdc.grade import simmem

FULL_MASK = 0xFFFFFFFF


def _bits(x) -> tuple[int, int]:
    """(value as an unsigned integer, width in bits) of an integer argument."""
    dt = np.asarray(x).dtype
    width = dt.itemsize * 8 if dt.kind in "iu" else 64
    if dt.kind not in "iub":
        raise simmem.KernelError(f"[bit intrinsic] expected an integer, got {type(x).__name__}")
    return int(x) & ((1 << width) - 1), width


class _Shared:
    def __init__(self, launch):
        self.array = launch.shared_array


class _Local:
    def __init__(self, launch):
        self.array = lambda shape, dtype: LocalArray(shape, dtype, launch)


class _Const:
    def __init__(self, launch):
        self.array_like = lambda ary: ary  # constant memory: the argument itself, read-only


class _Atomic:
    def __init__(self, launch):
        def op(fn):
            return lambda ary, idx, val: simmem.unwrap(ary, launch).atomic(idx, fn, val)

        def nan_pick(pick):
            return lambda old, v: v if math.isnan(old) else old if math.isnan(v) else pick(old, v)

        def cas(ary, idx, old, val):
            return simmem.unwrap(ary, launch).atomic(
                idx, lambda cur, v: v if cur == old else cur, val
            )

        def inc(old, limit):
            return 0 if old >= limit else old + 1

        def dec(old, limit):
            return limit if old == 0 or old > limit else old - 1

        self.add = op(lambda old, v: old + v)
        self.sub = op(lambda old, v: old - v)
        self.max = op(lambda old, v: max(old, v) if not math.isnan(v) else old)
        self.min = op(lambda old, v: min(old, v) if not math.isnan(v) else old)
        self.nanmax = op(nan_pick(max))
        self.nanmin = op(nan_pick(min))
        self.exch = op(lambda old, v: v)
        self.and_ = op(lambda old, v: old & v)
        self.or_ = op(lambda old, v: old | v)
        self.xor = op(lambda old, v: old ^ v)
        self.inc = op(inc)
        self.dec = op(dec)
        self.compare_and_swap = lambda ary, old, val: cas(ary, 0, old, val)
        self.cas = cas


def _jit(*args, **kwargs):
    """Stand-in for ``cuda.jit``: functions stay Python functions inside the simulator."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda fn: fn


class FakeCuda:
    """The ``cuda`` namespace a kernel sees while it runs in the simulator."""

    warpsize = 32

    def __init__(self, launch):
        L = launch
        self.shared = _Shared(L)
        self.local = _Local(L)
        self.atomic = _Atomic(L)
        self.const = _Const(L)
        self.jit = _jit
        self.syncthreads = lambda: L.block_op("sync", None)
        self.syncthreads_count = lambda pred: L.block_op("count", pred)
        self.syncthreads_and = lambda pred: L.block_op("and", pred)
        self.syncthreads_or = lambda pred: L.block_op("or", pred)
        self.syncwarp = lambda mask=FULL_MASK: L.warp_op("syncwarp", mask, None, None)
        self.activemask = lambda: L.warp_op("activemask", FULL_MASK, None, None)
        self.shfl_sync = lambda mask, v, src: L.warp_op("shfl", mask, v, src)
        self.shfl_up_sync = lambda mask, v, delta: L.warp_op("up", mask, v, delta)
        self.shfl_down_sync = lambda mask, v, delta: L.warp_op("down", mask, v, delta)
        self.shfl_xor_sync = lambda mask, v, lanemask: L.warp_op("xor", mask, v, lanemask)
        self.all_sync = lambda mask, pred: L.warp_op("all", mask, pred, None)
        self.any_sync = lambda mask, pred: L.warp_op("any", mask, pred, None)
        self.ballot_sync = lambda mask, pred: L.warp_op("ballot", mask, pred, None)
        self.eq_sync = lambda mask, pred: L.warp_op("eq", mask, pred, None)
        self.grid, self.gridsize = L.grid_index, L.grid_size
        self._L = L

    @property
    def threadIdx(self):  # noqa: N802 - CUDA's name
        return self._L.cur.threadIdx

    @property
    def blockIdx(self):  # noqa: N802
        return self._L.cur.blockIdx

    @property
    def blockDim(self):  # noqa: N802
        return self._L.block

    @property
    def gridDim(self):  # noqa: N802
        return self._L.grid

    @property
    def laneid(self):
        return self._L.cur.tid % 32

    def threadfence(self):
        """Memory fences order one thread's accesses; they synchronise nobody."""

    threadfence_block = threadfence_system = threadfence

    @staticmethod
    def nanosleep(ns):
        """A pause changes timing only; a simulated thread need not wait."""

    def lanemask_lt(self):
        """Lanes of the warp below this thread's lane, as a bit mask."""
        return (1 << self.laneid) - 1

    # -- math and bit intrinsics -----------------------------------------------------------
    @staticmethod
    def fma(a, b, c):
        return a * b + c

    @staticmethod
    def cbrt(x):
        return math.copysign(abs(x) ** (1.0 / 3.0), x)

    @staticmethod
    def selp(pred, a, b):
        return a if pred else b

    @staticmethod
    def popc(x):
        return bin(_bits(x)[0]).count("1")

    @staticmethod
    def brev(x):
        v, width = _bits(x)
        return int(format(v, f"0{width}b")[::-1], 2)

    @staticmethod
    def clz(x):
        v, width = _bits(x)
        return width - v.bit_length()

    @staticmethod
    def ffs(x):
        v, _ = _bits(x)
        return (v & -v).bit_length()  # 1-based position of the lowest set bit, 0 if none


class LocalArray:
    """A thread's ``cuda.local.array``: starts as garbage; out-of-range use, and a read of an
    element no write has set, are findings."""

    __slots__ = ("_a", "_L", "_init", "shape", "size", "ndim", "dtype")

    def __init__(self, shape, dtype, launch):
        self._a = simmem.garbage_array(shape, dtype)
        self._L = launch
        self._init = bytearray(self._a.size)
        self.shape, self.size, self.ndim, self.dtype = (
            self._a.shape,
            self._a.size,
            self._a.ndim,
            self._a.dtype,
        )

    def __getitem__(self, idx):
        f = simmem.flat_index(idx, self.shape, "read", "local array", self._L)
        if f < 0:
            return simmem.garbage(self.dtype)
        if not self._init[f]:
            pos = [int(i) for i in np.unravel_index(f, self.shape)]
            self._L.finding("uninitialized", f"read local array{pos} before any write")
        return self._a.reshape(-1)[f]

    def __setitem__(self, idx, value):
        f = simmem.flat_index(idx, self.shape, "write", "local array", self._L)
        if f >= 0:
            self._a.reshape(-1)[f] = value
            self._init[f] = 1

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        if self.ndim != 1:
            raise simmem.KernelError("[iterate local array] expected a 1-D array")
        for i in range(self.shape[0]):
            yield self[i]

"""Memory of the instrumented simulator: the arrays a kernel sees, and what they record.

A kernel never holds one of the recording objects here. It gets a proxy whose class has no
attributes but ``shape``, ``size``, ``ndim``, ``dtype`` and indexing; the counters, race
records and the NumPy array behind it live in a ``SimArray`` that only the simulator holds.
The proxy's methods are closures, so nothing reachable from kernel code leads to them except
names the source checker refuses (``__closure__`` and other dunders).

Memory starts as garbage, as on a GPU: shared and local arrays, and out-of-range reads, give
NaN (floats) or a poison pattern (integers), never a convenient zero.
"""

from __future__ import annotations

import operator
import sys
from array import array

import numpy as np

POISON_INT = -0x2F2F2F2F  # the value uninitialised integer memory reads as
#: Access log entries: (thread << SITE_BITS + 2 | site << 2 | kind), then the flat index. A
#: site is a line of kernel code.
SITE_BITS = 18
LOAD, STORE, ATOMIC = 0, 1, 2
MAX_OOB = 100  # out-of-range attempts an access map keeps per array


class KernelError(RuntimeError):
    """A kernel raised an exception or used something a CUDA kernel cannot use."""


def garbage(dtype: np.dtype):
    """The value that stands for uninitialised memory of ``dtype``."""
    if dtype.kind in "fc":
        return dtype.type(np.nan)
    if dtype.kind == "b":
        return dtype.type(True)
    if dtype.kind == "u":
        return dtype.type(np.iinfo(dtype).max)
    return dtype.type(max(POISON_INT, np.iinfo(dtype).min))


def np_dtype(dtype) -> np.dtype:
    """A NumPy dtype from a NumPy type or a numba type such as ``numba.float32``."""
    try:
        return np.dtype(dtype)
    except TypeError:
        return np.dtype(str(dtype))


def garbage_array(shape, dtype) -> np.ndarray:
    """A new array full of garbage (see ``garbage``)."""
    dt = np_dtype(dtype)
    a = np.empty(shape, dtype=dt)
    a.fill(garbage(dt))
    return a


def _as_int(v) -> int:
    try:
        return operator.index(v)
    except TypeError:
        return -1


def flat_index(idx, dims, op, name, launch):
    """Row-major offset of ``idx``, or -1 after recording an out-of-range finding."""
    if type(idx) is not tuple:
        idx = (idx,)
    if len(idx) != len(dims):
        raise KernelError(
            f"[{op} {name}] expected {len(dims)} integer indices (one element), "
            f"got {len(idx)}: slicing is not available inside a CUDA kernel"
        )
    flat = 0
    for v, d in zip(idx, dims):
        try:
            v = operator.index(v)
        except TypeError:
            raise KernelError(
                f"[{op} {name}] expected an integer index, got {type(v).__name__} {v!r}"
            ) from None
        if v < 0 or v >= d:
            launch.finding(
                "oob",
                f"{op} {name}[{', '.join(str(int(i)) for i in idx)}] outside shape {tuple(dims)}",
            )
            return -1
        flat = flat * d + v
    return flat


class SimArray:
    """A global or shared array as the simulator sees it: data, counters and race records.

    Race records per element, reset at every block barrier: the last writer as (thread, its
    sync generation), readers and atomic users as {thread: generation}. An access by thread t
    is ordered after one by thread u at generation g when t has synchronised with u since
    (``t.seen[u] >= g``, updated by ``syncwarp``).
    """

    __slots__ = (
        "a",
        "flat",
        "dims",
        "name",
        "shared",
        "L",
        "loads",
        "stores",
        "w",
        "r",
        "at",
        "wb",
        "rb",
        "ab",
        "init",
        "bad",
        "written",
        "owner",
        "log",
        "oob",
        "block",
    )

    def __init__(self, a: np.ndarray, name: str, launch, shared: bool = False):
        self.a = a
        self.flat = a.reshape(-1)
        self.dims = a.shape
        self.name = name
        self.shared = shared
        self.L = launch
        n = launch.nthreads
        # Shared memory is counted per thread by the launch (sl, ss), not per array.
        self.loads: list[int] = [] if shared else [0] * n
        self.stores: list[int] = [] if shared else [0] * n
        # Distinct elements each thread wrote (global only): out[i] = 0; out[i] += v is one.
        self.written: list[int] = [] if shared else [0] * n
        self.owner: dict = {}  # global only: flat index -> the thread that last wrote it
        self.w: dict = {}
        self.r: dict = {}
        self.at: dict = {}
        self.wb: dict = {}  # global only: flat index -> writer block (whole launch)
        self.rb: dict = {}  # global only: flat index -> reader block (-2: several)
        self.ab: dict = {}  # global only: flat index -> atomic block (-2: several)
        self.init = bytearray(a.size) if shared else None
        self.bad = garbage(a.dtype)
        # Every access in order, for bank, sector and access-map analysis (pdc.grade.simbanks).
        self.log = array("q")
        self.oob: list | None = [] if launch.record else None  # (thread, index) attempts
        self.block = -1  # shared arrays: the block that allocated it

    def index(self, idx, op):
        dims = self.dims
        if type(idx) is int and len(dims) == 1 and 0 <= idx < dims[0]:
            return idx
        if type(idx) is tuple and len(idx) == 2 == len(dims):
            i, j = idx
            if type(i) is int and type(j) is int and 0 <= i < dims[0] and 0 <= j < dims[1]:
                return i * dims[1] + j
        return flat_index(idx, dims, op, self.name, self.L)

    def pos(self, f) -> str:
        return str([int(i) for i in np.unravel_index(f, self.dims)])

    def _count(self, t, f: int, kind: int):
        """Count one access by thread ``t`` to element ``f`` and log it with its call site."""
        L = self.L
        g = t.gtid
        ops = L.ops
        ops[g] += 1
        if ops[g] > L.budget:
            L.over_budget()
        if self.shared:
            if kind != STORE:
                L.sl[g] += 1
            if kind != LOAD:
                L.ss[g] += 1
        else:
            if kind != STORE:
                self.loads[g] += 1
            if kind != LOAD:
                self.stores[g] += 1
        if not L.logging:
            return
        # Usually kernel -> proxy -> get/set/atomic -> here: the kernel's frame is 3 out, and
        # the site of its instruction is one look-up; anything else takes the long way.
        fr = sys._getframe(3)
        e = L.sites.get(fr.f_lasti)
        site = e[1] if e is not None and e[0] is fr.f_code else L.site_of(fr)
        log = self.log
        log.append(g << (SITE_BITS + 2) | site << 2 | kind)
        log.append(f)

    def _missed(self, idx):
        """Keep an out-of-range attempt for the access map (``record=True`` only)."""
        oob = self.oob
        if oob is not None and len(oob) < MAX_OOB:
            t = self.L.cur
            idx = idx if type(idx) is tuple else (idx,)
            oob.append((t.gtid, tuple(_as_int(i) for i in idx)))

    def _unordered(self, t, who) -> bool:
        """Whether any (thread, generation) in ``who`` is another thread not synced with t."""
        seen = t.seen
        for u, g in who.items():
            if u != t.tid and seen.get(u, -1) < g:
                return True
        return False

    def get(self, idx):
        L = self.L
        f = self.index(idx, "read")
        if f < 0:
            self._missed(idx)
            return self.bad
        t = L.cur
        self._count(t, f, LOAD)
        if self.shared:
            if not self.init[f]:
                L.finding("uninitialized", f"read {self.name}{self.pos(f)} before any write")
        else:
            rb = self.rb.get(f)
            if rb is None:
                self.rb[f] = t.bid
            elif rb != t.bid:
                self.rb[f] = -2
            wb = self.wb.get(f)
            ab = self.ab.get(f)
            if (wb is not None and wb != t.bid) or (ab is not None and ab != t.bid):
                L.finding("race", f"read {self.name}{self.pos(f)} written by another block")
        w = self.w.get(f)
        if w is not None and w[0] != t.tid and t.seen.get(w[0], -1) < w[1]:
            L.finding(
                "race",
                f"read {self.name}{self.pos(f)} written by another thread of the "
                "block with no barrier in between",
            )
        at = self.at.get(f)
        if at is not None and self._unordered(t, at):
            L.finding(
                "race",
                f"read {self.name}{self.pos(f)} updated atomically by another "
                "thread of the block with no barrier in between",
            )
        r = self.r.get(f)
        if r is None:
            self.r[f] = {t.tid: t.gen}
        else:
            r[t.tid] = t.gen
        return self.flat[f]

    def set(self, idx, value):
        L = self.L
        f = self.index(idx, "write")
        if f < 0:
            self._missed(idx)
            return
        t = L.cur
        self._count(t, f, STORE)
        if self.shared:
            self.init[f] = 1
        else:
            self._cross_block(t, f, "write")
            self.wb[f] = t.bid
            self._wrote(t, f)
        w = self.w.get(f)
        if w is not None and w[0] != t.tid and t.seen.get(w[0], -1) < w[1]:
            L.finding(
                "race",
                f"write {self.name}{self.pos(f)} also written by another thread "
                "of the block with no barrier in between",
            )
        for what, d in (("read", self.r.get(f)), ("updated atomically", self.at.get(f))):
            if d is not None and self._unordered(t, d):
                L.finding(
                    "race",
                    f"write {self.name}{self.pos(f)} {what} by another thread "
                    "of the block with no barrier in between",
                )
        self.w[f] = (t.tid, t.gen)
        self.flat[f] = value

    def _wrote(self, t, f):
        if self.owner.get(f) != t.gtid:
            self.owner[f] = t.gtid
            self.written[t.gtid] += 1

    def _cross_block(self, t, f, op, atomic=False):
        # Atomics from several blocks on one element are the point of atomics; anything else
        # that two blocks do to one element is unordered.
        pairs = (("also written", self.wb), ("read", self.rb), ("updated atomically", self.ab))
        for what, d in pairs[:2] if atomic else pairs:
            b = d.get(f)
            if b is not None and b != t.bid:
                L = self.L
                L.finding("race", f"{op} {self.name}{self.pos(f)} {what} by another block")

    def atomic(self, idx, fn, value):
        """Read-modify-write one element; a load and a store, race-checked against plain use."""
        L = self.L
        f = self.index(idx, "atomic")
        if f < 0:
            self._missed(idx)
            return self.bad
        t = L.cur
        self._count(t, f, ATOMIC)
        L.at[t.gtid] += 1
        if self.shared:
            if not self.init[f]:
                L.finding("uninitialized", f"atomic on {self.name}{self.pos(f)} before any write")
            self.init[f] = 1
        else:
            self._cross_block(t, f, "atomic on", atomic=True)
            ab = self.ab.get(f)
            self.ab[f] = t.bid if ab is None or ab == t.bid else -2
            self._wrote(t, f)
        w = self.w.get(f)
        r = self.r.get(f)
        if (w is not None and w[0] != t.tid and t.seen.get(w[0], -1) < w[1]) or (
            r is not None and self._unordered(t, r)
        ):
            L.finding(
                "race",
                f"atomic on {self.name}{self.pos(f)} also used without an atomic "
                "by another thread of the block with no barrier in between",
            )
        d = self.at.get(f)
        if d is None:
            self.at[f] = {t.tid: t.gen}
        else:
            d[t.tid] = t.gen
        old = self.flat[f]
        self.flat[f] = fn(old, value)
        return old

    def new_epoch(self):
        self.w.clear()
        self.r.clear()
        self.at.clear()


def _iter_1d(getitem, dims, name):
    def it(p):
        if len(dims) != 1:
            raise KernelError(f"[iterate {name}] expected a 1-D array, got {len(dims)} dims")
        for i in range(dims[0]):
            yield getitem(p, i)

    return it


def proxy(sa) -> object:
    """The object a kernel holds for ``sa``: indexing, shape, size, ndim and dtype only."""
    get, put = sa.get, sa.set
    shape, dtype = tuple(sa.dims), sa.a.dtype
    space = "shared" if sa.shared else "global"
    text = f"<{space} array {sa.name} shape={shape} dtype={dtype}>"

    def getitem(_p, idx):
        return get(idx)

    def setitem(_p, idx, value):
        put(idx, value)

    ns = {
        "__slots__": (),
        "__getitem__": getitem,
        "__setitem__": setitem,
        "__len__": lambda _p: shape[0],
        "__iter__": _iter_1d(getitem, shape, sa.name),
        "__repr__": lambda _p: text,
        "shape": shape,
        "size": int(sa.a.size),
        "ndim": len(shape),
        "dtype": dtype,
    }
    return type("DeviceArray", (), ns)()


def unwrap(p, launch) -> SimArray:
    """The SimArray behind a proxy (the simulator's side, for atomics)."""
    sa = launch.proxies.get(id(p))
    if sa is None:
        raise KernelError(f"[atomic] expected a global or shared array, got {type(p).__name__}")
    return sa

"""An instrumented CUDA simulator that watches what a kernel does, thread by thread.

numba's own CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) runs a kernel's Python body once per
thread and checks nothing: a negative index silently wraps like any NumPy index, a missing
``syncthreads`` may still give the right answer, and a barrier inside a divergent branch does
not hang. This module runs the same Python body (``kernel.py_func``) under a stand-in ``cuda``
namespace and records, per thread:

* every load and store, split into global (kernel arguments) and shared memory;
* out-of-bounds accesses, negative indices included (they are errors on a GPU);
* data races: an element written by one thread and read or written by another thread of the
  same block between two barriers (or by different blocks at any time, for global memory);
* divergent barriers: a ``syncthreads`` that not every thread of the block reaches, or that
  threads reach at different lines;
* reads of shared memory that no thread has written yet (shared memory starts as NaN here).

Threads of a block run one at a time in a fixed order, so a run is deterministic. A kernel that
never calls ``syncthreads`` runs every thread inline in the calling thread; the first barrier
restarts the launch with one OS thread per simulated thread, handing a baton between them.
"""

from __future__ import annotations

import math
import operator
import sys
import threading
import types
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

Dim3 = namedtuple("Dim3", "x y z")

#: Finding categories a launch can report, in the order feedback lists them.
FINDING_KINDS = ("error", "oob", "race", "divergence", "uninitialized")
_MAX_EXAMPLES = 3
_STACK_BYTES = 256 * 1024


class KernelError(RuntimeError):
    """A kernel raised an exception or used something a CUDA kernel cannot use."""


class _NeedThreads(BaseException):
    """Raised by a barrier in inline mode: rerun the launch with real threads."""


class _Abort(BaseException):
    """Raised in simulated threads when another thread of the block failed."""


def _dim3(v) -> Dim3:
    if isinstance(v, (int, np.integer)):
        return Dim3(int(v), 1, 1)
    t = tuple(int(x) for x in v)
    if not 1 <= len(t) <= 3 or min(t) < 1:
        raise ValueError(f"[sim.launch] expected 1-3 positive dimensions, got {v!r}")
    return Dim3(*(t + (1, 1))[:3])


@dataclass
class LaunchReport:
    """What one simulated launch did.

    Attributes:
        grid: Blocks per dimension (x, y, z).
        block: Threads per block (x, y, z).
        loads: Global loads per thread, by argument name (int64 arrays of length nthreads).
        stores: Global stores per thread, by argument name.
        shared_loads: Shared-memory loads per thread.
        shared_stores: Shared-memory stores per thread.
        atomics: Atomic operations per thread.
        findings: Category -> {"count": int, "examples": [str, ...]}.
        barriers: Largest number of barriers any block passed.
        shared_arrays: Number of shared arrays a block allocated.
    """

    grid: Dim3
    block: Dim3
    loads: dict = field(default_factory=dict)
    stores: dict = field(default_factory=dict)
    shared_loads: np.ndarray | None = None
    shared_stores: np.ndarray | None = None
    atomics: np.ndarray | None = None
    findings: dict = field(default_factory=dict)
    barriers: int = 0
    shared_arrays: int = 0

    @property
    def nthreads(self) -> int:
        """Threads launched in total."""
        return math.prod(self.grid) * math.prod(self.block)

    def count(self, kind: str) -> int:
        """Number of findings of one category (see FINDING_KINDS)."""
        return int(self.findings.get(kind, {}).get("count", 0))

    def work(self) -> np.ndarray:
        """Memory operations (loads, stores, atomics) per thread."""
        total = np.zeros(self.nthreads, dtype=np.int64)
        for d in (self.loads, self.stores):
            for v in d.values():
                total += v
        for v in (self.shared_loads, self.shared_stores, self.atomics):
            if v is not None:
                total += v
        return total


class _Ctx:
    """One simulated thread: its coordinates and scheduling state."""

    __slots__ = ("gtid", "tid", "bid", "threadIdx", "blockIdx", "state", "site", "sem", "exc")

    def __init__(self, gtid, tid, bid, thread_idx, block_idx):
        self.gtid, self.tid, self.bid = gtid, tid, bid
        self.threadIdx, self.blockIdx = thread_idx, block_idx
        self.state = "ready"
        self.site = None
        self.sem = None
        self.exc = None

    def where(self) -> str:
        b, t = self.blockIdx, self.threadIdx
        return f"block ({b.x}, {b.y}, {b.z}) thread ({t.x}, {t.y}, {t.z})"


class SimArray:
    """An ndarray stand-in that checks and records every element access of a kernel."""

    __slots__ = (
        "_a", "_flat", "name", "shared", "_L", "loads", "stores",
        "_w", "_r", "_wb", "_rb", "_init", "_dims",
    )  # fmt: skip

    def __init__(self, a: np.ndarray, name: str, launch: _Launch, shared: bool = False):
        self._a = a
        self._flat = a.reshape(-1)
        self._dims = a.shape
        self.name = name
        self.shared = shared
        self._L = launch
        n = launch.nthreads
        self.loads = None if shared else [0] * n
        self.stores = None if shared else [0] * n
        self._w: dict = {}  # flat index -> writer tid, this block and barrier epoch
        self._r: dict = {}  # flat index -> reader tid (-2: several), this epoch
        self._wb: dict = {}  # global only: flat index -> writer block (whole launch)
        self._rb: dict = {}  # global only: flat index -> reader block (-2: several)
        self._init = bytearray(a.size) if shared else None

    shape = property(lambda self: self._a.shape)
    size = property(lambda self: self._a.size)
    ndim = property(lambda self: self._a.ndim)
    dtype = property(lambda self: self._a.dtype)

    def __len__(self):
        return self._dims[0]

    def __repr__(self):
        space = "shared" if self.shared else "global"
        return f"<{space} array {self.name} shape={self._a.shape} dtype={self._a.dtype}>"

    def _index(self, idx, op):
        dims = self._dims
        if type(idx) is tuple:  # fast paths: plain Python ints, in bounds
            if len(idx) == 2 == len(dims):
                i, j = idx
                if type(i) is int and type(j) is int and 0 <= i < dims[0] and 0 <= j < dims[1]:
                    return i * dims[1] + j
        elif type(idx) is int and len(dims) == 1 and 0 <= idx < dims[0]:
            return idx
        return self._index_slow(idx, op)

    def _index_slow(self, idx, op):
        dims = self._dims
        if type(idx) is not tuple:
            idx = (idx,)
        if len(idx) != len(dims):
            raise KernelError(
                f"[{op} {self.name}] expected {len(dims)} integer indices (one element), "
                f"got {len(idx)}: slicing is not available inside a CUDA kernel"
            )
        flat = 0
        for v, d in zip(idx, dims):
            try:
                v = operator.index(v)
            except TypeError:
                raise KernelError(
                    f"[{op} {self.name}] expected an integer index, got {type(v).__name__} {v!r}"
                ) from None
            if v < 0 or v >= d:
                self._L.finding(
                    "oob",
                    f"{op} {self.name}[{', '.join(str(int(i)) for i in idx)}] outside shape "
                    f"{tuple(dims)}",
                )
                return -1
            flat = flat * d + v
        return flat

    def __getitem__(self, idx):
        L = self._L
        f = self._index(idx, "read")
        if f < 0:
            return self._flat.dtype.type(0)
        t = L.cur
        tid = t.tid
        if self.shared:
            L.sl[t.gtid] += 1
            if not self._init[f]:
                L.finding("uninitialized", f"read {self.name}{self._pos(f)} before any write")
        else:
            self.loads[t.gtid] += 1
            rb = self._rb.get(f)
            if rb is None:
                self._rb[f] = t.bid
            elif rb != t.bid:
                self._rb[f] = -2
            wb = self._wb.get(f)
            if wb is not None and wb != t.bid:
                L.finding("race", f"read {self.name}{self._pos(f)} written by another block")
        w = self._w.get(f)
        if w is not None and w != tid:
            L.finding(
                "race",
                f"read {self.name}{self._pos(f)} written by another thread of the block "
                "with no syncthreads() in between",
            )
        r = self._r.get(f)
        if r is None:
            self._r[f] = tid
        elif r != tid:
            self._r[f] = -2
        return self._flat[f]

    def __setitem__(self, idx, value):
        L = self._L
        f = self._index(idx, "write")
        if f < 0:
            return
        t = L.cur
        tid = t.tid
        if self.shared:
            L.ss[t.gtid] += 1
            self._init[f] = 1
        else:
            self.stores[t.gtid] += 1
            wb = self._wb.get(f)
            if wb is not None and wb != t.bid:
                L.finding("race", f"write {self.name}{self._pos(f)} also written by another block")
            rb = self._rb.get(f)
            if rb is not None and rb != t.bid:
                L.finding("race", f"write {self.name}{self._pos(f)} read by another block")
            self._wb[f] = t.bid
        w = self._w.get(f)
        if w is not None and w != tid:
            L.finding(
                "race",
                f"write {self.name}{self._pos(f)} also written by another thread of the block "
                "with no syncthreads() in between",
            )
        r = self._r.get(f)
        if r is not None and r != tid:
            L.finding(
                "race",
                f"write {self.name}{self._pos(f)} read by another thread of the block "
                "with no syncthreads() in between",
            )
        self._w[f] = tid
        self._flat[f] = value

    def _atomic(self, idx, fn, value):
        L = self._L
        f = self._index(idx, "atomic")
        if f < 0:
            return self._flat.dtype.type(0)
        L.at[L.cur.gtid] += 1
        if self.shared:
            self._init[f] = 1
        old = self._flat[f]
        self._flat[f] = fn(old, value)
        return old

    def _pos(self, f) -> str:
        return str([int(i) for i in np.unravel_index(f, self._dims)])

    def new_epoch(self):
        self._w.clear()
        self._r.clear()


class _Shared:
    def __init__(self, launch):
        self._L = launch

    def array(self, shape, dtype):
        return self._L.shared_array(shape, dtype)


def _np_dtype(dtype) -> np.dtype:
    """A NumPy dtype from a NumPy type or a numba type such as ``numba.float32``."""
    try:
        return np.dtype(dtype)
    except TypeError:
        return np.dtype(str(dtype))


class _Local:
    @staticmethod
    def array(shape, dtype):
        return np.zeros(shape, dtype=_np_dtype(dtype))


class _Const:
    @staticmethod
    def array_like(ary):
        return ary  # constant memory: the argument array itself, read-only by convention


class _Atomic:
    @staticmethod
    def add(ary, idx, val):
        return ary._atomic(idx, operator.add, val)

    @staticmethod
    def sub(ary, idx, val):
        return ary._atomic(idx, operator.sub, val)

    @staticmethod
    def max(ary, idx, val):
        return ary._atomic(idx, max, val)

    @staticmethod
    def min(ary, idx, val):
        return ary._atomic(idx, min, val)

    @staticmethod
    def exch(ary, idx, val):
        return ary._atomic(idx, lambda old, new: new, val)


def _jit(*args, **kwargs):
    """Stand-in for ``cuda.jit``: functions stay Python functions inside the simulator."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda fn: fn


class FakeCuda:
    """The ``cuda`` namespace a kernel sees while it runs in the simulator."""

    warpsize = 32

    def __init__(self, launch: _Launch):
        self._L = launch
        self.shared = _Shared(launch)
        self.local = _Local()
        self.atomic = _Atomic()
        self.const = _Const()
        self.jit = _jit

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

    def grid(self, ndim):
        t, b, d = self._L.cur.threadIdx, self._L.cur.blockIdx, self._L.block
        xyz = (b.x * d.x + t.x, b.y * d.y + t.y, b.z * d.z + t.z)
        return xyz[0] if ndim == 1 else xyz[:ndim]

    def gridsize(self, ndim):
        g, d = self._L.grid, self._L.block
        xyz = (g.x * d.x, g.y * d.y, g.z * d.z)
        return xyz[0] if ndim == 1 else xyz[:ndim]

    def syncthreads(self):
        self._L.barrier()

    def syncwarp(self, mask=0xFFFFFFFF):
        self._L.barrier()

    def threadfence(self):
        pass

    threadfence_block = threadfence_system = threadfence


class _Launch:
    """State of one launch: thread schedule, counters and findings."""

    def __init__(self, grid: Dim3, block: Dim3, threaded: bool):
        self.grid, self.block = grid, block
        self.tpb = math.prod(block)
        self.nthreads = math.prod(grid) * self.tpb
        self.threaded = threaded
        n = self.nthreads
        self.sl, self.ss, self.at = [0] * n, [0] * n, [0] * n
        self.cur: _Ctx | None = None
        self.findings: dict = {}
        self.arrays: list[SimArray] = []
        self.shared: list[SimArray] = []
        self._shared_calls: dict = {}
        self.barriers = 0
        self.max_barriers = 0
        self.max_shared = 0
        self.main_sem = threading.Semaphore(0)
        self.abort = False

    # -- recording -------------------------------------------------------------------------
    def finding(self, kind, text, where=True):
        entry = self.findings.setdefault(kind, {"count": 0, "examples": []})
        entry["count"] += 1
        if len(entry["examples"]) < _MAX_EXAMPLES:
            if where:
                text = f"{text} ({self.cur.where()}{self._line()})"
            entry["examples"].append(text)

    def _line(self):
        f = sys._getframe(1)
        while f is not None and f.f_code.co_filename == __file__:
            f = f.f_back
        if f is None:
            return ""
        return f", {f.f_code.co_name} line {f.f_lineno - f.f_code.co_firstlineno + 1}"

    def shared_array(self, shape, dtype):
        t = self.cur
        k = self._shared_calls.get(t.tid, 0)
        self._shared_calls[t.tid] = k + 1
        if k < len(self.shared):
            return self.shared[k]
        dt = _np_dtype(dtype)
        a = np.empty(shape, dtype=dt)
        a.fill(np.nan if dt.kind in "fc" else -(2**30) if dt.kind == "i" else 0)
        arr = SimArray(a, f"shared#{k}", self, shared=True)
        self.shared.append(arr)
        self.max_shared = max(self.max_shared, len(self.shared))
        return arr

    # -- barriers --------------------------------------------------------------------------
    def barrier(self):
        if not self.threaded:
            raise _NeedThreads
        t = self.cur
        f = sys._getframe(2)
        t.site = (f.f_code, f.f_lineno)
        t.state = "barrier"
        self.main_sem.release()
        t.sem.acquire()
        if self.abort:
            raise _Abort

    def _new_epoch(self):
        for a in self.arrays:
            a.new_epoch()
        for a in self.shared:
            a.new_epoch()

    # -- running ---------------------------------------------------------------------------
    def _threads_of(self, bid, block_idx):
        b = self.block
        ctxs = []
        for tid, (tz, ty, tx) in enumerate(np.ndindex(b.z, b.y, b.x)):
            ctxs.append(_Ctx(bid * self.tpb + tid, tid, bid, Dim3(tx, ty, tz), block_idx))
        return ctxs

    def run(self, fn, args):
        g = self.grid
        for bid, (bz, by, bx) in enumerate(np.ndindex(g.z, g.y, g.x)):
            self.shared = []
            self._shared_calls = {}
            self.barriers = 0
            for a in self.arrays:  # a new block: intra-block epochs restart
                a.new_epoch()
            ctxs = self._threads_of(bid, Dim3(bx, by, bz))
            if self.threaded:
                self._run_block_threaded(fn, args, ctxs)
            else:
                for c in ctxs:
                    self.cur = c
                    self._call(fn, args, c)
            self.max_barriers = max(self.max_barriers, self.barriers)

    def _call(self, fn, args, c):
        try:
            fn(*args)
        except (_NeedThreads, _Abort, KernelError):
            raise
        except Exception as e:
            raise KernelError(f"{type(e).__name__}: {e} ({c.where()}{self._line_of(e)})") from None

    @staticmethod
    def _line_of(e):
        tb = e.__traceback__
        last = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename != __file__:
                last = tb
            tb = tb.tb_next
        if last is None:
            return ""
        code = last.tb_frame.f_code
        return f", {code.co_name} line {last.tb_lineno - code.co_firstlineno + 1}"

    def _run_block_threaded(self, fn, args, ctxs):
        def body(c):
            c.sem.acquire()
            try:
                if not self.abort:
                    self._call(fn, args, c)
                c.state = "done"
            except _Abort:
                c.state = "done"
            except BaseException as e:  # reported by the scheduler
                c.exc = e
                c.state = "error"
            finally:
                self.main_sem.release()

        threads = []
        old = threading.stack_size()
        threading.stack_size(_STACK_BYTES)
        try:
            for c in ctxs:
                c.sem = threading.Semaphore(0)
                th = threading.Thread(target=body, args=(c,), daemon=True)
                th.start()
                threads.append(th)
        finally:
            threading.stack_size(old)
        try:
            while True:
                for c in ctxs:
                    if c.state != "ready":
                        continue
                    self.cur = c
                    c.sem.release()
                    self.main_sem.acquire()
                    if c.state == "error":
                        raise c.exc
                waiting = [c for c in ctxs if c.state == "barrier"]
                if not waiting:
                    break
                self.cur = waiting[0]
                if len(waiting) < len(ctxs):
                    done = len(ctxs) - len(waiting)
                    self.finding(
                        "divergence",
                        f"syncthreads() reached by {len(waiting)} of {len(ctxs)} threads; "
                        f"{done} exited without reaching it (barrier inside a branch?) "
                        f"(block {tuple(waiting[0].blockIdx)})",
                        where=False,
                    )
                sites = {c.site for c in waiting}
                if len(sites) > 1:
                    lines = sorted(s[1] - s[0].co_firstlineno + 1 for s in sites)
                    self.finding(
                        "divergence",
                        f"threads of one block wait at different syncthreads() calls "
                        f"(lines {lines}): barrier inside a branch? "
                        f"(block {tuple(waiting[0].blockIdx)})",
                        where=False,
                    )
                self.barriers += 1
                self._new_epoch()
                for c in waiting:
                    c.state = "ready"
        finally:
            self.abort = True
            for c in ctxs:
                if c.state in ("ready", "barrier"):
                    c.sem.release()
            for th in threads:
                th.join()
            self.abort = False


def kernel_function(kernel):
    """The plain Python function behind a numba CUDA kernel (or the function itself)."""
    return getattr(kernel, "py_func", kernel)


def _rebind(fn, fake, cache):
    """Copy ``fn`` with ``cuda`` and any device functions it calls bound to the simulator."""
    fn = kernel_function(fn)
    if fn in cache:
        return cache[fn]
    g = dict(fn.__globals__)
    new = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
    cache[fn] = new
    for name in fn.__code__.co_names:
        v = g.get(name)
        if v is None:
            continue
        if isinstance(v, types.ModuleType) and v.__name__.endswith("cuda"):
            g[name] = fake
        elif hasattr(v, "py_func") and callable(v.py_func):  # a @cuda.jit device function
            g[name] = _rebind(v.py_func, fake, cache)
        elif isinstance(v, types.FunctionType):  # a device function, already plain Python
            g[name] = _rebind(v, fake, cache)
    for name in ("cuda",):
        if name in fn.__code__.co_names:
            g[name] = fake
    return new


def launch(kernel, grid, block, args, names=None) -> LaunchReport:
    """Run ``kernel[grid, block](*args)`` in the instrumented simulator.

    Array arguments (NumPy arrays) are updated in place, as a device copy would be after
    ``copy_to_host``. Scalars are passed through unchanged.

    Args:
        kernel: A ``@cuda.jit`` kernel, or its Python function.
        grid: Blocks per dimension (int or tuple of up to 3 ints).
        block: Threads per block (int or tuple of up to 3 ints).
        args: The kernel arguments.
        names: Names of the arguments, for reports (default: the function's parameter names).

    Returns:
        A LaunchReport with per-thread counters and the findings found.

    Raises:
        KernelError: The kernel raised an exception; the message names the thread and line.
    """
    fn = kernel_function(kernel)
    grid, block = _dim3(grid), _dim3(block)
    if math.prod(block) > 1024:
        raise ValueError(f"[sim.launch] expected at most 1024 threads per block, got {block}")
    if names is None:
        names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    originals = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        L = _run(fn, grid, block, originals, names, threaded=False)
    except _NeedThreads:
        L = _run(fn, grid, block, originals, names, threaded=True)
    rep = LaunchReport(grid=grid, block=block)
    for a, arr in zip(args, L.arrays_by_arg):
        if arr is not None:
            a[...] = arr._a
            rep.loads[arr.name] = np.asarray(arr.loads, dtype=np.int64)
            rep.stores[arr.name] = np.asarray(arr.stores, dtype=np.int64)
    rep.shared_loads = np.asarray(L.sl, dtype=np.int64)
    rep.shared_stores = np.asarray(L.ss, dtype=np.int64)
    rep.atomics = np.asarray(L.at, dtype=np.int64)
    rep.findings = L.findings
    rep.barriers = L.max_barriers
    rep.shared_arrays = L.max_shared
    return rep


def _run(fn, grid, block, originals, names, threaded):
    L = _Launch(grid, block, threaded)
    fake = FakeCuda(L)
    run_fn = _rebind(fn, fake, {})
    sim_args, by_arg = [], []
    for name, a in zip(names, originals):
        if isinstance(a, np.ndarray):
            arr = SimArray(a.copy(), name, L)
            L.arrays.append(arr)
            sim_args.append(arr)
            by_arg.append(arr)
        else:
            sim_args.append(a)
            by_arg.append(None)
    L.arrays_by_arg = by_arg
    try:
        L.run(run_fn, sim_args)
    except KernelError as e:
        L.findings.setdefault("error", {"count": 1, "examples": [str(e)]})
    return L

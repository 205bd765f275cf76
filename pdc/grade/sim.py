"""An instrumented CUDA simulator that is at least as strict as a GPU, thread by thread.

numba's own CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) runs a kernel's Python body once per
thread and checks nothing: a negative index silently wraps like any NumPy index, a missing
``syncthreads`` may still give the right answer, and a barrier inside a divergent branch does
not hang. This module runs the same Python body (``kernel.py_func``) under a stand-in ``cuda``
namespace (pdc.grade.simcuda) and records, per thread:

* every load and store, split into global (kernel arguments) and shared memory; an atomic
  counts as a load and a store;
* out-of-range accesses, reads included, negative indices included; a read out of range
  returns garbage (NaN or a poison pattern), as do shared and local arrays before a write;
* data races between threads of a block not ordered by a barrier (``syncthreads``, or
  ``syncwarp`` between the lanes it joins), or between blocks, atomics included;
* divergent barriers, and warp collectives (shuffles, votes) that read a lane which is not in
  the mask, has exited or waits elsewhere.

Threads are grouped in warps of 32 consecutive threads (x, then y, then z). Threads of a block
run one at a time, so a run is deterministic; ``schedule=1`` runs blocks and threads in the
reverse order, and ``launch(..., schedules=2)`` compares the outputs of both orders as a
second net for races. A kernel without barriers or warp collectives runs inline in the calling
thread; the first collective restarts the launch with one OS thread per simulated thread.
"""

from __future__ import annotations

import inspect
import math
import sys
import threading
import types

import numpy as np

from pdc.grade import (
    simbanks,
    simcuda,
    simgen,
    simmath,
    simmem,
    simnames,
    simthreads,
    simwarp,
)
from pdc.grade.simmem import KernelError
from pdc.grade.simreport import Dim3, LaunchReport
from pdc.grade.source import DTYPE_NAMES

#: Finding categories a launch can report, in the order feedback lists them.
FINDING_KINDS = ("error", "oob", "race", "divergence", "uninitialized", "warp")
_MAX_EXAMPLES = 3
#: Memory operations one thread may make before it counts as an endless loop.
OPS_PER_THREAD = 100_000
_OWN_FILES = frozenset((__file__, simcuda.__file__, simmem.__file__, simwarp.__file__))

__all__ = ["Dim3", "FINDING_KINDS", "KernelError", "LaunchReport", "kernel_function", "launch"]


class _NeedThreads(BaseException):
    """Raised by a collective in inline mode: rerun the launch with real threads."""


def _dim3(v) -> Dim3:
    if isinstance(v, (int, np.integer)):
        return Dim3(int(v), 1, 1)
    t = tuple(int(x) for x in v)
    if not 1 <= len(t) <= 3 or min(t) < 1:
        raise ValueError(f"[sim.launch] expected 1-3 positive dimensions, got {v!r}")
    return Dim3(*(t + (1, 1))[:3])


class _Ctx:
    """One simulated thread: coordinates, scheduling state and what it has synced with."""

    __slots__ = (
        "gtid",
        "tid",
        "bid",
        "threadIdx",
        "blockIdx",
        "state",
        "op",
        "result",
        "sem",
        "exc",
        "gen",
        "seen",
        "g",
    )

    def __init__(self, gtid, tid, bid, thread_idx, block_idx):
        self.gtid, self.tid, self.bid = gtid, tid, bid
        self.threadIdx, self.blockIdx = thread_idx, block_idx
        self.state = "ready"
        self.op = None  # (scope, kind, site, mask, value, arg) while waiting at a collective
        self.result = None
        self.sem = None
        self.exc = None
        self.gen = 0  # syncwarp generations this thread has passed since the last barrier
        self.seen: dict = {}  # tid -> that thread's generation when they last synced
        self.g = None  # the thread's generator, when the kernel was rewritten (simgen)

    def where(self) -> str:
        b, t = self.blockIdx, self.threadIdx
        return f"block ({b.x}, {b.y}, {b.z}) thread ({t.x}, {t.y}, {t.z})"


def _kernel_frame():
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename in _OWN_FILES:
        f = f.f_back
    return f


def _line(f) -> str:
    return "" if f is None else _site_line((f.f_code, f.f_lineno))


def _site_line(site) -> str:
    code, line = site
    return f", {code.co_name} line {simgen.line_in(code, line)}"


class _Launch:
    """State of one launch: thread schedule, counters, collectives and findings."""

    def __init__(self, grid: Dim3, block: Dim3, threaded: bool, schedule: int, record=False):
        self.grid, self.block = grid, block
        self.record = record  # keep out-of-range attempts for access maps
        self.own_files = _OWN_FILES
        self.logging = schedule == 0  # the second schedule only compares outputs
        self.sites: dict = {}  # instruction offset -> (code, site number in the logs)
        self._offsets: dict = {}  # (code, instruction offset) -> site number
        self._lines: dict = {}  # (code, line) -> site number
        self.site_info: list = []  # site number -> (code, line)
        self.kernel_name = ""
        self.generators = False  # set when the kernel runs as generators (simgen)
        self.tpb = math.prod(block)
        self.nthreads = math.prod(grid) * self.tpb
        self.threaded = threaded
        self.schedule = schedule
        n = self.nthreads
        self.sl, self.ss, self.at = [0] * n, [0] * n, [0] * n
        self.ops = [0] * n
        self.budget = OPS_PER_THREAD
        self.cur: _Ctx | None = None
        self.findings: dict = {}
        self.arrays: list[simmem.SimArray] = []
        self.shared: list = []
        self.proxies: dict = {}
        self._keep: list = []  # proxies stay alive so their ids are never reused
        self._shared_calls: dict = {}  # (code, instruction) -> that site's array
        self._shared_names: dict = {}  # student's variable name -> its (code, instruction)
        self.barriers = 0
        self.max_barriers = 0
        self.max_shared = 0
        self.main_sem = threading.Semaphore(0)
        self.abort = False

    # -- recording -------------------------------------------------------------------------
    def finding(self, kind, text, where=True, site=None):
        """Record a finding; ``site`` is the (code, line) of the thread's own call when it is
        not the running frame (a warp collective is resolved after its lanes arrived)."""
        entry = self.findings.setdefault(kind, {"count": 0, "examples": []})
        entry["count"] += 1
        if len(entry["examples"]) < _MAX_EXAMPLES:
            if where:
                line = _line(_kernel_frame()) if site is None else _site_line(site)
                text = f"{text} ({self.cur.where()}{line})"
            entry["examples"].append(text)

    def over_budget(self):
        """Stop a thread past ``budget`` memory operations (counted by pdc.grade.simmem)."""
        # A budget in operations, not seconds: the verdict does not depend on machine load.
        raise KernelError(
            f"more than {self.budget} memory operations per thread: an endless loop? "
            f"({self.cur.where()}{_line(_kernel_frame())})"
        )

    def site_of(self, frame) -> int:
        """The site number, for the access logs, of the kernel line that made an access.

        ``frame`` is where the kernel usually is; the simulator's own frames (atomics,
        iteration) are skipped. Sites are looked up by instruction offset and numbered by
        line: CPython moves the offset of an access as it specialises the code, and one line
        may make several accesses.
        """
        own = self.own_files
        while frame.f_code.co_filename in own:
            frame = frame.f_back
        code, lasti = frame.f_code, frame.f_lasti
        n = self._offsets.get((code, lasti))
        if n is None:
            line = frame.f_lineno
            n = self._lines.get((code, line))
            if n is None:
                n = len(self.site_info)
                if n >= 1 << simmem.SITE_BITS:
                    raise KernelError(f"[sim] expected at most {n} kernel lines, got more")
                self._lines[(code, line)] = n
                self.site_info.append((code, line))
            self._offsets[(code, lasti)] = n
        if lasti not in self.sites:  # the fast path of SimArray._count: one code per offset
            self.sites[lasti] = (code, n)
        return n

    def wrap(self, sa: simmem.SimArray):
        p = simmem.proxy(sa)
        self.proxies[id(p)] = sa
        self._keep.append(p)
        return p

    def shared_array(self, shape, dtype):
        # One array per call site and block, as on a GPU, where a shared array is a static
        # allocation: declared inside a loop, it is the same memory at every iteration.
        f = _kernel_frame()
        site = (f.f_code, f.f_lasti) if f is not None else None
        p = self._shared_calls.get(site)
        if p is None:
            k = len(self.shared)
            name = self._shared_name(site, k)
            arr = simmem.SimArray(simmem.garbage_array(shape, dtype), name, self, True)
            arr.block = self.cur.bid
            self.arrays.append(arr)
            p = self._shared_calls[site] = self.wrap(arr)
            self.shared.append(p)
            self.max_shared = max(self.max_shared, len(self.shared))
        return p

    def _shared_name(self, site, k: int) -> str:
        # The student's variable (sA), unless another site or an argument has that name.
        name = simnames.assigned_name(*site) if site is not None else None
        if name is None or self._shared_names.setdefault(name, site) != site:
            return f"shared#{k}"
        if any(a is not None and a.name == name for a in getattr(self, "arrays_by_arg", ())):
            return f"shared#{k}"
        return name

    def grid_index(self, ndim):
        t, b, d = self.cur.threadIdx, self.cur.blockIdx, self.block
        xyz = (b.x * d.x + t.x, b.y * d.y + t.y, b.z * d.z + t.z)
        return xyz[0] if ndim == 1 else xyz[:ndim]

    def grid_size(self, ndim):
        g, d = self.grid, self.block
        xyz = (g.x * d.x, g.y * d.y, g.z * d.z)
        return xyz[0] if ndim == 1 else xyz[:ndim]

    # -- collectives: the thread waits, the scheduler resolves -------------------------------
    def _wait(self, op):
        if not self.threaded:
            raise _NeedThreads
        t = self.cur
        t.op, t.state = op, "wait"
        self.main_sem.release()
        t.sem.acquire()
        if self.abort:
            raise simthreads.Abort
        return t.result

    def block_op(self, kind, pred):
        f = _kernel_frame()
        return self._wait(("block", kind, (f.f_code, f.f_lineno) if f else None, 0, pred, None))

    def warp_op(self, kind, mask, value, arg):
        f = _kernel_frame()
        site = (f.f_code, f.f_lineno) if f else None
        return self._wait(("warp", kind, site, int(mask) & simcuda.FULL_MASK, value, arg))

    # -- running ---------------------------------------------------------------------------
    def _threads_of(self, bid, block_idx):
        b = self.block
        return [
            _Ctx(bid * self.tpb + tid, tid, bid, Dim3(tx, ty, tz), block_idx)
            for tid, (tz, ty, tx) in enumerate(np.ndindex(b.z, b.y, b.x))
        ]

    def run(self, fn, args):
        g = self.grid
        blocks = list(enumerate(np.ndindex(g.z, g.y, g.x)))
        for bid, (bz, by, bx) in blocks[:: -1 if self.schedule else 1]:
            self.shared = []
            self._shared_calls = {}
            self.barriers = 0
            for a in self.arrays:  # a new block: intra-block epochs restart
                a.new_epoch()
            ctxs = self._threads_of(bid, Dim3(bx, by, bz))
            order = ctxs[::-1] if self.schedule else ctxs
            if self.generators:
                self._run_block_generators(fn, args, ctxs, order)
            elif self.threaded:
                self._run_block_threaded(fn, args, ctxs, order)
            else:
                for c in order:
                    self.cur = c
                    self.call_thread(fn, args, c)
            self.max_barriers = max(self.max_barriers, self.barriers)

    def call_thread(self, fn, args, c):
        try:
            fn(*args)
        except (_NeedThreads, simthreads.Abort, KernelError):
            raise
        except RecursionError:
            raise KernelError(f"RecursionError ({c.where()})") from None
        except Exception as e:
            raise KernelError(f"{type(e).__name__}: {e} ({c.where()}{_line_of(e)})") from None

    def _step(self, fn, args, c):
        """Run thread ``c`` to its next collective (state "wait") or to its end ("done")."""
        self.cur = c
        try:
            if c.g is None:
                c.g = fn(*args)
                op = c.g.send(None)
            else:
                op = c.g.send(c.result)
        except StopIteration:
            c.state = "done"
            return
        except KernelError:
            raise
        except RecursionError:
            raise KernelError(f"RecursionError ({c.where()})") from None
        except Exception as e:
            raise KernelError(f"{type(e).__name__}: {e} ({c.where()}{_line_of(e)})") from None
        scope, kind, mask, value, arg = op
        mask = int(mask) & simcuda.FULL_MASK if scope == "warp" else 0
        c.op = (scope, kind, simgen.innermost_site(c.g), mask, value, arg)
        c.state = "wait"

    def _run_block_generators(self, fn, args, ctxs, order):
        while True:
            for c in order:
                if c.state == "ready":
                    self._step(fn, args, c)
            if not any(c.state == "wait" for c in ctxs):
                break
            if not simwarp.resolve_warps(self, ctxs):
                self.resolve_block(ctxs)

    def _run_block_threaded(self, fn, args, ctxs, order):
        simthreads.run_block(self, fn, args, ctxs, order)

    def resolve_block(self, ctxs):
        waiting = [c for c in ctxs if c.state == "wait"]
        self.cur = waiting[0]
        where = f"(block {tuple(waiting[0].blockIdx)})"
        if len(waiting) < len(ctxs):
            done = len(ctxs) - len(waiting)
            self.finding(
                "divergence",
                f"syncthreads() reached by {len(waiting)} of {len(ctxs)} "
                f"threads; {done} exited without reaching it (barrier inside a branch?) "
                f"{where}",
                where=False,
            )
        sites = {c.op[2] for c in waiting}
        if len(sites) > 1 or any(c.op[0] != "block" for c in waiting):
            lines = sorted(simgen.line_in(*s) for s in sites if s is not None)
            self.finding(
                "divergence",
                "threads of one block wait at different syncthreads() "
                f"calls (lines {lines}): barrier inside a branch? {where}",
                where=False,
            )
        preds = [bool(c.op[4]) for c in waiting if c.op[0] == "block"]
        result = {"sync": None, "count": sum(preds), "and": int(all(preds)), "or": int(any(preds))}
        self.barriers += 1
        for a in self.arrays:
            a.new_epoch()
        for c in ctxs:
            c.gen, c.seen = 0, {}
        for c in waiting:
            c.result = result.get(c.op[1]) if c.op[0] == "block" else None
            c.state = "ready"


def _line_of(e):
    tb = e.__traceback__
    last = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename not in _OWN_FILES:
            last = tb
        tb = tb.tb_next
    if last is None:
        return ""
    code = last.tb_frame.f_code
    return f", {code.co_name} line {simgen.line_in(code, last.tb_lineno)}"


def kernel_function(kernel):
    """The plain Python function behind a numba CUDA kernel (or the function itself)."""
    return getattr(kernel, "py_func", kernel)


def _numba_namespace(fake, real):
    """What the name ``numba`` means in a kernel: its dtypes, and ``cuda`` as the simulator."""
    ns = {k: getattr(real, k) for k in DTYPE_NAMES if hasattr(real, k)}
    return types.SimpleNamespace(cuda=fake, **ns)


def _rebind(fn, fake, cache, memo=None):
    """Copy ``fn`` with ``cuda``, ``numba`` and the device functions it calls simulated.

    With ``memo`` (simgen's), functions that use collectives are rewritten as generators.
    """
    fn = kernel_function(fn)
    if fn in cache:
        return cache[fn]
    g = dict(fn.__globals__)
    if memo is not None and simgen.has_collective(fn, memo):
        new = simgen.rewrite(fn, g, memo)
    else:
        new = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
    cache[fn] = new
    for name in fn.__code__.co_names:
        v = g.get(name)
        if v is None:
            continue
        if name == "cuda" or (isinstance(v, types.ModuleType) and v.__name__.endswith("cuda")):
            g[name] = fake
        elif (ieee := simmath.gpu_math_function(v)) is not None:  # inf and nan, as on a GPU
            g[name] = ieee
        elif name == "numba":
            g[name] = _numba_namespace(fake, v)
        elif hasattr(v, "py_func") and callable(v.py_func):  # a @cuda.jit device function
            g[name] = _rebind(v.py_func, fake, cache, memo)
        elif isinstance(v, types.FunctionType):  # a device function, already plain Python
            g[name] = _rebind(v, fake, cache, memo)
    return new


def launch(
    kernel, grid, block, args, names=None, *, schedules: int = 1, record: bool = False
) -> LaunchReport:
    """Run ``kernel[grid, block](*args)`` in the instrumented simulator.

    Array arguments (NumPy arrays) are updated in place, as a device copy would be after
    ``copy_to_host``. Scalars are passed through unchanged.

    Args:
        kernel: A ``@cuda.jit`` kernel, or its Python function.
        grid: Blocks per dimension (int or tuple of up to 3 ints).
        block: Threads per block (int or tuple of up to 3 ints).
        args: The kernel arguments.
        names: Names of the arguments, for reports (default: the function's parameter names).
        schedules: 2 also runs blocks and threads in reverse order and reports a race when
            the outputs differ.
        record: Also map who accessed each element (``LaunchReport.access``).

    Returns:
        A LaunchReport with per-thread counters, the findings found and the memory analysis
        (bank conflicts, sectors, atomics per element) of the first schedule.

    Raises:
        ValueError: More than 1024 threads per block, or ``schedules`` not 1 or 2.
    """
    fn = kernel_function(kernel)
    grid, block = _dim3(grid), _dim3(block)
    if math.prod(block) > 1024:
        raise ValueError(f"[sim.launch] expected at most 1024 threads per block, got {block}")
    if schedules not in (1, 2):
        raise ValueError(f"[sim.launch] expected schedules 1 or 2, got {schedules!r}")
    if names is None:
        names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    L = _run_once(fn, grid, block, args, names, 0, record)
    if schedules == 2 and "error" not in L.findings:
        other = _run_once(fn, grid, block, args, names, 1, False)
        for a, b in zip(L.arrays_by_arg, other.arrays_by_arg):
            if a is None or a.a.dtype.kind not in "biufc":
                continue
            same = np.isclose(a.a, b.a, rtol=1e-5, atol=1e-5, equal_nan=True)
            if not same.all():
                L.cur = None
                f = int(np.argmin(same.reshape(-1)))
                L.finding(
                    "race",
                    f"{a.name}{a.pos(f)} differs when blocks and threads run in "
                    "another order: a race between threads?",
                    where=False,
                )
                break
        for kind, v in other.findings.items():
            L.findings.setdefault(kind, v)
    rep = LaunchReport(grid=grid, block=block)
    for a, arr in zip(args, L.arrays_by_arg):
        if arr is not None:
            a[...] = arr.a
            rep.loads[arr.name] = np.asarray(arr.loads, dtype=np.int64)
            rep.stores[arr.name] = np.asarray(arr.stores, dtype=np.int64)
            rep.written[arr.name] = np.asarray(arr.written, dtype=np.int64)
    rep.shared_loads = np.asarray(L.sl, dtype=np.int64)
    rep.shared_stores = np.asarray(L.ss, dtype=np.int64)
    rep.atomics = np.asarray(L.at, dtype=np.int64)
    rep.findings = L.findings
    rep.barriers = L.max_barriers
    rep.shared_arrays = L.max_shared
    simbanks.analyse(rep, L, record)
    return rep


def _run_once(fn, grid, block, args, names, schedule, record):
    originals = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        return _run(fn, grid, block, originals, names, False, schedule, record)
    except _NeedThreads:
        return _run(fn, grid, block, originals, names, True, schedule, record)


def _run(fn, grid, block, originals, names, threaded, schedule, record):
    L = _Launch(grid, block, threaded, schedule, record)
    L.kernel_name = fn.__name__
    fake = simcuda.FakeCuda(L)
    run_fn = None
    if not threaded:
        try:
            run_fn = _rebind(fn, fake, {}, {})
        except simgen.NoSource:
            run_fn = None
        L.generators = run_fn is not None and inspect.isgeneratorfunction(run_fn)
    if run_fn is None:
        run_fn = _rebind(fn, fake, {})
    sim_args, by_arg = [], []
    for name, a in zip(names, originals):
        if isinstance(a, np.ndarray):
            arr = simmem.SimArray(a.copy(), name, L)
            L.arrays.append(arr)
            sim_args.append(L.wrap(arr))
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

"""The SIMT machine: every thread of a launch at once, one basic block at a time.

Each IR variable is a NumPy vector over all threads of the launch (blocks side by side,
each padded to whole warps), in the dtype numba inferred for it. A thread's program counter
is the rank of its basic block in a topological order of the control-flow graph (back edges
left out). Each step runs the lowest-ranked block that any thread is at, for exactly the
threads that are there (the active mask); the others wait. Threads that split at a branch
thus meet again at the first block both paths reach (the immediate post-dominator of a
structured branch) before either goes on, and a loop runs while any thread is still in it:
the reconvergence a GPU's SIMT stack gives, without a stack. A loop whose threads wait
for another thread (a spin lock) would spin forever under that rule: pdc.sim.spin notices
it and lets the waiting threads run, as independent thread scheduling (Volta on) does.

Values of inactive threads are computed but never stored to memory, never reported and
never kept: an assignment under a partial mask merges (``np.where``). Every variable also
has an *undefined* mask (or None): pdc.sim.memory explains where undefined values come
from; here they are reported when they reach global memory, an address or a branch.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from pdc.sim import iters, memory
from pdc.sim.frontend import Unsupported
from pdc.sim.spin import SpinWatch, waits_on_other_blocks
from pdc.sim.work import Spans

WARP = 32
BIG = np.iinfo(np.int32).max
#: Basic blocks one launch may run (all threads together) before it counts as endless:
#: a count, not seconds, so the verdict does not depend on the machine's load.
STEP_BUDGET = 300_000
#: Memory operations one thread may make before the launch counts as an endless loop.
OPS_PER_THREAD = 50_000
_EXAMPLES = 3

Dim3V = namedtuple("Dim3V", "x y z")


class Counts:
    """A count per thread; an increment for every thread of the launch is one number."""

    __slots__ = ("vec", "full")

    def __init__(self, n: int):
        self.vec = np.zeros(n, np.int64)
        self.full = 0

    def add(self, lanes) -> None:
        if lanes.size == self.vec.size:
            self.full += 1
        else:
            self.vec[lanes] += 1

    def add_n(self, lanes, k: int) -> None:
        if lanes.size == self.vec.size:
            self.full += k
        else:
            self.vec[lanes] += k

    def value(self) -> np.ndarray:
        return self.vec + self.full

    def max(self) -> int:
        return int(self.vec.max()) + self.full


class KernelError(Exception):
    """The kernel cannot go on (an endless loop, or something the simulator cannot model)."""


class Launch:
    """Everything one launch shares: geometry, threads' state, arrays and findings."""

    def __init__(self, grid, block, kernel_name: str = "", record: bool = False, ops_limit=None):
        gx, gy, gz = grid
        bx, by, bz = block
        self.grid, self.block = tuple(grid), tuple(block)
        self.tpb = tpb = bx * by * bz
        self.wpb = wpb = -(-tpb // WARP)
        self.nblocks = nb = gx * gy * gz
        per = wpb * WARP
        self.N = n = nb * per
        t = np.arange(n, dtype=np.int64)
        blk, tid = t // per, t % per
        self.real = tid < tpb
        tid = np.where(self.real, tid, 0)
        i32 = np.int32
        self.threadIdx = Dim3V(
            (tid % bx).astype(i32), ((tid // bx) % by).astype(i32), (tid // (bx * by)).astype(i32)
        )
        self.blockIdx = Dim3V(
            (blk % gx).astype(i32), ((blk // gx) % gy).astype(i32), (blk // (gx * gy)).astype(i32)
        )
        self.blockDim = Dim3V(i32(bx), i32(by), i32(bz))
        self.gridDim = Dim3V(i32(gx), i32(gy), i32(gz))
        self.block_of = blk
        self.warp_of = t // WARP
        self.lane = (t % WARP).astype(np.int64)
        self.gtid = np.where(self.real, blk * tpb + tid, -1)
        self.alive = self.real.copy()
        self.exited = np.zeros(n, dtype=bool)
        # The kernel was jitted with debug=True: a raise or a failed assert is an error
        # numba-cuda raises on the host after the launch (pdc.sim.program), not a silent stop.
        self.debug = False
        self.bep = np.zeros(nb, dtype=np.int64)  # barrier epoch of each block
        self.wgen = np.zeros(n // WARP, dtype=np.int64)  # syncwarp generation of each warp
        self.pairgen: Any = None  # (warps, 32, 32): generation at which two lanes last synced
        self.kernel_name = kernel_name
        self.record = record
        self.findings: dict = {}
        self.arrays: list = []
        self.by_arg: list = []
        self.sites: dict = {}  # (program, statement) -> the shared/local array made there
        self.steps = 0
        self.barriers = 0
        self.shared_arrays = 0
        self.sl = Counts(n)
        self.ss = Counts(n)
        self.at = np.zeros(n, np.int64)
        self.mops = Counts(n)  # memory operations per thread
        # pdc.sim.run.launch_here: a tighter limit than OPS_PER_THREAD, and why it holds
        self.ops_limit, self.ops_why = OPS_PER_THREAD, ""
        if ops_limit is not None and int(ops_limit[0]) < OPS_PER_THREAD:
            self.ops_limit, self.ops_why = int(ops_limit[0]), f" ({ops_limit[1]})"
        self.alu = Counts(n)  # other operations per thread (pdc.sim.work)
        self.shuffles = Counts(n)  # values a thread read from another lane's register
        self.spans = Spans(n)
        self.mem_instructions = 0
        self.atomic_instructions = 0  # pdc.sim.spin: loops that wait do atomics
        self.stores = 0  # plain stores, and barriers and fences: pdc.sim.spin tells apart
        self.fences = 0  # a wait on plain loads from one that loads again after a fence
        self.publish: Any = None  # pdc.sim.races.Publish: fences, and atomics after them
        self.retry: Any = None  # pdc.sim.retries: the last failed CAS of each thread
        self.reloads: Any = None  # pdc.sim.reloads: each thread's last global loads
        # Per thread: loop passes begun and calls entered (pdc.sim.reloads: a load is dropped
        # only within one pass of straight-line code, where a name holds one value).
        self.passes = np.zeros(n, np.int64)
        self.undef_origin = ""
        # Where undefined values came from: "outside" (a read out of range), "unwritten",
        # "race", "shuffle", "unassigned". Only "outside": an undefined value that reaches
        # memory, an address or a branch was reported already, as the out-of-range read
        # that made it (compute-sanitizer's memcheck reports that read, and nothing more).
        self.undef_from: set = set()
        self._bases: dict = {}
        self.imemo: dict = {}  # id of an index vector -> [it, min, max, {stride: offsets}]
        from pdc.sim.analysis import Analysis

        self.an = Analysis(self)

    def memory_op(self, lanes) -> None:
        """Count one memory instruction for ``lanes``; stop a launch that loops without end."""
        self.mops.add(lanes)
        self.mem_instructions += 1
        if self.mem_instructions % 256 == 0 and self.mops.max() > self.ops_limit:
            k = int(np.argmax(self.mops.vec))
            raise KernelError(
                f"more than {self.ops_limit:,} memory operations per thread{self.ops_why}: "
                f"an endless loop? ({self.where(k)})"
            )

    def reports_undefined(self) -> bool:
        """Whether a use of an undefined value is a finding: not while every undefined value
        of the launch so far came from an out-of-range read, reported where it was read."""
        return self.undef_from != {"outside"}

    def operations(self) -> np.ndarray:
        """Operations per thread so far: memory and the rest (pdc.sim.work)."""
        out = self.mops.vec + self.alu.vec
        out += self.mops.full + self.alu.full
        return out

    def block_base(self, size: int) -> np.ndarray:
        """Each thread's block times ``size``: where its block's copy of an array starts."""
        v = self._bases.get(size)
        if v is None:
            v = self._bases[size] = self.block_of * size
        return v

    # -- findings -------------------------------------------------------------------------
    def where(self, lane: int) -> str:
        b = tuple(int(v[lane]) for v in self.blockIdx)
        t = tuple(int(v[lane]) for v in self.threadIdx)
        return f"block {b} thread {t}"

    def finding(self, kind: str, text: str, lane=None, site: str = "", count: int = 1):
        """Record ``count`` findings of one kind; the first few keep their text."""
        e = self.findings.setdefault(kind, {"count": 0, "examples": []})
        e["count"] += int(count)
        if len(e["examples"]) < _EXAMPLES:
            where = []
            if lane is not None:
                where.append(self.where(int(lane)))
            if site:
                where.append(site)
            e["examples"].append(f"{text} ({', '.join(where)})" if where else text)

    # -- warps ------------------------------------------------------------------------------
    def joined(self):
        if self.pairgen is None:
            self.pairgen = np.zeros((self.N // WARP, WARP, WARP), dtype=np.int64)
        return self.pairgen


class Frame:
    """One function invocation: its variables and, during a step, its active threads."""

    __slots__ = ("S", "prog", "env", "und", "args", "m", "lanes", "partial", "ret", "ret_und")

    def __init__(self, S: Launch, prog, args, args_und):
        self.S = S
        self.prog = prog
        self.env: dict = {}
        self.und: dict = {}
        self.args = args
        self.ret: Any = None
        self.ret_und: Any = None
        self.m: Any = None
        self.lanes: Any = None
        self.partial = False
        for name, u in zip(prog.arg_names, args_und):
            self.und[name] = u

    def put(self, name: str, value, und=None):
        """Assign ``value`` to the active threads' ``name`` (merging under a partial mask)."""
        if self.partial and name in self.env:
            value = merge(self.env[name], value, self.m)
            old = self.und.get(name)
            if old is not None or und is not None:
                und = np.where(self.m, _full(und, self.S.N), _full(old, self.S.N))
        self.env[name] = value
        self.und[name] = und

    def set(self, name: str, value, und=None):
        """Assign ``value`` to ``name`` for every thread: for a variable only the active
        threads read before it is assigned again (pdc.sim.program: block-local ones)."""
        self.env[name] = value
        self.und[name] = und

    def restrict(self) -> None:
        """Drop threads that exited (a raise in a device function) from the active mask."""
        m = self.m & self.S.alive
        self.m, self.lanes = m, np.flatnonzero(m)


def _full(u, n):
    return np.zeros(n, dtype=bool) if u is None else u


def merge(old, new, m):
    """``new`` for the threads in ``m``, ``old`` for the others."""
    if new is old:
        return new
    if isinstance(new, np.ndarray | np.generic) and isinstance(old, np.ndarray | np.generic):
        out = np.where(m, new, old)
        return out if out.dtype == new.dtype else out.astype(new.dtype)
    if isinstance(new, tuple) and isinstance(old, tuple) and len(new) == len(old):
        out = tuple(merge(a, b, m) for a, b in zip(old, new))
        return type(new)(*out) if hasattr(new, "_fields") else out
    if isinstance(new, iters.Iter) and type(old) is type(new):
        return new.merged(old, m)
    if isinstance(new, memory.SimArray) and isinstance(old, memory.SimArray):
        raise Unsupported(
            "the simulator does not support a variable that names different arrays in "
            f"different threads yet ({old.name} and {new.name})"
        )
    return new


def run_function(S: Launch, prog, args, args_und, mask, kernel: bool = False):
    """Run ``prog`` for the threads in ``mask``; returns (return value, undefined mask).

    While every thread of the call is at one block (the common case) the step needs no
    vector work: ``at`` holds that block's rank and ``live``/``live_lanes`` the threads.
    """
    fr = Frame(S, prog, args, args_und)
    n = S.N
    S.passes[mask] += 1
    blocks = prog.blocks
    live = mask.copy()
    live_lanes = np.flatnonzero(live)
    at: Any = 0  # the rank every live thread is at, or None: see pc
    pc: Any = None
    watch = SpinWatch()
    told: set = set()  # loops found waiting for another block
    above = -1  # after a spinning iteration: run the lowest block above the loop's head
    while True:
        if at is not None:
            if at == BIG or live_lanes.size == 0:
                break
            r, m, lanes = at, live, live_lanes
            fr.partial = False
        else:
            r = int(pc.min()) if above < 0 else int(pc[pc > above].min())
            above = -1
            if r == BIG:
                break
            m = pc == r
            lanes = np.flatnonzero(m)
            fr.partial = lanes.size < int(np.count_nonzero(pc != BIG))
        fr.m, fr.lanes = m, lanes
        S.steps += 1
        if S.steps > STEP_BUDGET:
            raise KernelError(
                f"more than {STEP_BUDGET:,} steps: an endless loop? ({prog.name} "
                f"line {blocks[r].line}, {S.where(int(lanes[0]))})"
            )
        blk = blocks[r]
        for st in blk.body:
            st(fr)
        nxt = blk.term(fr)
        if fr.lanes.size < lanes.size:  # a device function raised: those threads are gone
            if pc is not None:
                pc[m & ~S.alive] = BIG
            m, lanes = fr.m, fr.lanes
            if at is not None:
                live, live_lanes = m, lanes
        if isinstance(nxt, np.ndarray):
            vals = nxt[lanes]
            if vals.size and (vals == vals[0]).all():
                nxt = int(vals[0])
        if isinstance(nxt, np.ndarray):
            S.passes[lanes[nxt[lanes] <= r]] += 1
        elif nxt <= r:
            S.passes[lanes] += 1  # a loop's back edge: its next pass begins
        if not isinstance(nxt, np.ndarray) and nxt <= r and watch.spinning(fr, nxt):
            # An iteration that changed nothing: only another thread can end this loop.
            if watch.plain:
                raise KernelError(
                    f"a loop that can never end ({prog.name} line {blocks[nxt].line}, "
                    f"{S.where(int(lanes[0]))}): it waits for a value read with plain loads, "
                    "which a compiler may make once, before the loop; read a value that "
                    "another thread writes with an atomic (cuda.atomic.add(a, i, 0))"
                )
            waiting = pc is not None and bool((pc[pc != BIG] > r).any())
            if not waiting:
                raise KernelError(
                    f"a loop that can never end ({prog.name} line {blocks[nxt].line}, "
                    f"{S.where(int(lanes[0]))}): its threads wait for a value that no other "
                    "thread of the launch is left to write (a deadlock)"
                )
            if nxt not in told and waits_on_other_blocks(S, pc, r, lanes):
                told.add(nxt)
                S.finding(
                    "race",
                    "a loop waits for a value that another block writes: blocks run in any "
                    "order, one after another too, so the block it waits for may never start",
                    int(lanes[0]),
                    f"{prog.name} line {blocks[nxt].line}",
                )
            above = nxt
        if kernel:
            gone = lanes if not isinstance(nxt, np.ndarray) and nxt == BIG else None
            if isinstance(nxt, np.ndarray):
                gone = lanes[nxt[lanes] == BIG]
            if gone is not None and gone.size:
                S.alive[gone] = False
                S.exited[gone] = True
        if not fr.partial:
            # Every live thread was here: the next ranks decide whether they stay together.
            if isinstance(nxt, np.ndarray):
                pc = np.full(n, BIG, dtype=np.int32)
                pc[lanes] = nxt[lanes]
                at = None
            else:
                at, live, live_lanes, pc = nxt, m, lanes, None
        else:
            pc[lanes] = nxt[lanes] if isinstance(nxt, np.ndarray) else nxt
    return fr.ret, fr.ret_und


def vec(v, n: int) -> np.ndarray:
    """``v`` as a vector over all ``n`` threads."""
    a = np.asarray(v)
    return a if a.ndim else np.full(n, a)


def check_defined(fr: Frame, und, what: str, site: str) -> None:
    """Report active threads whose ``und`` mask says a value used as ``what`` is undefined."""
    if und is None or not fr.S.reports_undefined():
        return
    bad = und[fr.lanes]
    if bad.any():
        k = fr.lanes[int(np.argmax(bad))]
        origin = f" (first undefined value: {fr.S.undef_origin})" if fr.S.undef_origin else ""
        fr.S.finding(
            "uninitialized",
            f"an undefined value{origin} is used as {what}",
            k,
            site,
            count=int(bad.sum()),
        )


def geometry_size(S: Launch, ndim: int, which: str):
    g, b = S.grid, S.block
    if which == "size":
        vals = [np.int64(g[i] * b[i]) for i in range(ndim)]
    else:
        vals = [
            S.blockIdx[i].astype(np.int64) * b[i] + S.threadIdx[i].astype(np.int64)
            for i in range(ndim)
        ]
    return vals[0] if ndim == 1 else tuple(vals)


def values(gets, fr) -> tuple[list, list]:
    """The values of a call's arguments, and their undefined masks, as two lists."""
    vals = [g(fr) for g in gets]
    return [v for v, _ in vals], [u for _, u in vals]

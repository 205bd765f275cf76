"""Spin loops: threads that wait in a loop for a value that another thread will write.

Since Volta, the threads of a warp that took different paths are scheduled independently:
a lane spinning on a lock that another lane of its own warp holds does not stop that lane
from finishing its critical section and releasing the lock (before Volta, the warp's SIMT
stack ran the spinning path forever: a deadlock). The machine (pdc.sim.machine) runs the
lowest-ranked block first, as that stack does, so it would spin too.

``SpinWatch`` notices a loop whose threads come back to its head with every variable as it
was one iteration earlier: that iteration changed nothing, so the next ones will not either
until another thread writes memory. The machine then lets the threads that wait elsewhere
run one step (an independent-thread-scheduling step) and tries the loop again. When no other
thread of the call can run, the loop can never end: a deadlock, reported as one.

Only a loop whose iterations read memory is watched: a thread can wait for another only
through memory. Code that waits uses atomics: a loop whose iterations make plain loads and
nothing else (no store, atomic, barrier or fence) is one a compiler may hoist the loads out
of (numba-cuda has no volatile loads), so on a GPU it may never see another thread's store.
Such a loop found spinning is endless at once (``plain``), whoever else could run; one that
loads again after a fence waits as an atomic one does. A loop whose threads can be released
only by another block is a finding (``waits_on_other_blocks``): blocks run in any order.
Watching costs a copy of the loop's variables; it is done at iterations 8, 16, 32, ... of a
loop, and at every iteration of a loop found spinning, until its state changes.
"""

from __future__ import annotations

import numpy as np

#: The rank of a thread that has left the kernel (pdc.sim.machine's program counter).
BIG = np.iinfo(np.int32).max
#: Iterations of one loop, with the same threads, before its state is first compared.
FIRST_CHECK = 8


class SpinWatch:
    """Consecutive iterations of one loop by one set of threads, and their last state."""

    __slots__ = ("head", "lanes", "count", "snap", "its", "hot", "marks", "plain")

    def __init__(self):
        self.head = -1
        self.lanes = None
        self.count = 0
        self.snap = None
        self.its = None  # the iterators' positions at the pass before a check
        self.hot = False
        self.marks = (-1, -1, -1, -1)
        self.plain = False  # the last spinning iteration made plain loads, nothing else

    def spinning(self, fr, head: int) -> bool:
        """Called when the active threads jump back to ``head``: True when this iteration
        left every variable of theirs as the previous one did."""
        lanes, S = fr.lanes, fr.S
        marks = (S.atomic_instructions, S.stores, S.mem_instructions, S.fences)
        prev, self.marks = self.marks, marks
        atomic = marks[0] != prev[0]
        loads = marks[1] == prev[1] and marks[2] != prev[2]  # loads, and no store
        if not (atomic or loads):  # no memory read in this iteration: not waiting on it
            self.head = -1
            return False
        # Loads and nothing else (no atomic, barrier or fence): a compiler may load once
        # before the loop, so an unchanged state means no other thread can end it.
        self.plain = not atomic and marks[3] == prev[3]
        if head != self.head or self.lanes is None or not np.array_equal(lanes, self.lanes):
            self.head, self.lanes, self.count, self.snap, self.hot = head, lanes, 0, None, False
            self.its = None
        self.count += 1
        n = self.count
        due = self.hot or (n >= FIRST_CHECK and n & (n - 1) == 0)  # 8, 16, 32, ...
        if not due and not (n + 1 >= FIRST_CHECK and (n + 1) & n == 0):
            self.snap = self.its = None
            return False
        # A for loop's iterator moves on every pass: compared first, it spares copying every
        # variable of a loop that only reads memory (a tiled kernel's inner product).
        its = _iterators(fr, lanes)
        if not due:  # the pass before a check: keep what it compares
            self.its, self.snap = its, (None if its else _state(fr, lanes))
            return False
        if self.its is not None and not _equal(its, self.its):
            self.snap, self.its, self.hot = None, its, False
            return False
        snap = _state(fr, lanes)
        same = self.snap is not None and _equal(snap, self.snap)
        self.hot = same or self.snap is None  # no copy yet to compare: compare the next pass
        self.snap, self.its = snap, its
        return same


def _iterators(fr, lanes) -> dict:
    """The positions of the iterators among the threads' variables (pdc.sim.iters)."""
    return {
        k: _value(v, lanes, fr.S.N)
        for k, v in fr.env.items()
        if isinstance(getattr(type(v), "state", None), tuple)
    }


def _state(fr, lanes) -> dict:
    return {
        k: (_value(v, lanes, fr.S.N), _value(fr.und.get(k), lanes, fr.S.N))
        for k, v in fr.env.items()
    }


def _value(v, lanes, n):
    """What ``v`` holds for ``lanes``, as a comparable copy (objects by identity)."""
    if isinstance(v, np.ndarray):
        return v[lanes].copy() if v.ndim == 1 and v.shape[0] == n else v.copy()
    if isinstance(v, np.generic | int | float | bool) or v is None:
        return v
    if isinstance(v, tuple):
        return tuple(_value(x, lanes, n) for x in v)
    state = getattr(type(v), "state", None)
    if isinstance(state, tuple):  # an iterator (pdc.sim.iters): its position per thread
        return (id(v), tuple(_value(getattr(v, s), lanes, n) for s in state))
    return ("object", id(v))


def _equal(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b))
    return bool(a == b)


def waits_on_other_blocks(S, pc, rank: int, lanes) -> bool:
    """True when threads of ``lanes`` spin at ``rank`` and only threads of other blocks can
    run: they wait for another block. A CUDA kernel's blocks must be able to run in any
    order, one after another too (the programming guide), so the block waited for may not
    have started and never will while this one waits. A lock taken with a CAS is left out:
    its holder took it, so it runs, and it will release it.
    """
    others = (pc != BIG) & (pc > rank)
    if np.isin(S.block_of[others], S.block_of[lanes]).any():
        return False
    R = S.retry
    return R is None or not bool((R.mark[lanes] >= 0).any())

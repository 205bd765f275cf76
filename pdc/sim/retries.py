"""A compare-and-swap loop's retries are contention, not work (the ``parallel`` measure).

The CUDA programming guide builds atomics the hardware lacks from ``atomicCAS``: read the
word, compute the new value, swap it in if the word still holds what was read, else try again
with what the CAS saw. Threads that update one word at the same time all retry but one, so a
thread's tries grow with the number of threads on its word: the queue that a hardware
``cuda.atomic.add`` on one address forms too, inside the memory system, where pdc.sim.work
counts it as one operation. Counting every retry as the thread's own work would mark a
correct per-thread kernel as "one thread doing the work of many".

So the operations a thread makes from a compare-and-swap that *failed* up to its next
compare-and-swap on the same element, between the same two barriers, are taken back off its
count when that next CAS expects the value the failed one saw (a retry, as the guide's loop
makes it), at most ``RETRY_OPS`` per retry: the few operations one more try makes (compute
the new value again, compare, branch). A CAS that cannot succeed (it expects a value the
element does not hold) buys nothing: the next one expects another value. Work hidden between
two tries counts past ``RETRY_OPS``. The failed CAS leaves the thread's memory accesses
(``report.work()``) as well, but not the element's atomic count: contention is what a retry
is, and what a criterion on atomics per address measures.
"""

from __future__ import annotations

import numpy as np

from pdc.sim.memory import GLOBAL, SHARED

#: Operations of one retry of a CAS loop that are not counted (a loop's test, a compare, the
#: new value computed again from what the CAS saw, the CAS itself).
RETRY_OPS = 6


class Retries:
    """Per thread: its operations at its last failed CAS, on which element, in which epoch."""

    __slots__ = ("mark", "elem", "arr", "epoch", "seen")

    def __init__(self, n: int):
        self.mark = np.full(n, -1, np.int64)  # -1: the last CAS succeeded (or none yet)
        self.elem = np.full(n, -1, np.int64)
        self.arr = np.full(n, -1, np.int64)  # id of the array, as a small number
        self.epoch = np.zeros(n, np.int64)
        self.seen = np.zeros(n, np.float64)  # what the failed CAS returned


def after_cas(S, arr, f, lanes, old, cmp) -> None:
    """Account one CAS instruction of ``lanes`` on flat offsets ``f`` of ``arr``.

    Called after the instruction was counted (pdc.sim.machine.Launch.memory_op).

    Args:
        S: The launch.
        arr: The array the CAS updated.
        f: Flat offsets, one per lane.
        lanes: The threads, in lane order.
        old: What each lane's CAS found in the element.
        cmp: What each lane's CAS expected (it swapped where ``old == cmp``).
    """
    failed = old != cmp
    if S.retry is None:
        if not failed.any():
            return
        S.retry = Retries(S.N)
    R = S.retry
    key = id(arr)
    ep = S.bep[S.block_of[lanes]]
    total = S.operations()[lanes]  # this CAS included
    again = (R.mark[lanes] >= 0) & (R.elem[lanes] == f) & (R.arr[lanes] == key)
    again &= (R.epoch[lanes] == ep) & (R.seen[lanes] == cmp)
    if again.any():
        lo = lanes[again]
        spent = total[again] - 1 - R.mark[lo]  # the failed CAS and the retry's steps
        back = np.minimum(spent, RETRY_OPS)
        S.alu.vec[lo] -= back
        total[again] -= back
        # The failed CAS's load and store leave the thread's memory accesses (report.work)
        # too; the element's atomic count keeps it: a retry is contention on the element.
        if arr.kind == GLOBAL:
            arr.loads.vec[lo] -= 1
            arr.stores.vec[lo] -= 1
        elif arr.kind == SHARED:
            S.sl.vec[lo] -= 1
            S.ss.vec[lo] -= 1
    R.mark[lanes] = np.where(failed, total - 1, -1)
    R.elem[lanes], R.arr[lanes], R.epoch[lanes] = f, key, ep
    R.seen[lanes] = old

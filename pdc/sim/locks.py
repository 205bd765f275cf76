"""Locks handed from lane to lane of one warp: the hand-off orders their critical sections.

A spin lock taken with ``cuda.atomic.cas`` and released with ``cuda.atomic.exch`` (with a
``threadfence`` before the release) orders what the holder did before the release before
what the next holder does after taking the lock: the next holder's successful CAS reads the
value the release wrote. Between lanes of one warp, pdc.sim.races orders two accesses
through the pair's ``syncwarp`` generation (``Launch.pairgen``); a hand-off moves that pair's
generation on, as a ``syncwarp`` of the two lanes would. Between warps, a hand-off orders the
critical sections when the holders fence (``threadfence_block`` after taking the lock and
before releasing it): pdc.sim.races publishes what a thread did before its fence to the
threads whose atomics come after its own. Without the fences nothing orders them: the
accesses are reported as races.
"""

from __future__ import annotations

import numpy as np

from pdc.sim.machine import WARP


def hand_offs(S, arr, f, lanes, op: str, old, cmp) -> None:
    """Record the ``cas``/``exch`` of ``lanes`` (lane order) on flat offsets ``f``.

    ``old`` holds what each lane read. A lane whose operation wrote (an exchange, or a
    compare-and-swap that matched) releases what it did so far, and takes the lock from the
    lane whose ``cas``/``exch`` wrote the value it read: when both lanes are in one warp,
    what that lane did before its release is ordered before what this one does next.
    """
    wrote = np.ones(f.size, dtype=bool) if op == "exch" else old == cmp
    if not wrote.any():
        return
    if arr.lock_writer is None:
        arr.lock_writer = np.full(arr.flat.size, -1, dtype=np.int64)
        arr.lock_gen = np.zeros(arr.flat.size, dtype=np.int64)
    writer, gen = arr.lock_writer, arr.lock_gen
    pg = S.joined()  # stamps keep generations from now on
    S.wgen = S.wgen.copy()  # logged reads keep the generations of their time
    for k in np.flatnonzero(wrote):  # in lane order, as pdc.sim.memops applies them
        i, t = int(f[k]), int(lanes[k])
        w, u = t // WARP, int(writer[i])
        if u >= 0 and u != t and u // WARP == w:
            lu, lt = u % WARP, t % WARP
            pg[w, lu, lt] = max(int(pg[w, lu, lt]), int(gen[i]) + 1)
        writer[i] = t
        gen[i] = S.wgen[w]  # what t did so far has generations up to this one ...
        S.wgen[w] += 1  # ... and what it does next, later ones

"""A thread's second load of an element it just loaded is no memory traffic (the compiler's).

numba-cuda hands LLVM plain loads; LLVM keeps a loaded value in a register and drops a later
load of the same address when nothing between the two may have changed memory: no store,
no atomic, no fence or barrier (each a call LLVM cannot see through). So a kernel written
``if x[r, c] > m: m = x[r, c]`` reads ``x[r, c]`` from memory once, as does
``d = a[i] * a[i]``, and a loop that reads one element on every pass without storing has
that load hoisted out of it. Counting each written load as traffic would fail a correct
kernel on a loads-per-element criterion for its style.

The model, per thread: the last ``DEPTH`` global loads it made (which array, which element,
and the launch's memory epoch then: stores, atomics, fences and barriers so far, by any thread;
a compiler sees only the thread's own, so this keeps more loads than it drops). A load that
matches one of them in the same epoch is not counted in the thread's loads. Everything else a
load is (bounds, definedness, races, the sectors of its request) is checked as before.
"""

from __future__ import annotations

import numpy as np


def epoch(S) -> int:
    """The launch's memory epoch: it moves on at every store, atomic, fence and barrier."""
    return S.stores + S.fences + S.atomic_instructions


#: Loads a thread remembers: a loop's pass that reads a few values and reads one again.
DEPTH = 4


class History:
    """Per thread, its last ``DEPTH`` global loads: array number, flat offset, epoch."""

    __slots__ = ("arr", "elem", "when", "next", "numbers")

    def __init__(self, n: int):
        self.arr = np.full((n, DEPTH), -1, np.int64)
        self.elem = np.full((n, DEPTH), -1, np.int64)
        self.when = np.full((n, DEPTH), -1, np.int64)
        self.next = np.zeros(n, np.int64)  # the slot each thread's next load takes
        self.numbers: dict[int, int] = {}  # id(array) -> its number


def counted(S, arr, lanes: np.ndarray, fo: np.ndarray, good: np.ndarray | None) -> np.ndarray:
    """The lanes whose load of ``arr`` is memory traffic.

    Args:
        S: The launch (its ``reloads`` history is made here on first use).
        arr: A global array.
        lanes: Every lane of the load instruction.
        fo: The flat offsets of the lanes that load inside the array.
        good: Their positions in ``lanes`` (None: every lane loads inside the array).
    """
    if S.reloads is None:
        S.reloads = History(S.N)
    H = S.reloads
    number = H.numbers.setdefault(id(arr), len(H.numbers))
    inside = lanes if good is None else lanes[good]
    now = epoch(S)
    seen = (H.arr[inside] == number) & (H.elem[inside] == fo[:, None]) & (H.when[inside] == now)
    again = seen.any(axis=1)
    new = inside[~again]
    slot = H.next[new]
    H.arr[new, slot], H.elem[new, slot], H.when[new, slot] = number, fo[~again], now
    H.next[new] = (slot + 1) % DEPTH
    if not again.any():
        return lanes
    keep = np.ones(lanes.size, dtype=bool)
    keep[np.flatnonzero(again) if good is None else good[again]] = False
    return lanes[keep]

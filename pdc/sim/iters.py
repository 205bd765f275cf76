"""Iterators of ``for`` loops, one state vector per thread: range, tuples, arrays, enumerate.

numba lowers ``for x in it`` to ``getiter``, then ``iternext`` (a value and whether there
was one) at the loop's head. Each iterator here keeps its position per thread, advances it
only for the threads at that head (the active mask), and merges with another iterator of
the same kind when threads that took different paths meet again (pdc.sim.machine.merge).
"""

from __future__ import annotations

import numpy as np

from pdc.sim.frontend import Unsupported

_ZERO = np.int64(0)


def _advance(fr, cur, nxt):
    return np.where(fr.m, nxt, cur) if fr.partial else nxt


def _sel(m, new, old):
    from pdc.sim.machine import merge

    return merge(old, new, m)


class Iter:
    """An iterator's state; ``state`` names the fields that differ between threads."""

    state: tuple = ()

    def merged(self, old, m):
        out = object.__new__(type(self))
        for name in self.__slots__:  # type: ignore[attr-defined]
            a, b = getattr(self, name), getattr(old, name)
            setattr(out, name, _sel(m, a, b) if name in self.state else a)
        return out


class RangeIt(Iter):
    __slots__ = ("cur", "stop", "step")
    state = ("cur", "stop", "step")

    def __init__(self, cur, stop, step):
        self.cur, self.stop, self.step = cur, stop, step

    def fresh(self):
        return RangeIt(self.cur, self.stop, self.step)

    def next(self, fr):
        cur, stop, step = self.cur, self.stop, self.step
        if np.ndim(step) == 0:
            valid = cur < stop if step > 0 else cur > stop
        else:
            valid = np.where(step > 0, cur < stop, cur > stop)
        self.cur = _advance(fr, cur, cur + step)
        return (cur, valid), None


class TupleIt(Iter):
    """``for x in (16, 8, 4, 2, 1)``: a tuple of one type, element by element."""

    __slots__ = ("items", "pos")
    state = ("pos",)

    def __init__(self, items, pos=_ZERO):
        self.items, self.pos = tuple(items), pos

    def next(self, fr):
        n = len(self.items)
        pos = self.pos
        valid = pos < n
        if np.ndim(pos) == 0:
            value = self.items[min(int(pos), n - 1)] if n else np.int64(0)
        else:
            k = np.clip(pos, 0, n - 1)
            stacked = np.stack([np.broadcast_to(v, (fr.S.N,)) for v in self.items])
            value = stacked[k, np.arange(fr.S.N)]
        self.pos = _advance(fr, pos, pos + 1)
        return (value, valid), None


class ArrayIt(Iter):
    """``for v in arr``: a 1-D array's elements, each a load (checked and counted)."""

    __slots__ = ("arr", "pos", "site", "line")
    state = ("pos",)

    def __init__(self, arr, site, line, pos=_ZERO):
        if len(arr.shape) != 1:
            raise Unsupported(f"the simulator does not support iterating a 2-D array yet ({site})")
        self.arr, self.site, self.line, self.pos = arr, site, line, pos

    def next(self, fr):
        from pdc.sim import memops

        pos = self.pos
        valid = pos < self.arr.shape[0]
        value, und = np.zeros(fr.S.N, self.arr.dtype), None
        v = np.broadcast_to(valid, (fr.S.N,))
        inside = v[fr.lanes]
        if inside.any():
            m, lanes, partial = fr.m, fr.lanes, fr.partial
            fr.lanes = lanes[inside]
            fr.m = np.zeros(fr.S.N, dtype=bool)
            fr.m[fr.lanes] = True
            try:
                value, und = memops.load(fr, self.arr, (pos,), (None,), self.site, self.line)
            finally:
                fr.m, fr.lanes, fr.partial = m, lanes, partial
        self.pos = _advance(fr, pos, pos + 1)
        return (value, valid), und


class Enumerate:
    """What ``enumerate(x)`` returns before the loop asks for its iterator."""

    __slots__ = ("inner",)

    def __init__(self, inner):
        self.inner = inner


class EnumerateIt(Iter):
    __slots__ = ("inner", "count")
    state = ("inner", "count")

    def __init__(self, inner, count=_ZERO):
        self.inner, self.count = inner, count

    def next(self, fr):
        (v, valid), und = self.inner.next(fr)
        c = self.count
        self.count = _advance(fr, c, c + 1)
        return ((c, v), valid), und


def make(value, site: str, line: int):
    """The iterator of ``value`` (what ``getiter`` returns)."""
    from pdc.sim.memory import SimArray

    if isinstance(value, RangeIt):
        return value.fresh()
    if isinstance(value, tuple):
        return TupleIt(value)
    from pdc.sim.views import View

    if isinstance(value, SimArray | View):
        return ArrayIt(value, site, line)
    if isinstance(value, Enumerate):
        return EnumerateIt(make(value.inner, site, line))
    raise Unsupported(
        f"the simulator does not support iterating {type(value).__name__} yet ({site})"
    )

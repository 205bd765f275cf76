"""A thread's second load of an address the compiler sees is the same is no memory traffic.

numba-cuda hands LLVM plain loads; LLVM keeps a loaded value in a register and drops a later
load of the same address when it can tell the address is the same and nothing between the
two may have changed memory: no store, no atomic, no fence or barrier (each a call LLVM
cannot see through). So a kernel written ``if x[r, c] > m: m = x[r, c]`` reads ``x[r, c]``
from memory once, as does ``d = a[i] * a[i]``. Counting each written load as traffic would
fail a correct kernel on a loads-per-element criterion for its style.

What the compiler can tell, modelled from numba's typed IR, which is in SSA form (a name is
assigned once per pass through straight-line code):

* two loads read the same address when they index the same array variable with the same
  index variables (``x[r, c]`` twice: ``build_tuple(r, c)`` both times), within one pass of
  one call (``Launch.passes``: a loop's back edge or a call begins a new one, where the same
  names may hold new values);
* nothing changed memory between them: the launch's memory epoch (stores, atomics, fences
  and barriers so far, by any thread; a compiler sees only the thread's own, so this keeps
  more loads than it drops) is the same.

Loads the compiler could also merge but this model keeps (the same index computed twice into
two temporaries, a loop-invariant load hoisted out of its loop) still count: the model errs
toward the traffic the kernel's text asks for. A dropped load is still checked for bounds,
definedness and races, and its request's sectors still count: only the thread's load count
(``report.loads``) leaves it out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Bytes of marks a launch may keep (8 per thread per load site); past it, a site's loads all
#: count (the text's traffic), so a huge launch with many load sites costs no more memory.
BUDGET = 64 << 20


def epoch(S) -> int:
    """The launch's memory epoch: it moves on at every store, atomic, fence and barrier."""
    return S.stores + S.fences + S.atomic_instructions


def expression(bld, e) -> Any:
    """The address of the load ``e`` (a getitem of an array) as the compiler sees it: the
    array's variable and its index variables (or its constant index), with the function they
    live in; None where there is no index to tell."""
    ir = bld.ir
    if e.op == "static_getitem" and isinstance(e.index, int | tuple):
        return (id(bld.prog), e.value.name, ("constant", repr(e.index)))  # a[0], a[1, 2]
    index = e.index_var if e.op == "static_getitem" else e.index
    if index is None:
        return None
    tuples = getattr(bld, "_index_tuples", None)
    if tuples is None:  # name -> the variables of the tuple it is built from, once per function
        tuples = bld._index_tuples = {
            st.target.name: tuple(v.name for v in st.value.items)
            for blk in bld.tir.blocks.values()
            for st in blk.body
            if isinstance(st, ir.Assign)
            and isinstance(st.value, ir.Expr)
            and st.value.op == "build_tuple"
        }
    return (id(bld.prog), e.value.name, tuples.get(index.name, (index.name,)))


class History:
    """Per load site (address key) and thread: when it last loaded, ``pass << 32 | epoch``."""

    __slots__ = ("marks", "kept")

    def __init__(self):
        self.marks: dict[Any, np.ndarray] = {}
        self.kept = 0  # bytes


def counted(S, same, lanes: np.ndarray, good: np.ndarray | None) -> np.ndarray:
    """The lanes whose load is memory traffic.

    Args:
        S: The launch (its ``reloads`` history is made here on first use).
        same: The load's address key (:func:`expression`).
        lanes: Every lane of the load instruction.
        good: Positions in ``lanes`` of those that load inside the array (None: all); the
            key and the pass fix the address, so no offsets are needed.
    """
    if S.reloads is None:
        S.reloads = History()
    H = S.reloads
    marks = H.marks.get(same)
    if marks is None:
        if H.kept + 8 * S.N > BUDGET:
            return lanes
        marks = H.marks[same] = np.full(S.N, -1, np.int64)
        H.kept += 8 * S.N
    now = epoch(S)
    if good is None and lanes.size == S.N:  # every thread: no gathers
        stamp = (S.passes << 32) | now
        again = marks == stamp
        marks[:] = stamp
    else:
        inside = lanes if good is None else lanes[good]
        stamp = (S.passes[inside] << 32) | now
        again = marks[inside] == stamp
        marks[inside] = stamp
    if not again.any():
        return lanes
    keep = np.ones(lanes.size, dtype=bool)
    keep[np.flatnonzero(again) if good is None else good[again]] = False
    return lanes[keep]

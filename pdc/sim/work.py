"""Operations per thread, and the longest stretch of them between two barriers.

A thread's *operations* are the arithmetic it does on values (binary and unary operators,
comparisons, math functions, ``min``/``max``), a loop's step (``iternext``: the counter's
increment and test), warp collectives (shuffles, votes, match) and memory operations
(loads, stores, atomics; counted by the machine as it makes them). Reading a variable,
building a tuple or converting a type is free, as in a register.

Arithmetic is counted per basic block, not per expression: the program builder
(pdc.sim.program) adds up the weights of a block's statements (``weight``) and puts one
counting statement before each barrier and at the block's end, so a step costs one vector
add however many expressions it holds.

The *span* of a thread is the most operations it makes between two barriers (or the
launch's start and its first barrier, its last barrier and its end): the length of the
critical path a block waits for at its barriers. A barrier is a ``syncthreads``, or a
``syncwarp`` whose mask names the whole warp (the thread's warp waits there for its slowest
lane; a mask of one lane orders nothing). A block scan whose levels are separated by
barriers has short spans, whether its last levels, in one warp, wait at ``syncthreads`` or
``syncwarp``; one lane walking 16 values alone between two barriers does not.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

#: Warp collectives: each is one operation of every lane that executes it.
_WARP_OPS = frozenset(
    {
        "shfl_sync",
        "shfl_up_sync",
        "shfl_down_sync",
        "shfl_xor_sync",
        "all_sync",
        "any_sync",
        "eq_sync",
        "ballot_sync",
        "match_any_sync",
        "match_all_sync",
    }
)
_BUILTINS = (builtins.min, builtins.max, builtins.abs, builtins.round, builtins.pow)
_BARRIERS = frozenset({"syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or"})


def _callee(expr, statics: dict):
    return statics.get(expr.func.name) if expr.op == "call" else None


def weight(ir, st, statics: dict) -> int:
    """Operations (memory excluded) one thread makes running IR statement ``st``."""
    if not isinstance(st, ir.Assign) or not isinstance(st.value, ir.Expr):
        return 0
    e = st.value
    if e.op in ("binop", "inplace_binop", "unary", "iternext"):
        return 1
    fn = _callee(e, statics)
    if fn is None:
        return 0
    name = getattr(fn, "__name__", "")
    mod = getattr(fn, "__module__", "") or ""
    if (
        any(fn is b for b in _BUILTINS)
        or fn is getattr(math, name, None)
        or mod == "numba.cuda.libdevice"
    ):
        return 1
    if isinstance(fn, np.ufunc) or (mod.startswith("numpy") and not isinstance(fn, type)):
        return 1  # np.sqrt, np.exp, ...; np.float32(x) is a conversion: free
    if mod.startswith("numba") and name in _WARP_OPS:
        return 1
    return 0


def is_barrier(ir, st, statics: dict) -> bool:
    """Whether ``st`` calls ``cuda.syncthreads`` (or one of its reducing forms)."""
    if not isinstance(st, ir.Assign) or not isinstance(st.value, ir.Expr):
        return False
    fn = _callee(st.value, statics)
    name = getattr(fn, "__name__", "")
    return name in _BARRIERS and (getattr(fn, "__module__", "") or "").startswith("numba")


def counter(k: int):
    """A statement that adds ``k`` operations to each active thread."""

    def count(fr) -> None:
        fr.S.alu.add_n(fr.lanes, k)

    return count


class Spans:
    """Per thread: operations at its last barrier, and the longest stretch between two.

    Nothing is allocated until the first barrier: without one, a thread's span is all its
    operations.
    """

    __slots__ = ("n", "mark", "longest")

    def __init__(self, n: int):
        self.n = n
        self.mark: np.ndarray | None = None
        self.longest: np.ndarray | None = None

    def barrier(self, total: np.ndarray, lanes: np.ndarray) -> None:
        """``lanes`` pass a barrier having made ``total`` operations (a vector over threads)."""
        if self.mark is None or self.longest is None:
            self.mark = np.zeros(self.n, np.int64)
            self.longest = np.zeros(self.n, np.int64)
        if lanes.size == self.n:  # every thread of the launch: no gather, no scatter
            np.maximum(self.longest, total - self.mark, out=self.longest)
            self.mark = total
            return
        now = total[lanes]
        self.longest[lanes] = np.maximum(self.longest[lanes], now - self.mark[lanes])
        self.mark[lanes] = now

    def final(self, total: np.ndarray) -> np.ndarray:
        """The longest stretch of each thread, its last one (to its exit) included."""
        if self.mark is None or self.longest is None:
            return total
        return np.maximum(self.longest, total - self.mark)

"""NumPy reductions over arrays in a kernel: ``np.sum(row)``, ``np.max(tile)``, ``x.sum()``.

numba-cuda compiles these as a loop over the elements in C order, accumulating in the
result's type; so does the simulator, one warp instruction per element, each a load that is
checked and counted like any other. Views may differ in length from thread to thread
(``x[i, :k]``): each thread stops at its own end.
"""

from __future__ import annotations

import itertools

import numpy as np

from pdc.sim import memops
from pdc.sim.arith import cast
from pdc.sim.frontend import Unsupported, dtype_of

NAMES = ("sum", "prod", "max", "min", "amax", "amin", "mean")


class Bound:
    """``x.sum`` before it is called: the array it belongs to."""

    __slots__ = ("arr",)

    def __init__(self, arr):
        self.arr = arr


def _combine(name: str, acc, v):
    if name == "sum" or name == "mean":
        return acc + v
    if name == "prod":
        return acc * v
    if name in ("max", "amax"):
        return (
            np.where(np.isnan(acc) | (acc >= v), acc, v)
            if acc.dtype.kind == "f"
            else np.maximum(acc, v)
        )
    return (
        np.where(np.isnan(acc) | (acc <= v), acc, v)
        if acc.dtype.kind == "f"
        else np.minimum(acc, v)
    )


def compile_reduction(name: str, get_arr, sig, site: str, line: int):
    """A closure computing ``np.<name>(array)`` for the active threads."""
    if name not in NAMES:
        raise Unsupported(f"the simulator does not support np.{name}() on arrays yet ({site})")
    tr = dtype_of(sig.return_type)

    def run(fr):
        arr, _ = get_arr(fr)
        S = fr.S
        shape = arr.shape
        ext = [int(np.max(s)) if np.ndim(s) else int(s) for s in shape]
        acc = None
        und = None
        count = np.zeros(S.N, np.int64)
        m0, lanes0, partial0 = fr.m, fr.lanes, fr.partial
        try:
            for idx in itertools.product(*(range(e) for e in ext)):
                inside = np.ones(S.N, dtype=bool)
                for k, s in zip(idx, shape):
                    inside &= np.broadcast_to(k < np.asarray(s), (S.N,))
                take = inside & m0
                if not take.any():
                    continue
                fr.m = take
                fr.lanes = np.flatnonzero(take)
                v, u = memops.load(
                    fr, arr, tuple(np.int64(k) for k in idx), (None,) * len(idx), site, line
                )
                v = cast(v, tr)
                if acc is None:
                    acc = v.copy()
                else:
                    acc = np.where(
                        take & (count > 0), _combine(name, acc, v), np.where(take, v, acc)
                    )
                count += take
                if u is not None:
                    und = u if und is None else (und | u)
        finally:
            fr.m, fr.lanes, fr.partial = m0, lanes0, partial0
        if acc is None:
            acc = np.zeros(S.N, tr)
        if name == "mean":
            with np.errstate(all="ignore"):
                acc = cast(acc / np.maximum(count, 1), tr)
        empty = (count == 0) & m0
        if empty.any() and name in ("max", "min", "amax", "amin"):
            S.finding(
                "error",
                f"np.{name}() of an empty array (numba raises ValueError)",
                int(np.argmax(empty)),
                site,
                count=int(empty.sum()),
            )
        return acc, und

    return run

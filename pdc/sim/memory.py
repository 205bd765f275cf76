"""Simulated memory: global, shared, local and constant arrays with their shadows.

One ``SimArray`` holds every copy of an array: one for a global argument, one per block for
a shared array (block axis first), one per thread for a local array. Each access is one warp
instruction's worth of lanes at once: the machine passes the active lanes, their indices and
values, and this module checks bounds, definedness and races, counts, and logs what the
memory analysis (pdc.sim.analysis) needs.

Models, as compute-sanitizer's tools and numba-cuda define them:

* bounds: every index of every access, reads included. numba wraps a negative index of a
  signed type around (Python-style); the simulator does the same and reports it, since a
  kernel almost never means it. Past the end, a read yields an undefined value and a write
  is dropped (on a GPU: another array's memory, or a fault).
* definedness (initcheck): shared and local arrays start undefined; a read of an element
  never written yields an undefined value, reported when it reaches global memory, an
  address or a branch (pdc.sim.machine), not when it is read.
* races: pdc.sim.races.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pdc.sim import races

GLOBAL, SHARED, LOCAL, CONST = "global", "shared", "local", "const"
_TRUE_CACHE: dict = {}  # read-only all-True masks by length


def poison(dtype: np.dtype):
    """The value an undefined read returns: NaN for floats, a recognisable pattern else."""
    if dtype.kind in "fc":
        return dtype.type("nan")
    if dtype.kind == "b":
        return np.bool_(True)
    info = np.iinfo(dtype)
    return dtype.type(min(info.max, 0x7EADBEEF) if info.bits >= 32 else info.max)


class SimArray:
    """An array of the simulated GPU (see the module docstring)."""

    def __init__(self, name: str, kind: str, shape: tuple, dtype, copies: int = 1, data=None):
        self.name = name
        self.kind = kind
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.size = math.prod(self.shape)
        self.copies = copies
        if data is None:
            data = np.full(self.size * copies, poison(self.dtype), dtype=self.dtype)
        self.flat = data.reshape(-1)
        strides, acc = [], 1
        for s in reversed(self.shape):
            strides.append(acc)
            acc *= s
        self.cstrides = tuple(reversed(strides))
        # Shared and local memory start undefined; global arguments come from the host.
        self.defined: Any = (
            np.zeros(self.flat.size, dtype=bool) if kind in (SHARED, LOCAL) else None
        )
        self.all_defined = self.defined is None  # kept true once every element was written
        self.shadow = races.Shadow(self.flat.size, copies) if kind in (GLOBAL, SHARED) else None
        self.site = ""  # where a shared or local array was declared
        # Counters the report needs, filled by the machine.
        self.loads: Any = None
        self.stores: Any = None
        self.atomic_counts: Any = np.zeros(self.size, np.int64) if kind == GLOBAL else None
        self.owner: Any = None
        self.written: Any = None
        self.access: Any = None  # access-map records (launch(record=True))

    @property
    def nbytes_per_copy(self) -> int:
        return self.size * self.dtype.itemsize

    def element(self, f: int) -> str:
        """``name[i, j]`` of a flat index within one copy."""
        idx = np.unravel_index(int(f) % max(1, self.size), self.shape) if self.shape else ()
        return f"{self.name}[{', '.join(str(int(i)) for i in idx)}]"

    # -- addressing ---------------------------------------------------------------------
    def flat_index(self, S, lanes, index, op: str, site: str):
        """Flat offsets (into ``self.flat``), lanes in range, offsets within one copy.

        ``index`` is a tuple of integer vectors over all threads. Out-of-range lanes are
        reported and left out of the returned ``ok`` mask.
        """
        if len(index) != len(self.shape):
            from pdc.sim.frontend import Unsupported

            raise Unsupported(
                f"[{op} {self.name}] expected {len(self.shape)} indices, got {len(index)}"
            )
        n = S.N
        full = lanes.size == n
        f = None
        ok = None
        parts = []
        for ix, dim, stride in zip(index, self.shape, self.cstrides):
            v = np.asarray(ix)
            if v.ndim and not full:
                v = v[lanes]
            lo, hi = (v.min(), v.max()) if v.size else (0, 0)
            if lo < 0 or hi >= dim:
                v = np.broadcast_to(v, (lanes.size,)).astype(np.int64)
                neg = v < 0
                if neg.any():
                    k = int(np.argmax(neg))
                    S.finding(
                        "oob",
                        f"{op} {self.name} with negative index {int(v[k])}: numba wraps it "
                        f"to the end of the axis (length {dim}), which a kernel almost "
                        "never means",
                        lanes[k],
                        site,
                        count=int(neg.sum()),
                    )
                    v = np.where(neg, v + dim, v)
                bad = (v < 0) | (v >= dim)
                ok = ~bad if ok is None else ok & ~bad
                parts.append(v)
                v = np.where(bad, 0, v)
            else:
                parts.append(v)
            term = v * np.int64(stride) if v.ndim else np.int64(v) * stride
            f = term if f is None else f + term
        if f is None or np.ndim(f) == 0:
            f = np.full(lanes.size, 0 if f is None else f, dtype=np.int64)
        if ok is None:
            ok = _TRUE_CACHE.get(lanes.size)
            if ok is None:
                ok = _TRUE_CACHE[lanes.size] = np.ones(lanes.size, dtype=bool)
        if not ok.all():
            k = int(np.flatnonzero(~ok)[0])
            idx = ", ".join(str(int(np.broadcast_to(p, ok.shape)[k])) for p in parts)
            S.finding(
                "oob",
                f"{op} {self.name}[{idx}] outside shape {self.shape}",
                lanes[k],
                site,
                count=int((~ok).sum()),
            )
            if self.access is not None:
                oob = self.access.setdefault("oob", [])
                for k in np.flatnonzero(~ok)[: 100 - len(oob)]:
                    pos = tuple(int(np.broadcast_to(p, ok.shape)[k]) for p in parts)
                    oob.append((int(S.gtid[lanes[k]]), pos))
        within = f
        if self.kind == SHARED:
            f = f + (S.block_base(self.size) if full else S.block_of[lanes] * self.size)
        elif self.kind == LOCAL:
            f = f + lanes * self.size
        return f, ok, within

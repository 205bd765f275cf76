"""Simulated memory: global, shared, local and constant arrays with their shadows.

One ``SimArray`` holds every copy of an array: one for a global argument, one per block for
a shared array (block axis first), one per thread for a local array. Each access is one warp
instruction's worth of lanes at once: the machine passes the active lanes, their indices and
values, and this module checks bounds, definedness and races, counts, and logs what the
memory analysis (pdc.sim.analysis) needs.

Models, as compute-sanitizer's tools and numba-cuda define them:

* bounds: every index of every access, reads included. numba-cuda wraps a negative index
  of a signed type around (Python-style: the PTX adds the axis length when the index is
  below 0), so ``s[-1]`` is the last element, on a GPU too: the simulator does the same and
  reports nothing (compute-sanitizer sees an access inside the array); a kernel that did not
  mean it uses the wrong element, which its outputs show. Below minus the length, or past
  the end, a read yields an undefined value and a write is dropped (on a GPU: another
  array's memory, or a fault).
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
            # A shared array of size 0 (numba's dynamic shared memory, which the launch gives
            # no bytes) keeps one element that no index reaches: a read outside it has a
            # slot to read from, as for any other array.
            data = np.full(max(self.size * copies, 1), poison(self.dtype), dtype=self.dtype)
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
        # Atomics per element; a shared array counts each block's copy apart (flat index).
        self.atomic_counts: Any = (
            np.zeros(self.size, np.int64)
            if kind == GLOBAL
            else np.zeros(self.flat.size, np.int64)
            if kind == SHARED
            else None
        )
        self.owner: Any = None
        self.before_atomic: Any = None  # each element's value before its latest atomic
        self.mixed: Any = None  # elements a plain write and an atomic raced on (memops._mixed)
        self.mixed_why = ""
        self.mixed_at: tuple = (0, "")
        self.lock_writer: Any = None  # pdc.sim.locks: who last wrote each element by cas/exch
        self.lock_gen: Any = None  # ... and the warp's generation at that release
        self.written: Any = None
        self.access: Any = None  # access-map records (launch(record=True))

    def element(self, f: int) -> str:
        """``name[i, j]`` of a flat index within one copy."""
        idx = np.unravel_index(int(f) % max(1, self.size), self.shape) if self.shape else ()
        return f"{self.name}[{', '.join(str(int(i)) for i in idx)}]"

    # -- addressing ---------------------------------------------------------------------
    def flat_index(self, S, lanes, index, op: str, site: str):
        """Flat offsets (into ``self.flat``), lanes in range, and the analysis address.

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
        scalar = np.int64(0)
        plain = True  # no vector but the cached ones
        memo_terms = []  # (memo entry, stride, product) of in-range vectors seen before
        for ix, dim, stride in zip(index, self.shape, self.cstrides):
            v = np.asarray(ix)
            if v.dtype == np.uint64:  # numba types uint8 >> 2 as uint64: never negative, and
                # NumPy would make its product with an int64 stride a float
                v = np.minimum(v, np.uint64(1 << 62)).astype(np.int64)
            if v.ndim and full and isinstance(ix, np.ndarray):
                # Index vectors often come back unchanged (threadIdx-based ones inside a
                # loop): their bounds and scaled offsets are computed once per launch.
                entry = S.imemo.get(id(ix))
                if entry is None or entry[0] is not ix:
                    entry = S.imemo[id(ix)] = [ix, v.min(), v.max(), {}]
                if entry[1] >= 0 and entry[2] < dim:
                    parts.append(v)
                    memo_terms.append((entry, stride))
                    continue
            elif v.ndim and not full:
                v = v[lanes]
            lo, hi = (v.min(), v.max()) if v.size else (0, 0)
            if lo < 0 or hi >= dim:
                v = np.broadcast_to(v, (lanes.size,)).astype(np.int64)
                neg = v < 0
                if neg.any():  # numba-cuda adds the axis length: an element, read or written
                    v = np.where(neg, v + dim, v)
                bad = (v < 0) | (v >= dim)
                ok = ~bad if ok is None else ok & ~bad
                parts.append(v)
                v = np.where(bad, 0, v)
            else:
                parts.append(v)
            if v.ndim:
                term = v * np.int64(stride)
                f = term if f is None else f + term
                plain = False
            else:
                scalar = scalar + np.int64(v) * stride
        base = self.kind == SHARED and full
        for k, (entry, stride) in enumerate(memo_terms):
            # The first cached vector carries the block offsets of a shared array.
            key = (stride, self.size) if (base and k == 0 and f is None) else stride
            term = entry[3].get(key)
            if term is None:
                term = entry[0].astype(np.int64) * stride
                if key != stride:
                    term = term + S.block_base(self.size)
                entry[3][key] = term
            if key != stride:
                base = False  # already added
            f = term if f is None else f + term
        if f is None:
            f = np.full(lanes.size, scalar, dtype=np.int64)
        elif scalar:
            f = f + scalar
        in_range = ok is None
        if ok is None:
            ok = _TRUE_CACHE.get(lanes.size)
            if ok is None:
                ok = _TRUE_CACHE[lanes.size] = np.ones(lanes.size, dtype=bool)
        if not ok.all():
            k = int(np.flatnonzero(~ok)[0])
            idx = ", ".join(str(int(np.broadcast_to(p, ok.shape)[k])) for p in parts)
            empty = ""
            if not self.size and self.kind == SHARED:
                empty = " (dynamic shared memory: the launch gives it no bytes)"
            S.finding(
                "oob",
                f"{op} {self.name}[{idx}] outside shape {self.shape}{empty}",
                lanes[k],
                site,
                count=int((~ok).sum()),
            )
            if self.access is not None:
                oob = self.access.setdefault("oob", [])
                for k in np.flatnonzero(~ok)[: 100 - len(oob)]:
                    pos = tuple(int(np.broadcast_to(p, ok.shape)[k]) for p in parts)
                    oob.append((int(S.gtid[lanes[k]]), pos))
        if self.kind == SHARED:
            if base:
                f = f + S.block_base(self.size)
            elif not full:
                f = f + S.block_of[lanes] * self.size
        elif self.kind == LOCAL:
            f = f + lanes * self.size
        # The analysis key: addresses made of one cached vector plus a number are the same
        # pattern, shifted, every time (a loop over k of sA[ty, k]); banks and sectors
        # are computed once per pattern (and, for sectors, per alignment of the shift).
        pkey = None
        if plain and len(memo_terms) == 1 and in_range and full:
            entry, stride = memo_terms[0]
            pkey = (id(entry[0]), stride, int(scalar))
        return f, ok, pkey

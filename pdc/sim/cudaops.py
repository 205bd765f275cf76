"""``cuda.*``: thread geometry, shared and local arrays, atomics and barriers.

Warp intrinsics (shuffles, votes, matches, ``syncwarp``) live in pdc.sim.warpops.
``syncthreads`` in a block where some threads wait elsewhere or have exited is a divergent
barrier ("divergence").
"""

from __future__ import annotations

import numpy as np

from pdc.sim import arith, machine, memops, races
from pdc.sim.frontend import Unsupported, dtype_of
from pdc.sim.libdevice import BITS as _BITS
from pdc.sim.machine import WARP, Frame, check_defined, values, vec
from pdc.sim.memory import LOCAL, SHARED, SimArray
from pdc.sim.warpops import (
    activemask,
    lanemask_lt,
    match,
    shuffle,
    syncwarp,
    vote,
)

SHARED_STATIC_LIMIT = 48 * 1024  # static shared memory per block, every GPU since Kepler
LOCAL_LIMIT = 512 * 1024  # local memory per thread (CUDA's limit)
_TABLE: dict = {}


def _table() -> dict:
    if _TABLE:
        return _TABLE
    from numba import cuda

    def add(obj, impl):
        if obj is not None:
            _TABLE[id(obj)] = (obj, impl)

    add(getattr(cuda, "grid", None), _grid("grid"))
    add(getattr(cuda, "gridsize", None), _grid("size"))
    add(cuda.shared.array, _alloc(SHARED))
    add(cuda.local.array, _alloc(LOCAL))
    add(cuda.const.array_like, _const_like)
    add(cuda.syncthreads, _barrier(None))
    for name in ("count", "and", "or"):
        add(getattr(cuda, f"syncthreads_{name}", None), _barrier(name))
    add(cuda.syncwarp, syncwarp)
    for name, scope in (
        ("threadfence", "grid"),
        ("threadfence_system", "grid"),
        ("threadfence_block", "block"),
        ("nanosleep", None),
    ):
        add(getattr(cuda, name, None), _fence(scope))
    for name in ("shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync"):
        add(getattr(cuda, name, None), shuffle(name))
    for name in ("all_sync", "any_sync", "eq_sync", "ballot_sync"):
        add(getattr(cuda, name, None), vote(name))
    add(getattr(cuda, "match_any_sync", None), match(False))
    add(getattr(cuda, "match_all_sync", None), match(True))
    add(getattr(cuda, "activemask", None), activemask)
    add(getattr(cuda, "lanemask_lt", None), lanemask_lt)
    for name in ("add", "sub", "and_", "or_", "xor", "max", "min", "nanmax", "nanmin"):
        add(getattr(cuda.atomic, name, None), _atomic(name))
    for name in ("exch", "inc", "dec"):
        add(getattr(cuda.atomic, name, None), _atomic(name))
    add(getattr(cuda.atomic, "cas", None), _cas(True))
    add(getattr(cuda.atomic, "compare_and_swap", None), _cas(False))
    for name in ("popc", "brev", "clz", "ffs", "fma", "cbrt", "selp"):
        add(getattr(cuda, name, None), _bitops(name))
    return _TABLE


def lookup(fn):
    hit = _table().get(id(fn))
    return hit[1] if hit is not None and hit[0] is fn else None


def module_attr(obj, attr: str, site: str):
    """Run-time attributes of the ``cuda`` module: thread coordinates, lane, warp size."""
    if attr in ("threadIdx", "blockIdx", "blockDim", "gridDim"):
        return lambda fr: (getattr(fr.S, attr), None)
    if attr == "laneid":
        return lambda fr: (fr.S.lane.astype(np.int32), None)
    if attr == "warpsize":
        return lambda fr: (np.int32(WARP), None)
    raise Unsupported(
        f"the simulator does not support {getattr(obj, '__name__', obj)}.{attr} yet ({site})"
    )


def _grid(which):
    def make(b, e, sig, gets, kws, site, line, tgt):
        ndim = int(b.tm[e.args[0].name].literal_value)
        return lambda fr: (machine.geometry_size(fr.S, ndim, which), None)

    return make


def _alloc(kind):
    def make(b, e, sig, gets, kws, site, line, tgt):
        arr_t = sig.return_type
        dt = dtype_of(arr_t.dtype)
        shape_var = e.args[0] if e.args else dict(e.kws).get("shape")  # shape=(16, 16)
        if shape_var is None:
            raise Unsupported(f"a shared or local array needs a shape ({site})")
        st = b.tm[shape_var.name]
        shape = _literal_shape(st, b.statics.get(shape_var.name), site)
        key = (id(b.prog), tgt, e)
        base = tgt.split(".")[0] if not tgt.startswith("$") else ""

        nbytes = int(np.prod(shape)) * dt.itemsize
        limit = SHARED_STATIC_LIMIT if kind == SHARED else LOCAL_LIMIT
        if nbytes > limit:
            what = "static shared memory per block" if kind == SHARED else "local memory per thread"
            raise Unsupported(
                f"[{kind}.array] {nbytes:,} bytes is more than a GPU gives "
                f"({limit:,} bytes of {what}) ({site})"
            )

        def alloc(fr: Frame):
            S = fr.S
            a = S.sites.get(key)
            if a is None:
                copies = S.nblocks if kind == SHARED else S.N
                n = sum(1 for x in S.arrays if x.kind == kind)
                # The variable's name, unless another array has it (an argument it rebinds).
                taken = any(x.name == base for x in S.arrays)
                name = base if base and not taken else f"{kind}#{n}"
                a = SimArray(name, kind, shape, dt, copies=copies)
                a.site = site
                S.sites[key] = a
                S.arrays.append(a)
                if kind == SHARED:
                    S.shared_arrays += 1
                    if S.record:
                        a.access = _access_dict(a)
            return a, None

        return alloc

    return make


def _const_like(b, e, sig, gets, kws, site, line, tgt):
    g0 = gets[0]

    def const(fr: Frame):
        a, _ = g0(fr)
        if not isinstance(a, SimArray):
            raise Unsupported(f"cuda.const.array_like needs a module-level array ({site})")
        return a, None

    return const


def _access_dict(a):
    return {
        "shape": a.shape,
        "thread": np.full(a.size, -1, np.int64),
        "reads": np.zeros(a.size, np.int64),
        "writes": np.zeros(a.size, np.int64),
        "oob": [],
    }


def _literal_shape(t, static, site):
    from numba.core import types as nt

    def one(x):
        if isinstance(x, nt.IntegerLiteral):
            return int(x.literal_value)
        raise Unsupported(f"a shared or local array needs a constant shape ({site})")

    if isinstance(t, nt.BaseTuple):
        return tuple(one(x) for x in t)
    if static is not None:
        return tuple(int(s) for s in static) if isinstance(static, tuple) else (int(static),)
    return (one(t),)


def _fence(scope: str | None):
    """A fence (or ``nanosleep``, ``scope`` None): a compiler loads again after one, so a loop
    that makes it may see another thread's store (pdc.sim.spin); a fence also orders the
    thread's writes before its next atomic, for every block (``grid``: ``threadfence``) or for
    the threads of its own block (``block``: ``threadfence_block``) (pdc.sim.races)."""

    def make(b, e, sig, gets, kws, site, line, tgt):
        def fence(fr: Frame):
            fr.S.fences += 1
            if scope is not None:
                races.fenced(fr.S, fr.lanes, scope == "grid")
            return None, None

        return fence

    return make


# -- barriers -------------------------------------------------------------------------------
def _barrier(reduce):
    def make(b, e, sig, gets, kws, site, line, tgt):
        g = gets[0] if gets else None

        def bar(fr: Frame):
            S = fr.S
            here = np.bincount(S.block_of[fr.lanes], minlength=S.nblocks) > 0
            blocks = np.flatnonzero(here)
            inblk = here[S.block_of]
            away = inblk & S.alive & ~fr.m
            gone = inblk & S.exited
            # Blocks run together here; the counts are of the block the finding names.
            if away.any():
                k = int(np.argmax(away))
                n = int((away & (S.block_of == S.block_of[k])).sum())
                S.finding(
                    "divergence",
                    "syncthreads() is not reached by every thread of the block: "
                    f"{n} wait elsewhere (a barrier inside a branch?)",
                    k,
                    site,
                )
            elif gone.any():
                k = int(np.argmax(gone))
                n = int((gone & (S.block_of == S.block_of[k])).sum())
                S.finding(
                    "divergence",
                    f"syncthreads() reached after {n} threads of the block "
                    "exited (a return before a barrier?)",
                    k,
                    site,
                )
            S.spans.barrier(S.operations(), fr.lanes)
            races.barrier(S, here)
            S.fences += 1
            S.bep = S.bep.copy()  # logged reads keep the epochs of their time
            S.bep[blocks] += 1
            every = not (S.alive & ~here[S.block_of]).any()
            for a in S.arrays:
                if a.kind == SHARED and a.shadow is not None:
                    a.shadow.dirty[blocks] = False
                    if every:
                        a.shadow.forget_reads()
            S.barriers = max(S.barriers, int(S.bep.max()))
            if reduce is None:
                return None, None
            p, u = g(fr)
            check_defined(fr, u, "a barrier's predicate", site)
            p = vec(p, S.N) != 0
            cnt = np.bincount(S.block_of[fr.lanes], weights=p[fr.lanes], minlength=S.nblocks)
            tot = np.bincount(S.block_of[fr.lanes], minlength=S.nblocks)
            if reduce == "count":
                r = cnt.astype(np.int32)
            elif reduce == "and":
                r = (cnt == tot).astype(np.int32)
            else:
                r = (cnt > 0).astype(np.int32)
            return r[S.block_of], None

        return bar

    return make


# -- atomics and bit tricks -------------------------------------------------------------------
def _atomic(op):
    def make(b, e, sig, gets, kws, site, line, tgt):
        def at(fr: Frame):
            (arr, idx, val), us = values(gets, fr)
            index = idx if isinstance(idx, tuple) else (idx,)
            out = memops.atomic(fr, arr, index, (us[1],) * len(index), op, val, us[2], site, line)
            return out, None

        return at

    return make


def _cas(indexed):
    def make(b, e, sig, gets, kws, site, line, tgt):
        def cas(fr: Frame):
            vals, us = values(gets, fr)
            if indexed:
                arr, idx, old, new = vals
            else:
                (arr, old, new), idx = vals, np.int64(0)
            index = idx if isinstance(idx, tuple) else (idx,)
            out = memops.atomic(
                fr, arr, index, (None,) * len(index), "cas", new, None, site, line, cmp=old
            )
            return out, None

        return cas

    return make


def _bitops(name):
    def make(b, e, sig, gets, kws, site, line, tgt):
        dt = dtype_of(sig.return_type)
        ta = [dtype_of(t) for t in sig.args]

        def run(fr: Frame):
            vals, us = values(gets, fr)
            vals = [np.asarray(v).astype(t) for v, t in zip(vals, ta)]
            u = None
            for x in us:
                if x is not None:
                    u = x if u is None else u | x
            x = vals[0]
            if name in _BITS:  # cuda.popc/brev/clz/ffs are libdevice's functions
                out = _BITS[name](x)
            elif name == "fma":
                out = arith.fma(*vals)
            elif name == "cbrt":
                out = np.cbrt(x)
            else:  # selp
                out = np.where(vals[0] != 0, vals[1], vals[2])
            return np.asarray(out).astype(dt), u

        return run

    return make

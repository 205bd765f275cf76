"""Loads, stores and atomics of one warp instruction: values, checks, counts and logs."""

from __future__ import annotations

import numpy as np

from pdc.sim import locks, races, reloads, retries
from pdc.sim.arith import cast
from pdc.sim.machine import Frame, check_defined, vec
from pdc.sim.memory import CONST, GLOBAL, LOCAL, SHARED, SimArray, poison
from pdc.sim.views import View


def _index_und(fr: Frame, index_und, site: str) -> None:
    for u in index_und:
        check_defined(fr, u, "an array index (address)", site)


def _races(fr: Frame, arr: SimArray, f, lanes, kind: str, site: str, vals=None):
    """Check one instruction's accesses against the shadow stamps and record them.

    ``vals``, for a plain write, are the values stored: two unordered writes of one value
    leave the same element in either order (clearing one slot twice), so they are no race.

    Returns the lanes whose access races with another thread's write or atomic and, of
    those, the lanes that race with a plain write (None when no lane races). A read
    racing with a plain write may see a torn or half-ordered value: it is undefined, and a
    race finding. A read racing only with atomics sees a value the element held (atomics are
    indivisible), maybe stale: the simulator returns the value before the element's latest
    atomic, and reports nothing (a CAS loop's first read is correct; a kernel that trusts the
    value shows it in its outputs).
    """
    S = fr.S
    sh = arr.shadow
    if sh is None:
        return None
    racy = None
    if kind == "read":
        B = S.block_of if lanes.size == S.N else S.block_of[lanes]
        # A read can only race with a write or atomic: skip the check while there is none
        # (global: none yet in this launch; shared: none in these blocks since a barrier).
        if arr.kind == GLOBAL:
            need = sh.written
        else:
            need = sh.written and bool(sh.dirty.any()) and bool(sh.dirty[B].any())
        if need:
            racy = _check(S, arr, f, lanes, B, kind, site)
        sh.read(S, f, lanes)
        return racy
    B = S.block_of[lanes]
    sh.flush(S)
    same = None
    if vals is not None:  # the element already holds the value: a write-write race is benign
        same = arr.flat[f] == vals
        if arr.defined is not None:
            same &= arr.defined[f]
    found = _check(S, arr, f, lanes, B, kind, site, same)
    sh.written = True
    if arr.kind == SHARED:
        sh.dirty[B] = True
    dup = sh.record(S, f, lanes, S.warp_of[lanes], B, kind)
    if dup is not None and dup.any() and vals is not None:
        _, inv = np.unique(f, return_inverse=True)
        last = np.empty(inv.max() + 1, dtype=vals.dtype)
        last[inv] = vals  # the value that stays: the last lane's, as the store below keeps
        dup &= vals != last[inv]
    if dup is not None and dup.any():
        k = int(np.argmax(dup))
        S.finding(
            "race",
            f"write {arr.element(f[k])} by several threads in one instruction",
            lanes[k],
            site,
            count=int(dup.sum()),
        )
    return found


def _mixed(S, arr: SimArray, f, lanes, site: str) -> None:
    """Elements a plain write and another thread's atomic left with nothing ordering them:
    which came first decides what they hold (a zeroing store after an atomic add erases
    the count; before it, the add counts from the old value), so they hold an undefined
    value until a plain write replaces it. A read of one is undefined (``load``); a global
    one still mixed when the kernel ends is reported then (``mixed_at_end``)."""
    if f.size == 0:
        return
    if arr.mixed is None:
        arr.mixed = np.zeros(arr.flat.size, dtype=bool)
    if not arr.mixed_why:
        arr.mixed_why = (
            f"{arr.element(f[0])} written by one thread and updated atomically by another with "
            f"no barrier in between (a race: its value depends on which came first), {site}"
        )
        arr.mixed_at = (int(lanes[0]), site)
    arr.mixed[f] = True


def mixed_at_end(S) -> None:
    """Report the global arrays whose elements a race left undefined (``_mixed``)."""
    for arr in S.by_arg:
        if arr is None or arr.mixed is None or not arr.mixed.any():
            continue
        f = np.flatnonzero(arr.mixed)
        lane, site = arr.mixed_at
        S.finding(
            "uninitialized",
            f"{arr.element(f[0])} ends the kernel with an undefined value: {arr.mixed_why}",
            lane,
            site,
            count=int(f.size),
        )


def _check(S, arr, f, lanes, B, kind, site, same=None):
    """The lanes that race (None: none) and, of those, the ones racing with a plain write.

    ``same``: lanes of a plain write that store the value the element holds; their race
    with an earlier plain write ("also written") is dropped.
    """
    W, lane = S.warp_of[lanes], S.lane[lanes]
    racy, what = arr.shadow.check(S, f, lanes, W, B, lane, kind)
    if same is not None and racy.any():
        what = [(reason, r & ~same if reason == "also written" else r) for reason, r in what]
        what = [(reason, r) for reason, r in what if r.any()]
        racy = np.zeros(racy.size, dtype=bool)
        for _, r in what:
            racy |= r
    if not racy.any():
        return None
    plain = np.zeros(racy.size, dtype=bool)
    for reason, r in what:
        if reason != "updated atomically":
            plain |= r
        elif kind == "write":
            _mixed(S, arr, f[r], lanes[r], site)  # a plain write after another's atomic
        if reason == "updated atomically" and kind == "read":
            continue  # a value the element held, maybe stale (load): no finding by itself
        k = int(np.argmax(r))
        op = {"read": "read", "write": "write", "atomic": "atomic on"}[kind]
        S.finding(
            "race",
            f"{op} {arr.element(f[k])} {reason} by another thread with no barrier in between",
            lanes[k],
            site,
            count=int(r.sum()),
        )
    return racy, plain


def _access_record(arr: SimArray, S, f, lanes, kind: str) -> None:
    acc = arr.access
    if acc is None:
        return
    size = arr.size
    g = f if arr.kind == GLOBAL else f - (f // size) * size
    if arr.kind == SHARED:  # block 0's copy only
        sel = S.block_of[lanes] == 0
        g, lanes = g[sel], lanes[sel]
    acc["thread"][g] = S.gtid[lanes]
    if kind != "write":
        np.add.at(acc["reads"], g, 1)
    if kind != "read":
        np.add.at(acc["writes"], g, 1)


def load(fr: Frame, arr: SimArray, index, index_und, site: str, line: int, same=None):
    """``arr[index]`` for the active threads: (values over all threads, undefined mask).

    ``same``: the load's address as the compiler sees it (``pdc.sim.reloads.expression``), or
    None: every execution of this load is counted as traffic.
    """
    if isinstance(arr, View):
        arr, index, index_und = arr.resolve(index, index_und)
    S = fr.S
    lanes = fr.lanes
    S.memory_op(lanes)
    _index_und(fr, index_und, site)
    f, ok, pkey = arr.flat_index(S, lanes, index, "read", site)
    allok = ok.all()
    vals = arr.flat[f]  # a copy (fancy indexing): stale values may replace some below
    und_l = None if allok else ~ok
    if not arr.all_defined:
        never = ~arr.defined[f] & ok  # a read outside the array is reported as one
        if never.any():
            S.undef_from.add("unwritten")
            if not S.undef_origin:
                k = int(np.argmax(never))
                S.undef_origin = f"{arr.element(f[k])} read before any write, {site}"
            und_l = never if und_l is None else und_l | never
    if arr.mixed is not None and (mixed := arr.mixed[f] & ok).any():
        S.undef_from.add("race")
        if not S.undef_origin:
            S.undef_origin = arr.mixed_why
        und_l = mixed if und_l is None else und_l | mixed
    good = None
    if allok:
        fo, lo = f, lanes
    else:
        vals = np.where(ok, vals, poison(arr.dtype))
        S.undef_from.add("outside")
        if not S.undef_origin:
            S.undef_origin = f"a read outside {arr.name}, {site}"
        good = np.flatnonzero(ok)
        fo, lo = f[good], lanes[good]
    if arr.kind == GLOBAL or arr.kind == SHARED:
        found = _races(fr, arr, fo, lo, "read", site)
        racy = None
        if found is not None:
            racy, plain = found
            if not allok:
                r, p = np.zeros(lanes.size, dtype=bool), np.zeros(lanes.size, dtype=bool)
                r[good], p[good] = racy, plain
                racy, plain = r, p
            # Racing only with atomics: a stale but real value (a CAS loop checks it), no
            # race; a value read during an atomic sum is a partial sum. Noted ("stale"),
            # costing nothing: feedback on wrong outputs names it as the likely cause.
            if arr.before_atomic is not None and (stale := racy & ~plain).any():
                vals[stale] = arr.before_atomic[f[stale]]
                racy = racy & ~stale
                k = int(np.argmax(stale))
                S.finding(
                    "stale",
                    f"read {arr.element(f[k])} while another thread updates it atomically, "
                    "with no barrier in between: it sees the value before that update",
                    lanes[k],
                    site,
                    count=int(stale.sum()),
                )
        if racy is not None and racy.any():
            S.undef_from.add("race")
            if not S.undef_origin:
                k = int(np.argmax(racy))
                S.undef_origin = (
                    f"{arr.element(f[k])} read while another thread writes it, with no "
                    f"barrier in between (a race), {site}"
                )
            und_l = racy if und_l is None else und_l | racy
    if arr.kind == GLOBAL:
        arr.loads.add(lanes if same is None else reloads.counted(S, same, lanes, good))
        S.an.sectors(arr, "load", lanes, f, ok, line, pkey)
    elif arr.kind == SHARED:
        S.sl.add(lanes)
        S.an.banks(arr, lanes, f, ok, line, site, pkey)
    if arr.access is not None:
        _access_record(arr, S, fo, lo, "read")
    if lanes.size == S.N:
        out = vals
    else:
        out = np.zeros(S.N, dtype=arr.dtype)
        out[lanes] = vals
    und = None
    if und_l is not None and und_l.any():
        und = np.zeros(S.N, dtype=bool)
        und[lanes] = und_l
    return out, und


def store(fr: Frame, arr: SimArray, index, index_und, value, vund, site: str, line: int):
    """``arr[index] = value`` for the active threads."""
    if isinstance(arr, View):
        arr, index, index_und = arr.resolve(index, index_und)
    S = fr.S
    lanes = fr.lanes
    if arr.kind == CONST:
        from pdc.sim.frontend import Unsupported

        raise Unsupported(f"[write {arr.name}] a constant array cannot be written")
    S.memory_op(lanes)
    S.stores += 1
    _index_und(fr, index_und, site)
    f, ok, pkey = arr.flat_index(S, lanes, index, "write", site)
    v = np.asarray(value)
    vals = cast(v if v.ndim == 0 else (v if lanes.size == S.N else v[lanes]), arr.dtype)
    if np.ndim(vals) == 0:
        vals = np.full(lanes.size, vals, dtype=arr.dtype)
    vu = vund[lanes] if vund is not None and S.reports_undefined() else None
    if vu is not None and arr.kind == GLOBAL and (vu & ok).any():
        k = int(np.argmax(vu & ok))
        origin = f" (first undefined value: {S.undef_origin})" if S.undef_origin else ""
        S.finding(
            "uninitialized",
            f"an undefined value{origin} is written to {arr.element(f[k])}",
            lanes[k],
            site,
            count=int((vu & ok).sum()),
        )
    if not ok.all():
        good = np.flatnonzero(ok)
        fo, lo, vals = f[good], lanes[good], vals[good]
        vu = vu[good] if vu is not None else None
    else:
        fo, lo = f, lanes
    if arr.mixed is not None:  # before _races: a write racing with an atomic marks it again
        arr.mixed[fo] = False
    if arr.kind != LOCAL:
        _races(fr, arr, fo, lo, "write", site, vals if vu is None else None)
    arr.flat[fo] = vals
    if arr.defined is not None:
        if vu is None:
            arr.defined[fo] = True
            if not arr.all_defined:
                arr.all_defined = bool(arr.defined.all())
        else:
            arr.defined[fo] = ~vu
            arr.all_defined = arr.all_defined and not vu.any()
    if arr.kind == GLOBAL:
        arr.stores.add(lanes)
        _wrote(arr, S, fo, lo)
        S.an.sectors(arr, "store", lanes, f, ok, line, pkey)
    elif arr.kind == SHARED:
        S.ss.add(lanes)
        S.an.banks(arr, lanes, f, ok, line, site, pkey)
    if arr.access is not None:
        _access_record(arr, S, fo, lo, "write")


def _wrote(arr: SimArray, S, f, lanes) -> None:
    """Count distinct elements each thread wrote (the report's ``written``)."""
    if arr.owner is None:
        arr.owner = np.full(arr.flat.size, -1, dtype=np.int64)
        arr.written = np.zeros(S.N, dtype=np.int64)
    new = arr.owner[f] != lanes
    if new.any():
        np.add.at(arr.written, lanes[new], 1)
        arr.owner[f[new]] = lanes[new]


ATOMIC_OPS = {
    "add": np.add,
    "sub": np.subtract,
    "max": np.maximum,
    "min": np.minimum,
    "nanmax": np.fmax,
    "nanmin": np.fmin,
    "and_": np.bitwise_and,
    "or_": np.bitwise_or,
    "xor": np.bitwise_xor,
}


def atomic(fr: Frame, arr: SimArray, index, index_und, op: str, vals, vund, site, line, cmp=None):
    """One atomic read-modify-write per active thread, in lane order; returns old values."""
    if isinstance(arr, View):
        arr, index, index_und = arr.resolve(index, index_und)
    S = fr.S
    lanes = fr.lanes
    S.memory_op(lanes)
    _index_und(fr, index_und, site)
    f, ok, pkey = arr.flat_index(S, lanes, index, "atomic", site)
    v = cast(vec(vals, S.N)[lanes], arr.dtype)
    c = cast(vec(cmp, S.N)[lanes], arr.dtype) if cmp is not None else None
    old = np.full(lanes.size, poison(arr.dtype), dtype=arr.dtype)
    good = np.flatnonzero(ok)
    fo, lo = f[good], lanes[good]
    if vund is not None and S.reports_undefined() and (vu := vund[lo]).any():
        # The word ends up holding garbage, as a store of that value would leave it.
        k = int(np.argmax(vu))
        origin = f" (first undefined value: {S.undef_origin})" if S.undef_origin else ""
        S.finding(
            "uninitialized",
            f"an undefined value{origin} is the operand of atomic {op} on {arr.element(fo[k])}",
            lo[k],
            site,
            count=int(vu.sum()),
        )
    if arr.defined is not None:
        never = ~arr.defined[fo]
        if never.any():
            k = int(np.argmax(never))
            S.finding(
                "uninitialized",
                f"atomic on {arr.element(fo[k])} before any write",
                lo[k],
                site,
                count=int(never.sum()),
            )
    if arr.kind != LOCAL:
        if (found := _races(fr, arr, fo, lo, "atomic", site)) is not None:
            _mixed(S, arr, fo[found[0]], lo[found[0]], site)  # after another's plain write
        # What a read racing with this atomic may still see (pdc.sim.memops.load).
        if arr.before_atomic is None:
            arr.before_atomic = arr.flat.copy()
        arr.before_atomic[fo] = arr.flat[fo]
    old[good] = _apply(arr, fo, op, v[good], None if c is None else c[good])
    if op in ("cas", "exch"):
        locks.hand_offs(S, arr, fo, lo, op, old[good], None if c is None else c[good])
    if op == "cas" and c is not None:
        retries.after_cas(S, arr, fo, lo, old[good], c[good])
    if arr.defined is not None:
        arr.defined[fo] = True
        arr.all_defined = arr.all_defined or bool(arr.defined.all())
    S.at[lanes] += 1
    S.atomic_instructions += 1
    races.atomic_made(S, lanes)
    if arr.kind == GLOBAL:
        arr.loads.add(lanes)
        arr.stores.add(lanes)
        # A read-modify-write moves the same 32-byte sectors a load and a store would: a
        # strided atomic is no more coalesced than a strided store.
        S.an.sectors(arr, "load", lanes, f, ok, line, pkey)
        S.an.sectors(arr, "store", lanes, f, ok, line, pkey)
        np.add.at(arr.atomic_counts, fo, 1)
        if op == "cas":  # a compare-and-swap that fails stores nothing (a retry loop's tries)
            assert c is not None
            hit = old[good] == c[good]
            _wrote(arr, S, fo[hit], lo[hit])
        else:
            _wrote(arr, S, fo, lo)
    elif arr.kind == SHARED:
        S.sl.add(lanes)
        S.ss.add(lanes)
        S.an.shared_atomics += int(lo.size)
        # Atomics on one shared word run one after another, as on a global one: a block
        # that piles its values onto one word is serial (report.shared_contention).
        np.add.at(arr.atomic_counts, fo, 1)
        if fo.size:
            S.an.shared_contention = max(S.an.shared_contention, int(arr.atomic_counts[fo].max()))
        S.an.banks(arr, lanes, f, ok, line, site, pkey)
    if arr.access is not None:
        _access_record(arr, S, fo, lo, "atomic")
    out = np.zeros(S.N, dtype=arr.dtype)
    out[lanes] = old
    return out


def _apply(arr: SimArray, f, op: str, v, c):
    """Apply atomics on flat offsets ``f`` in lane order; returns each lane's old value."""
    data = arr.flat
    if f.size == 0:
        return data[f]
    order = np.argsort(f, kind="stable")
    fs = f[order]
    unique = fs.size < 2 or bool((fs[1:] != fs[:-1]).all())
    if unique and op in ATOMIC_OPS:
        old = data[f].copy()
        data[f] = ATOMIC_OPS[op](old, v)
        return old
    if op in ("add", "sub"):
        # An exclusive scan per element gives each lane its old value; integers are exact
        # in any order, floats are summed in lane order by np.add.at.
        vs = v[order] if op == "add" else -v[order]
        start = np.ones(fs.size, dtype=bool)
        start[1:] = fs[1:] != fs[:-1]
        cs = np.cumsum(vs, dtype=data.dtype)
        seg = np.maximum.accumulate(np.where(start, np.arange(fs.size), 0))
        before = cs - vs - (cs[seg] - vs[seg])
        old_s = data[fs] + before
        if data.dtype.kind in "iu":
            ends = np.flatnonzero(np.append(start[1:], True))
            data[fs[ends]] = data[fs[ends]] + (cs[ends] - cs[seg[ends]] + vs[seg[ends]])
        else:
            np.add.at(data, f, v if op == "add" else -v)
        old = np.empty_like(old_s)
        old[order] = old_s
        return old
    old = np.empty(f.size, dtype=data.dtype)
    for k in range(f.size):  # lane order, one at a time: floats, exch, cas, inc, dec
        i = f[k]
        o = data[i]
        old[k] = o
        if op in ATOMIC_OPS:
            data[i] = ATOMIC_OPS[op](o, v[k])
        elif op == "exch":
            data[i] = v[k]
        elif op == "cas":
            if o == c[k]:
                data[i] = v[k]
        elif op == "inc":
            data[i] = 0 if o >= v[k] else o + 1
        elif op == "dec":
            data[i] = v[k] if (o == 0 or o > v[k]) else o - 1
        else:
            from pdc.sim.frontend import Unsupported

            raise Unsupported(f"the simulator does not support atomic {op} yet")
    return old

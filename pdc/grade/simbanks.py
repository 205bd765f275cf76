"""Memory analysis of a simulated launch: bank conflicts, sectors, atomics and access maps.

The simulator runs the threads of a warp one after another, not in lockstep, so every array
keeps a log of its accesses in order (pdc.grade.simmem): thread, call site (a line of kernel
code), kind and element. Warp-wide accesses are rebuilt afterwards: the k-th access to an
array from one line by each thread of a warp is one access, as it would be on a GPU where the
warp executes that line's instruction together. Everything here is NumPy over the logs, once per
launch, so the cost while kernels run is one log entry per access.

Models:

* Shared memory has 32 banks of 4 bytes. A request's degree is the largest number of
  distinct 4-byte words that fall in one bank (lanes that read one word share it); it costs
  that many wavefronts. Elements of 8 bytes are requested per half-warp, 16 bytes per
  quarter-warp. Each shared array starts on a 128-byte boundary.
* Global memory moves in 32-byte sectors; an array starts on a 256-byte boundary. The ideal
  for a warp-wide access is the bytes of the distinct elements it touched, in sectors.
"""

from __future__ import annotations

import linecache

import numpy as np

from pdc.grade import simgen
from pdc.grade.simmem import ATOMIC, LOAD, SITE_BITS, STORE

WARP = 32
BANKS = 32
SECTOR = 32
_K_BITS = 24  # executions of one site by one thread (the budget is 100,000 ops)


def _entries(sa) -> tuple[np.ndarray, np.ndarray]:
    """(meta, flat index) of every logged access of one array."""
    if not sa.log:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    log = np.frombuffer(sa.log, dtype=np.int64).reshape(-1, 2)
    return log[:, 0], log[:, 1]


def _execution(meta: np.ndarray) -> np.ndarray:
    """For each entry, how many times its thread had accessed the array from that site before."""
    key = meta >> 2  # thread and site
    n = key.size
    order = np.argsort(key, kind="stable")
    ks = key[order]
    first = np.ones(n, dtype=bool)
    first[1:] = ks[1:] != ks[:-1]
    starts = np.flatnonzero(first)
    runs = np.diff(np.append(starts, n))
    k = np.empty(n, dtype=np.int64)
    k[order] = np.arange(n) - np.repeat(starts, runs)
    return k


def _group_keys(meta: np.ndarray, tpb: int, phases: np.ndarray | int) -> np.ndarray:
    """One int64 key per warp-wide request: (warp, request phase, site, execution)."""
    thread = meta >> (SITE_BITS + 2)
    site = (meta >> 2) & ((1 << SITE_BITS) - 1)
    wpb = -(-tpb // WARP)
    tid = thread % tpb
    warp = (thread // tpb) * wpb + tid // WARP
    lane = tid % WARP
    phase = lane // (WARP // phases)
    k = _execution(meta)
    return (((warp * 4 + phase) << SITE_BITS | site) << _K_BITS) | k


def _per_group(keys: np.ndarray, values: np.ndarray, bound: int):
    """(group keys, distinct values per group, and those (group index, value) pairs)."""
    groups, inv = np.unique(keys, return_inverse=True)
    pairs = np.unique(inv.astype(np.int64) * bound + values)
    gi = pairs // bound
    return groups, gi, pairs % bound


def _site_of(group_keys: np.ndarray) -> np.ndarray:
    return (group_keys >> _K_BITS) & ((1 << SITE_BITS) - 1)


def bank_conflicts(L) -> dict:
    """Per kernel line: shared-memory requests, their wavefronts and the worst degree."""
    keys, words = [], []
    base = 0  # each shared array in its own 128-byte aligned region
    for sa in L.arrays:
        if not sa.shared or not sa.log:
            continue
        meta, f = _entries(sa)
        plain = (meta & 3) != ATOMIC
        meta, f = meta[plain], f[plain]
        size = sa.a.dtype.itemsize
        nwords = max(1, size // 4)
        phases = min(4, nwords)  # 8 bytes: half-warps; 16 bytes: quarter-warps
        k = _group_keys(meta, L.tpb, phases)
        w = base + (f * size) // 4
        if nwords > 1:
            w = (w[:, None] + np.arange(nwords)).reshape(-1)
            k = np.repeat(k, nwords)
        keys.append(k)
        words.append(w)
        base += -(-(sa.a.size * size) // 128) * 32
    if not keys:
        return {}
    groups, gi, word = _per_group(np.concatenate(keys), np.concatenate(words), base + 1)
    # Distinct words per (request, bank): the request's degree is the largest of these.
    per_bank, counts = np.unique(gi * BANKS + word % BANKS, return_counts=True)
    degree = np.zeros(groups.size, dtype=np.int64)
    np.maximum.at(degree, per_bank // BANKS, counts)
    return _by_line(L, _site_of(groups), degree)


def _by_line(L, sites: np.ndarray, degree: np.ndarray) -> dict:
    out: dict = {}
    for s in np.unique(sites):
        d = degree[sites == s]
        line, text = site_line(L, int(s))
        e = out.setdefault(line, {"text": text, "accesses": 0, "wavefronts": 0, "worst": 0})
        e["accesses"] += int(d.size)
        e["wavefronts"] += int(d.sum())
        e["worst"] = max(e["worst"], int(d.max()))
    return dict(sorted(out.items()))


def site_line(L, site: int) -> tuple[int, str]:
    """(line counted from the function's first line, source text) of a logged call site."""
    code, lineno = L.site_info[site]
    text = linecache.getline(code.co_filename, lineno).strip()
    if code.co_name != L.kernel_name:
        text = f"{code.co_name}(): {text}"
    return simgen.line_in(code, lineno), text


def sectors(L, arrays: list) -> dict:
    """Per global array and direction: warp-wide accesses, sectors touched, ideal sectors."""
    out = {}
    for sa in arrays:
        size = sa.a.dtype.itemsize
        meta, f = _entries(sa)
        for kind, label in ((LOAD, "load"), (STORE, "store")):
            sel = (meta & 3) == kind
            entry = {"accesses": 0, "sectors": 0, "ideal": 0}
            if sel.any():
                keys = _group_keys(meta[sel], L.tpb, 1)
                fk = f[sel]
                groups, gi, _ = _per_group(keys, (fk * size) // SECTOR, sa.a.size + 1)
                entry["accesses"] = int(groups.size)
                entry["sectors"] = int(gi.size)
                _, gi, _ = _per_group(keys, fk, sa.a.size + 1)
                distinct = np.bincount(gi, minlength=groups.size)
                entry["ideal"] = int((-(-(distinct * size) // SECTOR)).sum())
            out[f"{sa.name}:{label}"] = entry
    return out


def atomic_counts(arrays: list) -> dict:
    """Per global array: an int64 array of its shape counting the atomics on each element."""
    out = {}
    for sa in arrays:
        meta, f = _entries(sa)
        hits = f[(meta & 3) == ATOMIC]
        out[sa.name] = np.bincount(hits, minlength=sa.a.size).astype(np.int64).reshape(sa.dims)
    return out


def shared_atomics(L) -> int:
    """Atomics on shared memory, all blocks together."""
    total = 0
    for sa in L.arrays:
        if sa.shared and sa.log:
            meta, _ = _entries(sa)
            total += int(np.count_nonzero((meta & 3) == ATOMIC))
    return total


def access_map(sa) -> dict:
    """Who touched each element of one array last, how often it was read and written."""
    meta, f = _entries(sa)
    kind = meta & 3
    thread = meta >> (SITE_BITS + 2)
    n = sa.a.size
    last = np.full(n, -1, dtype=np.int64)
    if f.size:
        # The first occurrence in the reversed log is the last access of each element.
        elems, pos = np.unique(f[::-1], return_index=True)
        last[elems] = thread[::-1][pos]
    reads = np.bincount(f[kind != STORE], minlength=n).astype(np.int64)
    writes = np.bincount(f[kind != LOAD], minlength=n).astype(np.int64)
    return {
        "shape": tuple(sa.dims),
        "thread": last.reshape(sa.dims),
        "reads": reads.reshape(sa.dims),
        "writes": writes.reshape(sa.dims),
        "oob": list(sa.oob or []),
    }


def access_maps(L, arrays: list) -> dict:
    """Access maps of the global arrays (by name) and block 0's shared arrays."""
    out = {sa.name: access_map(sa) for sa in arrays}
    shared = [sa for sa in L.arrays if sa.shared and sa.block == 0]
    for k, sa in enumerate(shared):
        out[f"shared:{k}"] = {**access_map(sa), "name": sa.name}  # the student's variable
    return out


def analyse(rep, L, record: bool) -> None:
    """Fill the memory-analysis fields of LaunchReport ``rep`` from launch ``L``'s logs."""
    arrays = [a for a in L.arrays_by_arg if a is not None]
    rep.bank_conflicts = bank_conflicts(L)
    rep.sectors = sectors(L, arrays)
    rep.atomic_counts = atomic_counts(arrays)
    rep.shared_atomics = shared_atomics(L)
    rep.access = access_maps(L, arrays) if record else None

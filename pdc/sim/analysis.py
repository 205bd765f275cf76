"""Memory analysis per warp instruction: shared-memory bank conflicts and global sectors.

The machine runs a warp's lanes together, so each load, store or atomic the kernel executes
is, per warp, one request of exactly the lanes that were active. Models:

* Shared memory has 32 banks of 4 bytes. A request's degree is the largest number of
  distinct 4-byte words in one bank (lanes reading one word share it: a broadcast); it
  costs that many wavefronts. Elements of 8 bytes are requested per half-warp and 16 bytes
  per quarter-warp. Each shared array starts on a 128-byte boundary. Atomics count too.
* Global memory moves in 32-byte sectors; an array starts on a 256-byte boundary. A
  request's ideal is the bytes of the distinct elements it touched, in sectors; coalesced
  means sectors == ideal.

Both are NumPy over a (warps, lanes) matrix; when every warp's pattern is the same up to a
shift that keeps banks (or sector alignment), only the first warp's row is computed.
"""

from __future__ import annotations

import linecache

import numpy as np

WARP = 32
BANKS = 32
SECTOR = 32


def _rows(S, lanes, values, ok):
    """A (warps, 32) matrix of ``values`` by warp and lane, -1 where a lane is inactive."""
    if lanes.size == S.N and ok.all():
        return values.reshape(-1, WARP)
    if not ok.all():
        lanes, values = lanes[ok], values[ok]
    if lanes.size == 0:
        return None
    w = lanes // WARP
    first = np.ones(w.size, dtype=bool)
    first[1:] = w[1:] != w[:-1]
    row = np.cumsum(first) - 1
    mat = np.full((int(row[-1]) + 1, WARP), -1, dtype=np.int64)
    mat[row, lanes % WARP] = values
    return mat


def _one_lane_per_warp(lanes) -> bool:
    """Whether no two of ``lanes`` (ascending) share a warp."""
    if lanes.size < 2:
        return True
    w = lanes // WARP
    return bool((w[1:] != w[:-1]).all())


def _same_pattern(mat, modulus: int) -> bool:
    """Whether every row is the first shifted by a constant (and, with ``modulus``, by a
    multiple of it): then every row has the first row's banks or sector alignment."""
    if mat.shape[0] < 2:
        return False
    d = mat - mat[:, :1]
    if not (d == d[0]).all():
        return False
    return modulus == 0 or bool((mat[:, 0] % modulus == mat[0, 0] % modulus).all())


def _representatives(mat, modulus: int) -> list:
    """(rows, multiplicity) pairs that stand for every warp's row of ``mat``.

    Rows with all 32 lanes active that share one pattern are represented by the first,
    counted that many times; the rest (partial warps, irregular patterns) stand for
    themselves.
    """
    full = (mat >= 0).all(axis=1)
    out = []
    if full.any():
        F = mat if full.all() else mat[full]
        out.append((F[:1], F.shape[0]) if _same_pattern(F, modulus) else (F, 1))
    if not full.all():
        out.append((mat[~full], 1))
    return out


def _rowwise(mat, metric, modulus: int):
    """(sum, rows with lanes, max) of ``metric`` over every warp's row."""
    total = count = worst = 0
    for P, k in _representatives(mat, modulus):
        v, has = metric(P)
        v = v[has]
        total += int(v.sum()) * k
        count += int(v.size) * k
        worst = max(worst, int(v.max()) if v.size else 0)
    return total, count, worst


def _split_phases(mat, nwords: int):
    """Rows of one request each: 8-byte elements per half-warp, 16-byte per quarter-warp."""
    phases = min(4, nwords)
    r = mat.reshape(mat.shape[0] * phases, WARP // phases)
    if nwords > 1:
        words = r[:, :, None] * nwords + np.arange(nwords)
        words = np.where(r[:, :, None] < 0, -1, words)
        r = words.reshape(r.shape[0], -1)
    return r


def _degrees(r):
    """Per row: (the largest number of distinct words in one bank, whether it has lanes)."""
    s = np.sort(r, axis=1)
    valid = s >= 0
    new = valid.copy()
    new[:, 1:] &= s[:, 1:] != s[:, :-1]
    ri, ci = np.nonzero(new)
    counts = np.bincount(ri * BANKS + s[ri, ci] % BANKS, minlength=r.shape[0] * BANKS)
    return counts.reshape(r.shape[0], BANKS).max(axis=1), valid.any(axis=1)


def _distinct(r):
    """Per row: (distinct non-negative values, whether the row has any)."""
    s = np.sort(r, axis=1)
    new = s >= 0
    new[:, 1:] &= s[:, 1:] != s[:, :-1]
    n = new.sum(axis=1)
    return n, n > 0


class Analysis:
    """Per-launch accumulators for bank conflicts, sectors and shared atomics."""

    def __init__(self, S):
        self.S = S
        self.bank: dict = {}  # line -> [text, accesses, wavefronts, worst]
        self.sector: dict = {}  # "arg:load" -> [accesses, sectors, ideal]
        # (arg, kind, line) -> [requests, sectors, ideal, requests more than one sector
        # over their ideal, the most sectors one request touched beyond its ideal]
        self.by_line: dict = {}
        self.shared_atomics = 0
        self.shared_contention = 0  # the most atomics one block's shared element received
        self._last: dict = {}  # instruction -> the addresses it saw last and their result
        self._patterns: dict = {}  # (instruction, address pattern) -> its result

    def _repeat(self, key, lanes, within, ok):
        """The cached result when this instruction saw exactly these addresses last time
        (a loop that rereads the same elements), else None; remembers them for next time."""
        hit = self._last.get(key)
        if (
            hit is not None
            and (hit[0] is lanes or np.array_equal(hit[0], lanes))
            and np.array_equal(hit[1], within)
            and np.array_equal(hit[2], ok)
        ):
            return hit[3]
        self._last[key] = [lanes, within, ok, None]
        return None

    def banks(self, arr, lanes, within, ok, line: int, site: str, pkey=None) -> None:
        key = ("bank", id(arr), line)
        res = self._patterns.get((key, pkey[:2])) if pkey is not None else None
        if res is None:
            res = self._repeat(key, lanes, within, ok)
            if res is None:
                res = self._last[key][3] = self._banks(arr, lanes, within, ok)
            if pkey is not None:  # banks do not change when every address moves alike
                self._patterns[(key, pkey[:2])] = res
        total, count, worst = res
        e = self.bank.get(line)
        if e is None:
            e = self.bank[line] = [site, 0, 0, 0]
        e[1] += count
        e[2] += total
        e[3] = max(e[3], worst)

    def _banks(self, arr, lanes, within, ok):
        size = arr.dtype.itemsize
        nwords = max(1, size // 4)
        # 4-byte words; 8- and 16-byte elements are spread over their words per phase.
        elem = within if size >= 4 else (within * size) // 4
        mat = _rows(self.S, lanes, elem, ok)
        if mat is None:
            return 0, 0, 0
        return _rowwise(mat, lambda r: _degrees(_split_phases(r, nwords)), 0)

    def sectors(self, arr, kind: str, lanes, f, ok, line: int = 0, pkey=None) -> None:
        key = (kind, id(arr), line)
        size = arr.dtype.itemsize
        # Sectors do not change when every address moves by whole sectors.
        pk = (key, pkey[:2], (pkey[2] * size) % SECTOR) if pkey is not None else None
        res = self._patterns.get(pk) if pk is not None else None
        if res is None:
            res = self._repeat(key, lanes, f, ok)
            if res is None:
                res = self._last[key][3] = self._sectors(arr, lanes, f, ok)
            if pk is not None:
                self._patterns[pk] = res
        count, nsec, ideal, over, worst = res
        e = self.sector.setdefault(f"{arr.name}:{kind}", [0, 0, 0])
        e[0] += count
        e[1] += nsec
        e[2] += ideal
        r = self.by_line.get((arr.name, kind, line))
        if r is None:
            r = self.by_line[(arr.name, kind, line)] = [0, 0, 0, 0, 0]
        r[0] += count
        r[1] += nsec
        r[2] += ideal
        r[3] += over
        r[4] = max(r[4], worst)

    def _sectors(self, arr, lanes, f, ok):
        size = arr.dtype.itemsize
        # A thread working alone (one active lane in each warp, as in a loop run by thread
        # 0): each request is its lane's one element, that is one sector, and its ideal is
        # the element's sectors, so it is never over. The same numbers as the matrix gives.
        # Only small requests are looked at: a wide one is rarely one lane per warp.
        if lanes.size <= WARP // 2 and _one_lane_per_warp(lanes[ok]):
            k = int(np.count_nonzero(ok))
            return k, k, k * -(-size // SECTOR), 0, 0
        mat = _rows(self.S, lanes, f, ok)
        return (0, 0, 0, 0, 0) if mat is None else _matrix_sectors(mat, size)

    def bank_report(self, prog) -> dict:
        out = {}
        for line, (_site, acc, wave, worst) in sorted(self.bank.items()):
            out[line] = {
                "text": site_text(prog, line),
                "accesses": acc,
                "wavefronts": wave,
                "worst": worst,
            }
        return out


def _matrix_sectors(mat, size: int) -> tuple:
    """(requests, sectors, ideal sectors, requests over their ideal by more than one, the
    most one request was over) for the (warps, 32) matrix of element offsets ``mat``."""
    per = max(1, SECTOR // size) if size <= SECTOR else 0
    count = nsec = ideal = over = worst = 0
    for P, k in _representatives(mat, per):
        ns, has = _distinct(np.where(P < 0, -1, (P * size) // SECTOR))
        n, _ = _distinct(P)
        fill = -(-(n * size) // SECTOR)  # sectors the request's bytes fill at best
        ns, fill = ns[has], fill[has]
        excess = ns - fill  # a contiguous run straddles at most one more boundary
        count += int(ns.size) * k
        nsec += int(ns.sum()) * k
        ideal += int(fill.sum()) * k
        over += int(np.count_nonzero(excess > 1)) * k
        worst = max(worst, int(excess.max()) if excess.size else 0)
    return count, nsec, ideal, over, worst


def site_text(prog, line: int) -> str:
    """The source text of kernel line ``line`` (counted from the function's first line)."""
    if prog is None:
        return ""
    return linecache.getline(prog.filename, prog.first_line + line - 1).strip()

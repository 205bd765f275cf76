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


def _same_pattern(mat, modulus: int, full: bool = False) -> bool:
    if mat.shape[0] < 2 or (not full and (mat < 0).any()):
        return False
    d = mat - mat[:, :1]
    if not (d == d[0]).all():
        return False
    return modulus == 0 or bool((mat[:, 0] % modulus == mat[0, 0] % modulus).all())


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
    s = np.sort(r, axis=1)
    new = s >= 0
    new[:, 1:] &= s[:, 1:] != s[:, :-1]
    return new.sum(axis=1)


class Analysis:
    """Per-launch accumulators for bank conflicts, sectors and shared atomics."""

    def __init__(self, S):
        self.S = S
        self.bank: dict = {}  # line -> [text, accesses, wavefronts, worst]
        self.sector: dict = {}  # "arg:load" -> [accesses, sectors, ideal]
        self.by_line: dict = {}  # (arg, kind, line) -> [accesses, sectors, ideal]
        self.shared_atomics = 0

    def banks(self, arr, lanes, within, ok, line: int, site: str) -> None:
        size = arr.dtype.itemsize
        nwords = max(1, size // 4)
        if size == 4:
            elem = within
        elif nwords > 1:
            elem = within  # whole elements; _split_phases spreads them over their words
        else:
            elem = (within * size) // 4  # several small elements share a word
        mat = _rows(self.S, lanes, elem, ok)
        if mat is None:
            return
        reqs = _split_phases(mat, nwords)
        per_warp = reqs.shape[0] // mat.shape[0]
        if _same_pattern(mat, 0, full=lanes.size == self.S.N and ok.all()):
            deg, has = _degrees(reqs[:per_warp])
            nreq = int(has.sum()) * mat.shape[0]
            total = int(deg[has].sum()) * mat.shape[0]
            worst = int(deg.max()) if deg.size else 0
        else:
            deg, has = _degrees(reqs)
            deg = deg[has]
            nreq, total = int(deg.size), int(deg.sum())
            worst = int(deg.max()) if deg.size else 0
        e = self.bank.get(line)
        if e is None:
            e = self.bank[line] = [site, 0, 0, 0]
        e[1] += nreq
        e[2] += total
        e[3] = max(e[3], worst)

    def sectors(self, arr, kind: str, lanes, f, ok, line: int = 0) -> None:
        size = arr.dtype.itemsize
        mat = _rows(self.S, lanes, f, ok)
        if mat is None:
            return
        full = lanes.size == self.S.N and ok.all()
        if _same_pattern(mat, max(1, SECTOR // size) if size <= SECTOR else 0, full):
            mat1 = mat[:1]
            n = mat.shape[0]
        else:
            mat1, n = mat, 1
        sec = np.where(mat1 < 0, -1, (mat1 * size) // SECTOR)
        nsec = _distinct(sec) * n
        nel = _distinct(mat1)
        ideal = (-(-(nel * size) // SECTOR)) * n
        key = f"{arr.name}:{kind}"
        e = self.sector.setdefault(key, [0, 0, 0])
        e[0] += int(mat.shape[0])
        e[1] += int(nsec.sum())
        e[2] += int(ideal.sum())

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


def site_text(prog, line: int) -> str:
    """The source text of kernel line ``line`` (counted from the function's first line)."""
    if prog is None:
        return ""
    return linecache.getline(prog.filename, prog.first_line + line - 1).strip()

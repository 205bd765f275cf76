"""Race detection from shadow memory, one warp instruction at a time, vectorised.

Every element of a global or shared array carries three stamps: its last plain write, its
readers and its atomic users since they were last ordered. A stamp names a thread (or -2:
several), its group (one warp, several warps of one block, or several blocks), the block's
barrier epoch and the warp's ``syncwarp`` generation at the time. Two accesses by different
threads to one element, at least one of them a write, race unless something orders them:

* a ``syncthreads`` of their block after the first (the block's epoch moved on), or
* a ``syncwarp`` after the first whose mask held both lanes (same warp), or
* both are atomics, or
* one is an atomic and the other a plain read: atomics are indivisible, so the read sees a
  value the element held, maybe an old one. A CAS loop checks the value it read; a kernel
  that trusts such a value computes with a stale one (the simulator hands it the value before
  the latest atomic), which its outputs show. A plain write and an atomic still race.

Accesses by different blocks are ordered only through a fence and an atomic (there is no
grid-wide barrier in a kernel): a write is ordered before another thread's access when its
thread made a ``threadfence`` after it, then an atomic, and the other thread made an atomic
after that one (the guide's "last block" sum: store, fence, ``atomic.inc`` of a counter; the
block that draws the last ticket reads every block's store). Without the fence the store may
reach memory after the atomic: a race. Otherwise a global element written by one block and
touched by another is a race. Within a block ``threadfence_block`` (``membar.cta``) orders the
same way, for the threads of that block only (the last warp of a block to draw a ticket from
a shared counter adds the other warps' sums, with no second barrier). A read is ordered
before another thread's write the same way: the holders of a spin lock that fence after
taking it and before releasing it (pdc.sim.locks) do not race. Volta and later
have no implicit warp lockstep, so lanes of one warp race as any two threads do. Lanes of
one instruction that write one element race with each other.

Reads are by far the most common access and rarely race, so they are logged and stamped
lazily: only when a write or an atomic comes to the same array (``flush``), and a barrier
every reading block passed forgets them (``forget_reads``).
"""

from __future__ import annotations

import numpy as np

NONE, MANY = -1, -2
_I = np.int32


class Stamps:
    """One kind of stamp (write, read or atomic) for every element of one array.

    ``grp`` is the warp (>= 0), ``-3 - b`` for several warps of block b, or MANY for
    several blocks.
    """

    __slots__ = ("tid", "grp", "ep", "gen", "tm")

    def __init__(self, n: int):
        self.tid = np.full(n, NONE, dtype=_I)
        self.grp = np.full(n, NONE, dtype=_I)
        self.ep = np.zeros(n, dtype=_I)
        self.gen = np.zeros(n, dtype=_I)
        self.tm = np.zeros(n, dtype=np.int64)  # the launch's memory clock at the access


class Scope:
    """Per thread, for fences of one scope (the grid, or the thread's block), on the launch's
    memory clock (``clock``): its last fence, and the fence whose writes an atomic after it
    published and that atomic."""

    __slots__ = ("fence", "upto", "at")

    def __init__(self, n: int):
        self.fence = np.full(n, -1, dtype=np.int64)
        self.upto = np.full(n, -1, dtype=np.int64)
        self.at = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)

    def publish(self, lanes, now) -> None:
        new = self.fence[lanes] > self.upto[lanes]
        self.upto[lanes[new]] = self.fence[lanes[new]]
        self.at[lanes[new]] = now[new]

    def ordered(self, tm, u, t_atomic):
        """Whether accesses at ``tm`` by threads ``u`` are published to atomics at
        ``t_atomic``."""
        return (tm <= self.upto[u]) & (t_atomic > self.at[u])


class Publish:
    """Per thread: its fences of either scope (``grid``, ``block``) and its last atomic."""

    __slots__ = ("grid", "block", "atomic")

    def __init__(self, n: int):
        self.grid = Scope(n)
        self.block = Scope(n)  # threadfence_block, and threadfence too (it orders more)
        self.atomic = np.full(n, -1, dtype=np.int64)


def clock(S) -> int:
    """The memory clock: memory instructions so far, room for each lane of one between."""
    return S.mem_instructions * S.N


def fenced(S, lanes, grid: bool = True) -> None:
    """A fence by ``lanes``: their writes so far reach memory before what follows, for the
    whole grid (``threadfence``) or for their own block (``threadfence_block``)."""
    if S.publish is None:
        S.publish = Publish(S.N)
    now = clock(S) + S.N - 1
    S.publish.block.fence[lanes] = now
    if grid:
        S.publish.grid.fence[lanes] = now


def atomic_made(S, lanes) -> None:
    """An atomic by ``lanes`` (counted): it publishes a fence before it, and acquires what
    atomics before it published."""
    P = S.publish
    if P is None:  # no fence yet: nothing to publish, and nothing published to acquire
        return
    now = clock(S) + np.arange(lanes.size)  # one instruction's lanes update in lane order
    P.grid.publish(lanes, now)
    P.block.publish(lanes, now)
    P.atomic[lanes] = now


def barrier(S, here) -> None:
    """A ``syncthreads`` of the blocks where ``here`` (per block): what one thread of a block
    acquired with an atomic, every thread of it has after the barrier (the guide's last block
    tells its threads through shared memory that its ticket was the last)."""
    P = S.publish
    if P is None:
        return
    top = np.full(S.nblocks, -1, dtype=np.int64)
    np.maximum.at(top, S.block_of, P.atomic)
    sel = here[S.block_of]
    P.atomic[sel] = np.maximum(P.atomic[sel], top[S.block_of[sel]])


def published(S, tm, u, t):
    """Whether accesses at ``tm`` by threads ``u`` are ordered before what threads ``t`` do
    now: ``u`` fenced after them and made an atomic, and ``t`` made an atomic after that one
    (a fence of the grid for any two threads, of the block within one block)."""
    P = S.publish
    seen = P.atomic[t]
    ok = P.grid.ordered(tm, u, seen)
    return ok | (P.block.ordered(tm, u, seen) & (S.block_of[u] == S.block_of[t]))


def _block_of_grp(S, grp):
    return np.where(grp >= 0, grp // S.wpb, np.where(grp == MANY, -1, -3 - grp))


class Shadow:
    """The race stamps of one array; ``check`` returns the lanes that race, by reason."""

    def __init__(self, n: int, nblocks: int = 1):
        self.n = n
        self.dirty = np.zeros(nblocks, dtype=bool)  # block wrote since its last barrier
        self.w = Stamps(n)
        self.r: Stamps | None = None  # made on the first flush of reads
        self.a: Stamps | None = None
        self.log: list = []
        self.written = False  # any plain write or atomic yet

    # -- lazy reads -------------------------------------------------------------------------
    def read(self, S, f, lanes) -> None:
        """Log the reads of one instruction with the epochs and generations of the time."""
        self.log.append((f, lanes, S.bep, S.wgen, clock(S)))

    def flush(self, S) -> None:
        """Stamp the logged reads, in order, before a write or atomic looks at them."""
        if not self.log:
            return
        log, self.log = self.log, []
        for f, lanes, bep, wgen, tm in log:
            W, B = S.warp_of[lanes], S.block_of[lanes]
            self.record(S, f, lanes, W, B, "read", bep[B], wgen[W], tm)

    def forget_reads(self) -> None:
        """Every block that read passed a barrier: logged reads can no longer race."""
        self.log = []

    # -- checks -----------------------------------------------------------------------------
    def _unordered(self, S, st: Stamps, f, T, W, B, lane):
        """Lanes whose access is not ordered after the prior stamp in ``st``."""
        tid = st.tid[f]
        some = (tid != NONE) & (tid != T)
        if not some.any():
            return some
        idx = np.flatnonzero(some)
        grp, ep = st.grp[f[idx]], st.ep[f[idx]]
        b = B[idx]
        same_block = _block_of_grp(S, grp) == b
        racy = ~(same_block & (S.bep[b] > ep))
        if racy.any() and S.pairgen is not None:
            w = W[idx]
            same_warp = racy & (grp == w)
            if same_warp.any():
                j = np.flatnonzero(same_warp)
                u = tid[idx[j]]
                lu = np.where(u >= 0, u % 32, lane[idx[j]])
                synced = S.pairgen[w[j], lu, lane[idx[j]]] > st.gen[f[idx[j]]]
                racy[j[synced]] = False
        if S.publish is not None and st is not self.a and racy.any():
            j = np.flatnonzero(racy & (tid[idx] >= 0))
            racy[j[published(S, st.tm[f[idx[j]]], tid[idx[j]], T[idx[j]])]] = False
        out = np.zeros(f.size, dtype=bool)
        out[idx[racy]] = True
        return out

    def check(self, S, f, T, W, B, lane, kind: str):
        """Check one instruction's accesses; returns (racy lanes, what they raced with)."""
        racy = np.zeros(f.size, dtype=bool)
        what = []
        against: list = []
        if kind in ("read", "atomic"):
            against.append(("written", self.w))
        if kind == "write":
            against += [("read", self.r), ("also written", self.w)]
        if kind in ("read", "write"):
            against.append(("updated atomically", self.a))
        # An atomic after another thread's plain read is no finding: the read saw a value
        # the element held (see ``updated atomically`` for a read, pdc.sim.memops._check).
        for reason, st in against:
            if st is None:
                continue
            r = self._unordered(S, st, f, T, W, B, lane)
            if r.any():
                what.append((reason, r))
                racy |= r
        return racy, what

    def record(self, S, f, T, W, B, kind: str, ep=None, gen=None, tm=None):
        """Stamp the accesses; returns lanes of a plain store that share an element."""
        if ep is None:
            ep = S.bep[B]
            gen = S.wgen[W]
        if kind == "write":
            st = self.w
            st.tid[f], st.grp[f], st.ep[f] = T, W, ep
            if S.publish is not None:  # before the first fence, 0 orders it as well
                st.tm[f] = clock(S)
            if S.pairgen is not None:  # generations are all 0 until the first syncwarp
                st.gen[f] = gen
            return st.tid[f] != T  # another lane of this instruction wrote the element last
        if kind == "read":
            if self.r is None:
                self.r = Stamps(self.n)
            st = self.r
        else:
            if self.a is None:
                self.a = Stamps(self.n)
            st = self.a
        tid, grp, oep = st.tid[f], st.grp[f], st.ep[f]
        oblk = _block_of_grp(S, grp)
        stale = (tid == NONE) | ((oblk == B) & (oep < ep))
        if S.pairgen is not None:  # a syncwarp (or lock hand-off) of the two lanes since
            one = (tid >= 0) & (grp == W)
            if one.any():
                j = np.flatnonzero(one)
                synced = S.pairgen[W[j], tid[j] % 32, T[j] % 32] > st.gen[f[j]]
                stale[j[synced]] = True
        if S.publish is not None:  # a lock's hand-off, or a fence and a ticket, since
            one = (tid >= 0) & (tid != T) & ~stale
            if one.any():
                j = np.flatnonzero(one)
                stale[j[published(S, st.tm[f[j]], tid[j], T[j])]] = True
        mine = stale | (tid == T)
        st.tid[f] = np.where(mine, T, MANY)
        if S.publish is not None:  # as for writes
            st.tm[f] = clock(S) if tm is None else tm
        st.grp[f] = np.where(mine | (grp == W), W, np.where(oblk == B, -3 - B, MANY))
        st.ep[f], st.gen[f] = ep, gen
        # Several lanes of this instruction on one element: the stamp names several threads.
        back = st.tid[f]
        lost = (back != T) & (back != MANY)
        if lost.any():
            fl = f[lost]
            st.tid[fl] = MANY
            g = st.grp[fl]
            Wl, Bl = W[lost], B[lost]
            st.grp[fl] = np.where(g == Wl, Wl, np.where(_block_of_grp(S, g) == Bl, -3 - Bl, MANY))
        return None

"""Where replies wait between the reply ring and their caller: the kernel's stash.

Every consumer takes replies off the ring into the stash first and hands them out only
from there, so that an interrupt (Ctrl-C) or a cancellation at any point leaves each reply
in exactly one place: in the ring, in the stash, in the hands of the operation that took
it (which puts it back if it does not return it), or with its caller.

Two rules make that hold at every point where Python checks for signals (a function's
entry, the return of a call, a backward jump):

- **The move from the ring is settled, not trusted.** ``Stash.fill`` copies the ready
  replies, records the move (``inflight``: the chunk and the ring tail after it) in one
  store, and then ``Stash.settle`` appends the chunk and advances the ring's tail. Every
  holder of the consumer lock settles first, and each step of ``settle`` checks before it
  acts, so a move cut short is finished by the next consumer: never lost, never twice.
- **A claim is one statement.** A consumer marks a reply taken (``Chunk.taken``) and
  notes it in its own ``box`` in a single multiple assignment, which has no signal check
  inside; until the consumer returns the reply it can put it back (``Stash.unclaim``).

All methods run under the kernel's consumer lock.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

__all__ = ["Chunk", "Stash"]


class Chunk:
    """Replies moved off the ring together (arrival order); ``taken`` marks those handed out.

    Attributes:
        corr: Correlation ids (int64).
        status: Handler statuses (int64).
        recs: Reply records (the reply dtype).
        taken: True where the reply was claimed.
        first: No reply before this index is untaken (a hint, lowered by ``unclaim``).
    """

    __slots__ = ("corr", "first", "recs", "status", "taken")

    def __init__(self, corr: np.ndarray, status: np.ndarray, recs: np.ndarray):
        self.corr = corr
        self.status = status
        self.recs = recs
        self.taken = np.zeros(len(corr), np.bool_)
        self.first = 0

    def __len__(self) -> int:
        return len(self.corr)

    def untaken(self) -> int:
        return len(self.corr) - int(np.count_nonzero(self.taken))


class Stash:
    """Replies taken off the reply ring and not handed out yet, in arrival order.

    Attributes:
        chunks: The chunks, oldest first (fully taken ones are pruned by ``settle``).
        count: Replies in the stash (not taken).
        version: Bumped by every fill: a poller rescans only when it changed.
        inflight: ``(ring tail after the move, chunk)`` of a move not settled yet.
    """

    def __init__(self, dtype: np.dtype):
        self.dtype = dtype
        self.chunks: collections.deque[Chunk] = collections.deque()
        self.count = 0
        self.version = 0
        self.inflight: tuple[int, Chunk] | None = None

    def __len__(self) -> int:
        return self.count

    # -- the move from the ring ---------------------------------------------------------
    def fill(self, host: Any, limit: int) -> int:
        """Move up to ``limit`` ready replies from the ring into the stash; return how many."""
        self.settle(host)
        corr, status, recs, end = host.peek_batch(limit)
        if not len(corr):
            return 0
        self.inflight = (end, Chunk(corr, status, recs))  # the move, in one store
        self.settle(host)
        return len(corr)

    def settle(self, host: Any) -> None:
        """Finish a move cut short (each step checks first), then prune taken chunks."""
        pending = self.inflight
        if pending is not None:
            end, chunk = pending
            if not self.chunks or self.chunks[-1] is not chunk:
                self.chunks.append(chunk)
            host.commit_pop(end)
            self.recount()
            self.version += 1
            self.inflight = None
        chunks = self.chunks
        while chunks:
            head = chunks[0]
            i = head.first
            if i < len(head) and not head.taken[i]:
                break
            free = np.flatnonzero(~head.taken[i:])
            if len(free):
                head.first = i + int(free[0])  # a hint: nothing before it is untaken
                break
            chunks.popleft()  # every reply in it was handed out

    def recount(self) -> None:
        """Recompute ``count`` from the chunks."""
        self.count = sum(c.untaken() for c in self.chunks)

    # -- finding (no change but a fill) -------------------------------------------------
    def look(self, host: Any, find: Any, key: Any) -> tuple[Chunk, int] | None:
        """``find(key)`` in the stash, and again after a fill from the ring if it failed."""
        self.settle(host)
        found = find(key) if self.count else None
        if found is None and self.fill(host, 1 << 30):
            found = find(key)
        return found

    def find_next(self, awaited: Any) -> tuple[Chunk, int] | None:
        """The first untaken reply whose id is not in ``awaited``."""
        for chunk in self.chunks:
            i = chunk.first
            taken = chunk.taken
            n = len(taken)
            while i < n and taken[i]:
                i += 1
            chunk.first = i  # a hint: nothing before i is untaken
            if i == n:
                continue
            if not awaited:
                return chunk, i
            free = np.flatnonzero(~taken[i:] & ~np.isin(chunk.corr[i:], list(awaited)))
            if len(free):
                return chunk, i + int(free[0])
        return None

    def find_id(self, corr_id: int) -> tuple[Chunk, int] | None:
        """The untaken reply to ``corr_id``."""
        for chunk in self.chunks:
            i = chunk.first
            if len(chunk) - i == 1:
                if chunk.corr[i] == corr_id and not chunk.taken[i]:
                    return chunk, i
                continue
            hits = np.flatnonzero((chunk.corr[i:] == corr_id) & ~chunk.taken[i:])
            if len(hits):
                return chunk, i + int(hits[0])
        return None

    def find_free(self, n: int, awaited: Any) -> list[tuple[Chunk, np.ndarray]]:
        """Up to ``n`` untaken replies whose ids are not in ``awaited``: (chunk, indices)."""
        out = []
        for chunk in self.chunks:
            if n <= 0:
                break
            i = chunk.first
            free = ~chunk.taken[i:]
            if awaited:
                free &= ~np.isin(chunk.corr[i:], list(awaited))
            idx = np.flatnonzero(free)[:n] + i
            if len(idx):
                out.append((chunk, idx))
                n -= len(idx)
        return out

    # -- putting back -------------------------------------------------------------------
    def unclaim(self, chunk: Chunk, idx: Any) -> int:
        """Put claimed replies back (an operation that could not hand them out); how many."""
        back = int(np.count_nonzero(chunk.taken[idx]))
        if not back:
            return 0
        if chunk not in self.chunks:  # pruned meanwhile: it goes back in front
            self.chunks.appendleft(chunk)
        chunk.taken[idx] = False
        chunk.first = min(chunk.first, int(np.min(idx)))
        self.version += 1
        self.recount()
        return back

    def restore(self, corr: int, status: int, rec: np.ndarray) -> None:
        """Put back, in front, a reply that left the stash as an object but was not handed."""
        chunk = Chunk(np.array([corr], np.int64), np.array([status], np.int64), rec.reshape(1))
        self.chunks.appendleft(chunk)
        self.version += 1
        self.recount()

"""What a ring kernel gives back: replies, batches of replies, telemetry, terminate reports.

``Stash`` holds replies taken off the reply ring but not yet received (a reply another
caller waits for, or replies moved aside so that a full reply ring never stalls the device).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdc.ring.protocol import RingHandlerError

__all__ = ["Replies", "Reply", "Stash", "Telemetry", "TerminateReport", "concat"]


class Reply:
    """One reply: ``corr_id``, ``status`` (0 = ok), the reply fields as attributes.

    Attributes:
        corr_id: Correlation id of the request it answers.
        status: The handler's return value (0 = ok).
        error: Text of the exception for a pure-Python handler that raised, else None.
    """

    __slots__ = ("_names", "_vals", "corr_id", "error", "kernel_id", "status")

    def __init__(
        self,
        kernel_id: str,
        corr_id: int,
        status: int,
        names: tuple[str, ...],
        vals: tuple,
        error: str | None = None,
    ):
        self.kernel_id = kernel_id
        self.corr_id = corr_id
        self.status = status
        self._names = names
        self._vals = vals
        self.error = error

    @property
    def values(self) -> dict[str, Any]:
        """``{field: value}``."""
        return dict(zip(self._names, self._vals, strict=True))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._vals[self._names.index(name)]
        except ValueError:
            raise AttributeError(
                f"[Reply] expected a reply field in {self._names}, got {name!r}"
            ) from None

    @property
    def ok(self) -> bool:
        """True when the handler returned 0."""
        return self.status == 0

    def raise_for_status(self) -> Reply:
        """Return self, or raise ``RingHandlerError`` when the handler reported an error."""
        if self.status != 0:
            extra = f": {self.error}" if self.error else ""
            raise RingHandlerError(
                f"[ring {self.kernel_id}] handler returned error code {self.status} for "
                f"message {self.corr_id}{extra}",
                self.status,
                self.corr_id,
            )
        return self

    def __repr__(self) -> str:
        return f"Reply(corr_id={self.corr_id}, status={self.status}, {self.values})"


@dataclass
class Replies:
    """A batch of replies: parallel arrays, in the order the device handled them."""

    corr_ids: np.ndarray
    status: np.ndarray
    records: np.ndarray

    def __len__(self) -> int:
        return len(self.corr_ids)


@dataclass
class Telemetry:
    """Counters of one kernel (device and host side), read at one moment."""

    kernel_id: str
    backend: str
    simulated: bool
    state: str
    launches: int
    submitted: int
    processed: int
    received: int
    dropped: int
    rejected: int
    blocked: int
    errors: int
    last_error: int
    waiting: int
    replies_ready: int
    in_flight: int


@dataclass
class TerminateReport:
    """What ``terminate`` found.

    Attributes:
        kernel_id: The kernel.
        stopped: True when the device loop left within the timeout.
        seconds: How long terminate took.
        undelivered: Correlation ids still waiting in the request queues (never handled).
        replies_pending: Replies handled but not yet received (still receivable).
    """

    kernel_id: str
    stopped: bool
    seconds: float
    undelivered: list[int]
    replies_pending: int


class Stash:
    """Replies taken off the reply ring but not received yet, in arrival order (chunks)."""

    def __init__(self, dtype: np.dtype):
        self.dtype = dtype
        self.chunks: collections.deque[list] = collections.deque()  # [corr, status, recs, start]
        self.count = 0
        self.version = 0  # bumped by every add: a poller rescans only when it changed

    def __len__(self) -> int:
        return self.count

    def add(self, corr: np.ndarray, status: np.ndarray, recs: np.ndarray) -> None:
        if len(corr):
            self.version += 1
            self.chunks.append([corr, status, recs, 0])
            self.count += len(corr)

    def popleft(self) -> tuple[int, int, np.void]:
        chunk = self.chunks[0]
        corr, status, recs, i = chunk
        item = int(corr[i]), int(status[i]), recs[i]
        chunk[3] = i + 1
        if i + 1 == len(corr):
            self.chunks.popleft()
        self.count -= 1
        return item

    def take(self, n: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        parts = []
        while n > 0 and self.chunks:
            chunk = self.chunks[0]
            corr, status, recs, i = chunk
            k = min(n, len(corr) - i)
            parts.append((corr[i : i + k], status[i : i + k], recs[i : i + k]))
            chunk[3] = i + k
            if i + k == len(corr):
                self.chunks.popleft()
            self.count -= k
            n -= k
        return parts

    def push_front(self, corr: int, status: int, rec: np.ndarray) -> None:
        """Put one reply back in front (a receive interrupted after taking it)."""
        self.chunks.appendleft(
            [np.array([corr], np.int64), np.array([status], np.int64), rec.reshape(1), 0]
        )
        self.count += 1

    def recount(self) -> None:
        """Recompute ``count`` from the chunks (after an interrupted update)."""
        self.count = sum(len(c[0]) - c[3] for c in self.chunks)

    def take_matching(self, keys: Any) -> list[tuple[int, int, np.void]]:
        """Take out every reply whose id is in ``keys`` (a set or dict), keeping the rest."""
        out: list[tuple[int, int, np.void]] = []
        kept: collections.deque[list] = collections.deque()
        wanted = np.fromiter(keys, np.int64, len(keys))
        for chunk in self.chunks:
            corr, status, recs, i = chunk
            if len(corr) - i == 1:
                if int(corr[i]) in keys:
                    out.append((int(corr[i]), int(status[i]), recs[i]))
                else:
                    kept.append(chunk)
                continue
            hit = np.isin(corr[i:], wanted)
            if not hit.any():
                kept.append(chunk)
                continue
            for p in np.flatnonzero(hit).tolist():
                out.append((int(corr[i + p]), int(status[i + p]), recs[i + p]))
            keep = ~hit
            if keep.any():
                kept.append([corr[i:][keep], status[i:][keep], recs[i:][keep], 0])
        if out:
            self.chunks = kept
            self.recount()
        return out

    def pop_free(self, reserved: set[int]) -> tuple[int, int, np.void] | None:
        """Take out the first reply whose id is not in ``reserved``; None if there is none."""
        for chunk in self.chunks:
            for c in chunk[0][chunk[3] :].tolist():
                if c not in reserved:
                    return self.pop_id(c)
        return None

    def take_free(
        self, n: int, reserved: set[int]
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``take(n)`` of the replies whose ids are not in ``reserved`` (those stay, first)."""
        held = self.take_matching(reserved)
        try:
            return self.take(n)
        finally:
            for corr, status, rec in reversed(held):
                self.push_front(corr, status, np.asarray(rec))

    def contains(self, corr_id: int) -> bool:
        """True when the reply to ``corr_id`` is in the stash."""
        return any(corr_id in c[0][c[3] :] for c in self.chunks)

    def pop_id(self, corr_id: int) -> tuple[int, int, np.void] | None:
        for c, chunk in enumerate(self.chunks):
            corr, status, recs, i = chunk
            if len(corr) - i == 1:  # a single reply: no NumPy search
                if int(corr[i]) != corr_id:
                    continue
                del self.chunks[c]
                self.count -= 1
                return int(corr[i]), int(status[i]), recs[i]
            hits = np.flatnonzero(corr[i:] == corr_id)
            if len(hits):
                p = i + int(hits[0])
                found = (int(corr[p]), int(status[p]), recs[p])
                # Split the chunk around the reply taken out of the middle.
                before = [corr[i:p], status[i:p], recs[i:p], 0]
                after = [corr[p + 1 :], status[p + 1 :], recs[p + 1 :], 0]
                del self.chunks[c]
                for part in (after, before):
                    if len(part[0]):
                        self.chunks.insert(c, part)
                self.count -= 1
                return found
        return None


def concat(parts: list, dtype: np.dtype) -> Replies:
    if not parts:
        return Replies(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, dtype))
    if len(parts) == 1:  # already copies, owned by nobody else
        return Replies(*parts[0])
    return Replies(
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )

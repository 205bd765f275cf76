"""What a ring kernel gives back: replies, batches of replies, telemetry, terminate reports.

Replies wait in the kernel's stash (``pdc.ring.host.stash``) until they are handed out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pdc.ring.protocol import RingHandlerError

__all__ = ["Replies", "Reply", "Telemetry", "TerminateReport", "concat"]


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

    def failure(self) -> RingHandlerError | None:
        """The ``RingHandlerError`` this reply stands for, or None when the handler returned 0."""
        if self.status == 0:
            return None
        extra = f": {self.error}" if self.error else ""
        return RingHandlerError(
            f"[ring {self.kernel_id}] handler returned error code {self.status} for "
            f"message {self.corr_id}{extra}",
            self.status,
            self.corr_id,
        )

    def raise_for_status(self) -> Reply:
        """Return self, or raise ``RingHandlerError`` when the handler reported an error."""
        failure = self.failure()
        if failure is not None:
            raise failure
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
        undelivered: Correlation ids still waiting in the request queues (never handled
            once ``stopped``; while a loop that did not stop finishes its burst, some may
            still get replies).
        replies_pending: Replies handled but not yet received (still receivable).
    """

    kernel_id: str
    stopped: bool
    seconds: float
    undelivered: list[int]
    replies_pending: int


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

"""The errors of ring kernels: one base class, one subclass per way an operation fails."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "RingError",
    "RingFullError",
    "RingHandlerError",
    "RingStateError",
    "RingTimeoutError",
]


class RingError(RuntimeError):
    """Base class of ring kernel errors."""


class RingStateError(RingError):
    """An operation that the kernel's current state does not allow."""


class RingTimeoutError(RingError, TimeoutError):
    """A wait on a ring kernel ran out of time.

    Attributes:
        partial: For ``receive_batch``: the replies received before the time ran out.
    """

    partial: Any


class RingFullError(RingError):
    """A send found the request queue full (backpressure "reject", or "block" timed out).

    Attributes:
        accepted: Correlation ids of the messages of a batch that were sent before.
        dropped: Correlation ids dropped to make room during this send ("drop_oldest").
    """

    accepted: np.ndarray
    dropped: list[int]


class RingHandlerError(RingError):
    """A handler returned a nonzero error code (or raised, in Python-handler mode)."""

    def __init__(self, message: str, code: int, corr_id: int):
        super().__init__(message)
        self.code = code
        self.corr_id = corr_id

"""Whether a launched kernel can still answer: terminated by the host, or its loop gone.

``Life`` is shared by the kernel's producer, its consumer and its lifecycle methods: the
host sets ``terminated`` (``RingKernel.terminate``, or the runtime at exit) before it asks
the device loop to leave, and every wait checks ``dead()`` so that nothing waits for a
loop that will never answer.
"""

from __future__ import annotations

import os
import weakref
from typing import Any

from pdc.ring.protocol import DROPPED, HIGH, NORMAL, S_TERMINATED, STATE_NAMES, RingStateError

__all__ = ["Life"]

# A forked child copies a launched kernel's rings but not the thread or device that serves
# them: its copy must refuse to send or to wait for a loop that does not run there. In the
# child, every kernel's Life is marked terminated (so every send path refuses it) and
# forked (so the error says why).
_LIVES: weakref.WeakSet = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for life in list(_LIVES):
        life.forked_away = True
        life.terminated = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class Life:
    """The liveness of one kernel: the host's terminate flag and the device loop's state.

    Args:
        kernel_id: Named in errors.
        host: The kernel's ``RingHost`` (the device's acknowledged state).
        engine: The kernel's engine (``failure``: the exception its loop died of, if any).

    Attributes:
        terminated: True once the host asked the loop to leave; no send is accepted after.
    """

    def __init__(self, kernel_id: str, host: Any, engine: Any):
        self.kernel_id = kernel_id
        self.host = host
        self.engine = engine
        self.terminated = False
        self.forked_away = False  # True in a process forked after the launch
        _LIVES.add(self)

    def failure(self) -> BaseException | None:
        """The exception the device loop died of, or None."""
        return getattr(self.engine, "failure", None)

    def dead(self) -> bool:
        """True once the device can no longer answer (terminated, or its loop failed)."""
        return (
            self.terminated
            or self.host.state() == S_TERMINATED
            or getattr(self.engine, "failure", None) is not None
        )

    def check(self, op: str) -> None:
        """Raise ``RingStateError`` naming ``op`` unless the device can still answer."""
        if self.forked_away:
            raise RingStateError(
                f"[{op} {self.kernel_id}] expected a kernel launched in this process, got one "
                "launched before a fork: its loop serves the parent only; launch the kernel "
                "again in this process"
            )
        if self.terminated:
            raise RingStateError(
                f"[{op} {self.kernel_id}] expected a running kernel, got a terminated one"
            )
        failure = getattr(self.engine, "failure", None)
        if failure is not None:
            raise RingStateError(
                f"[{op} {self.kernel_id}] the device loop failed: {failure!r}"
            ) from failure
        if self.host.state() == S_TERMINATED:
            raise RingStateError(
                f"[{op} {self.kernel_id}] expected a running kernel, got a device loop that left"
            )

    def state_name(self) -> str:
        """The device's acknowledged state by name: launched, active, deactivated..."""
        s = self.host.state()
        return STATE_NAMES.get(s, f"unknown({s})")

    def waiting(self) -> int:
        """Messages waiting in the request queues."""
        return self.host.pending(HIGH) + self.host.pending(NORMAL)

    def in_flight(self, received: int) -> int:
        """Messages sent and neither dropped nor among the ``received`` replies."""
        return self.host.submitted() - self.host.word(DROPPED) - received

    def describe(self, received: int, stashed: int) -> str:
        """The state and the messages in flight, for error messages.

        Args:
            received: Replies handed out so far.
            stashed: Replies taken off the ring and not yet handed out.
        """
        failure = self.failure()
        return (
            f"kernel state {self.state_name()!r}, {self.in_flight(received)} message(s) in "
            f"flight ({self.waiting()} waiting in the request queues, "
            f"{self.host.replies_ready() + stashed} replies not yet received)"
            + (f"; the device loop failed: {failure!r}" if failure is not None else "")
            + (
                "; this process was forked after the launch: the loop serves the parent only"
                if self.forked_away
                else ""
            )
        )

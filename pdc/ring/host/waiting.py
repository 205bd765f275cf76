"""How the host waits on a ring kernel: spin, then yield, then sleep with back-off.

Every wait of the runtime goes through ``Waiter``. A deadline is refreshed whenever the
device shows progress (``Waiter.progress``), so a long batch never times out while the
device keeps working, and a wait on a device that stopped ends after ``timeout`` seconds.
"""

from __future__ import annotations

import os
import time

__all__ = ["Waiter", "async_delay"]


class Waiter:
    """Poll, then poll with ``sched_yield`` in between, then sleep with back-off.

    Yielding matters on a machine with few cores: when the device loop shares a core with
    the waiting thread, a yield hands it the core at once instead of at the next tick.

    Args:
        timeout: Seconds without progress before ``expired`` is True (None: never).
        spin: Polls before the waiter starts sleeping.
    """

    __slots__ = ("deadline", "mark", "n", "sleep", "spin", "timeout")

    def __init__(self, timeout: float | None, spin: int):
        self.timeout = timeout
        self.deadline = None if timeout is None else time.perf_counter() + timeout
        self.n = 0
        self.spin = spin
        self.sleep = 5e-6
        self.mark = -1  # the last progress value seen (a device counter)

    def expired(self) -> bool:
        """True once ``timeout`` seconds passed without progress."""
        return self.deadline is not None and time.perf_counter() > self.deadline

    def progress(self, value: int) -> None:
        """Report a device counter; a change restarts the timeout and the back-off."""
        if value != self.mark:
            self.mark = value
            self.n = 0
            self.sleep = 5e-6
            if self.timeout is not None:
                self.deadline = time.perf_counter() + self.timeout

    def wait(self) -> None:
        """One step of the back-off (returns at once while spinning)."""
        self.n += 1
        if self.n <= self.spin:
            if self.n > 64:
                os.sched_yield()
            return
        self.sleep = min(self.sleep * 2, 1e-3)
        time.sleep(self.sleep)


def async_delay(delay: float) -> float:
    """The next ``asyncio.sleep`` of an async poll loop: 0, then 20 us doubling to 1 ms."""
    return min(max(delay * 2, 2e-5), 1e-3)

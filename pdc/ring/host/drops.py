"""Which messages the device dropped (backpressure "drop_oldest"), each reported once.

The host cannot move a request ring's tail; it raises the lane's drop floor and the device
marks the messages below it dropped (``pdc.ring.protocol``). ``Drops`` reads those marks
before their slots are reused: a dropped message's slot is only reused by a later send,
and every send looks here first whenever the floor is above what was scanned, so no drop
goes unreported, even one the device made after the send that asked for it gave up.
"""

from __future__ import annotations

import threading
from typing import Any

from pdc.ring.protocol import HIGH, NORMAL, RingError

__all__ = ["Drops"]


class Drops:
    """The dropped ids of one kernel, harvested from the request rings.

    Args:
        kernel_id: Named in errors.
        host: The kernel's ``RingHost``.

    Attributes:
        ids: The dropped ids, in the order they were found.
        seen: The same ids as a set.
        scan: Per lane: sequences below this were checked for drops.
    """

    def __init__(self, kernel_id: str, host: Any):
        self.kernel_id = kernel_id
        self.host = host
        self.capacity: int = host.rings.capacity
        self.lock = threading.Lock()
        self.ids: list[int] = []
        self.seen: set[int] = set()
        self.scan = [0, 0]

    def harvest(self) -> list[int]:
        """Record the ids of messages the device dropped since the last look; return them."""
        new: list[int] = []
        host = self.host
        cap = self.capacity
        with self.lock:
            for lane in (HIGH, NORMAL):
                floor = host.floor(lane)
                start = max(self.scan[lane], host.head(lane) - cap)
                if floor <= start:
                    continue
                stop = min(floor, host.tail(lane))
                if stop <= start:
                    continue
                for cid in host.dropped_ids(lane, start, stop):
                    if cid not in self.seen:
                        self.seen.add(cid)
                        self.ids.append(cid)
                        new.append(cid)
                self.scan[lane] = stop
        return new

    def pushable(self, lane: int, want: int) -> int:
        """How many of ``want`` messages may be written into ``lane`` now (send lock held).

        A write reuses the slot of the message ``capacity`` sequences earlier; a dropped
        message there must have been recorded first. Once the drop floor is raised, the
        device may drop more at any moment, so writes stop at what was scanned.
        """
        host = self.host
        floor = host.floor(lane)
        if floor <= self.scan[lane]:
            return want
        self.harvest()
        old = host.head(lane) - self.capacity  # sequence of the first slot reused
        if old >= floor:
            return want
        return max(0, min(want, self.scan[lane] - old))

    def check(self, corr: int, op: str, dropping: bool) -> None:
        """Raise ``RingError`` if the reply to ``corr`` can never come (it was dropped).

        ``dropping``: the kernel drops messages ("drop_oldest"), so look for new drops.
        """
        if corr in self.seen or (dropping and corr in self.harvest()):
            raise RingError(
                f"[{op} {self.kernel_id}] expected a reply to message {corr}, got none: it was "
                "dropped (backpressure 'drop_oldest')"
            )

"""The sending side of a ring kernel: send, send_batch, backpressure and drop reports.

Every producer holds the kernel's producer lock while it hands out correlation ids and
writes the request rings, so ids are never handed out twice. A send that must wait
(backpressure "block", or "drop_oldest" waiting for the device to drop) waits while the
device makes progress and gives up, raising ``RingFullError`` counted in ``rejected``,
only after ``block_timeout`` seconds without any. Messages the device dropped are looked
up before their slots are reused, so every dropped id reaches ``dropped_ids``.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from pdc.ring.engine import Engine
from pdc.ring.handlers import HandlerSpec
from pdc.ring.host import RingHost
from pdc.ring.messages import LANES, RequestFormat
from pdc.ring.protocol import (
    BLOCKED,
    D_SENDING,
    HIGH,
    NORMAL,
    REJECTED,
    S_TERMINATED,
    RingFullError,
    Rings,
    RingStateError,
)
from pdc.ring.waiting import Waiter

__all__ = ["Sending"]


class Sending:
    """Send methods of ``RingKernel`` (a mixin: the attributes are the kernel's)."""

    kernel_id: str
    spec: HandlerSpec
    host: RingHost
    rings: Rings
    engine: Engine
    backpressure: str
    block_timeout: float
    dropped_ids: list[int]
    _dropped_set: set[int]
    _scan: list[int]
    _next: int
    _words: Any  # the descriptor words of pdc.ring.fast (D_NEXT, D_SENDING), or a list
    _names: tuple[str, ...]
    _spin: int
    _dropping: bool
    _awaited: set[int]
    _terminated: bool
    _send_lock: threading.Lock
    _recv_lock: threading.Lock
    _drop_lock: threading.Lock
    _format: RequestFormat

    if TYPE_CHECKING:  # defined by RingKernel and Receiving

        def _alive_check(self, op: str) -> None: ...
        def _dead(self) -> bool: ...
        def _describe(self) -> str: ...
        def _fill(self, limit: int) -> int: ...

    # -- drops --------------------------------------------------------------------------
    def _harvest_drops(self) -> list[int]:
        """Record the ids of messages the device dropped since the last look; return them.

        A dropped message's slot is only reused by a later send, and every send looks here
        first whenever the drop floor is above what was scanned: no drop goes unreported,
        even one the device made after the send that asked for it gave up.
        """
        new: list[int] = []
        host = self.host
        cap = self.rings.capacity
        with self._drop_lock:
            for lane in (HIGH, NORMAL):
                floor = host.floor(lane)
                start = max(self._scan[lane], host.head(lane) - cap)
                if floor <= start:
                    continue
                stop = min(floor, host.tail(lane))
                if stop <= start:
                    continue
                for cid in host.dropped_ids(lane, start, stop):
                    if cid not in self._dropped_set:
                        self._dropped_set.add(cid)
                        self.dropped_ids.append(cid)
                        new.append(cid)
                self._scan[lane] = stop
        return new

    def _pushable(self, lane: int, want: int) -> int:
        """How many of ``want`` messages may be written into ``lane`` now (send lock held).

        A write reuses the slot of the message ``capacity`` sequences earlier; a dropped
        message there must have been recorded first. Once the drop floor is raised, the
        device may drop more at any moment, so writes stop at what was scanned.
        """
        host = self.host
        floor = host.floor(lane)
        if floor <= self._scan[lane]:
            return want
        self._harvest_drops()
        old = host.head(lane) - self.rings.capacity  # sequence of the first slot reused
        if old >= floor:
            return want
        return max(0, min(want, self._scan[lane] - old))

    # -- sending ------------------------------------------------------------------------
    def _full_error(self, lane: int, op: str, waited: float | None, accepted=None, dropped=()):
        why = (
            "backpressure 'reject'"
            if waited is None
            else f"no progress of the device for {waited} s (backpressure {self.backpressure!r})"
        )
        lane_name = "high" if lane == HIGH else "normal"
        exc = RingFullError(
            f"[{op} {self.kernel_id}] expected room in the {lane_name} queue, got "
            f"{self.host.pending(lane)}/{self.rings.capacity} slots taken; {why}; "
            + self._describe()
        )
        exc.accepted = accepted if accepted is not None else np.zeros(0, np.int64)
        exc.dropped = list(dropped)
        return exc

    def _drain(self) -> None:
        """Move ready replies aside (a full reply ring must never stall the device).

        Consumers hold their lock for short moves only (never while they sleep), so the
        wait is short; the lock is taken by ``with`` (an interrupt never leaves it held).
        """
        if self.host.replies_ready():
            with self._recv_lock:
                self._fill(1 << 30)

    def send(self, message: Any = None, /, *, priority: Any = NORMAL, **fields: Any) -> int:
        """Send one request; return its correlation id.

        Args:
            message: A dict, a tuple in field order or a record; or use keyword fields.
                Fields left out are 0.
            priority: "high"/0 or "normal"/1 (the device always serves high first).
            **fields: Request fields by name.

        Returns:
            The message's correlation id (unique per kernel, from 1 up).

        Raises:
            ValueError: unknown field. TypeError: a value that does not fit its field.
            RingFullError: no room ("reject"; "block" or "drop_oldest" when the device
                made no progress for ``block_timeout`` s).
            RingStateError: the kernel is terminated or its device loop failed.
        """
        lane, values = self._parse(message, priority, fields)
        return self._send_one(lane, values, None)

    def _parse(
        self, message: Any, priority: Any, fields: dict, op: str = "send"
    ) -> tuple[int, tuple]:
        """The lane and the request values of a send (raises on a bad field or priority)."""
        if message is None and len(fields) == self._format.nfields:
            try:  # the common case: every field by keyword
                values = tuple([fields[n] for n in self._names])
            except KeyError:
                values = self._format.values(message, fields, op)
        else:
            values = self._format.values(message, fields, op)
        lane = LANES.get(priority) if type(priority) is str or type(priority) is int else None
        if lane is None:
            lane = self._format.lane(priority, op)  # raises the error
        if self._format.bools:  # struct packs any object into a bool: check those first
            for i in self._format.bools:
                v = values[i]
                if v is not True and v is not False:
                    self._format.check_values(values, op)
                    break
        return lane, values

    def _send_one(
        self, lane: int, values: tuple, reserve: list[int] | None, op: str = "send"
    ) -> int:
        """Push one message; with ``reserve`` its reply is kept for the caller's ``call``.

        The id is reserved before the message is published, so no ``receive`` in another
        thread can take the reply a ``call`` waits for; it is written to ``reserve[0]``
        first, so that the caller's ``finally`` frees it however the call ends.
        """
        words = self._words
        with self._send_lock:
            words[D_SENDING] = 1  # the compiled call (pdc.ring.fast) keeps off the rings
            try:
                return self._send_one_locked(lane, values, reserve, op)
            finally:
                words[D_SENDING] = 0

    def _send_one_locked(self, lane: int, values: tuple, reserve: list[int] | None, op: str) -> int:
        if self._terminated or self.host.state() == S_TERMINATED:  # refuse: none can come
            try:
                self._alive_check(op)
            except RingStateError:
                self.host.add(REJECTED)
                raise
        corr = self._next
        if reserve is not None:
            reserve[0] = corr
            self._awaited.add(corr)
        try:
            # Only drop_oldest raises drop floors: other modes skip the check.
            if self._dropping and not self._pushable(lane, 1):
                return self._send_full(lane, corr, values, op)
            # Advance first: an interrupt inside push can waste an id, never reuse one.
            self._next = corr + 1
            try:
                pushed = self.host.push(lane, corr, values)
            except (TypeError, ValueError, OverflowError):
                self._next = corr  # nothing was written
                self._format.check_values(values, op)  # raises, naming the field
                raise
            if pushed:
                self.engine.wake()
                return corr
            self._next = corr
            return self._send_full(lane, corr, values, op)
        except BaseException:
            self._awaited.discard(corr)  # not sent, or its caller gave up: free
            raise

    def _send_full(self, lane: int, corr: int, values: tuple, op: str) -> int:
        """The slow path of ``send`` (send lock held): wait, drop or refuse.

        A drop this send asked for is withdrawn when the send is refused: a refused
        message never costs a waiting one its place.
        """
        host = self.host
        self._format.check_values(values, op)  # a bad value raises before anything waits
        try:
            self._alive_check(op)
        except RingStateError:
            host.add(REJECTED)
            raise
        floor = host.floor(lane)
        try:
            return self._send_wait(lane, corr, values, op)
        except BaseException:
            if self._dropping:
                host.withdraw_drop(lane, floor)
                self._harvest_drops()
            raise

    def _send_wait(self, lane: int, corr: int, values: tuple, op: str) -> int:
        host = self.host
        if self.backpressure == "reject":
            host.add(REJECTED)
            raise self._full_error(lane, op, None)
        if self.backpressure == "block":
            host.add(BLOCKED)
        waiter = Waiter(self.block_timeout, self._spin)
        while True:
            if self.backpressure == "drop_oldest" and host.free(lane) <= 0:
                host.request_drop(lane, 1)
            self._next = corr + 1
            if self._pushable(lane, 1) and host.push(lane, corr, values):
                self.engine.wake()
                if self.backpressure == "drop_oldest":
                    self._harvest_drops()
                return corr
            self._next = corr
            if self._dead():
                host.add(REJECTED)
                self._alive_check(op)
            waiter.progress(host.tail(lane))
            if waiter.expired():
                host.add(REJECTED)
                raise self._full_error(lane, op, self.block_timeout)
            self._drain()
            self.engine.wake()
            waiter.wait()

    def send_batch(self, batch: np.ndarray, *, priority: Any = NORMAL) -> np.ndarray:
        """Send a 1-D structured array of requests; return their correlation ids.

        With backpressure "reject" the batch is accepted whole or refused whole. With
        "block" and "drop_oldest" the send waits while the device makes progress; when it
        makes none for ``block_timeout`` s, ``RingFullError`` carries the ids sent so far in
        ``accepted`` (the rest were refused). With "drop_oldest" the ids of the messages
        dropped to make room are added to ``dropped_ids`` (and, on error, ``dropped``).

        Raises:
            RingFullError: see above. RingStateError: terminated or failed kernel.
        """
        batch = self._format.check_batch(batch, "send_batch")
        lane = self._format.lane(priority)
        words = self._words
        with self._send_lock:
            words[D_SENDING] = 1  # the compiled call (pdc.ring.fast) keeps off the rings
            try:
                return self._send_batch_locked(batch, lane)
            finally:
                words[D_SENDING] = 0

    def _send_batch_locked(self, batch: np.ndarray, lane: int) -> np.ndarray:
        host = self.host
        n = len(batch)
        try:
            self._alive_check("send_batch")
        except RingStateError:
            host.add(REJECTED, n)
            raise
        self._harvest_drops()
        start = self._next
        ids = np.arange(start, start + n, dtype=np.int64)
        if self.backpressure == "reject" and host.free(lane) < n:
            host.add(REJECTED, n)
            raise self._full_error(lane, "send_batch", None)
        self._next = start + n  # reserved: an interrupt can waste ids, never reuse one
        done, waiter, before = 0, None, len(self.dropped_ids)
        while done < n:
            m = self._pushable(lane, n - done)
            k = host.push_batch(lane, ids[done : done + m], batch[done : done + m])
            done += k
            if k:
                self.engine.wake()
            if done == n:
                break
            if waiter is None:
                waiter = Waiter(self.block_timeout, self._spin)
                if self.backpressure == "block":
                    host.add(BLOCKED)
            if self._dead():
                self._next = start + done
                host.add(REJECTED, n - done)
                self._alive_check("send_batch")
            if self.backpressure == "drop_oldest":
                if host.free(lane) <= 0:
                    host.request_drop(lane, min(n - done, self.rings.capacity))
                self._harvest_drops()
            waiter.progress(host.tail(lane))
            if waiter.expired():
                self._next = start + done
                host.add(REJECTED, n - done)
                self._harvest_drops()
                raise self._full_error(
                    lane,
                    "send_batch",
                    self.block_timeout,
                    ids[:done],
                    self.dropped_ids[before:],
                )
            self._drain()
            self.engine.wake()
            waiter.wait()
        if self.backpressure == "drop_oldest":
            self._harvest_drops()
        return ids

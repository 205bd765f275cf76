"""The producer side of a ring kernel: send, send_batch, backpressure and drop reports.

``Producer`` owns the kernel's producer lock and its invariant: correlation ids are handed
out, and the request rings written, only under that lock (or by the cpu backend's compiled
call, which keeps off the rings while ``words[D_SENDING]`` is raised under it), so no id is
handed out twice and no slot is written twice. A send that must wait (backpressure
"block", or "drop_oldest" waiting for the device to drop) waits while the device makes
progress and gives up, raising ``RingFullError`` counted in ``rejected``, only after
``block_timeout`` seconds without any; a refused "drop_oldest" send withdraws the drop it
asked for. Messages the device dropped are looked up before their slots are reused, so
every dropped id is reported (``pdc.ring.host.drops``).
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

import numpy as np

from pdc.ring.host.drops import Drops
from pdc.ring.host.life import Life
from pdc.ring.host.messages import LANES, RequestFormat
from pdc.ring.host.waiting import Waiter
from pdc.ring.protocol import (
    BLOCKED,
    D_NEXT,
    D_SENDING,
    DESC_WORDS,
    HIGH,
    NORMAL,
    REJECTED,
    S_TERMINATED,
    RingFullError,
    RingStateError,
)

__all__ = ["Producer", "ReplySide"]


class ReplySide(Protocol):
    """What a producer needs of the kernel's consumer (``pdc.ring.host.consumer``)."""

    awaited: set[int]  # ids whose replies calls wait for: reserved here, before publishing

    def drain(self) -> None: ...  # move ready replies aside while a send waits
    def describe(self) -> str: ...  # the state and messages in flight, for errors


class Producer:
    """Every send of one kernel, serialised by one lock (see the module docstring).

    Args:
        kernel_id: Named in errors.
        host: The kernel's ``RingHost``.
        engine: The kernel's engine (woken after every push).
        life: The kernel's liveness.
        drops: The kernel's dropped ids ("drop_oldest").
        consumer: The kernel's consumer: a waiting send moves ready replies aside into
            its stash, and a call's reservation (``awaited``) is made here, before its
            message is published.
        backpressure: "reject", "block" or "drop_oldest".
        block_timeout: Seconds without progress of the device before a send gives up.
        words: The descriptor of the cpu backend's compiled call (``pdc.ring.host.fast``),
            whose ``D_NEXT`` and ``D_SENDING`` words this producer shares; None: own words.
        spin: Polls before a waiting send starts to yield and sleep.

    Attributes:
        lock: The producer lock.
    """

    def __init__(
        self,
        kernel_id: str,
        host: Any,
        engine: Any,
        life: Life,
        drops: Drops,
        consumer: ReplySide,
        backpressure: str,
        block_timeout: float,
        words: Any = None,
        spin: int = 0,
    ):
        self.kernel_id = kernel_id
        self.host = host
        self.rings = host.rings
        self.engine = engine
        self.life = life
        self.drops = drops
        self.consumer = consumer
        self.awaited = consumer.awaited
        self.backpressure = backpressure
        self.block_timeout = block_timeout
        self.dropping = backpressure == "drop_oldest"
        self.spin = spin
        # The next correlation id, and the flag of a generic producer at work: words of
        # the compiled call's descriptor where there is one, so that it can use them.
        self.words = words if words is not None else [0] * DESC_WORDS
        self.words[D_NEXT] = 1
        self.names: tuple[str, ...] = host.request_fields
        self.format = RequestFormat(self.rings.request_dtype, self.names, kernel_id)
        self.lock = threading.Lock()

    @property
    def next_id(self) -> int:
        """The correlation id the next message gets (read and written under the lock)."""
        return self.words[D_NEXT]

    @next_id.setter
    def next_id(self, value: int) -> None:
        self.words[D_NEXT] = value

    def undelivered(self) -> list[int]:
        """The ids of the messages still waiting, with every send kept off the rings.

        For ``terminate``: producers see ``life.terminated`` and give up the lock at once
        (taken by ``with``: an interrupt never leaves it held), and the raised flag keeps
        the compiled call out, so no send is accepted after this.
        """
        words = self.words
        with self.lock:
            words[D_SENDING] = 1  # nor a compiled call
            try:
                self.drops.harvest()
                return self.host.waiting_ids(HIGH) + self.host.waiting_ids(NORMAL)
            finally:
                words[D_SENDING] = 0

    # -- sending ------------------------------------------------------------------------
    def full_error(self, lane: int, op: str, waited: float | None, accepted=None, dropped=()):
        why = (
            "backpressure 'reject'"
            if waited is None
            else f"no progress of the device for {waited} s (backpressure {self.backpressure!r})"
        )
        lane_name = "high" if lane == HIGH else "normal"
        exc = RingFullError(
            f"[{op} {self.kernel_id}] expected room in the {lane_name} queue, got "
            f"{self.host.pending(lane)}/{self.rings.capacity} slots taken; {why}; "
            + self.consumer.describe()
        )
        exc.accepted = accepted if accepted is not None else np.zeros(0, np.int64)
        exc.dropped = list(dropped)
        return exc

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
        lane, values = self.parse(message, priority, fields)
        return self.send_one(lane, values, None)

    def parse(
        self, message: Any, priority: Any, fields: dict, op: str = "send"
    ) -> tuple[int, tuple]:
        """The lane and the request values of a send (raises on a bad field or priority)."""
        if message is None and len(fields) == self.format.nfields:
            try:  # the common case: every field by keyword
                values = tuple([fields[n] for n in self.names])
            except KeyError:
                values = self.format.values(message, fields, op)
        else:
            values = self.format.values(message, fields, op)
        lane = LANES.get(priority) if type(priority) is str or type(priority) is int else None
        if lane is None:
            lane = self.format.lane(priority, op)  # raises the error
        if self.format.bools:  # struct packs any object into a bool: check those first
            for i in self.format.bools:
                v = values[i]
                if v is not True and v is not False:
                    self.format.check_values(values, op)
                    break
        return lane, values

    def send_one(
        self, lane: int, values: tuple, reserve: list[int] | None, op: str = "send"
    ) -> int:
        """Push one message; with ``reserve`` its reply is kept for the caller's ``call``.

        The id is reserved before the message is published, so no ``receive`` in another
        thread can take the reply a ``call`` waits for; it is written to ``reserve[0]``
        first, so that the caller's ``finally`` frees it however the call ends.
        """
        words = self.words
        with self.lock:
            words[D_SENDING] = 1  # the compiled call (pdc.ring.host.fast) keeps off the rings
            try:
                return self._send_one_locked(lane, values, reserve, op)
            finally:
                words[D_SENDING] = 0

    def _send_one_locked(self, lane: int, values: tuple, reserve: list[int] | None, op: str) -> int:
        if self.life.terminated or self.host.state() == S_TERMINATED:  # refuse: none can come
            try:
                self.life.check(op)
            except RingStateError:
                self.host.add(REJECTED)
                raise
        corr = self.next_id
        if reserve is not None:
            reserve[0] = corr
            self.awaited.add(corr)
        try:
            # Only drop_oldest raises drop floors: other modes skip the check.
            if self.dropping and not self.drops.pushable(lane, 1):
                return self._send_full(lane, corr, values, op)
            # Advance first: an interrupt inside push can waste an id, never reuse one.
            self.next_id = corr + 1
            try:
                pushed = self.host.push(lane, corr, values)
            except (TypeError, ValueError, OverflowError):
                self.next_id = corr  # nothing was written
                self.format.check_values(values, op)  # raises, naming the field
                raise
            if pushed:
                self.engine.wake()
                return corr
            self.next_id = corr
            return self._send_full(lane, corr, values, op)
        except BaseException:
            self.awaited.discard(corr)  # not sent, or its caller gave up: free
            raise

    def _send_full(self, lane: int, corr: int, values: tuple, op: str) -> int:
        """The slow path of ``send`` (send lock held): wait, drop or refuse.

        A drop this send asked for is withdrawn when the send is refused: a refused
        message never costs a waiting one its place.
        """
        host = self.host
        self.format.check_values(values, op)  # a bad value raises before anything waits
        try:
            self.life.check(op)
        except RingStateError:
            host.add(REJECTED)
            raise
        floor = host.floor(lane)
        try:
            return self._send_wait(lane, corr, values, op)
        except BaseException:
            if self.dropping:
                host.withdraw_drop(lane, floor)
                self.drops.harvest()
            raise

    def _send_wait(self, lane: int, corr: int, values: tuple, op: str) -> int:
        host = self.host
        if self.backpressure == "reject":
            host.add(REJECTED)
            raise self.full_error(lane, op, None)
        if self.backpressure == "block":
            host.add(BLOCKED)
        waiter = Waiter(self.block_timeout, self.spin)
        while True:
            if self.backpressure == "drop_oldest" and host.free(lane) <= 0:
                host.request_room(lane, 1)
            self.next_id = corr + 1
            if self.drops.pushable(lane, 1) and host.push(lane, corr, values):
                self.engine.wake()
                if self.backpressure == "drop_oldest":
                    self.drops.harvest()
                return corr
            self.next_id = corr
            if self.life.dead():
                host.add(REJECTED)
                self.life.check(op)
            waiter.progress(host.tail(lane))
            if waiter.expired():
                host.add(REJECTED)
                raise self.full_error(lane, op, self.block_timeout)
            self.consumer.drain()
            self.engine.wake()
            waiter.wait()

    def send_batch(self, batch: np.ndarray, *, priority: Any = NORMAL) -> np.ndarray:
        """Send a 1-D structured array of requests; return their correlation ids.

        With backpressure "reject" the batch is accepted whole or refused whole. With
        "block" and "drop_oldest" the send waits while the device makes progress; when it
        makes none for ``block_timeout`` s, ``RingFullError`` carries the ids sent so far in
        ``accepted`` (the rest were refused). With "drop_oldest" the ids of the messages
        dropped to make room are added to the kernel's ``dropped_ids`` (and, on error, ``dropped``).

        Raises:
            RingFullError: see above. RingStateError: terminated or failed kernel.
        """
        batch = self.format.check_batch(batch, "send_batch")
        lane = self.format.lane(priority)
        words = self.words
        with self.lock:
            words[D_SENDING] = 1  # the compiled call (pdc.ring.host.fast) keeps off the rings
            try:
                return self._send_batch_locked(batch, lane)
            finally:
                words[D_SENDING] = 0

    def _send_batch_locked(self, batch: np.ndarray, lane: int) -> np.ndarray:
        host = self.host
        n = len(batch)
        try:
            self.life.check("send_batch")
        except RingStateError:
            host.add(REJECTED, n)
            raise
        self.drops.harvest()
        start = self.next_id
        ids = np.arange(start, start + n, dtype=np.int64)
        if self.backpressure == "reject" and host.free(lane) < n:
            host.add(REJECTED, n)
            raise self.full_error(lane, "send_batch", None)
        self.next_id = start + n  # reserved: an interrupt can waste ids, never reuse one
        done, waiter, before = 0, None, len(self.drops.ids)
        while done < n:
            m = self.drops.pushable(lane, n - done)
            k = host.push_batch(lane, ids[done : done + m], batch[done : done + m])
            done += k
            if k:
                self.engine.wake()
            if done == n:
                break
            if waiter is None:
                waiter = Waiter(self.block_timeout, self.spin)
                if self.backpressure == "block":
                    host.add(BLOCKED)
            if self.life.dead():
                self.next_id = start + done
                host.add(REJECTED, n - done)
                self.life.check("send_batch")
            if self.backpressure == "drop_oldest":
                if host.free(lane) <= 0:
                    host.request_room(lane, min(n - done, self.rings.capacity))
                self.drops.harvest()
            waiter.progress(host.tail(lane))
            if waiter.expired():
                self.next_id = start + done
                host.add(REJECTED, n - done)
                self.drops.harvest()
                raise self.full_error(
                    lane,
                    "send_batch",
                    self.block_timeout,
                    ids[:done],
                    self.drops.ids[before:],
                )
            self.consumer.drain()
            self.engine.wake()
            waiter.wait()
        if self.backpressure == "drop_oldest":
            self.drops.harvest()
        return ids

"""The receiving side of a ring kernel: receive, receive_batch, call (threads).

Every consumer takes the kernel's consumer lock only while it reads the reply ring or the
stash, never while it sleeps. A wait ends when its reply came, when its timeout ran out,
or at once when the kernel can no longer answer (terminated, or its loop failed) and no
reply is left for it. An exception raised in the middle of a read (Ctrl-C) puts back
what was taken: no reply is lost and the stash count stays exact.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from pdc.ring.handlers import HandlerSpec
from pdc.ring.protocol import (
    D_SENDING,
    HIGH,
    NORMAL,
    PY_EXCEPTION,
    RingError,
    RingHost,
    RingTimeoutError,
)
from pdc.ring.replies import Replies, Reply, Stash, concat
from pdc.ring.waiting import Waiter

if TYPE_CHECKING:
    from pdc.ring.fast import FastCall

__all__ = ["Receiving"]

_LANES = {"high": HIGH, "normal": NORMAL, HIGH: HIGH, NORMAL: NORMAL}


class Receiving:
    """Receive methods of ``RingKernel`` (a mixin: the attributes are the kernel's)."""

    kernel_id: str
    spec: HandlerSpec
    host: RingHost
    backpressure: str
    received: int
    _stash: Stash
    _errors: dict[int, str] | None
    _rep_names: tuple[str, ...]
    _pop_names: tuple[str, ...]
    _recv_lock: threading.Lock
    _send_lock: threading.Lock
    _spin: int
    _dropped_set: set[int]
    _fast: FastCall | None
    _dropping: bool
    _awaited: set[int]
    _terminated: bool
    _next: int
    _words: Any
    _nfields: int
    engine: Any

    if TYPE_CHECKING:  # defined by RingKernel

        def _dead(self) -> bool: ...
        def _describe(self) -> str: ...
        def _harvest_drops(self) -> list[int]: ...
        def send(self, message: Any = None, /, *, priority: Any = NORMAL, **fields: Any) -> int: ...
        def _send_one(self, lane: int, values: tuple, reserve: list[int] | None) -> int: ...
        def _parse(self, message: Any, priority: Any, fields: dict) -> tuple[int, tuple]: ...

    # -- under the consumer lock ------------------------------------------------------
    def _fill(self, limit: int) -> int:
        """Move up to ``limit`` ready replies from the ring into the stash."""
        corr, status, recs = self.host.pop_batch(limit)
        if len(corr):
            try:
                self._stash.add(corr, status, recs)
            finally:
                self._stash.recount()
        return len(corr)

    def _error_of(self, corr: int, status: int) -> str | None:
        if status == PY_EXCEPTION and self._errors:
            return self._errors.pop(corr, None)
        return None

    def _reply(self, item: tuple[int, int, np.void]) -> Reply:
        """The Reply of an item taken from the stash (put back if interrupted)."""
        corr, status, rec = item
        try:
            r = Reply(
                self.kernel_id,
                corr,
                status,
                self._rep_names,
                tuple(rec.item()),
                self._error_of(corr, status),
            )
        except BaseException:
            self._stash.push_front(corr, status, np.asarray(rec).reshape(1))
            raise
        self.received += 1
        return r

    def _take_next(self) -> Reply | None:
        """The next reply that no ``call`` waits for (those are kept for their callers)."""
        stash, awaited = self._stash, self._awaited
        if stash.count:
            try:
                item = stash.pop_free(awaited) if awaited else stash.popleft()
            except BaseException:
                stash.recount()
                raise
            if item is not None:
                return self._reply(item)
        while True:
            r = self.host.pop()
            if r is None:
                return None
            if not awaited or r[0] not in awaited:
                return self._popped(r)
            self._stash_values(*r)  # a call's reply: kept for it

    def _popped(self, r: tuple[int, int, tuple]) -> Reply:
        """The Reply of a reply just taken off the ring (kept if interrupted)."""
        try:
            corr, status, values = r
            error = self._error_of(corr, status) if status == PY_EXCEPTION else None
            reply = Reply(self.kernel_id, corr, status, self._pop_names, values, error)
            self.received += 1
            return reply
        except BaseException:  # interrupted after taking the reply off the ring: keep it
            self._stash_values(*r, front=True)
            raise

    def _stash_values(self, corr: int, status: int, values: tuple, front: bool = False) -> None:
        rec = np.zeros(1, self.spec.reply)
        rec[0] = tuple(values[self._pop_names.index(n)] for n in self._rep_names)
        if front:
            self._stash.push_front(corr, status, rec)
        else:
            self._stash.add(np.array([corr], np.int64), np.array([status], np.int64), rec)

    def _take_id(self, corr_id: int) -> Reply | None:
        """The reply to ``corr_id`` if it arrived (others are stashed in order)."""
        stash = self._stash
        if stash.count:
            try:
                item = stash.pop_id(corr_id)
            except BaseException:
                stash.recount()
                raise
            if item is not None:
                return self._reply(item)
        pop = self.host.pop
        while True:
            r = pop()
            if r is None:
                return None
            if r[0] == corr_id:
                return self._popped(r)
            try:
                self._stash_values(*r)
            except BaseException:
                self._stash.recount()
                if not self._stash.contains(r[0]):  # interrupted before it was kept
                    self._stash_values(*r, front=True)
                raise

    # -- public -----------------------------------------------------------------------
    def try_receive(self) -> Reply | None:
        """The next reply, or None when none is ready."""
        with self._recv_lock:
            return self._take_next()

    def _nothing_left(self) -> bool:
        """True when no reply can come any more (the device left and the ring is empty)."""
        return self._dead() and not self.host.replies_ready()

    def _timeout(self, op: str, timeout: float | None, what: str) -> RingTimeoutError:
        if self._nothing_left():
            return RingTimeoutError(
                f"[{op} {self.kernel_id}] expected {what}, got none and none can come: "
                + self._describe()
            )
        return RingTimeoutError(
            f"[{op} {self.kernel_id}] expected {what} within {timeout} s, got none; "
            + self._describe()
        )

    def receive(self, timeout: float | None = None, corr_id: int | None = None) -> Reply:
        """Wait for the next reply, or for the reply to message ``corr_id``.

        Replies that arrive before the one asked for are kept for later ``receive`` calls.

        Raises:
            RingTimeoutError: when the time ran out, or at once when the kernel is
                terminated (or failed) and has no reply left; names the kernel, its state
                and the messages in flight.
            RingError: when ``corr_id`` was dropped (backpressure "drop_oldest").
        """
        if corr_id is not None:
            return self._wait_for(int(corr_id), timeout, "receive")
        w = None
        while True:
            with self._recv_lock:
                r = self._take_next()
            if r is not None:
                return r
            if w is None:
                w = Waiter(timeout, self._spin)
            elif w.expired() or self._nothing_left():
                with self._recv_lock:  # a reply may have landed just before the device left
                    r = self._take_next()
                if r is not None:
                    return r
                raise self._timeout("receive", timeout, "a reply")
            w.wait()

    def receive_batch(self, n: int, timeout: float | None = None) -> Replies:
        """Wait for ``n`` replies; return them as arrays (``records`` has the reply dtype).

        Raises:
            RingTimeoutError: with ``partial`` holding the replies received, when the time
                ran out or the kernel can no longer answer.
        """
        n = int(n)
        if n < 0:
            raise ValueError(f"[receive_batch {self.kernel_id}] expected n >= 0, got {n}")
        parts: list = []
        got = 0
        w = None
        while got < n:
            with self._recv_lock:
                self._fill(n - got)
                try:
                    stash, awaited = self._stash, self._awaited
                    taken = stash.take_free(n - got, awaited) if awaited else stash.take(n - got)
                except BaseException:
                    self._stash.recount()
                    raise
                k = sum(len(p[0]) for p in taken)
                self.received += k
                if self._errors:  # texts go with single replies only: forget these
                    for p in taken:
                        for c in p[0][p[1] == PY_EXCEPTION].tolist():
                            self._errors.pop(c, None)
            parts.extend(taken)
            got += k
            if got >= n:
                break
            if w is None:
                w = Waiter(timeout, self._spin)
            if k:
                continue
            if w.expired() or (self._nothing_left() and not self._stash.count):
                exc = self._timeout("receive_batch", timeout, f"{n} replies (got {got})")
                exc.partial = concat(parts, self.spec.reply)
                raise exc
            w.wait()
        return concat(parts, self.spec.reply)

    def call(
        self,
        message: Any = None,
        /,
        *,
        timeout: float | None = None,
        check: bool = True,
        priority: Any = NORMAL,
        **fields: Any,
    ) -> Reply:
        """Send one request and wait for its own reply (others are kept for ``receive``).

        Raises:
            RingHandlerError: when ``check`` and the handler returned an error code.
            RingTimeoutError: when no reply came within ``timeout``, or at once when the
                kernel can no longer answer.
        """
        fast = self._fast
        reserved = [0]  # the id this call reserved (receive skips it): freed however it ends
        try:
            if fast is not None and message is None and not self._dropping:
                got = self._fast_call(fast, priority, fields, reserved)
                if got is not None:
                    if isinstance(got, int):  # sent; its reply was not next: wait for it
                        got = self._wait_for(got, timeout)
                    return got.raise_for_status() if check else got
            lane, values = self._parse(message, priority, fields)
            corr = self._send_one(lane, values, reserved)
            r = self._wait_for(corr, timeout)
        finally:
            if reserved[0]:
                self._awaited.discard(reserved[0])
        return r.raise_for_status() if check else r

    def _fast_call(
        self, fast: FastCall, priority: Any, fields: dict, reserved: list[int]
    ) -> Reply | int | None:
        """``call`` by one compiled call (``pdc.ring.fast``): the reply, or an id, or None.

        Returns the Reply when it came within the call's polls; the message's id when it
        was sent but its reply was not next (the caller waits for it the generic way);
        None when nothing was sent (full lane, terminated loop, a value that does not fit):
        the caller sends the generic way, which waits, raises or drops as the kernel's
        rules say. Replies kept aside for ``receive`` stay there: a call's reply is its own.
        """
        try:
            values = fast.values(fields)
        except KeyError:
            return None
        if len(fields) != self._nfields:
            return None
        lane = _LANES.get(priority) if type(priority) is str or type(priority) is int else None
        if lane is None:
            return None
        with self._send_lock, self._recv_lock:
            # No producer works while this one holds their lock: a flag an interrupt left
            # raised is lowered (it only sent quick calls this way).
            self._words[D_SENDING] = 0
            if self._terminated:
                return None
            try:
                # ``locked``: this caller holds the producer lock, whatever D_SENDING says.
                r = fast.call(fast.addr, lane, 1, fast.polls, *values)
                code = r[0]
                if code == 2:  # replied: the reply is off the ring and held until handed out
                    corr, status = r[1], r[2]
                    error = self._error_of(corr, status) if status == PY_EXCEPTION else None
                    reply = Reply(self.kernel_id, corr, status, self._pop_names, r[3:], error)
                    # Released and counted in one line: an interrupt lands before both
                    # (the reply goes back to the stash) or after both (it was handed out).
                    fast.words[fast.HELD], self.received = 0, self.received + 1
                    return reply
            except fast.refused:  # numba took no argument: nothing was written
                return None
            except BaseException:  # interrupted after the reply was taken: keep it
                self._unhold(fast)
                raise
            if code != 1:  # nothing written: the generic path raises or waits
                return None
            corr = r[1]
            reserved[0] = corr  # sent: its reply is this call's (receive skips it)
            self._awaited.add(corr)
        self.engine.wake()
        return corr

    def _unhold(self, fast: FastCall) -> None:
        """Put a reply the compiled call took, and nobody was handed, back in the stash."""
        held = fast.held()
        if held is not None:
            corr, status, rec = held
            out = np.zeros(1, self.spec.reply)
            out[0] = tuple(rec[n] for n in self._rep_names)
            self._stash.push_front(corr, status, out)

    def _gone(self, corr: int, op: str) -> None:
        """Raise if the reply to ``corr`` can never come (dropped)."""
        if corr in self._dropped_set or (
            self.backpressure == "drop_oldest" and corr in self._harvest_drops()
        ):
            raise RingError(
                f"[{op} {self.kernel_id}] expected a reply to message {corr}, got none: it was "
                "dropped (backpressure 'drop_oldest')"
            )

    def _wait_for(self, corr: int, timeout: float | None, op: str = "call") -> Reply:
        self._gone(corr, op)
        w = None
        while True:
            with self._recv_lock:
                r = self._take_id(corr)
            if r is not None:
                return r
            if w is None:
                w = Waiter(timeout, self._spin)
            elif w.expired() or self._nothing_left():
                with self._recv_lock:
                    r = self._take_id(corr)
                if r is not None:
                    return r
                self._gone(corr, op)
                raise self._timeout(op, timeout, f"the reply to message {corr}")
            elif self.backpressure == "drop_oldest":
                self._gone(corr, op)
            w.wait()

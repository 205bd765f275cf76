"""The receiving side of a ring kernel: receive, receive_batch, call (threads).

Every consumer takes the kernel's consumer lock only while it reads the reply ring or the
stash, never while it sleeps. A wait ends when its reply came, when its timeout ran out,
or at once when the kernel can no longer answer (terminated, or its loop failed) and no
reply is left for it.

Replies are handed out only from the stash (``pdc.ring.stash``): an operation claims its
reply into a ``box`` of its own, builds the result, and empties the box just before it
returns, with no signal check in between; an exception anywhere before (Ctrl-C, a
timeout, a bad argument) puts the claimed replies back. No reply is lost, none is handed
out twice, and the consumer lock is only ever held by ``with``.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from pdc.ring.args import count_arg, id_arg, seconds_arg
from pdc.ring.handlers import HandlerSpec
from pdc.ring.host import RingHost
from pdc.ring.protocol import (
    NORMAL,
    PY_EXCEPTION,
    RingError,
    RingTimeoutError,
)
from pdc.ring.replies import Replies, Reply, concat
from pdc.ring.stash import Stash
from pdc.ring.waiting import Waiter

if TYPE_CHECKING:
    from pdc.ring.fast import FastCall

__all__ = ["Receiving"]


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
    engine: Any

    if TYPE_CHECKING:  # defined by RingKernel

        def _dead(self) -> bool: ...
        def _describe(self) -> str: ...
        def _harvest_drops(self) -> list[int]: ...
        def send(self, message: Any = None, /, *, priority: Any = NORMAL, **fields: Any) -> int: ...
        def _send_one(
            self, lane: int, values: tuple, reserve: list[int] | None, op: str = "send"
        ) -> int: ...
        def _parse(
            self, message: Any, priority: Any, fields: dict, op: str = "send"
        ) -> tuple[int, tuple]: ...

    # -- under the consumer lock ------------------------------------------------------
    def _fill(self, limit: int) -> int:
        """Move up to ``limit`` ready replies from the ring into the stash."""
        return self._stash.fill(self.host, limit)

    def _claim_next(self, box: list) -> bool:
        """Claim the next reply no ``call`` waits for into ``box[0]``; False if none."""
        st = self._stash
        st.settle(self.host)
        found = st.find_next(self._awaited) if st.count else None
        if found is None:
            if not st.fill(self.host, 1 << 30):
                return False
            found = st.find_next(self._awaited)
            if found is None:
                return False
        chunk, i = found
        # One statement, no signal check inside: taken and noted in the box together.
        box[0], chunk.taken[i], st.count, self.received = (
            found,
            True,
            st.count - 1,
            self.received + 1,
        )
        if chunk.first == i:
            chunk.first = i + 1  # a hint: nothing before it is untaken
        return True

    def _claim_id(self, box: list, corr_id: int) -> bool:
        """Claim the reply to ``corr_id`` into ``box[0]``; False if it has not come."""
        st = self._stash
        st.settle(self.host)
        found = st.find_id(corr_id) if st.count else None
        if found is None:
            if not st.fill(self.host, 1 << 30):
                return False
            found = st.find_id(corr_id)
            if found is None:
                return False
        chunk, i = found
        box[0], chunk.taken[i], st.count, self.received = (
            found,
            True,
            st.count - 1,
            self.received + 1,
        )
        return True

    def _unclaim(self, box: list) -> None:
        """Put back the reply in ``box[0]`` (an operation that did not hand it out)."""
        found = box[0]
        if found is None:
            return
        with self._recv_lock:
            self._stash.settle(self.host)
            self.received -= self._stash.unclaim(*found)
        box[0] = None

    def _restore(self, reply: Reply) -> None:
        """Put back a Reply its caller never got (a cancelled waiter, an interrupt)."""
        rec = np.zeros(1, self.spec.reply)
        rec[0] = tuple(reply.values[n] for n in self._rep_names)
        with self._recv_lock:
            self._stash.settle(self.host)
            self._stash.restore(reply.corr_id, reply.status, rec)
            self.received -= 1
            if reply.error is not None and self._errors is not None:
                self._errors[reply.corr_id] = reply.error

    def _reply_of(self, found: tuple) -> Reply:
        """The Reply of a claimed reply (it stays claimed: the caller hands it out)."""
        chunk, i = found
        corr = int(chunk.corr[i])
        status = int(chunk.status[i])
        errors = self._errors
        error = errors.get(corr) if errors and status == PY_EXCEPTION else None
        return Reply(self.kernel_id, corr, status, self._rep_names, chunk.recs[i].item(), error)

    def _error_of(self, corr: int, status: int) -> str | None:
        if status == PY_EXCEPTION and self._errors:
            return self._errors.get(corr)
        return None

    # -- public -----------------------------------------------------------------------
    def try_receive(self) -> Reply | None:
        """The next reply, or None when none is ready."""
        box: list = [None]
        try:
            with self._recv_lock:
                if not self._claim_next(box):
                    return None
            reply = self._reply_of(box[0])
            errors = self._errors
            if errors and reply.corr_id in errors:
                del errors[reply.corr_id]
            box[0] = None  # handed out: no signal check between here and the return
            return reply
        except BaseException:
            self._unclaim(box)
            raise

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

        Args:
            timeout: Seconds to wait (None: no limit).
            corr_id: The id of the message whose reply to wait for (None: any reply no
                ``call`` waits for).

        Returns:
            The reply.

        Raises:
            TypeError, ValueError: a bad ``timeout`` or ``corr_id``.
            RingTimeoutError: when the time ran out, or at once when the kernel is
                terminated (or failed) and has no reply left; names the kernel, its state
                and the messages in flight.
            RingError: when ``corr_id`` was dropped (backpressure "drop_oldest").
        """
        timeout = seconds_arg("receive", self.kernel_id, "timeout", timeout)
        box: list = [None]
        try:
            if corr_id is not None:
                corr = id_arg("receive", self.kernel_id, corr_id)
                self._wait_claim(box, corr, timeout, "receive")
            else:
                self._wait_any(box, timeout)
            reply = self._reply_of(box[0])
            errors = self._errors
            if errors and reply.corr_id in errors:
                del errors[reply.corr_id]
            box[0] = None  # handed out: no signal check between here and the return
            return reply
        except BaseException:
            self._unclaim(box)
            raise

    def _wait_any(self, box: list, timeout: float | None) -> None:
        w = None
        while True:
            with self._recv_lock:
                if self._claim_next(box):
                    return
            if w is None:
                w = Waiter(timeout, self._spin)
            elif w.expired() or self._nothing_left():
                with self._recv_lock:  # a reply may have landed just before the device left
                    if self._claim_next(box):
                        return
                raise self._timeout("receive", timeout, "a reply")
            w.wait()

    def receive_batch(self, n: int, timeout: float | None = None) -> Replies:
        """Wait for ``n`` replies; return them as arrays (``records`` has the reply dtype).

        Args:
            n: How many replies (an integer >= 0).
            timeout: Seconds without progress before giving up (None: no limit).

        Returns:
            The replies, in the order the device handled them.

        Raises:
            TypeError, ValueError: a bad ``n`` or ``timeout``.
            RingTimeoutError: with ``partial`` holding the replies received, when the time
                ran out or the kernel can no longer answer.
        """
        n = count_arg("receive_batch", self.kernel_id, "n", n)
        timeout = seconds_arg("receive_batch", self.kernel_id, "timeout", timeout)
        claims: dict[int, tuple] = {}  # the replies claimed so far, in order
        try:
            got = 0
            w = None
            while got < n:
                before = got
                with self._recv_lock:
                    st = self._stash
                    st.fill(self.host, n - got)
                    for chunk, idx in st.find_free(n - got, self._awaited):
                        key, m = len(claims), len(idx)
                        # One statement: taken, noted and counted together.
                        claims[key], chunk.taken[idx], st.count, self.received, got = (
                            (chunk, idx),
                            True,
                            st.count - m,
                            self.received + m,
                            got + m,
                        )
                if got >= n:
                    break
                if w is None:
                    w = Waiter(timeout, self._spin)
                if got > before:
                    continue
                if w.expired() or (self._nothing_left() and not self._stash.count):
                    exc = self._timeout("receive_batch", timeout, f"{n} replies (got {got})")
                    exc.partial = self._batch_of(claims)
                    claims = {}  # handed out with the error
                    raise exc
                w.wait()
            out = self._batch_of(claims)
            claims = {}  # handed out: no signal check between here and the return
            return out
        except BaseException:
            for chunk, idx in claims.values():
                self._unclaim([(chunk, idx)])
            raise

    def _batch_of(self, claims: dict[int, tuple]) -> Replies:
        parts = [(c.corr[idx], c.status[idx], c.recs[idx]) for c, idx in claims.values()]
        out = concat(parts, self.spec.reply)
        errors = self._errors
        if errors:  # texts go with single replies only: forget these
            for c in out.corr_ids[out.status == PY_EXCEPTION].tolist():
                errors.pop(c, None)
        return out

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

        Args:
            message: A dict, a tuple in field order or a record; or use keyword fields.
            timeout: Seconds to wait for the reply (None: no limit).
            check: Raise ``RingHandlerError`` for a reply with a non-zero status.
            priority: "high"/0 or "normal"/1.
            **fields: Request fields by name.

        Returns:
            The reply to this request.

        Raises:
            TypeError, ValueError: a bad field value, priority or timeout.
            RingHandlerError: when ``check`` and the handler returned an error code.
            RingTimeoutError: when no reply came within ``timeout``, or at once when the
                kernel can no longer answer.
        """
        box: list = [None]
        reserved = [0]  # the id this call reserved (receive skips it): freed however it ends
        try:
            reply, failure = self._call_claim(
                box, reserved, message, timeout, check, priority, fields
            )
            self._awaited.discard(reserved[0])
            reserved[0] = 0
            errors = self._errors
            if errors and reply.corr_id in errors:
                del errors[reply.corr_id]
            box[0] = None  # handed out: no signal check between here and the return
            if failure is not None:
                raise failure
            return reply
        except BaseException:
            self._unclaim(box)
            if reserved[0]:
                self._awaited.discard(reserved[0])
            raise

    def _call_claim(
        self,
        box: list,
        reserved: list[int],
        message: Any,
        timeout: Any,
        check: bool,
        priority: Any,
        fields: dict,
    ) -> tuple[Reply, Exception | None]:
        """Send, reserve the id in ``reserved[0]`` and claim the reply into ``box[0]``.

        Returns the Reply and the error ``check`` asks to raise; the caller hands them out
        (and puts the claim back, and frees the id, if it cannot).
        """
        timeout = seconds_arg("call", self.kernel_id, "timeout", timeout)
        lane, values = self._parse(message, priority, fields, "call")
        corr = self._send_one(lane, values, reserved, "call")
        self._wait_claim(box, corr, timeout, "call")
        reply = self._reply_of(box[0])
        return reply, (reply.failure() if check else None)

    def _unhold(self, fast: FastCall) -> None:
        """Put a reply the compiled call took, and nobody was handed, back in the stash."""
        held = fast.held()
        if held is not None:
            corr, status, rec = held
            out = np.zeros(1, self.spec.reply)
            out[0] = tuple(rec[n] for n in self._rep_names)
            self._stash.restore(corr, status, out)

    def _gone(self, corr: int, op: str) -> None:
        """Raise if the reply to ``corr`` can never come (dropped)."""
        if corr in self._dropped_set or (
            self.backpressure == "drop_oldest" and corr in self._harvest_drops()
        ):
            raise RingError(
                f"[{op} {self.kernel_id}] expected a reply to message {corr}, got none: it was "
                "dropped (backpressure 'drop_oldest')"
            )

    def _wait_claim(self, box: list, corr: int, timeout: float | None, op: str) -> None:
        """Wait until the reply to ``corr`` is claimed into ``box[0]``."""
        self._gone(corr, op)
        w = None
        while True:
            with self._recv_lock:
                if self._claim_id(box, corr):
                    return
            if w is None:
                w = Waiter(timeout, self._spin)
            elif w.expired() or self._nothing_left():
                with self._recv_lock:
                    if self._claim_id(box, corr):
                        return
                self._gone(corr, op)
                raise self._timeout(op, timeout, f"the reply to message {corr}")
            elif self.backpressure == "drop_oldest":
                self._gone(corr, op)
            w.wait()

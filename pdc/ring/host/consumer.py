"""The consumer side of a ring kernel: receive, receive_batch, call (threads).

``Consumer`` owns the kernel's consumer lock and its invariant: every reply is in exactly
one place (the reply ring, the stash, the box of the operation that claimed it, or with
its caller). The lock is held while the reply ring or the stash is read, never during a
sleep. A wait ends when its reply came, when its timeout ran out, or at once when the
kernel can no longer answer and no reply is left for it.

Replies are handed out only from the stash (``pdc.ring.host.stash``): an operation claims
its reply into a ``box`` of its own and empties the box just before it returns, with no
signal check in between; an exception before that (Ctrl-C, a timeout, a bad argument)
puts the claims back. A ``call`` reserves its id (``awaited``) before its message is
published, so that no ``receive`` in another thread takes the reply it waits for.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from pdc.ring.host.drops import Drops
from pdc.ring.host.life import Life
from pdc.ring.host.replies import Replies, Reply, concat
from pdc.ring.host.stash import Stash
from pdc.ring.host.waiting import Waiter
from pdc.ring.protocol import NORMAL, PY_EXCEPTION, RingTimeoutError
from pdc.ring.protocol.args import count_arg, id_arg, seconds_arg

if TYPE_CHECKING:
    from pdc.ring.host.producer import Producer

__all__ = ["Consumer"]


class Consumer:
    """Every receive of one kernel, and the replies of its calls (see the module docstring).

    Args:
        kernel_id: Named in errors.
        host, engine, life: The kernel's ``RingHost``, engine and liveness.
        drops: The kernel's dropped ids (a reply to a dropped message never comes).
        reply: The reply dtype.
        dropping: True for backpressure "drop_oldest" (look for new drops while waiting).
        spin: Polls before a wait starts to yield and sleep.

    Attributes:
        lock: The consumer lock.
        stash: Replies taken off the ring and not yet handed out.
        awaited: Ids whose replies a ``call`` waits for: ``receive`` skips them.
        received: Replies handed out so far.
        errors: The texts of Python handlers' exceptions by id (cpu backend), or None.
        ports: The asyncio side's port per event loop (``pdc.ring.host.aio``).
    """

    #: The kernel's producer (a ``call`` sends through it), set by the kernel.
    producer: Producer

    def __init__(
        self,
        kernel_id: str,
        host: Any,
        engine: Any,
        life: Life,
        drops: Drops,
        reply: np.dtype,
        dropping: bool,
        spin: int = 0,
    ):
        self.kernel_id = kernel_id
        self.host = host
        self.engine = engine
        self.life = life
        self.drops = drops
        self.reply_dtype = reply
        self.dropping = dropping
        self.spin = spin
        self.lock = threading.Lock()
        self.stash = Stash(reply)
        self.awaited: set[int] = set()
        self.received = 0
        self.errors: dict[int, str] | None = getattr(engine, "errors", None)
        self.rep_names: tuple[str, ...] = reply.names or ()
        self.ports: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def settle(self) -> None:
        """Finish a move from the ring that an interrupt cut short."""
        with self.lock:
            self.stash.settle(self.host)

    def not_received(self) -> int:
        """Replies written by the device and not yet handed out (ring and stash)."""
        return self.host.replies_ready() + len(self.stash)

    def describe(self) -> str:
        """The kernel's state and its messages in flight, for error messages."""
        return self.life.describe(self.received, len(self.stash))

    def drain(self) -> None:
        """Move ready replies aside, for a producer that waits (a full reply ring must
        never stall the device); the lock is held for that short move only."""
        if self.host.replies_ready():
            with self.lock:
                self.stash.fill(self.host, 1 << 30)

    # -- under the consumer lock ------------------------------------------------------

    def claim_next(self, box: list) -> bool:
        """Claim the next reply no ``call`` waits for into ``box[0]``; False if none."""
        st = self.stash
        found = st.look(self.host, st.find_next, self.awaited)
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

    def claim_id(self, box: list, corr_id: int) -> bool:
        """Claim the reply to ``corr_id`` into ``box[0]``; False if it has not come."""
        st = self.stash
        found = st.look(self.host, st.find_id, corr_id)
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

    def unclaim(self, box: list) -> None:
        """Put back the reply in ``box[0]`` (an operation that did not hand it out)."""
        found = box[0]
        if found is None:
            return
        with self.lock:
            self.stash.settle(self.host)
            self.received -= self.stash.unclaim(*found)
        box[0] = None

    def restore(self, reply: Reply) -> None:
        """Put back a Reply its caller never got (a cancelled waiter, an interrupt)."""
        rec = np.zeros(1, self.reply_dtype)
        rec[0] = tuple(reply.values[n] for n in self.rep_names)
        with self.lock:
            self.stash.settle(self.host)
            self.stash.restore(reply.corr_id, reply.status, rec)
            self.received -= 1
            if reply.error is not None and self.errors is not None:
                self.errors[reply.corr_id] = reply.error

    def reply_of(self, found: tuple) -> Reply:
        """The Reply of a claimed reply (it stays claimed: the caller hands it out)."""
        chunk, i = found
        corr = int(chunk.corr[i])
        status = int(chunk.status[i])
        errors = self.errors
        error = errors.get(corr) if errors and status == PY_EXCEPTION else None
        return Reply(self.kernel_id, corr, status, self.rep_names, chunk.recs[i].item(), error)

    def try_receive(self) -> Reply | None:
        """The next reply, or None when none is ready."""
        box: list = [None]
        try:
            with self.lock:
                if not self.claim_next(box):
                    return None
            reply = self.reply_of(box[0])
            errors = self.errors
            if errors and reply.corr_id in errors:
                del errors[reply.corr_id]
            box[0] = None  # handed out: no signal check between here and the return
            return reply
        except BaseException:
            self.unclaim(box)
            raise

    def nothing_left(self) -> bool:
        """True when no reply can come any more (the device left and the ring is empty)."""
        return self.life.dead() and not self.host.replies_ready()

    def timeout_error(self, op: str, timeout: float | None, what: str) -> RingTimeoutError:
        if self.nothing_left():
            return RingTimeoutError(
                f"[{op} {self.kernel_id}] expected {what}, got none and none can come: "
                + self.describe()
            )
        return RingTimeoutError(
            f"[{op} {self.kernel_id}] expected {what} within {timeout} s, got none; "
            + self.describe()
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
                self.wait_claim(box, corr, timeout, "receive")
            else:
                self.wait_claim(box, 0, timeout, "receive")
            reply = self.reply_of(box[0])
            errors = self.errors
            if errors and reply.corr_id in errors:
                del errors[reply.corr_id]
            box[0] = None  # handed out: no signal check between here and the return
            return reply
        except BaseException:
            self.unclaim(box)
            raise

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
                with self.lock:
                    st = self.stash
                    st.fill(self.host, n - got)
                    for chunk, idx in st.find_free(n - got, self.awaited):
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
                    w = Waiter(timeout, self.spin)
                if got > before:
                    continue
                if w.expired() or (self.nothing_left() and not self.stash.count):
                    exc = self.timeout_error("receive_batch", timeout, f"{n} replies (got {got})")
                    exc.partial = self._batch_of(claims)
                    claims = {}  # handed out with the error
                    raise exc
                w.wait()
            out = self._batch_of(claims)
            claims = {}  # handed out: no signal check between here and the return
            return out
        except BaseException:
            for chunk, idx in claims.values():
                self.unclaim([(chunk, idx)])
            raise

    def _batch_of(self, claims: dict[int, tuple]) -> Replies:
        parts = [(c.corr[idx], c.status[idx], c.recs[idx]) for c, idx in claims.values()]
        out = concat(parts, self.reply_dtype)
        errors = self.errors
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
            reply, failure = self.call_claim(
                box, reserved, message, timeout, check, priority, fields
            )
            self.awaited.discard(reserved[0])
            reserved[0] = 0
            errors = self.errors
            if errors and reply.corr_id in errors:
                del errors[reply.corr_id]
            box[0] = None  # handed out: no signal check between here and the return
            if failure is not None:
                raise failure
            return reply
        except BaseException:
            self.unclaim(box)
            if reserved[0]:
                self.awaited.discard(reserved[0])
            raise

    def call_claim(
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
        lane, values = self.producer.parse(message, priority, fields, "call")
        corr = self.producer.send_one(lane, values, reserved, "call")
        self.wait_claim(box, corr, timeout, "call")
        reply = self.reply_of(box[0])
        return reply, (reply.failure() if check else None)

    def wait_claim(self, box: list, corr: int, timeout: float | None, op: str) -> None:
        """Wait until the reply to ``corr`` (0: any reply no call awaits) is in ``box[0]``."""
        drops = self.drops
        if corr:
            drops.check(corr, op, self.dropping)
        w = None
        while True:
            with self.lock:
                if self.claim_id(box, corr) if corr else self.claim_next(box):
                    return
            if w is None:
                w = Waiter(timeout, self.spin)
            elif w.expired() or self.nothing_left():
                with self.lock:  # a reply may have landed just before the device left
                    if self.claim_id(box, corr) if corr else self.claim_next(box):
                        return
                if corr:
                    drops.check(corr, op, self.dropping)
                raise self.timeout_error(
                    op, timeout, f"the reply to message {corr}" if corr else "a reply"
                )
            elif corr and self.dropping:
                drops.check(corr, op, self.dropping)
            w.wait()

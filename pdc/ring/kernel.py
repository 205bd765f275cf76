"""The handle of one launched ring kernel: its lifecycle and the sending side.

Thread safety: the host side is serialised, not split into lanes. One lock orders every
producer (``send``, ``send_batch``, ``send_async``: correlation ids are handed out and the
request rings written under it), another every consumer (``receive``, ``call``...: the reply
ring and the stash are read under it). A producer never waits for the consumers' lock (it
only tries it, to move replies aside), so the two never deadlock, and no lock is held while
a consumer sleeps. Any number of threads and event loops may share one kernel.

Reconciliation: every message a send accepted (its id was returned) ends as exactly one of
replied (``status == 0``), errored (``status != 0``, with ``Reply.error`` for Python
handlers), dropped (its id in ``dropped_ids``, backpressure "drop_oldest") or undelivered
(its id in ``TerminateReport.undelivered``); every message a send refused raised to its
caller (``RingFullError``, ``RingStateError``) and is counted in ``rejected``. Telemetry:
``submitted == processed + dropped + waiting`` and ``processed == received + replies_ready``.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import Any

import numpy as np

from pdc.ring import aio
from pdc.ring.definition import RingKernelDef
from pdc.ring.engine import Engine, EngineOptions, engine_class
from pdc.ring.protocol import (
    BLOCKED,
    DROPPED,
    ERR_CODE,
    ERR_COUNT,
    HIGH,
    NORMAL,
    PROCESSED,
    REJECTED,
    S_ACTIVE,
    S_DEACTIVATED,
    S_TERMINATED,
    STATE_NAMES,
    RingFullError,
    RingHost,
    Rings,
    RingStateError,
    RingTimeoutError,
    aligned,
)
from pdc.ring.receiving import Receiving
from pdc.ring.replies import Stash, Telemetry, TerminateReport
from pdc.ring.waiting import Waiter

__all__ = ["RingKernel"]

_LANES = {"high": HIGH, "normal": NORMAL, HIGH: HIGH, NORMAL: NORMAL}


class RingKernel(Receiving):
    """A launched ring kernel: the host side of its rings plus its engine.

    Created by ``RingKernelRuntime.launch``; use the runtime's methods or these directly.
    Safe to use from any number of threads and event loops (see the module docstring).
    """

    def __init__(self, definition: RingKernelDef, backend: str, options: EngineOptions):
        self.definition = definition
        self.kernel_id = definition.kernel_id
        self.spec = definition.spec
        cls = engine_class(backend)
        self.rings = Rings.allocate(
            self.spec.request,
            self.spec.reply,
            options.queue_size,
            options.reply_size,
            alloc=cls.allocator(options),
        )
        self.engine: Engine = cls(self.rings, self.spec, options)
        self.backend = backend
        self.host = RingHost(self.rings)
        self.ctrl = self.rings.ctrl  # read-only view for teaching; writes go through host
        self.backpressure = definition.backpressure
        self.block_timeout = definition.block_timeout
        self.dropped_ids: list[int] = []
        self._dropped_set: set[int] = set()
        self._scan = [0, 0]  # per lane: sequences below this were checked for drops
        self.received = 0
        self._next = 1
        self._stash = Stash(self.spec.reply)
        self._rep_names: tuple[str, ...] = self.spec.reply.names or ()
        self._pop_names = self.host.reply_fields
        self._names = self.host.request_fields
        self._dtype_names: tuple[str, ...] = self.spec.request.names or ()
        self._nfields = len(self._names)
        self._spin = 0 if self.spec.python else 20_000
        self._errors: dict[int, str] | None = getattr(self.engine, "errors", None)
        self._terminated = False
        self._send_lock = threading.Lock()
        self._recv_lock = threading.Lock()
        self._drop_lock = threading.Lock()
        self._ports: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    # -- state --------------------------------------------------------------------------
    @property
    def state(self) -> str:
        """The device's acknowledged state: launched, active, deactivated, terminated..."""
        s = self.host.state()
        return STATE_NAMES.get(s, f"unknown({s})")

    def _waiting(self) -> int:
        return self.host.pending(HIGH) + self.host.pending(NORMAL)

    def _in_flight(self) -> int:
        return self.host.submitted() - self.host.word(DROPPED) - self.received

    def _describe(self) -> str:
        failure = getattr(self.engine, "failure", None)
        return (
            f"kernel state {self.state!r}, {self._in_flight()} message(s) in flight "
            f"({self._waiting()} waiting in the request queues, "
            f"{self.host.replies_ready() + len(self._stash)} replies not yet received)"
            + (f"; the device loop failed: {failure!r}" if failure is not None else "")
        )

    def _dead(self) -> bool:
        """True once the device can no longer answer (terminated, or its loop failed)."""
        return (
            self._terminated
            or self.host.state() == S_TERMINATED
            or getattr(self.engine, "failure", None) is not None
        )

    def _alive_check(self, op: str) -> None:
        if self._terminated:
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

    def _set_active(self, on: bool, want: int, op: str, timeout: float) -> None:
        self._alive_check(op)
        self.host.set_active(on)
        self.engine.wake()
        w = Waiter(timeout, 2000)
        while self.host.state() != want:
            if self._dead():
                self._alive_check(op)
            if w.expired():
                raise RingTimeoutError(
                    f"[{op} {self.kernel_id}] expected the device to acknowledge state "
                    f"{STATE_NAMES[want]!r} within {timeout} s, got {self._describe()}"
                )
            self.engine.wake()
            w.wait()

    def activate(self, timeout: float = 30.0) -> None:
        """Let the device process messages; returns once it acknowledged."""
        self._set_active(True, S_ACTIVE, "activate", timeout)

    def deactivate(self, timeout: float = 30.0) -> None:
        """Pause processing (messages wait); returns once the device acknowledged."""
        self._set_active(False, S_DEACTIVATED, "deactivate", timeout)

    def terminate(self, timeout: float = 10.0) -> TerminateReport:
        """Ask the device loop to leave, wait up to ``timeout`` s, report what was left.

        Messages still waiting are not handled (``undelivered``); replies already written
        can still be received after terminate. Sends from then on raise ``RingStateError``.
        """
        t0 = time.perf_counter()
        self._terminated = True  # blocked producers see it and give up the send lock
        self.host.request_terminate()
        stopped = self.engine.join(timeout)
        with self._send_lock:  # no send can be accepted after this point
            self._harvest_drops()
            undelivered = self.host.waiting_ids(HIGH) + self.host.waiting_ids(NORMAL)
        return TerminateReport(
            self.kernel_id,
            stopped,
            time.perf_counter() - t0,
            undelivered,
            self.host.replies_ready() + len(self._stash),
        )

    def telemetry(self) -> Telemetry:
        """The kernel's counters now (``dropped_ids`` brought up to date first)."""
        self._harvest_drops()
        h = self.host
        return Telemetry(
            kernel_id=self.kernel_id,
            backend=self.backend,
            simulated=self.engine.simulated,
            state=self.state,
            launches=self.engine.launches,
            submitted=h.submitted(),
            processed=h.word(PROCESSED),
            received=self.received,
            dropped=h.word(DROPPED),
            rejected=h.word(REJECTED),
            blocked=h.word(BLOCKED),
            errors=h.word(ERR_COUNT),
            last_error=h.word(ERR_CODE),
            waiting=self._waiting(),
            replies_ready=h.replies_ready() + len(self._stash),
            in_flight=self._in_flight(),
        )

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
    def _lane(self, priority: Any) -> int:
        try:
            return _LANES[priority]
        except (KeyError, TypeError):
            raise ValueError(
                f"[send {self.kernel_id}] expected priority 'high' (0) or 'normal' (1), "
                f"got {priority!r}"
            ) from None

    def _values(self, message: Any, fields: dict) -> tuple:
        names = self._names
        if message is None:
            if len(fields) == self._nfields:
                try:
                    return tuple([fields[n] for n in names])
                except KeyError:
                    pass
            message = fields
        elif fields:
            raise TypeError(f"[send {self.kernel_id}] expected a message or fields, got both")
        if isinstance(message, dict):
            unknown = [k for k in message if k not in names]
            if unknown:
                raise ValueError(
                    f"[send {self.kernel_id}] unknown field(s) {unknown}; "
                    f"request fields are {self.spec.request.names}"
                )
            return tuple([message.get(n, 0) for n in names])
        if isinstance(message, np.void):
            if message.dtype != self.spec.request and not self._same_layout(message.dtype):
                raise TypeError(
                    f"[send {self.kernel_id}] expected a record of dtype {self.spec.request}, "
                    f"got {message.dtype}"
                )
            return tuple([message[n] for n in names])
        if isinstance(message, tuple) and len(message) == len(names):
            order = self._dtype_names
            return tuple(message[order.index(n)] for n in names)
        raise TypeError(
            f"[send {self.kernel_id}] expected fields {self.spec.request.names} (keywords, a "
            f"dict, a tuple or a record), got {message!r}"
        )

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

        Only tried: a producer never waits for the consumers' lock.
        """
        if self._recv_lock.acquire(blocking=False):
            try:
                self._fill(1 << 30)
            finally:
                self._recv_lock.release()

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
        if message is None and len(fields) == self._nfields:
            try:  # the common case: every field by keyword
                values = tuple([fields[n] for n in self._names])
            except KeyError:
                values = self._values(message, fields)
        else:
            values = self._values(message, fields)
        lane = self._lane(priority)
        with self._send_lock:
            if self._terminated:
                self._alive_check("send")
            corr = self._next
            if self.host.floor(lane) > self._scan[lane] and not self._pushable(lane, 1):
                return self._send_full(lane, corr, values, "send")
            # Advance first: an interrupt inside push can waste an id, never reuse one.
            self._next = corr + 1
            if self.host.push(lane, corr, values):
                self.engine.wake()
                return corr
            self._next = corr
            return self._send_full(lane, corr, values, "send")

    def _send_full(self, lane: int, corr: int, values: tuple, op: str) -> int:
        """The slow path of ``send`` (send lock held): wait, drop or refuse."""
        host = self.host
        try:
            self._alive_check(op)
        except RingStateError:
            host.add(REJECTED)
            raise
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

    def _same_layout(self, dtype: np.dtype) -> bool:
        """True for the packed layout of the request dtype (same fields, same types)."""
        return dtype.names is not None and aligned(dtype) == self.spec.request

    def _check_batch(self, batch: Any, op: str) -> np.ndarray:
        if not isinstance(batch, np.ndarray):
            raise TypeError(
                f"[{op} {self.kernel_id}] expected a NumPy structured array, "
                f"got {type(batch).__name__}"
            )
        if batch.dtype != self.spec.request:
            if not self._same_layout(batch.dtype):
                raise TypeError(
                    f"[{op} {self.kernel_id}] expected dtype {self.spec.request}, got {batch.dtype}"
                )
            batch = batch.astype(self.spec.request)  # the packed layout of the same fields
        if batch.ndim != 1:
            raise ValueError(
                f"[{op} {self.kernel_id}] expected a 1-D batch, got shape {batch.shape}"
            )
        return batch

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
        batch = self._check_batch(batch, "send_batch")
        lane = self._lane(priority)
        host = self.host
        n = len(batch)
        with self._send_lock:
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

    # -- asyncio ------------------------------------------------------------------------
    async def send_async(
        self, message: Any = None, /, *, priority: Any = NORMAL, **fields: Any
    ) -> int:
        """``send`` that awaits (instead of blocking the thread) while the queue is full."""
        return await aio.send_async(self, message, priority=priority, **fields)

    async def receive_async(self, timeout: float | None = None) -> Any:
        """``receive`` that awaits, letting other tasks run while no reply is ready."""
        return await aio.receive_async(self, timeout)

    async def call_async(
        self,
        message: Any = None,
        /,
        *,
        timeout: float | None = None,
        check: bool = True,
        priority: Any = NORMAL,
        **fields: Any,
    ) -> Any:
        """``call`` for asyncio code (one poller per event loop serves every awaiting call)."""
        return await aio.call_async(
            self, message, timeout=timeout, check=check, priority=priority, **fields
        )

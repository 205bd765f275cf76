"""Runtime API: define ring kernels, launch them on a backend, talk to them.

Example::

    REQ = np.dtype([("x", np.float64)])
    REP = np.dtype([("y", np.float64)])

    @pdc.ring_kernel(kernel_id="scale", request=REQ, reply=REP, queue_size=256)
    def scale(req, rep):
        rep.y = req.x * 2.0

    with pdc.RingKernelRuntime(backend="cpu") as rt:
        rt.launch(scale)                      # launched and active
        cid = rt.send("scale", x=1.5)         # returns the correlation id
        reply = rt.receive("scale", timeout=1.0)
        assert reply.corr_id == cid and reply.y == 3.0

Backpressure (what ``send`` does when the lane is full):

* ``"block"`` (default): wait up to ``block_timeout`` seconds for room, then raise
  ``RingFullError``; every send that had to wait is counted in ``blocked``, every one that
  timed out in ``rejected``.
* ``"reject"``: raise ``RingFullError`` at once; counted in ``rejected``. A batch is
  accepted whole or not at all.
* ``"drop_oldest"``: the device discards the oldest waiting message of that lane to make
  room; counted in ``dropped``, the dropped correlation ids are in ``kernel.dropped_ids``.

Replies come back in the order the device handled the messages (high lane first);
``receive`` returns the next one (or, with ``corr_id=``, the reply to one message), ``call``
sends one message and waits for its own reply.

The rings are single-producer/single-consumer: use one kernel from one thread at a time
(asyncio tasks on one event loop are fine).
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import os
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdc.ring.engine import Engine, EngineOptions, engine_class
from pdc.ring.handlers import ALL_BACKENDS, HandlerSpec
from pdc.ring.protocol import (
    ACTIVE,
    BLOCKED,
    DROPPED,
    ERR_CODE,
    ERR_COUNT,
    HIGH,
    LINE,
    NORMAL,
    PROCESSED,
    REJECTED,
    S_ACTIVE,
    S_DEACTIVATED,
    S_TERMINATED,
    STATE,
    STATE_NAMES,
    SUBMITTED,
    TAIL,
    TERMINATE,
    RingError,
    RingFullError,
    RingHandlerError,
    RingHost,
    Rings,
    RingStateError,
    RingTimeoutError,
)

__all__ = [
    "BACKPRESSURE",
    "Replies",
    "Reply",
    "RingKernel",
    "RingKernelDef",
    "RingKernelRuntime",
    "Telemetry",
    "TerminateReport",
    "ring_kernel",
]

BACKPRESSURE = ("block", "reject", "drop_oldest")
_LIVE: weakref.WeakSet = weakref.WeakSet()  # launched kernels, stopped at interpreter exit


@atexit.register
def _stop_live_kernels() -> None:
    # A persistent device loop left running would keep spinning (or hold a GPU context).
    for k in list(_LIVE):
        if not k._terminated:
            k.ctrl[TERMINATE] = 1
            k.engine.join(2.0)


_PY_EXCEPTION = -1  # pdc.ring.cpu.PY_EXCEPTION (not imported: that module imports numba)
_LANES = {"high": HIGH, "normal": NORMAL, HIGH: HIGH, NORMAL: NORMAL}


@dataclass
class RingKernelDef:
    """A ring kernel definition (what ``@ring_kernel`` returns).

    Attributes:
        kernel_id: Name of the kernel in a runtime.
        spec: The validated handler and its dtypes.
        queue_size: Slots per request lane.
        backend: Backend name, or None for the runtime's.
        backpressure: "block", "reject" or "drop_oldest".
        block_timeout: Longest wait of a blocked send, in seconds.
    """

    kernel_id: str
    spec: HandlerSpec
    queue_size: int = 1024
    backend: str | None = None
    backpressure: str = "block"
    block_timeout: float = 5.0

    def __call__(self, req: Any, rep: Any) -> Any:
        """Run the handler in Python on one request/reply record pair (for checks)."""
        return self.spec.function(req, rep)


def ring_kernel(
    kernel_id: str | None = None,
    *,
    request: Any,
    reply: Any,
    queue_size: int = 1024,
    backend: str | None = None,
    backpressure: str = "block",
    block_timeout: float = 5.0,
    python: bool = False,
) -> Callable[[Callable], RingKernelDef]:
    """Declare a ring kernel: a handler ``fn(req, rep)`` and its message types.

    Args:
        kernel_id: Name (default: the function's name).
        request: Request structured dtype (scalar numeric fields).
        reply: Reply structured dtype.
        queue_size: Slots per request lane (>= 1).
        backend: "cpu", "cuda", "metal" or None (the runtime's backend).
        backpressure: "block", "reject" or "drop_oldest" (see the module docstring).
        block_timeout: Seconds a blocked send waits before ``RingFullError``.
        python: Run the handler as plain Python (any Python; the cpu backend only).

    Returns:
        A decorator turning the handler into a ``RingKernelDef``.

    Raises:
        HandlerError: when the handler uses Python that a backend cannot run.
        ValueError: for a bad queue size or backpressure name.
    """
    if backpressure not in BACKPRESSURE:
        raise ValueError(
            f"[ring_kernel] expected backpressure in {BACKPRESSURE}, got {backpressure!r}"
        )
    if int(queue_size) < 1:
        raise ValueError(f"[ring_kernel] expected queue_size >= 1, got {queue_size}")
    if backend is not None and backend not in ALL_BACKENDS:
        raise ValueError(f"[ring_kernel] expected backend in {ALL_BACKENDS}, got {backend!r}")

    def decorate(fn: Callable) -> RingKernelDef:
        spec = HandlerSpec.create(fn, request, reply, python=python)
        return RingKernelDef(
            kernel_id or fn.__name__, spec, int(queue_size), backend, backpressure, block_timeout
        )

    return decorate


class Reply:
    """One reply: ``corr_id``, ``status`` (0 = ok), the reply fields as attributes.

    Attributes:
        corr_id: Correlation id of the request it answers.
        status: The handler's return value (0 = ok).
        error: Text of the exception for a pure-Python handler that raised, else None.
    """

    __slots__ = ("_names", "_vals", "corr_id", "error", "kernel_id", "status")

    def __init__(
        self,
        kernel_id: str,
        corr_id: int,
        status: int,
        names: tuple[str, ...],
        vals: tuple,
        error: str | None = None,
    ):
        self.kernel_id = kernel_id
        self.corr_id = corr_id
        self.status = status
        self._names = names
        self._vals = vals
        self.error = error

    @property
    def values(self) -> dict[str, Any]:
        """``{field: value}``."""
        return dict(zip(self._names, self._vals, strict=True))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._vals[self._names.index(name)]
        except ValueError:
            raise AttributeError(
                f"[Reply] expected a reply field in {self._names}, got {name!r}"
            ) from None

    @property
    def ok(self) -> bool:
        """True when the handler returned 0."""
        return self.status == 0

    def raise_for_status(self) -> Reply:
        """Return self, or raise ``RingHandlerError`` when the handler reported an error."""
        if self.status != 0:
            extra = f": {self.error}" if self.error else ""
            raise RingHandlerError(
                f"[ring {self.kernel_id}] handler returned error code {self.status} for "
                f"message {self.corr_id}{extra}",
                self.status,
                self.corr_id,
            )
        return self

    def __repr__(self) -> str:
        return f"Reply(corr_id={self.corr_id}, status={self.status}, {self.values})"


@dataclass
class Replies:
    """A batch of replies: parallel arrays, in the order the device handled them."""

    corr_ids: np.ndarray
    status: np.ndarray
    records: np.ndarray

    def __len__(self) -> int:
        return len(self.corr_ids)


@dataclass
class Telemetry:
    """Counters of one kernel (device and host side), read at one moment."""

    kernel_id: str
    backend: str
    simulated: bool
    state: str
    launches: int
    submitted: int
    processed: int
    received: int
    dropped: int
    rejected: int
    blocked: int
    errors: int
    last_error: int
    waiting: int
    replies_ready: int
    in_flight: int


@dataclass
class TerminateReport:
    """What ``terminate`` found.

    Attributes:
        kernel_id: The kernel.
        stopped: True when the device loop left within the timeout.
        seconds: How long terminate took.
        undelivered: Correlation ids still waiting in the request queues (never handled).
        replies_pending: Replies handled but not yet received (still receivable).
    """

    kernel_id: str
    stopped: bool
    seconds: float
    undelivered: list[int]
    replies_pending: int


class _Waiter:
    """Poll, then poll with ``sched_yield`` in between, then sleep with back-off.

    Yielding matters on a machine with few cores: when the device loop shares a core with
    the waiting thread, a yield hands it the core at once instead of at the next tick.
    """

    __slots__ = ("deadline", "n", "sleep", "spin")

    def __init__(self, timeout: float | None, spin: int):
        self.deadline = None if timeout is None else time.perf_counter() + timeout
        self.n = 0
        self.spin = spin
        self.sleep = 5e-6

    def expired(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def wait(self) -> None:
        self.n += 1
        if self.n <= self.spin:
            if self.n > 64:
                os.sched_yield()
            return
        self.sleep = min(self.sleep * 2, 1e-3)
        time.sleep(self.sleep)


class _Stash:
    """Replies taken off the reply ring but not received yet, in arrival order (chunks)."""

    def __init__(self, dtype: np.dtype):
        self.dtype = dtype
        self.chunks: collections.deque[list] = collections.deque()  # [corr, status, recs, start]
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def add(self, corr: np.ndarray, status: np.ndarray, recs: np.ndarray) -> None:
        if len(corr):
            self.chunks.append([corr, status, recs, 0])
            self.count += len(corr)

    def popleft(self) -> tuple[int, int, np.void]:
        chunk = self.chunks[0]
        corr, status, recs, i = chunk
        chunk[3] = i + 1
        if i + 1 == len(corr):
            self.chunks.popleft()
        self.count -= 1
        return int(corr[i]), int(status[i]), recs[i]

    def take(self, n: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        parts = []
        while n > 0 and self.chunks:
            chunk = self.chunks[0]
            corr, status, recs, i = chunk
            k = min(n, len(corr) - i)
            parts.append((corr[i : i + k], status[i : i + k], recs[i : i + k]))
            chunk[3] = i + k
            if i + k == len(corr):
                self.chunks.popleft()
            self.count -= k
            n -= k
        return parts

    def pop_id(self, corr_id: int) -> tuple[int, int, np.void] | None:
        for c, chunk in enumerate(self.chunks):
            corr, status, recs, i = chunk
            hits = np.flatnonzero(corr[i:] == corr_id)
            if len(hits):
                p = i + int(hits[0])
                found = (int(corr[p]), int(status[p]), recs[p])
                # Split the chunk around the reply taken out of the middle.
                before = [corr[i:p], status[i:p], recs[i:p], 0]
                after = [corr[p + 1 :], status[p + 1 :], recs[p + 1 :], 0]
                del self.chunks[c]
                for part in (after, before):
                    if len(part[0]):
                        self.chunks.insert(c, part)
                self.count -= 1
                return found
        return None


class RingKernel:
    """A launched ring kernel: the host side of its rings plus its engine.

    Created by ``RingKernelRuntime.launch``; use the runtime's methods or these directly.
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
        self.ctrl = self.rings.ctrl
        self.backpressure = definition.backpressure
        self.block_timeout = definition.block_timeout
        self.dropped_ids: list[int] = []
        self._dropped_set: set[int] = set()
        self.received = 0
        self._next = 1
        self._stash = _Stash(self.spec.reply)
        self._error_text: dict[int, str] = {}  # Python handlers: corr id -> exception text
        self._rep_names: tuple[str, ...] = self.spec.reply.names or ()
        self._pop_names = self.host.reply_fields
        self._names = self.host.request_fields
        self._dtype_names: tuple[str, ...] = self.spec.request.names or ()
        self._nfields = len(self._names)
        self._spin = 0 if self.spec.python else 20_000
        self._errors = getattr(self.engine, "errors", None)
        self._terminated = False

    # -- state --------------------------------------------------------------------------
    @property
    def state(self) -> str:
        """The device's acknowledged state: launched, active, deactivated, terminated..."""
        return STATE_NAMES.get(int(self.ctrl[STATE]), f"unknown({int(self.ctrl[STATE])})")

    def _in_flight(self) -> int:
        return int(self.ctrl[SUBMITTED]) - int(self.ctrl[DROPPED]) - self.received

    def _waiting(self) -> int:
        return self.host.pending(HIGH) + self.host.pending(NORMAL)

    def _describe(self) -> str:
        failure = getattr(self.engine, "failure", None)
        return (
            f"kernel state {self.state!r}, {self._in_flight()} message(s) in flight "
            f"({self._waiting()} waiting in the request queues, "
            f"{self.host.replies_ready() + len(self._stash)} replies not yet received)"
            + (f"; the device loop failed: {failure!r}" if failure is not None else "")
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

    def _set_active(self, value: int, want: int, op: str, timeout: float) -> None:
        self._alive_check(op)
        self.ctrl[ACTIVE] = value
        self.engine.wake()
        w = _Waiter(timeout, 2000)
        while int(self.ctrl[STATE]) != want:
            if w.expired():
                raise RingTimeoutError(
                    f"[{op} {self.kernel_id}] expected the device to acknowledge state "
                    f"{STATE_NAMES[want]!r} within {timeout} s, got {self._describe()}"
                )
            self.engine.wake()
            w.wait()

    def activate(self, timeout: float = 30.0) -> None:
        """Let the device process messages; returns once it acknowledged."""
        self._set_active(1, S_ACTIVE, "activate", timeout)

    def deactivate(self, timeout: float = 30.0) -> None:
        """Pause processing (messages wait); returns once the device acknowledged."""
        self._set_active(0, S_DEACTIVATED, "deactivate", timeout)

    def terminate(self, timeout: float = 10.0) -> TerminateReport:
        """Ask the device loop to leave, wait up to ``timeout`` s, report what was left.

        Messages still waiting are not handled; replies already written can still be
        received after terminate.
        """
        t0 = time.perf_counter()
        self.ctrl[TERMINATE] = 1
        stopped = self.engine.join(timeout)
        self._terminated = True
        undelivered = self.host.waiting_ids(HIGH) + self.host.waiting_ids(NORMAL)
        return TerminateReport(
            self.kernel_id,
            stopped,
            time.perf_counter() - t0,
            undelivered,
            self.host.replies_ready() + len(self._stash),
        )

    def telemetry(self) -> Telemetry:
        """The kernel's counters now."""
        c = self.ctrl
        return Telemetry(
            kernel_id=self.kernel_id,
            backend=self.backend,
            simulated=self.engine.simulated,
            state=self.state,
            launches=self.engine.launches,
            submitted=int(c[SUBMITTED]),
            processed=int(c[PROCESSED]),
            received=self.received,
            dropped=int(c[DROPPED]),
            rejected=int(c[REJECTED]),
            blocked=int(c[BLOCKED]),
            errors=int(c[ERR_COUNT]),
            last_error=int(c[ERR_CODE]),
            waiting=self._waiting(),
            replies_ready=self.host.replies_ready() + len(self._stash),
            in_flight=self._in_flight(),
        )

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
            if message.dtype != self.spec.request:
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

    def _full_error(self, lane: int, op: str, waited: float | None, accepted=None):
        why = (
            "backpressure 'reject'"
            if waited is None
            else f"waited {waited} s (backpressure 'block')"
        )
        lane_name = "high" if lane == HIGH else "normal"
        exc = RingFullError(
            f"[{op} {self.kernel_id}] expected room in the {lane_name} queue, got "
            f"{self.host.pending(lane)}/{self.rings.capacity} slots taken; {why}; "
            + self._describe()
        )
        exc.accepted = accepted if accepted is not None else np.zeros(0, np.int64)
        return exc

    def _drain(self) -> None:
        """Move ready replies into the stash (so a full reply ring never stalls the device)."""
        while True:
            corr, status, recs = self._pop_batch(1 << 30)
            if not len(corr):
                return
            self._stash.add(corr, status, recs)

    def _make_room(self, lane: int, n: int, op: str, waiter: _Waiter) -> bool:
        """drop_oldest: have the device drop up to ``n`` oldest messages of ``lane``."""
        host = self.host
        start = int(self.ctrl[TAIL + lane * LINE])
        floor = host.request_drop(lane, n)
        self.engine.wake()
        while int(self.ctrl[TAIL + lane * LINE]) < floor:
            if waiter.expired():
                raise RingTimeoutError(
                    f"[{op} {self.kernel_id}] expected the device to drop {n} message(s) "
                    f"within {self.block_timeout} s, got {self._describe()}"
                )
            self.engine.wake()
            waiter.wait()
        dropped = host.dropped_ids(lane, start, floor)
        self.dropped_ids.extend(dropped)
        self._dropped_set.update(dropped)
        return True

    def send(self, message: Any = None, /, *, priority: Any = NORMAL, **fields: Any) -> int:
        """Send one request; return its correlation id.

        Args:
            message: A dict, a tuple in field order or a record; or use keyword fields.
                Fields left out are 0.
            priority: "high"/0 or "normal"/1 (the device always serves high first).
            **fields: Request fields by name.

        Raises:
            ValueError: unknown field. RingFullError: no room (see backpressure).
        """
        if message is None and len(fields) == self._nfields:
            try:  # the common case: every field by keyword
                values = tuple([fields[n] for n in self._names])
            except KeyError:
                values = self._values(message, fields)
        else:
            values = self._values(message, fields)
        lane = self._lane(priority)
        corr = self._next
        if self._terminated:
            self._alive_check("send")
        if self.host.push(lane, corr, values):
            self._next = corr + 1
            self.engine.wake()
            return corr
        self._alive_check("send")
        if self.backpressure == "reject":
            self.host.add(REJECTED)
            raise self._full_error(lane, "send", None)
        waiter = _Waiter(self.block_timeout, self._spin)
        if self.backpressure == "drop_oldest":
            self._make_room(lane, 1, "send", waiter)
        else:
            self.host.add(BLOCKED)
        while not self.host.push(lane, corr, values):
            if waiter.expired():
                self.host.add(REJECTED)
                raise self._full_error(lane, "send", self.block_timeout)
            self._drain()
            self.engine.wake()
            waiter.wait()
        self._next = corr + 1
        self.engine.wake()
        return corr

    def _check_batch(self, batch: Any, op: str) -> np.ndarray:
        if not isinstance(batch, np.ndarray):
            raise TypeError(
                f"[{op} {self.kernel_id}] expected a NumPy structured array, "
                f"got {type(batch).__name__}"
            )
        if batch.dtype != self.spec.request:
            raise TypeError(
                f"[{op} {self.kernel_id}] expected dtype {self.spec.request}, got {batch.dtype}"
            )
        if batch.ndim != 1:
            raise ValueError(
                f"[{op} {self.kernel_id}] expected a 1-D batch, got shape {batch.shape}"
            )
        return batch

    def send_batch(self, batch: np.ndarray, *, priority: Any = NORMAL) -> np.ndarray:
        """Send a 1-D structured array of requests; return their correlation ids.

        With backpressure "reject" the batch is accepted whole or rejected whole; with
        "block" a timeout raises ``RingFullError`` whose ``accepted`` holds the ids sent.
        """
        batch = self._check_batch(batch, "send_batch")
        lane = self._lane(priority)
        self._alive_check("send_batch")
        n = len(batch)
        ids = np.arange(self._next, self._next + n, dtype=np.int64)
        if self.backpressure == "reject" and self.host.free(lane) < n:
            self.host.add(REJECTED, n)
            raise self._full_error(lane, "send_batch", None)
        done = 0
        waiter = None
        while done < n:
            k = self.host.push_batch(lane, ids[done:], batch[done:])
            done += k
            self._next += k
            self.engine.wake()
            if done == n:
                break
            if waiter is None:
                self._alive_check("send_batch")
                waiter = _Waiter(self.block_timeout, self._spin)
                if self.backpressure == "block":
                    self.host.add(BLOCKED)
            if k:
                continue
            if self.backpressure == "drop_oldest":
                self._make_room(lane, min(n - done, self.rings.capacity), "send_batch", waiter)
                continue
            if waiter.expired():
                self.host.add(REJECTED, n - done)
                raise self._full_error(lane, "send_batch", self.block_timeout, ids[:done])
            self._drain()
            waiter.wait()
        return ids

    # -- receiving ----------------------------------------------------------------------
    def _note_errors(self, corr: np.ndarray, status: np.ndarray) -> None:
        # Python handlers: exception texts arrive in reply order, one per PY_EXCEPTION.
        if self._errors:
            for c in corr[status == _PY_EXCEPTION]:
                if self._errors:
                    self._error_text[int(c)] = self._errors.popleft()

    def _pop(self) -> Reply | None:
        r = self.host.pop()
        if r is None:
            return None
        corr, status, values = r
        error = None
        if status == _PY_EXCEPTION and self._errors:
            error = self._errors.popleft()
        return Reply(self.kernel_id, corr, status, self._pop_names, values, error)

    def _pop_batch(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        corr, status, recs = self.host.pop_batch(n)
        if self._errors:
            self._note_errors(corr, status)
        return corr, status, recs

    def _reply(self, item: tuple[int, int, np.void]) -> Reply:
        corr, status, rec = item
        error = self._error_text.pop(corr, None)
        return Reply(self.kernel_id, corr, status, self._rep_names, tuple(rec.item()), error)

    def try_receive(self) -> Reply | None:
        """The next reply, or None when none is ready."""
        if self._stash.count:
            self.received += 1
            return self._reply(self._stash.popleft())
        r = self._pop()
        if r is not None:
            self.received += 1
        return r

    def _timeout(self, op: str, timeout: float | None, what: str) -> RingTimeoutError:
        return RingTimeoutError(
            f"[{op} {self.kernel_id}] expected {what} within {timeout} s, got none; "
            + self._describe()
        )

    def receive(self, timeout: float | None = None, corr_id: int | None = None) -> Reply:
        """Wait for the next reply, or for the reply to message ``corr_id``.

        Replies that arrive before the one asked for are kept for later ``receive`` calls.

        Raises:
            RingTimeoutError: naming the kernel, its state and the messages in flight.
            RingError: when ``corr_id`` was dropped (backpressure "drop_oldest").
        """
        if corr_id is not None:
            return self._wait_for(int(corr_id), timeout, "receive")
        r = self.try_receive()
        if r is not None:
            return r
        w = _Waiter(timeout, self._spin)
        while True:
            r = self.try_receive()
            if r is not None:
                return r
            if w.expired() or self._terminated and not self.host.replies_ready():
                raise self._timeout("receive", timeout, "a reply")
            w.wait()

    def receive_batch(self, n: int, timeout: float | None = None) -> Replies:
        """Wait for ``n`` replies; return them as arrays (``records`` has the reply dtype)."""
        n = int(n)
        if n < 0:
            raise ValueError(f"[receive_batch {self.kernel_id}] expected n >= 0, got {n}")
        parts = self._stash.take(n)
        got = sum(len(p[0]) for p in parts)
        w = None
        while got < n:
            corr, status, recs = self._pop_batch(n - got)
            if len(corr):
                parts.append((corr, status, recs))
                got += len(corr)
                continue
            if w is None:
                w = _Waiter(timeout, self._spin)
            if w.expired():
                self.received += got
                exc = self._timeout("receive_batch", timeout, f"{n} replies (got {got})")
                exc.partial = _concat(parts, self.spec.reply)
                raise exc
            w.wait()
        self.received += got
        return _concat(parts, self.spec.reply)

    async def send_async(
        self, message: Any = None, /, *, priority: Any = NORMAL, **fields: Any
    ) -> int:
        """``send`` that awaits (instead of blocking the thread) while the queue is full."""
        values = self._values(message, fields)
        lane = self._lane(priority)
        self._alive_check("send_async")
        if self.backpressure != "block":
            return self.send(message, priority=priority, **fields)
        delay = 0.0
        deadline = time.perf_counter() + self.block_timeout
        counted = False
        while not self.host.push(lane, self._next, values):
            self._alive_check("send_async")
            if not counted:
                self.host.add(BLOCKED)
                counted = True
            if time.perf_counter() > deadline:
                self.host.add(REJECTED)
                raise self._full_error(lane, "send_async", self.block_timeout)
            self._drain()
            await asyncio.sleep(delay)
            delay = min(max(delay * 2, 2e-5), 1e-3)
        corr = self._next
        self._next += 1
        self.engine.wake()
        return corr

    async def receive_async(self, timeout: float | None = None) -> Reply:
        """``receive`` that awaits, letting other tasks run while no reply is ready."""
        deadline = None if timeout is None else time.perf_counter() + timeout
        delay = 0.0
        while True:
            r = self.try_receive()
            if r is not None:
                return r
            if deadline is not None and time.perf_counter() > deadline:
                raise self._timeout("receive_async", timeout, "a reply")
            await asyncio.sleep(delay)
            delay = min(max(delay * 2, 2e-5), 1e-3)

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
            RingTimeoutError: when no reply came within ``timeout``.
        """
        corr = self.send(message, priority=priority, **fields)
        r = self._wait_for(corr, timeout)
        return r.raise_for_status() if check else r

    def _wait_for(self, corr: int, timeout: float | None, op: str = "call") -> Reply:
        if corr in self._dropped_set:
            raise RingError(
                f"[{op} {self.kernel_id}] expected a reply to message {corr}, got none: it was "
                "dropped (backpressure 'drop_oldest')"
            )
        if self._stash.count:
            item = self._stash.pop_id(corr)
            if item is not None:
                self.received += 1
                return self._reply(item)
        pop = self._pop
        w = None
        while True:
            r = pop()
            if r is not None:
                if r.corr_id == corr:
                    self.received += 1
                    return r
                self._stash_reply(r)
                continue
            if w is None:
                w = _Waiter(timeout, self._spin)
            elif w.expired() or self._terminated and not self.host.replies_ready():
                raise self._timeout(op, timeout, f"the reply to message {corr}")
            w.wait()

    def _stash_reply(self, r: Reply) -> None:
        rec = np.zeros(1, self.spec.reply)
        rec[0] = tuple(r.values[n] for n in self._rep_names)
        if r.error is not None:
            self._error_text[r.corr_id] = r.error
        self._stash.add(np.array([r.corr_id], np.int64), np.array([r.status], np.int64), rec)

    async def call_async(
        self,
        message: Any = None,
        /,
        *,
        timeout: float | None = None,
        check: bool = True,
        **fields: Any,
    ) -> Reply:
        """``call`` for asyncio code."""
        corr = await self.send_async(message, **fields)
        deadline = None if timeout is None else time.perf_counter() + timeout
        delay = 0.0
        while True:
            try:
                r = self._wait_for(corr, 0.0, "call_async")
                return r.raise_for_status() if check else r
            except RingTimeoutError:
                if deadline is not None and time.perf_counter() > deadline:
                    raise self._timeout(
                        "call_async", timeout, f"the reply to message {corr}"
                    ) from None
            await asyncio.sleep(delay)
            delay = min(max(delay * 2, 2e-5), 1e-3)


def _concat(parts: list, dtype: np.dtype) -> Replies:
    if not parts:
        return Replies(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, dtype))
    if len(parts) == 1:  # already copies, owned by nobody else
        return Replies(*parts[0])
    return Replies(
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )


class RingKernelRuntime:
    """Launches ring kernels and routes messages to them by kernel id.

    Args:
        backend: Default backend of the kernels ("cpu", "cuda", "metal"); None means
            ``pdc.default_backend()``.
        options: Engine options used for every kernel (queue_size comes from the kernel).

    Use as a context manager: leaving it terminates every kernel.
    """

    def __init__(self, backend: str | None = None, options: EngineOptions | None = None):
        self.backend = backend
        self.options = options
        self.kernels: dict[str, RingKernel] = {}

    def __enter__(self) -> RingKernelRuntime:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _backend_for(self, definition: RingKernelDef, backend: str | None) -> str:
        name = backend or definition.backend or self.backend
        if name is None:
            import pdc

            name = pdc.default_backend()
        if definition.spec.python and name != "cpu":
            raise ValueError(
                f"[launch {definition.kernel_id}] a pure-Python handler runs on the cpu backend "
                f"only, got backend {name!r}"
            )
        return name

    def launch(
        self,
        kernel: RingKernelDef,
        *,
        backend: str | None = None,
        activate: bool = True,
        timeout: float = 60.0,
    ) -> RingKernel:
        """Launch a kernel (once per runtime and kernel id) and, by default, activate it.

        Args:
            kernel: A ``@ring_kernel`` definition.
            backend: Overrides the kernel's and the runtime's backend.
            activate: Start processing at once (else call ``activate`` later).
            timeout: Seconds to wait for the device to acknowledge activation.
        """
        if not isinstance(kernel, RingKernelDef):
            raise TypeError(
                f"[launch] expected a @ring_kernel definition, got {type(kernel).__name__}"
            )
        kid = kernel.kernel_id
        if kid in self.kernels:
            raise RingStateError(
                f"[launch {kid}] expected a new kernel id, got one already launched"
            )
        name = self._backend_for(kernel, backend)
        base = self.options or EngineOptions()
        options = EngineOptions(**{**base.__dict__, "queue_size": kernel.queue_size})
        rk = RingKernel(kernel, name, options)
        rk.engine.launch()
        _LIVE.add(rk)
        self.kernels[kid] = rk
        if activate:
            rk.activate(timeout)
        return rk

    def __getitem__(self, kernel_id: str) -> RingKernel:
        return self.kernel(kernel_id)

    def kernel(self, kernel_id: str | RingKernelDef) -> RingKernel:
        """The launched kernel with this id (or definition)."""
        kid = kernel_id.kernel_id if isinstance(kernel_id, RingKernelDef) else kernel_id
        try:
            return self.kernels[kid]
        except KeyError:
            raise KeyError(
                f"[ring runtime] expected a launched kernel id in {sorted(self.kernels)}, "
                f"got {kid!r}"
            ) from None

    def activate(self, kernel_id: str, timeout: float = 30.0) -> None:
        """Resume processing of a kernel."""
        self.kernel(kernel_id).activate(timeout)

    def deactivate(self, kernel_id: str, timeout: float = 30.0) -> None:
        """Pause a kernel: messages wait in its queues."""
        self.kernel(kernel_id).deactivate(timeout)

    def terminate(self, kernel_id: str, timeout: float = 10.0) -> TerminateReport:
        """Stop a kernel; report undelivered messages (see ``RingKernel.terminate``)."""
        return self.kernel(kernel_id).terminate(timeout)

    def send(self, kernel_id: str, message: Any = None, /, **kw: Any) -> int:
        """Send one request (see ``RingKernel.send``); return its correlation id."""
        return self.kernel(kernel_id).send(message, **kw)

    def send_batch(self, kernel_id: str, batch: np.ndarray, **kw: Any) -> np.ndarray:
        """Send a structured array of requests; return their correlation ids."""
        return self.kernel(kernel_id).send_batch(batch, **kw)

    def receive(
        self, kernel_id: str, timeout: float | None = None, corr_id: int | None = None
    ) -> Reply:
        """Wait for the next reply of a kernel (or the one to message ``corr_id``)."""
        return self.kernel(kernel_id).receive(timeout, corr_id)

    def receive_batch(self, kernel_id: str, n: int, timeout: float | None = None) -> Replies:
        """Wait for ``n`` replies of a kernel."""
        return self.kernel(kernel_id).receive_batch(n, timeout)

    def call(self, kernel_id: str, message: Any = None, /, **kw: Any) -> Reply:
        """Send one request and wait for its reply."""
        return self.kernel(kernel_id).call(message, **kw)

    async def send_async(self, kernel_id: str, message: Any = None, /, **kw: Any) -> int:
        """``send`` for asyncio code."""
        return await self.kernel(kernel_id).send_async(message, **kw)

    async def receive_async(self, kernel_id: str, timeout: float | None = None) -> Reply:
        """``receive`` for asyncio code."""
        return await self.kernel(kernel_id).receive_async(timeout)

    async def call_async(self, kernel_id: str, message: Any = None, /, **kw: Any) -> Reply:
        """``call`` for asyncio code."""
        return await self.kernel(kernel_id).call_async(message, **kw)

    def telemetry(self, kernel_id: str | None = None) -> Telemetry | dict[str, Telemetry]:
        """Counters of one kernel, or of every kernel by id."""
        if kernel_id is not None:
            return self.kernel(kernel_id).telemetry()
        return {k: v.telemetry() for k, v in self.kernels.items()}

    def close(self, timeout: float = 10.0) -> dict[str, TerminateReport]:
        """Terminate every kernel still running."""
        reports = {}
        for kid, rk in self.kernels.items():
            if int(rk.ctrl[STATE]) != S_TERMINATED or not rk._terminated:
                reports[kid] = rk.terminate(timeout)
        return reports

    def kernels_state(self) -> dict[str, str]:
        """``{kernel_id: state}``."""
        return {k: v.state for k, v in self.kernels.items()}

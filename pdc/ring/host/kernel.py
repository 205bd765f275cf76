"""The handle of one launched ring kernel: lifecycle, state and telemetry.

``RingKernel`` composes the parts of the host side, each owning one lock and its
invariant: a ``Producer`` (``pdc.ring.host.producer``: ``send``, ``send_batch``, backpressure)
and a ``Consumer`` (``pdc.ring.host.consumer``: ``receive``, ``receive_batch``, ``call``, the
stash), sharing the kernel's ``Life`` (terminated or not) and ``Drops`` (dropped ids); the
asyncio side is ``pdc.ring.host.aio``. The kernel itself owns the state lock.

Thread safety: the host side is serialised, not split into lanes. One lock orders every
producer (``send``, ``send_batch``, ``send_async``: correlation ids are handed out and the
request rings written under it), another every consumer (``receive``, ``call``...: the reply
ring and the stash are read under it). A producer waits for the consumers' lock only for a
short move of replies aside, and no lock is held while anyone sleeps, so the two never
deadlock. Any number of threads and event loops may share one kernel. The cpu backend's
quick ``call`` (``pdc.ring.host.quick``) holds only the consumer lock: its compiled call takes
the id and writes the request in one step that no Python thread can interleave with, and
keeps off the rings while a producer raises its flag (``D_SENDING``, set under the
producer lock); correlation ids come from one counter either way.

Reconciliation: every message a send accepted (its id was returned) ends as exactly one of
replied (``status == 0``), errored (``status != 0``, with ``Reply.error`` for Python
handlers), dropped (its id in ``dropped_ids``, backpressure "drop_oldest") or undelivered
(its id in ``TerminateReport.undelivered``); every message a send refused raised to its
caller (``RingFullError``, ``RingStateError``) and is counted in ``rejected``. Telemetry:
``submitted == processed + dropped + waiting`` and ``processed == received + replies_ready``.

A kernel with state (``pdc.ring.handlers.state``): ``read_state`` and ``reset_state`` touch
the state only while the loop does not serve (launched and not yet activated, deactivated, or, for
reading, terminated), so that a copy never mixes two messages' updates.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from pdc.backends import backend_class
from pdc.ring.engines.base import Engine, EngineOptions, build_stage, engine_class
from pdc.ring.handlers.state import initial_state
from pdc.ring.host import aio
from pdc.ring.host.consumer import Consumer
from pdc.ring.host.drops import Drops
from pdc.ring.host.life import Life
from pdc.ring.host.producer import Producer
from pdc.ring.host.replies import Telemetry, TerminateReport
from pdc.ring.host.rings import RingHost
from pdc.ring.host.waiting import Waiter
from pdc.ring.protocol import (
    BLOCKED,
    DROPPED,
    ERR_CODE,
    ERR_COUNT,
    PROCESSED,
    REJECTED,
    S_ACTIVE,
    S_CREATED,
    S_DEACTIVATED,
    S_LAUNCHED,
    S_TERMINATED,
    STATE_NAMES,
    Rings,
    RingStateError,
    RingTimeoutError,
)
from pdc.ring.protocol.args import seconds_arg

if TYPE_CHECKING:
    from pdc.ring.definition import RingKernelDef

__all__ = ["RingKernel"]


class _Part:
    """A method of ``RingKernel`` that is the bound method of one of its parts.

    The kernel's ``receive`` is its consumer's ``receive`` itself, not a wrapper: a
    wrapper's frame would be a point between the reply's hand-out and the caller where an
    interrupt could lose it. The first access stores the bound method on the instance.
    """

    def __init__(self, part: str, func: Callable[..., Any]):
        self.part = part
        self.func = func
        self.__doc__ = func.__doc__
        self.__wrapped__ = func
        self.name = func.__name__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self.func
        bound = self.func.__get__(getattr(obj, self.part))
        vars(obj)[self.name] = bound
        return bound


class RingKernel:
    """A launched ring kernel: the host side of its rings plus its engine.

    Created by ``RingKernelRuntime.launch``; use the runtime's methods or these directly.
    Safe to use from any number of threads and event loops (see the module docstring).

    Attributes:
        producer: The sending side (``pdc.ring.host.producer.Producer``).
        consumer: The receiving side (``pdc.ring.host.consumer.Consumer``).
        life: Whether the kernel can still answer (``pdc.ring.host.life.Life``).
        dropped_ids: Ids of the messages the device dropped ("drop_oldest"), in order.
    """

    def __init__(self, definition: RingKernelDef, backend: str, options: EngineOptions):
        self.definition = definition
        self.kernel_id = kid = definition.kernel_id
        self.spec = spec = definition.spec
        cls = engine_class(backend)
        build_stage("allocating its rings")
        self.rings = Rings.allocate(
            spec.request,
            spec.reply,
            options.queue_size,
            options.reply_size,
            alloc=cls.allocator(options),
        )
        build_stage(f"building its {backend} engine (compiling its loop)")
        self.engine: Engine = cls(self.rings, spec, options)
        if spec.state is not None:
            start = definition.initial
            self.engine.write_state(np.zeros((), spec.state) if start is None else start)
        self.backend = backend
        self.host = host = RingHost(self.rings)
        self._fast = None  # the compiled call of the cpu backend (pdc.ring.host.fast)
        if backend_class(backend).host_ring_loop:
            from pdc.ring.host.fast import fast_call

            self._fast = fast_call(self.rings, spec.python)
        self.ctrl = self.rings.ctrl  # read-only view for teaching; writes go through host
        self.backpressure = definition.backpressure
        self.block_timeout = definition.block_timeout
        self.life = Life(kid, host, self.engine)
        drops = Drops(kid, host)
        self.dropped_ids = drops.ids
        dropping = self.backpressure == "drop_oldest"
        spin = 0 if spec.python else 20_000
        self.consumer = Consumer(
            kid, host, self.engine, self.life, drops, spec.reply, dropping, spin
        )
        self.producer = Producer(
            kid,
            host,
            self.engine,
            self.life,
            drops,
            self.consumer,
            self.backpressure,
            self.block_timeout,
            self._fast.words if self._fast is not None else None,
            spin,
        )
        self.consumer.producer = self.producer
        # Orders activate, deactivate, read_state and reset_state: one at a time.
        self._state_lock = threading.Lock()
        # The parts' locks and books under the kernel's own names (tests inspect them).
        self._send_lock = self.producer.lock
        self._recv_lock = self.consumer.lock
        self._drop_lock = drops.lock
        self._stash = self.consumer.stash
        self._awaited = self.consumer.awaited
        self._words = self.producer.words
        if self._fast is not None and not dropping:
            from pdc.ring.host.quick import make_call

            # The common call (every field a plain number by keyword) in one compiled call.
            quick = make_call(self.consumer, self._fast)
            if quick is not None:
                vars(self)["call"] = quick  # an instance attribute shadows the method

    send = _Part("producer", Producer.send)
    send_batch = _Part("producer", Producer.send_batch)
    try_receive = _Part("consumer", Consumer.try_receive)
    receive = _Part("consumer", Consumer.receive)
    receive_batch = _Part("consumer", Consumer.receive_batch)
    call = _Part("consumer", Consumer.call)

    # The coroutine functions themselves, not wrappers: a wrapper would create the inner
    # coroutine in its own frame, where Ctrl-C could drop it before it was awaited.
    send_async = aio.send_async
    receive_async = aio.receive_async
    call_async = aio.call_async

    @property
    def received(self) -> int:
        """Replies handed out so far."""
        return self.consumer.received

    @received.setter
    def received(self, value: int) -> None:
        self.consumer.received = value

    # -- state --------------------------------------------------------------------------
    @property
    def state(self) -> str:
        """The device's acknowledged state: launched, active, deactivated, terminated..."""
        return self.life.state_name()

    def _set_active(self, on: bool, want: int, op: str, timeout: float) -> None:
        seconds = seconds_arg(op, self.kernel_id, "timeout", timeout, none=False)
        with self._state_lock:
            self._toggle(on, want, op, seconds)

    def _toggle(self, on: bool, want: int, op: str, timeout: float | None) -> None:
        life = self.life
        life.check(op)
        self.host.set_active(on)
        self.engine.wake()
        w = Waiter(timeout, 2000)
        while self.host.state() != want:
            if life.dead():
                life.check(op)
            if w.expired():
                raise RingTimeoutError(
                    f"[{op} {self.kernel_id}] expected the device to acknowledge state "
                    f"{STATE_NAMES[want]!r} within {timeout} s, got {self.consumer.describe()}"
                )
            self.engine.wake()
            w.wait()

    def activate(self, timeout: float = 30.0) -> None:
        """Let the device process messages; returns once it acknowledged.

        State changes are serialised: ``activate``, ``deactivate``, ``read_state`` and
        ``reset_state`` from several threads run one at a time, and each toggle returns
        once the device acknowledged its own request (a later toggle waits for it).

        Args:
            timeout: Seconds to wait for the acknowledgement.

        Raises:
            RingTimeoutError: the device did not acknowledge within ``timeout``.
            RingStateError: the kernel is terminated or its loop failed.
        """
        self._set_active(True, S_ACTIVE, "activate", timeout)

    def deactivate(self, timeout: float = 30.0) -> None:
        """Pause processing (messages wait); returns once the device acknowledged.

        Args:
            timeout: Seconds to wait for the acknowledgement (see ``activate``).

        Raises:
            RingTimeoutError: the device did not acknowledge within ``timeout``.
            RingStateError: the kernel is terminated or its loop failed.
        """
        self._set_active(False, S_DEACTIVATED, "deactivate", timeout)

    def terminate(self, timeout: float = 10.0) -> TerminateReport:
        """Ask the device loop to leave, wait up to ``timeout`` s, report what was left.

        Messages still waiting are not handled (``undelivered``); replies already written
        can still be received after terminate. Sends from then on raise ``RingStateError``.
        A loop that has not left within ``timeout`` (``stopped`` False) is still handling
        the burst of messages it took before it saw the request (a slow handler): those of
        ``undelivered`` may still get replies, which ``receive`` returns as usual.
        """
        timeout = seconds_arg("terminate", self.kernel_id, "timeout", timeout, none=False) or 0.0
        t0 = time.perf_counter()
        self.life.terminated = True  # blocked producers see it and give up the send lock
        self.host.request_terminate()
        stopped = self.engine.join(timeout)
        # No send can be accepted after this point; never wait forever for a producer
        # (terminate runs at exit): producers see ``terminated`` and leave at once.
        undelivered = self.producer.undelivered()
        self.consumer.settle()
        return TerminateReport(
            self.kernel_id,
            stopped,
            time.perf_counter() - t0,
            undelivered,
            self.consumer.not_received(),
        )

    def telemetry(self) -> Telemetry:
        """The kernel's counters now (``dropped_ids`` brought up to date first)."""
        self.producer.drops.harvest()
        self.consumer.settle()
        h = self.host
        received = self.consumer.received
        return Telemetry(
            kernel_id=self.kernel_id,
            backend=self.backend,
            simulated=self.engine.simulated,
            state=self.state,
            launches=self.engine.launches,
            submitted=h.submitted(),
            processed=h.word(PROCESSED),
            received=received,
            dropped=h.word(DROPPED),
            rejected=h.word(REJECTED),
            blocked=h.word(BLOCKED),
            errors=h.word(ERR_COUNT),
            last_error=h.word(ERR_CODE),
            waiting=self.life.waiting(),
            replies_ready=self.consumer.not_received(),
            in_flight=self.life.in_flight(received),
        )

    # -- the kernel's own state (a kernel declared with state=) ---------------------------
    def _quiet_state(self, op: str, allowed: tuple[int, ...]) -> int:
        """The loop's state when it serves no message now, else raise RingStateError."""
        if self.spec.state is None:
            raise TypeError(
                f"[{op} {self.kernel_id}] expected a kernel declared with state=, got one "
                "without state"
            )
        s = self.host.state()
        if s == S_TERMINATED and not self.engine.join(0.0):
            s = -1  # acknowledged, but the loop has not left yet
        if s not in allowed:
            names = ", ".join(STATE_NAMES[a] for a in allowed)
            raise RingStateError(
                f"[{op} {self.kernel_id}] expected a kernel that serves no message ({names}: "
                f"deactivate it first), got {STATE_NAMES.get(s, 'a loop still leaving')!r}"
            )
        return s

    def read_state(self) -> np.ndarray:
        """A copy of the kernel's state: a 0-d structured array of the state dtype.

        Allowed while the kernel serves no message: launched but not activated,
        deactivated (``deactivate()`` returned), or terminated; deactivate, read, activate.

        Raises:
            TypeError: for a kernel declared without ``state=``.
            RingStateError: while the kernel is active (a copy could mix two messages'
                updates), naming its state.
        """
        allowed = (S_CREATED, S_LAUNCHED, S_DEACTIVATED, S_TERMINATED)
        with self._state_lock:  # no activate in between
            self._quiet_state("read_state", allowed)
            return self.engine.read_state()

    def reset_state(self, values: Any = None) -> None:
        """Replace the kernel's state: ``values`` as for ``initial=`` (None: the initial state).

        Allowed while the kernel is launched but not activated, or deactivated.

        Raises:
            TypeError: for a kernel declared without ``state=``, or a value that is not a
                number.
            ValueError: for an unknown field or a value its field cannot hold.
            RingStateError: while the kernel is active or once it was terminated.
        """
        st = self.spec.state
        if st is None:
            self._quiet_state("reset_state", ())  # raises: a kernel without state
            return
        start = self.definition.initial if values is None else values
        record = initial_state(st, start, self.kernel_id)  # checked before anything changes
        with self._state_lock:  # no activate between the check and the write
            self._quiet_state("reset_state", (S_CREATED, S_LAUNCHED, S_DEACTIVATED))
            self.engine.write_state(record)

"""The handle of one launched ring kernel: lifecycle, state and telemetry.

Sending lives in ``pdc.ring.sending``, receiving in ``pdc.ring.receiving`` and the asyncio
side in ``pdc.ring.aio``; ``RingKernel`` combines them.

Thread safety: the host side is serialised, not split into lanes. One lock orders every
producer (``send``, ``send_batch``, ``send_async``: correlation ids are handed out and the
request rings written under it), another every consumer (``receive``, ``call``...: the reply
ring and the stash are read under it). A producer never waits for the consumers' lock (it
only tries it, to move replies aside), so the two never deadlock, and no lock is held while
a consumer sleeps. Any number of threads and event loops may share one kernel. The cpu
backend's quick ``call`` (``pdc.ring.quick``) holds only the consumer lock: its compiled
call takes the id and writes the request in one step that no Python thread can interleave
with, and keeps off the rings while a producer raises its flag (``D_SENDING``, set under
the producer lock); correlation ids come from one counter either way.

Reconciliation: every message a send accepted (its id was returned) ends as exactly one of
replied (``status == 0``), errored (``status != 0``, with ``Reply.error`` for Python
handlers), dropped (its id in ``dropped_ids``, backpressure "drop_oldest") or undelivered
(its id in ``TerminateReport.undelivered``); every message a send refused raised to its
caller (``RingFullError``, ``RingStateError``) and is counted in ``rejected``. Telemetry:
``submitted == processed + dropped + waiting`` and ``processed == received + replies_ready``.

A kernel with state (``pdc.ring.state``): ``read_state`` and ``reset_state`` touch the state
only while the loop does not serve (launched and not yet activated, deactivated, or, for
reading, terminated), so that a copy never mixes two messages' updates.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import Any

import numpy as np

from pdc.backends import backend_class
from pdc.ring import aio
from pdc.ring.args import seconds_arg
from pdc.ring.definition import RingKernelDef
from pdc.ring.engine import Engine, EngineOptions, build_stage, engine_class
from pdc.ring.host import RingHost
from pdc.ring.messages import RequestFormat
from pdc.ring.protocol import (
    BLOCKED,
    D_NEXT,
    D_SENDING,
    DESC_WORDS,
    DROPPED,
    ERR_CODE,
    ERR_COUNT,
    HIGH,
    NORMAL,
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
from pdc.ring.receiving import Receiving
from pdc.ring.replies import Telemetry, TerminateReport
from pdc.ring.sending import Sending
from pdc.ring.stash import Stash
from pdc.ring.state import initial_state
from pdc.ring.waiting import Waiter

__all__ = ["RingKernel"]


class RingKernel(Sending, Receiving):
    """A launched ring kernel: the host side of its rings plus its engine.

    Created by ``RingKernelRuntime.launch``; use the runtime's methods or these directly.
    Safe to use from any number of threads and event loops (see the module docstring).
    """

    def __init__(self, definition: RingKernelDef, backend: str, options: EngineOptions):
        self.definition = definition
        self.kernel_id = definition.kernel_id
        self.spec = definition.spec
        cls = engine_class(backend)
        build_stage("allocating its rings")
        self.rings = Rings.allocate(
            self.spec.request,
            self.spec.reply,
            options.queue_size,
            options.reply_size,
            alloc=cls.allocator(options),
        )
        build_stage(f"building its {backend} engine (compiling its loop)")
        self.engine: Engine = cls(self.rings, self.spec, options)
        if self.spec.state is not None:
            start = definition.initial
            self.engine.write_state(np.zeros((), self.spec.state) if start is None else start)
        self.backend = backend
        self.host = RingHost(self.rings)
        self._fast = None  # the compiled call of the cpu backend (pdc.ring.fast)
        if backend_class(backend).host_ring_loop:
            from pdc.ring.fast import fast_call

            self._fast = fast_call(self.rings, self.spec.python)
        self.ctrl = self.rings.ctrl  # read-only view for teaching; writes go through host
        self.backpressure = definition.backpressure
        self._dropping = definition.backpressure == "drop_oldest"
        self.block_timeout = definition.block_timeout
        self.dropped_ids: list[int] = []
        self._dropped_set: set[int] = set()
        self._scan = [0, 0]  # per lane: sequences below this were checked for drops
        self.received = 0
        # The next correlation id, and the flag of a generic producer at work: words of
        # the compiled call's descriptor where there is one, so that it can use them.
        self._words = self._fast.words if self._fast is not None else [0] * DESC_WORDS
        self._words[D_NEXT] = 1
        self._stash = Stash(self.spec.reply)
        # Ids whose replies a call() waits for: receive() and receive_batch() skip them.
        self._awaited: set[int] = set()
        self._rep_names: tuple[str, ...] = self.spec.reply.names or ()
        self._pop_names = self.host.reply_fields
        self._names = self.host.request_fields
        self._format = RequestFormat(self.spec.request, self._names, self.kernel_id)
        self._spin = 0 if self.spec.python else 20_000
        self._errors: dict[int, str] | None = getattr(self.engine, "errors", None)
        self._terminated = False
        self._send_lock = threading.Lock()
        self._recv_lock = threading.Lock()
        self._drop_lock = threading.Lock()
        # Orders activate, deactivate, read_state and reset_state: one at a time.
        self._state_lock = threading.Lock()
        self._ports: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        if self._fast is not None and not self._dropping:
            from pdc.ring.quick import make_call

            # The common call (every field a plain number by keyword) in one compiled call.
            quick = make_call(self, self._fast, self.call)
            if quick is not None:
                vars(self)["call"] = quick  # an instance attribute shadows the method

    @property
    def _next(self) -> int:
        """The correlation id the next message gets (read and written under the send lock)."""
        return self._words[D_NEXT]

    @_next.setter
    def _next(self, value: int) -> None:
        self._words[D_NEXT] = value

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
        seconds = seconds_arg(op, self.kernel_id, "timeout", timeout, none=False)
        with self._state_lock:
            self._toggle(on, want, op, seconds)

    def _toggle(self, on: bool, want: int, op: str, timeout: float | None) -> None:
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
        """
        t0 = time.perf_counter()
        self._terminated = True  # blocked producers see it and give up the send lock
        self.host.request_terminate()
        stopped = self.engine.join(timeout)
        # No send can be accepted after this point: a producer holding the lock sees
        # ``_terminated`` and leaves. Never wait forever for it (terminate runs at exit).
        # Producers see ``_terminated`` and give up the lock at once (taken by ``with``: an
        # interrupt never leaves it held).
        with self._send_lock:
            self._words[D_SENDING] = 1  # nor a compiled call
            try:
                self._harvest_drops()
                undelivered = self.host.waiting_ids(HIGH) + self.host.waiting_ids(NORMAL)
            finally:
                self._words[D_SENDING] = 0
        with self._recv_lock:
            self._stash.settle(self.host)
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
        with self._recv_lock:
            self._stash.settle(self.host)
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

    # -- asyncio ------------------------------------------------------------------------
    # The coroutine functions themselves, not wrappers: a wrapper would create the inner
    # coroutine in its own frame, where Ctrl-C could drop it before it was awaited.
    send_async = aio.send_async
    receive_async = aio.receive_async
    call_async = aio.call_async

"""CPU engine: a persistent worker thread running the ring loop compiled by numba (nogil).

The loop is ``loop.make_serve`` compiled with ``njit(nogil=True)``, so it runs in
parallel with the Python host thread. Control words are read with LLVM ``load atomic
acquire`` and written with ``store atomic release`` (numba intrinsics in
``pdc.ring.protocol.atomics``): a plain ``ctrl[TERMINATE] == 0`` in a loop may legally
be hoisted out of the loop by LLVM, and would then spin forever.

Idle policy, all inside the compiled loop (it never returns to Python, so it never
waits for the GIL): ``spin`` empty passes with a CPU pause hint (``yield_every > 0`` adds
a ``sched_yield`` every that many passes), then ``spin`` passes with ``sched_yield``, then
naps with ``usleep``: 20 us, doubling every 16 naps, up to ``max_sleep``. An idle kernel
costs at most a few wake-ups per millisecond, and a message sent to an idle kernel waits
at most ``max_sleep`` before it is seen.

Pure-Python handlers (``HandlerSpec.python``) run the same loop, uncompiled, on a Python
thread; an exception in the handler becomes error code ``PY_EXCEPTION`` for that message
and its text is kept in ``CpuEngine.errors`` under the message's correlation id.

A kernel with state (``pdc.ring.handlers.state``) keeps it in ``engine.state_buf``, ordinary memory
that the loop passes to every handler call as its third record (a Python handler that
raises or returns nonzero gets its state put back as it was).

``EngineOptions(shared_loop=True)`` compiles a handler alone and calls it, through its
address, from a loop compiled once per process for the message dtypes and options
(``pdc.ring.engines.shared_loop``; ``precompile_shared_loop`` compiles it ahead of time):
a new handler then launches in the time of its own compile instead of the loop's, for
one indirect call per message. The loop's primitives and back-off are in
``pdc.ring.engines.cpu_prims``.
"""

from __future__ import annotations

import numbers
import threading
import traceback
from typing import Any

import numba
import numpy as np

from pdc.ring.engines.base import Engine, EngineOptions, Waker, join_worker
from pdc.ring.engines.cpu_prims import (
    compile_handler,
    cpu_fields,
    cpu_primitives,
    handler_key,
    loop_key,
    not_compiled,
    state_arg,
    stateful_handler,
)
from pdc.ring.engines.loop import Primitives, ignore_state, make_serve
from pdc.ring.engines.shared_loop import (
    compile_entry,
    loop_state,
    precompile_shared_loop,
    shared_loop,
)
from pdc.ring.handlers import HandlerSpec
from pdc.ring.protocol import PY_EXCEPTION, S_TERMINATED, STATE, TERMINATE, Rings
from pdc.ring.protocol.atomics import load_acquire, release_fence, store_release
from pdc.ring.protocol.jitcache import keep

__all__ = [
    "PY_EXCEPTION",
    "CpuEngine",
    "compile_handler",
    "compiled_loop",
    "load_acquire",
    "precompile_shared_loop",
    "release_fence",
    "shared_loop",
    "store_release",
]

_LOOPS: dict[tuple, Any] = {}


def compiled_loop(spec: HandlerSpec, options: EngineOptions) -> Any:
    """The njit-compiled consumer loop for ``spec`` (cached per handler and options)."""
    key = (spec.function, spec.request, spec.reply, spec.state, *loop_key(options))
    loop = _LOOPS.get(key)
    if loop is None:
        cpu_fields(spec)
        handler = stateful_handler(spec)
        prims = cpu_primitives(options)
        loop = numba.njit(nogil=True)(make_serve(handler, prims, options.burst))
        keep(loop, "inlined loop", handler_key(spec), loop_key(options))
        # Compile now, on a throw-away ring that asks the loop to leave at once.
        dummy = Rings.allocate(spec.request, spec.reply, 1)
        dummy.ctrl[TERMINATE] = 1
        try:
            loop(*dummy.arrays(), 1, state_arg(spec.state))
        except numba.core.errors.NumbaError as exc:
            raise not_compiled(spec, exc) from exc
        _LOOPS[key] = loop
    return loop


# -- pure-Python mode -------------------------------------------------------------------
def _status(code: Any, name: str) -> int:
    """A Python handler's status as an int; anything but an integer raises TypeError, and an
    integer the reply's int64 status cannot hold, OverflowError (both reach the caller as the
    message's error, and the loop goes on)."""
    if isinstance(code, numbers.Integral):
        if not -(2**63) <= int(code) < 2**63:
            raise OverflowError(
                f"[ring handler {name}] expected the status (the return value) to fit in "
                f"int64, got {int(code)}"
            )
        return int(code)
    raise TypeError(
        f"[ring handler {name}] expected the status (the return value) an integer, got "
        f"{type(code).__name__} {code!r} (it would be truncated)"
    )


def _py_no_fence() -> None:
    pass


def _py_load(ctrl, i):
    return int(ctrl[i])


def _py_store(ctrl, i, v):
    ctrl[i] = v


class CpuEngine(Engine):
    """The ring loop on a CPU thread: numba-compiled, or plain Python for Python handlers.

    Args:
        rings: Rings (ordinary NumPy memory).
        handler: The handler spec; ``handler.python`` selects the Python loop.
        options: Engine options (``spin``, ``burst``, ``max_sleep`` are used).
    """

    backend = "cpu"

    def __init__(self, rings: Rings, handler: HandlerSpec, options: EngineOptions):
        super().__init__(rings, handler, options)
        self._thread: threading.Thread | None = None
        self._doorbell: Any = None  # the compiled loop's (pdc.ring.engines.doorbell)
        self._wake = Waker()
        self._sleeping = False
        self.errors: dict[int, str] = {}  # correlation id -> text of the handler's exception
        self.failure: BaseException | None = None
        # The loop's argument after idle_limit: the state array (a stand-in without state).
        self._state: Any = state_arg(handler.state)
        if handler.python:
            py = self._python_handler()
            if handler.state is None:
                py = ignore_state(py)
            prims = Primitives(
                _py_load, _py_store, _py_load, _py_no_fence, _py_store, self._py_pause
            )
            self._serve = make_serve(py, prims, options.burst)
            # Records with attribute access (np.record), viewing the same memory.
            self._arrays: tuple[np.ndarray, ...] = (
                rings.ctrl,
                rings.req_meta,
                rings.req_slots.view(np.recarray),
                rings.rep_meta,
                rings.rep_slots.view(np.recarray),
            )
            if self.state_buf is not None:
                self._state = self.state_buf.view(np.recarray)
        else:
            from pdc.ring.engines.doorbell import Doorbell

            self._arrays = rings.arrays()
            self._doorbell = Doorbell(rings.ctrl)
            if self.state_buf is not None:
                self._state = self.state_buf
            if options.shared_loop:
                self._entry = compile_entry(handler)  # alive while the loop calls it
                self._serve = shared_loop(handler.request, handler.reply, handler.state, options)
                self._state = loop_state(self._entry, self._state)
            else:
                self._serve = compiled_loop(handler, options)

    @property
    def device(self) -> str:
        kind = "Python handler" if self.handler.python else "numba nogil loop"
        if self.options.shared_loop and not self.handler.python:
            kind += ", shared, handler called by address"
        return f"CPU thread ({kind})"

    def _python_handler(self):
        fn = self.handler.function
        errors = self.errors
        base = self.rings.req_slots.__array_interface__["data"][0]
        size = self.rings.req_slots.dtype.itemsize
        ids = self.rings.req_meta.reshape(-1, 2)[:, 0]
        buf = self.state_buf
        name = self.handler.name

        def handle(req, rep, *state):
            saved = None if buf is None else buf.copy()
            try:
                code = fn(req, rep, *state)
                code = 0 if code is None else _status(code, name)
            except Exception as exc:  # the handler's failure, reported to the caller
                # Keyed by the message's correlation id (its slot's), not by order.
                slot = (req.__array_interface__["data"][0] - base) // size
                errors[int(ids[slot])] = "".join(traceback.format_exception_only(exc)).strip()
                code = PY_EXCEPTION
            if code != 0 and buf is not None:
                buf[...] = saved  # commit on success only, as compiled handlers do
            return code

        return handle

    def _py_pause(self, ctrl: np.ndarray, idle: int) -> int:
        if idle <= 32:
            return 0
        self._sleeping = True
        self._wake.wait(min(self.options.max_sleep, 1e-5 * (idle - 32)))  # takes it
        self._sleeping = False
        return 1

    def _start(self) -> None:
        self._thread = threading.Thread(
            target=self._run, name=f"pdc-ring-{self.handler.name}", daemon=True
        )
        self._thread.start()

    def _run(self) -> None:
        try:
            # The compiled loop returns only on terminate: it spins, yields and sleeps
            # by itself (``pause``), so it never needs the GIL while the kernel lives.
            while self._serve(*self._arrays, 1 << 62, self._state) != 1:
                pass
        except BaseException as exc:  # pragma: no cover - reported by the runtime
            self.failure = exc
        finally:
            self.rings.ctrl[STATE] = S_TERMINATED

    def wake(self) -> None:
        """Wake the loop if it sleeps: a Python-handler loop's event, the compiled loop's
        doorbell (a fenced load of ``NAPPING`` when it does not nap)."""
        if self._doorbell is not None:
            self._doorbell.ring()
        elif self._sleeping:
            self._wake.set()

    def _join(self, timeout: float | None) -> bool:
        self.wake()
        done = join_worker(self._thread, self._wake, timeout)
        if done and self._doorbell is not None:
            self._doorbell.close()
        return done

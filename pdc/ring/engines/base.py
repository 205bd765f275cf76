"""The engine interface: what a backend implements to run the device side of a ring kernel.

An engine owns the device loop of one kernel. The runtime creates it like this::

    cls = engine_class("cpu")                       # or "cuda", "metal"
    alloc = cls.allocator(options)                  # where the rings must live
    rings = Rings.allocate(spec.request, spec.reply, options.queue_size, alloc=alloc)
    engine = cls(rings, spec, options)
    engine.launch()                                 # once: the loop starts serving
    ...                                             # host side: pdc.ring.host.rings.RingHost
    rings.ctrl[TERMINATE] = 1; engine.join(timeout)  # the loop leaves; True when it has

Everything else (activate, deactivate, send, receive, backpressure, telemetry) is the
protocol's, shared by all engines. A kernel with state (``pdc.ring.handlers.state``) also has
``engine.state_buf``: one record of the state dtype, allocated with the engine's allocator
(where its loop reads it), which the loop owns while it serves. Backends live in
``pdc.ring.engines.cpu`` (``CpuEngine``), ``pdc.ring.engines.cuda`` (``CudaEngine``) and
``pdc.ring.engines.metal`` (``MetalEngine``), imported only when asked for.
"""

from __future__ import annotations

import importlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from pdc.backends import NAMES
from pdc.ring.handlers import HandlerSpec
from pdc.ring.protocol import S_LAUNCHED, STATE, Rings, RingStateError, host_fence, numpy_alloc
from pdc.ring.protocol.args import count_arg, seconds_arg

__all__ = ["ENGINES", "Engine", "EngineOptions", "Waker", "engine_class", "join_worker"]

# backend name -> (module, class name), one per name of pdc.backends.NAMES; modules are
# imported on first use.
ENGINES = {name: (f"pdc.ring.engines.{name}", f"{name.capitalize()}Engine") for name in NAMES}


@dataclass
class EngineOptions:
    """Knobs shared by the engines (each may ignore what does not apply to it).

    Attributes:
        queue_size: Slots per request lane.
        reply_size: Slots of the reply ring (None: 2 * queue_size).
        burst: Messages handled per loop pass before the control words are read again.
        spin: Empty polls before the loop backs off (CPU: then sched_yield, then sleeps).
        yield_every: CPU: while spinning, yield the core every this many empty polls
            (0 = never; yielding hurt the round-trip latency on a loaded machine).
        max_sleep: Longest back-off sleep of an idle loop that nothing wakes (the cpu
            loop, a GPU kernel), in seconds.
        idle_nap: Longest back-off sleep of a loop on a host thread that every send wakes
            (metal, simulated cuda), in seconds: long, so that an idle kernel costs
            almost nothing, without delaying a message.
        shared_loop: CPU, compiled handlers: compile the handler alone and call it from a
            loop compiled once per process for the message dtypes and the other options
            (``pdc.ring.engines.shared_loop``), instead of compiling a loop around each
            handler. A new handler then launches in the time its own compile takes; each
            message pays one indirect call. Off by default.
        extra: Backend-specific settings (e.g. {"threads": 128} for CUDA).
    """

    queue_size: int = 1024
    reply_size: int | None = None
    burst: int = 256
    spin: int = 20_000
    yield_every: int = 0
    max_sleep: float = 1e-3
    idle_nap: float = 0.2
    shared_loop: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        op = "EngineOptions"
        count_arg(op, None, "queue_size", self.queue_size, least=1)
        if self.reply_size is not None:
            count_arg(op, None, "reply_size", self.reply_size, least=1)
        count_arg(op, None, "burst", self.burst, least=1)
        count_arg(op, None, "spin", self.spin)
        count_arg(op, None, "yield_every", self.yield_every)
        seconds_arg(op, None, "max_sleep", self.max_sleep, none=False)
        seconds_arg(op, None, "idle_nap", self.idle_nap, none=False)
        if not isinstance(self.shared_loop, bool):
            raise TypeError(
                f"[{op}] expected shared_loop a bool, got {type(self.shared_loop).__name__} "
                f"{self.shared_loop!r}"
            )
        if not isinstance(self.extra, dict):
            raise TypeError(f"[{op}] expected extra a dict, got {type(self.extra).__name__}")


class Engine(ABC):
    """The device side of one ring kernel.

    Subclasses set ``backend`` and implement ``_start`` and ``_join``; the base class keeps
    ``launches``, refuses a second launch and, for a handler with state, allocates
    ``state_buf`` (zeroed) with ``allocator(options)``.

    Args:
        rings: Rings allocated with ``cls.allocator(options)``.
        handler: The handler spec (compiled here, in the constructor or in ``launch``).
        options: Engine options.

    Attributes:
        state_buf: ``(1,)`` array of ``handler.state`` (the kernel's state), or None.
    """

    backend: ClassVar[str] = "?"

    def __init__(self, rings: Rings, handler: HandlerSpec, options: EngineOptions):
        self.rings = rings
        self.handler = handler
        self.options = options
        self.launches = 0
        self.state_buf: np.ndarray | None = None
        if handler.state is not None:
            self.state_buf = self.allocator(options)((1,), handler.state)
            self.state_buf.view(np.uint8)[...] = 0  # allocators may return uninitialised memory
        self._state_fence = host_fence()

    @classmethod
    def allocator(cls, options: EngineOptions) -> Callable[[tuple[int, ...], Any], np.ndarray]:
        """The ``alloc(shape, dtype)`` to allocate this engine's rings with (zeroed NumPy)."""
        return numpy_alloc

    @property
    def simulated(self) -> bool:
        """True when the device is simulated (numba's CUDA simulator, MLX on the CPU)."""
        return False

    @property
    def device(self) -> str:
        """Where the loop runs, in words."""
        return self.backend

    def launch(self) -> None:
        """Start the device loop (once per engine).

        Raises:
            RingStateError: on a second launch.
        """
        if self.launches:
            raise RingStateError(
                f"[{type(self).__name__}.launch] expected a fresh engine, got one launched "
                f"{self.launches} time(s): create a new kernel to launch again"
            )
        self.rings.ctrl[STATE] = S_LAUNCHED
        self.launches += 1
        self._start()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the loop to leave after ``TERMINATE`` was set.

        Returns:
            True when the loop has stopped (or was never launched).
        """
        if not self.launches:
            return True
        return self._join(timeout)

    def read_state(self) -> np.ndarray:
        """A copy of the state record (0-d); call only while the loop does not serve."""
        if self.state_buf is None:
            raise TypeError(f"[{type(self).__name__}.read_state] the handler has no state")
        self._state_fence()  # acquire: the loop's last writes before its acknowledgement
        return self.state_buf.copy().reshape(())

    def write_state(self, values: np.ndarray) -> None:
        """Replace the state record; call only while the loop does not serve."""
        if self.state_buf is None:
            raise TypeError(f"[{type(self).__name__}.write_state] the handler has no state")
        self.state_buf[0] = values
        self._state_fence()  # release: written before the host lets the loop serve again

    def wake(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Nudge a loop that sleeps while idle (called after host writes; may do nothing)."""

    @abstractmethod
    def _start(self) -> None:
        """Start serving ``self.rings`` with ``self.handler``."""

    @abstractmethod
    def _join(self, timeout: float | None) -> bool:
        """Wait up to ``timeout`` seconds for the loop to stop; True when it has."""


class Waker:
    """A wake-up for a loop that naps on a host thread, safe against Ctrl-C.

    Like ``threading.Event`` (``set``, ``wait``, ``clear``), but built on one lock whose
    every operation is a single C call: a ``KeyboardInterrupt`` landing in ``send`` can
    never leave it half-updated, as it can an Event (whose condition lock then stays held
    and deadlocks the next ``set``). A pending wake-up is the lock being free; ``wait``
    takes it.
    """

    __slots__ = ("_lock",)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()

    def set(self) -> None:
        """Make a wake-up pending (several before a ``wait`` count as one)."""
        try:
            self._lock.release()
        except RuntimeError:  # already pending
            pass

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` s for a wake-up and take it; True when there was one."""
        return self._lock.acquire(timeout=-1 if timeout is None else max(timeout, 0.0))

    def clear(self) -> None:
        """Drop a pending wake-up."""
        self._lock.acquire(blocking=False)

    def is_set(self) -> bool:
        """True while a wake-up is pending."""
        return not self._lock.locked()


def join_worker(thread: Any, wake: Any, timeout: float | None) -> bool:
    """Wake a host worker thread and wait up to ``timeout`` s for it; True when it has ended.

    Shared by the engines whose loop runs on a host thread: the CPU loop, the MLX
    dispatcher and a simulated CUDA kernel. ``thread`` is None when nothing was started.
    """
    if thread is None:
        return True
    wake.set()
    thread.join(timeout)
    return not thread.is_alive()


def engine_class(backend: str) -> type[Engine]:
    """Import and return the engine class of ``backend`` ("cpu", "cuda" or "metal").

    Raises:
        ValueError: for an unknown backend name.
        ImportError: when the backend's engine cannot be imported here.
    """
    if backend not in ENGINES:
        raise ValueError(f"[ring engine] expected a backend in {sorted(ENGINES)}, got {backend!r}")
    from pdc.backends import available_backends

    here = available_backends()
    if backend not in here:  # e.g. metal without MLX: its module imports, its engine cannot run
        raise ImportError(
            f"[ring engine] the {backend} engine needs the {backend} backend, which is not "
            f"installed in this Python (available: {', '.join(here)}); install it with "
            f"pip install 'pdc-course[{backend}]'"
        )
    module, name = ENGINES[backend]
    return getattr(importlib.import_module(module), name)


# What each thread building a kernel is doing now: a launch that times out names the step.
_BUILD_STAGES: dict[int, str] = {}


def build_stage(text: str | None) -> None:
    """Record (None: forget) the step the calling thread's kernel build is in."""
    if text is None:
        _BUILD_STAGES.pop(threading.get_ident(), None)
    else:
        _BUILD_STAGES[threading.get_ident()] = text


def build_stage_of(thread: threading.Thread) -> str | None:
    """The step ``thread`` last recorded with :func:`build_stage`, if any."""
    return None if thread.ident is None else _BUILD_STAGES.get(thread.ident)

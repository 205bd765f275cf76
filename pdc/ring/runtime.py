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

* ``"block"`` (default): wait for room; every send that had to wait is counted in
  ``blocked``. When the device makes no progress for ``block_timeout`` seconds the send
  raises ``RingFullError`` and is counted in ``rejected``.
* ``"reject"``: raise ``RingFullError`` at once; counted in ``rejected``. A batch is
  accepted whole or not at all.
* ``"drop_oldest"``: the device discards the oldest waiting message of that lane to make
  room; counted in ``dropped``, the dropped correlation ids are in ``kernel.dropped_ids``
  (a wait for a dropped message's reply raises ``RingError``). Only a device that makes no
  progress for ``block_timeout`` seconds makes such a send raise ``RingFullError``.

State: ``@ring_kernel(..., state=STATE, initial={...})`` gives the kernel a record of its
own, ``def h(req, rep, state)``, kept across messages and never sent by the host; a message
whose handler fails leaves it unchanged; ``read_state`` copies it while the kernel is
deactivated (``pdc.ring.handlers.state`` states the rules).

Replies come back in the order the device handled the messages (high lane first);
``receive`` returns the next one (or, with ``corr_id=``, the reply to one message), ``call``
sends one message and waits for its own reply.

Any number of threads and event loops may use one kernel: producers are serialised by one
lock, consumers by another (``pdc.ring.host.kernel`` states the reconciliation invariant).
A runtime that is garbage-collected without ``close()`` terminates its kernels; kernels
still running at interpreter exit are terminated too.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from typing import Any

import numpy as np

from pdc.backends import backend_class
from pdc.ring.definition import BACKPRESSURE, RingKernelDef, ring_kernel
from pdc.ring.engines.base import EngineOptions, build_stage, build_stage_of
from pdc.ring.host.kernel import RingKernel
from pdc.ring.host.replies import Replies, Reply, Telemetry, TerminateReport
from pdc.ring.protocol import S_TERMINATED, RingStateError, RingTimeoutError
from pdc.ring.protocol.args import seconds_arg

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

_LIVE: weakref.WeakSet = weakref.WeakSet()  # launched kernels, stopped at interpreter exit


def _stop(kernels: list[RingKernel], timeout: float) -> None:
    """Ask every kernel to leave, then wait for them (all together, not one by one)."""
    for k in kernels:
        if not k.life.terminated:
            k.life.terminated = True
            k.host.request_terminate()
            k.engine.wake()
    for k in kernels:
        k.engine.join(timeout)


@atexit.register
def _stop_live_kernels() -> None:
    # A persistent device loop left running would keep spinning (or hold a GPU context).
    _stop(list(_LIVE), 2.0)


def _collect(kernels: dict[str, RingKernel]) -> None:
    # The finalizer of a runtime dropped without close(): it holds the kernels, not the
    # runtime, so that the runtime can be collected.
    _stop(list(kernels.values()), 2.0)


def _resident_hint(backend: str) -> str:
    """What to try when a cuda build waits while other ring kernels run on the GPU."""
    if not backend_class(backend).shared_gpu_context:
        return ""
    ids = sorted(
        k.definition.kernel_id
        for k in list(_LIVE)
        if k.backend == backend and not k.engine.simulated and not k._dead()
    )
    if not ids:
        return ""
    return (
        f". {len(ids)} cuda ring kernel(s) are resident ({', '.join(ids)}): on a GPU, "
        "loading new code into the context waits for the kernels running in it; pdc parks "
        "its ring kernels around numba's loads (pdc.ring.parked), which cannot help while a "
        "handler never returns, so launch this kernel before them, or terminate them first"
    )


def _build(definition: RingKernelDef, backend: str, options: EngineOptions, timeout: float):
    """``RingKernel(...)``: rings allocated, loop and calls compiled, within ``timeout`` s.

    Compiling is a C call that nothing can interrupt, so it runs on a thread of its own
    and the caller stops waiting at the deadline. The thread then finishes in the
    background (the interpreter waits for it at exit) and its compiled code is cached, so
    a later launch of the same kernel is quicker; nothing is launched.
    """
    box: list[Any] = []

    def build() -> None:
        build_stage("checking its definition")
        try:
            box.append(RingKernel(definition, backend, options))
        except BaseException as exc:  # re-raised in the caller's thread below
            box.append(exc)
        finally:
            build_stage(None)

    kid = definition.kernel_id
    worker = threading.Thread(target=build, name=f"pdc-ring-build-{kid}")
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        spec = definition.spec
        raise RingTimeoutError(
            f"[launch {kid}] expected the kernel built within {timeout} s (rings allocated, "
            f"its {backend} loop and calls compiled for {len(spec.request.names or ())} "
            f"request and {len(spec.reply.names or ())} reply fields), got it still "
            f"{build_stage_of(worker) or 'starting'}; nothing was launched (the compiled "
            f"code is cached for a later launch){_resident_hint(backend)}"
        )
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]


class RingKernelRuntime:
    """Launches ring kernels and routes messages to them by kernel id.

    Args:
        backend: Default backend of the kernels ("cpu", "cuda", "metal"); None means
            ``pdc.default_backend()``.
        options: Engine options used for every kernel (queue_size comes from the kernel).

    Use as a context manager: leaving it terminates every kernel.
    """

    def __init__(self, backend: str | None = None, options: EngineOptions | None = None):
        if options is not None and not isinstance(options, EngineOptions):
            raise TypeError(
                f"[RingKernelRuntime] expected options an EngineOptions or None, got "
                f"{type(options).__name__} {options!r}"
            )
        self.backend = backend
        self.options = options
        self.kernels: dict[str, RingKernel] = {}
        self._finalizer = weakref.finalize(self, _collect, self.kernels)

    def __enter__(self) -> RingKernelRuntime:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _backend_for(self, definition: RingKernelDef, backend: str | None) -> str:
        name = backend or definition.backend or self.backend
        if name is None:
            import pdc

            name = pdc.default_backend()
        if definition.spec.python and not backend_class(name).host_ring_loop:
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
            timeout: Seconds the whole launch may take: building the kernel (compiling
                its loop, seconds on a first launch) and the device's acknowledgement of
                activation.

        Raises:
            RingTimeoutError: the kernel was not built, or its activation not acknowledged,
                within ``timeout`` (a kernel not built is not launched).
        """
        return self.launch_all(kernel, backend=backend, activate=activate, timeout=timeout)[0]

    def launch_all(
        self,
        *kernels: RingKernelDef,
        backend: str | None = None,
        activate: bool = True,
        timeout: float = 60.0,
    ) -> list[RingKernel]:
        """Build every kernel first, then launch them all: what several GPU rings need.

        On a GPU, allocating pinned memory and loading compiled code into the context can
        wait for the kernels running in it, and a ring kernel runs until it is terminated.
        Building all kernels before launching any keeps those steps away from resident
        rings. If one is not built, none is launched.

        Args:
            *kernels: ``@ring_kernel`` definitions with distinct ids, new to this runtime.
            backend: Overrides the kernels' and the runtime's backend.
            activate: Start processing at once (else call ``activate`` later).
            timeout: Seconds for the whole: building every kernel, then the activations.

        Raises:
            RingTimeoutError: a kernel was not built, or an activation not acknowledged,
                within ``timeout``.
        """
        ids = []
        for kernel in kernels:
            if not isinstance(kernel, RingKernelDef):
                raise TypeError(
                    f"[launch] expected a @ring_kernel definition, got {type(kernel).__name__}"
                )
            kid = kernel.kernel_id
            if kid in self.kernels or kid in ids:
                raise RingStateError(
                    f"[launch {kid}] expected a new kernel id, got one already launched"
                )
            ids.append(kid)
        if not kernels:
            raise ValueError("[launch_all] expected at least one @ring_kernel definition, got none")
        seconds = seconds_arg("launch", ids[0], "timeout", timeout, none=False) or 0.0
        deadline = time.monotonic() + seconds
        base = self.options or EngineOptions()
        built = []
        for kernel in kernels:
            name = self._backend_for(kernel, backend)
            options = EngineOptions(**{**base.__dict__, "queue_size": kernel.queue_size})
            left = max(0.0, deadline - time.monotonic())
            built.append(_build(kernel, name, options, left))
        for rk in built:
            rk.engine.launch()
            _LIVE.add(rk)
            self.kernels[rk.definition.kernel_id] = rk
        if activate:
            for rk in built:
                rk.activate(max(0.0, deadline - time.monotonic()))
        return built

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

    def read_state(self, kernel_id: str) -> np.ndarray:
        """A copy of a kernel's state (see ``RingKernel.read_state``)."""
        return self.kernel(kernel_id).read_state()

    def reset_state(self, kernel_id: str, values: Any = None) -> None:
        """Replace a deactivated kernel's state (see ``RingKernel.reset_state``)."""
        self.kernel(kernel_id).reset_state(values)

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
        timeout = seconds_arg("close", None, "timeout", timeout, none=False) or 0.0
        reports = {}
        for kid, rk in self.kernels.items():
            if rk.host.state() != S_TERMINATED or not rk.life.terminated:
                reports[kid] = rk.terminate(timeout)
        return reports

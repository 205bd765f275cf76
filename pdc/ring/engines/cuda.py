"""CUDA engine: one persistent CUDA kernel per ring, launched once, serving from mapped memory.

The rings live in host-mapped pinned memory (``numba.cuda.mapped_array``): the host writes
requests with plain NumPy stores and the kernel reads them over the bus, with no copies and
no launches per message. The kernel (``pdc.ring.engines.cuda_kernel``) is built per handler: the
handler becomes a CUDA device function (``cuda.jit(device=True)``) called from the
protocol's consumer loop, itself a device function called from the ``cuda.jit`` kernel.
The kernel runs with ``grid=1, block=1`` on a stream of its own that does not synchronize
with the default stream, so ordinary kernels keep running beside it.

Loading code into the context (the first launch of any new kernel) waits for the resident
kernel too, so the engine parks it around such loads (``pdc.ring.engines.parking``): the
kernel leaves on ``PARK`` and ``unpark`` launches it again on the same stream and rings.

A device-wide ``cuda.synchronize()`` waits for every kernel of the context, the resident
ring kernel included: it returns only once the ring kernel was terminated. Synchronize a
stream instead. While the kernel is resident numba's deferred frees are held back
(``cuda.defer_cleanup()``): a free that synchronized the context would wait forever.

Without a GPU, ``pdc.numba_cuda()`` gives numba's CUDA simulator, and the same kernel
function runs there: the engine launches it the way the simulator runs a 1x1 grid (a
``BlockThread`` executing the kernel with the module's ``cuda`` swapped for a
``FakeCUDAModule``), from a background thread, because a simulated launch blocks its caller
until the kernel returns. Two simulator details are left out on purpose: its single global
"current kernel" (which would forbid two ring kernels, or a ring kernel and an ordinary
kernel, at the same time) and its block manager, which polls threads in a busy loop to
implement ``syncthreads`` among several threads (the ring kernel has one thread and never
calls it). Everything else (kernel code, device functions, array semantics) is the
simulator's.
"""

from __future__ import annotations

import math
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from pdc.ring.engines.base import Engine, EngineOptions, Waker, build_stage
from pdc.ring.engines.cuda_host import (
    MIN_CC,
    SimMath,
    check_device,
    event_done,
    nonblocking_stream,
    sim_thread,
)
from pdc.ring.handlers import HandlerSpec
from pdc.ring.protocol import PARK, S_TERMINATED, STATE, Rings, RingTimeoutError

__all__ = ["MIN_CC", "CudaEngine", "SimMath", "check_device", "cuda_module", "event_done"]

GRID, BLOCK = 1, 1
_KERNELS: dict[tuple, tuple[Any, int]] = {}  # real GPU: (kernel, idle passes) per handler
_MAPPED: dict[int, Any] = {}  # id(host view) -> its numba MappedNDArray, while the view lives


def cuda_module() -> tuple[Any, bool]:
    """``(numba.cuda, simulated)``, enabling the simulator when there is no GPU."""
    from pdc.backends.cuda import numba_cuda

    cuda = numba_cuda()
    # The simulator's jit lives in numba.cuda.simulator (numba.cuda itself may have a
    # ``simulator`` attribute in real-GPU mode too, once that subpackage was imported).
    return cuda, "simulator" in getattr(cuda.jit, "__module__", "")


class CudaEngine(Engine):
    """The ring loop as one persistent CUDA kernel (numba's simulator when there is no GPU).

    Args:
        rings: Rings allocated with ``CudaEngine.allocator(options)`` (mapped memory).
        handler: A validated handler (pure-Python handlers run on the cpu backend only).
        options: ``burst``, ``spin`` and ``max_sleep`` are used.

    Attributes:
        trace: int64 words written only by the kernel (``cuda_kernel.T_*``): entries,
            consumer-loop calls, naps, messages handled, exits, threads in the launch.
            Final once the kernel has left its loop: on a GPU the kernel writes them with
            plain stores, which its closing system fence makes visible to the host, so
            read while it runs they can lag behind (an H200 showed 0 messages handled
            after 100,000 replies; the control words are the live view).
        failure: The exception that ended the kernel, if any.

    Raises:
        TypeError: for a pure-Python handler, or one numba.cuda cannot compile.
    """

    backend = "cuda"

    def __init__(self, rings: Rings, handler: HandlerSpec, options: EngineOptions):
        if handler.python:
            raise TypeError("[ring cuda] pure-Python handlers run on the cpu backend only")
        super().__init__(rings, handler, options)
        self._cuda, self._sim = cuda_module()
        if not self._sim:
            from pdc.backends import _probe

            check_device(self._cuda.get_current_device(), _probe.module_loading())
        from pdc.ring.engines import cuda_kernel as ck

        self._ck = ck
        self.failure: BaseException | None = None
        self._wake = Waker()
        self._thread: threading.Thread | None = None
        self._stream: Any = None
        self._done: Any = None
        self._defer: Any = None  # numba's defer_cleanup() while the kernel is resident
        self._finished = False
        self._park_lock = threading.RLock()
        self._parked = False
        self.trace = self.allocator(options)((ck.TRACE_WORDS,), np.int64)
        self.trace[...] = 0
        build_stage("building its loop around the handler")
        self._kernel = self._build()
        state = () if self.state_buf is None else (self.state_buf,)  # mapped, like the rings
        self._args = tuple(self._device_view(a) for a in (*rings.arrays(), self.trace, *state))
        if not self._sim:
            # numba compiles to a cubin, then loads it into the GPU context (cuModuleLoad).
            # On an H200 a second ring kernel was not built within 60 s while another was
            # resident; a launch that times out names the step it was in.
            build_stage("compiling its kernel and loading it onto the GPU")
            self._compile()

    # -- memory ---------------------------------------------------------------------------
    @classmethod
    def allocator(cls, options: EngineOptions) -> Callable[[tuple[int, ...], Any], np.ndarray]:
        """``alloc(shape, dtype)``: host-mapped pinned memory, returned as a NumPy view.

        On the simulator ``cuda.mapped_array`` wraps an ordinary host array, which is
        returned (the simulated kernel sees that same memory).
        """
        cuda, sim = cuda_module()

        def alloc(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
            mapped = cuda.mapped_array(shape, dtype)
            if sim:
                return mapped._ary
            host = np.ndarray.view(mapped, np.ndarray)
            # NumPy points host.base past the MappedNDArray, so remember it by the view.
            _MAPPED[id(host)] = mapped
            weakref.finalize(host, _MAPPED.pop, id(host), None)
            return host

        return alloc

    def _device_view(self, arr: np.ndarray) -> Any:
        """What the kernel is launched with for the host view ``arr`` (same memory)."""
        if self._sim:
            from numba.cuda.simulator.cudadrv.devicearray import (
                FakeCUDAArray,
                FakeWithinKernelCUDAArray,
            )

            return FakeWithinKernelCUDAArray(FakeCUDAArray(arr))
        mapped = _MAPPED.get(id(arr))
        if mapped is None or mapped.ctypes.data != arr.ctypes.data or mapped.shape != arr.shape:
            raise TypeError(
                "[ring cuda] expected rings allocated with CudaEngine.allocator (host-mapped "
                f"memory), got a {type(arr).__name__} of shape {arr.shape} that is not one"
            )
        return mapped

    # -- kernel ---------------------------------------------------------------------------
    def _build(self) -> Any:
        ck, opt = self._ck, self.options
        # The simulated loop is woken by every send: it may nap long when idle.
        nap = max(opt.max_sleep, opt.idle_nap) if self._sim else opt.max_sleep
        max_sleep_ns = int(nap * 1e9)
        spec = self.handler
        key = (
            spec.function,
            spec.request,
            spec.reply,
            spec.state,
            opt.burst,
            opt.spin,
            max_sleep_ns,
        )
        if not self._sim and key in _KERNELS:  # compiled once per handler and options
            kernel, self.idle_passes = _KERNELS[key]
            return kernel
        math_impl = SimMath() if self._sim else math
        fn = self.handler.build(select_impl=ck.select_device(self._sim), math_impl=math_impl)
        handler = self._cuda.jit(device=True)(fn)
        kernel, self.idle_passes = ck.build_kernel(
            handler,
            simulated=self._sim,
            burst=opt.burst,
            spin=opt.spin,
            max_sleep_ns=max_sleep_ns,
            wake=self._wake,  # simulator only: the kernel naps on this event
            stateful=spec.state is not None,
        )
        if not self._sim:
            _KERNELS[key] = (kernel, self.idle_passes)
        return kernel

    def _compile(self) -> None:
        from numba import typeof
        from numba.core.errors import TypingError

        sig = tuple(typeof(a) for a in self._args)
        try:
            self._kernel.compile(sig)
        except TypingError as exc:
            raise TypeError(
                f"[ring handler {self.handler.name}] numba.cuda cannot compile the handler for "
                f"the cuda backend:\n{exc}"
            ) from exc

    @property
    def simulated(self) -> bool:
        return self._sim

    @property
    def device(self) -> str:
        if self._sim:
            return "numba CUDA simulator (kernel body run by a Python thread), grid=1 block=1"
        dev = self._cuda.get_current_device()
        name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        return f"persistent CUDA kernel on {name}, grid={GRID} block={BLOCK}"

    def _start(self) -> None:
        from pdc.ring.engines import parking

        parking.refuse_inside_section(self.handler.name)  # before anything is set up
        if not self._sim:
            # numba frees device memory lazily, and a pending free can synchronize the
            # context: with a resident ring kernel that wait would never end. Frees are
            # deferred until the kernel has left (``_join``).
            self._defer = self._cuda.defer_cleanup()
            self._defer.__enter__()
            self._stream = nonblocking_stream(self._cuda)
            parking.install_load_hook()
        if parking.started(self):  # launched now, or at the end of a parked section
            self._run_kernel()

    def _run_kernel(self) -> None:
        """Launch the kernel: once, and again after each park (same rings, same stream)."""
        if self._sim:
            thread = sim_thread(self._kernel.py_func, self._args, self._sim_done)
            thread.name = f"pdc-ring-cuda-{self.handler.name}"
            thread.start()
            self._thread = thread  # started: another thread may join it at once
            return
        self._kernel[GRID, BLOCK, self._stream](*self._args)
        done = self._cuda.event(timing=False)
        done.record(self._stream)
        self._done = done

    # -- parking (pdc.ring.engines.parking) ---------------------------------------------
    def _left(self) -> bool:
        """True once the kernel launched last has returned (or nothing was launched)."""
        if self._sim:
            return self._thread is None or not self._thread.is_alive()
        return self._done is None or event_done(self._done)

    def park(self, timeout: float) -> bool:
        """Ask the kernel to leave, rings untouched, and wait until it has.

        The loop stores every word it owns before it reads the control words, so a
        launch after ``unpark`` goes on where this one stopped (``T_ENTRIES`` and
        ``T_PARKS`` count the launches and parks). Returns True when the kernel left,
        False when it was not running (not launched, parked, or finished).

        Raises:
            RingTimeoutError: when the kernel did not leave within ``timeout`` s (a
                handler that never returns); it is then left running.
        """
        with self._park_lock:
            if self._parked or self._finished or self._left():
                return False
            ctrl = self.rings.ctrl
            ctrl[PARK] = 1
            try:
                self.wake()
                deadline = time.monotonic() + timeout
                while not self._left():
                    if time.monotonic() >= deadline:
                        raise RingTimeoutError(
                            f"[park {self.handler.name}] expected the ring kernel to leave "
                            f"within {timeout} s so that new code can be loaded, got it still "
                            "running (a handler that does not return?); it keeps running"
                        )
                    time.sleep(1e-4)
            except BaseException:  # out of time, or Ctrl-C: the kernel must go on serving
                self._call_off_park()
                raise
            self._parked = True
            return True

    def _call_off_park(self) -> None:
        """Withdraw a PARK request; launch the kernel again if it left all the same."""
        self.rings.ctrl[PARK] = 0
        deadline = time.monotonic() + 0.2  # one that read PARK just before leaves at once
        while not self._left() and time.monotonic() < deadline:
            time.sleep(1e-3)
        if self._left() and not self._finished:
            self._run_kernel()

    def unpark(self) -> None:
        """Launch a parked kernel again (it reads the rings where it left them)."""
        with self._park_lock:
            if not self._parked:
                return
            self.rings.ctrl[PARK] = 0
            self._parked = False
            self._run_kernel()

    def _sim_done(self, exc: BaseException | None) -> None:
        if exc is None and not self.trace[self._ck.T_EXITS]:
            return  # parked: left without ending
        self.failure = exc
        self.rings.ctrl[STATE] = S_TERMINATED

    def wake(self) -> None:
        """Ends the simulated kernel's back-off sleep (a GPU kernel polls on its own)."""
        if self._sim:
            self._wake.set()

    def _join(self, timeout: float | None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._park_lock:  # a parked kernel has left, and will be launched again
                if self._finished or (not self._parked and self._left()):
                    break
            if deadline is not None and time.monotonic() >= deadline:
                return False
            thread = self._thread
            if self._sim and thread is not None:
                self._wake.set()
                thread.join(0.01)
            else:
                time.sleep(2e-4)
        if self._finished:
            return True
        from pdc.ring.engines import parking

        parking.forget(self)
        if self._sim:
            self._finished = True
            return True
        try:
            self._stream.synchronize()  # raises if the kernel faulted
        except Exception as exc:  # reported by the runtime
            self.failure = exc
        finally:
            self._finished = True
            self.rings.ctrl[STATE] = S_TERMINATED
            if self._defer is not None:
                self._defer.__exit__(None, None, None)
                self._defer = None
        return True

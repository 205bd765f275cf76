"""What the CUDA ring engine asks of the GPU, the driver and numba's simulator.

The device check (``check_device``), ``math`` with GPU semantics for simulated handlers
(``SimMath``), an event poll that does not log (``event_done``), the simulator thread that
runs a 1x1 kernel (``sim_thread``) and a stream that does not synchronize with the legacy
default stream (``nonblocking_stream``). ``pdc.ring.engines.cuda`` holds the engine itself.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from pdc.ring.handlers import MATH_FUNCTIONS

__all__ = ["MIN_CC", "SimMath", "check_device", "event_done", "nonblocking_stream", "sim_thread"]


class SimMath:
    """``math`` for handlers on the simulator, with GPU semantics for domain errors.

    On the device ``math.sqrt(-1.0)`` is NaN and ``math.log(0.0)`` is -inf; Python's
    ``math`` raises instead, which would end the simulated kernel. NumPy's ufuncs give the
    device's answers.
    """

    _NUMPY = {
        "fabs": "fabs",
        "pow": "power",
        "asin": "arcsin",
        "acos": "arccos",
        "atan": "arctan",
        "atan2": "arctan2",
    }

    def __init__(self) -> None:
        for name in MATH_FUNCTIONS:
            fn = getattr(np, self._NUMPY.get(name, name), None)
            if fn is None:  # erf: no NumPy ufunc; Python's never raises
                fn = getattr(math, name)
            setattr(self, name, self._quiet(fn))

    @staticmethod
    def _quiet(fn: Callable) -> Callable:
        def call(*args):
            with np.errstate(all="ignore"):
                return fn(*args)

        return call


# The ring kernel polls with ld.acquire.sys and naps with nanosleep: both need sm_70.
MIN_CC = (7, 0)


def check_device(dev: Any, loading: tuple[str, str]) -> None:
    """Refuse a GPU or a CUDA setup on which a resident ring kernel cannot work.

    Args:
        dev: numba's current ``Device``.
        loading: ``(mode, who chose it)`` from ``pdc.backends._probe.module_loading()``.

    Raises:
        RuntimeError: below compute capability 7.0; under lazy module loading (the first
            use of any other kernel would wait for the ring forever); on a GPU with a
            display watchdog (it kills a kernel after a few seconds).
    """
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    cc = tuple(dev.compute_capability)
    if cc < MIN_CC:
        raise RuntimeError(
            f"[ring cuda] expected a GPU of compute capability {MIN_CC[0]}.{MIN_CC[1]} or newer "
            f"(the ring kernel polls with ld.acquire.sys and naps with nanosleep), "
            f"got {name} with {cc[0]}.{cc[1]}; use backend='cpu' for rings on this machine"
        )
    mode, by = loading
    if mode != "EAGER":
        raise RuntimeError(
            f"[ring cuda] expected CUDA_MODULE_LOADING=EAGER, got {mode or 'unknown'} "
            f"(chosen by {by or 'nobody: pdc has not started CUDA'}): under lazy loading the "
            "first use of any other kernel waits for the resident ring forever. Set "
            "CUDA_MODULE_LOADING=EAGER before anything starts CUDA (before importing torch or "
            "CuPy), or call pdc.has_gpu() first"
        )
    if int(getattr(dev, "KERNEL_EXEC_TIMEOUT", 0)):
        raise RuntimeError(
            f"[ring cuda] {name} runs a display with a kernel watchdog, which ends a "
            "persistent kernel after a few seconds; use a GPU without a display, or "
            "backend='cpu'"
        )


def event_done(event: Any) -> bool:
    """True once the work recorded before ``event`` has completed (``cuEventQuery``).

    numba's ``Event.query()`` logs every "not ready" answer at ERROR level before it returns
    False: polled every 0.2 ms while a ring kernel ends, that floods any application that has
    configured logging. The binding is asked directly; other errors go through numba's query,
    which raises with its message.
    """
    from cuda.bindings import driver as cu

    (err,) = cu.cuEventQuery(event.handle)
    if err == cu.CUresult.CUDA_SUCCESS:
        return True
    if err == cu.CUresult.CUDA_ERROR_NOT_READY:
        return False
    return bool(event.query())


def sim_thread(kernel_fn: Callable, args: tuple, done: Callable) -> threading.Thread:
    """A simulator thread that runs ``kernel_fn(*args)`` as the single thread of a 1x1 grid."""
    from numba.cuda.simulator.kernel import BlockManager, BlockThread
    from numba.cuda.simulator.kernelapi import FakeCUDAModule, swapped_cuda_module

    fake = FakeCUDAModule((1, 1, 1), (1, 1, 1), 0)
    manager = BlockManager(kernel_fn, (1, 1, 1), (1, 1, 1), False)

    def body() -> None:
        exc: BaseException | None = None
        try:
            with swapped_cuda_module(kernel_fn, fake):
                kernel_fn(*args)
        except BaseException as e:  # the kernel's failure, reported by the runtime
            exc = e
        finally:
            done(exc)

    return BlockThread(body, manager, (0, 0, 0), (0, 0, 0), False)


def nonblocking_stream(cuda: Any) -> Any:
    """A stream that does not synchronize with the legacy default stream.

    A persistent kernel on an ordinary stream would make every later launch on the default
    stream wait for it, that is, forever.
    """
    from cuda.bindings import driver as binding
    from numba.cuda.cudadrv import driver as drv

    ctx = cuda.current_context()
    handle = drv.driver.cuStreamCreate(binding.CUstream_flags.CU_STREAM_NON_BLOCKING.value)
    # mypy reads numba's legacy numba.cuda (Stream(context, handle, finalizer)); at run time
    # numba-cuda's Stream(handle, finalizer=None) is used, as in its Context.create_stream.
    finalizer = drv._stream_finalizer(ctx.deallocations, handle)
    return drv.Stream(handle, finalizer=finalizer)  # type: ignore[call-arg]

"""Parking: resident CUDA ring kernels step aside while the GPU context loads new code.

Measured on an H100 (driver 580, numba-cuda 0.30): while a ring kernel is resident,
loading any new code into its context (``cuLibraryLoadData``, which numba-cuda reaches
through ``Context.create_module_image`` on a kernel's first launch) waits until that kernel
has left. Allocations, frees, compiling to PTX and cubin and launches of code already
loaded do not wait. So the first call of a new ``@cuda.jit`` kernel, or building a second
ring kernel, would wait for the first ring forever.

A parked kernel leaves its loop at its next reading of the control words (``PARK``), with
every word it owns already stored in the rings; the engine launches it again afterwards,
on the same stream with the same rings, and it goes on where it stopped. Messages sent
meanwhile wait in their ring: nothing is lost or reordered. ``parked()`` parks every
resident ring kernel of this process for the duration of a ``with`` block, and numba's
module loading does it by itself once a ring kernel runs on a real GPU
(``install_load_hook``). Code loaded by other libraries (a first CuPy kernel, PyTorch's
first CUDA call, a cuBLAS handle) cannot be seen from here: run it inside ``parked()``,
or before the first ring kernel is launched.

Written by hand: no library offers a hook around a CUDA context's code loading.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Iterator
from typing import Any

__all__ = [
    "PARK_TIMEOUT",
    "forget",
    "install_load_hook",
    "park_around_loads",
    "parked",
    "refuse_inside_section",
    "started",
]

PARK_TIMEOUT = 10.0  # seconds a kernel may take to leave (a handler that never returns)

_LOCK = threading.RLock()
_LIVE: weakref.WeakSet[Any] = weakref.WeakSet()  # engines that were started
_depth = 0  # parked() sections open
_held: list[Any] = []  # engines parked by the outermost section, launched again at its end
_hooked = False
_local = threading.local()  # .depth: sections this thread has open


def refuse_inside_section(name: str) -> None:
    """Refuse to launch ring kernel ``name`` from a thread that has a section open.

    Raises:
        RingStateError: the kernel could not start, and so could not acknowledge its
            launch, before the section ends.
    """
    if getattr(_local, "depth", 0):
        from pdc.ring.protocol import RingStateError

        raise RingStateError(
            f"[launch {name}] expected no parked() section open in this thread, got one: "
            "the kernel could not start before it ends; launch it after the with block"
        )


def started(engine: Any) -> bool:
    """Register ``engine`` as resident; False when a parked section is open.

    The engine is then marked parked and is launched at the end of that section (a kernel
    launched while another thread loads code would make that load wait).
    """
    with _LOCK:
        _LIVE.add(engine)
        if _depth == 0:
            return True
        with engine._park_lock:
            engine._parked = True
        _held.append(engine)
        return False


def forget(engine: Any) -> None:
    """Drop ``engine`` from the resident ones (its kernel has ended)."""
    with _LOCK:
        _LIVE.discard(engine)


@contextlib.contextmanager
def parked(timeout: float = PARK_TIMEOUT) -> Iterator[int]:
    """Park every resident CUDA ring kernel of this process while the block runs.

    Yields how many kernels this call parked (0 when none runs, or when an enclosing
    section already parked them). Sections nest and may be opened by several threads at
    once; the kernels run again when the last one closes. Sends to a parked kernel queue
    up as usual (``call`` waits for the reply until the section ends).

    Raises:
        RingTimeoutError: when a kernel did not leave within ``timeout`` s; the kernels
            already parked run again before it is raised.
    """
    global _depth
    mine, entered = 0, False
    try:
        with _LOCK:
            if _depth == 0:
                try:
                    for engine in list(_LIVE):
                        if engine.park(timeout):
                            _held.append(engine)
                            mine += 1
                except BaseException:
                    _release()
                    raise
            _depth += 1  # a Ctrl-C from here on lands in the finally below
            entered = True
            _local.depth = getattr(_local, "depth", 0) + 1
        yield mine
    finally:
        if entered:
            with _LOCK:
                _local.depth -= 1
                _depth -= 1
                if _depth == 0:
                    _release()


def _release() -> None:
    """Launch again every engine held by the closing section (under ``_LOCK``)."""
    while _held:
        _held.pop().unpark()


def install_load_hook() -> None:
    """Make numba-cuda's module loading park the resident ring kernels (once per process).

    Wraps ``Context.create_module_image``, through which numba-cuda loads every kernel it
    launches for the first time (``Context.create_module_ptx`` goes through it too).
    """
    global _hooked
    with _LOCK:
        if not _hooked:
            from numba.cuda.cudadrv import driver

            park_around_loads(driver.Context)
            _hooked = True


def park_around_loads(context_class: type) -> None:
    """Wrap ``context_class.create_module_image`` in ``parked()`` while any ring was started."""
    original = context_class.create_module_image  # type: ignore[attr-defined]

    def create_module_image(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not _LIVE:
            return original(self, *args, **kwargs)
        with parked():
            return original(self, *args, **kwargs)

    create_module_image.__wrapped__ = original  # type: ignore[attr-defined]
    context_class.create_module_image = create_module_image  # type: ignore[attr-defined]

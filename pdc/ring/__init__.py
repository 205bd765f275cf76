"""Persistent ring kernels: a device loop serving messages through rings in host memory.

The rings live where host and device both read them: host-mapped pinned memory (cuda),
ordinary memory (cpu), MLX unified memory (metal).

``import pdc.ring`` imports NumPy only; numba (CPU engine), numba.cuda and MLX are imported
when a kernel of that backend is launched.

The package in layers, lowest first (a module imports its own layer and those below only;
``tests/test_ring_layout.py`` checks it, and that no import cycle exists):

- ``pdc.ring.protocol``: what host and device agree on (record layouts, control words and
  states, errors, argument checks);
- ``pdc.ring.handlers``: the handler subset, its checks and its compilation;
- ``pdc.ring.engines``: the device side, one engine per backend and the loop they share;
- ``pdc.ring.host``: the host side, ``RingKernel`` composed of a ``Producer`` and a
  ``Consumer`` (each owning one lock), the stash, the asyncio side;
- ``pdc.ring.runtime`` and ``pdc.ring.definition``: the API re-exported here;
- ``pdc.ring.tools``: ``pdc bench ring`` and ``pdc stress``.
"""

from pdc.ring.engines.base import EngineOptions
from pdc.ring.engines.parking import parked
from pdc.ring.handlers import HandlerError, HandlerSpec, select
from pdc.ring.handlers.guards import FAULT
from pdc.ring.protocol import (
    HIGH,
    NORMAL,
    KernelState,
    RingError,
    RingFullError,
    RingHandlerError,
    RingStateError,
    RingTimeoutError,
)
from pdc.ring.runtime import (
    Replies,
    Reply,
    RingKernel,
    RingKernelDef,
    RingKernelRuntime,
    Telemetry,
    TerminateReport,
    ring_kernel,
)

__all__ = [
    "EngineOptions",
    "FAULT",
    "HIGH",
    "NORMAL",
    "HandlerError",
    "Replies",
    "Reply",
    "RingKernel",
    "RingKernelDef",
    "RingKernelRuntime",
    "Telemetry",
    "TerminateReport",
    "ring_kernel",
    "parked",
    "HandlerSpec",
    "KernelState",
    "RingError",
    "RingFullError",
    "RingHandlerError",
    "RingStateError",
    "RingTimeoutError",
    "select",
]

"""Persistent ring kernels: a device loop serving messages through rings in host memory.

The rings live where host and device both read them: host-mapped pinned memory (cuda),
ordinary memory (cpu), MLX unified memory (metal).

``import pdc.ring`` imports NumPy only; numba (CPU engine), numba.cuda and MLX are imported
when a kernel of that backend is launched.
"""

from pdc.ring.engines.base import EngineOptions
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
    "HandlerSpec",
    "KernelState",
    "RingError",
    "RingFullError",
    "RingHandlerError",
    "RingStateError",
    "RingTimeoutError",
    "select",
]

"""Ring kernel handlers: written once in a small subset of Python, run on every backend.

One idea per module: ``spec`` (``HandlerSpec``: validate a handler, build it for a
backend), ``subset`` (which constructs a handler may use), ``normalize`` (the walk that
applies the subset's rules), ``status`` (a handler's status is an integer), ``guards``
(faults become error replies) and ``state`` (the private record of a kernel with state).
This layer imports only ``pdc.ring.protocol``. The names of ``spec`` are importable from
here.
"""

from pdc.ring.handlers.spec import (
    ALL_BACKENDS,
    MATH_CONSTANTS,
    MATH_FUNCTIONS,
    HandlerError,
    HandlerSpec,
    MlxMath,
    select,
    validate,
)

__all__ = [
    "ALL_BACKENDS",
    "MATH_CONSTANTS",
    "MATH_FUNCTIONS",
    "HandlerError",
    "HandlerSpec",
    "MlxMath",
    "select",
    "validate",
]

"""Defining a ring kernel: ``@ring_kernel`` turns a handler into a ``RingKernelDef``.

Checks made here, before anything is allocated or launched: the backpressure mode, the
queue size (an integer, and rings of at most ``MAX_RING_BYTES``), and field names the API
itself uses (a request field ``priority`` would be taken by ``send``'s keyword, a reply
field ``status`` would be hidden by ``Reply.status``), and for a kernel with state its
dtype (scalar numeric fields, no name starting with ``_pdc``) and ``initial`` values
(``pdc.ring.handlers.state``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdc.ring.handlers import ALL_BACKENDS, HandlerSpec
from pdc.ring.handlers.state import check_state_dtype, initial_state
from pdc.ring.protocol import LANES, MAX_RING_BYTES
from pdc.ring.protocol.args import seconds_arg

__all__ = [
    "BACKPRESSURE",
    "MAX_RING_BYTES",
    "RESERVED_REPLY_FIELDS",
    "RESERVED_REQUEST_FIELDS",
    "RingKernelDef",
    "ring_bytes",
    "ring_kernel",
]

BACKPRESSURE = ("block", "reject", "drop_oldest")
# Keywords of send/call, and attributes of Reply: a field by that name could not be used.
RESERVED_REQUEST_FIELDS = frozenset({"priority", "timeout", "check", "message"})
RESERVED_REPLY_FIELDS = frozenset(
    {"corr_id", "status", "error", "kernel_id", "ok", "values", "raise_for_status"}
)


def ring_bytes(request: np.dtype, reply: np.dtype, queue_size: int) -> int:
    """Bytes of the rings of one kernel: both request lanes and the reply ring (2 lanes)."""
    meta = 16  # int64 [correlation id, disposition/status] per slot
    return LANES * queue_size * (request.itemsize + meta) + LANES * queue_size * (
        reply.itemsize + meta
    )


def _check_names(spec: HandlerSpec) -> None:
    for what, dtype, reserved in (
        ("request", spec.request, RESERVED_REQUEST_FIELDS),
        ("reply", spec.reply, RESERVED_REPLY_FIELDS),
    ):
        taken = sorted(set(dtype.names or ()) & reserved)
        if taken:
            raise ValueError(
                f"[ring_kernel {spec.name}] {what} field name(s) {taken} are reserved by the "
                f"API (reserved {what} names: {sorted(reserved)}); rename them"
            )


@dataclass
class RingKernelDef:
    """A ring kernel definition (what ``@ring_kernel`` returns).

    Attributes:
        kernel_id: Name of the kernel in a runtime.
        spec: The validated handler and its dtypes.
        queue_size: Slots per request lane.
        backend: Backend name, or None for the runtime's.
        backpressure: "block", "reject" or "drop_oldest".
        block_timeout: Longest wait of a blocked send, in seconds.
        initial: The state a launch starts from (0-d structured array), or None for a
            kernel without state.
    """

    kernel_id: str
    spec: HandlerSpec
    queue_size: int = 1024
    backend: str | None = None
    backpressure: str = "block"
    block_timeout: float = 5.0
    initial: np.ndarray | None = None

    def __call__(self, req: Any, rep: Any, *state: Any) -> Any:
        """Run the handler in Python on one request/reply (and state) record (for checks)."""
        return self.spec.function(req, rep, *state)


def ring_kernel(
    kernel_id: str | None = None,
    *,
    request: Any,
    reply: Any,
    queue_size: int = 1024,
    backend: str | None = None,
    backpressure: str = "block",
    block_timeout: float = 5.0,
    python: bool = False,
    state: Any = None,
    initial: Any = None,
) -> Callable[[Callable], RingKernelDef]:
    """Declare a ring kernel: a handler ``fn(req, rep)`` and its message types.

    With ``state`` the handler is ``fn(req, rep, state)``: ``state`` is the kernel's own
    record, kept across messages and never sent by the host (see ``pdc.ring.handlers.state``).

    Args:
        kernel_id: Name (default: the function's name).
        request: Request structured dtype (scalar numeric fields).
        reply: Reply structured dtype.
        queue_size: Slots per request lane (>= 1).
        backend: "cpu", "cuda", "metal" or None (the runtime's backend).
        backpressure: "block", "reject" or "drop_oldest" (see the module docstring).
        block_timeout: Seconds a blocked send waits before ``RingFullError``.
        python: Run the handler as plain Python (any Python; the cpu backend only).
        state: State structured dtype (scalar numeric fields), or None for no state.
        initial: The state at launch: a ``{field: value}`` dict (other fields 0) or a 0-d
            structured array; default all zeros.

    Returns:
        A decorator turning the handler into a ``RingKernelDef``.

    Raises:
        HandlerError: when the handler uses Python that a backend cannot run.
        ValueError: for a bad queue size, backpressure name or reserved field name
            (``RESERVED_REQUEST_FIELDS``, ``RESERVED_REPLY_FIELDS``, state fields starting
            with ``_pdc``), or ``initial`` values the state cannot hold.
        TypeError: for a queue size that is not an integer, a state dtype that is not
            structured with scalar numeric fields, or ``initial`` without ``state``.
    """
    if backpressure not in BACKPRESSURE:
        raise ValueError(
            f"[ring_kernel] expected backpressure in {BACKPRESSURE}, got {backpressure!r}"
        )
    if isinstance(queue_size, bool) or not isinstance(queue_size, (int, np.integer)):
        raise TypeError(
            f"[ring_kernel] expected an integer queue_size, got {type(queue_size).__name__} "
            f"{queue_size!r}"
        )
    if int(queue_size) < 1:
        raise ValueError(f"[ring_kernel] expected queue_size >= 1, got {queue_size}")
    if backend is not None and backend not in ALL_BACKENDS:
        raise ValueError(f"[ring_kernel] expected backend in {ALL_BACKENDS}, got {backend!r}")
    block_seconds = seconds_arg(
        "ring_kernel", kernel_id, "block_timeout", block_timeout, none=False
    )

    if state is None and initial is not None:
        raise TypeError("[ring_kernel] expected initial= only with state=, got no state")

    def decorate(fn: Callable) -> RingKernelDef:
        name = kernel_id or str(getattr(fn, "__name__", "handler"))
        st = None if state is None else check_state_dtype(state, name)
        start = None if st is None else initial_state(st, initial, name)
        spec = HandlerSpec.create(fn, request, reply, python=python, state=st)
        _check_names(spec)
        size = ring_bytes(spec.request, spec.reply, int(queue_size))
        if size > MAX_RING_BYTES:
            raise ValueError(
                f"[ring_kernel {spec.name}] queue_size={queue_size} needs {size:,} bytes of "
                f"rings, expected at most {MAX_RING_BYTES:,} bytes (MAX_RING_BYTES)"
            )
        return RingKernelDef(
            name, spec, int(queue_size), backend, backpressure, float(block_seconds or 0.0), start
        )

    return decorate

"""The ring protocol shared by every backend: memory layout, control words, states, errors.

The host side is ``pdc.ring.host.RingHost``; the device loop is ``pdc.ring.loop.make_serve``.

A ring kernel is a loop that runs on a device (a CPU thread, a persistent CUDA kernel, an
MLX dispatcher) and serves messages that the host writes into memory both sides read (not
CUDA's on-chip "shared memory"). Everything the two sides share is a handful of plain NumPy
arrays, created by one allocator callback ``alloc(shape, dtype) -> ndarray`` so that a
backend can place them where its device reads them (host-mapped pinned memory on CUDA,
ordinary memory on the CPU, MLX unified memory on Metal)::

    ctrl       int64[CONTROL_WORDS]       control block, one 64-byte cache line per counter
    req_meta   int64[LANES, capacity, 2]  per request slot: [correlation id, disposition]
    req_slots  request_dtype[LANES, capacity]   request payloads (user's structured dtype)
    rep_meta   int64[reply_capacity, 2]   per reply slot: [correlation id, status]
    rep_slots  reply_dtype[reply_capacity]      reply payloads (user's structured dtype)

Control block (``ctrl``): word ``k`` lives at index ``k * LINE`` (LINE = 8 int64 = 64 bytes),
so that no two counters share a cache line and each line has exactly one writer::

    byte  0  STATE        device  CREATED/LAUNCHED (host, before launch) -> ACTIVE/DEACTIVATED
                                  -> TERMINATING -> TERMINATED (the device's acknowledged
                                  state; the engine writes TERMINATED once the loop has left)
    byte 64  ACTIVE       host    1 = process messages, 0 = paused (messages wait)
    byte 128 TERMINATE    host    1 = leave the loop
    byte 192 ERR_CODE     device  last nonzero handler return value
    byte 256 ERR_COUNT    device  messages whose handler returned nonzero
    byte 320 PROCESSED    device  messages handled (replied to)
    byte 384 DROPPED      device  messages discarded on a drop-oldest request
    byte 448 REJECTED     host    sends refused (full queue with backpressure "reject"/timeout)
    byte 512 BLOCKED      host    sends that had to wait for space (backpressure "block")
    byte 576 SUBMITTED    host    messages written into the request rings
    byte 640 HEAD+0, +1   host    request ring heads, lane 0 (high) and lane 1 (normal)
    byte 768 TAIL+0, +1   device  request ring tails
    byte 896 SKIP+0, +1   host    drop floor: the device discards messages with sequence < SKIP
    byte 1024 REP_HEAD    device  reply ring head
    byte 1088 REP_TAIL    host    reply ring tail
    byte 1152 HEARTBEAT   device  loop passes (shows that the device is alive)
    byte 1216 NAPPING     device  1 while the cpu loop naps until its doorbell rings
    byte 1280 DOORBELL    host    the cpu loop's doorbell pipe (``pdc.ring.doorbell``)

Rings are single-producer/single-consumer. Heads and tails are monotonic message sequence
numbers (never wrapped); sequence ``s`` lives in slot ``s % capacity``. The producer of a ring
writes the slot, then publishes it with a release store of ``head = s + 1``; the consumer
reads ``head`` with an acquire load, reads the slot, then frees it with a release store of
``tail = s + 1``. Either side may publish several slots with one store (the device loop
handles up to ``burst`` messages, then stores each tail and the reply head once). Request
rings: host produces, device consumes. Reply ring: device produces, host consumes. A ring
is full when ``head - tail == capacity``.

Priorities: two lanes, ``HIGH`` (0) and ``NORMAL`` (1), each its own ring, FIFO within a
lane. Before every message the consumer looks at the high lane first, so a high-priority
message overtakes every normal one still waiting, never one already being handled.

Drop-oldest: the host cannot move a tail (the device owns it), so it raises ``SKIP[lane]``
instead; the device, active or paused, marks every waiting message below the floor as
dropped (``req_meta[..., 1] = DROPPED``), counts it in ``DROPPED`` and releases the slots.
A message the device had already taken is handled normally (it is marked PROCESSED), so the
host learns exactly which messages were dropped.

Reply slots: a reply slot is all zero bytes when the device takes it (the host zeroes a slot
when it consumes the reply), so reply fields a handler does not write read as 0.

Correlation ids: the host numbers every message 1, 2, 3, ... (0 means "empty"); the device
copies ``req_meta[lane, i, 0]`` into ``rep_meta[j, 0]`` and the handler's return value into
``rep_meta[j, 1]`` (0 = ok, anything else is the handler's error code).
"""

from __future__ import annotations

import platform
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "ACTIVE",
    "BLOCKED",
    "CONTROL_WORDS",
    "DOORBELL",
    "DROPPED",
    "ERR_CODE",
    "ERR_COUNT",
    "HEAD",
    "HEARTBEAT",
    "HIGH",
    "LANES",
    "LINE",
    "NAPPING",
    "NORMAL",
    "PROCESSED",
    "REJECTED",
    "REP_HEAD",
    "REP_TAIL",
    "SKIP",
    "STATE",
    "SUBMITTED",
    "TAIL",
    "TERMINATE",
    "DISP_DROPPED",
    "DISP_PROCESSED",
    "DISP_WAITING",
    "STATE_NAMES",
    "S_ACTIVE",
    "S_CREATED",
    "S_DEACTIVATED",
    "S_LAUNCHED",
    "S_TERMINATED",
    "S_TERMINATING",
    "aligned",
    "check_message_dtype",
    "host_fence",
    "KernelState",
    "RingError",
    "RingFullError",
    "RingHandlerError",
    "RingStateError",
    "RingTimeoutError",
    "Rings",
    "numpy_alloc",
]

LINE = 8  # int64 words per 64-byte cache line
LANES = 2
HIGH, NORMAL = 0, 1

# Words of the host descriptor of the cpu backend's compiled call (``pdc.ring.fast``): the
# rings' addresses and sizes, the hold buffer and the id and status of the reply it holds,
# and two words the kernel's producers share with the compiled call: the next correlation
# id, and a flag a producer of the generic path raises while it works on the rings.
D_CTRL, D_QMETA, D_REQ, D_RMETA, D_REP, D_CAP, D_RCAP, D_HOLD = range(8)
D_HELD, D_HELD_STATUS, D_NEXT, D_SENDING = 8, 9, 10, 11
DESC_WORDS = 12

# The error code a pure-Python handler's message gets when the handler raised (cpu backend).
PY_EXCEPTION = -1

# Control words, as indices into ``ctrl`` (already multiplied by LINE).
STATE = 0 * LINE
ACTIVE = 1 * LINE
TERMINATE = 2 * LINE
ERR_CODE = 3 * LINE
ERR_COUNT = 4 * LINE
PROCESSED = 5 * LINE
DROPPED = 6 * LINE
REJECTED = 7 * LINE
BLOCKED = 8 * LINE
SUBMITTED = 9 * LINE
HEAD = 10 * LINE  # + lane * LINE
TAIL = 12 * LINE  # + lane * LINE
SKIP = 14 * LINE  # + lane * LINE
REP_HEAD = 16 * LINE
REP_TAIL = 17 * LINE
HEARTBEAT = 18 * LINE
NAPPING = 19 * LINE
DOORBELL = 20 * LINE  # + 0..2: pollfd, armed, scratch (pdc.ring.doorbell)
CONTROL_WORDS = 21 * LINE
_TAIL_FROM_HEAD = TAIL - HEAD

# Disposition of a request slot (req_meta[lane, i, 1]), written by the device.
DISP_WAITING, DISP_PROCESSED, DISP_DROPPED = 0, 1, 2


# Kernel states as stored in ``ctrl[STATE]`` (plain ints: device code reads them).
S_CREATED, S_LAUNCHED, S_ACTIVE, S_DEACTIVATED, S_TERMINATING, S_TERMINATED = range(6)


class KernelState:
    """Kernel states as stored in ``ctrl[STATE]``."""

    CREATED = S_CREATED
    LAUNCHED = S_LAUNCHED
    ACTIVE = S_ACTIVE
    DEACTIVATED = S_DEACTIVATED
    TERMINATING = S_TERMINATING
    TERMINATED = S_TERMINATED


STATE_NAMES = {
    KernelState.CREATED: "created",
    KernelState.LAUNCHED: "launched",
    KernelState.ACTIVE: "active",
    KernelState.DEACTIVATED: "deactivated",
    KernelState.TERMINATING: "terminating",
    KernelState.TERMINATED: "terminated",
}


class RingError(RuntimeError):
    """Base class of ring kernel errors."""


class RingStateError(RingError):
    """An operation that the kernel's current state does not allow."""


class RingTimeoutError(RingError, TimeoutError):
    """A wait on a ring kernel ran out of time.

    Attributes:
        partial: For ``receive_batch``: the replies received before the time ran out.
    """

    partial: Any


class RingFullError(RingError):
    """A send found the request queue full (backpressure "reject", or "block" timed out).

    Attributes:
        accepted: Correlation ids of the messages of a batch that were sent before.
        dropped: Correlation ids dropped to make room during this send ("drop_oldest").
    """

    accepted: np.ndarray
    dropped: list[int]


class RingHandlerError(RingError):
    """A handler returned a nonzero error code (or raised, in Python-handler mode)."""

    def __init__(self, message: str, code: int, corr_id: int):
        super().__init__(message)
        self.code = code
        self.corr_id = corr_id


MAX_RING_BYTES = 1 << 28  # 256 MiB of rings per kernel (pinned memory on cuda)


def numpy_alloc(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Default allocator: zeroed host memory."""
    return np.zeros(shape, dtype)


def check_message_dtype(dtype: Any, what: str) -> np.dtype:
    """Return ``dtype`` as a structured dtype of scalar numeric fields, or raise TypeError."""
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"[ring {what}] expected a NumPy structured dtype, got {dtype!r}") from exc
    if dt.names is None or not dt.names:
        raise TypeError(f"[ring {what}] expected a structured dtype with named fields, got {dt}")
    for name in dt.names:
        fdt = dt.fields[name][0]
        if fdt.shape != () or fdt.kind not in "biuf" or fdt.names is not None:
            raise TypeError(
                f"[ring {what}] field {name!r}: expected a scalar bool/int/float field "
                f"(every backend handles those), got {fdt}"
            )
        if not fdt.isnative:
            raise TypeError(f"[ring {what}] field {name!r}: expected native byte order, got {fdt}")
        if not name.isidentifier():
            raise TypeError(f"[ring {what}] field name {name!r} is not a Python identifier")
    return aligned(dt)


def aligned(dt: np.dtype) -> np.dtype:
    """``dt`` with every field at a multiple of its own size (C layout), flagged aligned.

    NumPy packs structured dtypes by default (``[("tag", "i1"), ("x", "f8")]`` puts ``x``
    at byte 1); a GPU cannot load a misaligned float64 (numba.cuda refuses to compile it)
    and would read such fields byte by byte over the bus. The rings always use the aligned
    layout; sends convert records of the packed layout (same fields) to it.
    """
    fields: Mapping[str, Any] = dt.fields or {}
    most = max(fields[n][0].alignment for n in fields)
    if dt.isalignedstruct:
        return dt
    if dt.itemsize % most == 0 and all(fields[n][1] % fields[n][0].alignment == 0 for n in fields):
        # Already laid out aligned, but only the flag makes numba type the rings as aligned
        # records; without it every field is read one byte at a time.
        names = list(fields)
        return np.dtype(
            {
                "names": names,
                "formats": [fields[n][0] for n in names],
                "offsets": [fields[n][1] for n in names],
                "itemsize": dt.itemsize,
            },
            align=True,
        )
    return np.dtype([(n, fields[n][0]) for n in fields_by_offset(dt)], align=True)


@dataclass
class Rings:
    """The shared arrays of one ring kernel (see the module docstring for the layout).

    Attributes:
        ctrl: int64 control block, ``CONTROL_WORDS`` long.
        req_meta: int64 ``(LANES, capacity, 2)``: correlation id and disposition.
        req_slots: request dtype ``(LANES, capacity)``.
        rep_meta: int64 ``(reply_capacity, 2)``: correlation id and status.
        rep_slots: reply dtype ``(reply_capacity,)``.
    """

    ctrl: np.ndarray
    req_meta: np.ndarray
    req_slots: np.ndarray
    rep_meta: np.ndarray
    rep_slots: np.ndarray

    @classmethod
    def allocate(
        cls,
        request: Any,
        reply: Any,
        capacity: int,
        reply_capacity: int | None = None,
        alloc: Callable[[tuple[int, ...], Any], np.ndarray] = numpy_alloc,
    ) -> Rings:
        """Allocate and zero the arrays of one ring kernel with ``alloc``.

        Args:
            request: Request structured dtype.
            reply: Reply structured dtype.
            capacity: Slots per request lane (the queue size).
            reply_capacity: Reply slots; default ``LANES * capacity`` (every request fits).
            alloc: ``alloc(shape, dtype) -> ndarray``, e.g. ``numba.cuda.mapped_array``.

        Returns:
            The zeroed rings.
        """
        if int(capacity) < 1:
            raise ValueError(f"[Rings.allocate] expected capacity >= 1, got {capacity}")
        req = check_message_dtype(request, "request")
        rep = check_message_dtype(reply, "reply")
        rcap = LANES * int(capacity) if reply_capacity is None else int(reply_capacity)
        if rcap < 1:
            raise ValueError(f"[Rings.allocate] expected reply_capacity >= 1, got {rcap}")
        size = CONTROL_WORDS * 8 + LANES * int(capacity) * (16 + req.itemsize)
        size += rcap * (16 + rep.itemsize)
        if size > MAX_RING_BYTES:
            raise ValueError(
                f"[Rings.allocate] expected at most {MAX_RING_BYTES:,} bytes of rings "
                f"(MAX_RING_BYTES), got {size:,} for capacity={capacity}, "
                f"reply_capacity={rcap}"
            )
        rings = cls(
            ctrl=alloc((CONTROL_WORDS,), np.int64),
            req_meta=alloc((LANES, int(capacity), 2), np.int64),
            req_slots=alloc((LANES, int(capacity)), req),
            rep_meta=alloc((rcap, 2), np.int64),
            rep_slots=alloc((rcap,), rep),
        )
        for arr in rings.arrays():  # allocators may return uninitialised memory
            arr.view(np.uint8)[...] = 0
        return rings

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The five arrays in the order the consumer loop takes them."""
        return (self.ctrl, self.req_meta, self.req_slots, self.rep_meta, self.rep_slots)

    @property
    def capacity(self) -> int:
        """Slots per request lane."""
        return int(self.req_meta.shape[1])

    @property
    def reply_capacity(self) -> int:
        """Slots in the reply ring."""
        return int(self.rep_meta.shape[0])

    @property
    def request_dtype(self) -> np.dtype:
        """Request structured dtype."""
        return self.req_slots.dtype

    @property
    def reply_dtype(self) -> np.dtype:
        """Reply structured dtype."""
        return self.rep_slots.dtype

    def state(self) -> int:
        """The device's acknowledged state (a ``KernelState`` value)."""
        return int(self.ctrl[STATE])


def _no_fence() -> None:
    return None


def host_fence() -> Callable[[], None]:
    """The host side's fence, or a no-op where the hardware keeps the order.

    x86-64 keeps loads and stores in program order (TSO; only a store followed by a load
    may be reordered, which the protocol never relies on) and every NumPy access below is
    a separate C call, so the compiler cannot reorder them either: no fence is needed. On
    weaker memory models (aarch64, e.g. GH200) a compiled acquire-release fence from numba
    orders the slot writes before a head (release) and a head read before the slot reads
    (acquire).
    """
    if platform.machine().lower() in ("x86_64", "amd64", "i386", "i686"):
        return _no_fence
    from pdc.ring.atomics import release_fence  # numba only: imports no GPU library

    return release_fence


def fields_by_offset(dtype: np.dtype) -> tuple[str, ...]:
    """Field names of a structured dtype in memory order."""
    fields: Mapping[str, Any] = dtype.fields or {}
    return tuple(sorted(fields, key=lambda n: fields[n][1]))

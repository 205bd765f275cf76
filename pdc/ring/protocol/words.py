"""The words both sides of a ring share: the control block, the kernel states, the lanes.

Control block (``ctrl``): word ``k`` lives at index ``k * LINE`` (LINE = 8 int64 = 64 bytes),
so that no two counters share a cache line and each line has exactly one writer::

    byte  0  STATE        device  CREATED/LAUNCHED (host, before launch) -> ACTIVE/DEACTIVATED
                                  -> TERMINATING -> TERMINATED (the device's acknowledged
                                  state; the engine writes TERMINATED once the loop has left)
    byte 64  ACTIVE       host    1 = process messages, 0 = paused (messages wait)
    byte 128 TERMINATE    host    1 = leave the loop
    byte 136 PARK         host    1 = leave the kernel for a while, the rings untouched: the
                                  cuda engine launches it again (``pdc.ring.engines.parking``)
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
    byte 1280 DOORBELL    host    the cpu loop's doorbell pipe (``pdc.ring.engines.doorbell``)

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
from collections.abc import Callable

__all__ = [
    "ACTIVE",
    "BLOCKED",
    "CONTROL_WORDS",
    "D_CAP",
    "D_CTRL",
    "D_HELD",
    "D_HELD_STATUS",
    "D_HOLD",
    "D_NEXT",
    "D_POLLS",
    "D_QMETA",
    "D_RCAP",
    "D_REP",
    "D_REQ",
    "D_RMETA",
    "D_SENDING",
    "DESC_WORDS",
    "DISP_DROPPED",
    "DISP_PROCESSED",
    "DISP_WAITING",
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
    "PY_EXCEPTION",
    "REJECTED",
    "REP_HEAD",
    "REP_TAIL",
    "SKIP",
    "STATE",
    "STATE_NAMES",
    "SUBMITTED",
    "S_ACTIVE",
    "S_CREATED",
    "S_DEACTIVATED",
    "S_LAUNCHED",
    "S_TERMINATED",
    "S_TERMINATING",
    "TAIL",
    "TERMINATE",
    "PARK",
    "KernelState",
    "host_fence",
    "no_fence",
]

LINE = 8  # int64 words per 64-byte cache line
LANES = 2
HIGH, NORMAL = 0, 1

# Words of the host descriptor of the cpu backend's compiled call (``pdc.ring.host.fast``): the
# rings' addresses and sizes, the hold buffer and the id and status of the reply it holds,
# two words the kernel's producers share with the compiled call (the next correlation id,
# and a flag a producer of the generic path raises while it works on the rings), and how
# many times the compiled call polls for its reply.
D_CTRL, D_QMETA, D_REQ, D_RMETA, D_REP, D_CAP, D_RCAP, D_HOLD = range(8)
D_HELD, D_HELD_STATUS, D_NEXT, D_SENDING, D_POLLS = 8, 9, 10, 11, 12
DESC_WORDS = 13

# The error code a pure-Python handler's message gets when the handler raised (cpu backend).
PY_EXCEPTION = -1

# Control words, as indices into ``ctrl`` (already multiplied by LINE).
STATE = 0 * LINE
ACTIVE = 1 * LINE
TERMINATE = 2 * LINE
PARK = TERMINATE + 1  # in TERMINATE's line: the same writer (the host), read at the same time
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
DOORBELL = 20 * LINE  # + 0..2: pollfd, armed, scratch (pdc.ring.engines.doorbell)
CONTROL_WORDS = 21 * LINE

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


def no_fence() -> None:
    """The fence of hardware that keeps stores and loads in order: nothing to do."""
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
        return no_fence
    from pdc.ring.protocol.atomics import release_fence  # numba only: imports no GPU library

    return release_fence

"""The host side of the ring protocol: ``RingHost`` produces requests and consumes replies.

The byte map of the rings, who writes each word and the ordering rules are in
``pdc.ring.protocol``; this module is the only host code that touches the control words.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from pdc.ring.protocol import (
    ACTIVE,
    DISP_DROPPED,
    DISP_WAITING,
    HEAD,
    LINE,
    REP_HEAD,
    REP_TAIL,
    SKIP,
    STATE,
    SUBMITTED,
    TAIL,
    TERMINATE,
    Rings,
    fields_by_offset,
    host_fence,
    no_fence,
)

__all__ = ["RingHost", "record_struct"]

_TAIL_FROM_HEAD = TAIL - HEAD  # a lane's tail word, from its head word


_STRUCT_CODES = {
    ("b", 1): "?",
    ("i", 1): "b",
    ("i", 2): "h",
    ("i", 4): "i",
    ("i", 8): "q",
    ("u", 1): "B",
    ("u", 2): "H",
    ("u", 4): "I",
    ("u", 8): "Q",
    ("f", 2): "e",
    ("f", 4): "f",
    ("f", 8): "d",
}


def record_struct(dtype: np.dtype) -> struct.Struct:
    """A ``struct.Struct`` packing one record of ``dtype`` (native byte order, with padding)."""
    parts, pos = ["="], 0
    fields: Mapping[str, Any] = dtype.fields or {}
    for name in fields_by_offset(dtype):
        fdt, offset = fields[name][:2]
        if offset > pos:
            parts.append(f"{offset - pos}x")
        parts.append(_STRUCT_CODES[fdt.kind, fdt.itemsize])
        pos = offset + fdt.itemsize
    if dtype.itemsize > pos:
        parts.append(f"{dtype.itemsize - pos}x")
    st = struct.Struct("".join(parts))
    if st.size != dtype.itemsize:  # pragma: no cover - guarded by check_message_dtype
        raise TypeError(f"[record_struct] expected {dtype.itemsize} bytes, got {st.size}")
    return st


def _words(arr: np.ndarray) -> memoryview:
    """The int64 array ``arr`` as a flat memoryview: item access without NumPy scalars."""
    return arr.reshape(-1).view(np.uint8).data.cast("q")


class RingHost:
    """The host side of the protocol: produces requests, consumes replies.

    Single messages go through ``memoryview``/``struct`` (a few hundred nanoseconds, no
    NumPy scalar objects); batches through NumPy slices.

    Args:
        rings: The shared arrays.
        fence: Store fence called between writing a slot and publishing it.
    """

    def __init__(self, rings: Rings, fence: Callable[[], None] | None = None):
        self.rings = rings
        self.fence = host_fence() if fence is None else fence
        self._fence = None if self.fence is no_fence else self.fence
        self._ctrl = rings.ctrl
        self._cap = rings.capacity
        self._rcap = rings.reply_capacity
        self._c = _words(rings.ctrl)
        self._req_meta = rings.req_meta
        self._rep_meta = rings.rep_meta
        self._qm = _words(rings.req_meta)
        self._rm = _words(rings.rep_meta)
        self._req_buf = rings.req_slots.reshape(-1).view(np.uint8).data
        self._rep_buf = rings.rep_slots.reshape(-1).view(np.uint8).data
        self._req_struct = record_struct(rings.request_dtype)
        self._pack = self._req_struct.pack_into
        self._req_size = self._req_struct.size
        self._rep_struct = record_struct(rings.reply_dtype)
        self._rep_zero = bytes(rings.reply_dtype.itemsize)
        self._rep_raw = rings.rep_slots.view(np.uint8).reshape(self._rcap, -1)

    # -- control words ------------------------------------------------------------------
    def word(self, word: int) -> int:
        """The control word at index ``word`` (``STATE``, ``PROCESSED``...) now."""
        return self._c[word]

    def head(self, lane: int) -> int:
        """Messages ever written to ``lane`` (its head sequence)."""
        return self._c[HEAD + lane * LINE]

    def tail(self, lane: int) -> int:
        """Messages of ``lane`` the device took or dropped (its tail sequence)."""
        return self._c[TAIL + lane * LINE]

    def floor(self, lane: int) -> int:
        """The drop floor of ``lane`` (``request_drop``)."""
        return self._c[SKIP + lane * LINE]

    def state(self) -> int:
        """The device's acknowledged state (a ``KernelState`` value)."""
        return self._c[STATE]

    def set_active(self, on: bool) -> None:
        """Ask the device to process messages (True) or to pause (False)."""
        self._c[ACTIVE] = 1 if on else 0

    def request_terminate(self) -> None:
        """Ask the device loop to leave."""
        self._c[TERMINATE] = 1

    def submitted(self) -> int:
        """Messages ever written, both lanes (the heads, not a separate counter)."""
        c = self._c
        return c[HEAD] + c[HEAD + LINE]

    # -- counters -----------------------------------------------------------------------
    def pending(self, lane: int) -> int:
        """Messages written to ``lane`` and not yet taken (or dropped) by the device."""
        c = self._c
        return c[HEAD + lane * LINE] - c[TAIL + lane * LINE]

    def free(self, lane: int) -> int:
        """Free slots in ``lane``."""
        return self._cap - self.pending(lane)

    def replies_ready(self) -> int:
        """Replies written by the device and not yet consumed."""
        return self._c[REP_HEAD] - self._c[REP_TAIL]

    def add(self, word: int, n: int = 1) -> None:
        """Add ``n`` to a host-written control word."""
        self._c[word] += n

    # -- requests -----------------------------------------------------------------------
    def push(self, lane: int, corr_id: int, values: tuple) -> bool:
        """Write one request into ``lane``; False when the lane is full.

        Args:
            lane: HIGH or NORMAL.
            corr_id: Correlation id (> 0).
            values: One value per request field, in ``request_fields`` order.

        Raises:
            TypeError: when a value does not fit its field.
        """
        c = self._c
        hw = HEAD + lane * LINE
        h = c[hw]
        cap = self._cap
        if h - c[hw + _TAIL_FROM_HEAD] >= cap:
            return False
        k = lane * cap + h % cap
        try:
            self._pack(self._req_buf, k * self._req_size, *values)
        except (struct.error, OverflowError) as exc:
            raise TypeError(
                f"[send] expected values for the fields {self.rings.request_dtype.names} "
                f"({self.rings.request_dtype}), got {values!r}: {exc}"
            ) from None
        m = self._qm
        m[2 * k] = corr_id
        m[2 * k + 1] = DISP_WAITING
        if self._fence is not None:
            self._fence()
        c[hw] = h + 1
        c[SUBMITTED] += 1
        return True

    def push_batch(self, lane: int, corr_ids: np.ndarray, batch: np.ndarray) -> int:
        """Write as many of ``batch`` as fit into ``lane``; return how many were written."""
        c = self._ctrl
        hw = HEAD + lane * LINE
        h = int(c[hw])
        n = min(len(batch), self._cap - (h - int(c[TAIL + lane * LINE])))
        if n <= 0:
            return 0
        done = 0
        while done < n:  # at most two contiguous pieces (wrap-around)
            i = (h + done) % self._cap
            k = min(n - done, self._cap - i)
            self.rings.req_slots[lane, i : i + k] = batch[done : done + k]
            self._req_meta[lane, i : i + k, 0] = corr_ids[done : done + k]
            self._req_meta[lane, i : i + k, 1] = DISP_WAITING
            done += k
        self.fence()
        c[hw] = h + n
        c[SUBMITTED] += n
        return n

    def request_drop(self, lane: int, n: int) -> int:
        """Ask the device to drop the ``n`` oldest waiting messages of ``lane``.

        Returns:
            The new drop floor: the device is done when ``TAIL[lane] >= floor``.
        """
        c = self._ctrl
        h = int(c[HEAD + lane * LINE])
        floor = min(h, int(c[TAIL + lane * LINE]) + n)
        if floor > c[SKIP + lane * LINE]:
            c[SKIP + lane * LINE] = floor
        return floor

    def request_room(self, lane: int, n: int) -> int:
        """Ask the device to drop the fewest oldest messages of ``lane`` for ``n`` more to fit.

        The floor is set from the head, which only this side writes, so asking again for the
        same room, after the device has dropped some and before the host wrote more, drops
        nothing more. (``request_drop`` counts from the tail: a caller that saw the ring full
        just before the device freed slots would drop messages it never needed to; on an
        H100 a batch send dropped 7 messages where 5 made the room.)

        Returns:
            The drop floor in force: the device is done when ``TAIL[lane] >= floor``.
        """
        c = self._ctrl
        h = int(c[HEAD + lane * LINE])
        floor = min(h, h + int(n) - self._cap)
        if floor > c[SKIP + lane * LINE]:
            c[SKIP + lane * LINE] = floor
        return int(c[SKIP + lane * LINE])

    def withdraw_drop(self, lane: int, floor: int) -> None:
        """Lower the drop floor of ``lane`` back to ``floor`` (or to what the device took).

        Drops the device made already stay made (and are reported); no new one starts.
        """
        c = self._ctrl
        k = SKIP + lane * LINE
        c[k] = max(floor, int(c[TAIL + lane * LINE]))

    def dropped_ids(self, lane: int, start: int, stop: int) -> list[int]:
        """Correlation ids of the messages in sequence ``[start, stop)`` marked dropped.

        Only valid while those slots have not been reused (right after a drop request).
        """
        out = []
        for s in range(start, stop):
            i = s % self._cap
            if self._req_meta[lane, i, 1] == DISP_DROPPED:
                out.append(int(self._req_meta[lane, i, 0]))
        return out

    def waiting_ids(self, lane: int) -> list[int]:
        """Correlation ids still waiting in ``lane`` (oldest first)."""
        c = self._ctrl
        t, h = int(c[TAIL + lane * LINE]), int(c[HEAD + lane * LINE])
        return [int(self._req_meta[lane, s % self._cap, 0]) for s in range(t, h)]

    # -- replies ------------------------------------------------------------------------
    def pop(self) -> tuple[int, int, tuple] | None:
        """Consume one reply: ``(corr_id, status, values)``, or None when none is ready.

        ``values`` holds the reply fields in offset order (``reply_fields``).
        """
        c = self._c
        t = c[REP_TAIL]
        if c[REP_HEAD] <= t:
            return None
        if self._fence is not None:
            self._fence()  # acquire: the slot is read after the head that published it
        j = t % self._rcap
        st = self._rep_struct
        off = j * st.size
        values = st.unpack_from(self._rep_buf, off)
        corr = self._rm[2 * j]
        status = self._rm[2 * j + 1]
        self._rep_buf[off : off + st.size] = self._rep_zero
        if self._fence is not None:
            self._fence()  # release: the slot is read (and zeroed) before it is freed
        c[REP_TAIL] = t + 1
        return corr, status, values

    @property
    def request_fields(self) -> tuple[str, ...]:
        """Request field names in the order ``push`` takes values (by offset)."""
        return fields_by_offset(self.rings.request_dtype)

    @property
    def reply_fields(self) -> tuple[str, ...]:
        """Reply field names in the order ``pop`` returns values (by offset)."""
        return fields_by_offset(self.rings.reply_dtype)

    def peek_batch(self, limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """Copy up to ``limit`` ready replies without consuming them.

        Returns:
            ``(corr_ids, statuses, records, end)``: copies, and the reply tail after them
            (``commit_pop(end)`` consumes them).
        """
        c = self._ctrl
        t = int(c[REP_TAIL])
        n = min(int(limit), int(c[REP_HEAD]) - t)
        if n <= 0:
            empty = np.zeros(0, np.int64)
            return empty, empty.copy(), np.zeros(0, self.rings.reply_dtype), t
        self.fence()  # acquire (a no-op on x86): slots read after the head
        idx = self._reply_index(t, n)
        corr = self._rep_meta[idx, 0].copy()
        status = self._rep_meta[idx, 1].copy()
        recs = self.rings.rep_slots[idx].copy()
        return corr, status, recs, t + n

    def _reply_index(self, t: int, n: int) -> Any:
        j = t % self._rcap
        return (np.arange(j, j + n)) % self._rcap if j + n > self._rcap else slice(j, j + n)

    def commit_pop(self, end: int) -> None:
        """Consume the replies before sequence ``end`` (read by ``peek_batch``); idempotent."""
        c = self._ctrl
        t = int(c[REP_TAIL])
        if end <= t:
            return
        self._rep_raw[self._reply_index(t, end - t)] = 0
        self.fence()  # release (a no-op on x86): slots read before they are freed
        c[REP_TAIL] = end

    def pop_batch(self, limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Consume up to ``limit`` replies: ``(corr_ids, statuses, records)`` (copies)."""
        corr, status, recs, end = self.peek_batch(limit)
        self.commit_pop(end)
        return corr, status, recs

"""The arrays of one ring kernel and the record layouts in them.

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

The byte map of the control block and the rules of the rings are in
``pdc.ring.protocol.words``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdc.ring.protocol.words import CONTROL_WORDS, LANES, STATE

__all__ = [
    "MAX_RING_BYTES",
    "Rings",
    "aligned",
    "check_message_dtype",
    "fields_by_offset",
    "numpy_alloc",
]

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


def fields_by_offset(dtype: np.dtype) -> tuple[str, ...]:
    """Field names of a structured dtype in memory order."""
    fields: Mapping[str, Any] = dtype.fields or {}
    return tuple(sorted(fields, key=lambda n: fields[n][1]))

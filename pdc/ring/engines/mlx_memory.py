"""Where the metal engine's rings live: MLX-owned memory, read in place by the batches.

The rings are allocated as ``mx.zeros`` of bytes, evaluated, and handed to the protocol
as the NumPy view ``np.asarray(memoryview(buffer))``: on Apple Silicon that is unified
memory the GPU reads directly. A request column is a strided MLX view of that buffer
(``buffer.view(dtype).reshape(slots, words)[rows, column]``), read with no copy when the
field is naturally aligned; other fields, and float64 fields on the Metal GPU (converted
to float32), are copied.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from pdc.ring.engines.mlx_batch import mlx_dtype, own_stream

__all__ = ["column_readers", "mlx_alloc", "mlx_buffer"]


def mlx_alloc(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Zeroed MLX-owned memory of ``shape`` and ``dtype``, as a writable NumPy view."""
    import mlx.core as mx

    dt = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dt.itemsize
    with own_stream(mx):
        buf = mx.zeros((max(nbytes, 1),), dtype=mx.uint8)
        mx.eval(buf)
    # The view keeps ``buf`` alive (view -> memoryview -> buf).
    # mx.array exports the C buffer protocol, but its stubs declare no __buffer__.
    view = memoryview(buf)  # type: ignore[arg-type]
    return np.asarray(view)[:nbytes].view(dt).reshape(shape)


def mlx_buffer(arr: np.ndarray) -> Any:
    """The MLX array whose memory ``arr`` views, or None for ordinary NumPy memory."""
    base: Any = arr
    while base is not None and not isinstance(base, memoryview):
        base = getattr(base, "base", None)
    obj = getattr(base, "obj", None)
    return obj if type(obj).__module__.startswith("mlx") else None


def column_readers(
    mx: Any, slots: np.ndarray, names: tuple[str, ...], gpu: bool
) -> dict[str, tuple[bool, Callable[[int, int, int], Any]]]:
    """Per request field: (zero_copy, read(lane, start, n) -> mx.array of n values).

    Args:
        mx: ``mlx.core``.
        slots: The request slots, ``(LANES, capacity)`` records.
        names: The request fields to read.
        gpu: True on the Metal GPU (no float64: such fields are copied as float32).
    """
    buf = mlx_buffer(slots)
    rows = slots.shape[0] * slots.shape[1]
    cap = slots.shape[1]
    size = slots.dtype.itemsize
    out: dict[str, tuple[bool, Callable[[int, int, int], Any]]] = {}
    fields: Mapping[str, Any] = slots.dtype.fields or {}  # structured: never None
    for name in names:
        fdt, offset = fields[name][:2]
        mdt = mlx_dtype(mx, fdt, gpu)
        cast = mdt != mlx_dtype(mx, fdt)  # float64 on the Metal GPU, which has none
        aligned = offset % fdt.itemsize == 0 and size % fdt.itemsize == 0
        if buf is not None and aligned and not cast:
            words = size // fdt.itemsize
            col = offset // fdt.itemsize

            def read_view(lane, start, n, mdt=mdt, words=words, col=col):
                r0 = lane * cap + start
                return buf.view(mdt).reshape(rows, words)[r0 : r0 + n, col]

            out[name] = (True, read_view)
        else:
            field = slots[name]

            def read_copy(lane, start, n, field=field, mdt=mdt):
                v = np.ascontiguousarray(field[lane, start : start + n])
                return mx.array(v, dtype=mdt)  # (float64 would become float32 by default)

            out[name] = (False, read_copy)
    return out

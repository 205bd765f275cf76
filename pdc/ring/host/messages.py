"""What a request may look like: a lane, one message's fields, a batch; each checked.

``RequestFormat`` knows a kernel's request dtype and turns what a caller gives (keywords, a
dict, a tuple in dtype order, a record, a structured array) into field values in ring
order, raising ``TypeError`` or ``ValueError`` that name the operation, the kernel, the
field, the expected and the actual value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pdc.ring.protocol import HIGH, NORMAL, aligned
from pdc.ring.protocol.args import field_value

__all__ = ["LANES", "RequestFormat"]

LANES = {"high": HIGH, "normal": NORMAL, HIGH: HIGH, NORMAL: NORMAL}


class RequestFormat:
    """The request dtype of one kernel and the checks of what a caller sends.

    Args:
        request: The request dtype (aligned, as the rings hold it).
        names: Its field names in ring (memory) order.
        kernel_id: Named in errors.

    Attributes:
        nfields: The number of fields.
        order: The field names in dtype order (a tuple message follows it).
        bools: Indices (in ring order) of the bool fields.
    """

    def __init__(self, request: np.dtype, names: tuple[str, ...], kernel_id: str):
        self.request = request
        self.names = names
        self.kernel_id = kernel_id
        self.nfields = len(names)
        self.order: tuple[str, ...] = request.names or ()
        fields: Any = request.fields or {}
        self.bools = tuple(i for i, n in enumerate(names) if fields[n][0].kind == "b")

    def lane(self, priority: Any, op: str = "send") -> int:
        """The lane of ``priority`` ('high', 'normal', or 0, 1); ValueError otherwise."""
        try:
            return LANES[priority]
        except (KeyError, TypeError):
            raise ValueError(
                f"[{op} {self.kernel_id}] expected priority 'high' (0) or 'normal' (1), "
                f"got {priority!r}"
            ) from None

    def check_values(self, values: tuple, op: str) -> tuple:
        """``values`` checked field by field; raises naming the first that does not fit."""
        fields: Any = self.request.fields or {}
        return tuple(
            field_value(op, self.kernel_id, n, fields[n][0], v)
            for n, v in zip(self.names, values, strict=True)
        )

    def values(self, message: Any, fields: dict, op: str = "send") -> tuple:
        """The field values of one message, in ring order (keywords, dict, tuple, record)."""
        names = self.names
        if message is None:
            if len(fields) == self.nfields:
                try:
                    return tuple([fields[n] for n in names])
                except KeyError:
                    pass
            message = fields
        elif fields:
            raise TypeError(f"[{op} {self.kernel_id}] expected a message or fields, got both")
        if isinstance(message, dict):
            unknown = [k for k in message if k not in names]
            if unknown:
                raise ValueError(
                    f"[{op} {self.kernel_id}] unknown field(s) {unknown}; "
                    f"request fields are {self.request.names}"
                )
            return tuple([message.get(n, 0) for n in names])
        if isinstance(message, np.void):
            if message.dtype != self.request and not self.same_layout(message.dtype):
                raise TypeError(
                    f"[{op} {self.kernel_id}] expected a record of dtype {self.request}, "
                    f"got {message.dtype}"
                )
            return tuple([message[n] for n in names])
        if isinstance(message, tuple) and len(message) == len(names):
            order = self.order
            return tuple(message[order.index(n)] for n in names)
        raise TypeError(
            f"[{op} {self.kernel_id}] expected fields {self.request.names} (keywords, a "
            f"dict, a tuple or a record), got {message!r}"
        )

    def same_layout(self, dtype: np.dtype) -> bool:
        """True for the packed layout of the request dtype (same fields, same types)."""
        return dtype.names is not None and aligned(dtype) == self.request

    def check_batch(self, batch: Any, op: str) -> np.ndarray:
        """``batch`` as a 1-D array of the request dtype; TypeError or ValueError otherwise."""
        if not isinstance(batch, np.ndarray):
            raise TypeError(
                f"[{op} {self.kernel_id}] expected a NumPy structured array, "
                f"got {type(batch).__name__}"
            )
        if batch.dtype != self.request:
            if not self.same_layout(batch.dtype):
                raise TypeError(
                    f"[{op} {self.kernel_id}] expected dtype {self.request}, got {batch.dtype}"
                )
            batch = batch.astype(self.request)  # the packed layout of the same fields
        if batch.ndim != 1:
            raise ValueError(
                f"[{op} {self.kernel_id}] expected a 1-D batch, got shape {batch.shape}"
            )
        return batch

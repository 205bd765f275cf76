"""Launch a student's kernel for a checker, turning the usual failures into feedback."""

from __future__ import annotations

import inspect

import numpy as np

from . import Wrong


def cuda():
    """numba's CUDA module (the simulator when there is no GPU), imported on first use."""
    import pdc

    return pdc.numba_cuda()


def launch(kernel, grid, block, *args, what: str):
    """Run ``kernel[grid, block](*args)`` and copy device outputs back.

    Raises:
        Wrong: If the object is not a CUDA kernel, or the launch fails (for example an
            out-of-bounds index, which the simulator reports and a GPU may not).
    """
    if not hasattr(kernel, "configure") and not hasattr(kernel, "__getitem__"):
        raise Wrong(f"{what} is not a CUDA kernel: decorate it with @cuda.jit")
    try:
        kernel[grid, block](*args)
        cuda().synchronize()
    except IndexError as exc:
        raise Wrong(
            f"{what} indexed outside an array ({exc}): the last block overhangs the data, "
            "so every access needs a bounds guard"
        ) from exc
    except Exception as exc:
        raise Wrong(f"launching {what} failed: {type(exc).__name__}: {exc}") from exc
    return [np.asarray(a.copy_to_host() if hasattr(a, "copy_to_host") else a) for a in args]


def source(kernel) -> str | None:
    """The Python source of a kernel, or None where it cannot be read."""
    try:
        return inspect.getsource(getattr(kernel, "py_func", kernel))
    except (OSError, TypeError):
        return None


def require_guard(kernel, what: str) -> None:
    """Raise :class:`Wrong` when a kernel with correct results compares no index to a size.

    The simulator raises on an out-of-bounds index, but a GPU writes past the end silently,
    so there the results alone cannot show a missing guard.
    """
    text = source(kernel)
    if text is not None and not any(t in text for t in (".size", ".shape", "len(")):
        raise Wrong(
            f"the values are right here, but {what} never compares its index with the array's "
            "size: without a bounds guard a GPU writes past the end of out, silently"
        )

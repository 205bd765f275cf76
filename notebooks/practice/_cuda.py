"""Launch a student's kernel for a checker, turning the usual failures into feedback."""

from __future__ import annotations

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

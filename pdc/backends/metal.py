"""The Metal backend: MLX arrays in unified memory.

On Apple Silicon MLX runs on the Metal GPU; elsewhere (Linux with ``mlx[cpu]``) the same
code path runs on MLX's CPU device and the backend reports ``simulated=True``. Host and
device share memory, so a buffer's host view of an evaluated MLX array is zero-copy.
Features that exist only on Metal, such as custom kernels through
``mx.fast.metal_kernel``, raise a clear error when Metal is missing.
"""

from __future__ import annotations

import numpy as np

from .base import Backend


class MetalBackend(Backend):
    """mlx.core arrays; zero-copy host views; Metal kernels when Metal is present."""

    name = "metal"
    zero_copy = True

    def __init__(self) -> None:
        import mlx.core as mx

        self.mx = mx
        self.has_metal = bool(mx.metal.is_available())
        self.simulated = not self.has_metal
        self.device_name = "Apple GPU (Metal)" if self.has_metal else "MLX CPU device (no Metal)"

    def allocate(self, shape, dtype):
        _mx_dtype(self.mx, np.dtype(dtype))  # fail early, naming the dtype
        # From a fresh NumPy array, so the MLX array owns private, writable memory.
        arr = self.mx.array(np.zeros(shape, dtype))
        self.mx.eval(arr)
        return arr

    def copy_to_device(self, host, dev):
        arr = self.mx.array(host)
        self.mx.eval(arr)
        return arr

    def copy_to_host(self, dev, host):
        self.mx.eval(dev)
        np.copyto(host, np.asarray(memoryview(dev)))

    def host_view(self, dev):
        self.mx.eval(dev)
        return np.asarray(memoryview(dev))

    def synchronize(self):
        self.mx.synchronize()

    def launch(self, fn, grid, block, args):
        if not self.has_metal:
            raise RuntimeError(
                "[metal.launch] custom kernels need Metal (mx.fast.metal_kernel), but "
                "mx.metal.is_available() is False on this machine; run on Apple Silicon, "
                "or express the computation as MLX array operations"
            )
        return fn(*args, grid=grid, threadgroup=block)

    def info(self):
        return {
            "device": self.device_name,
            "simulated": self.simulated,
            "mlx": getattr(self.mx, "__version__", "?"),
            "default_device": str(self.mx.default_device()),
        }


def _mx_dtype(mx, dt: np.dtype):
    try:
        return getattr(mx, dt.name)
    except AttributeError:
        raise TypeError(f"[metal.allocate] MLX has no dtype for {dt}") from None

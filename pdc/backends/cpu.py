"""The CPU backend: the living specification of the device contract.

Device memory is a second, separate NumPy allocation, so every transfer a GPU would make
is a real copy here and is counted the same way. Kernels written against ``numba.cuda``
run on numba's CUDA simulator, one Python thread per CUDA thread.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .base import Backend


def simulate(fn: Any, grid: tuple[int, ...], block: tuple[int, ...], args: tuple) -> None:
    """Run a ``numba.cuda``-style kernel function on numba's CUDA simulator.

    The simulator works even when a real GPU is present: it swaps the kernel module's
    ``cuda`` name for a fake module while the kernel runs.
    """
    from numba.cuda.simulator.kernel import FakeCUDAKernel

    py_fn = getattr(fn, "py_func", fn)  # accept an already-jitted kernel too
    FakeCUDAKernel(py_fn, device=False)[grid, block](*args)


class CPUBackend(Backend):
    """NumPy arrays as device memory; numba's CUDA simulator for kernel launches."""

    name = "cpu"
    simulated = False
    zero_copy = False
    cuda_kernels = True
    host_ring_loop = True
    required = True

    def __init__(self) -> None:
        self.device_name = f"CPU ({os.cpu_count()} cores)"

    def allocate(self, shape, dtype):
        return np.empty(shape, dtype)

    def copy_to_device(self, host, dev):
        np.copyto(dev, host)
        return dev

    def copy_to_host(self, dev, host):
        np.copyto(host, dev)

    def launch(self, fn, grid, block, args):
        simulate(fn, grid, block, args)

    def info(self):
        return {"device": self.device_name, "simulated": False, "cores": os.cpu_count()}

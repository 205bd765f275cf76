"""``@kernel``: launch a numba.cuda kernel with geometry you can see.

The block is always given; the grid is either given too or computed from the problem
size as ``ceil(size / block)`` in each dimension, which is the one line of arithmetic a
student should be able to do in their head.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .backends import NAMES, Backend, backend_class
from .backends.base import Dims
from .buffer import UnifiedBuffer, resolve_backend

MAX_THREADS_PER_BLOCK = 1024
WARP_SIZE = 32


def _dims(op: str, what: str, value: Any) -> tuple[int, ...]:
    if isinstance(value, (int, np.integer)):
        dims: tuple = (value,)
    elif isinstance(value, (tuple, list)):
        dims = tuple(value)
    else:
        raise ValueError(f"[{op}] expected {what} as an int or a tuple of ints, got {value!r}")
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"[{op}] expected {what} with 1 to 3 dimensions, got {value!r}")
    for d in dims:
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 1:
            raise ValueError(f"[{op}] expected {what} of positive ints, got {value!r}")
    return tuple(int(d) for d in dims)


def check_block(block: Dims) -> tuple[int, ...]:
    """Validate a block shape: at most 1024 threads; warn if not a whole number of warps.

    Raises:
        ValueError: If the block is malformed or has more than 1024 threads.
    """
    dims = _dims("kernel", "block", block)
    threads = math.prod(dims)
    if threads > MAX_THREADS_PER_BLOCK:
        raise ValueError(
            f"[kernel] expected at most {MAX_THREADS_PER_BLOCK} threads per block, "
            f"got {threads} (block={dims})"
        )
    if threads % WARP_SIZE:
        warnings.warn(
            f"[kernel] block={dims} has {threads} threads, not a multiple of the warp size "
            f"{WARP_SIZE}: the last warp of every block runs partly empty",
            stacklevel=3,
        )
    return dims


def grid_for(size: Dims, block: tuple[int, ...]) -> tuple[int, ...]:
    """The smallest grid whose blocks cover ``size``: ``ceil(size / block)`` per dimension."""
    dims = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
    if len(dims) != len(block):
        raise ValueError(
            f"[kernel] expected a problem size with {len(block)} dimension(s) to match "
            f"block={block}, got size={tuple(dims)}"
        )
    if any(int(d) < 1 for d in dims):
        raise ValueError(f"[kernel] expected a positive problem size, got {tuple(dims)}")
    return tuple(-(-int(n) // b) for n, b in zip(dims, block))


class Kernel:
    """A kernel function bound to a launch geometry and a backend.

    Call it with the kernel's arguments. ``UnifiedBuffer`` arguments are passed as their
    device arrays (migrating data if the host is newer) and marked device-newer.
    """

    def __init__(
        self,
        fn: Callable,
        block: Dims,
        grid: Dims | None = None,
        backend: str | Backend | None = "cuda",
    ) -> None:
        self.fn = fn
        self.block = check_block(block)
        self.grid = None if grid is None else _dims("kernel", "grid", grid)
        self._backend_name = backend
        self._backend: Backend | None = None
        self._compiled: Any = None
        self.launches = 0
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = getattr(fn, "__doc__", None)

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            named = self._backend_name
            # A backend that runs no numba.cuda kernel is refused by its class first, before
            # starting it (which fails differently where, say, MLX is not installed).
            refused = isinstance(named, str) and named in NAMES
            refused = refused and not backend_class(str(named)).cuda_kernels
            backend = None if refused else resolve_backend(named)
            if backend is None or not backend.cuda_kernels:
                name = str(named) if backend is None else backend.name
                raise ValueError(
                    f"[kernel] expected backend 'cuda' or 'cpu' for a numba.cuda kernel, got "
                    f"{name!r}; write MLX array code or mx.fast.metal_kernel for Metal"
                )
            self._backend = backend
        return self._backend

    def geometry(self, size: Dims | None = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The ``(grid, block)`` a launch over ``size`` elements would use."""
        if self.grid is not None:
            return self.grid, self.block
        if size is None:
            raise ValueError(
                f"[{self.__name__}] expected a problem size (size=...) or a fixed grid, got neither"
            )
        return grid_for(size, self.block), self.block

    def __getitem__(self, geometry: tuple[Dims, Dims]) -> Callable[..., None]:
        """``k[grid, block](*args)``: launch once with explicit geometry."""
        grid, block = geometry
        grid, block = _dims("kernel", "grid", grid), check_block(block)
        return lambda *args: self._launch(grid, block, args)

    def __call__(self, *args: Any, size: Dims | None = None) -> None:
        if size is None and self.grid is None:
            first = next((a for a in args if hasattr(a, "shape") and len(a.shape)), None)
            if first is None:
                raise ValueError(
                    f"[{self.__name__}] expected size=... or an array argument to size the grid"
                )
            shape = tuple(first.shape)
            size = shape[: len(self.block)] if len(self.block) > 1 else shape[0]
        grid, block = self.geometry(size)
        self._launch(grid, block, args)

    def _launch(self, grid, block, args) -> None:
        backend = self.backend
        for pos, a in enumerate(args):
            if isinstance(a, UnifiedBuffer) and a.backend.name != backend.name:
                raise ValueError(
                    f"[{self.__name__}] expected argument {pos} on backend {backend.name!r} like "
                    f"the kernel, got a UnifiedBuffer on {a.backend.name!r}; create it with "
                    f"backend={backend.name!r} (or backend=kernel.backend)"
                )
        dev_args = tuple(a.device if isinstance(a, UnifiedBuffer) else a for a in args)
        if self._compiled is None:
            self._compiled = backend.compile(self.fn)
        backend.launch(self._compiled, grid, block, dev_args)
        self.launches += 1

    def __repr__(self) -> str:
        return f"<pdc.kernel {self.__name__} block={self.block} grid={self.grid or 'from size'}>"


def kernel(
    block: Dims = 256, grid: Dims | None = None, backend: str | Backend | None = "cuda"
) -> Callable[[Callable], Kernel]:
    """Decorate a ``numba.cuda``-style kernel function with its launch geometry.

    Args:
        block: Threads per block, an int or a tuple of up to 3 ints (at most 1024 in
            total; a warning when not a multiple of 32).
        grid: Blocks per grid; computed from the problem size when None.
        backend: ``"cuda"`` (a GPU, or numba's simulator without one) or ``"cpu"``
            (always the simulator).

    Returns:
        A decorator producing a :class:`Kernel`.

    Example::

        @pdc.kernel(block=128)
        def add(x, y, out):
            i = cuda.grid(1)
            if i < out.size:  # bounds guard: the last block may overhang
                out[i] = x[i] + y[i]

        add(x, y, out)           # grid = ceil(len(x) / 128)
    """

    def wrap(fn: Callable) -> Kernel:
        return Kernel(fn, block=block, grid=grid, backend=backend)

    return wrap

"""The CUDA backend: real CUDA through numba-cuda, or numba's CUDA simulator without a GPU.

numba.cuda is imported on first use, never by ``import pdc``. When the driver reports no
GPU, the simulator is switched on before the import (``NUMBA_ENABLE_CUDASIM=1``), so the
same kernels run on the CPU and the backend says so: ``simulated`` is True.
"""

from __future__ import annotations

import functools
import os
import sys
import time
import warnings
import weakref
from typing import Any

import numpy as np

from . import _probe
from .base import Backend


def numba_cuda():
    """Return the ``numba.cuda`` module, on the simulator when there is no GPU.

    Call this before ``from numba import cuda`` in code that must also run on machines
    without a GPU.

    Raises:
        RuntimeError: If numba.cuda was already imported in real-GPU mode on a machine
            with no GPU, so the simulator can no longer be switched on.
    """
    if not _probe.has_cuda_gpu() and "numba.cuda" not in sys.modules:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
        if "numba" in sys.modules:
            import numba

            numba.config.reload_config()
    from numba import cuda

    _check_numpy_supported()
    if not _probe.has_cuda_gpu() and not _is_sim(cuda):
        raise RuntimeError(
            "[numba_cuda] numba.cuda was imported before pdc could enable the CUDA simulator "
            "and this machine has no GPU; call pdc.numba_cuda() before importing numba.cuda, "
            "or set NUMBA_ENABLE_CUDASIM=1"
        )
    if _is_sim(cuda):
        accept_codegen_options(cuda)
    return cuda


#: Options of numba-cuda's ``cuda.jit`` that shape only the machine code it generates: line
#: tables for a profiler, a register cap, launch bounds, link-time optimisation, forced
#: inlining. numba's CUDA simulator runs a kernel as Python and its ``jit`` refuses them with
#: TypeError, so a kernel a GPU compiles (``@cuda.jit(max_registers=64)``, as the chapters
#: suggest) would stop a notebook on a laptop.
CODEGEN_ONLY = ("lineinfo", "max_registers", "launch_bounds", "lto", "forceinline")


def accept_codegen_options(cuda) -> None:
    """Give the simulator's ``cuda`` module a ``jit`` that takes and ignores ``CODEGEN_ONLY``.

    Written by hand: numba's simulator has no option for it. Only the module attribute is
    replaced (``cuda.jit``, and ``from numba.cuda import jit`` after this call); every other
    option still reaches numba's own ``jit``, which refuses what it does not know.
    """
    jit = cuda.jit
    if getattr(jit, "accepts_codegen_options", False):
        return

    @functools.wraps(jit)
    def accepting(*args, **kws):
        for name in CODEGEN_ONLY:
            kws.pop(name, None)
        return jit(*args, **kws)

    accepting.accepts_codegen_options = True  # type: ignore[attr-defined]
    cuda.jit = accepting


def _check_numpy_supported() -> None:
    """Refuse, naming both versions, a NumPy that numba-cuda's compiler cannot load with.

    numba-cuda 0.30 registers an implementation of ``np.row_stack``, which NumPy 2.5 removed:
    ``from numba import cuda`` still works there, but the first kernel compiled (on a GPU, in
    the simulator's typing, anywhere) fails deep inside numba with ``AttributeError``. Seen on
    a GPU node whose image had NumPy 2.5.2; ``pyproject.toml`` pins ``numpy<2.5`` for it.
    """
    if hasattr(np, "row_stack"):
        return
    from importlib import metadata

    try:
        version = metadata.version("numba-cuda")
    except metadata.PackageNotFoundError:
        return  # numba's own built-in CUDA target: not this problem
    if tuple(int(p) for p in version.split(".")[:2] if p.isdigit()) < (0, 31):
        raise RuntimeError(
            f"[numba_cuda] numba-cuda {version} cannot compile kernels with NumPy "
            f"{np.__version__}: it registers np.row_stack, which NumPy 2.5 removed; "
            "install numpy<2.5 (pip install 'numpy<2.5') and restart Python"
        )


def pending_frees(ctx: Any) -> list[Any]:
    """numba's queues of deferred frees of context ``ctx``: its own, and its memory manager's."""
    queues = [ctx.deallocations]
    manager = getattr(ctx, "memory_manager", None)
    own = getattr(manager, "deallocations", None)
    if own is not None and own is not ctx.deallocations:
        queues.append(own)
    return queues


def _is_sim(cuda) -> bool:
    """True if ``cuda`` is numba's simulator rather than the real CUDA target."""
    # Not hasattr(cuda, "simulator"): the real module gains that attribute once anything
    # imports numba.cuda.simulator (the CPU backend does).
    return "simulator" in getattr(cuda.jit, "__module__", "")


def _self_test_kernel(out):  # (1,) int32: one thread writes 1
    out[0] = 1


class CUDABackend(Backend):
    """numba.cuda device arrays and kernel launches (simulated when no GPU is present)."""

    name = "cuda"
    zero_copy = False
    cuda_kernels = True
    shared_gpu_context = True

    def __init__(self) -> None:
        self.cuda = numba_cuda()
        self.simulated = _is_sim(self.cuda)
        self.pinned_host = not self.simulated  # the simulator's pinned_array is plain memory
        # One dispatcher per Python function: cuda.jit compiles on its first launch and
        # keeps the result, so a function launched again is not compiled again.
        self._jitted: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
        if self.simulated:
            self.device_name = "numba CUDA simulator (no GPU)"
        else:
            dev = self.cuda.get_current_device()
            name = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
            self.device_name = str(name)

    def allocate(self, shape, dtype):
        return self.cuda.device_array(shape, dtype)

    def reclaim(self):
        # numba defers cuMemFree until many frees are pending; flush them. While a ring kernel
        # is resident its engine holds numba's defer_cleanup(), and this flush does nothing:
        # a cuMemFree would wait for the kernel, which never ends.
        # gc.collect() first: a device array held only by a reference cycle (a frame of a
        # caught exception, a closure) is not queued for freeing until a collection runs.
        # numba-cuda queues the frees of device memory on its memory manager, not on the
        # context (whose queue holds modules, streams and events): an H100 and an H200 kept
        # all 512 MiB of a freed buffer while only the context's queue was flushed.
        if not self.simulated:
            import gc

            gc.collect()
            for queue in pending_frees(self.cuda.current_context()):
                queue.clear()

    def host_empty(self, shape, dtype, pinned=False):
        if pinned:
            return self.cuda.pinned_array(shape, dtype)
        return np.empty(shape, dtype)

    def copy_to_device(self, host, dev):
        dev.copy_to_device(host)
        return dev

    def copy_to_host(self, dev, host):
        dev.copy_to_host(host)

    def synchronize(self):
        # The default stream, not cuda.synchronize(): a whole-device sync would wait forever
        # for a persistent ring kernel, which runs on a non-blocking stream of its own.
        self.cuda.default_stream().synchronize()

    def compile(self, fn):
        if hasattr(fn, "py_func") or hasattr(fn, "configure"):
            return fn  # already a numba dispatcher
        jitted = self._jitted.get(fn)
        if jitted is None:
            jitted = self._jitted[fn] = self.cuda.jit(fn)
        return jitted

    def launch(self, fn, grid, block, args):
        self.compile(fn)[grid, block](*args)

    def self_test(self) -> dict[str, Any]:
        """One thread writes 1 (compiled, launched, timed with events); versions that matter.

        ``pdc doctor`` runs it on a real GPU: a machine where the device is found but the
        first launch fails (PTX newer than the driver, no nvJitLink, cuda-bindings of another
        CUDA major) then reports the failure instead of "All good".
        """
        if self.simulated:
            return {}
        from importlib import metadata

        from numba.core.errors import NumbaPerformanceWarning

        out = self.cuda.to_device(np.zeros(1, np.int32))
        kernel = self.compile(_self_test_kernel)
        with warnings.catch_warnings():  # one thread on purpose: no "under-utilization" note
            warnings.simplefilter("ignore", NumbaPerformanceWarning)
            started = time.perf_counter()
            kernel[1, 1](out)
            self.cuda.synchronize()
            first = time.perf_counter() - started
            start, end = self.cuda.event(), self.cuda.event()
            start.record()
            kernel[1, 1](out)
            end.record()
            end.synchronize()
        got = int(out.copy_to_host()[0])
        if got != 1:
            raise RuntimeError(f"[cuda self-test] expected the kernel to write 1, got {got}")
        versions = {}
        for dist in ("numba-cuda", "cuda-bindings", "nvidia-nvjitlink-cu12", "nvidia-nvjitlink"):
            try:
                versions[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                pass
        return {
            "kernel_first_launch_ms": round(first * 1e3, 1),  # compile + launch + run
            "kernel_event_ms": round(start.elapsed_time(end), 3),
            "driver_cuda": _probe.cuda_driver_version(),
            "versions": versions,
        }

    def info(self) -> dict[str, Any]:
        out: dict[str, Any] = {"device": self.device_name, "simulated": self.simulated}
        if self.simulated:
            return out
        dev = self.cuda.get_current_device()
        free, total = self.cuda.current_context().get_memory_info()
        out.update(
            compute_capability=".".join(map(str, dev.compute_capability)),
            multiprocessors=dev.MULTIPROCESSOR_COUNT,
            memory_total_gib=round(total / 2**30, 1),
            memory_free_gib=round(free / 2**30, 1),
        )
        return out

"""pdc's CUDA simulator: numba-cuda's typed IR run by a SIMT machine, with a GPU's sanitizers.

``launch(kernel, grid, block, args)`` runs a numba-cuda kernel on NumPy arrays without a GPU,
exactly as numba-cuda types it, and reports what compute-sanitizer's tools would
(out-of-range accesses, uninitialised values, races, divergent barriers and warp
intrinsics) together with the memory behaviour a profiler shows (bank conflicts, sectors per
request, atomics per address). See pdc.sim.machine for the execution model.
"""

from __future__ import annotations

from pdc.sim.frontend import CompileError, Unsupported
from pdc.sim.run import dim3, launch_here

__all__ = ["CompileError", "Unsupported", "dim3", "launch", "launch_here"]


def launch(kernel, grid, block, args, names=None, *, record: bool = False):
    """Run ``kernel[grid, block](*args)`` on the simulator; NumPy arrays are updated in place.

    Args:
        kernel: A ``@cuda.jit`` kernel or its Python function.
        grid: Blocks per dimension (int or 1-3 ints).
        block: Threads per block (int or 1-3 ints).
        args: The kernel's arguments: NumPy arrays and scalars.
        names: Argument names for the report (default: the function's parameter names).
        record: Also map who touched each element (``LaunchReport.access``).

    Returns:
        A pdc.grade.simreport.LaunchReport.
    """
    from pdc.sim.frontend import real_cuda_available

    if real_cuda_available():
        return launch_here(kernel, grid, block, args, names, record=record)
    from pdc.sim import remote

    return remote.launch(kernel, grid, block, args, names, record=record)

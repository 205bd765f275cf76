"""pdc's CUDA simulator: numba-cuda's typed IR run by a SIMT machine, with a GPU's sanitizers.

``launch(kernel, grid, block, args)`` runs a numba-cuda kernel on NumPy arrays without a GPU,
exactly as numba-cuda types it, and reports what compute-sanitizer's tools would
(out-of-range accesses, uninitialised values, races, divergent barriers and warp
intrinsics) together with the memory behaviour a profiler shows (bank conflicts, sectors per
request, atomics per address). See pdc.sim.machine for the execution model.
"""

from __future__ import annotations

from pdc.sim.frontend import CompileError, Unsupported
from pdc.sim.launcher import install
from pdc.sim.run import dim3, launch_here

__all__ = ["CompileError", "Unsupported", "dim3", "install", "launch", "launch_here", "simulate"]


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


class simulate:  # noqa: N801 - used like numba's kernel[grid, block](...)
    """``pdc.simulate(kernel)[grid, block](*args)``: launch on the simulator, as on a GPU.

    NumPy arrays are updated in place; the call returns the LaunchReport, and ``print`` of
    the object after a launch gives a one-line summary of its findings.

    Example:
        >>> rep = pdc.simulate(add)[4, 32](x, y, out)  # doctest: +SKIP
    """

    def __init__(self, kernel):
        self.kernel = kernel
        self.report = None

    def __getitem__(self, geometry):
        if not isinstance(geometry, tuple) or len(geometry) != 2:
            raise ValueError(f"[simulate] expected kernel[grid, block], got kernel[{geometry!r}]")
        grid, block = geometry

        def run(*args):
            self.report = launch(self.kernel, grid, block, list(args))
            return self.report

        return run

    def __repr__(self) -> str:
        return summary(self.report) if self.report is not None else "simulate(not launched)"


def summary(rep) -> str:
    """One line: how many findings of each kind a launch had (or that it had none)."""
    if not rep.findings:
        return f"pdc.sim: grid {tuple(rep.grid)} block {tuple(rep.block)}: no findings"
    parts = [f"{v['count']} {k}" for k, v in rep.findings.items()]
    first = next(iter(rep.findings.values()))["examples"][0]
    return f"pdc.sim: {', '.join(parts)}; first: {first}"

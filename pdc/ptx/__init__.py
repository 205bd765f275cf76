"""Compile the course's numba.cuda kernels for a real GPU, on a machine without one.

``compile_source`` and ``compile_many`` run numba in a child process that does not use the
simulator, then ``ptxas -v`` (from the ``nvidia-cuda-nvcc-cu12`` wheel) reports registers,
shared memory, local memory and spills. Importing this package imports no GPU library.
"""

from __future__ import annotations

from .build import Build, CompilerMissing, find_ptxas
from .compile import compile_function, compile_many, compile_source, describe
from .occupancy import DEVICES, Occupancy, SMLimits, occupancy
from .resources import Resources, resources

__all__ = [
    "DEVICES",
    "Build",
    "CompilerMissing",
    "Occupancy",
    "Resources",
    "SMLimits",
    "compile_function",
    "compile_many",
    "compile_source",
    "describe",
    "find_ptxas",
    "occupancy",
    "resources",
]

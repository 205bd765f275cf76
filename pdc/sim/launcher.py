"""``kernel[grid, block](*args)`` on pdc.sim where a notebook has no GPU.

Without a GPU, ``pdc.numba_cuda()`` gives numba's CUDA simulator, which runs a kernel's
Python source thread by thread with NumPy's semantics: a ``uint8`` minus an ``int`` wraps
there where numba-cuda widens it, ``cuda.libdevice`` and ``match_any_sync`` do not exist
there, and a large launch takes minutes. ``check()`` and ``pdc grade`` run the typed IR
numba-cuda compiles (pdc.sim). An exercise's setup cell calls ``install(cuda)`` so that its
demo cells launch the student's kernel on that same executor: a kernel ``check()`` passes
gives the same values in the demo cell, and one that reads out of range says so.

``install`` replaces only ``cuda.jit`` on numba's simulator module (as
pdc.backends.cuda.accept_codegen_options does): the kernels it makes launch on pdc.sim,
device functions stay numba's, and every other name of ``cuda`` (``to_device``,
``device_array``, ``grid``) is numba's simulator's as before. With a GPU it does nothing.
Written by hand: numba has no hook to run its simulator's launches elsewhere.
"""

from __future__ import annotations

import functools
import sys
import warnings
from typing import Any


class SimFindings(UserWarning):
    """A launch on pdc.sim found what compute-sanitizer would report on a GPU."""


class SimKernel:
    """A ``cuda.jit`` kernel of numba's simulator whose launches run on pdc.sim.

    ``kernel[grid, block](*args)`` updates NumPy arrays (and the arrays behind
    ``cuda.to_device``) in place, as a launch on a GPU does, and returns None;
    ``kernel.last_report`` is the launch's pdc.grade.simreport.LaunchReport. Every other
    attribute (``py_func``, ``__name__``) is the numba kernel's.
    """

    def __init__(self, kernel: Any):
        self._kernel = kernel
        self.last_report: Any = None
        fn = kernel.py_func
        self.__name__, self.__qualname__ = fn.__name__, fn.__qualname__
        self.__doc__, self.__wrapped__ = fn.__doc__, fn

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kernel, name)

    def __getitem__(self, config: Any):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise ValueError(
                f"[sim.launcher] expected kernel[grid, block] (or [grid, block, stream]), "
                f"got kernel[{config!r}]"
            )
        grid, block = config[0], config[1]
        if len(config) == 4 and config[3]:
            raise ValueError(
                f"[sim.launcher] expected no dynamic shared memory size in a launch on pdc.sim, "
                f"got {config[3]!r} bytes: size the shared array with a constant"
            )

        def launch(*args: Any) -> None:
            from pdc.sim import launch as sim_launch
            from pdc.sim import summary

            rep = sim_launch(self._kernel, grid, block, [_host(a) for a in args])
            self.last_report = rep
            if rep.findings:
                warnings.warn(summary(rep), SimFindings, stacklevel=2)

        return launch

    def __repr__(self) -> str:
        return f"<kernel {self.__name__}: launches on pdc.sim>"


def _host(arg: Any) -> Any:
    """The NumPy array behind a simulator device array (``cuda.to_device(x)``), else ``arg``."""
    if type(arg).__name__ == "FakeCUDAArray":
        return arg._ary
    return arg


def _wrap(made: Any) -> Any:
    if type(made).__name__ == "FakeCUDAKernel":
        return made if made._device else SimKernel(made)
    if callable(made):  # cuda.jit(sig) or cuda.jit(**options): a decorator
        return lambda fn: _wrap(made(fn))
    return made


def install(cuda: Any) -> None:
    """Make ``cuda.jit`` kernels launch on pdc.sim where ``cuda`` is numba's simulator.

    Args:
        cuda: The module ``pdc.numba_cuda()`` returned. With a GPU it is numba-cuda's own,
            and nothing changes.
    """
    from pdc.backends.cuda import _is_sim

    if not _is_sim(cuda) or installed(cuda):
        return
    jit = cuda.jit

    @functools.wraps(jit)
    def jit_on_sim(*args: Any, **kws: Any) -> Any:
        return _wrap(jit(*args, **kws))

    jit_on_sim.launches_on_pdc_sim = True  # type: ignore[attr-defined]
    cuda.jit = jit_on_sim


def installed(cuda: Any = None) -> bool:
    """True where ``cuda`` (default: numba.cuda, if imported) launches on pdc.sim."""
    cuda = cuda if cuda is not None else sys.modules.get("numba.cuda")
    return bool(getattr(getattr(cuda, "jit", None), "launches_on_pdc_sim", False))

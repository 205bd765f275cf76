"""Print from a kernel and step through one of its threads, on numba's CUDA simulator.

On the simulator a kernel is Python run by one Python thread per CUDA thread, so two of the
debugger's habits work without a GPU: ``print`` inside the kernel, and stepping through the
lines one thread executes. :func:`run_on_simulator` does both and returns what it saw:

- the text the kernel printed, in the order the simulator ran its threads;
- for the thread ``thread=(block, thread)`` only, one :class:`Step` per line it executed,
  with the values of its scalar variables *before* that line ran (what ``pdb`` shows at a
  ``breakpoint()`` placed there).

Where ``numba.cuda`` is the real GPU target (an NVIDIA machine), the same kernel is run on the
simulator in a child process (``NUMBA_ENABLE_CUDASIM=1`` must be set before numba is imported),
its Python function sent there with cloudpickle. Stepping uses ``threading.settrace``, the
standard library's per-thread tracing hook, because no debugger records the steps of one
simulated thread among many without stopping for input.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Dims = int | tuple[int, ...]


@dataclass
class Step:
    """One line executed by the traced thread: its number, its text, the values before it."""

    line: int
    source: str
    values: dict[str, Any]

    def __str__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        return f"line {self.line:3d}  {self.source.strip():48s} | {shown}"


@dataclass
class SimRun:
    """What :func:`run_on_simulator` saw: printed text, the traced steps, the arguments after."""

    printed: str
    steps: list[Step] = field(default_factory=list)
    args: tuple = ()
    where: str = ""


def _dims(value: Dims) -> tuple[int, int, int]:
    parts = (value,) if isinstance(value, int) else tuple(value)
    if not 1 <= len(parts) <= 3 or not all(isinstance(p, int) and p > 0 for p in parts):
        raise ValueError(f"[run_on_simulator] expected 1 to 3 positive ints, got {value!r}")
    return (*parts, 1, 1)[:3]  # type: ignore[return-value]


def _index(value: Dims) -> tuple[int, int, int]:
    parts = (value,) if isinstance(value, int) else tuple(value)
    if not 1 <= len(parts) <= 3 or not all(isinstance(p, int) and p >= 0 for p in parts):
        raise ValueError(
            f"[run_on_simulator] expected a thread index of 1 to 3 ints >= 0, got {value!r}"
        )
    return (*parts, 0, 0)[:3]  # type: ignore[return-value]


def _shown(value: Any) -> Any:
    if isinstance(value, (bool, int, float, np.integer, np.floating, np.bool_)):
        return value.item() if isinstance(value, np.generic) else value
    return None


def python_function(kernel: Any) -> Any:
    """The Python function behind a ``@cuda.jit`` kernel (real or simulated) or the function."""
    for name in ("py_func", "fn"):
        fn = getattr(kernel, name, None)
        if callable(fn):
            return fn
    if callable(kernel):
        return kernel
    raise TypeError(f"[run_on_simulator] expected a kernel or a function, got {kernel!r}")


def _simulate(
    fn: Any,
    griddim: Dims,
    blockdim: Dims,
    args: tuple,
    thread: Any,
    limit: int,
    source: tuple[list[str], int] | None = None,
):
    """Run ``fn`` on numba's simulator in this process (numba.cuda must be the simulator)."""
    from numba import cuda

    lines, first = source if source is not None else _source_lines(fn)
    want = None
    if thread is not None:
        block, tid = thread
        want = (_index(block), _index(tid))
    steps: list[Step] = []
    code = fn.__code__

    def local(frame, event, arg):
        if event == "line" and len(steps) < limit:
            values = {k: _shown(v) for k, v in frame.f_locals.items()}
            text = lines[frame.f_lineno - first] if 0 <= frame.f_lineno - first < len(lines) else ""
            steps.append(
                Step(frame.f_lineno, text, {k: v for k, v in values.items() if v is not None})
            )
        return local

    def tracer(frame, event, arg):
        if event != "call" or frame.f_code is not code or want is None:
            return None
        t = threading.current_thread()
        here = (tuple(getattr(t, "blockIdx", ())), tuple(getattr(t, "threadIdx", ())))
        return local if here == want else None

    out = io.StringIO()
    threading.settrace(tracer)
    try:
        with contextlib.redirect_stdout(out):
            cuda.jit(fn)[_dims(griddim), _dims(blockdim)](*args)
    finally:
        threading.settrace(None)  # type: ignore[arg-type]
    return out.getvalue(), steps


def _source_lines(fn: Any) -> tuple[list[str], int]:
    import inspect

    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return [], 0
    return lines, first


_CHILD = r"""
import os, sys, pickle
os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import cloudpickle
from pdc.course import stepping
fn, griddim, blockdim, args, thread, limit, src = pickle.load(sys.stdin.buffer)
printed, steps = stepping._simulate(fn, griddim, blockdim, args, thread, limit, src)
sys.stdout.flush()
os.write(1, b"\0PDC-RESULT\0" + cloudpickle.dumps((printed, steps, args)))
"""


def run_on_simulator(
    kernel: Any,
    griddim: Dims,
    blockdim: Dims,
    *args: Any,
    thread: tuple[Dims, Dims] | None = None,
    max_steps: int = 200,
    child: bool | None = None,
    timeout: float = 120,
) -> SimRun:
    """Run ``kernel[griddim, blockdim](*args)`` on numba's CUDA simulator.

    Args:
        kernel: A ``@cuda.jit`` kernel (real or simulated) or its Python function.
        griddim: Blocks in the grid (an int or up to three).
        blockdim: Threads per block.
        *args: NumPy arrays and scalars; arrays come back changed in ``SimRun.args``.
        thread: ``(block index, thread index)`` of the thread to step through, or None.
        max_steps: Most steps recorded (a loop can run many lines).
        child: Run in a child process (default: only where numba.cuda is the real target).
        timeout: Seconds the child process may take.

    Returns:
        A :class:`SimRun` with the printed text and the steps.
    """
    fn = python_function(kernel)
    if child is None:
        child = "simulator" not in getattr(sys.modules.get("numba.cuda"), "__name__", "") and (
            os.environ.get("NUMBA_ENABLE_CUDASIM") != "1"
        )
    if not child:
        printed, steps = _simulate(fn, griddim, blockdim, args, thread, max_steps)
        return SimRun(printed, steps, args, "numba's CUDA simulator, in this process")
    import pickle

    import cloudpickle

    # The child cannot read a notebook cell's source: it travels with the function.
    payload = cloudpickle.dumps((fn, griddim, blockdim, args, thread, max_steps, _source_lines(fn)))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], input=payload, capture_output=True, timeout=timeout, env=env
    )
    head, sep, tail = done.stdout.partition(b"\0PDC-RESULT\0")
    if done.returncode != 0 or not sep:
        err = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"[run_on_simulator] the simulator's child process failed: {err[0]}")
    printed, steps, new_args = pickle.loads(tail)
    return SimRun(printed, steps, new_args, "numba's CUDA simulator, in a child process")

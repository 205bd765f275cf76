"""``pdc bench ring --launch-fields 16,128,256``: launch time against the number of fields.

A launch builds the kernel: it allocates the rings and compiles the loop around the
handler (and, on cpu, the compiled call for messages of at most ``pdc.ring.host.fast.MAX_FIELDS``
fields). For each count ``n`` it launches a fresh kernel whose request and reply have ``n``
float64 fields and whose handler writes each reply field from its request field (a new
function each time: nothing comes from a compile cache), answers one message, and prints
the seconds and the seconds per field. Launch time should grow at most linearly with ``n``.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["launch_time", "launch_times"]


def _handler(n: int, where: Path) -> Any:
    """A handler over ``n`` fields, from a source file (handlers compile from source)."""
    body = "\n".join(f"    rep.f{i} = req.f{i} * 2.0" for i in range(n))
    path = where / f"pdc_launch_{n}_{time.monotonic_ns()}.py"
    path.write_text(f"def copy_{n}(req, rep):\n{body}\n    return 0\n")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, f"copy_{n}")


def launch_time(backend: str, n: int, timeout: float = 600.0) -> float:
    """Seconds ``RingKernelRuntime.launch`` takes for a kernel with ``n`` fields."""
    from pdc.ring import RingKernelRuntime, ring_kernel

    dt = np.dtype([(f"f{i}", np.float64) for i in range(n)])
    with tempfile.TemporaryDirectory() as tmp:
        definition = ring_kernel(request=dt, reply=dt, queue_size=8)(_handler(n, Path(tmp)))
        with RingKernelRuntime(backend=backend) as rt:
            t0 = time.perf_counter()
            k = rt.launch(definition, timeout=timeout)
            seconds = time.perf_counter() - t0
            message = np.ones(1, dt)
            k.send_batch(message)
            reply = k.receive_batch(1, timeout=timeout)
            if reply.records["f0"][0] != 2.0:
                raise RuntimeError(f"[bench launch] expected f0 = 2.0, got {reply.records[0]}")
    return seconds


def launch_times(backends: list[str], fields: list[int]) -> list[str]:
    """One line per backend and field count: launch seconds and seconds per field."""
    from pdc.ring.engines.base import engine_class

    lines = []
    for backend in backends:
        try:
            engine_class(backend)
        except ImportError as exc:
            lines.append(f"{backend}: skipped ({exc})")
            continue
        launch_time(backend, 1)  # the process's first compile (numba's own start-up)
        for n in fields:
            s = launch_time(backend, n)
            lines.append(
                f"{backend} launch, {n:4d} fields: {s:7.2f} s ({1e3 * s / n:6.1f} ms/field)"
            )
            print(lines[-1], file=sys.stderr, flush=True)
    return lines

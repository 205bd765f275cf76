"""``pdc bench ring --shared-loop N``: the cpu loop inlined around each handler, or shared.

Two measurements, printed side by side, in one process:

* launch: ``N`` distinct handlers (new functions from new source files, so that no compile
  cache helps), each launched as a fresh cpu kernel that then answers one message; once
  with the default engine (a loop compiled around each handler), once with
  ``EngineOptions(shared_loop=True)`` (the handler compiled alone; the first launch also
  compiles the shared loop, as it would in a fresh process);
* round trip: ``kernel.call`` one message at a time on one kernel of each kind, repeated
  in turns (inlined, shared, inlined...), p50 and p99 per kind (medians of the repeats) and
  the ratio of the p50s (shared / inlined: the cost of the indirect call).

Launch time counts ``RingKernelRuntime.launch`` only; numba's own start-up is paid before,
by one throw-away launch with other message types.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from pdc.ring.tools.bench_baselines import _percentiles

__all__ = ["launch_and_latency"]

REQ = np.dtype([("x", np.float64)])
REP = np.dtype([("y", np.float64)])
STATE = np.dtype([("n", np.float64)])


def _handler(i: int, where: Path) -> Any:
    """A handler with state that no earlier launch has compiled (a new source file)."""
    path = where / f"pdc_shared_{i}_{time.monotonic_ns()}.py"
    path.write_text(
        f"def h{i}(req, rep, state):\n"
        f"    state.n = state.n + 1.0\n"
        f"    rep.y = req.x * {i + 2}.0\n"
        f"    return 0\n"
    )
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"[bench shared-loop] cannot load the handler file {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, f"h{i}")


def _launch(fn: Any, shared: bool, request: np.dtype = REQ) -> float:
    """Seconds to launch ``fn`` as a fresh cpu kernel (which then answers one message)."""
    from pdc.ring import EngineOptions, RingKernelRuntime, ring_kernel

    reply = np.dtype([(name, np.float64) for name in ("y", *(request.names or ())[1:])])
    kdef = ring_kernel(request=request, reply=reply, state=STATE, queue_size=8)(fn)
    with RingKernelRuntime(backend="cpu", options=EngineOptions(shared_loop=shared)) as rt:
        t0 = time.perf_counter()
        k = rt.launch(kdef, timeout=600)
        seconds = time.perf_counter() - t0
        if k.call(x=1.0, timeout=60).y <= 0.0:
            raise RuntimeError("[bench shared-loop] expected a positive reply from the handler")
    return seconds


def _round_trips(kernel: Any, n: int) -> dict[str, float]:
    call = kernel.call
    for i in range(min(n, 200)):
        call(x=float(i), timeout=60)
    lat = []
    clock = time.perf_counter
    for i in range(n):
        t0 = clock()
        call(x=float(i), timeout=60)
        lat.append(clock() - t0)
    return _percentiles(lat)


def _latency(fns: dict[bool, Any], messages: int, repeats: int) -> dict[bool, dict[str, float]]:
    """Median p50/p99 (us) of ``kernel.call`` per kind, the kinds measured in turns."""
    from pdc.ring import EngineOptions, RingKernelRuntime, ring_kernel

    runs: dict[bool, list[dict[str, float]]] = {False: [], True: []}
    for _ in range(repeats):
        for shared, fn in fns.items():
            kdef = ring_kernel(request=REQ, reply=REP, state=STATE, queue_size=64)(fn)
            options = EngineOptions(shared_loop=shared)
            with RingKernelRuntime(backend="cpu", options=options) as rt:
                runs[shared].append(_round_trips(rt.launch(kdef), messages))
    return {
        shared: {key: statistics.median(r[key] for r in rs) for key in ("p50_us", "p99_us")}
        for shared, rs in runs.items()
    }


def launch_and_latency(n: int, messages: int = 5000, repeats: int = 3) -> list[str]:
    """Launch ``n`` distinct handlers per kind, then time round trips; the report's lines."""
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        other = np.dtype([("x", np.float64), ("w", np.float64)])
        _launch(_handler(10_000, where), False, other)  # numba's start-up, outside the timings
        launches: dict[bool, list[float]] = {False: [], True: []}
        fns: dict[bool, Any] = {}
        for shared in (False, True):
            for i in range(n):
                fn = _handler(i + (n if shared else 0), where)
                launches[shared].append(_launch(fn, shared))
                fns[shared] = fn
                print(f"launched {i + 1}/{n} (shared={shared})", file=sys.stderr, flush=True)
        latency = _latency(fns, messages, repeats)
    total = {shared: sum(s) for shared, s in launches.items()}
    lines.append(f"cpu, {n} distinct handlers: launch    inlined loop | shared loop")
    for i in range(n):
        lines.append(
            f"  handler {i + 1}{' (+ shared loop compile)' if i == 0 else '':28s}"
            f"{launches[False][i]:8.2f} s | {launches[True][i]:8.2f} s"
        )
    lines.append(
        f"  total{'':31s}{total[False]:8.2f} s | {total[True]:8.2f} s"
        f"   (inlined / shared: {total[False] / total[True]:.2f}x)"
    )
    lines.append(f"round trip, kernel.call, {messages} messages, median of {repeats} runs:")
    for key in ("p50_us", "p99_us"):
        lines.append(
            f"  {key[:3]}{'':33s}{latency[False][key]:8.1f} us | {latency[True][key]:7.1f} us"
        )
    ratio = latency[True]["p50_us"] / latency[False]["p50_us"]
    lines.append(f"  p50 shared / inlined: {ratio:.2f}")
    return lines

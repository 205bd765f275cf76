"""``pdc bench ring``: ring-kernel round trips next to Python's own queues, in one run.

For every available ring backend it measures, on the same machine and in the same run:

* one message at a time: ``kernel.call(x=...)`` round trips (p50, p99, messages/s);
* batched: ``send_batch``/``receive_batch`` with two batches in flight (messages/s);

and, as baselines, a ``queue.SimpleQueue`` ping-pong between two threads and an
``asyncio.Queue`` ping-pong between two tasks (p50, p99). On a real CUDA GPU it adds a
launch-per-message baseline: one kernel launch plus a stream synchronize per message.

Every measurement is repeated (``--repeats``; each repeat times the baselines, then each
backend's freshly launched kernel, one at a time) and the medians are printed; ratios are
baseline p50 / ring p50 (how many times faster the ring answers).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from pdc.ring.tools.bench_baselines import _percentiles, asyncio_pingpong, simple_queue_pingpong
from pdc.ring.tools.bench_compiled import ring_compiled_client
from pdc.ring.tools.bench_report import format_report

REQ = np.dtype([("x", np.float64)])
REP = np.dtype([("y", np.float64)])


def double(req, rep):
    rep.y = req.x * 2.0


def ring_single(kernel: Any, n: int) -> dict[str, float]:
    """``kernel.call`` round trips, one message at a time."""
    call = kernel.call
    for i in range(min(n, 200)):
        call(x=float(i), timeout=60)
    lat = []
    clock = time.perf_counter
    t_start = clock()
    for i in range(n):
        t0 = clock()
        call(x=float(i), timeout=60)
        lat.append(clock() - t0)
    total = clock() - t_start
    return {**_percentiles(lat), "msgs_per_s": n / total}


def ring_host_overhead(kernel: Any, n: int) -> dict[str, float]:
    """Python time of ``send`` plus ``receive`` per message, with no waiting in either.

    The kernel is paused while ``n`` messages are sent, then resumed; once every reply
    is ready, the ``n`` receives are timed. This is the floor of a 1-by-1 round trip set
    by the host's Python code alone.
    """
    kernel.deactivate()
    clock = time.perf_counter
    t0 = clock()
    for i in range(n):
        kernel.send(x=float(i))
    t_send = clock() - t0
    base = kernel.telemetry().received
    kernel.activate()
    deadline = clock() + 60
    while kernel.telemetry().replies_ready < n and clock() < deadline:
        time.sleep(1e-3)
    t0 = clock()
    for _ in range(n):
        kernel.receive(timeout=60)
    t_recv = clock() - t0
    assert kernel.telemetry().received == base + n
    return {"send_us": t_send / n * 1e6, "receive_us": t_recv / n * 1e6}


def ring_batched(kernel: Any, n: int, batch: int) -> dict[str, float]:
    """Throughput of ``send_batch``/``receive_batch`` with two batches in flight."""
    b = np.zeros(batch, REQ)
    b["x"] = np.arange(batch)
    kernel.send_batch(b)
    kernel.receive_batch(batch, timeout=60)
    rounds = max(1, n // batch)
    t0 = time.perf_counter()
    kernel.send_batch(b)
    for _ in range(rounds - 1):
        kernel.send_batch(b)
        kernel.receive_batch(batch, timeout=60)
    kernel.receive_batch(batch, timeout=60)
    total = time.perf_counter() - t0
    return {"msgs_per_s": rounds * batch / total, "batch": batch}


def launch_per_message(n: int) -> dict[str, float] | None:
    """One kernel launch + stream synchronize per message (real CUDA GPU only).

    Uses ``pdc.ring.tools.launch_each.launch_per_message`` with the same handler as the ring kernel.
    Each call compiles the handler and allocates its slots once, then launches once per
    message, so the per-message cost is the difference of two calls' times divided by
    the difference of their message counts (a mean; single launches are not timed).
    """
    import pdc

    if not pdc.has_gpu():
        return None
    from pdc.ring.handlers import HandlerSpec
    from pdc.ring.tools.launch_each import launch_per_message as launch_each

    spec = HandlerSpec.create(double, REQ, REP)
    reqs = np.zeros(n + 10, REQ)
    reqs["x"] = np.arange(n + 10)
    launch_each(spec, reqs[:10])  # warm up
    t0 = time.perf_counter()
    launch_each(spec, reqs[:10])
    t1 = time.perf_counter()
    replies, _ = launch_each(spec, reqs)
    t2 = time.perf_counter()
    if not np.array_equal(replies["y"], reqs["x"] * 2.0):
        raise RuntimeError("[bench launch per message] expected y == 2 x in every reply")
    per = ((t2 - t1) - (t1 - t0)) / n
    return {"mean_us": per * 1e6, "msgs_per_s": 1.0 / per, "messages": n}


def idle_cost(kdef: Any, backend: str, seconds: float = 2.0, settle: float = 1.0) -> float:
    """Percent of one core an idle kernel costs: process CPU time while the host sleeps.

    The kernel answers one call, then ``settle`` seconds pass (its back-off runs its
    course), then the process's CPU time is taken over ``seconds`` of host sleep: what the
    kernel's loop (and anything else of the process) burns while nothing happens.
    """
    from pdc.ring import RingKernelRuntime

    with RingKernelRuntime(backend=backend) as rt:
        k = rt.launch(kdef)
        k.call(x=1.0, timeout=60)
        time.sleep(settle)
        c0, t0 = time.process_time(), time.perf_counter()
        time.sleep(seconds)
        c1, t1 = time.process_time(), time.perf_counter()
    return 100.0 * (c1 - c0) / (t1 - t0)


def _median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in runs[0].items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = statistics.median(r[key] for r in runs)
        else:
            out[key] = value
    return out


def _available(names: list[str]) -> list[tuple[str, str | None]]:
    from pdc.ring.engines.base import engine_class

    found: list[tuple[str, str | None]] = []
    for name in names:
        try:
            engine_class(name)
            found.append((name, None))
        except Exception as exc:  # an engine that does not import here is reported
            found.append((name, f"{type(exc).__name__}: {exc}"))
    return found


def run(
    backends: list[str],
    messages: int,
    batch_messages: int,
    batch: int,
    sim_messages: int,
    sim_batch_messages: int,
    repeats: int,
    progress: bool = True,
    idle_seconds: float = 2.0,
) -> dict[str, Any]:
    """Measure everything; return a JSON-able dict (see ``main`` for the printout)."""
    from tqdm import tqdm

    from pdc.ring import RingKernelRuntime, ring_kernel

    kdef = ring_kernel(kernel_id="bench", request=REQ, reply=REP, queue_size=2 * batch)(double)
    engines = _available(backends)
    steps = repeats * (2 + 4 * sum(err is None for _, err in engines))
    bar = tqdm(total=steps, desc="pdc bench ring", file=sys.stderr, disable=not progress)

    def step(label: str, fn: Callable[..., Any]) -> Any:
        bar.set_postfix_str(label)
        out = fn()
        bar.update(1)
        return out

    result: dict[str, Any] = {
        "machine": f"{platform.machine()}, {platform.python_implementation()} "
        f"{platform.python_version()}",
        "repeats": repeats,
        "messages": messages,
        "baselines": {},
        "backends": {},
    }
    sq, aq = [], []
    per_backend: dict[str, dict[str, list]] = {}
    runtimes: dict[str, Any] = {}
    for name, err in engines:
        if err is not None:
            result["backends"][name] = {"error": err}
        else:
            per_backend[name] = {"single": [], "batched": [], "host": [], "compiled": []}
    try:
        # Each repeat measures the baselines and then the kernels, so that a machine that
        # changes pace during the run moves both sides of a ratio alike. Only one kernel
        # runs at a time, and none while the baselines run: a polling simulated kernel
        # would take the core (and the interpreter lock) from whatever is being timed.
        for _ in range(repeats):
            sq.append(step("queue.SimpleQueue", lambda: simple_queue_pingpong(messages)))
            aq.append(step("asyncio.Queue", lambda: asyncio_pingpong(messages)))
            for name in per_backend:
                rt = RingKernelRuntime(backend=name)
                runtimes[name] = (rt, rt.launch(kdef))
                k = runtimes[name][1]
                sim = k.engine.simulated
                n1 = sim_messages if sim else messages
                nb = sim_batch_messages if sim else batch_messages
                nh = min(n1, 2 * batch)
                per_backend[name]["single"].append(
                    step(f"{name} 1-by-1", lambda k=k, n1=n1: ring_single(k, n1))
                )
                per_backend[name]["batched"].append(
                    step(f"{name} batched", lambda k=k, nb=nb: ring_batched(k, nb, batch))
                )
                per_backend[name]["compiled"].append(
                    step(f"{name} compiled client", lambda k=k, n1=n1: ring_compiled_client(k, n1))
                )
                per_backend[name]["host"].append(
                    step(f"{name} host overhead", lambda k=k, nh=nh: ring_host_overhead(k, nh))
                )
                rt.close()
    finally:
        bar.close()
        for rt, _ in runtimes.values():
            rt.close()
    idle: dict[str, float | None] = {}
    for name in runtimes:  # one kernel at a time, nothing else running
        idle[name] = idle_cost(kdef, name, idle_seconds) if idle_seconds > 0 else None
    result["baselines"]["queue.SimpleQueue"] = _median_of(sq)
    result["baselines"]["asyncio.Queue"] = _median_of(aq)
    result["launch_per_message"] = launch_per_message(min(messages, 2000))
    for name, (_, k) in runtimes.items():
        single = _median_of(per_backend[name]["single"])
        batched = _median_of(per_backend[name]["batched"])
        sim = k.engine.simulated
        result["backends"][name] = {
            "device": k.engine.device,
            "simulated": sim,
            "messages": sim_messages if sim else messages,
            "single": single,
            "batched": batched,
            "host_python": _median_of(per_backend[name]["host"]),
            "compiled_client": None
            if None in per_backend[name]["compiled"]
            else _median_of(per_backend[name]["compiled"]),
            "speedup_vs": {
                base: result["baselines"][base]["p50_us"] / single["p50_us"]
                for base in result["baselines"]
            },
            "compiled_speedup_vs": {}
            if None in per_backend[name]["compiled"]
            else {
                base: result["baselines"][base]["p50_us"]
                / _median_of(per_backend[name]["compiled"])["p50_us"]
                for base in result["baselines"]
            },
            "idle_core_pct": idle[name],
            "runs_p50_us": [r["p50_us"] for r in per_backend[name]["single"]],
            "runs_batched_msgs_per_s": [r["msgs_per_s"] for r in per_backend[name]["batched"]],
        }
    return result


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``pdc bench ring``."""
    parser = argparse.ArgumentParser(
        prog="pdc bench ring",
        description="Ring-kernel round trips and throughput next to Python queue baselines.",
    )
    parser.add_argument("--backends", default="cpu,cuda,metal", help="comma-separated names")
    parser.add_argument("--messages", type=int, default=20_000, help="1-by-1 round trips")
    parser.add_argument("--batch-messages", type=int, default=2_000_000, help="batched total")
    parser.add_argument("--batch", type=int, default=8192, help="messages per batch")
    parser.add_argument("--sim-messages", type=int, default=200, help="1-by-1, simulated")
    parser.add_argument("--sim-batch-messages", type=int, default=20_000, help="batched, sim")
    parser.add_argument("--repeats", type=int, default=3, help="runs; medians are reported")
    parser.add_argument(
        "--idle-seconds", type=float, default=2.0, help="idle cost measured over (0: skip)"
    )
    parser.add_argument(
        "--launch-fields",
        default="",
        help="only time launches of kernels with these numbers of fields (e.g. 16,128,256)",
    )
    parser.add_argument(
        "--shared-loop",
        type=int,
        default=0,
        help="only compare the cpu loop inlined around N handlers with the shared loop",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if args.shared_loop:
        from pdc.ring.tools.bench_shared import launch_and_latency

        if args.shared_loop < 1:
            parser.error(f"--shared-loop expected a count >= 1, got {args.shared_loop}")
        print("\n".join(launch_and_latency(args.shared_loop, min(args.messages, 5000))))
        return 0
    if args.launch_fields:
        from pdc.ring.tools.bench_launch import launch_times

        fields = [int(f) for f in args.launch_fields.split(",") if f.strip()]
        if not fields or min(fields) < 1:
            parser.error(f"--launch-fields expected counts >= 1, got {args.launch_fields!r}")
        print("\n".join(launch_times(backends, fields)))
        return 0
    for opt in ("messages", "batch_messages", "batch", "sim_messages", "repeats"):
        if getattr(args, opt) < 1:
            parser.error(f"--{opt.replace('_', '-')} expected >= 1, got {getattr(args, opt)}")
    result = run(
        backends,
        args.messages,
        args.batch_messages,
        args.batch,
        args.sim_messages,
        args.sim_batch_messages,
        args.repeats,
        progress=not args.no_progress,
        idle_seconds=args.idle_seconds,
    )
    print(json.dumps(result, indent=2) if args.json else format_report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

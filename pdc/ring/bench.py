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
import asyncio
import functools
import json
import platform
import queue
import statistics
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from pdc.ring.bench_report import format_report

REQ = np.dtype([("x", np.float64)])
REP = np.dtype([("y", np.float64)])


def double(req, rep):
    rep.y = req.x * 2.0


def _percentiles(samples: list[float]) -> dict[str, float]:
    a = np.asarray(samples) * 1e6
    return {"p50_us": float(np.percentile(a, 50)), "p99_us": float(np.percentile(a, 99))}


def simple_queue_pingpong(n: int) -> dict[str, float]:
    """Round trips through two ``queue.SimpleQueue`` to a worker thread."""
    q_in: queue.SimpleQueue = queue.SimpleQueue()
    q_out: queue.SimpleQueue = queue.SimpleQueue()

    def worker():
        while True:
            m = q_in.get()
            if m is None:
                return
            q_out.put(m * 2.0)

    th = threading.Thread(target=worker, daemon=True)
    th.start()
    for i in range(min(n, 200)):  # warm up
        q_in.put(float(i))
        q_out.get()
    lat = []
    clock = time.perf_counter
    t_start = clock()
    for i in range(n):
        t0 = clock()
        q_in.put(float(i))
        q_out.get()
        lat.append(clock() - t0)
    total = clock() - t_start
    q_in.put(None)
    th.join()
    return {**_percentiles(lat), "msgs_per_s": n / total}


def asyncio_pingpong(n: int) -> dict[str, float]:
    """Round trips through two ``asyncio.Queue`` to a server task on the same loop.

    Inside a running event loop (a Jupyter kernel) it runs on a fresh loop in a helper
    thread, since ``asyncio.run`` refuses to nest.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _asyncio_pingpong(n)
    out: list[dict[str, float]] = []
    th = threading.Thread(target=lambda: out.append(_asyncio_pingpong(n)))
    th.start()
    th.join()
    return out[0]


def _asyncio_pingpong(n: int) -> dict[str, float]:

    async def main():
        q_in: asyncio.Queue = asyncio.Queue()
        q_out: asyncio.Queue = asyncio.Queue()

        async def server():
            while True:
                m = await q_in.get()
                if m is None:
                    return
                q_out.put_nowait(m * 2.0)

        task = asyncio.create_task(server())
        for i in range(min(n, 200)):
            q_in.put_nowait(float(i))
            await q_out.get()
        lat = []
        clock = time.perf_counter
        t_start = clock()
        for i in range(n):
            t0 = clock()
            q_in.put_nowait(float(i))
            await q_out.get()
            lat.append(clock() - t0)
        total = clock() - t_start
        q_in.put_nowait(None)
        await task
        return {**_percentiles(lat), "msgs_per_s": n / total}

    return asyncio.run(main())


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


@functools.cache
def _compiled_client():
    """A numba-compiled host client: the protocol's host side, one message at a time.

    It shows the ring's own round trip, without the Python code of ``send``/``receive``.
    Round trips are timed with the CPU cycle counter (x86: ``rdtsc``), converted to
    seconds by calibrating against ``time.perf_counter`` over the whole run.
    """
    import numba
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    from pdc.ring import protocol as p
    from pdc.ring.atomics import load_acquire, store_release

    @intrinsic
    def cycles(typingctx):
        def codegen(context, builder, signature, args):
            fnty = ir.FunctionType(ir.IntType(64), [])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
            return builder.call(fn, [])

        return types.int64(), codegen

    head, tail, lane = p.HEAD + p.LINE, p.TAIL + p.LINE, p.NORMAL
    rep_head, rep_tail, submitted = p.REP_HEAD, p.REP_TAIL, p.SUBMITTED

    @numba.njit(nogil=True)
    def client(ctrl, req_meta, req_slots, rep_meta, rep_slots, first_corr, lat):
        cap = req_meta.shape[1]
        rcap = rep_meta.shape[0]
        for m in range(lat.shape[0]):
            t0 = cycles()
            h = ctrl[head]
            while h - load_acquire(ctrl, tail) >= cap:
                pass
            i = h % cap
            req_slots[lane, i].x = float(m)
            req_meta[lane, i, 0] = first_corr + m
            req_meta[lane, i, 1] = 0
            store_release(ctrl, head, h + 1)
            store_release(ctrl, submitted, ctrl[submitted] + 1)
            t = ctrl[rep_tail]
            while load_acquire(ctrl, rep_head) <= t:
                pass
            j = t % rcap
            ok = rep_meta[j, 0] == first_corr + m and rep_slots[j].y == 2.0 * m
            rep_slots[j].y = 0.0  # consumed reply slots are zeroed (the only field)
            store_release(ctrl, rep_tail, t + 1)
            lat[m] = cycles() - t0
            if not ok:
                return m
        return lat.shape[0]

    @numba.njit
    def now():
        return cycles()

    return client, now


def ring_compiled_client(kernel: Any, n: int) -> dict[str, float] | None:
    """Round trips from compiled code (x86 only: it needs a cycle counter)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    client, now = _compiled_client()
    arrays = kernel.rings.arrays()
    warm = np.zeros(min(n, 200), np.int64)
    kernel._next += client(*arrays, kernel._next, warm)  # compile and warm up
    kernel.received += len(warm)
    lat = np.zeros(n, np.int64)
    c0, t0 = now(), time.perf_counter()
    done = client(*arrays, kernel._next, lat)
    c1, t1 = now(), time.perf_counter()
    kernel._next += done
    kernel.received += done
    if done != n:
        raise RuntimeError(f"[bench compiled client] expected {n} matching replies, got {done}")
    seconds_per_cycle = (t1 - t0) / (c1 - c0)
    return {
        **_percentiles((lat * seconds_per_cycle).tolist()),
        "msgs_per_s": n / (t1 - t0),
    }


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

    Uses ``pdc.ring.cuda.launch_per_message`` with the same handler as the ring kernel.
    Each call compiles the handler and allocates its slots once, then launches once per
    message, so the per-message cost is the difference of two calls' times divided by
    the difference of their message counts (a mean; single launches are not timed).
    """
    import pdc

    if not pdc.has_gpu():
        return None
    from pdc.ring.cuda import launch_per_message as launch_each
    from pdc.ring.handlers import HandlerSpec

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
    from pdc.ring.engine import engine_class

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
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    for opt in ("messages", "batch_messages", "batch", "sim_messages", "repeats"):
        if getattr(args, opt) < 1:
            parser.error(f"--{opt.replace('_', '-')} expected >= 1, got {getattr(args, opt)}")
    result = run(
        [b.strip() for b in args.backends.split(",") if b.strip()],
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

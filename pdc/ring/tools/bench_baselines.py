"""Baselines of ``pdc bench ring``: round trips through Python's own queues.

A ``queue.SimpleQueue`` ping-pong between two threads and an ``asyncio.Queue`` ping-pong
between two tasks, timed like the ring's round trips (p50, p99 in microseconds).
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time

import numpy as np

__all__ = ["asyncio_pingpong", "simple_queue_pingpong"]


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

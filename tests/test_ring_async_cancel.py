"""A task cancelled while it awaits a ring kernel is cancelled, whatever instant the cancel
lands in: also the one where the poll's own wake-up has just been delivered."""

from __future__ import annotations

import asyncio
import random

import numpy as np

import pdc.ring as ring

REQ = np.dtype([("x", np.float64)])
REP = np.dtype([("y", np.float64)])


def echo(req, rep):
    rep.y = req.x


async def _poll_forever(k):
    while True:  # an ordinary "poll for replies" task, its timeouts as short as they get
        try:
            await k.receive_async(timeout=0.001)
        except ring.RingTimeoutError:
            pass


async def _send_forever(k):
    while True:  # a sender that waits for room in a full queue (the kernel is paused)
        await k.send_async(x=1.0)


def test_cancel_and_wait_for_are_never_swallowed():
    rnd = random.Random(0)
    kdef = ring.ring_kernel(kernel_id="cancel", request=REQ, reply=REP, queue_size=2)(echo)
    with ring.RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kdef)

        async def main():
            stuck = 0
            for _ in range(60):
                t = asyncio.create_task(_poll_forever(k))
                await asyncio.sleep(rnd.random() * 0.004)
                t.cancel()
                done, _ = await asyncio.wait([t], timeout=1.0)
                stuck += not done
            k.deactivate()  # the queue fills: senders wait for room with the same sleeps
            late = 0
            for _ in range(20):
                loop = asyncio.get_running_loop()
                t0 = loop.time()
                try:
                    await asyncio.wait_for(_send_forever(k), timeout=0.01)
                except asyncio.TimeoutError:
                    pass
                late += loop.time() - t0 > 0.5
            return stuck, late

        stuck, late = asyncio.run(main())
    assert (stuck, late) == (0, 0), f"{stuck} cancels and {late} timeouts swallowed"


def test_event_loops_that_awaited_a_kernel_are_not_kept_alive_by_it():
    import gc
    import weakref

    kdef = ring.ring_kernel(kernel_id="loops", request=REQ, reply=REP, queue_size=8)(echo)
    with ring.RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kdef)
        loops = []
        for _ in range(50):  # one loop per request, as asyncio.run in scripts and tests
            loop = asyncio.new_event_loop()
            assert loop.run_until_complete(k.call_async(x=1.0, timeout=30)).y == 1.0
            loop.close()
            loops.append(weakref.ref(loop))
            del loop
        gc.collect()
        alive = sum(r() is not None for r in loops)
        assert (alive, len(k.consumer.ports)) == (0, 0)

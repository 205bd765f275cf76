"""Nothing lost on any path a user can interrupt: Ctrl-C at every signal check point of
every public operation, and asyncio cancellation at every await (``ring_interrupts``).

Each request carries a unique tag ``k`` that its reply echoes. After every trial no lock
is held, no reservation is left and no reply is held by the compiled call; at the end,
every reply the device wrote was handed out exactly once (to an operation that returned
it, or to the final drain) and the runtime's counters agree: none lost, none twice.
"""

from __future__ import annotations

import asyncio
import itertools

import numpy as np
import pytest

from pdc.ring import (
    EngineOptions,
    Replies,
    Reply,
    RingKernelRuntime,
    RingTimeoutError,
    ring_kernel,
)
from tests.ring_interrupts import cancel_at_each_await, interrupt_each_point, run_to_end

REQ = np.dtype([("x", np.float64), ("k", np.int64)])
REP = np.dtype([("y", np.float64), ("k", np.int64)])


def work(req, rep):
    rep.y = req.x * 2.0
    rep.k = req.k


class Ledger:
    """Every reply handed to the test, by tag; counts twice-handed tags."""

    def __init__(self, kernel):
        self.k = kernel
        self.tags = itertools.count(1)
        self.seen: dict[int, int] = {}
        self.twice = 0

    def tag(self) -> int:
        return next(self.tags)

    def take(self, value) -> None:
        if isinstance(value, Reply):
            self._one(value.k)
        elif isinstance(value, Replies):
            for t in value.records["k"].tolist():
                self._one(t)
        elif isinstance(value, RingTimeoutError) and getattr(value, "partial", None):
            self.take(value.partial)

    def _one(self, tag: int) -> None:
        self.twice += tag in self.seen
        self.seen[tag] = self.seen.get(tag, 0) + 1

    def check_clean(self) -> None:
        k = self.k
        locks = [k._send_lock, k._recv_lock, k._state_lock, k._drop_lock]
        assert not any(lock.locked() for lock in locks), "a lock is held"
        assert not k._awaited, f"reservations left: {k._awaited}"
        if k._fast is not None:
            assert k._fast.words[k._fast.HELD] == 0
        st = k._stash
        with k._recv_lock:
            st.settle(k.host)  # what the next consumer does first
        assert st.count == sum(c.untaken() for c in st.chunks) >= 0

    def send(self, n: int = 1) -> None:
        """Send ``n`` tagged requests and wait until the device answered every message."""
        b = np.zeros(n, REQ)
        b["k"] = [self.tag() for _ in range(n)]
        self.k.send_batch(b)
        self.take(self.k.call(x=0.0, k=self.tag(), timeout=60))  # answered after those

    def reconcile(self) -> dict[str, int]:
        k = self.k
        while True:
            try:
                self.take(k.receive(timeout=2.0))
            except RingTimeoutError:
                break
        t = k.telemetry()
        lost = t.processed - len(self.seen)
        assert self.twice == 0, f"{self.twice} replies handed out twice"
        assert lost == 0, f"{lost} replies lost"
        assert t.submitted == t.processed == t.received == len(self.seen)
        assert (t.replies_ready, t.in_flight) == (0, 0)
        return {"replies": len(self.seen), "lost": lost, "duplicated": self.twice}


def _run(ledger: Ledger, op, stats: dict, prepare=None) -> None:
    out = interrupt_each_point(op, prepare)
    for r in out["results"]:
        ledger.take(r)
    ledger.check_clean()
    stats["injected"] += out["injected"]
    stats["points"] += len(out["where"])


@pytest.mark.parametrize("shared_loop", [False, True], ids=["inlined", "shared-loop"])
def test_ctrl_c_at_every_check_point_of_every_sync_operation_loses_nothing(shared_loop):
    stats = {"injected": 0, "points": 0}
    options = EngineOptions(shared_loop=shared_loop)
    with RingKernelRuntime(backend="cpu", options=options) as rt:
        k = rt.launch(ring_kernel(kernel_id="irq", request=REQ, reply=REP, queue_size=8)(work))
        led = Ledger(k)
        k._fast.polls = 10**10  # the compiled call waits for its reply: no timing in it

        def quick_call():
            return k.call(x=1.0, k=led.tag(), timeout=60)

        def general_call():
            return k.call({"x": 1.0, "k": led.tag()}, timeout=60)

        def send_batch():
            b = np.zeros(3, REQ)
            b["k"] = [led.tag() for _ in range(3)]
            return k.send_batch(b)

        last = [0]

        def send_one():
            last[0] = k.send(x=1.0, k=led.tag())
            led.send(0)

        for op in (
            quick_call,
            general_call,
            lambda: k.send(x=1.0, k=led.tag()),
            send_batch,
            k.telemetry,
        ):
            _run(led, op, stats)
        _run(led, lambda: k.receive(timeout=60), stats, prepare=led.send)
        _run(led, k.try_receive, stats, prepare=led.send)
        _run(led, lambda: k.receive_batch(3, timeout=60), stats, prepare=lambda: led.send(3))
        _run(led, lambda: k.receive(timeout=60, corr_id=last[0]), stats, prepare=send_one)
        for op in (k.deactivate, k.activate):
            _run(led, op, stats)
        assert k.state == "active"
        numbers = led.reconcile()
    numbers.update(stats)
    print(f"\nsync interrupts: {numbers}")
    assert stats["injected"] > 500 and stats["points"] > 100


# An interrupt right after asyncio's Lock.acquire() returns its coroutine drops it unawaited:
# Python warns, nothing is lost (pdc.ring.host.aio_steps says why asyncio keeps that lock).
@pytest.mark.filterwarnings("ignore:coroutine 'Lock.acquire' was never awaited:RuntimeWarning")
def test_ctrl_c_inside_asyncio_operations_and_cancellation_at_every_await():
    stats = {"injected": 0, "points": 0, "cancelled": 0}
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(ring_kernel(kernel_id="aio", request=REQ, reply=REP, queue_size=8)(work))
        led = Ledger(k)

        async def call():
            return await k.call_async(x=1.0, k=led.tag(), timeout=60)

        async def receive():  # the reply comes while it waits
            asyncio.get_running_loop().call_soon(lambda: k.send(x=1.0, k=led.tag()))
            return await k.receive_async(timeout=60)

        async def send():
            return await k.send_async(x=1.0, k=led.tag())

        async def main():
            for op in (call, receive, send):
                out = await cancel_at_each_await(op)
                for r in out["results"]:
                    led.take(r)
                led.check_clean()
                stats["cancelled"] += out["cancelled"]

        asyncio.run(main())
        for op in (call, receive):
            _run(led, lambda op=op: run_to_end(op()), stats)
        numbers = led.reconcile()
    numbers.update(stats)
    print(f"\nasync interrupts: {numbers}")
    assert stats["cancelled"] > 3 and stats["injected"] > 100


@pytest.mark.parametrize("later_shorter", [True, False])
def test_two_receive_async_waiters_one_timing_out_lose_no_reply(later_shorter):
    """The later waiter times out first: the poller neither fails nor drops the reply."""
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(ring_kernel(kernel_id="two", request=REQ, reply=REP)(work))

        async def main():
            long_t, short_t = (30.0, 0.05) if later_shorter else (0.05, 30.0)
            first = asyncio.ensure_future(k.receive_async(timeout=long_t))
            await asyncio.sleep(0)
            second = asyncio.ensure_future(k.receive_async(timeout=short_t))
            short = second if later_shorter else first
            with pytest.raises(RingTimeoutError):
                await short
            k.send(x=1.0, k=7)
            k.send(x=1.0, k=8)
            other = first if later_shorter else second
            got = await asyncio.wait_for(other, 30)
            rest = await k.receive_async(timeout=30)
            return {got.k, rest.k}

        assert asyncio.run(main()) == {7, 8}
        t = k.telemetry()
        assert (t.received, t.replies_ready) == (2, 0)

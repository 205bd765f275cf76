"""A call's reply is its own: ``receive`` in another thread or event loop never takes it.

``call`` reserves its message's id before the message is published; plain ``receive``,
``receive_batch`` and ``receive_async`` skip reserved replies, and the reservation ends
however the call ends (a reply that comes after a call gave up is anybody's).
"""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

from pdc.ring import RingKernelRuntime, RingTimeoutError, ring_kernel

REQ = np.dtype([("x", np.float64), ("k", np.int64)])
REP = np.dtype([("y", np.float64), ("k", np.int64)])


def echo(req, rep):
    rep.y = req.x * 2.0
    rep.k = req.k


def _mixed_traffic(k, calls: int, sends: int, receive_batches: bool) -> tuple[list, list, list]:
    """Two threads call, one sends, one receives: what each got."""
    errors: list = []
    sent: list[int] = []
    got: list[tuple[int, int]] = []
    done = threading.Event()

    def caller(w):
        try:
            for i in range(calls):
                key = w * 10**6 + i
                r = k.call(x=float(i), k=key, timeout=120)
                if (r.k, r.y) != (key, 2.0 * i):
                    errors.append(("wrong reply", w, i, r.k, r.y))
        except Exception as exc:  # noqa: BLE001 - reported by the test
            errors.append(("call raised", w, repr(exc)))

    def sender():
        for i in range(sends):
            sent.append(k.send(x=float(i), k=-i - 1))
        done.set()

    def receiver():
        while not (done.is_set() and len(got) >= len(sent)):
            try:
                if receive_batches:
                    rs = k.receive_batch(2, timeout=0.2)
                    got.extend(zip(rs.corr_ids.tolist(), rs.records["k"].tolist(), strict=True))
                else:
                    r = k.receive(timeout=0.2)
                    got.append((r.corr_id, r.k))
            except RingTimeoutError as exc:
                part = getattr(exc, "partial", None)
                if part is not None and len(part):
                    got.extend(zip(part.corr_ids.tolist(), part.records["k"].tolist(), strict=True))

    threads = [threading.Thread(target=caller, args=(w,)) for w in (1, 2)]
    threads += [threading.Thread(target=sender), threading.Thread(target=receiver)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return errors, sent, got


@pytest.mark.parametrize("batches", [False, True], ids=["receive", "receive_batch"])
def test_a_receiving_thread_never_takes_a_reply_a_call_waits_for(engine, batches):
    calls, sends = (3000, 3000) if engine == "cpu" else (40, 40)
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(echo))
        errors, sent, got = _mixed_traffic(k, calls, sends, batches)
        t = k.telemetry()
    assert not errors, errors[:3]
    assert sorted(c for c, _ in got) == sorted(sent)  # every sent reply, once, to the receiver
    assert all(key < 0 for _, key in got)  # and no call's reply
    assert t.submitted == t.received == 2 * calls + sends and t.in_flight == 0


def test_a_reply_that_comes_after_its_call_gave_up_goes_to_receive(engine):
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(echo))
        k.deactivate()
        with pytest.raises(RingTimeoutError):
            k.call(x=1.0, k=7, timeout=0.2)
        assert not k._awaited
        k.activate()
        r = k.receive(timeout=120)
        assert (r.k, r.y) == (7, 2.0)


def test_call_async_replies_are_not_taken_by_a_thread_that_receives():
    n = 500
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(echo))
        stolen: list[int] = []
        stop = threading.Event()

        def receiver():
            while not stop.is_set():
                try:
                    stolen.append(k.receive(timeout=0.05).k)
                except RingTimeoutError:
                    pass

        th = threading.Thread(target=receiver)
        th.start()

        async def main():
            return await asyncio.gather(
                *(k.call_async(x=float(i), k=i, timeout=120) for i in range(n))
            )

        try:
            replies = asyncio.run(main())
        finally:
            stop.set()
            th.join()
        assert [r.k for r in replies] == list(range(n))
        assert stolen == [] and not k._awaited

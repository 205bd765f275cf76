"""Ring kernel semantics, the same tests on every engine: cpu, cuda, metal.

Without a GPU, "cuda" runs on numba's CUDA simulator and "metal" on MLX's CPU device; an
engine whose module does not import here is skipped with the import error as the reason.
"""

from __future__ import annotations

import asyncio
import threading
import time

import numpy as np
import pytest

from pdc.ring import (
    RingError,
    RingFullError,
    RingHandlerError,
    RingKernelRuntime,
    RingStateError,
    RingTimeoutError,
    ring_kernel,
    select,
)

REQ = np.dtype([("x", np.float64), ("k", np.int64), ("fail", np.int64)])
REP = np.dtype([("y", np.float64), ("k", np.int64)])


def work(req, rep):
    rep.y = req.x * 2.0 + 1.0
    rep.k = req.k
    return select(req.fail != 0, req.fail, 0)


def make(backpressure="block", queue_size=64, kid="work", block_timeout=5.0):
    return ring_kernel(
        kernel_id=kid,
        request=REQ,
        reply=REP,
        queue_size=queue_size,
        backpressure=backpressure,
        block_timeout=block_timeout,
    )(work)


def batch_of(n, start=0):
    b = np.zeros(n, REQ)
    b["x"] = np.arange(start, start + n)
    b["k"] = np.arange(start, start + n)
    return b


def test_100k_messages_none_lost_or_duplicated(engine):
    n, chunk = 100_000, 2_000
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(make(queue_size=chunk))
        sent_ids, got_ids, got_k = [], [], []
        for start in range(0, n, chunk):
            sent_ids.append(k.send_batch(batch_of(chunk, start)))
            r = k.receive_batch(chunk, timeout=60)
            got_ids.append(r.corr_ids)
            got_k.append(r.records["k"])
            assert (r.status == 0).all()
            assert (r.records["y"] == r.records["k"] * 2.0 + 1.0).all()
        sent, ids, ks = (np.concatenate(a) for a in (sent_ids, got_ids, got_k))
        assert len(np.unique(ids)) == n  # no duplicates
        assert np.array_equal(np.sort(ids), np.sort(sent))  # none lost
        # Correlation: the reply to message sent_ids[i] carries request k == i.
        k_of_id = dict(zip(sent.tolist(), range(n), strict=True))
        assert all(k_of_id[i] == kk for i, kk in zip(ids.tolist(), ks.tolist(), strict=True))
        t = k.telemetry()
        assert (t.submitted, t.processed, t.received, t.in_flight) == (n, n, n, 0)
        assert (t.dropped, t.rejected, t.errors) == (0, 0, 0)


def test_single_messages_are_matched_by_correlation_id(engine):
    n = 300 if engine == "cpu" else 60
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(make())
        for i in range(n):
            r = k.call(x=float(i), k=i, timeout=30)
            assert (r.k, r.y) == (i, 2.0 * i + 1.0)
        # Interleaved: send several, then ask for them out of order.
        ids = [rt.send("work", x=float(i), k=i) for i in range(8)]
        for i in reversed(range(8)):
            r = k.receive(timeout=30, corr_id=ids[i])
            assert r.corr_id == ids[i] and r.k == i
        assert k.telemetry().received == n + 8


def test_fifo_within_a_lane_and_high_lane_first(engine):
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(make(queue_size=16), activate=False)
        normal = [k.send(x=0.0, k=i) for i in range(10)]
        high = [k.send(x=0.0, k=100 + i, priority="high") for i in range(10)]
        k.activate()
        r = k.receive_batch(20, timeout=30)
        assert r.corr_ids.tolist() == high + normal
        assert r.records["k"].tolist() == [100 + i for i in range(10)] + list(range(10))


def test_reject_backpressure_refuses_and_counts(engine):
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(make("reject", queue_size=4), activate=False)
        ids = [k.send(x=1.0, k=i) for i in range(4)]
        with pytest.raises(RingFullError, match=r"reject.*4/4|4/4.*reject"):
            k.send(x=1.0, k=99)
        with pytest.raises(RingFullError):
            k.send_batch(batch_of(2))  # a batch is rejected whole
        t = k.telemetry()
        assert (t.rejected, t.submitted, t.waiting) == (3, 4, 4)
        k.activate()
        r = k.receive_batch(4, timeout=30)
        assert r.corr_ids.tolist() == ids  # nothing lost, nothing extra


def test_block_backpressure_waits_then_times_out(engine):
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(make("block", queue_size=4, block_timeout=0.3), activate=False)
        for i in range(4):
            k.send(x=1.0, k=i)
        t0 = time.perf_counter()
        with pytest.raises(RingFullError, match="block"):
            k.send(x=1.0, k=4)
        assert time.perf_counter() - t0 >= 0.3
        # A send that blocks succeeds once the kernel is activated from another thread.
        k.block_timeout = 30.0
        timer = threading.Timer(0.2, k.activate)
        timer.start()
        cid = k.send(x=1.0, k=5)
        timer.join()
        r = k.receive_batch(5, timeout=30)
        assert cid in r.corr_ids.tolist()
        t = k.telemetry()
        assert (t.blocked, t.rejected, t.submitted, t.processed) == (2, 1, 5, 5)


def test_drop_oldest_really_drops_the_oldest(engine):
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(make("drop_oldest", queue_size=4), activate=False)
        ids = [k.send(x=1.0, k=i) for i in range(7)]  # 3 too many
        assert k.dropped_ids == ids[:3]
        with pytest.raises(RingError, match="dropped"):
            k.receive(timeout=30, corr_id=ids[0])
        more = k.send_batch(batch_of(2, 7))
        assert k.dropped_ids == ids[:5]
        t = k.telemetry()
        assert (t.dropped, t.waiting, t.processed) == (5, 4, 0)
        k.activate()
        r = k.receive_batch(4, timeout=30)
        assert r.corr_ids.tolist() == ids[5:] + more.tolist()
        assert k.telemetry().in_flight == 0


def test_deactivate_pauses_and_activate_resumes(engine):
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(make())
        k.call(x=1.0, k=0, timeout=30)
        k.deactivate()
        assert k.state == "deactivated"
        ids = k.send_batch(batch_of(5))
        time.sleep(0.2)
        t = k.telemetry()
        assert (t.processed, t.waiting, t.replies_ready) == (1, 5, 0)
        k.activate()
        assert k.state == "active"
        assert k.receive_batch(5, timeout=30).corr_ids.tolist() == ids.tolist()


def test_terminate_returns_in_bounded_time_and_reports_undelivered(engine):
    rt = RingKernelRuntime(backend=engine)
    k = rt.launch(make())
    done = k.call(x=1.0, k=0, timeout=30)
    k.deactivate()
    left = [k.send(x=1.0, k=i) for i in range(3)]
    report = rt.terminate("work", timeout=20)
    assert report.stopped and report.seconds < 20
    assert report.undelivered == left
    assert k.state == "terminated"
    assert done.ok
    with pytest.raises(RingStateError, match="terminated"):
        k.send(x=1.0, k=9)


def test_handler_error_is_reported_counted_and_kernel_keeps_serving(engine):
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(make())
        with pytest.raises(RingHandlerError, match="error code 7") as info:
            k.call(x=1.0, k=1, fail=7, timeout=30)
        assert info.value.code == 7
        r = k.call(x=2.0, k=2, fail=3, timeout=30, check=False)
        assert (r.status, r.ok, r.k) == (3, False, 2)
        assert k.call(x=3.0, k=3, timeout=30).y == 7.0
        t = k.telemetry()
        assert (t.errors, t.last_error, t.processed) == (2, 3, 3)


def test_bad_input_gives_clear_errors_and_loses_nothing(engine):
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(make(), activate=False)
        k.send(x=1.0, k=1)
        with pytest.raises(TypeError, match=r"expected dtype .*got"):
            k.send_batch(np.zeros(3, REP))
        with pytest.raises(ValueError, match=r"1-D batch, got shape \(2, 2\)"):
            k.send_batch(np.zeros((2, 2), REQ))
        with pytest.raises(ValueError, match=r"unknown field\(s\) \['z'\]"):
            k.send(x=1.0, z=2.0)
        with pytest.raises(ValueError, match="priority"):
            k.send(x=1.0, priority="urgent")
        with pytest.raises(
            RingTimeoutError, match=r"work.*'deactivated'.*1 message\(s\) in flight"
        ):
            k.receive(timeout=0.2)
        assert k.telemetry().submitted == 1
        k.activate()
        assert k.receive(timeout=30).k == 1


def test_asyncio_forms(engine):
    async def main(rt):
        k = rt.kernel("work")
        ids = [await rt.send_async("work", x=float(i), k=i) for i in range(20)]
        got = [await rt.receive_async("work", timeout=30) for _ in range(20)]
        r = await k.call_async(x=5.0, k=5, timeout=30)
        return ids, got, r

    with RingKernelRuntime(backend=engine) as rt:
        rt.launch(make())
        ids, got, r = asyncio.run(main(rt))
        assert [g.corr_id for g in got] == ids
        assert r.y == 11.0


def test_relaunch_of_a_kernel_id_is_refused(engine):
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(make())
        with pytest.raises(RingStateError, match="already launched"):
            rt.launch(make())
        with pytest.raises(RingStateError, match="launched 1 time"):
            k.engine.launch()
        assert k.engine.launches == 1

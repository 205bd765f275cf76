"""Ring kernels under concurrency, interrupts and misuse: nothing lost, nothing hung.

Every test runs on each engine (cpu; cuda on numba's simulator and metal on MLX's CPU
device when there is no GPU). Waits that must not hang are run in a helper thread joined
with a generous limit: the limit only turns a hang into a failure, it times nothing.
"""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import textwrap
import threading
from collections import Counter

import numpy as np
import pytest

from pdc.ring import (
    RingError,
    RingKernelRuntime,
    RingStateError,
    RingTimeoutError,
    ring_kernel,
    select,
)
from pdc.ring.tools.stress import run_mode

REQ = np.dtype([("x", np.float64), ("k", np.int64)])
REP = np.dtype([("y", np.float64), ("k", np.int64)])
HANG = 120.0  # seconds after which a wait that should have ended counts as hung


def twice(req, rep):
    rep.y = req.x * 2.0
    rep.k = req.k
    return select(req.k < 0, 3, 0)


def kernel(queue_size=16, backpressure="block", kid="twice"):
    return ring_kernel(
        kernel_id=kid, request=REQ, reply=REP, queue_size=queue_size, backpressure=backpressure
    )(twice)


def run_threads(targets, limit=HANG):
    """Run callables in threads; return their exceptions; fail if one is still running."""
    errors: list[BaseException] = []

    def wrap(fn):
        def body():
            try:
                fn()
            except BaseException as exc:  # collected for the assertion
                errors.append(exc)

        return body

    threads = [threading.Thread(target=wrap(fn), daemon=True) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(limit)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return errors


def test_several_producers_and_consumers_on_one_kernel(engine):
    per, producers = (100, 3) if engine != "cpu" else (500, 4)
    sent: list[tuple[int, int]] = []
    got: list[tuple[int, float, int]] = []
    lock = threading.Lock()
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(kernel(queue_size=8))

        def produce(p):
            def body():
                for i in range(per):
                    key = p * per + i
                    cid = k.send(x=float(key), k=key, priority="high" if i % 3 else "normal")
                    with lock:
                        sent.append((cid, key))

            return body

        def consume():
            while True:
                try:
                    r = k.receive(timeout=0.2)
                except RingTimeoutError:
                    with lock:
                        if len(got) >= per * producers:
                            return
                    continue
                with lock:
                    got.append((r.corr_id, r.y, r.k))

        switch = sys.getswitchinterval()
        sys.setswitchinterval(1e-5)  # switch threads often: races show up in a short run
        try:
            errors = run_threads([produce(p) for p in range(producers)] + [consume, consume])
        finally:
            sys.setswitchinterval(switch)
        assert not errors, errors
        t = k.telemetry()
    ids = [c for c, _ in sent]
    assert len(set(ids)) == len(ids) == per * producers  # no id handed out twice
    key_of = dict(sent)
    assert sorted(c for c, _, _ in got) == sorted(ids)  # every reply exactly once
    assert all(y == 2.0 * key_of[c] and kk == key_of[c] for c, y, kk in got)
    assert (t.submitted, t.processed, t.received, t.in_flight) == (len(ids),) * 3 + (0,)


@pytest.mark.parametrize("mode", ["block", "reject", "drop_oldest"])
def test_small_stress_reconciles_every_message(engine, mode):
    n = 1_500 if engine == "cpu" else 300
    res = run_mode(engine, mode, n, seconds=30.0, queue_size=4, fault_rate=0.05)
    assert not res.violations, res.violations
    c = res.counts
    assert c["accepted"] + c["refused"] == n
    assert c["accepted"] == c["replied"] + c["errored"] + c["dropped"] + c["undelivered"]
    if mode != "reject":
        assert c["refused"] == 0  # block and drop_oldest only refuse for a stalled device


def _ends_promptly(coro_or_fn):
    """Run a wait that must raise at once on a terminated kernel; return its exception."""
    box: list[BaseException] = []

    def body():
        try:
            if asyncio.iscoroutine(coro_or_fn):
                asyncio.run(coro_or_fn)
            else:
                coro_or_fn()
        except BaseException as exc:
            box.append(exc)

    assert not run_threads([body])
    assert box, "the wait returned although no reply could come"
    return box[0]


def test_every_wait_on_a_terminated_kernel_ends(engine):
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(kernel())
        assert k.call(x=1.0, k=1, timeout=60).y == 2.0
        k.deactivate(timeout=60)
        cid = k.send(x=2.0, k=2)  # never handled: undelivered at terminate
        report = k.terminate(timeout=60)
        assert report.stopped and report.undelivered == [cid]
        waits = [
            lambda: k.receive(),
            lambda: k.receive(corr_id=cid),
            lambda: k.receive_batch(3),
            k.receive_async(),
        ]
        for w in waits:
            assert isinstance(_ends_promptly(w), RingTimeoutError)
        assert isinstance(_ends_promptly(lambda: k.send(x=1.0, k=1)), RingStateError)
        assert isinstance(_ends_promptly(k.call_async(x=1.0, k=1)), RingStateError)


def test_every_wait_ends_when_the_device_loop_failed(engine):
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(kernel())
        k.deactivate(timeout=60)
        cid = k.send(x=1.0, k=1)
        # A loop that died: it left, and the engine reports why (as a device fault would).
        k.host.request_terminate()
        assert k.engine.join(HANG)
        k.engine.failure = RuntimeError("device fault")
        assert isinstance(_ends_promptly(lambda: k.receive(corr_id=cid)), RingTimeoutError)
        assert isinstance(_ends_promptly(lambda: k.receive_batch(2)), RingTimeoutError)
        assert isinstance(_ends_promptly(k.receive_async()), RingTimeoutError)
        exc = _ends_promptly(lambda: k.call(x=2.0, k=2))
        assert isinstance(exc, RingStateError) and "device fault" in str(exc)
        assert k.terminate(timeout=60).undelivered == [cid]


def test_call_async_waits_for_a_terminate_from_another_thread(engine):
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(kernel())
        k.deactivate(timeout=60)

        async def caller():
            return await k.call_async(x=1.0, k=1)  # no timeout: only terminate ends it

        box: list[BaseException] = []

        def body():
            try:
                asyncio.run(caller())
            except BaseException as exc:
                box.append(exc)

        t = threading.Thread(target=body, daemon=True)
        t.start()
        t.join(0.3)
        k.terminate(timeout=60)
        t.join(HANG)
        assert not t.is_alive()
        assert box and isinstance(box[0], RingTimeoutError)


def test_block_mode_blocks_for_a_thousand_gathered_call_async(engine):
    n = 1_000 if engine == "cpu" else 300

    async def main(k):
        replies = await asyncio.gather(*(k.call_async(x=float(i), k=i) for i in range(n)))
        return [(r.k, r.y) for r in replies]

    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(kernel(queue_size=16))
        out = asyncio.run(main(k))
        t = k.telemetry()
    assert out == [(i, 2.0 * i) for i in range(n)]
    assert t.rejected == 0 and t.blocked > 0 and t.in_flight == 0


class _Interrupt:
    """Raise KeyboardInterrupt from a wrapped function every ``every``-th call."""

    def __init__(self, fn, every):
        self.fn, self.every, self.calls, self.raised = fn, every, 0, 0

    def __call__(self, *args, **kw):
        self.calls += 1
        if self.calls % self.every == 0:
            self.raised += 1
            raise KeyboardInterrupt
        return self.fn(*args, **kw)


def test_ctrl_c_inside_send_and_receive_leaves_the_runtime_consistent(engine, monkeypatch):
    from pdc.ring.host import consumer as receiving
    from pdc.ring.host.replies import Reply

    n = 400 if engine == "cpu" else 120
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(kernel(queue_size=8))
        # After a message is written (the wake-up), while a reply becomes a Reply, and in
        # the middle of moving replies aside.
        wake = _Interrupt(k.engine.wake, 7)
        monkeypatch.setattr(k.engine, "wake", wake)
        make_reply = _Interrupt(Reply, 5)
        monkeypatch.setattr(receiving, "Reply", make_reply)
        got = []
        for i in range(n):
            try:
                k.send(x=float(i), k=i)
            except KeyboardInterrupt:
                pass  # written or not, depending on where it landed: telemetry tells
            try:
                got.append(k.receive(timeout=0.5))
            except (KeyboardInterrupt, RingTimeoutError):
                pass
            assert k._stash.count >= 0
            assert not k._send_lock.locked() and not k._recv_lock.locked()
        monkeypatch.setattr(receiving, "Reply", Reply)
        monkeypatch.setattr(k.engine, "wake", wake.fn)
        accepted = k.telemetry().submitted
        while len(got) < accepted:
            got.append(k.receive(timeout=60))
        t = k.telemetry()
    assert wake.raised and make_reply.raised
    assert n - wake.raised <= accepted <= n
    ks = [r.k for r in got]
    assert len(set(ks)) == len(ks) == accepted  # every reply once: none lost, none twice
    assert all(r.y == 2.0 * r.k for r in got)
    assert len({r.corr_id for r in got}) == accepted
    assert (t.received, t.replies_ready, t.in_flight) == (accepted, 0, 0)


def test_python_handler_error_texts_go_with_their_own_message():
    def picky(req, rep):
        if req.k % 3 == 0:
            raise ValueError(f"bad k={req.k}")
        rep.k = req.k
        return -1 if req.k % 3 == 1 else 0  # an error code of its own, without raising

    kdef = ring_kernel(request=REQ, reply=REP, queue_size=32, python=True)(picky)
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kdef)
        ids = {k.send(x=0.0, k=i): i for i in range(12)}
        replies = [k.receive(timeout=60) for _ in ids]
    for r in replies:
        i = ids[r.corr_id]
        if i % 3 == 0:
            assert r.error is not None and f"bad k={i}" in r.error
        else:
            assert r.error is None


def test_drop_oldest_reports_every_drop_to_the_caller(engine):
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(kernel(queue_size=4, backpressure="drop_oldest"), activate=False)
        b = np.zeros(11, REQ)
        b["k"] = np.arange(11)
        ids = k.send_batch(b)
        t = k.telemetry()
        assert sorted(k.dropped_ids) == ids[:7].tolist() and t.dropped == 7
        with pytest.raises(RingError, match="dropped"):
            k.receive(corr_id=int(ids[0]), timeout=60)
        k.activate(timeout=60)
        got = k.receive_batch(4, timeout=60)
        assert got.corr_ids.tolist() == ids[7:].tolist()


def test_a_runtime_dropped_without_close_stops_its_kernels(engine):
    rt = RingKernelRuntime(backend=engine)
    k = rt.launch(kernel())
    assert k.call(x=1.0, k=1, timeout=60).y == 2.0
    engine_ = k.engine
    del rt, k
    gc.collect()
    assert engine_.join(HANG)  # the finalizer asked it to leave
    assert engine_.rings.ctrl[0] == 5  # S_TERMINATED


def test_exit_with_live_kernels_and_messages_in_flight_is_clean(engine, tmp_path):
    code = textwrap.dedent(
        f"""
        import numpy as np, pdc
        from pdc.ring import RingKernelRuntime, ring_kernel
        REQ = np.dtype([("x", np.float64), ("k", np.int64)])
        @ring_kernel(request=REQ, reply=REQ, queue_size=64)
        def echo(req, rep):
            rep.x = req.x
            rep.k = req.k
            return 0
        def run():
            rt = RingKernelRuntime(backend={engine!r})  # never closed
            k = rt.launch(echo)
            k.call(x=1.0, k=1, timeout=60)
            k.deactivate(timeout=60)
            for i in range(20):
                k.send(x=1.0, k=i)
            return rt
        keep = run()
        print("done", flush=True)
        """
    )
    script = tmp_path / "live_at_exit.py"  # a file: handlers need their source
    script.write_text(code)
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=HANG
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("done")


def test_ids_and_ends_counted_once_across_modes_with_toggles_cpu():
    res = run_mode("cpu", "drop_oldest", 3_000, queue_size=2, fault_rate=0.02, seed=3)
    assert not res.violations, res.violations
    assert res.counts["dropped"] > 0 and sum(Counter(res.counts).values()) > 0

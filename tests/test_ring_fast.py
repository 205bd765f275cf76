"""The cpu backend's compiled ``call`` (``pdc.ring.host.fast``) and its doorbell
(``pdc.ring.engines.doorbell``): same answers and errors as the generic path, safe from several
threads; a Ctrl-C at every signal check point around it is in ``test_ring_interrupts``."""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest

from pdc.ring import RingKernelRuntime, ring_kernel

REQ = np.dtype([("x", np.float64), ("k", np.int32), ("u", np.uint8)])
REP = np.dtype([("y", np.float32), ("k", np.int64), ("u", np.uint16)])


def work(req, rep):
    rep.y = req.x * 2.0
    rep.k = req.k
    rep.u = req.u + 1


def kernel(queue_size=16, python=False):
    return ring_kernel(
        kernel_id="fast", request=REQ, reply=REP, queue_size=queue_size, python=python
    )(work)


def test_fast_paths_are_used_on_cpu_and_answer_like_the_generic_ones():
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kernel())
        assert k._fast is not None
        assert k.call.__code__.co_filename.startswith("<pdc.ring.host.quick")  # pdc.ring.host.quick
        r = k.call(x=1.5, k=-7, u=254)
        assert (r.y, r.k, r.u, r.status) == (3.0, -7, 255, 0)
        assert (r.kernel_id, r.corr_id, r.error, r.ok) == ("fast", 1, None, True)
        assert r.values == {"y": 3.0, "k": -7, "u": 255} and "corr_id=1" in repr(r)
        ids = [k.send(x=float(i), k=i, u=i) for i in range(10)]
        r = k.call(x=4.0, k=99, u=0)  # replies ahead of its own: they are kept, in order
        assert (r.k, r.corr_id) == (99, ids[-1] + 1)
        got = [k.receive(timeout=60) for _ in ids]
        assert [g.corr_id for g in got] == ids
        assert [(g.y, g.k, g.u) for g in got] == [(2.0 * i, i, i + 1) for i in range(10)]
        assert k.call(x=np.float32(0.5), k=np.int64(3), u=True).k == 3  # NumPy scalars, bool
        t = k.telemetry()
    assert (t.submitted, t.processed, t.received, t.in_flight) == (13, 13, 13, 0)


def test_fast_paths_refuse_what_the_generic_path_refuses():
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kernel())
        for bad in ({"k": 1.5}, {"k": 2**31}, {"u": -1}, {"x": "a"}, {"x": 1e400j}):
            fields = {"x": 0.0, "k": 0, "u": 0, **bad}
            name = next(iter(bad))
            with pytest.raises((TypeError, ValueError), match=rf"\[call fast\] field '{name}'"):
                k.call(**fields)
            with pytest.raises((TypeError, ValueError), match=rf"\[send fast\] field '{name}'"):
                k.send(**fields)
        assert k.call(x=2.0, k=1, u=1).y == 4.0  # nothing half-written was left behind
        t = k.telemetry()
    assert (t.submitted, t.received, t.in_flight) == (1, 1, 0)


NAMES_REQ = np.dtype([("type", np.int32), ("float", np.float64), ("_q_k", np.int64)])
NAMES_REP = np.dtype([("int", np.int64)])


def by_names(req, rep):
    rep.int = req.type + req._q_k


def test_the_quick_call_takes_any_field_names_and_refuses_like_the_general_one():
    """Fields named like builtins or like the quick call's own names."""
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(ring_kernel(kernel_id="names", request=NAMES_REQ, reply=NAMES_REP)(by_names))
        assert k.call(type=2, float=1.0, _q_k=3, timeout=60).int == 5
        with pytest.raises(ValueError, match=r"\[call names\] unknown field\(s\) \['extra'\]"):
            k.call(type=2, float=1.0, _q_k=3, extra=1, timeout=60)
        assert k.call(type=2, float=1.0, timeout=60).int == 2  # a field left out is 0
        with pytest.raises(ValueError, match="priority"):
            k.call(type=2, float=1.0, _q_k=3, priority="urgent", timeout=60)
        assert k.call(type=1, float=1.0, _q_k=1, priority="high", timeout=60).int == 2
        t = k.telemetry()
    assert (t.submitted, t.received, t.in_flight) == (3, 3, 0)


def test_python_handlers_take_the_generic_path():
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kernel(python=True))
        assert k._fast is None
        assert k.call(x=1.0, k=2, u=3).u == 4


def test_the_quick_call_holds_the_consumer_lock_while_it_works_on_the_rings():
    """It enters the kernel's consumer lock (through the lock's own bound methods): a call
    made while another thread holds that lock waits for it, and every way out frees it."""
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kernel())
        seen: list = []
        real = k.call.__globals__["_q_entry"]

        def entry(*args):
            seen.append(k._recv_lock.locked())
            return real(*args)

        k.call.__globals__["_q_entry"] = entry
        assert k.call(x=1.0, k=1, u=1, timeout=60).k == 1
        assert seen == [True] and not k._recv_lock.locked()
        k._recv_lock.acquire()
        out: list = []
        t = threading.Thread(target=lambda: out.append(k.call(x=2.0, k=2, u=2, timeout=60)))
        t.start()
        t.join(0.2)  # not a timing: however slow the machine, the lock is still held
        assert out == [] and seen == [True]
        k._recv_lock.release()
        t.join(60)
        assert out[0].k == 2 and seen == [True, True] and not k._recv_lock.locked()

        def interrupted(*args):
            raise KeyboardInterrupt

        k.call.__globals__["_q_entry"] = interrupted
        with pytest.raises(KeyboardInterrupt):
            k.call(x=3.0, k=3, u=3, timeout=60)
        assert not k._recv_lock.locked()
        k.call.__globals__["_q_entry"] = real
        assert k.call(x=4.0, k=4, u=4, timeout=60).k == 4
        t = k.telemetry()
    assert (t.submitted, t.received, t.in_flight) == (3, 3, 0)


def test_threads_calling_at_once_get_their_own_replies():
    n, threads = 3000, 3
    out: list[list] = [[] for _ in range(threads)]
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kernel(queue_size=8))

        def worker(w):
            for i in range(n):
                r = k.call(x=float(i), k=w * n + i, u=w, timeout=60)
                out[w].append((r.corr_id, r.k, r.y, r.u))

        ts = [threading.Thread(target=worker, args=(w,)) for w in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        tel = k.telemetry()
    for w in range(threads):
        assert [o[1] for o in out[w]] == [w * n + i for i in range(n)]
        assert all(y == 2.0 * (k_ - w * n) and u == w + 1 for _, k_, y, u in out[w])
    ids = [o[0] for o in sum(out, [])]
    assert len(set(ids)) == len(ids) == threads * n
    assert (tel.received, tel.in_flight) == (threads * n, 0)


def _held(k) -> int:
    return k._fast.words[k._fast.HELD]


def test_an_interrupt_right_after_the_compiled_call_puts_its_reply_in_the_stash():
    """A signal lands between bytecodes: just after the C call returned with the reply."""
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kernel())
        real = k.call.__globals__["_q_entry"]
        # Poll as long as it takes (a loaded machine may not run the loop at once).
        k._fast.polls = 10**10

        def interrupted(*args):
            real(*args)  # the reply comes back from the compiled call, then the signal lands
            raise KeyboardInterrupt

        stashed = 0
        for i in range(20):
            k.call(x=0.0, k=0, u=0, timeout=60)  # the loop is spinning: replies come fast
            k.call.__globals__["_q_entry"] = interrupted
            with pytest.raises(KeyboardInterrupt):
                k.call(x=3.0, k=i, u=1, timeout=60)
            k.call.__globals__["_q_entry"] = real
            assert _held(k) == 0
            stashed += k._stash.count  # held and put back (else still in the ring)
            r = k.receive(timeout=60)  # the interrupted call's reply, exactly once
            assert (r.k, r.y, r.u) == (i, 6.0, 2)
        t = k.telemetry()
    assert stashed > 0  # all 20 but for a loop that fell asleep in between
    assert (t.submitted, t.received, t.in_flight, t.replies_ready) == (40, 40, 0, 0)


def test_a_napping_loop_is_woken_by_its_doorbell():
    """Once idle long enough the loop naps on its doorbell; a call still gets its reply."""
    import time

    from pdc.ring.protocol import NAPPING

    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kernel())
        assert k.call(x=1.0, k=1, u=1, timeout=60).k == 1
        deadline = time.monotonic() + 30
        while k.ctrl[NAPPING] != 1:  # the back-off runs its course in tens of ms
            assert time.monotonic() < deadline, "the idle loop never armed its doorbell"
            time.sleep(0.01)
        for i in range(5):  # napping or not, every call is answered
            assert k.call(x=2.0, k=i, u=1, timeout=60).k == i
            time.sleep(0.3)
        k.deactivate(timeout=60)  # state changes wake it too
        k.activate(timeout=60)
        assert k.call(x=2.0, k=9, u=1, timeout=60).k == 9


def test_the_doorbell_ends_a_nap_long_before_its_timeout():
    """nap() with a 20 s limit returns within seconds of a ring (else the bell is broken)."""
    import numba

    from pdc.ring.engines.doorbell import Doorbell, nap
    from pdc.ring.protocol import CONTROL_WORDS, NAPPING

    @numba.njit(nogil=True)
    def nap_once(ctrl, ms):
        return nap(ctrl, ms)

    ctrl = np.zeros(CONTROL_WORDS, np.int64)
    bell = Doorbell(ctrl)
    nap_once(ctrl, 0)  # compile first
    done = threading.Event()
    t = threading.Thread(target=lambda: (nap_once(ctrl, 20_000), done.set()))
    t.start()
    while ctrl[NAPPING] != 1 and t.is_alive():
        pass
    bell.ring()
    assert done.wait(10), "a rung doorbell did not end the nap"
    t.join()
    assert ctrl[NAPPING] == 0
    bell.close()
    assert not nap_once(ctrl, 20_000)  # disarmed: the caller sleeps instead


def test_the_compiled_call_keeps_off_the_rings_while_a_general_producer_works():
    """``D_SENDING`` raised: the compiled call writes nothing and takes no id (-3)."""
    from pdc.ring.protocol import D_NEXT, D_SENDING, NORMAL

    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kernel(queue_size=4))
        fast = k._fast
        k.call(x=1.0, k=1, u=1, timeout=60)
        before, submitted = k._words[D_NEXT], k.telemetry().submitted
        k._words[D_SENDING] = 1
        r = fast.call(fast.arg(NORMAL), 2.0, 2, 2)
        assert r[0] == -3 and k._words[D_NEXT] == before
        assert k.telemetry().submitted == submitted
        # The caller that holds the producer lock itself passes ``locked`` and goes on.
        polls, fast.polls = fast.polls, 10**10
        r = fast.call(fast.arg(NORMAL, locked=True), 2.0, 2, 2)
        fast.polls = polls
        assert r[:2] == (2, before) and k._words[D_NEXT] == before + 1
        assert r[3] == (4.0, 2, 3)  # the reply's fields, in one tuple
        fast.words[fast.HELD] = 0
        k.received += 1
        # A flag left raised (a producer interrupted at its very first line) costs only
        # speed: the call goes the general way, whose producer lowers the flag again.
        k._words[D_SENDING] = 1
        assert k.call(x=3.0, k=3, u=3, timeout=60).k == 3
        assert k._words[D_SENDING] == 0
        # A producer blocked on a full lane holds the lock and the flag the whole time.
        k.deactivate()
        for i in range(4):
            k.send(x=0.0, k=i, u=0)
        blocked = threading.Thread(target=lambda: k.send_batch(np.zeros(4, REQ)))
        blocked.start()
        deadline = time.monotonic() + 30
        while not (k._send_lock.locked() and k._words[D_SENDING]) and time.monotonic() < deadline:
            time.sleep(0.001)
        assert k._words[D_SENDING] == 1
        r = fast.call(fast.arg(NORMAL), 4.0, 4, 4)
        assert r[0] == -3
        k.activate()
        blocked.join(timeout=60)
        assert not blocked.is_alive() and k._words[D_SENDING] == 0
        got = k.receive_batch(8, timeout=60)
        t = k.telemetry()
    assert len(set(got.corr_ids.tolist())) == 8
    assert (t.submitted, t.received, t.in_flight) == (11, 11, 0)


def test_calls_and_sends_from_several_threads_never_share_an_id():
    """Quick calls take ids inside the compiled call, producers under their lock: one counter."""
    n = 2000
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kernel(queue_size=8))
        call_ids: list[list[int]] = [[], []]
        sent: list[int] = []
        errors: list = []

        def caller(w):
            for i in range(n):
                r = k.call(x=float(i), k=i, u=w, timeout=120)
                if (r.k, r.u) != (i, w + 1):
                    errors.append((w, i, r.k, r.u))
                call_ids[w].append(r.corr_id)

        def sender():
            for _ in range(n // 4):
                sent.append(k.send(x=0.0, k=-1, u=9))
                sent.extend(k.send_batch(np.zeros(3, REQ)).tolist())

        ts = [threading.Thread(target=caller, args=(w,)) for w in (0, 1)]
        ts.append(threading.Thread(target=sender))
        interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)  # threads switch inside each other's critical sections
        try:
            for t in ts:
                t.start()
            for t in ts:
                t.join(timeout=300)
        finally:
            sys.setswitchinterval(interval)
        assert not any(t.is_alive() for t in ts)
        rest = k.receive_batch(len(sent), timeout=120)
        t = k.telemetry()
    ids = call_ids[0] + call_ids[1] + sent
    assert not errors, errors[:3]
    assert len(ids) == len(set(ids)) == 2 * n + n
    assert sorted(rest.corr_ids.tolist()) == sorted(sent)
    assert (t.submitted, t.received, t.in_flight) == (3 * n, 3 * n, 0)

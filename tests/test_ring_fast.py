"""The cpu backend's compiled ``call`` (``pdc.ring.fast``) and its doorbell
(``pdc.ring.doorbell``): same answers and errors as the generic path, safe from several
threads, and a Ctrl-C landing at any Python line around it loses or duplicates nothing."""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest

from pdc.ring import Reply, RingKernelRuntime, RingTimeoutError, ring_kernel
from pdc.ring.receiving import Receiving

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
        assert k.call.__code__.co_filename.startswith("<pdc.ring.quick")  # pdc.ring.quick
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
            with pytest.raises(TypeError, match="send"):
                k.call(**fields)
            with pytest.raises(TypeError, match="send"):
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
        with pytest.raises(ValueError, match=r"\[send names\] unknown field\(s\) \['extra'\]"):
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


class _InjectAtLine:
    """A tracer raising KeyboardInterrupt once, at one line of the given functions.

    It records what was in the frame when it fired: ``handed`` is the reply when it had
    already been handed over (its hold released), i.e. the interrupt came after the
    reply was given to the caller in all but the ``return``.
    """

    def __init__(self, kernel, codes, line):
        self.k, self.codes, self.line = kernel, codes, line
        self.fired = False
        self.handed = None

    def __call__(self, frame, event, arg):
        if self.fired or frame.f_code not in self.codes:
            return None
        return self.local

    def local(self, frame, event, arg):
        if event == "line" and frame.f_lineno == self.line and not self.fired:
            self.fired = True
            # ``reply`` in the fast call, ``got`` in ``call`` once the fast call returned it
            got = [frame.f_locals.get(n) for n in ("reply", "got", "_q_reply", "_q_got")]
            reply = next((r for r in got if isinstance(r, Reply)), None)
            if reply is not None and _held(self.k) == 0:
                self.handed = reply
            raise KeyboardInterrupt
        return self.local


# A tracer sees a line event when a ``with`` block exits, before a ``finally`` release and
# at the NOP a ``try:`` line compiles to (which no exception handler covers, so a tracer's
# raise there skips the ``with`` exit); a signal is never raised at those points (the
# interpreter checks at calls and backward jumps, and the lock's exit and release are
# single C calls), so those lines are not injected.
# The same holds for the ``finally`` of ``call`` that frees its reserved id: a subscript
# test and one C call, after which the interpreter first checks for a signal.
_NOT_SIGNAL_POINTS = (
    "with ",
    "finally",
    "try:",
    "self._recv_lock.release()",
    "if reserved[0]:",
    "self._awaited.discard(reserved[0])",
    "if _q_held:",
    "_q_awaited.discard(_q_held)",
)


# Lines of the fast call where an interrupt is the most dangerous: around the C call.
_KEY_LINES = (
    "fast.call(",
    "Reply(",
    "fast.words[",
    "self.received",
    "_q_entry(",
    "_q_new(",
    "_q_reply.",
    "_q_words[",
)


def _lines(*fns):
    import linecache

    codes = {fn.__code__ for fn in fns}
    lines = sorted(
        ln
        for ln in {ln for c in codes for _, _, ln in c.co_lines() if ln is not None}
        if linecache.getline(fns[0].__code__.co_filename, ln).strip()
        and not linecache.getline(fns[0].__code__.co_filename, ln)
        .strip()
        .startswith(_NOT_SIGNAL_POINTS)
    )
    return codes, lines


def _quick_or_general(k, path: str):
    """The functions of one call path; with "general", the quick one is switched off."""
    k._fast.polls = 10**10  # wait for each reply inside the C call, however loaded
    if path == "general":
        vars(k).pop("call")
        return (Receiving._fast_call, Receiving.call)
    assert k.call.__code__.co_filename.startswith("<pdc.ring.quick")
    k.call.__globals__["_q_polls"] = 10**10
    return (k.call,)


@pytest.mark.parametrize("path", ["quick", "general"])
def test_ctrl_c_at_every_line_of_the_fast_call_keeps_the_invariant(path):
    """Inject KeyboardInterrupt at each Python line of the compiled call's Python side."""
    handed: dict[int, tuple] = {}  # corr id -> (k, y) of every reply given to the test
    lost: set[int] = set()  # replies handed over while the interrupt landed
    injected = 0
    hit: set[int] = set()
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kernel(queue_size=8))
        fns = _quick_or_general(k, path)
        codes, lines = _lines(*fns)
        i = 0
        for _ in range(3):
            for line in lines:
                i += 1
                tracer = _InjectAtLine(k, codes, line)
                sys.settrace(tracer)
                try:
                    r = k.call(x=float(i), k=i, u=1, timeout=60)
                    handed[r.corr_id] = (r.k, r.y)
                except KeyboardInterrupt:
                    injected += 1
                    hit.add(line)
                    if tracer.handed is not None:
                        lost.add(tracer.handed.corr_id)
                finally:
                    sys.settrace(None)
                assert not k._send_lock.locked() and not k._recv_lock.locked()
                assert not k._awaited  # no reservation outlives its call
                assert _held(k) == 0
                assert k._stash.count == sum(len(c[0]) - c[3] for c in k._stash.chunks) >= 0
        t = k.telemetry()
        while True:  # everything left: in the ring or in the stash
            try:
                r = k.receive(timeout=0.5)
            except RingTimeoutError:
                break
            assert r.corr_id not in handed
            handed[r.corr_id] = (r.k, r.y)
        t = k.telemetry()
    import linecache

    src = linecache.getlines(fns[0].__code__.co_filename)
    key = [n + 1 for n, ln in enumerate(src) if any(w in ln for w in _KEY_LINES)]
    key = [n for n in key if any(c.co_firstlineno <= n for c in codes) and n in lines]
    assert len(key) >= 3 and set(key) <= hit  # an interrupt landed around the C call
    assert not (lost & set(handed))
    assert all(y == 2.0 * kk for kk, y in handed.values())
    # Every accepted message replied and counted once; none lost, none twice.
    assert t.submitted == t.processed == t.received == len(handed) + len(lost)
    assert (t.replies_ready, t.in_flight) == (0, 0)


@pytest.mark.parametrize("path", ["quick", "general"])
def test_an_interrupt_right_after_the_compiled_call_puts_its_reply_in_the_stash(path):
    """A signal lands between bytecodes: just after the C call returned with the reply."""
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kernel())
        fast = k._fast
        if path == "general":
            vars(k).pop("call")
            real = fast.call
        else:
            real = k.call.__globals__["_q_entry"]

        def interrupted(d, lane, corr, polls, *values):
            # Poll as long as it takes (a loaded machine may not run the loop at once):
            # the reply comes back from the compiled call, then the signal lands.
            real(d, lane, corr, 10**10, *values)
            raise KeyboardInterrupt

        stashed = 0
        for i in range(20):
            k.call(x=0.0, k=0, u=0, timeout=60)  # the loop is spinning: replies come fast
            if path == "general":
                fast.call = interrupted
            else:
                k.call.__globals__["_q_entry"] = interrupted
            with pytest.raises(KeyboardInterrupt):
                k.call(x=3.0, k=i, u=1, timeout=60)
            if path == "general":
                fast.call = real
            else:
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

    from pdc.ring.doorbell import Doorbell, nap
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
        r = fast.call(fast.addr, NORMAL, 0, fast.polls, 2.0, 2, 2)
        assert r[0] == -3 and k._words[D_NEXT] == before
        assert k.telemetry().submitted == submitted
        # The caller that holds the producer lock itself passes ``locked`` and goes on.
        r = fast.call(fast.addr, NORMAL, 1, 10**10, 2.0, 2, 2)
        assert r[:2] == (2, before) and k._words[D_NEXT] == before + 1
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
        r = fast.call(fast.addr, NORMAL, 0, fast.polls, 4.0, 4, 4)
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

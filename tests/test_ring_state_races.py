"""State changes are atomic: ``activate``, ``deactivate``, ``read_state`` and ``reset_state``
from several threads run one at a time (the kernel's state lock), on every backend.

Rule for concurrent toggles: they are serialised. Each returns once the device
acknowledged its own request; a toggle from another thread waits for it, then makes its
own. No toggle waits out its timeout because another overrode it.
"""

from __future__ import annotations

import threading

import numpy as np

from pdc.ring import RingKernelRuntime, RingStateError, RingTimeoutError, ring_kernel

REQ = np.dtype([("x", np.float64)])
REP = np.dtype([("a", np.int64), ("b", np.int64)])
PAIR = np.dtype([("a", np.int64), ("b", np.int64)])


def pair(req, rep, state):
    state.a = state.a + 1
    state.b = state.b + 1
    rep.a = state.a
    rep.b = state.b


def _threads(targets) -> list[BaseException]:
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
        t.join(300)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return errors


def test_toggles_from_two_threads_are_serialised(engine):
    rounds = 20 if engine == "cpu" else 6
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(ring_kernel(kernel_id="toggle", request=REQ, reply=REP, state=PAIR)(pair))
        seen: list[str] = []

        def toggler(op, want):
            def run():
                for _ in range(rounds):
                    op(timeout=60)  # never waits out its timeout: its request is its own
                    seen.append(want)

            return run

        errors = _threads([toggler(k.activate, "a"), toggler(k.deactivate, "d")])
        assert not errors, errors
        assert len(seen) == 2 * rounds
        k.activate(timeout=60)
        assert k.call(x=1.0, timeout=60).a >= 1  # still serving


def test_reset_and_read_never_interleave_with_activate(engine):
    """The handler keeps ``a == b``; a torn reset or read would show ``a != b``."""
    rounds = 30 if engine == "cpu" else 8
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(ring_kernel(kernel_id="races", request=REQ, reply=REP, state=PAIR)(pair))
        k.activate(timeout=60)
        stop = threading.Event()
        reads: list[tuple[int, int]] = []
        refused = [0]

        def caller():
            while not stop.is_set():
                try:
                    r = k.call(x=1.0, timeout=60)
                    assert r.a == r.b
                except RingTimeoutError:
                    pass  # deactivated while it waited: fine

        def flipper():
            for _ in range(rounds):
                k.activate(timeout=60)

        def resetter():
            try:
                for i in range(rounds):
                    k.deactivate(timeout=60)
                    try:
                        k.reset_state({"a": i, "b": i})
                        s = k.read_state()
                        reads.append((int(s["a"]), int(s["b"])))
                    except RingStateError:
                        refused[0] += 1  # the flipper activated it in between: refused whole
                    k.activate(timeout=60)
            finally:
                stop.set()

        errors = _threads([caller, flipper, resetter])
        assert not errors, errors
        assert len(reads) + refused[0] == rounds
        assert all(a == b for a, b in reads)
        k.deactivate(timeout=60)
        s = k.read_state()
        assert int(s["a"]) == int(s["b"])


def test_a_refused_drop_oldest_send_withdraws_its_drop():
    """A send refused (RingFullError) must not cost a waiting message its place."""
    from pdc.ring import RingFullError

    with RingKernelRuntime(backend="cpu") as rt:
        d = ring_kernel(
            kernel_id="drops",
            request=REQ,
            reply=REP,
            state=PAIR,
            queue_size=2,
            backpressure="drop_oldest",
            block_timeout=0.05,
        )(pair)
        k = rt.launch(d)  # launched, not activated: the device neither serves nor drops
        ids = [k.send(x=1.0), k.send(x=2.0)]
        try:
            k.send(x=3.0)  # full: asks for a drop the paused device never makes
        except RingFullError:
            pass
        else:  # the device dropped the oldest in time: nothing to withdraw
            return
        k.activate(timeout=60)
        got = sorted(k.receive(timeout=60).corr_id for _ in ids)
        assert got == ids  # both waiting messages were served
        assert not k.telemetry().dropped

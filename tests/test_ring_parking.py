"""Parking: a resident CUDA ring kernel steps aside while the context loads new code.

On a GPU, loading code into a context waits for the kernels running in it (measured on an
H100), so ``pdc.ring.parked()`` makes every resident ring kernel leave, rings untouched,
and launches it again afterwards; numba's module loading does this by itself. Without a GPU
the same kernel runs on numba's simulator and parks the same way, which these tests check:
nothing sent before, during or after a park is lost, duplicated or reordered; a terminate
asked while parked ends the kernel; sections nest and open from several threads; a ring
launched inside a section starts when it ends. The ``gpu`` tests compile and launch a new
numba kernel, and build a second ring kernel, next to a resident one.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import pytest

import pdc
from pdc.ring import RingKernelRuntime, parked, ring_kernel
from pdc.ring.engines import parking
from pdc.ring.engines.base import engine_class
from pdc.ring.protocol import PARK, TERMINATE, RingStateError, RingTimeoutError

REQ = np.dtype([("x", np.float64), ("k", np.int64)])
REP = np.dtype([("y", np.float64), ("k", np.int64)])


def scale(req, rep):
    rep.y = req.x * 2.0
    rep.k = req.k
    return 0


def roots(req, rep):
    rep.y = math.sqrt(req.x)  # exact; x ** 0.5 is a pow, 2.9999999999999996 for 9 on a GPU
    rep.k = req.k
    return 0


def batch(n, start=0):
    b = np.zeros(n, REQ)
    b["x"] = np.arange(start, start + n, dtype=np.float64)
    b["k"] = np.arange(start, start + n)
    return b


@pytest.fixture(scope="module")
def cuda_engine():
    try:
        cls = engine_class("cuda")
    except ImportError as exc:
        pytest.skip(f"the cuda ring engine does not import here: {exc}")
    pdc.numba_cuda()
    return cls


def _trace(k):
    from pdc.ring.engines import cuda_kernel as ck

    return ck, k.engine.trace


def test_messages_sent_while_parked_wait_and_none_is_lost_or_reordered(cuda_engine):
    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=64)(scale))
        assert k.call(x=1.0, k=0, timeout=30).y == 2.0
        ck, trace = _trace(k)
        with parked() as n:
            assert n == 1
            assert k.engine._left() and k.engine._parked
            k.send_batch(batch(40, 1))  # queued: nobody serves them now
            assert k.telemetry().processed == 1
            with parked() as inner:  # nested: already parked
                assert inner == 0
        r = k.receive_batch(40, timeout=60)
        assert r.records["k"].tolist() == list(range(1, 41))
        assert np.array_equal(r.records["y"], 2.0 * np.arange(1, 41))
        assert k.call(x=5.0, k=99, timeout=30).y == 10.0
        assert k.engine.rings.ctrl[PARK] == 0
        report = k.terminate(timeout=10)
    assert report.stopped
    assert (trace[ck.T_ENTRIES], trace[ck.T_PARKS], trace[ck.T_EXITS]) == (2, 1, 1)
    assert k.telemetry().processed == 42


def test_a_terminate_asked_while_parked_ends_the_kernel_when_the_section_ends(cuda_engine):
    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(scale))
        k.send_batch(batch(3))
        k.receive_batch(3, timeout=30)
        reports = []
        with parked():
            t = threading.Thread(target=lambda: reports.append(k.terminate(timeout=30)))
            t.start()
            t.join(0.3)
            assert t.is_alive()  # it waits for the kernel, which is parked
            assert k.state != "terminated"
        t.join(30)
        assert reports and reports[0].stopped
        assert k.state == "terminated"
    ck, trace = _trace(k)
    assert trace[ck.T_EXITS] == 1 and trace[ck.T_PARKS] == 1


def test_sections_from_several_threads_park_once_and_release_at_the_last(cuda_engine):
    with RingKernelRuntime(backend="cuda") as rt:
        a = rt.launch(ring_kernel("a", request=REQ, reply=REP, queue_size=8)(scale))
        b = rt.launch(ring_kernel("b", request=REQ, reply=REP, queue_size=8)(roots))
        go, inside, errors = threading.Barrier(4), [], []

        def section():
            try:
                go.wait(10)
                with parked() as n:
                    inside.append(n)
                    go.wait(10)  # every thread inside at once
                    assert a.engine._parked and b.engine._parked
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=section) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert not errors, errors
        assert sorted(inside) == [0, 0, 0, 2]  # the first in parked both, the others none
        assert not a.engine._parked and not b.engine._parked
        assert a.call(x=2.0, k=1, timeout=30).y == 4.0
        assert b.call(x=16.0, k=1, timeout=30).y == 4.0
    assert parking._depth == 0 and not parking._held


def test_a_ring_launched_inside_a_section_starts_when_it_ends(cuda_engine):
    with RingKernelRuntime(backend="cuda") as rt:
        definition = ring_kernel(request=REQ, reply=REP, queue_size=8)(scale)
        with parked():
            # In the thread that holds the section it could never acknowledge its launch.
            with pytest.raises(RingStateError, match=r"\[launch scale\] expected no parked"):
                rt.launch(definition)
            box = []
            t = threading.Thread(target=lambda: box.append(rt.launch(definition)))
            t.start()  # another thread: its kernel starts when the section ends
            t.join(0.5)
            assert t.is_alive() and not box
        t.join(60)
        k = box[0]
        k.send_batch(batch(2))
        r = k.receive_batch(2, timeout=30)
        assert r.records["y"].tolist() == [0.0, 2.0]
    ck, trace = _trace(k)
    assert trace[ck.T_ENTRIES] == 1 and trace[ck.T_PARKS] == 0


def test_a_kernel_that_does_not_leave_in_time_is_named_and_keeps_running(cuda_engine, monkeypatch):
    from pdc.ring.engines import cuda as cuda_engine_module

    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(scale))
        # The request lands in a word the kernel never reads: as if its handler never
        # returned to read the control words.
        spare = TERMINATE + 2
        monkeypatch.setattr(cuda_engine_module, "PARK", spare)
        with pytest.raises(RingTimeoutError, match=r"\[park scale\] expected .* within 0.2"):
            with parked(timeout=0.2):
                pass
        monkeypatch.undo()
        engine = k.engine
        assert engine.rings.ctrl[spare] == 0 and not engine._parked
        assert parking._depth == 0 and not parking._held
        assert k.call(x=3.0, k=3, timeout=30).y == 6.0


def test_an_interrupt_inside_a_section_still_relaunches_the_kernels(cuda_engine):
    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(scale))
        with pytest.raises(KeyboardInterrupt):
            with parked():
                raise KeyboardInterrupt
        assert not k.engine._parked and parking._depth == 0
        assert k.call(x=4.0, k=4, timeout=30).y == 8.0


def test_loading_code_parks_the_resident_rings_and_runs_them_again(cuda_engine):
    seen = []

    class Context:  # numba-cuda's driver.Context loads every new kernel through this method
        def create_module_image(self, image):
            seen.append((image, [e._parked for e in list(parking._LIVE)]))
            return "module"

    parking.park_around_loads(Context)
    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(scale))
        k.send_batch(batch(3))
        assert Context().create_module_image(b"cubin") == "module"
        assert seen[-1][0] == b"cubin" and seen[-1][1] and all(seen[-1][1])
        assert k.receive_batch(3, timeout=30).records["k"].tolist() == [0, 1, 2]
        assert not k.engine._parked
    ck, trace = _trace(k)
    assert trace[ck.T_PARKS] == 1
    assert k.engine not in parking._LIVE  # terminated: no longer parked around loads


@pytest.mark.parametrize("moment", ["before it left", "after it left"])
def test_ctrl_c_while_waiting_for_a_kernel_to_park_leaves_it_serving(cuda_engine, moment):
    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(scale))
        engine = k.engine
        real_left, calls = engine._left, []

        def interrupted():
            calls.append(1)
            if len(calls) == 2:  # the first look inside the wait: PARK is set by now
                if moment == "after it left":
                    while not real_left():
                        time.sleep(1e-3)
                raise KeyboardInterrupt
            return real_left()

        engine._left = interrupted
        try:
            with pytest.raises(KeyboardInterrupt):
                with parked():
                    pass
        finally:
            engine._left = real_left
        assert engine.rings.ctrl[PARK] == 0 and not engine._parked
        assert parking._depth == 0 and not parking._held
        assert not real_left()  # running: launched again if it had left
        for x in (1.0, 2.0, 3.0):  # served, whether or not it had left before the Ctrl-C
            assert k.call(x=x, k=1, timeout=30).y == 2.0 * x
        ck, trace = _trace(k)
        assert trace[ck.T_ENTRIES] == 1 + trace[ck.T_PARKS]  # every park launched again
        if moment == "after it left":
            assert trace[ck.T_PARKS] == 1


@pytest.mark.gpu
def test_a_new_numba_kernel_compiles_and_runs_next_to_a_resident_ring(cuda_engine):
    cuda = pdc.numba_cuda()
    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(scale))
        assert not k.engine.simulated
        before = int(k.engine.trace[_trace(k)[0].T_PARKS])

        @cuda.jit
        def add_one(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] += 1.0

        d = cuda.to_device(np.zeros(64))
        stream = cuda.stream()
        add_one[2, 32, stream](d)  # its first launch loads it: the ring is parked meanwhile
        stream.synchronize()
        assert d.copy_to_host().sum() == 64.0
        assert k.call(x=2.0, k=1, timeout=30).y == 4.0
        report = k.terminate(timeout=10)
    assert report.stopped
    ck, trace = _trace(k)
    assert trace[ck.T_PARKS] >= before + 1


@pytest.mark.gpu
def test_a_second_ring_is_built_and_launched_next_to_a_resident_one(cuda_engine):
    with RingKernelRuntime(backend="cuda") as rt:
        a = rt.launch(ring_kernel("a", request=REQ, reply=REP, queue_size=8)(scale))
        b = rt.launch(ring_kernel("b", request=REQ, reply=REP, queue_size=8)(roots), timeout=60)
        assert b.call(x=9.0, k=1, timeout=30).y == 3.0
        assert a.call(x=5.0, k=1, timeout=30).y == 10.0

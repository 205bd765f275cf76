"""CPU engine specifics: atomics, idle back-off, pure-Python handlers."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from pdc.ring import RingHandlerError, RingKernelRuntime, ring_kernel

numba = pytest.importorskip("numba")

REQ = np.dtype([("x", np.float64)])
REP = np.dtype([("y", np.float64)])


def root(req, rep):
    rep.y = math.sqrt(req.x)


def test_atomic_intrinsics_compile_to_atomic_instructions():
    from pdc.ring.engines.cpu import load_acquire, store_release

    @numba.njit
    def bump(a):
        store_release(a, 8, load_acquire(a, 0) + 1)
        return load_acquire(a, 8)

    a = np.zeros(16, np.int64)
    a[0] = 41
    assert bump(a) == 42
    ir = next(iter(bump.inspect_llvm().values()))
    assert "load atomic" in ir and "acquire" in ir
    assert "store atomic" in ir and "release" in ir


def test_an_idle_ring_does_not_burn_a_core():
    """After 100 ms without messages the loop sleeps between short polls.

    The target is < 10% of a core; the bound is 30% because this machine is shared and
    the process's other threads (pytest, numba) add their own noise to process_time.
    """
    kdef = ring_kernel(kernel_id="idle", request=REQ, reply=REP)(root)
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kdef)
        assert k.call(x=4.0, timeout=10).y == 2.0
        time.sleep(0.1)
        c0, w0 = time.process_time(), time.perf_counter()
        time.sleep(0.5)
        share = (time.process_time() - c0) / (time.perf_counter() - w0)
        assert share < 0.3, f"an idle ring used {share:.0%} of a core"
        # ...and it still answers at once when woken.
        assert k.call(x=9.0, timeout=10).y == 3.0


def anything(req, rep):
    table = {1.0: "one", 2.0: "two"}
    rep.y = float(len(table[req.x]))  # KeyError for other values


def test_python_handler_mode_reports_exceptions_and_keeps_serving():
    kdef = ring_kernel(kernel_id="py", request=REQ, reply=REP, python=True)(anything)
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kdef)
        assert k.call(x=1.0, timeout=10).y == 3.0
        with pytest.raises(RingHandlerError, match=r"error code -1 .*KeyError: .*7\.0"):
            k.call(x=7.0, timeout=10)
        ids = k.send_batch(np.array([(2.0,), (8.0,), (1.0,)], REQ))
        r = k.receive_batch(3, timeout=10)
        assert r.corr_ids.tolist() == ids.tolist()
        assert r.status.tolist() == [0, -1, 0] and r.records["y"].tolist() == [3.0, 0.0, 3.0]
        t = k.telemetry()
        assert (t.errors, t.processed) == (2, 5)
        assert "KeyError" in k.call(x=9.0, timeout=10, check=False).error


def test_numba_compile_failure_names_the_cpu_backend():
    def bad_types(req, rep):
        rep.y = math.isnan(req.x) + math.atan2(req.x)  # atan2 needs two arguments

    kdef = ring_kernel(kernel_id="bad", request=REQ, reply=REP)(bad_types)
    with pytest.raises(TypeError, match="numba cannot compile the handler for the cpu backend"):
        RingKernelRuntime(backend="cpu").launch(kdef)


def test_the_compiled_loop_reads_control_words_with_atomic_loads(monkeypatch):
    from pdc.ring.engines import cpu
    from pdc.ring.engines.base import EngineOptions
    from pdc.ring.handlers import HandlerSpec

    # Compiled here: a loop loaded from pdc.ring's disk cache holds machine code, no IR.
    monkeypatch.setenv("PDC_RING_CACHE", "0")
    monkeypatch.setattr(cpu, "_LOOPS", {})
    loop = cpu.compiled_loop(HandlerSpec.create(root, REQ, REP), EngineOptions())
    ir = "\n".join(loop.inspect_llvm().values())
    # TERMINATE, ACTIVE, both SKIPs, both HEADs and REP_TAIL are polled with acquire loads.
    assert ir.count("load atomic") >= 7 and "acquire" in ir
    assert "store atomic" in ir and "release" in ir

"""Cases that ended the whole process now end in an error or a clean stop, and launch(timeout=).

Each crash case runs in a child process: a crash (SIGSEGV, SIGFPE, an abort) shows as a
negative return code there instead of taking the test run down. On MLX 0.32.4 (``mlx[cpu]``
on Linux) these ended the process before: the smallest int64 divided by -1 (SIGFPE), and
terminating or leaving the interpreter while a handler with a long loop was mid-batch
(SIGSEGV: ``mx.compile`` of a graph of a million operations overflowed the stack, and a
worker still inside MLX while the interpreter finalized).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pdc.ring import RingKernelRuntime, RingStateError, RingTimeoutError, ring_kernel

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PRELUDE = """
import numpy as np
from pdc.ring import RingKernelRuntime, ring_kernel

REQ = np.dtype([("x", np.float64), ("n", np.int64), ("m", np.int64)])
REP = np.dtype([("q", np.float64), ("r", np.int64), ("s", np.int64)])

def divide(req, rep):
    rep.r = req.n // req.m
    rep.s = req.n % req.m
    rep.q = req.x // req.m
    return 0

def looping(req, rep):
    acc = req.x
    for _ in range(1048576):
        acc = acc + 1.0
    rep.q = acc
    return 0

def batch(n):
    b = np.zeros(n, REQ)
    b["x"] = np.arange(n)
    b["m"] = 1
    return b
"""


def child(tmp_path, code: str, timeout: float = 240) -> subprocess.CompletedProcess:
    """Run ``PRELUDE + code`` in a fresh interpreter; never raises on its return code.

    The script is a file: handlers are compiled from their source.
    """
    # ROOT first, then whatever the caller had (a GPU node may add a folder of carried wheels)
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    script = tmp_path / "child.py"
    script.write_text(PRELUDE + textwrap.dedent(code))
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
    )


def survived(out: subprocess.CompletedProcess) -> None:
    assert out.returncode >= 0, f"killed by signal {-out.returncode}:\n{out.stderr[-2000:]}"
    assert out.returncode == 0, out.stderr[-2000:]


def test_smallest_int_divided_by_minus_one_wraps_on_every_backend(engine, tmp_path):
    out = child(
        tmp_path,
        f"""
        rt = RingKernelRuntime(backend={engine!r})
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(divide))
        lo = np.iinfo(np.int64).min
        b = np.array([(2.5, lo, -1), (-7.5, 7, -1), (7.5, -7, 2), (1.0, 5, 0)], REQ)
        k.send_batch(b)
        r = k.receive_batch(len(b), timeout=120)
        order = np.argsort(r.corr_ids)
        print(r.status[order].tolist())
        print(r.records[order].tolist())
        print(k.terminate().stopped)
        """,
    )
    survived(out)
    status, records, stopped = out.stdout.strip().splitlines()[-3:]
    lo = np.iinfo(np.int64).min
    assert eval(status) == [0, 0, 0, -2]  # the division by zero is a fault, -1 is not
    # NumPy's answers (its floor_divide wraps the smallest int64 divided by -1).
    assert eval(records)[:3] == [(-3.0, lo, 0), (7.0, -7, 0), (3.0, -4, 1)]
    assert stopped == "True"


def test_metal_terminate_with_a_long_loop_mid_batch_stops_cleanly(tmp_path):
    pytest.importorskip("mlx.core", reason="the metal engine runs on MLX")
    out = child(
        tmp_path,
        """
        rt = RingKernelRuntime(backend="metal")
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=256)(looping))
        ids = k.send_batch(batch(100))
        import time
        time.sleep(0.5)  # the worker is inside the batch
        report = k.terminate(timeout=60)
        print(report.stopped, sorted(report.undelivered) == ids.tolist(), k.engine.compiled)
        """,
    )
    survived(out)
    # Stopped in the middle of its first batch: every message stays undelivered, and the
    # handler (a million operations) is too large for mx.compile.
    assert out.stdout.split() == ["True", "True", "False"]


def test_metal_exit_with_a_long_loop_mid_batch_and_messages_in_flight(tmp_path):
    pytest.importorskip("mlx.core", reason="the metal engine runs on MLX")
    out = child(
        tmp_path,
        """
        rt = RingKernelRuntime(backend="metal")
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=256)(looping))
        k.send_batch(batch(100))
        import time
        time.sleep(0.5)
        print("leaving")  # without terminate: the exit hooks stop the kernel
        """,
    )
    survived(out)
    assert out.stdout.strip() == "leaving"


def test_metal_terminate_with_many_messages_in_flight(tmp_path):
    pytest.importorskip("mlx.core", reason="the metal engine runs on MLX")
    out = child(
        tmp_path,
        """
        rt = RingKernelRuntime(backend="metal")
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8192)(divide))
        for _ in range(5):
            k.send_batch(batch(1000))
        report = k.terminate(timeout=60)
        t = k.telemetry()
        print(report.stopped, len(report.undelivered) + t.processed == 5000)
        """,
    )
    survived(out)
    assert out.stdout.split() == ["True", "True"]


def test_metal_loop_too_large_to_compile_runs_uncompiled_and_right():
    pytest.importorskip("mlx.core", reason="the metal engine runs on MLX")
    from pdc.ring.engines.metal import COMPILE_MAX_OPS

    def long_sum(req, rep):
        acc = req.x
        for _ in range(5000):  # more than COMPILE_MAX_OPS operations, checked for a stop
            acc = acc + 0.5
        rep.x = acc
        return 0

    req = np.dtype([("x", np.float64)])
    with RingKernelRuntime(backend="metal") as rt:
        k = rt.launch(ring_kernel(request=req, reply=req, queue_size=16)(long_sum))
        assert k.engine.traced_ops > COMPILE_MAX_OPS and not k.engine.compiled
        assert k.call(x=1.0, timeout=120).x == 2501.0


def test_launch_timeout_bounds_the_compile_and_launches_nothing():
    fields = [(f"f{i}", np.float64) for i in range(24)]
    dt = np.dtype(fields)

    def wide(req, rep):  # a new function: its loop is not in the compile cache yet
        rep.f0 = req.f0 + req.f23
        return 0

    definition = ring_kernel(request=dt, reply=dt, queue_size=8)(wide)
    with RingKernelRuntime(backend="cpu") as rt:
        with pytest.raises(
            RingTimeoutError, match=r"\[launch wide\] expected the kernel built"
        ) as e:
            rt.launch(definition, timeout=0.001)
        # The step the build was in when the launch stopped waiting is named.
        steps = "starting|checking its definition|allocating its rings|building its cpu engine"
        assert re.search(rf"got it still ({steps})", str(e.value)), str(e.value)
        assert rt.kernels == {}  # nothing launched: the same id launches afterwards
        k = rt.launch(definition, timeout=600)
        assert k.call(f0=1.0, f23=2.0, timeout=60).f0 == 3.0


def test_launch_timeout_must_be_seconds():
    def nothing(req, rep):
        return 0

    x = np.dtype([("x", np.float64)])
    definition = ring_kernel(request=x, reply=x)(nothing)
    with RingKernelRuntime(backend="cpu") as rt:
        with pytest.raises(ValueError, match=r"\[launch .*\] expected timeout a finite"):
            rt.launch(definition, timeout=-1.0)
        with pytest.raises(TypeError, match=r"\[launch .*\] expected timeout a number"):
            rt.launch(definition, timeout="soon")


def test_messages_with_many_fields_take_the_generic_call():
    from pdc.ring.host.fast import MAX_FIELDS

    many = np.dtype([(f"f{i}", np.float64) for i in range(MAX_FIELDS + 1)])

    def first(req, rep):
        rep.f0 = req.f0 * 2.0
        return 0

    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(ring_kernel(request=many, reply=many, queue_size=4)(first))
        assert k._fast is None  # no compiled call: its compile would cost seconds
        assert k.call(f0=1.5, timeout=60).f0 == 3.0


def test_a_cuda_build_that_times_out_names_the_resident_ring_kernels(monkeypatch):
    from pdc.ring import runtime

    class Resident:  # what the hint reads of a launched kernel
        backend = "cuda"
        definition = type("D", (), {"kernel_id": "echo"})()
        engine = type("E", (), {"simulated": False})()

        def _dead(self):
            return False

    held = Resident()
    monkeypatch.setattr(runtime, "_LIVE", [held])
    hint = runtime._resident_hint("cuda")
    assert "1 cuda ring kernel(s) are resident (echo)" in hint and "terminate them" in hint
    assert runtime._resident_hint("cpu") == ""
    held.engine.simulated = True  # the simulator loads nothing into a GPU context
    assert runtime._resident_hint("cuda") == ""


def test_launch_all_builds_every_kernel_before_launching_any():
    x = np.dtype([("x", np.float64)])

    def double(req, rep):
        rep.x = req.x * 2.0
        return 0

    def triple(req, rep):
        rep.x = req.x * 3.0
        return 0

    def broken(req, rep):
        rep.x = req.nothing  # no such field: refused when its loop is built
        return 0

    with RingKernelRuntime(backend="cpu") as rt:
        a, b = rt.launch_all(
            ring_kernel(request=x, reply=x)(double), ring_kernel(request=x, reply=x)(triple)
        )
        assert (a.call(x=2.0, timeout=30).x, b.call(x=2.0, timeout=30).x) == (4.0, 6.0)
        with pytest.raises(Exception, match="nothing"):
            rt.launch_all(
                ring_kernel("ok", request=x, reply=x)(double),
                ring_kernel("bad", request=x, reply=x)(broken),
            )
        assert sorted(rt.kernels) == ["double", "triple"]  # neither of the second pair runs
        with pytest.raises(RingStateError, match=r"\[launch dup\] expected a new kernel id"):
            rt.launch_all(
                ring_kernel("dup", request=x, reply=x)(double),
                ring_kernel("dup", request=x, reply=x)(triple),
            )
        with pytest.raises(ValueError, match=r"\[launch_all\] expected at least one"):
            rt.launch_all()

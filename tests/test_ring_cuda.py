"""The CUDA ring engine: one persistent kernel, launched once, whose loop produces the replies.

Without a GPU these run the same kernel on numba's CUDA simulator; the tests marked ``gpu``
need a real one and run unchanged there. ``test_compiled_kernel_polls_with_acquire_loads``
compiles the real-GPU kernel to PTX and needs libNVVM (a CUDA toolkit, or the
``nvidia-nvvm`` and ``nvidia-cuda-nvrtc`` wheels), not a GPU.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import pdc
from pdc.ring import RingKernelRuntime, ring_kernel, select
from pdc.ring.engines.base import EngineOptions, engine_class
from pdc.ring.handlers import HandlerSpec

REQ = np.dtype([("x", np.float64), ("k", np.int64)])
REP = np.dtype([("y", np.float64), ("k", np.int64)])
PACKED = np.dtype([("tag", np.int8), ("x", np.float64), ("k", np.int64)])  # x at byte 1


def scale(req, rep):
    rep.y = req.x * 2.0
    rep.k = req.k
    return select(req.x < 0.0, 7, 0)


def tagged(req, rep):
    rep.y = req.x + req.tag
    rep.k = req.k
    return 0


def roots(req, rep):
    rep.y = math.sqrt(req.x)
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
    pdc.numba_cuda()  # before anything imports numba.cuda: the simulator when there is no GPU
    return cls


def _count_simulator_threads(monkeypatch):
    """Record every simulated CUDA thread started, and the threads that run ``scale``."""
    from numba.cuda.simulator import kernel as simkernel

    started, handler_threads = [], set()
    start = simkernel.BlockThread.start
    call = simkernel.FakeCUDAKernel.__call__

    def counting_start(self):
        started.append(self)
        return start(self)

    def recording_call(self, *args):
        if self._device and self.fn.__name__ == "scale":
            handler_threads.add(threading.current_thread())
        return call(self, *args)

    monkeypatch.setattr(simkernel.BlockThread, "start", counting_start)
    monkeypatch.setattr(simkernel.FakeCUDAKernel, "__call__", recording_call)
    return started, handler_threads


def test_kernel_is_launched_once_and_its_loop_produces_every_reply(cuda_engine, monkeypatch):
    n, chunk = 1_000, 250
    sim = not pdc.has_gpu()
    if sim:
        started, handler_threads = _count_simulator_threads(monkeypatch)
    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=chunk)(scale))
        engine = k.engine
        assert engine.launches == 1
        ids, ys, ks = [], [], []
        for start in range(0, n, chunk):
            k.send_batch(batch(chunk, start))
            r = k.receive_batch(chunk, timeout=60)
            ids.append(r.corr_ids)
            ys.append(r.records["y"])
            ks.append(r.records["k"])
            assert (r.status == 0).all()
        ks_all = np.concatenate(ks)
        assert np.array_equal(np.concatenate(ys), 2.0 * ks_all)
        assert sorted(np.concatenate(ids).tolist()) == list(range(1, n + 1))
        assert engine.launches == 1
    trace = engine.trace.copy()  # final once the kernel has left (the runtime terminated it)
    from pdc.ring.engines import cuda_kernel as ck

    # Words only the kernel writes: entered once, one thread, every message handled in it.
    assert trace[ck.T_ENTRIES] == 1
    assert trace[ck.T_THREADS] == 1
    assert trace[ck.T_HANDLED] == n
    assert trace[ck.T_EXITS] == 1
    if sim:
        # One simulated CUDA thread for the whole stream, and the handler ran only there.
        ring_threads = [t for t in started if t.name.startswith("pdc-ring-cuda")]
        assert len(ring_threads) == 1 and len(started) == 1
        assert handler_threads == {ring_threads[0]}


def test_handler_error_sets_status_and_error_words_and_the_loop_goes_on(cuda_engine):
    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=16)(scale))
        b = batch(6)
        b["x"][[1, 4]] = -1.0
        k.send_batch(b)
        r = k.receive_batch(6, timeout=30)
        assert r.status.tolist() == [0, 7, 0, 0, 7, 0]
        t = k.telemetry()
        assert (t.errors, t.last_error, t.processed) == (2, 7, 6)
        assert k.call(x=3.0, k=3, timeout=30).y == 6.0  # still serving


def test_math_domain_gives_nan_like_the_device(cuda_engine):
    # On the device sqrt(-1) is NaN; Python's math would raise and end a simulated kernel.
    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(roots))
        assert math.isnan(k.call(x=-1.0, k=1, timeout=30).y)
        assert k.call(x=16.0, k=2, timeout=30).y == 4.0
        assert k.state == "active"


def test_idle_kernel_backs_off_and_still_terminates(cuda_engine):
    from pdc.ring.engines import cuda_kernel as ck

    with RingKernelRuntime(backend="cuda", options=EngineOptions(max_sleep=2e-3)) as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(scale))
        engine = k.engine
        threading.Event().wait(0.3)  # idle: the kernel naps, doubling up to max_sleep
        naps = int(engine.trace[ck.T_NAPS])
        assert naps > 0
        assert k.call(x=1.0, k=1, timeout=30).y == 2.0  # a send wakes it
        report = k.terminate(timeout=10)
    assert report.stopped
    assert k.state == "terminated"
    assert engine.failure is None


def test_two_ring_kernels_and_an_ordinary_kernel_run_at_the_same_time(cuda_engine):
    from tests.kernels_for_tests import add

    cuda = pdc.numba_cuda()
    add_kernel = cuda.jit(add)
    x, y = cuda.to_device(np.arange(64.0)), cuda.to_device(np.ones(64))
    first = cuda.device_array(64)
    add_kernel[2, 32](x, y, first)  # compiled and loaded before any ring is resident
    cuda.default_stream().synchronize()
    with RingKernelRuntime(backend="cuda") as rt:
        # Both built before either is launched: no code is loaded next to a resident ring.
        a, b = rt.launch_all(
            ring_kernel("a", request=REQ, reply=REP, queue_size=8)(scale),
            ring_kernel("b", request=REQ, reply=REP, queue_size=8)(roots),
        )
        out = cuda.device_array(64)
        add_kernel[2, 32](x, y, out)  # while both ring kernels are resident
        cuda.default_stream().synchronize()
        assert (out.copy_to_host() == np.arange(64.0) + 1).all()
        assert a.call(x=5.0, k=1, timeout=30).y == 10.0
        assert b.call(x=9.0, k=1, timeout=30).y == 3.0


@pytest.mark.gpu
def test_a_ring_launched_next_to_a_resident_one_runs(cuda_engine):
    # Loading the second kernel's code waits for the resident one (measured on an H100):
    # pdc parks the first ring around the load (pdc.ring.engines.parking). Its code may
    # already be loaded by an earlier test of this process, so no park is asserted here.
    with RingKernelRuntime(backend="cuda") as rt:
        a = rt.launch(ring_kernel("a", request=REQ, reply=REP, queue_size=8)(scale))
        b = rt.launch(ring_kernel("b", request=REQ, reply=REP, queue_size=8)(roots))
        assert b.call(x=9.0, k=1, timeout=30).y == 3.0
        assert a.call(x=5.0, k=1, timeout=30).y == 10.0


def test_packed_records_are_aligned_and_served(cuda_engine):
    b = np.zeros(4, PACKED)  # NumPy's packed layout, as a user would build it
    b["tag"], b["x"], b["k"] = 1, np.arange(4.0), np.arange(4)
    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=PACKED, reply=REP, queue_size=8)(tagged))
        assert k.spec.request.fields["x"][1] == 8
        k.send_batch(b)
        r = k.receive_batch(4, timeout=60)
    assert r.records["y"].tolist() == [1.0, 2.0, 3.0, 4.0]


def test_pure_python_handlers_are_refused(cuda_engine):
    from pdc.ring.protocol import Rings

    spec = HandlerSpec.create(scale, REQ, REP, python=True)
    options = EngineOptions(queue_size=4)
    rings = Rings.allocate(REQ, REP, 4, alloc=cuda_engine.allocator(options))
    with pytest.raises(TypeError, match=r"\[ring cuda\] pure-Python handlers"):
        cuda_engine(rings, spec, options)


def test_launch_per_message_baseline_matches_the_handler(cuda_engine):
    from pdc.ring.tools.launch_each import launch_per_message

    spec = HandlerSpec.create(scale, REQ, REP)
    reqs = batch(5)
    reqs["x"][2] = -4.0
    replies, codes = launch_per_message(spec, reqs)
    assert replies["y"].tolist() == [0.0, 2.0, -8.0, 6.0, 8.0]
    assert replies["k"].tolist() == [0, 1, 2, 3, 4]
    assert codes.tolist() == [0, 0, 7, 0, 0]


def test_importing_the_engines_imports_no_gpu_library():
    code = (
        "import sys, pdc.ring, pdc.ring.engines.cuda, pdc.ring.engines.metal; "
        "bad = [m for m in ('numba.cuda', 'numba_cuda', 'mlx') if m in sys.modules]; "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- what the compiler makes of the real-GPU kernel (no GPU needed, libNVVM is) ---------
_PTX_SCRIPT = textwrap.dedent(
    """
    import json, os, sys, types
    os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
    import numpy as np
    import pdc
    try:
        if not pdc.has_gpu():  # compile for sm_90 without a device
            import numba.cuda.cudadrv.nvrtc as nvrtc
            import numba.cuda.dispatcher as dispatcher
            nvrtc.get_arch_option = lambda major, minor: f"compute_{major}{minor}"
            cc = types.SimpleNamespace(compute_capability=(9, 0))
            dispatcher.get_current_device = lambda: cc
        from numba import cuda
        from pdc.ring.engines import cuda_kernel as ck
        from pdc.ring.handlers import HandlerSpec
        sys.path.insert(0, sys.argv[1])
        from test_ring_cuda import REP, REQ, scale
        spec = HandlerSpec.create(scale, REQ, REP)
        fn, sig = ck.compile_unit(spec, burst=64, spin=1000, max_sleep_ns=1_000_000)
        # NumPy's packed layout (float64 at byte 1): the rings align it, so it compiles.
        from test_ring_cuda import PACKED, tagged
        cuda.compile_ptx(*ck.compile_unit(HandlerSpec.create(tagged, PACKED, REP)), cc=(9, 0))
        ptx, _ = cuda.compile_ptx(fn, sig, cc=(9, 0))
    except Exception as exc:
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"[:2000]}))
        raise SystemExit(0)
    print(json.dumps({"ptx": ptx}))
    """
)


def _missing_nvvm() -> str | None:
    """Why the kernel cannot be compiled to PTX here (libNVVM, NVRTC), or None."""
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib

        for lib in ("nvvm", "nvrtc"):
            load_nvidia_dynamic_lib(lib)
    except Exception as exc:  # not found, or no cuda-pathfinder
        return f"{type(exc).__name__}: {exc}"[:300]
    return None


@pytest.fixture(scope="module")
def kernel_ptx(cuda_engine) -> list[str]:
    """The PTX of the real-GPU ring kernel of ``scale`` (sm_90), stripped, one per line."""
    missing = _missing_nvvm()
    if missing:
        pytest.skip(f"needs libNVVM and NVRTC to compile the kernel to PTX: {missing}")
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run(
        [sys.executable, "-c", _PTX_SCRIPT, here],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert "error" not in result, result.get("error")
    return [ln.strip() for ln in result["ptx"].splitlines() if not ln.strip().startswith("//")]


def test_compiled_kernel_polls_with_acquire_loads_and_fences_before_publishing(kernel_ptx):
    lines = kernel_ptx
    loads = [i for i, ln in enumerate(lines) if ln.startswith("ld.acquire.sys.u64")]
    stores = [i for i, ln in enumerate(lines) if ln.startswith("st.volatile.u64")]
    # Generic addressing: the pointers the asm gets are generic, never claimed .global.
    assert not [
        ln for ln in lines if ln.startswith(("ld.acquire.sys.global", "st.volatile.global"))
    ]

    def fenced(i):  # a membar.sys before the store, with no other store in between
        for ln in reversed(lines[:i]):
            if ln == "membar.sys;":
                return True
            if ln.startswith("st."):
                return False
        return False

    # Every control-word store (a head, a tail, a counter) comes after a system-wide fence.
    assert stores and all(fenced(i) for i in stores)
    # Control words are only ever read with acquire loads, never with an atomic RMW.
    assert len(loads) >= 4
    assert not [ln for ln in lines if ln.startswith("atom.")]
    # The polling loop re-reads: a load sits after the loop's first label (not hoisted).
    labels = [i for i, ln in enumerate(lines) if ln.startswith("$L__")]
    assert any(i > labels[0] for i in loads)
    assert any(ln.startswith("nanosleep.u32") for ln in lines)


def _blocks(lines: list[str]) -> tuple[list[list[str]], dict[int, list[int]]]:
    """The kernel's basic blocks (split at labels and branches) and their successors."""
    blocks: list[list[str]] = [[]]
    for ln in lines:
        if ln.endswith(":") and ln.startswith("$L__"):
            blocks.append([ln])
        else:
            blocks[-1].append(ln)
            if " bra" in f" {ln}" or ln.startswith(("ret;", "exit;")):
                blocks.append([])
    label = {b[0][:-1]: k for k, b in enumerate(blocks) if b and b[0].endswith(":")}
    succ: dict[int, list[int]] = {}
    for k, b in enumerate(blocks):
        last = b[-1] if b else ""
        out = []
        if "bra" in last:
            out.append(label[last.split()[-1].rstrip(";")])
        unconditional = last.startswith(("bra", "ret;", "exit;"))
        if not unconditional and k + 1 < len(blocks):
            out.append(k + 1)
        succ[k] = out
    return blocks, succ


def _host_loads(block: list[str]) -> list[str]:
    """Loads that may read host memory: every ``ld`` but of parameters and local/shared."""
    skip = ("ld.param", "ld.local", "ld.shared", "ld.const")
    return [ln for ln in block if ln.startswith("ld.") and not ln.startswith(skip)]


def test_an_idle_pass_reads_one_host_word_without_a_fence(kernel_ptx):
    blocks, succ = _blocks(kernel_ptx)

    def has(k, prefix):
        return any(ln.startswith(prefix) for ln in blocks[k])

    beat = [k for k in succ if has(k, "st.relaxed.sys.u64")]
    assert len(beat) == 1, "one heartbeat store, relaxed (no fence)"
    # The passes that read the control words (acquire loads: TERMINATE, ACTIVE, the drop
    # floors; every CHECK_EVERY passes) and those that found work (one acquire fence, then
    # the messages) are left out: what remains is the idle pass.
    allowed = {k for k in succ if not has(k, "ld.acquire.sys") and not has(k, "fence.acq_rel")}
    cycles: list[list[int]] = []

    def walk(k, path):
        for n in succ[k]:
            if n == beat[0]:
                cycles.append(path)
            elif n in allowed and n not in path:
                walk(n, [*path, n])

    walk(beat[0], [beat[0]])
    assert cycles, "no idle pass back to the heartbeat that skips the control words"
    for cycle in cycles:
        code = [ln for k in cycle for ln in blocks[k]]
        loads = [ln for k in cycle for ln in _host_loads(blocks[k])]
        # One word per pass (a lane's head, relaxed), none while deactivated.
        assert len(loads) <= 1 and all(ln.startswith("ld.relaxed.sys.u64") for ln in loads), loads
        assert not [ln for ln in code if ln.startswith(("membar", "fence"))]

    def idle_pass(cycle):  # through the pause (nanosleep), reading one head
        code = [ln for k in cycle for ln in blocks[k]]
        loads = [ln for k in cycle for ln in _host_loads(blocks[k])]
        return any(ln.startswith("nanosleep.u32") for ln in code) and len(loads) == 1

    # (The walk is blind to conditions: it also follows paths no pass takes, such as a
    # pass with work that skips the control words; they read no more than one word.)
    assert any(idle_pass(c) for c in cycles)


# -- real GPU only ---------------------------------------------------------------------
@pytest.mark.gpu
def test_gpu_kernel_leaves_the_default_stream_free(cuda_engine):
    cuda = pdc.numba_cuda()
    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(scale))
        assert not k.engine.simulated
        d = cuda.to_device(np.arange(4.0))
        cuda.default_stream().synchronize()  # returns although the ring kernel runs on
        assert (d.copy_to_host() == np.arange(4.0)).all()
        assert k.call(x=2.0, k=1, timeout=30).y == 4.0
        assert "grid=1 block=1" in k.engine.device


@pytest.mark.gpu
def test_gpu_100k_messages_one_launch(cuda_engine):
    from pdc.ring.engines import cuda_kernel as ck

    n, chunk = 100_000, 4_000
    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=chunk)(scale))
        got = 0
        for start in range(0, n, chunk):
            k.send_batch(batch(chunk, start))
            r = k.receive_batch(chunk, timeout=60)
            assert np.array_equal(r.records["y"], 2.0 * r.records["k"])
            got += len(r.corr_ids)
        assert got == n and k.engine.launches == 1
    # Read once the kernel has left (the runtime terminated it): while it runs, its plain
    # stores to the trace words need not be visible to the host yet (seen on an H200).
    assert k.engine.trace[ck.T_HANDLED] == n

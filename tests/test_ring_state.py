"""Ring kernels with state: an actor's record lives with the kernel, on every backend.

The state persists across messages and is never sent by the host; messages update it one
at a time in the order the kernel serves them; a message whose handler returns an error
code or faults leaves it exactly as it was; ``read_state`` copies it only while the kernel
serves no message.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from pdc.ring import (
    FAULT,
    HandlerError,
    RingKernelRuntime,
    RingStateError,
    ring_kernel,
    select,
)
from pdc.ring.handlers import HandlerSpec

REQ = np.dtype([("x", np.float64), ("d", np.float64)])
REP = np.dtype([("count", np.int64), ("total", np.float64), ("q", np.float64)])
STATE = np.dtype([("count", np.int64), ("total", np.float64)])
# Fields named like NumPy scalar attributes: records must be read by field, not attribute.
WELFORD = np.dtype([("count", np.float64), ("mean", np.float64), ("min", np.float64)])


def tally(req, rep, state):
    state.count = state.count + 1
    state.total = state.total + req.x
    rep.count = state.count
    rep.total = state.total
    rep.q = 1.0 / req.d  # d == 0: FAULT, and the state stays as it was
    return select(req.x < 0.0, 5, 0)  # a negative reading: error code 5, state unchanged


def counter(req, rep, state):
    state.count = state.count + 1
    rep.count = state.count
    rep.total = req.x


def running(req, rep, state):
    n = state.count + 1.0
    state.mean = state.mean + (req.x - state.mean) / n
    state.count = n
    state.min = select(req.x < state.min, req.x, state.min)
    rep.count = n
    rep.total = state.mean
    rep.q = state.min


def test_counter_counts_every_message_of_two_producers(engine):
    n = 60  # per producer: the simulated cuda loop is Python
    kdef = ring_kernel(request=REQ, reply=REP, state=STATE, queue_size=32, block_timeout=120.0)(
        counter
    )
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(kdef)

        def one_by_one():
            for i in range(n):
                k.send(x=float(i), d=1.0)

        def batches():
            b = np.zeros(n // 4, REQ)
            for _ in range(4):
                k.send_batch(b)

        threads = [threading.Thread(target=one_by_one), threading.Thread(target=batches)]
        for t in threads:
            t.start()
        r = k.receive_batch(2 * n, timeout=120)
        for t in threads:
            t.join()
        # Each message saw the count left by the ones served before it: 1, 2, ..., 2n.
        assert (r.status == 0).all()
        assert r.records["count"].tolist() == list(range(1, 2 * n + 1))
        k.deactivate()
        snap = k.read_state()
        assert snap.shape == () and snap.dtype == STATE
        assert int(snap["count"]) == 2 * n
        assert float(snap["total"]) == 0.0  # counter never writes total: initial value kept


@pytest.mark.filterwarnings("ignore:divide by zero encountered:RuntimeWarning")  # simulator
def test_a_failed_message_leaves_the_state_as_it_was(engine):
    msgs = [  # (x, d), expected status, expected (count, total) in the reply
        ((1.5, 1.0), 0, (1, 1.5)),
        ((10.0, 0.0), FAULT, None),  # division by zero in the reply
        ((-3.0, 1.0), 5, None),  # the handler's own error code
        ((2.0, 4.0), 0, (2, 3.5)),  # sees the state of message 1
    ]
    kdef = ring_kernel(request=REQ, reply=REP, state=STATE, queue_size=8)(tally)
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(kdef)
        ids = k.send_batch(np.array([m for m, _, _ in msgs], REQ))
        r = k.receive_batch(len(msgs), timeout=120)
        assert r.corr_ids.tolist() == ids.tolist()
        assert r.status.tolist() == [s for _, s, _ in msgs]
        for rec, (_, status, want) in zip(r.records, msgs, strict=True):
            if status == 0:
                assert (int(rec["count"]), float(rec["total"])) == want
        assert k.state == "active"  # the kernel goes on serving
        assert k.call(x=0.5, d=1.0, timeout=120).total == 4.0
        k.deactivate()
        assert k.read_state()[()].tolist() == (3, 4.0)


def test_integer_overflow_into_the_state_is_a_fault(engine):
    def grow(req, rep, state):
        state.count = state.count + req.x  # 1e300 fits no int64: FAULT, state kept
        rep.count = state.count

    kdef = ring_kernel(request=REQ, reply=REP, state=STATE, queue_size=4)(grow)
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(kdef)
        k.send_batch(np.array([(2.0, 0.0), (1e300, 0.0), (3.0, 0.0)], REQ))
        r = k.receive_batch(3, timeout=120)
        assert r.status.tolist() == [0, FAULT, 0]
        assert r.records["count"][[0, 2]].tolist() == [2, 5]


def test_state_survives_deactivate_and_activate_and_can_be_reset(engine):
    kdef = ring_kernel(
        request=REQ, reply=REP, state=WELFORD, initial={"min": np.inf}, queue_size=8
    )(running)
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(kdef)
        with pytest.raises(RingStateError, match="'active'"):
            k.read_state()  # the loop may be mid-message: no copy while it serves
        for x in (4.0, 2.0, 6.0):
            k.call(x=x, d=1.0, timeout=120)
        k.deactivate()
        snap = k.read_state()
        assert snap[()].tolist() == (3.0, 4.0, 2.0)
        snap["count"] = 99.0  # a copy: the kernel's state does not change
        k.activate()
        rep = k.call(x=8.0, d=1.0, timeout=120)
        assert (rep.count, rep.total, rep.q) == (4.0, 5.0, 2.0)
        k.deactivate()
        k.reset_state()  # back to initial: count 0, mean 0, min inf
        assert k.read_state()[()].tolist() == (0.0, 0.0, np.inf)
        k.reset_state({"count": 1.0, "mean": 10.0, "min": 10.0})
        k.activate()
        rep = k.call(x=0.0, d=1.0, timeout=120)
        assert (rep.count, rep.total, rep.q) == (2.0, 5.0, 0.0)
        k.terminate()
        assert k.read_state()[()].tolist() == (2.0, 5.0, 0.0)  # still readable
        with pytest.raises(RingStateError, match="terminated"):
            k.reset_state()


def test_two_kernels_of_one_runtime_have_their_own_state(engine):
    a = ring_kernel("a", request=REQ, reply=REP, state=STATE, queue_size=8)(counter)
    b = ring_kernel("b", request=REQ, reply=REP, state=STATE, initial={"count": 100}, queue_size=8)(
        counter
    )
    with RingKernelRuntime(backend=engine) as rt:
        ka, kb = rt.launch(a), rt.launch(b)
        for _ in range(3):
            ka.call(x=0.0, d=1.0, timeout=120)
        assert kb.call(x=0.0, d=1.0, timeout=120).count == 101
        assert ka.call(x=0.0, d=1.0, timeout=120).count == 4
        rt.deactivate("a")
        rt.deactivate("b")
        assert int(rt.read_state("a")["count"]) == 4
        assert int(rt.read_state("b")["count"]) == 101


def test_python_handler_state_commits_on_success_only():
    def flaky(req, rep, state):
        state.count = state.count + 1
        if req.x < 0:
            raise ValueError("negative reading")
        rep.count = state.count

    kdef = ring_kernel(request=REQ, reply=REP, state=STATE, python=True, queue_size=4)(flaky)
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kdef)
        assert k.call(x=1.0, d=1.0, timeout=30).count == 1
        bad = k.call(x=-1.0, d=1.0, timeout=30, check=False)
        assert bad.status != 0 and "negative reading" in bad.error
        assert k.call(x=1.0, d=1.0, timeout=30).count == 2


# -- definitions refused before anything runs (no backend) -----------------------------
@pytest.mark.parametrize(
    "state, initial, error, match",
    [
        (np.dtype([("v", "f8", (3,))]), None, TypeError, "field 'v'.*scalar"),
        (np.float64, None, TypeError, "structured dtype"),
        (np.dtype([("v", "U4")]), None, TypeError, "field 'v'"),
        (np.dtype([("_pdc_fault", "f8")]), None, ValueError, "'_pdc_fault'.*reserved"),
        (STATE, {"cnt": 1}, ValueError, "'cnt' is not a state field.*count, total"),
        (STATE, {"count": 1.5}, ValueError, "'count': expected an integer"),
        (STATE, {"count": 2**63}, ValueError, "'count': expected an integer in"),
        (STATE, {"total": "1.0"}, TypeError, "'total': expected a number"),
        (STATE, [1, 2.0], TypeError, "initial: expected None, a dict"),
        (STATE, np.zeros((), WELFORD), ValueError, "expected the state fields"),
    ],
)
def test_bad_state_definitions_are_refused(state, initial, error, match):
    with pytest.raises(error, match=match):
        ring_kernel(request=REQ, reply=REP, state=state, initial=initial)(counter)


def test_initial_without_state_and_state_of_a_stateless_kernel_are_refused():
    def plain(req, rep):
        rep.q = req.x

    with pytest.raises(TypeError, match="initial= only with state="):
        ring_kernel(request=REQ, reply=REP, initial={"count": 1})(plain)
    kdef = ring_kernel(request=REQ, reply=REP, queue_size=4)(plain)
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kdef)
        k.deactivate()
        with pytest.raises(TypeError, match="declared with state="):
            k.read_state()


def test_initial_accepts_a_record():
    start = np.zeros((), STATE)
    start["count"] = 7
    kdef = ring_kernel(request=REQ, reply=REP, state=STATE, initial=start)(counter)
    assert kdef.initial is not None and int(kdef.initial["count"]) == 7


def test_the_validator_checks_state_fields_as_it_checks_the_others():
    def unknown(req, rep, state):
        state.cont = state.count + 1

    def reads_unknown(req, rep, state):
        rep.count = state.cuont

    def whole_record(req, rep, state):
        rep.count = state

    def rebinds(req, rep, state):
        state = 1.0  # noqa: F841 - refused by the validator
        rep.count = 1

    def branches(req, rep, state):
        if req.x > 0.0:
            state.count = 1

    def plain(req, rep):
        rep.count = 1

    for fn, match in [
        (unknown, r"unknown state field `state.cont`.*: the fields are count, total"),
        (reads_unknown, r"unknown state field `state.cuont`"),
        (whole_record, r"using the record `state` itself"),
        (rebinds, r"rebinding the parameter 'state'"),
    ]:
        with pytest.raises(HandlerError, match=match):
            HandlerSpec.create(fn, REQ, REP, state=STATE)
    with pytest.raises(HandlerError, match="`if` statement.*metal"):
        HandlerSpec.create(branches, REQ, REP, state=STATE)
    HandlerSpec.create(branches, REQ, REP, state=STATE, backends=("cpu", "cuda"))
    with pytest.raises(HandlerError, match=r"expected the signature `counter\(req, rep\)`.*state="):
        HandlerSpec.create(counter, REQ, REP)
    with pytest.raises(HandlerError, match=r"expected the signature `plain\(req, rep, state\)`"):
        HandlerSpec.create(plain, REQ, REP, state=STATE)
    # The definition can still be called in Python on plain records, for checks.
    kdef = ring_kernel(request=REQ, reply=REP, state=STATE)(tally)
    req, rep, st = (np.zeros(1, dt).view(np.recarray)[0] for dt in (REQ, REP, STATE))
    req.x, req.d = 2.0, 1.0
    assert kdef(req, rep, st) == 0 and (st.count, st.total) == (1, 2.0)


_PTX_SCRIPT = textwrap.dedent(
    """
    import json, os, sys, types
    os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
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
        from test_ring_state import REP, REQ, STATE, WELFORD, running, tally
        out = {}
        for name, fn, st in (("tally", tally, STATE), ("running", running, WELFORD)):
            fn_, sig = ck.compile_unit(HandlerSpec.create(fn, REQ, REP, state=st), spin=1000)
            out[name] = cuda.compile_ptx(fn_, sig, cc=(9, 0))[0]
    except Exception as exc:
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"[:2000]}))
        raise SystemExit(0)
    print(json.dumps(out))
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


def test_kernel_with_state_compiles_for_sm_90():
    missing = _missing_nvvm()
    if missing:
        pytest.skip(f"needs libNVVM and NVRTC to compile the kernel to PTX: {missing}")
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run(
        [sys.executable, "-c", _PTX_SCRIPT, here], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert "error" not in result, result.get("error")
    for name, ptx in result.items():
        assert ".visible .entry" in ptx, name
        # The kernel takes the state as its 7th parameter (after the trace words).
        assert "_param_6" in ptx, name

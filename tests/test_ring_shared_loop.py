"""The cpu engine's shared loop (``EngineOptions(shared_loop=True)``) against the inlined one.

The same handlers, the same requests: the replies, statuses, state and telemetry must be
the same bytes with and without the option, and a second handler of the same message
types must reuse the compiled loop (one signature in its dispatcher, one cache entry).
"""

from __future__ import annotations

import ast
import dataclasses
import math
import textwrap
import time

import numpy as np
import pytest

from pdc.ring import RingKernelRuntime, ring_kernel, select
from pdc.ring.engines import cpu, shared_loop
from pdc.ring.engines.base import EngineOptions
from pdc.ring.handlers import HandlerSpec
from pdc.ring.handlers.guards import FAULT
from pdc.ring.host.rings import RingHost
from pdc.ring.protocol import ERR_COUNT, PROCESSED, REP_HEAD, TAIL, TERMINATE, Rings

REQ = np.dtype([("x", np.float64), ("n", np.int64)])
REP = np.dtype([("y", np.float64), ("k", np.int64)])
STATE = np.dtype([("count", np.float64), ("mean", np.float64), ("m2", np.float64)])
BAD = 3  # the error status of ``checked``


def welford(req, rep, state):
    state.count = state.count + 1.0
    delta = req.x - state.mean
    state.mean = state.mean + delta / state.count
    state.m2 = state.m2 + delta * (req.x - state.mean)
    rep.y = state.mean
    rep.k = state.count
    return 0


def scale(req, rep):
    rep.y = math.sqrt(abs(req.x)) * 3.0 + req.n
    rep.k = req.n * 7 - 1


def checked(req, rep, state):
    state.count = state.count + 1.0  # committed only when the status is 0
    rep.y = state.count
    return select(req.x < 0.0, BAD, 0)


def divides(req, rep, state):
    state.mean = state.mean + req.x
    rep.y = req.x / (req.n - 2)  # float division by zero at n = 2
    rep.k = 100 // req.n  # integer division by zero at n = 0
    return 0


def _requests() -> np.ndarray:
    x = [1.5, -2.0, 0.0, 4.25, -0.5, math.nan, 9.0, 1e3, -7.0, 2.0, 3.0, -1.0]
    n = [1, 2, 0, 5, -3, 4, 2, 0, 7, 1, 2, 3]
    req = np.zeros(len(x), REQ)
    req["x"], req["n"] = x, n
    return req


def _run(fn, state, shared: bool) -> dict:
    kdef = ring_kernel(request=REQ, reply=REP, state=state, queue_size=16)(fn)
    with RingKernelRuntime(backend="cpu", options=EngineOptions(shared_loop=shared)) as rt:
        k = rt.launch(kdef)
        req = _requests()
        out: dict = {"ids": k.send_batch(req)}
        r = k.receive_batch(req.size, timeout=60)
        k.deactivate()
        out.update(corr=r.corr_ids, status=r.status, records=r.records.tobytes())
        out["state"] = None if state is None else k.read_state().tobytes()
        out["telemetry"] = k.telemetry()
        out["device"] = k.engine.device
    return out


@pytest.mark.parametrize(
    ("fn", "state"), [(welford, STATE), (scale, None), (checked, STATE), (divides, STATE)]
)
def test_the_shared_loop_replies_as_the_inlined_loop(fn, state):
    inlined = _run(fn, state, False)
    shared = _run(fn, state, True)
    assert "shared" in shared["device"] and "shared" not in inlined["device"]
    for key in ("ids", "corr", "status"):
        assert np.asarray(shared[key]).tolist() == np.asarray(inlined[key]).tolist(), key
    assert shared["records"] == inlined["records"]
    assert shared["state"] == inlined["state"]
    assert shared["telemetry"] == inlined["telemetry"]
    if fn is checked:  # the error path: 4 negative readings, state counts the others
        assert shared["status"].tolist().count(BAD) == 4
        assert np.frombuffer(shared["state"], STATE)["count"][0] == 8.0
        assert (shared["telemetry"].errors, shared["telemetry"].last_error) == (4, BAD)
    if fn is divides:  # two integer and three float divisions by zero
        assert shared["status"].tolist().count(FAULT) == 5


def fresh_a(req, rep, state):
    state.mean = state.mean + req.x
    rep.y = state.mean
    return 0


def fresh_b(req, rep, state):
    state.m2 = state.m2 + req.x * req.x
    rep.y = state.m2
    rep.k = req.n + 1
    return 0


def test_a_second_handler_does_not_compile_the_loop_again():
    options = EngineOptions(shared_loop=True)
    loop = cpu.precompile_shared_loop(REQ, REP, STATE, options)
    assert len(loop.signatures) == 1
    loops = len(shared_loop._LOOPS)
    for fn in (fresh_a, fresh_b):
        kdef = ring_kernel(request=REQ, reply=REP, state=STATE, queue_size=16)(fn)
        with RingKernelRuntime(backend="cpu", options=options) as rt:
            k = rt.launch(kdef)
            assert k.engine._serve is loop  # type: ignore[attr-defined]
            want = 2.0 if fn is fresh_a else 4.0
            assert k.call(x=2.0, n=1, timeout=60).y == want
    assert len(loop.signatures) == 1  # one compile of the loop for both handlers
    assert len(shared_loop._LOOPS) == loops
    # Neither handler got a loop of its own.
    assert not any(key[0] in (fresh_a, fresh_b) for key in cpu._LOOPS)
    assert {fresh_a, fresh_b} <= {key[0] for key in shared_loop._ENTRIES}


def raw_divide(req, rep, state):
    state.count = state.count + 1.0
    rep.k = 100 // req.n
    return 0


def _unguarded() -> HandlerSpec:
    """``raw_divide`` as compiled without the fault guards: numba raises at ``n = 0``."""
    spec = HandlerSpec.create(raw_divide, REQ, REP, state=STATE)
    src = textwrap.dedent(
        """
        def raw_divide(req, rep, state):
            state.count = state.count + 1.0
            rep.k = 100 // req.n
            return 0
        """
    )
    tree = ast.parse(src).body[0]
    assert isinstance(tree, ast.FunctionDef)
    return dataclasses.replace(spec, tree=tree)


def _crash(shared: bool) -> tuple[BaseException | None, list[int], bytes]:
    spec = _unguarded()
    rings = Rings.allocate(REQ, REP, 8)
    engine = cpu.CpuEngine(rings, spec, EngineOptions(queue_size=8, shared_loop=shared))
    host = RingHost(rings)
    for i, n in enumerate((5, 4, 0, 3)):
        assert host.push(0, i + 1, (1.0, n))
    host.set_active(True)
    engine.launch()
    deadline = time.monotonic() + 60
    while engine.failure is None and time.monotonic() < deadline:
        time.sleep(0.01)
    rings.ctrl[TERMINATE] = 1
    assert engine.join(60)
    words = [int(rings.ctrl[w]) for w in (PROCESSED, ERR_COUNT, REP_HEAD, TAIL)]
    assert engine.state_buf is not None
    return engine.failure, words, engine.state_buf.tobytes()


def test_a_handler_that_raises_ends_both_loops_at_the_same_message():
    inlined, words, state = _crash(False)
    shared, shared_words, shared_state = _crash(True)
    assert isinstance(inlined, ZeroDivisionError)
    # The handler called by address passes on its own exception, type and text.
    assert type(shared) is type(inlined) and str(shared) == str(inlined)
    # The burst never published: nothing processed or replied, the state as the handler
    # left it after the third message (it increments before dividing).
    assert shared_words == words == [0, 0, 0, 0]
    assert shared_state == state
    assert np.frombuffer(state, STATE)["count"][0] == 3.0


def test_shared_loop_must_be_a_bool():
    with pytest.raises(TypeError, match=r"\[EngineOptions\] expected shared_loop a bool"):
        EngineOptions(shared_loop=1)  # type: ignore[arg-type]


def test_the_bench_prints_both_loops_side_by_side(capsys):
    from pdc.ring.tools.bench import main

    assert main(["--shared-loop", "2", "--messages", "100"]) == 0
    out = capsys.readouterr().out
    assert "inlined loop | shared loop" in out
    assert out.count(" s |") == 3  # two handlers and the total
    assert "p50 shared / inlined:" in out and "p99" in out


DETECT = """
def detect(req, rep, state):
    n = state.count + 1.0
    delta = req.x - state.mean
    state.mean = state.mean + delta / n
    state.m2 = state.m2 + delta * (req.x - state.mean)
    state.count = n
    rep.count = n
    rep.mean = state.mean
    rep.z = 0.0
    rep.flag = 0
    return 0
"""


def test_exercise_6_grades_on_a_loop_compiled_before_the_handler():
    from pdc.grade.exercises import ex06_ring as ex

    loop = cpu.precompile_shared_loop(ex.REQUEST, ex.REPLY, ex.STATE)
    kdef = ex.handler_from_source(DETECT, "detect", {})
    x = np.array([3.0, -1.0, 4.0, 1.5, 9.0])
    (res,) = ex.run_cases(kdef, [ex.stream_requests(x)])
    assert res["error"] is None, res["error"]
    want, states = ex.stream_expected(x)
    assert res["records"]["count"].tolist() == want["count"].tolist()
    np.testing.assert_allclose(res["records"]["mean"], want["mean"], rtol=1e-12)
    np.testing.assert_allclose(res["state"]["m2"], states[-1]["m2"], rtol=1e-12)
    assert res["telemetry"]["processed"] == x.size
    assert len(loop.signatures) == 1  # the grader's kernel ran on the precompiled loop
    (handler,) = [key[0] for key in shared_loop._ENTRIES if key[0].__name__ == "detect"]
    assert not any(key[0] is handler for key in cpu._LOOPS)  # and got no loop of its own


def test_threads_asking_for_one_loop_at_once_share_one_compile():
    """A notebook's warm-up thread and its check may ask for the same loop together: one
    dispatcher, compiled (or loaded) once."""
    import threading

    opts = EngineOptions(shared_loop=True, spin=5)  # a key no other test asks for
    got: list = []
    go = threading.Barrier(3)

    def ask():
        go.wait()
        got.append(shared_loop.shared_loop(REQ, REP, STATE, opts))

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(got) == 3 and got[0] is got[1] is got[2]
    assert len(got[0].signatures) == 1
    assert sum(got[0]._cache_hits.values()) + sum(got[0]._cache_misses.values()) == 1

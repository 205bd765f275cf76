"""The handler subset: what the validator accepts, what it rejects and how it says so."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pdc.ring
from pdc.ring import HandlerError, HandlerSpec, select

REQ = np.dtype([("x", np.float64), ("n", np.int32)])
REP = np.dtype([("y", np.float64), ("fine", np.bool_)])
SCALE = 3.0
STEPS = 4
NOT_A_NUMBER = [1, 2]


def good(req, rep):
    """Docstrings are fine."""
    acc = 0.0
    for i in range(STEPS):
        acc += req.x * i
    t = math.sqrt(abs(req.x)) + math.pi
    rep.y = select(req.x > 0.0, acc * SCALE, t)
    rep.fine = (req.n >= 0) & (req.x < 10.0)
    return select(req.n < 0, 1, 0)


def run_python(fn_spec, x, n):
    req = np.zeros(1, REQ).view(np.recarray)[0]
    rep = np.zeros(1, REP).view(np.recarray)[0]
    req.x, req.n = x, n
    code = fn_spec.build()(req, rep)
    return code, float(rep.y), bool(rep.fine)


def test_accepted_handler_is_normalized_and_runs_as_python():
    spec = HandlerSpec.create(good, REQ, REP)
    assert "__pdc_select(" in spec.source and "__pdc_math.sqrt(" in spec.source
    assert spec.constants == {"STEPS": 4, "SCALE": 3.0}
    assert run_python(spec, 2.0, 1) == (0, 36.0, True)
    code, y, ok = run_python(spec, -4.0, -1)
    assert (code, ok) == (1, False) and y == pytest.approx(2.0 + math.pi)


def test_constant_range_expressions_are_accepted():
    def loops(req, rep):
        acc = 0.0
        for i in range(STEPS * 2 - 1):
            acc += i
        for j in range(-STEPS, STEPS // 2, 2):
            acc += j
        rep.y = acc

    assert run_python(HandlerSpec.create(loops, REQ, REP), 0.0, 0)[1] == 21.0 - 6.0


def test_missing_return_means_zero():
    def no_return(req, rep):
        rep.y = req.x

    assert run_python(HandlerSpec.create(no_return, REQ, REP), 5.0, 0) == (0, 5.0, False)


def test_select_is_a_where_on_arrays():
    assert select(True, 1, 2) == 1 and select(np.bool_(False), 1, 2) == 2
    assert select(np.array([True, False]), np.ones(2), np.zeros(2)).tolist() == [1.0, 0.0]


def h_while(req, rep):
    while req.x > 0:
        rep.y = 1.0


def h_range(req, rep):
    for i in range(req.n):
        rep.y = i


def h_if(req, rep):
    if req.x > 0:
        rep.y = 1.0


def h_list(req, rep):
    v = [1.0, 2.0]
    rep.y = v


def h_str(req, rep):
    rep.y = "a"


def h_call(req, rep):
    rep.y = float(req.x)


def h_np(req, rep):
    rep.y = np.sqrt(req.x)


def h_global(req, rep):
    rep.y = NOT_A_NUMBER


def h_field(req, rep):
    rep.y = req.z


def h_write_req(req, rep):
    req.x = 1.0


def h_try(req, rep):
    try:
        rep.y = 1.0
    except Exception:
        rep.y = 2.0


def h_and(req, rep):
    rep.fine = req.x > 0 and req.n > 0


def h_attr(req, rep):
    rep.y = req.x.real


@pytest.mark.parametrize(
    "fn, construct, backends",
    [
        (h_while, "`while` loop", "cpu and cuda and metal backends"),
        (h_range, "non-constant range (`req.n`)", "cpu and cuda and metal"),
        (h_if, "`if` statement", "metal backend"),
        (h_list, "a list", "cpu and cuda and metal"),
        (h_str, "the constant 'a'", "cpu and cuda and metal"),
        (h_call, "the call `float(...)`", "cpu and cuda and metal"),
        (h_np, "the call `np.sqrt(...)`", "cpu"),
        (h_global, "the global `NOT_A_NUMBER` (a list)", "cuda"),
        (
            h_field,
            "unknown request field `req.z` cannot run on the cpu and cuda and metal backends: the fields are x, n",
            "metal",
        ),
        (h_write_req, "writing the request field `req.x`", "cpu"),
        (h_try, "`try`", "cpu"),
        (h_and, "`and`/`or`", "metal backend"),
        (h_attr, "the attribute access `req.x.real`", "cpu"),
    ],
)
def test_rejected_constructs_name_line_construct_and_backend(fn, construct, backends):
    with pytest.raises(HandlerError) as info:
        HandlerSpec.create(fn, REQ, REP)
    msg = str(info.value)
    line = fn.__code__.co_firstlineno + 1
    assert f"[ring handler {fn.__name__}]" in msg
    assert f"test_ring_handlers.py:{line}:" in msg, msg
    assert construct in msg, msg
    assert backends in msg, msg


def test_bad_signature_and_dtypes():
    def one_arg(req):
        pass

    with pytest.raises(HandlerError, match=r"expected the signature `one_arg\(req, rep\)`"):
        HandlerSpec.create(one_arg, REQ, REP)
    with pytest.raises(TypeError, match="structured dtype"):
        HandlerSpec.create(good, np.float64, REP)
    with pytest.raises(TypeError, match=r"field 'v': expected a scalar"):
        HandlerSpec.create(good, np.dtype([("v", np.float64, (3,))]), REP)
    with pytest.raises(HandlerError, match="expected a Python function"):
        HandlerSpec.create(print, REQ, REP)


def test_python_mode_accepts_any_callable_but_only_on_cpu():
    def anything(req, rep):
        rep.y = float(len(str(req.x)))

    spec = HandlerSpec.create(anything, REQ, REP, python=True)
    assert spec.python and spec.tree is None
    kdef = pdc.ring.ring_kernel(request=REQ, reply=REP, python=True)(anything)
    with pytest.raises(ValueError, match="cpu backend only"):
        pdc.ring.RingKernelRuntime(backend="cuda").launch(kdef)


def test_ring_kernel_decorator_checks_its_options():
    with pytest.raises(ValueError, match=r"backpressure in .*got 'spill'"):
        pdc.ring.ring_kernel(request=REQ, reply=REP, backpressure="spill")
    with pytest.raises(ValueError, match="queue_size >= 1, got 0"):
        pdc.ring.ring_kernel(request=REQ, reply=REP, queue_size=0)
    kdef = pdc.ring.ring_kernel(kernel_id="g", request=REQ, reply=REP)(good)
    assert kdef.kernel_id == "g" and kdef.spec.name == "good"
    with pytest.raises(TypeError, match="integer queue_size, got float"):
        pdc.ring.ring_kernel(request=REQ, reply=REP, queue_size=1e7)
    with pytest.raises(ValueError, match=r"queue_size=10000000 needs [\d,]+ bytes.*at most"):
        pdc.ring.ring_kernel(request=REQ, reply=REP, queue_size=10_000_000)(good)


@pytest.mark.parametrize(
    "request_fields, reply_fields, bad",
    [
        ([("x", np.float64), ("priority", np.int64)], [("y", np.float64)], "priority"),
        ([("x", np.float64)], [("y", np.float64), ("status", np.int64)], "status"),
        ([("x", np.float64)], [("ok", np.bool_)], "ok"),
        ([("timeout", np.float64)], [("y", np.float64)], "timeout"),
    ],
)
def test_field_names_the_api_uses_are_refused_at_definition(request_fields, reply_fields, bad):
    def handler(req, rep):
        return 0

    with pytest.raises(ValueError, match=rf"field name\(s\) \['{bad}'\] are reserved"):
        pdc.ring.ring_kernel(request=np.dtype(request_fields), reply=np.dtype(reply_fields))(
            handler
        )

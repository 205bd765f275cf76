"""Every bad input gets a clear error naming the operation, the kernel (or the setting), the
argument or field, the expected and the actual value; the runtime stays usable after."""

from __future__ import annotations

import asyncio
import math
import re

import numpy as np
import pytest

from pdc.ring import HandlerError, RingKernelRuntime, ring_kernel, select
from pdc.ring.engines.base import EngineOptions
from pdc.ring.protocol import Rings

REQ = np.dtype([("i", np.int64), ("f", np.float32), ("b", np.bool_), ("u", np.uint8)])
REP = np.dtype([("y", np.float64)])


def work(req, rep):
    rep.y = req.i + req.f + req.u


# (what, call, exception, pattern): the pattern names the operation, the kernel or the
# setting, the argument and what was expected and got.
def _cases(k):
    ok = {"i": 1, "f": 1.0, "b": True, "u": 1}

    def send(**bad):
        return lambda: k.send(**{**ok, **bad})

    def call(**bad):
        return lambda: k.call(**{**ok, **bad}, timeout=5)

    field = r"\[{op} bad\] field '{name}' \({dt}\): expected {exp}, got {got}"
    return [
        (
            "str into float",
            send(f="abc"),
            TypeError,
            field.format(op="send", name="f", dt="float32", exp="a number", got="str 'abc'"),
        ),
        (
            "None into int",
            send(i=None),
            TypeError,
            field.format(op="send", name="i", dt="int64", exp="a number", got="NoneType None"),
        ),
        (
            "list into int",
            send(i=[1]),
            TypeError,
            field.format(op="send", name="i", dt="int64", exp="a number", got=r"list \[1\]"),
        ),
        (
            "2**70 into int64",
            send(i=2**70),
            ValueError,
            field.format(
                op="send",
                name="i",
                dt="int64",
                exp=r"an integer in \[-9223372036854775808, 9223372036854775807\]",
                got=str(2**70),
            ),
        ),
        (
            "3.7 into int",
            send(i=3.7),
            TypeError,
            field.format(op="send", name="i", dt="int64", exp="an integer", got="float 3.7"),
        ),
        (
            "nan into int",
            send(i=math.nan),
            TypeError,
            field.format(op="send", name="i", dt="int64", exp="an integer", got="float nan"),
        ),
        (
            "1e39 into float32",
            send(f=1e39),
            ValueError,
            field.format(
                op="send",
                name="f",
                dt="float32",
                exp="a number of magnitude <= 3.40282e\\+38",
                got="1e\\+39",
            ),
        ),
        (
            "5 into bool",
            send(b=5),
            ValueError,
            field.format(op="send", name="b", dt="bool", exp=r"True/False \(or 0/1\)", got="5"),
        ),
        (
            "0.5 into bool",
            send(b=0.5),
            ValueError,
            field.format(op="send", name="b", dt="bool", exp=r"True/False \(or 0/1\)", got="0.5"),
        ),
        (
            "-1 into uint8",
            send(u=-1),
            ValueError,
            field.format(
                op="send", name="u", dt="uint8", exp=r"an integer in \[0, 255\]", got="-1"
            ),
        ),
        (
            "256 into uint8",
            send(u=256),
            ValueError,
            field.format(
                op="send", name="u", dt="uint8", exp=r"an integer in \[0, 255\]", got="256"
            ),
        ),
        (
            "call: str",
            call(f="abc"),
            TypeError,
            field.format(op="call", name="f", dt="float32", exp="a number", got="str 'abc'"),
        ),
        (
            "call: 2**70",
            call(i=2**70),
            ValueError,
            field.format(op="call", name="i", dt="int64", exp="an integer in", got="").rstrip(
                ", got"
            ),
        ),
        (
            "call: 3.7 into int",
            call(i=3.7),
            TypeError,
            field.format(op="call", name="i", dt="int64", exp="an integer", got="float 3.7"),
        ),
        (
            "call: 5 into bool",
            call(b=5),
            ValueError,
            field.format(op="call", name="b", dt="bool", exp=r"True/False", got="").rstrip(", got"),
        ),
        (
            "call: 1e39 into float32",
            call(f=1e39),
            ValueError,
            field.format(
                op="call", name="f", dt="float32", exp="a number of magnitude", got=""
            ).rstrip(", got"),
        ),
        ("unknown field", send(z=1), ValueError, r"\[send bad\] unknown field\(s\) \['z'\]"),
        (
            "bad priority",
            lambda: k.send(**ok, priority="urgent"),
            ValueError,
            r"\[send bad\] expected priority 'high' \(0\) or 'normal' \(1\), got 'urgent'",
        ),
        (
            "message and fields",
            lambda: k.send(ok, i=1),
            TypeError,
            r"\[send bad\] expected a message or fields, got both",
        ),
        (
            "call timeout '1'",
            lambda: k.call(**ok, timeout="1"),
            TypeError,
            r"\[call bad\] expected timeout a number of seconds >= 0 or None, got str '1'",
        ),
        (
            "call timeout -1",
            lambda: k.call(**ok, timeout=-1),
            ValueError,
            r"\[call bad\] expected timeout a finite number of seconds >= 0, got -1",
        ),
        (
            "call timeout nan",
            lambda: k.call(**ok, timeout=math.nan),
            ValueError,
            r"\[call bad\] expected timeout a finite number of seconds >= 0, got nan",
        ),
        (
            "receive timeout '1'",
            lambda: k.receive(timeout="1"),
            TypeError,
            r"\[receive bad\] expected timeout a number of seconds >= 0 or None, got str '1'",
        ),
        (
            "receive timeout -1",
            lambda: k.receive(timeout=-1),
            ValueError,
            r"\[receive bad\] expected timeout a finite number of seconds >= 0, got -1",
        ),
        (
            "receive corr_id 'a'",
            lambda: k.receive(timeout=1, corr_id="a"),
            TypeError,
            r"\[receive bad\] expected corr_id an integer >= 1, got str 'a'",
        ),
        (
            "receive corr_id 0",
            lambda: k.receive(timeout=1, corr_id=0),
            ValueError,
            r"\[receive bad\] expected corr_id >= 1, got 0",
        ),
        (
            "receive_batch 'x3'",
            lambda: k.receive_batch("x3"),
            TypeError,
            r"\[receive_batch bad\] expected n an integer >= 0, got str 'x3'",
        ),
        (
            "receive_batch 2.5",
            lambda: k.receive_batch(2.5),
            TypeError,
            r"\[receive_batch bad\] expected n an integer >= 0, got float 2.5",
        ),
        (
            "receive_batch -1",
            lambda: k.receive_batch(-1),
            ValueError,
            r"\[receive_batch bad\] expected n >= 0, got -1",
        ),
        (
            "receive_batch timeout inf",
            lambda: k.receive_batch(1, timeout=math.inf),
            ValueError,
            r"\[receive_batch bad\] expected timeout a finite number of seconds >= 0, got inf",
        ),
        (
            "activate timeout '5'",
            lambda: k.activate(timeout="5"),
            TypeError,
            r"\[activate bad\] expected timeout a number of seconds >= 0, got str '5'",
        ),
        (
            "deactivate timeout -1",
            lambda: k.deactivate(timeout=-1),
            ValueError,
            r"\[deactivate bad\] expected timeout a finite number of seconds >= 0, got -1",
        ),
        (
            "send_batch a list",
            lambda: k.send_batch([1, 2]),
            TypeError,
            r"\[send_batch bad\] expected a NumPy structured array, got list",
        ),
        (
            "send_batch wrong dtype",
            lambda: k.send_batch(np.zeros(2, REP)),
            TypeError,
            r"\[send_batch bad\] expected dtype .* got",
        ),
        (
            "receive_async timeout '1'",
            lambda: asyncio.run(k.receive_async(timeout="1")),
            TypeError,
            r"\[receive_async bad\] expected timeout a number of seconds >= 0 or None, got str '1'",
        ),
        (
            "call_async 3.7 into int",
            lambda: asyncio.run(k.call_async(**{**ok, "i": 3.7}, timeout=5)),
            TypeError,
            field.format(op="call_async", name="i", dt="int64", exp="an integer", got="float 3.7"),
        ),
    ]


def _definitions():
    def ret_float(req, rep):
        rep.y = 1.0
        return 1.5

    def define(**kw):
        return lambda: ring_kernel(request=REQ, reply=REP, **kw)(work)

    return [
        (
            "block_timeout -1",
            define(block_timeout=-1),
            ValueError,
            r"\[ring_kernel\] expected block_timeout a finite number of seconds >= 0, got -1",
        ),
        (
            "block_timeout nan",
            define(block_timeout=math.nan),
            ValueError,
            r"\[ring_kernel\] expected block_timeout a finite number of seconds >= 0, got nan",
        ),
        (
            "block_timeout '5'",
            define(block_timeout="5"),
            TypeError,
            r"\[ring_kernel\] expected block_timeout a number of seconds >= 0, got str '5'",
        ),
        (
            "queue_size 0",
            define(queue_size=0),
            ValueError,
            r"\[ring_kernel\] expected queue_size >= 1, got 0",
        ),
        (
            "EngineOptions burst 0",
            lambda: EngineOptions(burst=0),
            ValueError,
            r"\[EngineOptions\] expected burst >= 1, got 0",
        ),
        (
            "EngineOptions burst 1.5",
            lambda: EngineOptions(burst=1.5),
            TypeError,
            r"\[EngineOptions\] expected burst an integer >= 1, got float 1.5",
        ),
        (
            "EngineOptions max_sleep -1",
            lambda: EngineOptions(max_sleep=-1),
            ValueError,
            r"\[EngineOptions\] expected max_sleep a finite number of seconds >= 0, got -1",
        ),
        (
            "reply_size 10**10",
            lambda: Rings.allocate(REQ, REP, 8, 10**10),
            ValueError,
            r"\[Rings.allocate\] expected at most 268,435,456 bytes of rings \(MAX_RING_BYTES\), got [\d,]+ for capacity=8, reply_capacity=10000000000",
        ),
        (
            "a handler returning 1.5",
            lambda: ring_kernel(request=REQ, reply=REP)(ret_float),
            HandlerError,
            r"\[ring handler ret_float\] .*`return 1.5`.*the status a handler returns must be an integer",
        ),
    ]


def test_bad_inputs_get_clear_errors_and_the_runtime_goes_on():
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(ring_kernel(kernel_id="bad", request=REQ, reply=REP, queue_size=8)(work))
        cases = _cases(k) + _definitions()
        assert len(cases) >= 30
        wrong = []
        for what, fn, exc, pattern in cases:
            try:
                fn()
            except exc as e:
                if not re.search(pattern, str(e)):
                    wrong.append(f"{what}: {e}")
            except Exception as e:  # noqa: BLE001 - reported below
                wrong.append(f"{what}: {type(e).__name__} {e}")
            else:
                wrong.append(f"{what}: no error")
        assert not wrong, "\n".join(wrong)
        # Still usable: nothing half-sent, ids and counters intact.
        assert k.call(i=2, f=0.5, b=True, u=3, timeout=60).y == 5.5
        t = k.telemetry()
        assert (t.submitted, t.processed, t.received, t.in_flight) == (1, 1, 1, 0)
        assert k.state == "active"


def test_an_engine_with_burst_zero_cannot_be_built():
    with pytest.raises(ValueError, match="burst"):
        RingKernelRuntime(backend="cpu", options=EngineOptions(burst=0))


def _halved(req, rep):
    return req.f / 2  # 1.5 for f = 3: truncated to 1 before this was refused


def _summed(req, rep):
    total = 0
    for _ in range(3):
        total = total + req.f  # an int local widened to float by the loop
    return total


def _flagged(req, rep):
    return select(req.f > 1.0, req.i // 2, 3)  # an int: accepted


def _wrapping(req, rep):
    return select(req.f < 0.0, 2**70, 0)  # an "error" that int64 cannot hold: it read as 0


def _lowest(req, rep):
    return select(req.f < 0.0, -(2**63), 0)  # the smallest int64: a status it can hold


def test_an_integer_beyond_int64_is_refused_at_definition():
    with pytest.raises(HandlerError, match=re.escape("`2 ** 70` is an integer beyond int64")):
        ring_kernel(request=REQ, reply=REP)(_wrapping)
    ring_kernel(request=REQ, reply=REP)(_lowest)


def test_a_float_status_is_refused_at_definition():
    for fn, expr in ((_halved, "req.f / 2"), (_summed, "total")):
        pattern = (
            re.escape(f"`return {expr}`") + r".*the status a handler returns must be an integer"
        )
        with pytest.raises(HandlerError, match=pattern):
            ring_kernel(request=REQ, reply=REP)(fn)
    ring_kernel(request=REQ, reply=REP)(_flagged)


def test_a_python_handler_returning_a_float_gets_an_error_reply():
    def halved(req, rep):
        return req.f / 2

    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, python=True)(halved))
        r = k.call(i=1, f=3.0, b=True, u=1, timeout=30, check=False)
        assert r.status != 0
        assert "expected the status (the return value) an integer, got float32" in r.error


def test_a_python_handler_status_outside_int64_is_an_error_reply_and_the_loop_goes_on():
    def coded(req, rep):
        return 2**64 if req.i == 1 else 0  # e.g. a hash used as an error code

    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, python=True)(coded))
        r = k.call(i=1, f=3.0, b=True, u=1, timeout=30, check=False)
        assert r.status != 0 and "to fit in int64, got 18446744073709551616" in r.error
        assert k.call(i=0, f=3.0, b=True, u=1, timeout=30).status == 0


def test_terminate_close_and_options_refuse_bad_arguments_before_acting():
    with RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(ring_kernel(kernel_id="args", request=REQ, reply=REP)(_flagged))
        for bad, kind in (("a", TypeError), (-1, ValueError), (float("nan"), ValueError)):
            with pytest.raises(kind, match=r"\[terminate args\] expected timeout"):
                k.terminate(timeout=bad)
            with pytest.raises(kind, match=r"\[close\] expected timeout"):
                rt.close(timeout=bad)
        assert k.call(i=1, f=3.0, b=True, u=1, timeout=30).ok  # nothing was terminated
    with pytest.raises(TypeError, match=r"expected options an EngineOptions or None, got int 5"):
        RingKernelRuntime(options=5)


def test_a_float16_field_is_refused_on_the_compiled_cpu_loop_by_name():
    req16 = np.dtype([("x", np.float16)])
    rep = np.dtype([("y", np.float64)])

    def half(req, rep):
        rep.y = req.x * 2

    with RingKernelRuntime(backend="cpu") as rt:
        with pytest.raises(TypeError, match="request field 'x' of type float16"):
            rt.launch(ring_kernel(kernel_id="half", request=req16, reply=rep)(half))
        py = ring_kernel(kernel_id="half_py", request=req16, reply=rep, python=True)(half)
        assert rt.launch(py).call(x=1.5, timeout=30).y == 3.0  # NumPy holds float16

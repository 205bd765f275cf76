"""Handler faults become error replies on every backend, and the kernel keeps serving.

Division by zero (float and integer), NaN stored into an integer field and a value too
large for an integer field reply with status ``FAULT``; without the guards the cpu loop
died on the first ``ZeroDivisionError`` and the simulated cuda loop on the NaN.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pdc.ring import HandlerError, RingKernelRuntime, ring_kernel
from pdc.ring.handlers.guards import FAULT

REQ = np.dtype([("x", np.float64), ("d", np.float64), ("n", np.int64), ("m", np.int64)])
REP = np.dtype([("q", np.float64), ("r", np.int64), ("k", np.int64)])
BIG = 10**15  # a loop this long would keep the kernel busy for days


def risky(req, rep):
    rep.q = req.x / req.d
    rep.r = req.n // req.m
    rep.k = req.x * req.d
    return 0


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the simulator
def test_faults_become_error_replies_and_the_kernel_goes_on(engine):
    cases = [  # (x, d, n, m), expected status
        ((6.0, 2.0, 7, 2), 0),
        ((1.0, 0.0, 7, 2), FAULT),  # float division by zero
        ((6.0, 2.0, 7, 0), FAULT),  # integer division by zero
        ((math.nan, 1.0, 7, 2), FAULT),  # NaN into the int64 field k
        ((1e300, 1e10, 7, 2), FAULT),  # too large for int64
        ((-3.0, 2.0, -7, 2), 0),
    ]
    b = np.array([c for c, _ in cases], REQ)
    with RingKernelRuntime(backend=engine) as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(risky))
        ids = k.send_batch(b)
        r = k.receive_batch(len(b), timeout=120)
        assert r.corr_ids.tolist() == ids.tolist()
        assert r.status.tolist() == [s for _, s in cases]
        ok = r.records[[0, 5]]
        assert ok["q"].tolist() == [3.0, -1.5]
        assert ok["r"].tolist() == [3, -4]
        assert ok["k"].tolist() == [12, -6]
        assert k.state == "active"
        assert k.call(x=8.0, d=4.0, n=9, m=3, timeout=120).q == 2.0  # still serving
        t = k.telemetry()
        assert (t.errors, t.last_error, t.processed) == (4, FAULT, 7)


def test_runaway_loops_are_refused_at_definition():
    def spin(req, rep):
        acc = 0.0
        for _ in range(BIG):
            acc = acc + 1.0
        rep.q = acc
        return 0

    def nested(req, rep):
        acc = 0.0
        for _ in range(2_000):
            for _ in range(2_000):
                acc = acc + 1.0
        rep.q = acc
        return 0

    for fn in (spin, nested):
        with pytest.raises(HandlerError, match=r"iterations per message"):
            ring_kernel(request=REQ, reply=REP)(fn)

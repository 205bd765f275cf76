"""Exercise 6: a ring-kernel actor that keeps running statistics and flags anomalies.

The student writes one pdc.ring handler with state, ``detect(req, rep, state)``: the kernel
keeps the statistics of the readings so far in its own state (count, mean, sum of squared
deviations ``m2``, Welford's method); a request carries one reading ``x``, and the reply
carries the count and mean after it, the reading's z-score against the previous readings,
and an anomaly flag. The grader streams public and hidden sequences of readings through one
launched ring kernel (in a child process, like every graded kernel), resetting its state
before each stream, and checks the replies' values (a wrong one names the state the kernel
should have held before it), the state left after each stream, the replies' order (one
reply per request, in the order sent) and the kernel's telemetry.
"""

from __future__ import annotations

from pdc.grade import spec

from .ring_judge import _judge
from .ring_run import (
    _warm,
    handler_from_source,
    precheck,
    run_cases,
    runner,
)
from .ring_spec import (
    BOUNDARIES,
    MIN_COUNT,
    QUEUE_SIZE,
    REPLY,
    REQUEST,
    STATE,
    THRESHOLD,
    TITLES,
    detect_spec,
    hidden_cases,
    public_cases,
    stream_expected,
    stream_requests,
)

__all__ = [
    "EXERCISE",
    "MIN_COUNT",
    "QUEUE_SIZE",
    "REPLY",
    "REQUEST",
    "RING",
    "STATE",
    "THRESHOLD",
    "check_ring",
    "detect_spec",
    "handler_from_source",
    "precheck",
    "run_cases",
    "stream_expected",
    "stream_requests",
]


def check_ring(kdef) -> None:
    """In-notebook check of a ring handler on the public streams (in this process)."""
    from pdc.grade.judge import summary

    part = spec.public_only(RING.parts[0])
    cases = public_cases()
    results = run_cases(kdef, [c.args["requests"] for c in cases])
    print(summary(part, _judge(part, cases, results, None)))


def _resources(kdef) -> str:
    """The ring kernel's real-GPU resources, built around the handler (pdc.ptx)."""
    from pdc.ptx.resources import ring_check_line

    return ring_check_line(kdef)


def _cases_come_from_runner(*_args):
    """The ring part makes its own cases and checks them in ``runner``; nothing calls this."""
    raise TypeError(
        "[grade.ring] expected the ring part to be graded by its runner, got a case call"
    )


RING = spec.Exercise(
    "06_ring",
    "A ring-kernel actor: running statistics and anomaly flags",
    [
        spec.Part(
            "detect",
            "Welford update, z-score and anomaly flag per message",
            ("req", "rep", "state"),
            public=[],
            hidden=lambda rng: [],
            draw=hidden_cases,
            domain=f"streams of any length >= 1; spikes anywhere; THRESHOLD = {THRESHOLD:g}, "
            f"MIN_COUNT = {MIN_COUNT}",
            boundaries=BOUNDARIES,
            public_labels=tuple(c.label for c in public_cases()),
            make=_cases_come_from_runner,
            reference=_cases_come_from_runner,
            points={"public": 2, "hidden": 2, "ordering": 1, "telemetry": 1},
            runner=runner,
            checker=check_ring,
            resources=_resources,
            titles=TITLES,
            warm=_warm,
            warm_with="pdc.ring",
        )
    ],
    {"THRESHOLD": THRESHOLD, "MIN_COUNT": MIN_COUNT},
)

EXERCISE = RING

"""Exercise 6's messages, reference and cases: a ring-kernel actor's running statistics.

The request carries one reading ``x``; the kernel's state keeps the count, mean and sum of
squared deviations ``m2`` of the readings so far (Welford's method); the reply carries the
count and mean after the reading, its z-score against the readings before it, and an anomaly
flag. ``stream_expected`` is the reference; the public and hidden cases are streams of
readings, each hidden draw holding every boundary of ``BOUNDARIES``.
"""

from __future__ import annotations

import math

import numpy as np

from pdc.grade import spec

REQUEST = np.dtype([("x", "f8")])
STATE = np.dtype([("count", "f8"), ("mean", "f8"), ("m2", "f8")])
REPLY = np.dtype([("count", "f8"), ("mean", "f8"), ("z", "f8"), ("flag", "i8")])
THRESHOLD = 4.0  # flag readings more than THRESHOLD standard deviations from the mean
MIN_COUNT = 10  # ... once at least MIN_COUNT readings have been seen
QUEUE_SIZE = 1024
# The CPU engine compiles the handler (and, once per process, its shared loop) with numba when
# launched (seconds on a busy machine), and a handler cannot loop forever (the ring's validator
# allows only constant-length loops), so the ring's child process gets at least this long
# whatever --timeout says.
MIN_TIMEOUT_S = 60.0
TELEMETRY = ("submitted", "processed", "errors", "dropped", "in_flight")

TITLES = {
    "ordering": "one reply per request, in the order sent",
    "telemetry": "telemetry counts every message, no errors or drops",
}


def detect_spec(x: float, count: float, mean: float, m2: float) -> tuple:
    """Reference for one message: (count, mean, m2, z, flag) after reading ``x``."""
    n = count + 1.0
    delta = x - mean
    new_mean = mean + delta / n
    new_m2 = m2 + delta * (x - new_mean)
    std = math.sqrt(m2 / (count - 1.0)) if count > 1.0 else 0.0
    z = delta / std if std > 0.0 else 0.0
    flag = 1 if count >= MIN_COUNT and abs(z) > THRESHOLD else 0
    return n, new_mean, new_m2, z, flag


def stream_expected(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The expected replies of a stream and the state before each reading (and after all).

    Returns:
        ``(replies, states)``: ``REPLY`` records, one per reading, and ``STATE`` records,
        ``states[t]`` the state after ``t`` readings (``states[-1]``: after the stream).
    """
    rep = np.zeros(x.size, REPLY)
    states = np.zeros(x.size + 1, STATE)
    state = (0.0, 0.0, 0.0)
    for t, v in enumerate(x):
        n, mean, m2, z, flag = detect_spec(float(v), *state)
        rep[t] = (n, mean, z, flag)
        state = (n, mean, m2)
        states[t + 1] = state
    return rep, states


def stream_requests(x: np.ndarray) -> np.ndarray:
    """The requests of a stream: one reading each (the statistics stay in the kernel)."""
    req = np.zeros(x.size, REQUEST)
    req["x"] = x
    return req


def make_stream(rng: np.random.Generator, n: int, spikes: int) -> np.ndarray:
    """A noisy signal with slow drift and a few large spikes."""
    x = rng.normal(0.0, 1.0, n) + np.linspace(0.0, rng.uniform(-2, 2), n)
    where = rng.choice(
        np.arange(MIN_COUNT + 5, n), size=min(spikes, n - MIN_COUNT - 5), replace=False
    )
    x[where] += rng.choice([-1.0, 1.0], where.size) * rng.uniform(8, 15, where.size)
    return x


def _case(label, x, hidden=False):
    req = stream_requests(x)
    return spec.Case(label, {"requests": req}, ("replies",), (1,), (1,), hidden, {"n": x.size})


def public_cases() -> list:
    rng = np.random.default_rng(2026)
    return [
        _case("stream of 200 readings, 3 spikes", make_stream(rng, 200, 3)),
        _case("stream of 37 readings, 1 spike", make_stream(rng, 37, 1)),
    ]


def _spike_at(rng, n: int, at: int) -> np.ndarray:
    """Noise of ``n`` readings with one spike of 12 to 15 standard deviations at ``at``."""
    x = rng.normal(0.0, 1.0, n)
    x[at] += rng.choice([-1.0, 1.0]) * rng.uniform(12, 15)
    return x


def _flagging(rng, n: int, spikes: int, flags) -> np.ndarray:
    """``make_stream(rng, n, spikes)``, drawn again (a few times at most) until the number of
    flagged readings passes ``flags``: two close spikes can hide each other."""
    for _ in range(100):
        x = make_stream(rng, n, spikes)
        if flags(int(stream_expected(x)[0]["flag"].sum())):
            break
    return x


def hidden_cases(rng) -> list:
    """Hidden streams: every draw has each boundary of ``BOUNDARIES``.

    A spike on the very message where flagging starts (count == MIN_COUNT), so
    `count > MIN_COUNT` and `count >= MIN_COUNT` do not score the same; a spike one message
    earlier, which must not be flagged; a stream with nothing to flag, one with several
    spikes, one too short for any flag, and a sensor stuck at one value before its noise
    starts (the standard deviation is 0 there, and the specification's z is 0: a handler
    that divides by it faults). The sensor stays stuck past message MIN_COUNT, so flags are
    decided while the deviation is 0: a running mean that drifts by one ulp from the stuck
    value (``mean * (count / n) + x / n``) makes a tiny deviation and a large false z there.
    """
    streams = [
        _spike_at(rng, int(rng.integers(MIN_COUNT + 5, 200)), MIN_COUNT),
        _spike_at(rng, int(rng.integers(MIN_COUNT + 5, 200)), MIN_COUNT - 1),
        _flagging(rng, int(rng.integers(40, 700)), 0, lambda f: f == 0),
        _flagging(rng, int(rng.integers(40, 700)), int(rng.integers(2, 6)), lambda f: f >= 2),
        rng.normal(0.0, 1.0, int(rng.integers(1, MIN_COUNT + 1))),
        _stuck(rng),
        _stuck(rng),  # a second value: about one in ten makes no such drift in 40 readings
    ]
    return [_case(f"hidden case {k}", x, hidden=True) for k, x in enumerate(streams, 1)]


def _stuck(rng) -> np.ndarray:
    """Noise after a sensor stuck at one value for 2 x MIN_COUNT + 5 to 4 x MIN_COUNT readings."""
    stuck = rng.normal(0.0, 1.0, int(rng.integers(4 * MIN_COUNT + 5, 200)))
    stuck[: int(rng.integers(2 * MIN_COUNT + 5, 4 * MIN_COUNT))] = round(
        float(rng.uniform(-5, 5)), 2
    )
    return stuck


def _replies(case) -> np.ndarray:
    return stream_expected(case.args["requests"]["x"])[0]


BOUNDARIES = {
    f"a spike on message {MIN_COUNT}, the first that is flagged": lambda c: bool(
        c.dims["n"] > MIN_COUNT and _replies(c)["flag"][MIN_COUNT]
    ),
    f"a spike on message {MIN_COUNT - 1}, one too early to flag": lambda c: bool(
        c.dims["n"] > MIN_COUNT
        and abs(_replies(c)["z"][MIN_COUNT - 1]) > THRESHOLD
        and not _replies(c)["flag"][MIN_COUNT - 1]
    ),
    "a long stream with nothing to flag": lambda c: (
        c.dims["n"] >= 40 and not _replies(c)["flag"].any()
    ),
    "a stream with several flags": lambda c: int(_replies(c)["flag"].sum()) >= 2,
    f"a stream of at most {MIN_COUNT} readings": lambda c: c.dims["n"] <= MIN_COUNT,
    "a sensor stuck at one value (its standard deviation is 0)": lambda c: bool(
        c.dims["n"] >= 3 and np.all(c.args["requests"]["x"][:3] == c.args["requests"]["x"][0])
    ),
    f"a sensor stuck past message {MIN_COUNT}, where flags are decided": lambda c: bool(
        c.dims["n"] > MIN_COUNT + 1
        and np.all(c.args["requests"]["x"][: MIN_COUNT + 2] == c.args["requests"]["x"][0])
    ),
}


def warm_handler(req, rep, state):
    """A trivial handler of these messages: the graders' warm-up compiles what every run of
    this exercise compiles besides the student's handler (pdc.grade.exercises.ring_run)."""
    rep.count = state.count + req.x


def warm_kernel():
    """The ring kernel definition of ``warm_handler`` with this exercise's messages."""
    from pdc.ring import ring_kernel

    return ring_kernel(
        "warm_detect", request=REQUEST, reply=REPLY, state=STATE, queue_size=QUEUE_SIZE
    )(warm_handler)

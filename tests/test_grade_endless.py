"""An endless loop in a part with a work budget stops at twice what the whole launch may make
(pdc.grade.grader.SERIAL_SLACK); a correct kernel in which one thread does every thread's
work stays under that limit, and loses only the "parallel" point."""

from __future__ import annotations

import pytest

from pdc.grade import exercises as exs
from pdc.grade.grader import run_parts

HEAD = "import numpy as np\nfrom numba import cuda, float32\n"

ENDLESS = """
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        k = i
        while k >= 0:  # k only grows
            out[i] = a[i] * b[i]
            k += 1
"""

# One thread of the whole grid computes every output, then reads them all back once more.
SERIAL = {
    "multiply": """
@cuda.jit
def multiply(a, b, out):
    if cuda.grid(1) == 0:
        for i in range(out.size):
            out[i] = a[i] * b[i]
        for i in range(out.size):
            out[i] = out[i] * float32(1.0)
""",
    "conv1d": """
@cuda.jit
def conv1d(x, w, out):
    if cuda.grid(1) != 0:
        return
    r = w.size // 2
    for i in range(out.size):
        acc = float32(0.0)
        for j in range(w.size):
            src = i + r - j
            if 0 <= src < x.size:
                acc += w[j] * x[src]
        out[i] = acc
""",
}


def _part(name):
    return exs.find_part(name)


def _verdicts(result) -> dict:
    return {v.criterion: v for v in result.verdicts}


def test_an_endless_loop_stops_at_twice_the_launchs_budget():
    ex, part = _part("multiply")
    (r,) = run_parts([(ex, part, [HEAD, ENDLESS])], hidden=False, timeout=60, gpu=False)
    v = _verdicts(r)
    assert not v["public"].passed
    # n=1000: 1024 threads of 8 memory operations each, twice over.
    want = (
        "more than 16,384 memory operations per thread (twice what all the launch's threads "
        "together are expected to make): an endless loop?"
    )
    assert want in v["public"].output, v["public"].output


@pytest.mark.parametrize("name", sorted(SERIAL))
def test_one_thread_doing_every_threads_work_is_not_stopped(name):
    ex, part = _part(name)
    (r,) = run_parts([(ex, part, [HEAD, SERIAL[name]])], seed=3, timeout=120, gpu=False)
    v = _verdicts(r)
    assert v["public"].passed and v["hidden"].passed, (v["public"].output, v["hidden"].output)
    assert not v["parallel"].passed

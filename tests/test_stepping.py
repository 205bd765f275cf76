"""Printing from a kernel and stepping through one thread on numba's simulator."""

from __future__ import annotations

import numpy as np
import pytest

import pdc
from pdc.course.stepping import Step, run_on_simulator

cuda = pdc.numba_cuda()


def shift_sum(x, out):  # plain function: the simulator runs it as Python
    i = cuda.grid(1)
    total = 0.0
    for k in range(2):
        total += x[i] + k
    if i == 5:
        print("five", total)
    out[i] = total


@pytest.mark.parametrize("child", [False, True])
def test_one_thread_is_stepped_with_its_values_and_prints_are_kept(child):
    x, out = np.arange(8, dtype=np.float64), np.zeros(8)
    run = run_on_simulator(shift_sum, 2, 4, x, out, thread=(1, 1), child=child)
    assert run.printed == "five 11.0\n"  # only thread 5 printed: 5 + 0 + 5 + 1
    assert np.array_equal(run.args[1], 2 * np.arange(8) + 1)
    assert all(isinstance(s, Step) for s in run.steps)
    texts = [s.source.strip() for s in run.steps]
    assert texts[0] == "i = cuda.grid(1)"
    assert texts.count("total += x[i] + k") == 2  # the loop, once per iteration
    assert texts[-1] == "out[i] = total"
    last = run.steps[-1].values
    assert last["i"] == 5 and last["total"] == 11.0  # values before the last line ran
    assert ("child" in run.where) is child


def test_no_thread_no_steps_and_bad_indices_are_named():
    x, out = np.zeros(4), np.zeros(4)
    assert run_on_simulator(shift_sum, 1, 4, x, out).steps == []
    with pytest.raises(ValueError, match=r"\[run_on_simulator\] expected a thread index"):
        run_on_simulator(shift_sum, 1, 4, x, out, thread=(0, -1))
    with pytest.raises(ValueError, match=r"\[run_on_simulator\] expected 1 to 3 positive"):
        run_on_simulator(shift_sum, 0, 4, x, out)


def test_a_step_limit_bounds_a_long_loop():
    def spin(out):
        i = cuda.grid(1)
        for k in range(1000):
            out[i] += k

    run = run_on_simulator(spin, 1, 2, np.zeros(2), thread=(0, 0), max_steps=25)
    assert len(run.steps) == 25 and run.args[0][0] == sum(range(1000))

"""pdc.sim.reloads: a thread's second load of an element, with no store, atomic, fence or
barrier in between, is no memory traffic (LLVM keeps the value in a register)."""

from __future__ import annotations

import numpy as np
from numba import cuda

import pdc.sim as sim

# Plain functions: pdc.sim types them with numba-cuda in its worker, as the grader does.


def running_max(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        m = -1e30
        for c in range(x.shape[1]):
            if x[i, c] > m:  # the comparison's load ...
                m = x[i, c]  # ... and this one: one read of x[i, c]
        out[i] = m


def square(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * a[i]


def store_between(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i]
        out[i] += a[i]  # a store came between: memory may have changed, a is read again


def barrier_between(a, out):
    i = cuda.grid(1)
    v = a[i % a.size]
    cuda.syncthreads()
    out[i] = v + a[i % a.size]  # read again after the barrier


def everyone_reads_one(a, out):
    i = cuda.grid(1)
    out[i] = a[0] + a[0]  # each thread reads a[0] once: 64 loads in all, one per thread


def clamped_taps(a, out):
    i = cuda.grid(1)
    if i < a.size:
        s = 0.0
        for d in range(-2, 3):  # at the ends, clamped taps land on one element again
            s += a[min(max(i + d, 0), a.size - 1)]
        out[i] = s


def same_element_each_pass(a, out):
    i = cuda.grid(1)
    if i < out.size:
        s = 0.0
        for _ in range(4):
            s += a[0]  # counted each pass: the model does not hoist loads out of loops
        out[i] = s


def _loads(kernel, grid, block, args):
    rep = sim.launch(kernel, grid, block, args)
    assert not rep.findings, rep.findings
    return rep


def test_a_compare_then_assign_reads_each_element_once():
    x = np.random.default_rng(0).normal(size=(64, 40)).astype(np.float32)
    out = np.zeros(64, np.float32)
    rep = _loads(running_max, 2, 32, [x, out])
    np.testing.assert_array_equal(out, x.max(axis=1))
    assert rep.loads["x"].tolist() == [40] * 64  # not 40 plus one per new maximum


def test_a_value_used_twice_is_loaded_once():
    a = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    rep = _loads(square, 2, 32, [a, out])
    assert rep.loads["a"].tolist() == [1] * 64


def test_a_store_between_two_loads_makes_the_second_count():
    a = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    rep = _loads(store_between, 2, 32, [a, out])
    np.testing.assert_array_equal(out, 2 * a)
    assert rep.loads["a"].tolist() == [2] * 64
    assert rep.loads["out"].tolist() == [1] * 64  # out[i] += reads out[i] once


def test_a_barrier_between_two_loads_makes_the_second_count():
    a = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    rep = _loads(barrier_between, 1, 32, [a, out])
    assert rep.loads["a"].tolist() == [2] * 32


def test_threads_reading_one_element_each_count_their_own_load():
    a = np.ones(4, np.float32)
    out = np.zeros(64, np.float32)
    rep = _loads(everyone_reads_one, 2, 32, [a, out])
    assert rep.loads["a"].tolist() == [1] * 64


def test_addresses_that_only_coincide_at_run_time_are_loaded_again():
    # The compiler cannot tell that a clamped tap hits the element the last one read.
    a = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    rep = _loads(clamped_taps, 1, 8, [a, out])
    assert rep.loads["a"].tolist() == [5] * 8


def test_a_new_pass_of_a_loop_loads_again():
    a = np.ones(1, np.float32)
    out = np.zeros(8, np.float32)
    rep = _loads(same_element_each_pass, 1, 8, [a, out])
    np.testing.assert_array_equal(out, 4.0)
    assert rep.loads["a"].tolist() == [4] * 8

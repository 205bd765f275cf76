"""Spin loops on pdc.sim: lanes of one warp waiting for each other (independent thread
scheduling, Volta and newer), and loops that can never end (a deadlock, found quickly).

The kernels are plain functions, as in tests/sim_cases.py: pdc.sim types them with
numba-cuda when it launches them.
"""

import numpy as np
from numba import cuda

import pdc.sim as sim


def lock_per_warp(lock, counter):
    # Every lane takes its warp's lock in turn. Before Volta the lane that wins waits at the
    # loop's exit for the lanes still spinning, which wait for it: a deadlock.
    w = cuda.threadIdx.x // 32
    while cuda.atomic.cas(lock, w, 0, 1) != 0:
        pass
    counter[w] += 1
    cuda.threadfence()
    cuda.atomic.exch(lock, w, 0)


def lock_with_done_flag(lock, counter):
    # The form that also works before Volta: the critical section is inside the loop.
    done = False
    while not done:
        if cuda.atomic.cas(lock, 0, 0, 1) == 0:
            counter[0] += 1
            cuda.threadfence()
            cuda.atomic.exch(lock, 0, 0)
            done = True


def relay(flags, order, ticket):
    # Lane k waits until lane k - 1 has raised its flag: the lanes go strictly in turn.
    k = cuda.threadIdx.x
    if k > 0:
        while cuda.atomic.add(flags, k - 1, 0) == 0:
            pass
    order[k] = cuda.atomic.add(ticket, 0, 1)
    cuda.atomic.exch(flags, k, 1)


def wait_forever(flag, out):
    # Lane 0 waits for a flag that nobody raises.
    if cuda.threadIdx.x == 0:
        while cuda.atomic.add(flag, 0, 0) == 0:
            pass
    out[cuda.threadIdx.x] = 1


def counter_outside_lock(lock, counter):
    while cuda.atomic.cas(lock, 0, 0, 1) != 0:
        pass
    cuda.atomic.exch(lock, 0, 0)
    counter[0] += 1  # after the release: not protected


def test_lanes_of_one_warp_take_a_spin_lock_in_turn():
    lock, counter = np.zeros(2, np.int32), np.zeros(2, np.int32)
    rep = sim.launch(lock_per_warp, 1, 64, [lock, counter])
    assert rep.findings == {}
    assert counter.tolist() == [32, 32] and lock.tolist() == [0, 0]


def test_spin_lock_with_a_done_flag():
    lock, counter = np.zeros(1, np.int32), np.zeros(1, np.int32)
    rep = sim.launch(lock_with_done_flag, 1, 32, [lock, counter])
    assert rep.findings == {}
    assert counter.tolist() == [32]


def test_lanes_wait_for_each_other_in_a_chain():
    flags, order, ticket = np.zeros(32, np.int32), np.zeros(32, np.int32), np.zeros(1, np.int32)
    rep = sim.launch(relay, 1, 32, [flags, order, ticket])
    assert rep.findings == {}
    assert order.tolist() == list(range(32)) and flags.all()


def test_a_loop_that_can_never_end_is_a_deadlock_finding():
    flag, out = np.zeros(1, np.int32), np.zeros(32, np.int32)
    rep = sim.launch(wait_forever, 1, 32, [flag, out])
    (text,) = rep.findings["error"]["examples"]
    assert "can never end" in text and "deadlock" in text and "line 4" in text
    # Found from the loop's state, long before the endless-loop limit of memory operations.
    assert "memory operations" not in text


def test_an_access_after_the_release_still_races():
    lock, counter = np.zeros(1, np.int32), np.zeros(1, np.int32)
    rep = sim.launch(counter_outside_lock, 1, 32, [lock, counter])
    assert rep.findings["race"]["count"] > 0


def test_spin_schedules_are_deterministic():
    outs = []
    for _ in range(3):
        flags, order, ticket = np.zeros(32, np.int32), np.zeros(32, np.int32), np.zeros(1, np.int32)
        rep = sim.launch(relay, 1, 32, [flags, order, ticket])
        outs.append((order.tolist(), sorted(rep.findings)))
    assert outs[0] == outs[1] == outs[2]

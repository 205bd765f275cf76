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


def wait_for_flag_by_plain_load(flag, out):
    # Lane 1 waits for lane 0's flag, read with a plain load: a compiler may load it once.
    k = cuda.threadIdx.x
    if k == 1:
        while flag[0] == 0:
            pass
    if k == 0:
        flag[0] = 1
    out[k] = 1


def wait_for_flag_with_fence(flag, out):
    # The same wait with a fence in the loop: the compiler must load again after it (the
    # plain store and loads still race).
    k = cuda.threadIdx.x
    if k == 1:
        while flag[0] == 0:
            cuda.threadfence()
    if k == 0:
        flag[0] = 1
    out[k] = 1


def wait_for_previous_block(flags, out):
    # Thread 0 of block b waits for block b - 1's flag: blocks run in any order.
    b = cuda.blockIdx.x
    if cuda.threadIdx.x == 0:
        if b > 0:
            while cuda.atomic.add(flags, b - 1, 0) == 0:
                pass
        out[b] = b
        cuda.atomic.exch(flags, b, 1)


def lock_across_blocks(lock, counter):
    # One lock for the whole grid: its holder runs, so a waiting block gets it in the end.
    if cuda.threadIdx.x == 0:
        while cuda.atomic.cas(lock, 0, 0, 1) != 0:
            pass
        counter[0] += 1
        cuda.threadfence()
        cuda.atomic.exch(lock, 0, 0)


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


def test_a_wait_on_plain_loads_is_endless_at_once():
    flag, out = np.zeros(1, np.int32), np.zeros(32, np.int32)
    rep = sim.launch(wait_for_flag_by_plain_load, 1, 32, [flag, out])
    (text,) = rep.findings["error"]["examples"]
    assert "can never end" in text and "plain loads" in text and "line 5" in text
    assert "memory operations" not in text  # found from the loop's state, not the limit


def test_a_fence_in_the_loop_makes_the_wait_see_the_store():
    flag, out = np.zeros(1, np.int32), np.zeros(32, np.int32)
    rep = sim.launch(wait_for_flag_with_fence, 1, 32, [flag, out])
    assert "error" not in rep.findings and rep.findings["race"]["count"] > 0
    assert out.tolist() == [1] * 32


def test_a_wait_for_another_block_is_a_finding():
    flags, out = np.zeros(4, np.int32), np.zeros(4, np.int32)
    rep = sim.launch(wait_for_previous_block, 4, 32, [flags, out])
    assert out.tolist() == [0, 1, 2, 3]  # it ends, and says why it may not on a GPU
    (text, *_) = rep.findings["race"]["examples"]
    assert "another block" in text and "line 6" in text


def test_a_lock_held_by_another_block_is_no_finding():
    lock, counter = np.zeros(1, np.int32), np.zeros(1, np.int32)
    rep = sim.launch(lock_across_blocks, 4, 32, [lock, counter])
    assert counter.tolist() == [4]
    # The holder fences before it releases: the hand-off orders the counter's read and write
    # for the next holder (pdc.sim.races), in whichever block it runs.
    assert "race" not in rep.findings and "error" not in rep.findings

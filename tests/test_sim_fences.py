"""Fences on pdc.sim: a block's store, a ``threadfence`` and an atomic order the store before
what another block does after a later atomic (the programming guide's "last block" sum), and
``threadfence_block`` does the same between the warps of one block.

The kernels are plain functions, as in tests/sim_cases.py: pdc.sim types them with
numba-cuda when it launches them.
"""

import numpy as np
from numba import cuda

import pdc.sim as sim


def last_block_sums(x, partial, count, total):
    # Each block stores its value, fences, and draws a ticket; the last ticket adds them all.
    b = cuda.blockIdx.x
    if cuda.threadIdx.x == 0:
        partial[b] = x[b]
        cuda.threadfence()
        ticket = cuda.atomic.inc(count, 0, cuda.gridDim.x)
        if ticket == cuda.gridDim.x - 1:
            acc = np.float32(0.0)
            for k in range(cuda.gridDim.x):
                acc += partial[k]
            total[0] = acc


def last_block_sums_no_fence(x, partial, count, total):
    # The store may reach memory after the ticket: the last block may read an old value.
    b = cuda.blockIdx.x
    if cuda.threadIdx.x == 0:
        partial[b] = x[b]
        ticket = cuda.atomic.inc(count, 0, cuda.gridDim.x)
        if ticket == cuda.gridDim.x - 1:
            acc = np.float32(0.0)
            for k in range(cuda.gridDim.x):
                acc += partial[k]
            total[0] = acc


def last_block_told_through_shared(x, partial, count, total):
    # The guide's form: thread 0 draws the ticket, a barrier tells the whole block.
    last = cuda.shared.array(1, np.int32)
    b, t = cuda.blockIdx.x, cuda.threadIdx.x
    if t == 0:
        partial[b] = x[b]
        cuda.threadfence()
        last[0] = cuda.atomic.inc(count, 0, cuda.gridDim.x) == cuda.gridDim.x - 1
    cuda.syncthreads()
    if last[0] and t < cuda.gridDim.x:
        cuda.atomic.add(total, 0, partial[t])


def block_fence_only(x, partial, count, total):
    # threadfence_block orders for the block only: another block may still see an old value.
    b = cuda.blockIdx.x
    if cuda.threadIdx.x == 0:
        partial[b] = x[b]
        cuda.threadfence_block()
        if cuda.atomic.inc(count, 0, cuda.gridDim.x) == cuda.gridDim.x - 1:
            acc = np.float32(0.0)
            for k in range(cuda.gridDim.x):
                acc += partial[k]
            total[0] = acc


def last_warp_sums(x, out):
    # One level down: each warp's lane 0 stores its value, fences for the block and draws a
    # ticket from a shared counter; the warp with the last ticket adds them (no 2nd barrier).
    sums = cuda.shared.array(4, np.float32)
    ticket = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    if t == 0:
        ticket[0] = 0
    cuda.syncthreads()
    if t % 32 == 0:
        sums[t // 32] = x[t // 32]
        cuda.threadfence_block()
        if cuda.atomic.add(ticket, 0, 1) == 3:
            cuda.threadfence_block()
            acc = np.float32(0.0)
            for w in range(4):
                acc += sums[w]
            out[0] = acc


def last_warp_sums_no_fence(x, out):
    sums = cuda.shared.array(4, np.float32)
    ticket = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    if t == 0:
        ticket[0] = 0
    cuda.syncthreads()
    if t % 32 == 0:
        sums[t // 32] = x[t // 32]
        if cuda.atomic.add(ticket, 0, 1) == 3:
            acc = np.float32(0.0)
            for w in range(4):
                acc += sums[w]
            out[0] = acc


def locked_counts(values, out):
    # One spin lock per bin, taken with a CAS inside the retry loop (lanes of one warp may
    # contend), fenced after taking it and before releasing it: the count's read and write
    # are ordered between holders in different warps.
    s = cuda.shared.array(4, np.int32)
    locks = cuda.shared.array(4, np.int32)
    t = cuda.threadIdx.x
    if t < 4:
        s[t] = 0
        locks[t] = 0
    cuda.syncthreads()
    v = values[t]
    done = False
    while not done:
        if cuda.atomic.cas(locks, v, 0, 1) == 0:
            cuda.threadfence_block()
            s[v] += 1
            cuda.threadfence_block()
            cuda.atomic.exch(locks, v, 0)
            done = True
    cuda.syncthreads()
    if t < 4:
        out[t] = s[t]


def locked_counts_no_fence(values, out):
    s = cuda.shared.array(4, np.int32)
    locks = cuda.shared.array(4, np.int32)
    t = cuda.threadIdx.x
    if t < 4:
        s[t] = 0
        locks[t] = 0
    cuda.syncthreads()
    v = values[t]
    done = False
    while not done:
        if cuda.atomic.cas(locks, v, 0, 1) == 0:
            s[v] += 1
            cuda.atomic.exch(locks, v, 0)
            done = True
    cuda.syncthreads()
    if t < 4:
        out[t] = s[t]


def test_a_fenced_lock_orders_its_holders_across_warps():
    values = (np.arange(128) % 4).astype(np.int32)
    out = np.zeros(4, np.int32)
    rep = sim.launch(locked_counts, 1, 128, [values, out])
    assert rep.findings == {} and (out == 32).all()


def test_a_lock_without_fences_orders_nothing_across_warps():
    values = (np.arange(128) % 4).astype(np.int32)
    rep = sim.launch(locked_counts_no_fence, 1, 128, [values, np.zeros(4, np.int32)])
    assert rep.count("race") > 0


def test_a_block_fence_orders_a_warps_store_for_the_last_warp_of_its_block():
    x, out = np.arange(1, 5, dtype=np.float32), np.zeros(1, np.float32)
    rep = sim.launch(last_warp_sums, 1, 128, [x, out])
    assert rep.findings == {} and out[0] == 10.0


def test_without_the_block_fence_the_last_warp_reads_a_race():
    x, out = np.arange(1, 5, dtype=np.float32), np.zeros(1, np.float32)
    rep = sim.launch(last_warp_sums_no_fence, 1, 128, [x, out])
    (text, *_) = rep.findings["race"]["examples"]
    assert "read sums[" in text and "written by another thread" in text


def _run(kernel):
    x = np.arange(1, 5, dtype=np.float32)
    partial, count = np.zeros(4, np.float32), np.zeros(1, np.uint32)
    total = np.zeros(1, np.float32)
    rep = sim.launch(kernel, 4, 32, [x, partial, count, total])
    return rep, total[0]


def test_a_fence_before_the_ticket_orders_the_store_for_the_last_block():
    rep, total = _run(last_block_sums)
    assert rep.findings == {} and total == 10.0


def test_without_the_fence_the_last_block_reads_a_race():
    rep, _ = _run(last_block_sums_no_fence)
    (text, *_) = rep.findings["race"]["examples"]
    assert "read partial[0] written by another thread" in text
    assert rep.findings["race"]["count"] == 3  # the three other blocks' stores


def test_a_barrier_hands_the_ticket_to_the_whole_block():
    rep, total = _run(last_block_told_through_shared)
    assert rep.findings == {} and total == 10.0


def test_a_block_fence_does_not_order_for_other_blocks():
    rep, _ = _run(block_fence_only)
    assert rep.findings["race"]["count"] == 3

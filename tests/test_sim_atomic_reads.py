"""pdc.sim: plain reads next to atomics, and compare-and-swap loops.

A plain read that only atomics race with sees a value the element held: the CUDA guide's CAS
loop (read, then ``atomicCAS`` until it swaps) is correct on a GPU and gets no finding; a
kernel that trusts such a read sees a stale value and shows it in its outputs. A plain write
racing with an atomic is still a race. A CAS loop's retries are contention, not work.
"""

import numpy as np
from numba import float32, int32, uint32

import pdc
import pdc.sim as sim

cuda = pdc.numba_cuda()


def cas_count(x, out):
    # The guide's loop: one plain read, then CAS with what the last CAS saw.
    i = cuda.grid(1)
    if i < x.size:
        slot = int32(x[i]) % out.size
        old = out[slot]
        while True:
            seen = cuda.atomic.compare_and_swap(out[slot:], old, old + 1)
            if seen == old:
                break
            old = seen


def add_count(x, out):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(out, int32(x[i]) % out.size, 1)


def shared_cas_count(x, out):
    s = cuda.shared.array(4, int32)
    t = cuda.threadIdx.x
    if t < 4:
        s[t] = 0
    cuda.syncthreads()
    slot = int32(x[cuda.grid(1)]) % 4
    old = s[slot]  # other warps' CAS on s race with this read: it may be stale
    while True:
        seen = cuda.atomic.cas(s, slot, old, old + 1)
        if seen == old:
            break
        old = seen
    cuda.syncthreads()
    if t < 4:
        cuda.atomic.add(out, t, s[t])


def shared_add_count(x, out):
    s = cuda.shared.array(4, int32)
    t = cuda.threadIdx.x
    if t < 4:
        s[t] = 0
    cuda.syncthreads()
    cuda.atomic.add(s, int32(x[cuda.grid(1)]) % 4, 1)
    cuda.syncthreads()
    if t < 4:
        cuda.atomic.add(out, t, s[t])


def max_by_cas(x, bits):
    # An atomic max built from CAS: it stops once the word holds as much as this thread's.
    i = cuda.grid(1)
    if i < x.size:
        mine = uint32(x[i] * float32(1000.0))
        old = bits[0]
        while old < mine:
            seen = cuda.atomic.cas(bits, 0, old, mine)
            if seen == old:
                break
            old = seen


def trusts_counter(x, out):
    # The last thread reads the total while other warps may still be adding: no barrier.
    t = cuda.threadIdx.x
    cuda.atomic.add(out, 0, x[t])
    if t == cuda.blockDim.x - 1:
        out[1] = out[0]


def writes_over_atomics(x, out):
    t = cuda.threadIdx.x
    cuda.atomic.add(out, 0, x[t])
    if t == 40:
        out[0] = 0.0  # a plain store racing with the other warps' atomics


def hides_work_behind_failed_cas(x, out, lock):
    # Thread 0 walks every value, a CAS that cannot succeed before each: no retry.
    if cuda.grid(1) == 0:
        acc = 0.0
        for j in range(x.size):
            cuda.atomic.cas(lock, 0, -1, 0)
            acc += x[j]
        out[0] = acc


def run(kernel, grid, block, args):
    return sim.launch(kernel, grid, block, args)


def test_cas_loop_counts_right_with_no_finding_and_as_little_work_as_an_atomic_add():
    x = np.zeros(256, np.float32)  # every thread on one counter: the worst contention
    out = np.zeros(4, np.int32)
    rep = run(cas_count, 2, 128, [x, out])
    assert out.tolist() == [256, 0, 0, 0] and rep.findings == {}
    plain = np.zeros(4, np.int32)
    ref = run(add_count, 2, 128, [x, plain])
    # Up to 256 tries for the last thread; its retries are the queue an atomic add forms.
    assert int(rep.atomics.max()) > 32
    assert int(rep.ops.max()) <= int(ref.ops.max()) + 8


def test_shared_memory_cas_loop_is_no_race_and_its_retries_are_no_memory_work():
    x = (np.arange(256) % 3).astype(np.float32)
    out = np.zeros(4, np.int32)
    rep = run(shared_cas_count, 2, 128, [x, out])
    assert out.tolist() == np.bincount(x.astype(int), minlength=4).tolist()
    assert rep.findings == {}
    x = np.zeros(256, np.float32)  # one bin: a warp's 32 lanes retry up to 31 times
    rep = run(shared_cas_count, 2, 128, [x, np.zeros(4, np.int32)])
    ref = run(shared_add_count, 2, 128, [x, np.zeros(4, np.int32)])
    assert int(rep.work().max()) <= int(ref.work().max()) + 1  # the first plain read
    assert int(rep.ops.max()) <= int(ref.ops.max()) + 8


def test_atomic_max_by_cas():
    x = np.random.default_rng(3).random(300).astype(np.float32)
    bits = np.zeros(1, np.uint32)
    rep = run(max_by_cas, 3, 128, [x, bits])
    assert bits[0] == np.uint32(x.max() * np.float32(1000.0)) and rep.findings == {}


def test_a_trusted_read_of_an_atomic_counter_is_stale():
    x = np.ones(64, np.float32)
    out = np.zeros(2, np.float32)
    rep = run(trusts_counter, 1, 64, [x, out])
    assert out[0] == 64.0 and out[1] < 64.0  # the outputs show what a GPU may give
    # No race: a note, which costs no criterion, and which feedback on wrong outputs names.
    assert set(rep.findings) == {"stale"}
    assert "while another thread updates it atomically" in rep.findings["stale"]["examples"][0]


def test_wrong_outputs_name_a_stale_read_as_their_likely_cause():
    from types import SimpleNamespace

    from pdc.grade import judge
    from pdc.grade.judge import CaseResult

    x = np.ones(64, np.float32)
    out = np.zeros(2, np.float32)
    rep = run(trusts_counter, 1, 64, [x, out])
    case = SimpleNamespace(label="n=64")
    part = SimpleNamespace(rtol=1e-5, atol=1e-6, hints={})
    got = CaseResult(case, outputs={"out": out}, report=rep)
    text = judge.case_problem(part, got, {"out": np.array([64.0, 64.0], np.float32)})
    assert text is not None and "out differs at 1 of 2 elements" in text
    assert "maybe why: read out[0] while another thread updates it atomically" in text
    assert "data race" not in text


def test_a_plain_write_racing_with_atomics_is_a_race():
    x = np.ones(64, np.float32)
    rep = run(writes_over_atomics, 1, 64, [x, np.zeros(2, np.float32)])
    assert "race" in rep.findings


def test_work_between_cas_that_cannot_succeed_counts():
    x = np.ones(200, np.float32)
    out = np.zeros(1, np.float32)
    rep = run(hides_work_behind_failed_cas, 1, 32, [x, out, np.zeros(1, np.int32)])
    assert out[0] == 200.0
    assert int(rep.ops.max()) > 3 * 200

"""A plain write and another thread's atomic on one element, with nothing ordering them: the
element's value depends on which came first, so pdc.sim treats it as undefined until a plain
write replaces it (a read of it is undefined; a global one left so is reported at the end).

Plain functions, as in tests/sim_cases.py: pdc.sim types them with numba-cuda.
"""

import numpy as np

import pdc
import pdc.sim as sim

cuda = pdc.numba_cuda()
BINS, TPB = 64, 128


def _kinds(rep) -> dict:
    return {k: v["count"] for k, v in rep.findings.items()}


def hist_zeroed(values, hist, barrier):
    # Each thread zeroes a bin of the shared histogram; without the barrier, another warp may
    # count into a bin before its zeroing store erases the count.
    s = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    if t < 64:
        s[t] = 0
    if barrier:
        cuda.syncthreads()
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(s, values[i], 1)
    cuda.syncthreads()
    if t < 64:
        cuda.atomic.add(hist, t, s[t])


def zero_then_count(values, hist, fence):
    # Block 0 clears the global histogram while the other blocks count into it.
    i = cuda.grid(1)
    if cuda.blockIdx.x == 0:
        if cuda.threadIdx.x < hist.size:
            hist[cuda.threadIdx.x] = 0
    elif i < values.size:
        cuda.atomic.add(hist, values[i], 1)


def counted_then_reset(values, hist, unused):
    # The same race the other way round: the store comes after the atomics in the simulator's
    # order (block 1 stores, block 0 counts).
    i = cuda.grid(1)
    if cuda.blockIdx.x == 1:
        if cuda.threadIdx.x < hist.size:
            hist[cuda.threadIdx.x] = 0
    elif i < values.size:
        cuda.atomic.add(hist, values[i], 1)


def test_a_shared_bin_zeroed_while_others_count_is_undefined():
    values = (np.arange(256) % BINS).astype(np.int64)
    hist = np.zeros(BINS, np.int32)
    rep = sim.launch(hist_zeroed, 2, TPB, (values, hist, False))
    kinds = _kinds(rep)
    assert kinds.get("race") and kinds.get("uninitialized"), kinds
    text = rep.findings["uninitialized"]["examples"][0]
    assert "written by one thread and updated atomically by another" in text
    hist = np.zeros(BINS, np.int32)
    rep = sim.launch(hist_zeroed, 2, TPB, (values, hist, True))
    assert _kinds(rep) == {} and (hist == 4).all()


def test_a_global_element_left_mixed_is_reported_at_the_end_in_either_order():
    values = (np.arange(3 * TPB) % BINS).astype(np.int64)
    for kernel in (zero_then_count, counted_then_reset):
        rep = sim.launch(kernel, 3, TPB, (values, np.ones(BINS, np.int32), 0))
        kinds = _kinds(rep)
        assert kinds.get("race") and kinds.get("uninitialized"), (kernel.__name__, kinds)
        text = rep.findings["uninitialized"]["examples"][0]
        assert "ends the kernel with an undefined value" in text, text


def test_a_store_after_a_barrier_defines_the_element_again():
    # Racing once, then written under a barrier: the element holds what the write stored.
    def kernel(values, hist, unused):
        s = cuda.shared.array(64, np.int32)
        t = cuda.threadIdx.x
        if t < 64:
            s[t] = 0
        cuda.atomic.add(s, t % 64, 1)  # races with the zeroing store of another thread
        cuda.syncthreads()
        if t < 64:
            s[t] = 7
        cuda.syncthreads()
        if t < 64:
            hist[t] = s[t]

    hist = np.zeros(BINS, np.int32)
    rep = sim.launch(kernel, 1, TPB, (np.zeros(1, np.int64), hist, 0))
    assert set(_kinds(rep)) == {"race"} and (hist == 7).all()


def test_feedback_names_a_race_origin_as_undefined_not_uninitialised():
    # The same finding kind, two origins: memory never written is uninitialised; a value a
    # race left undefined was written, and the feedback must not send a student looking for
    # a missing initialisation.
    from pdc.grade.judge import undefined_title

    values = (np.arange(256) % BINS).astype(np.int64)
    rep = sim.launch(hist_zeroed, 2, TPB, (values, np.zeros(BINS, np.int32), False))
    race = rep.findings["uninitialized"]["examples"][0]
    assert undefined_title(race) == "use of an undefined value", race

    def unzeroed(values, hist, unused):
        s = cuda.shared.array(64, np.int32)
        cuda.atomic.add(s, values[cuda.grid(1)], 1)
        cuda.syncthreads()
        if cuda.threadIdx.x < 64:
            hist[cuda.threadIdx.x] = s[cuda.threadIdx.x]

    rep = sim.launch(unzeroed, 2, TPB, (values, np.zeros(BINS, np.int32), 0))
    never = rep.findings["uninitialized"]["examples"][0]
    assert undefined_title(never) == "read of uninitialised memory", never

"""Operations per thread, their longest stretch between barriers, and sectors per warp request
on pdc.sim (pdc.sim.work, pdc.sim.analysis).

The kernels are plain functions, as in tests/sim_cases.py: pdc.sim types them with
numba-cuda when it launches them.
"""

import numpy as np
from numba import cuda

import pdc.sim as sim


def scale(x, out):
    i = cuda.grid(1)  # free: geometry
    if i < x.size:  # 1 comparison
        out[i] = x[i] * 2.0 + 1.0  # 1 load, 2 arithmetic, 1 store


def lane_zero_sums(x, out):
    # Every lane makes the 31 shuffles, lane 0 also the 31 additions.
    lane = cuda.threadIdx.x % 32
    v = x[cuda.threadIdx.x]
    acc = v
    for j in range(1, 32):
        other = cuda.shfl_sync(0xFFFFFFFF, v, j)
        if lane == 0:
            acc += other
    if lane == 0:
        out[cuda.threadIdx.x // 32] = acc


def tree_sums(x, out):
    # The same sums by five shuffles per lane.
    v = x[cuda.threadIdx.x]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.threadIdx.x % 32 == 0:
        out[cuda.threadIdx.x // 32] = v


def walk_between_barriers(x, out):
    # Thread 0 walks 16 values between two barriers; the others wait for it.
    s = cuda.shared.array(64, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncthreads()
    if t == 0:
        acc = np.float32(0.0)
        for j in range(16):
            acc += s[j]
        s[0] = acc
    cuda.syncthreads()
    out[t] = s[t]


def strided_among_coalesced(a, out):
    # One strided load (down a column) and sixteen coalesced ones (along a row).
    t = cuda.threadIdx.x
    acc = a[t, 0]
    for _ in range(16):
        acc += a[0, t]
    out[t] = acc


def test_operations_are_counted_per_thread():
    x = np.arange(40, dtype=np.float32)
    out = np.zeros_like(x)
    rep = sim.launch(scale, 2, 32, [x, out])
    np.testing.assert_array_equal(out, x * 2 + 1)
    assert rep.ops.shape == (64,)
    assert rep.ops[:40].tolist() == [5] * 40  # compare, load, multiply, add, store
    assert rep.ops[40:].tolist() == [1] * 24  # the comparison only
    np.testing.assert_array_equal(rep.span, rep.ops)  # no barrier: one stretch


def test_a_lane_that_adds_its_warp_alone_makes_more_operations_than_a_tree():
    x = np.arange(64, dtype=np.float32)
    serial, tree = np.zeros(2, np.float32), np.zeros(2, np.float32)
    a = sim.launch(lane_zero_sums, 1, 64, [x, serial])
    b = sim.launch(tree_sums, 1, 64, [x, tree])
    np.testing.assert_array_equal(serial, tree)
    assert serial.tolist() == [x[:32].sum(), x[32:].sum()]
    # Memory accesses alone do not tell them apart: a load each, one store per warp.
    assert a.work().max() == b.work().max() == 2
    # Lane 0: 31 shuffles, 31 additions, 31 loop steps and the lane tests; the tree: 5 steps.
    assert a.ops[0] > 3 * 31 and b.ops.max() < 40
    assert a.ops[0] > a.ops[1]  # only lane 0 adds


def test_span_is_the_longest_stretch_between_barriers():
    x = np.ones(64, np.float32)
    out = np.zeros(64, np.float32)
    rep = sim.launch(walk_between_barriers, 1, 64, [x, out])
    assert out[0] == 16 and out[1] == 1
    # Thread 0: 16 loads, additions and loop steps between its two barriers.
    assert rep.span[0] >= 3 * 16
    # The others: a load and a store before the first barrier, a test between, two after.
    assert rep.span[1:].max() <= 3
    assert rep.ops[0] > rep.span[0]  # its other stretches count in ops, not in its span


def warp_levels(x, out, mask):
    # A tree over one warp's 32 values in shared memory: five levels, each ordered by a
    # syncwarp(mask); lane 0 does a step at every level.
    s = cuda.shared.array(32, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncwarp()
    d = 16
    while d > 0:
        if t < d:
            s[t] += s[t + d]
        cuda.syncwarp(mask)
        d //= 2
    if t == 0:
        out[0] = s[0]


def test_a_whole_warp_syncwarp_ends_a_stretch_of_the_span_and_a_one_lane_one_does_not():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(1, np.float32)
    whole = sim.launch(warp_levels, 1, 32, [x, out, np.uint32(0xFFFFFFFF)])
    assert out[0] == x.sum()
    # Lane 0's levels are a whole-warp barrier apart: each stretch is one level's step.
    assert whole.span[0] < whole.ops[0] // 4
    # syncwarp(1) names lane 0 only: it orders nothing (a race) and ends no stretch.
    one = sim.launch(warp_levels, 1, 32, [x, np.zeros(1, np.float32), np.uint32(1)])
    assert one.span[0] >= one.ops[0] - 8
    assert "race" in one.findings, sorted(one.findings)


def test_sectors_per_request_find_a_strided_instruction_among_coalesced_ones():
    a = np.ones((32, 32), np.float32)
    out = np.zeros(32, np.float32)
    rep = sim.launch(strided_among_coalesced, 1, 32, [a, out])
    assert out.tolist() == [17.0] * 32
    total = rep.sectors["a:load"]
    # Per array, the 16 coalesced requests dilute the strided one: 96 sectors, ideal 68.
    assert (total["accesses"], total["sectors"], total["ideal"]) == (17, 96, 68)
    loads = {k: v for k, v in rep.requests.items() if k.startswith("a:load:")}
    strided = [v for v in loads.values() if v["over"]]
    assert len(loads) == 2 and len(strided) == 1
    (s,) = strided
    assert (s["requests"], s["sectors"], s["ideal"], s["over"], s["worst"]) == (1, 32, 4, 1, 28)
    store = rep.requests[next(k for k in rep.requests if k.startswith("out:store:"))]
    assert store["over"] == 0 and store["sectors"] == store["ideal"] == 4

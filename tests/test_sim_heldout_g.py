"""pdc.sim on held-out submissions' warp patterns: lanes that exited may be named in a warp
intrinsic's mask (the CUDA programming guide asks it only of "all non-exited threads named in
mask"), but not read; a syncwarp orders each lane with the lanes its own mask names; the lanes
a mask names must pass that same mask.

Plain functions, as in tests/sim_cases.py: pdc.sim types them with numba-cuda.
"""

import numpy as np

import pdc
import pdc.sim as sim

cuda = pdc.numba_cuda()
FULL = 0xFFFFFFFF


def _kinds(rep) -> dict:
    return {k: v["count"] for k, v in rep.findings.items()}


def scan_after_return(x, out):
    # Lanes past the end exit; the full mask names them, but shfl_up reads lower lanes only.
    i = cuda.grid(1)
    if i >= x.size:
        return
    v = x[i]
    d = 1
    while d < 32:
        up = cuda.shfl_up_sync(FULL, v, d)
        if cuda.laneid >= d:
            v += up
        d *= 2
    out[i] = v


def votes_after_return(x, out):
    i = cuda.grid(1)
    if i >= x.size:
        return
    v = int(x[i])
    peers = cuda.match_any_sync(FULL, v)  # only lanes still running are grouped
    odd = cuda.ballot_sync(FULL, v % 2 == 1)
    cuda.syncwarp(FULL)
    out[i] = cuda.popc(peers) * 100 + cuda.popc(odd)


def reads_a_lane_that_left(x, out):
    i = cuda.grid(1)
    if i >= x.size:
        return
    v = x[i] + cuda.shfl_down_sync(FULL, x[i], 16)  # lanes 4-15 read lanes 20-31: gone
    out[i] = v


def named_lanes_wait_elsewhere(x, out):
    # Lanes 4-31 skip the branch and are still running after it: not exited.
    t = cuda.threadIdx.x
    v = x[t]
    if t < 4:
        v += cuda.shfl_down_sync(FULL, v, 1)
    out[t] = v


def half_warps_sync_apart(x, out):
    s = cuda.shared.array(32, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncwarp(0xFFFF << (16 * (t // 16)))  # each half-warp names its own 16 lanes
    partner = t ^ 1  # always in the same half
    out[t] = s[partner]


def half_warps_disagree(x, out):
    t = cuda.threadIdx.x
    mask = 0xFFFF if t < 16 else FULL  # lanes 16-31 name lanes 0-15, which pass 0xffff
    out[t] = cuda.shfl_xor_sync(mask, x[t], 1)


def test_lanes_that_exited_may_be_named_in_a_mask():
    x = np.arange(40, dtype=np.float32)
    out = np.zeros(40, np.float32)
    rep = sim.launch(scan_after_return, 2, 32, (x, out))
    assert _kinds(rep) == {}
    expected = np.concatenate([np.cumsum(x[:32]), np.cumsum(x[32:])])
    np.testing.assert_array_equal(out, expected)


def test_votes_matches_and_syncwarp_after_an_early_return():
    x = np.array([3, 3, 4, 5, 3, 4, 8, 9, 3, 1], dtype=np.float32)
    out = np.zeros(10, np.float32)
    rep = sim.launch(votes_after_return, 1, 32, (x, out))
    assert _kinds(rep) == {}
    odd = int((x % 2 == 1).sum())
    np.testing.assert_array_equal(out, [(x == v).sum() * 100 + odd for v in x])


def test_reading_a_lane_that_exited_is_undefined():
    x = np.arange(20, dtype=np.float32)
    out = np.zeros(20, np.float32)
    rep = sim.launch(reads_a_lane_that_left, 1, 32, (x, out))
    assert "warp" not in rep.findings
    assert rep.count("uninitialized") == 12  # lanes 4-15 store what they read
    assert "from lane 20" in rep.findings["uninitialized"]["examples"][0]


def test_lanes_still_running_elsewhere_may_not_be_named():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    rep = sim.launch(named_lanes_wait_elsewhere, 1, 32, (x, out))
    assert rep.count("warp") == 4
    assert "are not here" in rep.findings["warp"]["examples"][0]


def test_syncwarp_orders_each_lane_with_the_lanes_of_its_own_mask():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    rep = sim.launch(half_warps_sync_apart, 1, 32, (x, out))
    assert _kinds(rep) == {}  # lanes 16-31 synced with their mask, not lane 0's
    np.testing.assert_array_equal(out, x[np.arange(32) ^ 1])


def test_lanes_named_in_a_mask_must_pass_the_same_mask():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    rep = sim.launch(half_warps_disagree, 1, 32, (x, out))
    assert rep.count("warp") == 16
    assert "pass another mask (0xffff)" in rep.findings["warp"]["examples"][0]

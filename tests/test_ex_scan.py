"""Exercise 08_scan: its spec, cases and judges (pdc.grade.exercises.ex08_scan).

The judges are tested on hand-made report objects; small launches on the instrumented
simulator tie the work judge to what it counts for Blelloch's and Hillis-Steele's scans.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pdc
from pdc.grade import exercises as exs
from pdc.grade.exercises import ex08_scan as exs_scan
from pdc.grade.judge import CaseResult

EX = exs.exercise("08_scan")
BLOCK_SCAN, ADD_OFFSETS = EX.parts
TPB = exs_scan.TPB


class FakeReport:
    """The parts of a LaunchReport the scan judges read: memory accesses per thread."""

    def __init__(self, work, ops=None, span=None):
        self._work = np.asarray(work, np.int64)
        self.shared_stores = np.ones_like(self._work)  # one each: the tile stored once
        self.findings: dict = {}
        self.ops, self.span = ops, span  # operations per thread (pdc.grade.profile)

    def work(self) -> np.ndarray:
        return self._work

    def count(self, kind: str) -> int:
        return 0


def _result(work, sizes=(1000,), hidden=False, k=1, ops=None, span=None):
    case = BLOCK_SCAN.make(np.random.default_rng(0), sizes)
    if hidden:
        case.hidden, case.label = True, f"hidden case {k}"
    return CaseResult(case, outputs={}, report=FakeReport(work, ops, span))


# -- spec and cases -------------------------------------------------------------------------
def test_values_are_nonzero_small_quarters_in_float32():
    v = exs_scan.values(np.random.default_rng(0), 5000)
    assert v.dtype == np.float32 and (v != 0).all() and np.abs(v).max() <= 9
    assert (v * 4 == np.round(v * 4)).all() and (v < 0).any() and (v > 0).any()
    # Not all whole numbers: a kernel that scans in an integer tile must be caught.
    assert (v != np.round(v)).mean() > 0.5
    # Every prefix sum is exact in float32, whatever the order of the additions.
    assert np.array_equal(np.cumsum(v, dtype=np.float32), np.cumsum(v, dtype=np.float64))


def test_block_scan_spec_scans_each_tile_and_totals_it():
    x = np.arange(1, 2 * TPB + 4, dtype=np.float32)  # two full tiles and three elements
    out, sums = exs_scan.block_scan_spec(x)
    assert out.shape == x.shape and sums.shape == (3,)
    assert out.dtype == sums.dtype == np.float32
    assert out[0] == 1 and out[TPB - 1] == TPB * (TPB + 1) / 2
    assert out[TPB] == TPB + 1  # the second tile starts again
    assert sums[2] == x[-3:].sum() and sums[0] == out[TPB - 1]
    out1, sums1 = exs_scan.block_scan_spec(np.ones(1, np.float32))
    assert out1.tolist() == [1.0] and sums1.tolist() == [1.0]


@pytest.mark.parametrize("n", [1, 5, TPB - 1, TPB, TPB + 1, 1000, TPB * TPB])
def test_the_three_steps_make_np_cumsum(n):
    """block_scan, block_scan of the totals, add_block_offsets: the whole inclusive scan."""
    x = exs_scan.values(np.random.default_rng(n), n)
    scans, sums = exs_scan.block_scan_spec(x)
    offsets, _ = exs_scan.block_scan_spec(sums)  # one block: at most TPB totals
    whole = exs_scan.add_offsets_spec(scans, offsets)
    assert np.array_equal(whole, np.cumsum(x)) and np.array_equal(whole, exs_scan.scan_spec(x))


def test_add_offsets_cases_are_graded_against_np_cumsum():
    for rng_seed in range(5):
        rng = np.random.default_rng(rng_seed)
        state = rng.bit_generator.state
        case = ADD_OFFSETS.make(rng, (777,))
        rng.bit_generator.state = state
        x = exs_scan.values(rng, 777)  # make() draws x first, from the same generator
        assert np.array_equal(ADD_OFFSETS.reference(case.args)["out"], np.cumsum(x))
        assert np.array_equal(case.args["out"], exs_scan.block_scan_spec(x)[0])


def test_launch_and_cases():
    assert exs_scan.launch(1) == ((1,), (TPB,))
    assert exs_scan.launch(TPB + 1) == ((2,), (TPB,))
    for c in exs.public_cases(BLOCK_SCAN):
        assert c.outputs == ("out", "block_sums")
        assert c.args["block_sums"].size == c.grid[0] == max(1, math.ceil(c.dims["n"] / TPB))
    for c in exs.public_cases(ADD_OFFSETS):
        assert c.outputs == ("out",) and c.args["offsets"].size == c.grid[0]


@pytest.mark.parametrize("seed", range(10))
def test_hidden_sizes_are_awkward_and_a_stub_never_passes(seed):
    rng = np.random.default_rng(seed)
    sizes = [c.dims["n"] for c in exs.hidden_cases(BLOCK_SCAN, rng)]
    assert 1 in sizes and any(n % TPB == TPB - 1 for n in sizes)
    assert any(n % TPB == 1 and n > 1 for n in sizes)
    assert max(sizes) <= 8 * TPB + 1  # a few blocks: the simulator stays fast
    for c in exs.hidden_cases(ADD_OFFSETS, rng):
        assert c.hidden and c.dims["n"] > TPB  # one block would leave nothing to add
        # A kernel that does nothing leaves the per-block scans, which must be wrong.
        assert not np.array_equal(ADD_OFFSETS.reference(c.args)["out"], c.args["out"])


# -- judges ----------------------------------------------------------------------------------
def test_work_judge_counts_accesses_per_block():
    blocks = 8
    even = np.full(blocks * TPB, exs_scan.WORK_PER_ELEMENT, np.int64)
    frac, msg = exs_scan._work_efficient(BLOCK_SCAN, [_result(even)])
    bound = exs_scan.WORK_PER_ELEMENT * TPB
    assert frac == 1.0 and f"at most {bound} memory accesses per block" in msg
    # One block over the bound fails, even if the others are frugal.
    uneven = np.full(blocks * TPB, 4, np.int64)
    uneven[3 * TPB : 4 * TPB] = 24
    frac, msg = exs_scan._work_efficient(BLOCK_SCAN, [_result(uneven)])
    assert frac == 0.0
    assert f"case n=1000: a block made {24 * TPB} memory accesses (24.0 per element)" in msg
    assert "Hillis-Steele" in msg
    frac, msg = exs_scan._work_efficient(BLOCK_SCAN, [_result(uneven, hidden=True, k=2)])
    assert msg == "hidden case 2: not work-efficient"


def test_parallel_judge_bounds_one_thread():
    bound = exs_scan.MAX_THREAD_WORK
    assert 63 < bound < 2 * TPB  # Blelloch's busiest thread fits; a serial loop does not
    work = np.full(8 * TPB, 10, np.int64)
    assert exs_scan._spread(BLOCK_SCAN, [_result(work)])[0] == 1.0
    work[0] = 2 * TPB + 5
    frac, msg = exs_scan._spread(BLOCK_SCAN, [_result(work)])
    assert frac == 0.0 and f"one thread made {2 * TPB + 5} memory accesses" in msg
    frac, msg = exs_scan._spread(BLOCK_SCAN, [_result(work, hidden=True, k=4)])
    assert msg == "hidden case 4: one thread does the work of many"


def test_parallel_judge_bounds_the_work_between_barriers():
    """Few memory accesses, but one lane walks 16 values between two barriers."""
    work = np.full(8 * TPB, 10, np.int64)
    ops = np.full(8 * TPB, BLOCK_SCAN.model_ops, np.int64)
    span = np.full(8 * TPB, BLOCK_SCAN.model_span, np.int64)
    assert exs_scan._spread(BLOCK_SCAN, [_result(work, ops=ops, span=span)])[0] == 1.0
    span[16] = 133  # measured: gaming_scan_one_lane_per_half_warp
    frac, msg = exs_scan._spread(BLOCK_SCAN, [_result(work, ops=ops, span=span)])
    assert frac == 0.0 and "one thread made 133 operations between two barriers" in msg


# -- the work judge against the simulator -----------------------------------------------------
cuda = pdc.numba_cuda()


def blelloch(x, out, block_sums):
    s = cuda.shared.array(TPB, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else np.float32(0.0)
    s[t] = v
    cuda.syncthreads()
    d = 1
    while d < TPB:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            s[k] += s[k - d]
        d *= 2
        cuda.syncthreads()
    if t == 0:
        block_sums[cuda.blockIdx.x] = s[TPB - 1]
        s[TPB - 1] = 0.0
    cuda.syncthreads()
    d = TPB // 2
    while d > 0:
        k = (t + 1) * 2 * d - 1
        if k < TPB:
            left = s[k - d]
            s[k - d] = s[k]
            s[k] += left
        d //= 2
        cuda.syncthreads()
    if i < x.size:
        out[i] = s[t] + v


def hillis_steele(x, out, block_sums):
    s = cuda.shared.array(TPB, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else np.float32(0.0)
    cuda.syncthreads()
    d = 1
    while d < TPB:
        left = s[t - d] if t >= d else np.float32(0.0)
        cuda.syncthreads()  # everyone has read before anyone writes
        s[t] += left
        cuda.syncthreads()
        d *= 2
    if i < x.size:
        out[i] = s[t]
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = s[t]


def hillis_steele_in_registers(x, out, block_sums):
    """Hillis-Steele whose running sum stays in a register: 2 accesses per level."""
    s = cuda.shared.array(TPB, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else np.float32(0.0)
    d = 1
    while d < TPB:
        s[t] = v
        cuda.syncthreads()
        if t >= d:
            v += s[t - d]
        cuda.syncthreads()
        d *= 2
    if i < x.size:
        out[i] = v
    if t == TPB - 1:
        block_sums[cuda.blockIdx.x] = v


@pytest.mark.parametrize(
    "fn, efficient",
    [(blelloch, True), (hillis_steele, False), (hillis_steele_in_registers, False)],
)
def test_work_judge_tells_blelloch_from_hillis_steele(fn, efficient):
    import pdc.sim as sim

    case = BLOCK_SCAN.make(np.random.default_rng(3), (300,))
    args = [a.copy() for a in case.args.values()]
    rep = sim.launch(fn, case.grid, case.block, args, list(case.args))
    assert not rep.findings
    expected = BLOCK_SCAN.reference(case.args)
    assert np.array_equal(args[1], expected["out"])
    assert np.array_equal(args[2], expected["block_sums"])
    result = CaseResult(case, {}, rep)
    frac, text = exs_scan._work_efficient(BLOCK_SCAN, [result])
    assert frac == float(efficient), text
    if fn is hillis_steele_in_registers:  # under the access bound, over the store bound
        assert int(rep.work().reshape(-1, TPB).sum(axis=1).max()) <= 16 * TPB
        assert "values to shared memory (7.0 per element)" in text
    assert exs_scan._spread(BLOCK_SCAN, [result])[0] == 1.0  # all are parallel

"""Exercise 10_warp_reduce: its spec, cases and judges (pdc.grade.exercises.ex10_warp_reduce).

The judges are tested on hand-made launch reports; two small kernels (one and two blocks) run
on the instrumented simulator to tie the masks criterion to the findings it reads.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pdc
import pdc.sim as sim
from pdc.grade import exercises as exs
from pdc.grade.exercises import ex10_warp_reduce as exw
from pdc.grade.judge import CaseResult, judge
from pdc.grade.simreport import Dim3, LaunchReport

EX = exs.exercise("10_warp_reduce")
(PART,) = EX.parts
TPB, WARPS = exw.TPB, exw.WARPS

cuda = pdc.numba_cuda()  # kernels are typed by numba-cuda (in pdc.sim's worker without a GPU)
float32 = np.float32
FULL_MASK = 0xFFFFFFFF


def model(x, partial):
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v


def partial_warp(x, partial):
    """Right sums, but warp 0's second stage runs in 4 lanes under the full mask while the
    other 28 wait after it (they have not exited)."""
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for offset in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
    if t % 32 == 0:
        warp_sums[t // 32] = v
    cuda.syncthreads()
    if t < WARPS:
        v = warp_sums[t]
        for offset in (2, 1):
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
    if t == 0:
        partial[cuda.blockIdx.x] = v


def _case(n=300, hidden=False, k=1):
    case = PART.make(np.random.default_rng(0), (n,))
    if hidden:
        case.hidden, case.label = True, f"hidden case {k}"
    return case


def _report(case, *, loads=1, shared=2, atomics=0, barriers=1, warp=None):
    """A LaunchReport as the grader rebuilds it: per-thread counters, findings, barriers."""
    rep = LaunchReport(grid=Dim3(case.grid[0], 1, 1), block=Dim3(TPB, 1, 1))
    n = rep.nthreads
    rep.loads = {"x": np.full(n, loads, np.int64), "partial": np.zeros(n, np.int64)}
    rep.shared_loads = np.full(n, shared // 2, np.int64)
    rep.shared_stores = np.full(n, shared - shared // 2, np.int64)
    rep.atomics = np.zeros(n, np.int64)
    rep.atomics[:atomics] = 1  # all in block 0
    rep.barriers = barriers
    if warp:
        rep.findings["warp"] = {"count": 3, "examples": [warp]}
    return rep


def _result(report=None, **case_kw):
    case = _case(**case_kw)
    return CaseResult(case, outputs={}, report=report or _report(case))


def _judge(criterion, *results):
    return PART.judges[criterion](PART, list(results))


# -- spec and cases -----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 5, 31, 33, TPB, TPB + 1, 3 * TPB - 7])
def test_spec_sums_each_block_with_zeros_past_the_end(n):
    x = np.random.default_rng(n).uniform(-1, 1, n).astype(np.float32)
    got = exw.warp_reduce_spec(x)
    assert got.shape == (math.ceil(n / TPB),) and got.dtype == np.float32
    for b in range(got.size):
        assert got[b] == pytest.approx(float(x[b * TPB : (b + 1) * TPB].sum()), abs=1e-5)


def test_registered_under_its_key_and_kernel_name():
    assert EX is exw.WARP_REDUCE and EX.constants == {"TPB": 128, "WARPS": 4}
    assert exs.find_part("block_sum_warp") == (EX, PART)
    assert set(PART.judges) <= set(PART.points) and set(PART.judges) <= set(PART.titles)


def test_cases_launch_one_thread_per_element_in_blocks_of_tpb():
    for n in (1, 37, 1000):
        case = _case(n)
        assert case.block == (TPB,) and case.grid == (math.ceil(n / TPB),)
        assert case.args["x"].shape == (n,) and case.args["partial"].shape == case.grid
        assert case.outputs == ("partial",) and not case.args["partial"].any()


def test_hidden_sizes_end_inside_a_warp_and_stay_small():
    sizes = [s for seed in range(40) for (s,) in PART.hidden(np.random.default_rng(seed))]
    assert 1 in sizes
    assert any(s % 32 for s in sizes if s > 1)  # a partial warp besides n = 1
    assert any(s % 32 == 0 and s % TPB for s in sizes)  # whole warps, a partial block
    assert any(s % TPB in (1, TPB - 1) for s in sizes)  # a lane short of or past a block
    assert max(sizes) <= 5 * TPB  # a few blocks: the simulator is slow


def test_hidden_cases_are_drawn_from_the_seed():
    a = exs.hidden_cases(PART, np.random.default_rng(7))
    b = exs.hidden_cases(PART, np.random.default_rng(7))
    assert [c.dims for c in a] == [c.dims for c in b]
    assert all(c.hidden and c.label.startswith("hidden case") for c in a)


# -- judges on hand-made reports ------------------------------------------------------------------
EXITED = (
    "shfl (down) reads lane 4, which is not at this call (exited or elsewhere): its value is "
    "undefined (block (0, 0, 0) thread (2, 0, 0), block_sum_warp line 16)"
)
LEFT_OUT = "down called by a lane that its own mask 0x0000ffff leaves out (block (0, 0, 0))"


def test_masks_pass_without_warp_findings():
    frac, text = _judge("masks", _result(), _result(hidden=True))
    assert frac == 1.0 and "mask" in text


def test_masks_explain_a_lane_that_left_and_a_mask_that_leaves_lanes_out():
    case = _case()
    frac, text = _judge("masks", _result(_report(case, warp=EXITED)))
    assert frac == 0.0 and "case n=300: 3 warp collectives that read an inactive lane" in text
    assert "never execute this shuffle" in text
    frac, text = _judge("masks", _result(_report(case, warp=LEFT_OUT)))
    assert frac == 0.0 and "leaves that lane out" in text


def test_masks_on_a_hidden_case_name_no_sizes_or_threads():
    case = _case(hidden=True, k=2)
    frac, text = _judge("masks", CaseResult(case, outputs={}, report=_report(case, warp=EXITED)))
    assert frac == 0.0 and text.splitlines()[-1].startswith("hidden case 2: ")
    assert "thread" not in text and "3" not in text and "n=" not in text


def test_mask_hint_has_a_fallback():
    assert "undefined" in exw.mask_hint("something the simulator says one day")


def test_barriers_allow_one_and_report_more():
    assert _judge("barriers", _result())[0] == 1.0
    case = _case()
    frac, text = _judge("barriers", _result(_report(case, barriers=0)))
    assert frac == 1.0
    frac, text = _judge("barriers", _result(_report(case, barriers=8)))
    assert frac == 0.0 and "passed 8 barriers" in text
    hidden = _case(hidden=True)
    frac, text = _judge("barriers", CaseResult(hidden, {}, _report(hidden, barriers=8)))
    assert frac == 0.0 and "8" not in text


@pytest.mark.parametrize(
    "shared, atomics, passes",
    [(2, 0, True), (exw.MAX_SHARED, WARPS, True), (23, 0, False), (2, TPB, False)],
)
def test_registers_bound_shared_accesses_and_atomics(shared, atomics, passes):
    case = _case()
    frac, text = _judge("registers", _result(_report(case, shared=shared, atomics=atomics)))
    assert (frac == 1.0) is passes, text
    if shared > exw.MAX_SHARED:
        assert f"made {shared} shared-memory accesses" in text
    elif not passes:
        assert f"made {atomics} atomic operations" in text


def test_parallel_counts_loads_of_x_per_thread():
    case = _case()
    assert _judge("parallel", _result(_report(case, loads=1)))[0] == 1.0
    serial = _report(case)
    serial.loads["x"][0] = TPB
    frac, text = _judge("parallel", _result(serial))
    assert frac == 0.0 and f"loaded {TPB} elements of x" in text


def test_own_criteria_wait_for_the_public_cases():
    case = _case()
    bad = _report(case, barriers=8, warp=EXITED)
    result = CaseResult(case, outputs={"partial": np.zeros_like(case.args["partial"]) + 99})
    result.report = bad
    verdicts = {v.criterion: v for v in judge(PART, [result], [PART.reference(case.args)])}
    for criterion in ("masks", "barriers", "registers", "parallel"):
        assert verdicts[criterion].score == 0
        assert "not awarded until the public cases pass" in verdicts[criterion].output
    assert "passed 8 barriers" in verdicts["barriers"].output


# -- the judges on what the simulator measures -------------------------------------------------
def _simulate(kernel, n):
    case = _case(n)
    args = [a.copy() for a in case.args.values()]
    rep = sim.launch(kernel, case.grid, case.block, args, list(case.args))
    return case, CaseResult(case, outputs={"partial": args[1]}, report=rep)


def test_model_kernel_earns_every_own_criterion():
    case, result = _simulate(model, TPB + 37)
    np.testing.assert_allclose(
        result.outputs["partial"], PART.reference(case.args)["partial"], atol=1e-5
    )
    for criterion in PART.judges:
        frac, text = _judge(criterion, result)
        assert frac == 1.0, (criterion, text)


def thread_zero_adds_warp_sums(x, partial):
    """Warp stages by shuffles; thread 0 then reads and adds the WARPS warp sums itself."""
    warp_sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for offset in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
    if t % 32 == 0:
        warp_sums[t // 32] = v
    cuda.syncthreads()
    if t == 0:
        total = float32(0.0)
        for w in range(WARPS):
            total += warp_sums[w]
        partial[cuda.blockIdx.x] = total


def test_thread_zero_adding_the_warp_sums_keeps_the_warp_stage_in_registers():
    case, result = _simulate(thread_zero_adds_warp_sums, TPB + 37)
    np.testing.assert_allclose(
        result.outputs["partial"], PART.reference(case.args)["partial"], atol=1e-5
    )
    shared = result.report.shared_loads + result.report.shared_stores
    assert int(shared.max()) == 1 + WARPS  # its own warp's sum stored, WARPS sums read
    assert _judge("registers", result) == (1.0, _judge("registers", result)[1])


def test_partial_warp_with_full_mask_fails_masks_only():
    case, result = _simulate(partial_warp, 37)
    np.testing.assert_allclose(
        result.outputs["partial"], PART.reference(case.args)["partial"], atol=1e-5
    )
    frac, text = _judge("masks", result)
    assert frac == 0.0 and "named in the mask are not here" in text
    assert _judge("barriers", result)[0] == _judge("registers", result)[0] == 1.0

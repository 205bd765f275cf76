"""The model answers' operations per thread, as the parts record them (pdc.grade.profile).

``Part.model_ops`` and ``Part.model_span`` are measured, not chosen: this test runs every
solution kernel that has them on pdc.sim (in a fresh process, as the grader runs kernels),
over the public cases and one draw of hidden ones, and checks the recorded numbers are the
busiest thread's.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pdc
import pdc.sim as sim
from pdc.grade import exercises as exs
from pdc.grade import judge, profile
from pdc.grade.judge import CaseResult

ROOT = Path(__file__).resolve().parents[1]


def test_recorded_profiles_are_the_model_answers():
    # numba-cuda's real target types the kernels, as in the grader's child (a test that ran
    # before may have switched numba to its simulator in this process's environment).
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run(
        [sys.executable, "-m", "pdc.grade.profile"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    measured = json.loads(run.stdout.strip().splitlines()[-1])
    recorded = {}
    for key in exs.ALL_KEYS:
        for part in exs.exercise(key).parts:
            if part.model_ops is not None or part.model_span is not None:
                recorded[part.name] = [part.model_ops, part.model_span]
    assert {"multiply", "saxpy", "block_scan", "block_sum_warp"} <= set(recorded)
    assert measured == recorded


def test_budget_leaves_the_stated_margin():
    assert profile.budget(26) == profile.MARGIN * 26 + profile.SLACK == 60


# -- a part judged against a peer's model answer too (Part.model_peers) ----------------------
cuda = pdc.numba_cuda()  # kernels are typed by numba-cuda (in pdc.sim's worker without a GPU)
float32 = np.float32
FULL_MASK = 0xFFFFFFFF
WARPS = 4  # exercise 5's block of 128 threads


def warp_stages(x, partial):
    """Exercise 5's block sum in exercise 10's style: five shuffle levels, one barrier."""
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    for offset in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(FULL_MASK, v, offset)
    if t % 32 == 0:
        sums[t // 32] = v
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = sums[0] + sums[1] + sums[2] + sums[3]


def lane_zero_gathers(x, partial):
    """Right sums, but lane 0 pulls its warp's 31 other values one shuffle at a time."""
    sums = cuda.shared.array(WARPS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    acc = v
    for k in range(1, 32):
        w = cuda.shfl_sync(FULL_MASK, v, k)
        if t % 32 == 0:
            acc += w
    if t % 32 == 0:
        sums[t // 32] = acc
    cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = sums[0] + sums[1] + sums[2] + sums[3]


@pytest.mark.parametrize("kernel, spread", [(warp_stages, True), (lane_zero_gathers, False)])
def test_reduction_span_is_judged_against_the_warp_shuffle_peer_too(kernel, spread):
    (part,) = exs.exercise("05_reduction").parts
    assert part.model_peers == ("block_sum_warp",) and part.model_ops is None
    case = part.make(np.random.default_rng(0), (300,))
    args = [a.copy() for a in case.args.values()]
    rep = sim.launch(kernel, case.grid, case.block, args, list(case.args))
    np.testing.assert_allclose(args[1], part.reference(case.args)["partial"], atol=1e-5)
    frac, text = judge._parallel(part, [CaseResult(case, outputs={"partial": args[1]}, report=rep)])
    assert (frac == 1.0) == spread, text
    if not spread:
        assert "operations between two barriers" in text


# -- balance: a part that judges the busiest thread against the busy ones (Part.imbalance) ---
def _result(ops: list[int], work: list[int], hidden: bool = False):
    from types import SimpleNamespace

    report = SimpleNamespace(ops=np.array(ops), span=None, work=lambda: np.array(work), findings={})
    case = SimpleNamespace(label="a 40x70", hidden=hidden)
    return SimpleNamespace(report=report, case=case)


def test_over_the_budget_fails_only_where_one_thread_stands_out_among_the_busy_ones():
    from types import SimpleNamespace

    part = SimpleNamespace(model_ops=78, model_span=None, imbalance=4.0)
    bound = profile.budget(78)
    # Every thread repeats its steps alike (a loop over the whole tile with a guard):
    # over the budget, yet the busiest makes about the mean of the others.
    even = _result([bound + 100] * 6 + [bound + 60] * 2, [8] * 8)
    assert profile.too_busy(part, even) is None
    # Threads outside the matrix (no memory touched, a guard's few steps) are not counted.
    edge = _result([bound + 100] * 2 + [5] * 30, [8] * 2 + [0] * 30)
    assert profile.too_busy(part, edge) is None
    # One thread staging the block's tile for the others makes ~100 times their steps.
    one = _result([9000] + [60] * 255, [1024] + [4] * 255)
    assert "one thread made 9000 operations" in profile.too_busy(part, one)
    # Without Part.imbalance the budget alone decides (the parts that record no balance).
    strict = SimpleNamespace(model_ops=78, model_span=None, imbalance=None)
    assert profile.too_busy(strict, even) is not None
    assert profile.too_busy(strict, one) is not None


def test_a_hidden_case_over_the_budget_does_not_tell_its_numbers():
    from types import SimpleNamespace

    part = SimpleNamespace(model_ops=78, model_span=None, imbalance=4.0)
    one = _result([9000] + [60] * 255, [1024] + [4] * 255, hidden=True)
    assert profile.too_busy(part, one) == "a 40x70: one thread does the work of many"

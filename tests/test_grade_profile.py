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

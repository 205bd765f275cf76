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

from pdc.grade import exercises as exs
from pdc.grade import profile

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

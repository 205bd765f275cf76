"""pdc.sim against numba's CUDA simulator on the same inputs: the outputs agree.

Integer kernels bit for bit; float kernels within the stated relative tolerance (float32
sums in another order, libdevice's exp). Both run in one child process with numba's
simulator on, which also proves pdc.sim's worker path from such a process.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_outputs_agree_with_numbas_simulator():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-m", "tests.sim_diff"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(results) >= 8
    for name, r in results.items():
        assert r["findings"] == [], (name, r)
        assert r["worst"] <= r["tol"], (name, r)

"""pdc.sim against numba's CUDA simulator on the same inputs: the outputs agree.

Integer kernels bit for bit; float kernels within the stated relative tolerance (float32
sums in another order, libdevice's exp). Both run in one child process with numba's
simulator on, which also proves pdc.sim's worker path from such a process. numba's results
for inputs it has already run are read back from tests/data/oracle (tests/numba_oracle.py:
keyed by the kernel's text, the inputs' bytes and numba's version); pdc.sim runs every time.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sim_diff_corpus import NUMPY_RULES

pytestmark = pytest.mark.slow  # minutes of numba's simulator: started first

ROOT = Path(__file__).resolve().parents[1]


def _run_on_numbas_simulator(module: str, timeout: float) -> dict:
    """Run ``python -m module`` with numba's simulator on; its last line of output as JSON."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-m", module],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    kept = out["oracle"]
    print(f"{module}: numba's simulator ran {kept['run']} launches, {kept['kept']} were kept")
    return out["results"]


def _problems(r: dict) -> list:
    """The findings of a run other than notes (a CAS loop's first read sees a value other
    threads update atomically: pdc.grade.simreport.NOTES)."""
    from pdc.grade.simreport import NOTES

    return [f for f in r["findings"] if f not in NOTES]


def test_outputs_agree_with_numbas_simulator():
    results = _run_on_numbas_simulator("tests.sim_diff", 600)
    assert len(results) >= 8
    for name, r in results.items():
        assert _problems(r) == [], (name, r)
        assert r["worst"] <= r["tol"], (name, r)


def test_every_solution_and_correct_submission_agrees_with_numbas_simulator():
    """The exercises' kernels as the grader defines them (solutions, and the submissions in
    unusual styles that earn full marks): outputs agree on the smallest public case of more than one block, integer
    outputs bit for bit, float outputs within 1e-5 relative (float32 sums in another order);
    none has a finding but notes. Kernels numba's simulator cannot run (warp shuffles) are listed."""
    results = _run_on_numbas_simulator("tests.sim_diff_corpus", 900)
    ran = {k: r for k, r in results.items() if "skipped" not in r}
    assert sum(k.startswith("solution") for k in ran) >= 15, sorted(results)
    assert len(ran) >= 40
    for name, r in ran.items():
        assert _problems(r) == [], (name, r)
        assert r["exact"], (name, r)
        assert r["worst"] <= 1e-5, (name, r)
    # Compared with the exercise's reference, since numba's simulator follows NumPy's rules
    # there: it still does, else the entry goes (tests/sim_diff_corpus.py).
    for name in NUMPY_RULES:
        assert ran[name]["numba_differs"], name


def test_every_course_kernel_agrees_with_numbas_simulator_or_says_why_not():
    """Every CUDA kernel of the chapters, practice checks and solutions, found as ``pdc ptx``
    finds them: compared on a small input (integers bit for bit, floats within 1e-5
    relative, no findings), or listed in tests/sim_diff_course.py with the reason."""
    from tests import sim_diff_course as course

    found = {f"{f.path}:{f.name}" for f in course.course_kernels()}
    listed = {f"{p}:{n}" for p, n in course.NOT_COMPARED}
    assert listed <= found, sorted(listed - found)  # no reason kept for a kernel that went
    results = _run_on_numbas_simulator("tests.sim_diff_course", 900)
    assert set(results) == found
    compared = {k: r for k, r in results.items() if "skipped" not in r}
    assert compared and sum(k.startswith("notebooks/") for k in compared) >= 20, sorted(compared)
    assert all(r["skipped"] for k, r in results.items() if k not in compared)
    for name, r in compared.items():
        assert _problems(r) == [], (name, r)
        assert r["exact"], (name, r)
        assert r["worst"] <= 1e-5, (name, r)

"""What importing the checks starts in the background, and when: a notebook without a GPU
starts the simulator's worker and the compile gate's zygote at once (before numba.cuda is
imported); a tool or the grader, where nothing says a check is coming, starts nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pdc.backends import _probe

ROOT = Path(__file__).resolve().parents[1]

_PROBE = r"""
import json, sys, threading, time, types
kind = sys.argv[1]
if kind != "tool":
    sys.modules["ipykernel"] = types.ModuleType("ipykernel")  # what a Jupyter kernel has loaded
CELLS = {  # the cell running now, as IPython keeps it
    "ring-cell": "import pdc\nfrom pdc.grade import check\nfrom pdc.ring import select\n",
    "triton-cell": "import pdc\nfrom pdc.grade.triton import check\n",
}
if kind in CELLS:
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    shell.user_ns["In"] = ["", CELLS[kind]]
import pdc
if kind == "triton-cell":
    from pdc.grade.triton import check
else:
    from pdc.grade import check
from pdc.grade import zygote
from pdc.sim import remote
deadline = time.monotonic() + 120
while kind == "notebook" and time.monotonic() < deadline:
    if remote._WORKER is not None and "gate" in zygote._POOL:
        break
    time.sleep(0.05)
warm = [t for t in threading.enumerate() if t.name == "pdc-grade-warm"]
for t in warm:
    t.join(120)
loops = 0
if "pdc.ring.engines.shared_loop" in sys.modules:
    loops = len(sys.modules["pdc.ring.engines.shared_loop"]._LOOPS)
print(json.dumps({
    "numba.cuda": "numba.cuda" in sys.modules,
    "worker": remote._WORKER is not None,
    "gate": "gate" in zygote._POOL,
    "ring": bool(warm) and loops == 1,
    "triton": any(k.startswith("triton") for k in zygote._POOL),
}))
"""


def _probe_run(kind: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, kind], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(_probe.has_cuda_gpu(), reason="with a GPU, pdc.sim runs in the notebook")
def test_a_notebook_without_a_gpu_starts_the_worker_and_the_gate_before_numba_cuda():
    got = _probe_run("notebook")
    assert got == {
        "numba.cuda": False,
        "worker": True,
        "gate": True,
        "ring": False,
        "triton": False,
    } or (
        # where zygotes are off (not Linux), the gate compiles in a fresh child instead
        got["worker"] and not got["numba.cuda"]
    ), got


def test_a_tool_importing_the_checks_starts_nothing():
    got = _probe_run("tool")
    assert not any(got.values()), got


def test_a_ring_notebook_warms_its_ring_and_nothing_else():
    """Exercise 6's cell imports the checks and the ring runtime: its check runs a ring
    kernel in the notebook's process (``Part.warm_with``), so the exercise's loop is compiled
    (or loaded) in a background thread, and neither the simulator's worker nor the gate
    starts, nor do the Triton exercises' zygotes (their specs are read to find the part)."""
    got = _probe_run("ring-cell")
    assert got == {
        "numba.cuda": False,
        "worker": False,
        "gate": False,
        "ring": True,
        "triton": False,
    }, got


def test_make_env_warms_the_parts_checked_in_the_notebook(capsys):
    """``python -m pdc.grade.warm`` (run by ``make env``) compiles or loads each part that
    is checked in the notebook's own process, and says what it did."""
    from pdc.grade import warm

    assert warm.main() == 0
    out = capsys.readouterr().out.splitlines()
    assert out and all(": compiled or loaded in " in line for line in out), out
    assert any(line.startswith("06_ring ") for line in out)


def test_a_triton_notebook_starts_its_own_zygotes_and_not_the_simulators():
    got = _probe_run("triton-cell")
    assert got["triton"] and not got["worker"] and not got["gate"], got

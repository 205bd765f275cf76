"""Every kernel the grader sees runs on pdc.sim: each solution's and each submission's kernel
(the compile gate's own module text), on its first public case. numba-cuda may refuse a
kernel (some submissions are meant not to compile); the simulator never says "does not
support", never raises, and gives each solution's kernel no finding."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import pdc
import pdc.sim as sim
from pdc.grade import exercises as exs
from pdc.grade import gate, source

pdc.numba_cuda()  # as the chapters run: pdc.sim types kernels in its worker process

ROOT = Path(__file__).resolve().parents[1]
SUBMISSIONS = ROOT / "tests" / "submissions"
# Stopped by the simulator's own budgets (a step count, memory operations per thread).
ENDLESS = {"infinite_loop", "load_endless_memory_loop"}


def _jobs():
    for d in sorted(p for p in SUBMISSIONS.iterdir() if (p / "expect.json").is_file()):
        e = json.loads((d / "expect.json").read_text())
        for nb in sorted(d.glob("*.ipynb")):
            yield pytest.param(nb, e["exercise"], e["part"], False, id=d.name)
    for nb in sorted((ROOT / "solutions").glob("*.ipynb")):
        try:
            ex = exs.exercise(nb.stem)
        except ValueError:
            continue
        for part in ex.parts:
            yield pytest.param(nb, nb.stem, part.name, True, id=f"solution-{part.name}")


@pytest.mark.parametrize("path, key, name, solution", list(_jobs()))
def test_the_simulator_runs_every_kernel_the_grader_sees(path, key, name, solution):
    if path.parent.name in ENDLESS:
        pytest.skip("an endless loop: the budgets stop it (tests/test_sim.py covers them)")
    ex = exs.exercise(key)
    part = next(p for p in ex.parts if p.name == name)
    if part.runner is not None:
        pytest.skip("a part the grader runs itself (the ring exercise)")
    ext = source.extract(source.notebook_cells(path), [part.name], ex.constants)
    if part.name in ext.problems:
        pytest.skip(f"refused before compiling: {ext.problems[part.name][:80]}")
    ns: dict = {"__name__": f"submission_{path.parent.name}"}
    try:
        exec(compile(gate.module_text(ext, part.name), f"<{path.name}>", "exec"), ns)  # noqa: S102
    except ImportError as e:  # e.g. `from numba.cuda import shared`: the gate refuses it too
        assert not solution, e
        pytest.skip(f"its imports fail: {e}")
    case = exs.public_cases(part)[0]
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in case.args.values()]
    rep = sim.launch(ns[part.name], case.grid, case.block, args, list(case.args))
    errors = rep.findings.get("error", {}).get("examples", [])
    assert not any("does not support" in e for e in errors), errors
    # A loop that waits for ever is a deadlock the simulator reports, not a failure of it.
    allowed = ("numba-cuda cannot compile", "more than a GPU gives", "a loop that can never end")
    assert all(any(a in e for a in allowed) for e in errors), errors
    if solution:
        assert rep.findings == {}, rep.findings

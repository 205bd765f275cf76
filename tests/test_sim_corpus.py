"""Each solution's kernel (the compile gate's own module text) runs on pdc.sim through
``pdc.sim.launch``, the path chapters use, on its first public case: the simulator never says
"does not support", never raises, and finds nothing. Every submission's kernel runs on the
same simulator through the grader (tests/test_grade_submissions.py checks there that the
simulator never fails itself)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pdc
import pdc.sim as sim
from pdc.grade import exercises as exs
from pdc.grade import gate, source

pdc.numba_cuda()  # as the chapters run: pdc.sim types kernels in its worker process

ROOT = Path(__file__).resolve().parents[1]


def _jobs():
    for nb in sorted((ROOT / "solutions").glob("*.ipynb")):
        try:
            ex = exs.exercise(nb.stem)
        except ValueError:
            continue
        for part in ex.parts:
            if part.runner is None:  # the ring exercise's part is run by the grader itself
                yield pytest.param(nb, nb.stem, part.name, id=f"solution-{part.name}")


@pytest.mark.parametrize("path, key, name", list(_jobs()))
def test_the_simulator_runs_every_solution_kernel(path, key, name):
    ex = exs.exercise(key)
    part = next(p for p in ex.parts if p.name == name)
    ext = source.extract(source.notebook_cells(path), [part.name], ex.constants)
    assert part.name not in ext.problems, ext.problems[part.name]
    ns: dict = {"__name__": f"solution_{path.stem}"}
    exec(compile(gate.module_text(ext, part.name), f"<{path.name}>", "exec"), ns)  # noqa: S102
    case = exs.public_cases(part)[0]
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in case.args.values()]
    rep = sim.launch(ns[part.name], case.grid, case.block, args, list(case.args))
    assert rep.findings == {}, rep.findings

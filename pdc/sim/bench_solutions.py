"""The exercises' own kernels in ``pdc bench sim``: each solution on its public cases.

Each kernel is defined exactly as the grader defines it (pdc.grade.gate.module_text of the
solution notebook) and runs every public case of its exercise: on pdc.sim in this process,
on numba's CUDA simulator in one child process for all of them, and as the exercise's NumPy
reference. A row is correct when pdc.sim's outputs match the reference as the grader's
comparison does and it reports no finding.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def kernels() -> list[tuple]:
    """(exercise key, part, module text) for every simulated kernel of the solutions."""
    from pdc.grade import exercises as exs
    from pdc.grade import gate, notebook, source

    out = []
    for key in exs.ALL_KEYS:
        path = ROOT / "solutions" / f"{key}.ipynb"
        if not path.is_file():
            continue
        ex = exs.exercise(key)
        cells = notebook.notebook_cells(path)
        for part in ex.parts:
            if part.runner is not None:
                continue
            ext = source.extract(cells, [part.name], ex.constants)
            if part.name not in ext.problems:
                out.append((key, part, gate.module_text(ext, part.name)))
    return out


def _define(text: str, name: str):
    from pdc.grade.child import define

    fn, why = define(text, name)
    if fn is None:
        raise RuntimeError(why)
    return fn


def run_cases(fn, part, launch) -> tuple[float, bool, list]:
    """Seconds for all public cases of ``part``, whether outputs match, the findings."""
    from pdc.grade import exercises as exs

    total, ok, findings = 0.0, True, set()
    for case in exs.public_cases(part):
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in case.args.values()]
        want = part.reference(case.args)
        t = time.perf_counter()
        rep = launch(fn, case.grid, case.block, args, list(case.args))
        total += time.perf_counter() - t
        if rep is not None:
            findings |= set(rep.findings)
        names = list(case.args)
        for o in case.outputs:
            got, exp = args[names.index(o)], want[o]
            ok &= bool(np.allclose(got, exp, rtol=1e-4, atol=1e-5, equal_nan=True))
    return total, ok, sorted(findings)


def numpy_seconds(part, repeats: int = 5) -> float:
    """The NumPy reference's time on the same public cases (median of ``repeats``)."""
    import statistics

    from pdc.grade import exercises as exs

    cases = exs.public_cases(part)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for case in cases:
            part.reference(case.args)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _numba_launch(fn, grid, block, args, names):
    fn[grid, block](*args)
    return None


def numba_sim_all() -> dict:
    """Seconds numba's simulator takes per kernel (all in one child process)."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    code = "from pdc.sim import bench_solutions as b; b._numba_child()"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _numba_child() -> None:
    from numba import cuda  # noqa: F401 - the simulator (NUMBA_ENABLE_CUDASIM=1)

    times: dict[str, float | None] = {}
    for key, part, text in kernels():
        ns: dict = {"__name__": "solution"}
        exec(compile(text, f"<{key}>", "exec"), ns)  # noqa: S102 - the course's own solution
        try:
            times[part.name] = run_cases(ns[part.name], part, _numba_launch)[0]
        except Exception:  # e.g. warp shuffles, which numba's simulator does not have
            times[part.name] = None
    print(json.dumps(times))


def rows(repeats: int = 3, numba_sim: bool = True) -> list[dict]:
    """One row per solution kernel, as pdc.sim.bench's rows."""
    import statistics

    from pdc.sim.run import launch_here

    nb = numba_sim_all() if numba_sim else {}
    out = []
    for key, part, text in kernels():
        fn = _define(text, part.name)
        first, ok, findings = run_cases(fn, part, launch_here)
        warm = statistics.median(run_cases(fn, part, launch_here)[0] for _ in range(repeats))
        out.append(
            {
                "workload": f"{key[:2]} {part.name}",
                "pdc_sim_s": warm,
                "first_call_s": first,
                "numba_sim_s": nb.get(part.name),
                "numpy_s": numpy_seconds(part),
                "correct": ok,
                "findings": findings,
                "conflicts": 0,
            }
        )
    return out

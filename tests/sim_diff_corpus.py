"""Run in a child with NUMBA_ENABLE_CUDASIM=1 (tests/test_sim_differential.py): every
solution kernel and every full-marks submission kernel, defined as the grader defines it,
on its smallest public case of more than one block, on numba's simulator and on pdc.sim;
prints one JSON object."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


#: Full-marks kernels on which numba's simulator, computing with NumPy's scalar rules, gives
#: another answer than numba-cuda's typing does (as a GPU does): pdc.sim is compared with the
#: exercise's reference instead, and numba's simulator must still disagree with it.
NUMPY_RULES = {
    "hoo_hist_uint8_minus_wraps_ok/histogram_global": (
        "uint8 - int64 is an int64 in numba-cuda, a wrapping uint8 under NumPy 2's rules"
    ),
    "hor_hg_uint8_minus_bins_widened/histogram_global": (
        "uint8 - BINS is a negative int64 in numba-cuda, a wrapping uint8 under NumPy 2's rules"
    ),
    "hod5_histogram_global_uint8_minus_widens/histogram_global": (
        "v - BINS < 0 on a uint8 is an int64 test in numba-cuda, a wrapping uint8 under NumPy 2"
    ),
}


def small_case(part):
    """The public case with the fewest elements among those of more than one block (blocks
    must still meet), else the smallest: numba's simulator runs a Python thread per GPU
    thread, and this differential test takes no more of it than its comparison needs."""
    from pdc.grade import exercises as exs

    def elements(case) -> int:
        return sum(v.size for v in case.args.values() if isinstance(v, np.ndarray))

    cases = exs.public_cases(part)
    multi = [c for c in cases if np.prod(c.grid) > 1]
    return min(multi or cases, key=elements)


def kernels(full_only: bool):
    """(label, part, module text, full) for every kernel of the solutions and of the
    submissions in ``tests/submissions/`` (``full_only``: those graded full marks), each
    defined as the grader defines it, from the notebook the grader reads. ``PDC_DIFF_ONLY``
    (a comma list) keeps the labels that contain one of its parts."""
    from pdc.grade import exercises as exs
    from pdc.grade import gate, notebook, source

    items = [
        (f"solution {k}", ROOT / "solutions" / f"{k}.ipynb", k, None, True) for k in exs.ALL_KEYS
    ]
    for d in sorted((ROOT / "tests" / "submissions").iterdir()):
        f = d / "expect.json"
        if not f.is_file():
            continue
        e = json.loads(f.read_text())
        if full_only and not e.get("full"):
            continue
        nbs = sorted(d.glob("*.ipynb"))  # the grader reads the one named as the exercise
        nbs = [nb for nb in nbs if nb.stem == e["exercise"]] or nbs
        for nb in nbs:
            items.append((d.name, nb, e["exercise"], e.get("part"), bool(e.get("full"))))
    picks = [p for p in os.environ.get("PDC_DIFF_ONLY", "").split(",") if p]
    for label, path, key, only, full in items:
        if picks and not any(p in label for p in picks):
            continue
        ex = exs.exercise(key)
        try:
            cells = notebook.notebook_cells(path)
        except Exception:  # noqa: BLE001 - a corrupted submission is a grader test
            continue
        for part in ex.parts:
            if part.runner is not None or (only and part.name != only):
                continue
            ext = source.extract(cells, [part.name], ex.constants)
            if part.name not in ext.problems:
                yield f"{label}/{part.name}", part, gate.module_text(ext, part.name), full


def corpus():
    """(label, part, module text) for every solution and full-marks submission kernel."""
    for label, part, text, _ in kernels(full_only=True):
        yield label, part, text


def main() -> int:
    import pdc
    import pdc.sim as sim
    from tests.numba_oracle import Oracle

    pdc.numba_cuda()  # numba's simulator (NUMBA_ENABLE_CUDASIM=1), as a chapter gets it

    kept = Oracle("sim_diff_corpus")
    out = {}
    for name, part, text in corpus():
        ns: dict = {"__name__": "kernel"}
        try:
            exec(compile(text, f"<{name}>", "exec"), ns)  # noqa: S102 - the repository's kernels
        except ImportError as e:  # numba's simulator has no numba.cuda.grid to import
            out[name] = {"skipped": f"numba's simulator cannot define it: {e}"[:200]}
            continue
        k = ns[part.name]
        case = small_case(part)
        a1 = [v.copy() if isinstance(v, np.ndarray) else v for v in case.args.values()]
        a2 = [v.copy() if isinstance(v, np.ndarray) else v for v in case.args.values()]
        try:
            g, b = case.grid, case.block
            kept.launch(lambda a, k=k, g=g, b=b: k[g, b](*a), text, part.name, g, b, a1)
        # numba's simulator lacks warp shuffles, match_*, ...; it casts with NumPy's
        # checks, so uint32(-1) raises where a GPU wraps it to 2**32 - 1; and a failing
        # assert raises there, where numba-cuda's kernel returns from that thread.
        except (AttributeError, OverflowError, AssertionError) as e:
            out[name] = {"skipped": f"numba's simulator cannot run it: {e}"[:200]}
            continue
        except TypeError as e:  # nor device functions called with keyword arguments
            if "unexpected keyword argument" not in str(e):
                raise
            out[name] = {"skipped": f"numba's simulator cannot run it: {e}"[:200]}
            continue
        rep = sim.launch(k, case.grid, case.block, a2, list(case.args))
        names = list(case.args)
        worst, exact = 0.0, True
        oracle = {o: a1[names.index(o)] for o in case.outputs}
        extra = {}
        if name in NUMPY_RULES:
            want = part.reference(case.args)
            extra["oracle"] = f"the exercise's reference: {NUMPY_RULES[name]}"
            extra["numba_differs"] = any(not np.array_equal(oracle[o], want[o]) for o in oracle)
            oracle = {o: want[o] for o in oracle}
        for o in case.outputs:
            x, y = oracle[o], a2[names.index(o)]
            if np.issubdtype(x.dtype, np.integer):
                exact &= bool(np.array_equal(x, y))
            else:
                d = np.abs(x.astype(np.float64) - y) / np.maximum(1.0, np.abs(x))
                worst = max(worst, float(np.nanmax(d)) if d.size else 0.0)
        out[name] = {"worst": worst, "exact": exact, "findings": sorted(rep.findings), **extra}
    kept.save()
    print(json.dumps({"results": out, "oracle": kept.summary()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

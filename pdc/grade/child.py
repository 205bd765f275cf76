"""Run a graded kernel on the grader's cases, in a child process, and write raw results.

The grader starts ``python -I`` on this module with a job on standard input: a nonce, the
module that defines the kernel (pdc.grade.gate.module_text: imports, constants, and the
kernel and its device functions as the notebook wrote them), the case inputs as ``.npy``
files in a fresh folder, and the folder to write to. Defining the module runs no kernel
code; each case runs on pdc.sim, which executes numba-cuda's typed IR of the kernel, never
its Python. For each case this process writes, with the nonce: the output arrays and
per-thread counters (``.npz``, no pickle), and the findings and memory analysis
(``.json``). It computes no expected values, scores nothing, and reads no hidden data: the
grader does that.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def _jsonable(findings: dict) -> dict:
    return {
        k: {"count": int(v["count"]), "examples": [str(e)[:400] for e in v["examples"]]}
        for k, v in findings.items()
    }


def _run_gpu(kernel, case, args):  # pragma: no cover - needs a CUDA GPU
    from numba import cuda

    dev = [cuda.to_device(a) if hasattr(a, "shape") and a.ndim else a for a in args]
    kernel[tuple(case["grid"]), tuple(case["block"])](*dev)
    cuda.synchronize()
    return {
        name: dev[i].copy_to_host()
        for i, name in enumerate(case["names"])
        if name in case["outputs"]
    }


def define(text: str, kernel: str):
    """The kernel object the module text defines, or the reason it could not be defined."""
    import linecache

    from pdc.ptx.worker import eager_signatures_recorded

    ns: dict = {"__name__": "submission"}
    # Feedback quotes kernel lines (bank conflicts) and counts them from the def.
    linecache.cache["<submission>"] = (len(text), None, text.splitlines(True), "<submission>")
    try:
        # A kernel jitted with a signature compiles when it is defined, which needs a GPU:
        # its signature is recorded instead, and pdc.sim types it for the case's arguments.
        with eager_signatures_recorded():
            exec(compile(text, "<submission>", "exec"), ns)  # noqa: S102 - gate's module
    except Exception as e:  # an import numba lacks (from numba.cuda import shared), ...
        return None, f"the kernel's module could not be defined: {type(e).__name__}: {e}"
    return ns[kernel], ""


def main() -> int:
    """Entry point of a fresh child process (the job comes on stdin)."""
    run(json.loads(sys.stdin.read()))
    return 0


def run(job: dict) -> None:
    """Run one job and end the process (a fresh child, or a fork of pdc.grade.zygote)."""
    nonce, work, out = job["nonce"], Path(job["inputs"]), Path(job["outdir"])
    if job.get("entry"):  # a plug-in exercise runs its own cases (named by the grader)
        import importlib

        module, _, attr = job["entry"].partition(":")
        getattr(importlib.import_module(module), attr)(job, out)
        sys.stdout.flush()
        os._exit(0)
    # Several kernels may come in one job: one process start (numba's import and its CUDA
    # target's set-up, about a second) serves them all.
    import time

    for part in job.get("parts") or [job]:
        t0 = time.perf_counter()
        run_part(part, work, out, nonce, bool(job.get("gpu")))
        if "id" in part:  # how long it took: shown, never scored
            (out / f"{part['id']}.seconds").write_text(f"{time.perf_counter() - t0:.3f}")
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown


# A kernel as a submission's module defines it: the zygote's warm-up launch.
_WARM_UP = """from numba import cuda


@cuda.jit
def warm_up(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1.0
"""


def prepare() -> None:
    """Run once in a zygote (pdc.grade.zygote) before its first fork: the imports a job
    needs, one launch on pdc.sim so that numba's CUDA typing and target are set up, and each
    plug-in part's ``warm``."""
    import numpy as np

    import pdc.sim as sim
    from pdc.grade import exercises as exs
    from pdc.grade import simreport  # noqa: F401

    kernel, why = define(_WARM_UP, "warm_up")
    if kernel is not None:
        sim.launch_here(kernel, (1,), (32,), [np.zeros(40, np.float32)], ["a"])
    for key in exs.ALL_KEYS:  # what every run of a plug-in part would repeat
        for part in exs.exercise(key).parts:
            if part.warm is not None:
                part.warm()


_COUNTS = ("loads_", "stores_", "written_", "shared_", "atomics", "ops", "span", "shuffles")


def run_part(part: dict, work: Path, out: Path, nonce: str, gpu: bool) -> None:
    """Run one kernel (``part``: its name, module text and cases) and write each case's files."""
    import numpy as np

    import pdc.sim as sim
    from pdc.grade import simreport

    kernel, why = define(part["module"], part["kernel"])
    for case in part["cases"]:
        cid = case["id"]
        args = []
        for spec in case["args"]:
            if spec["kind"] == "array":
                args.append(np.load(work / spec["file"], allow_pickle=False))
            else:
                args.append(np.dtype(spec["dtype"]).type(spec["value"]))
        gpu_inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        grid, block = tuple(case["grid"]), tuple(case["block"])
        if kernel is None:
            rep = simreport.LaunchReport(
                grid=simreport.Dim3(*sim.dim3(grid)), block=simreport.Dim3(*sim.dim3(block))
            )
            rep.findings = {"error": {"count": 1, "examples": [why]}}
            for name, a in zip(case["names"], args):
                if isinstance(a, np.ndarray):
                    rep.atomic_counts[name] = np.zeros(a.shape, np.int64)
        else:
            limit = case.get("ops_limit")
            rep = sim.launch_here(
                kernel, grid, block, args, case["names"], ops_limit=limit and tuple(limit)
            )
        arrays = {}
        for name, a in zip(case["names"], args):
            if name in case["outputs"]:
                arrays["out_" + name] = a
        n = rep.nthreads
        zeros = np.zeros(n, np.int64)
        for name, a in zip(case["names"], args):
            if isinstance(a, np.ndarray):
                arrays["loads_" + name] = rep.loads.get(name, zeros)
                arrays["stores_" + name] = rep.stores.get(name, zeros)
                arrays["written_" + name] = rep.written.get(name, zeros)
        arrays["shared_loads"] = zeros if rep.shared_loads is None else rep.shared_loads
        arrays["shared_stores"] = zeros if rep.shared_stores is None else rep.shared_stores
        arrays["atomics"] = zeros if rep.atomics is None else rep.atomics
        arrays["ops"] = zeros if rep.ops is None else rep.ops
        arrays["span"] = zeros if rep.span is None else rep.span
        arrays["shuffles"] = zeros if rep.shuffles is None else rep.shuffles
        arrays = {
            k: np.asarray(v, np.int64) if k.startswith(_COUNTS) else v for k, v in arrays.items()
        }
        if gpu and kernel is not None and not rep.count("error"):  # pragma: no cover
            for name, a in _run_gpu(kernel, case, gpu_inputs).items():
                arrays["gpu_" + name] = a
        with open(out / f"{cid}.npz", "wb") as f:
            np.savez(f, **arrays)
        meta = {
            "nonce": nonce,
            "case": cid,
            "findings": _jsonable(rep.findings),
            "barriers": int(rep.barriers),
            "shared_arrays": int(rep.shared_arrays),
            # Bank conflicts, sectors and atomics per element (pdc.grade.simreport).
            "sim": simreport.extras_to_json(rep),
        }
        (out / f"{cid}.json").write_text(json.dumps(meta))


if __name__ == "__main__":
    sys.exit(main())

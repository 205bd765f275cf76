"""Run checked kernel code on the grader's cases, in a child process, and write raw results.

The grader starts ``python -I`` on this module with a job on standard input: a nonce, the
kernel sources (already checked by pdc.grade.source), the case inputs as ``.npy`` files in a
fresh folder, and the folder to write to. For each case this process writes, with the nonce:
the output arrays and per-thread counters (``.npz``, no pickle), and the findings and memory
analysis (``.json``). It computes no expected values, scores nothing, and reads no hidden
data: the grader does that.
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


def _run_gpu(fn, case, args):  # pragma: no cover - needs a CUDA GPU
    from numba import cuda

    kernel = cuda.jit(fn)
    dev = [cuda.to_device(a) if hasattr(a, "shape") and a.ndim else a for a in args]
    kernel[tuple(case["grid"]), tuple(case["block"])](*dev)
    cuda.synchronize()
    return {
        name: dev[i].copy_to_host()
        for i, name in enumerate(case["names"])
        if name in case["outputs"]
    }


def main() -> int:
    """Entry point of the child process (the job comes on stdin)."""
    import numpy as np

    from pdc.grade import sim, simreport, source

    job = json.loads(sys.stdin.read())
    nonce, work, out = job["nonce"], Path(job["inputs"]), Path(job["outdir"])
    if job.get("entry"):  # a plug-in exercise runs its own cases (named by the grader)
        import importlib

        module, _, attr = job["entry"].partition(":")
        getattr(importlib.import_module(module), attr)(job, out)
        sys.stdout.flush()
        os._exit(0)
    aliases = {k: tuple(v) for k, v in job.get("aliases", {}).items()}
    g = source.build(job["functions"], job["constants"], aliases)
    fn = g[job["kernel"]]
    gpu_ns = None
    if job.get("gpu"):  # pragma: no cover - needs a CUDA GPU
        gpu_ns = source.build(job["functions"], job["constants"], aliases)
        import numba
        from numba import cuda

        # The sources passed the static check; numba needs the real modules to type them.
        gpu_ns.update(cuda=cuda, np=np, numpy=np, numba=numba)
        for name in job["functions"]:
            if name != job["kernel"]:
                gpu_ns[name] = cuda.jit(device=True)(gpu_ns[name])
    for case in job["cases"]:
        cid = case["id"]
        args = []
        for spec in case["args"]:
            if spec["kind"] == "array":
                args.append(np.load(work / spec["file"], allow_pickle=False))
            else:
                args.append(np.dtype(spec["dtype"]).type(spec["value"]))
        gpu_inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        # Two thread orders: an order-dependent result is a race the records may have missed.
        rep = sim.launch(
            fn, tuple(case["grid"]), tuple(case["block"]), args, case["names"], schedules=2
        )
        arrays = {}
        for name, a in zip(case["names"], args):
            if name in case["outputs"]:
                arrays["out_" + name] = a
        for name, v in rep.loads.items():
            arrays["loads_" + name] = v
            arrays["stores_" + name] = rep.stores[name]
            arrays["written_" + name] = rep.written[name]
        arrays["shared_loads"] = rep.shared_loads
        arrays["shared_stores"] = rep.shared_stores
        arrays["atomics"] = rep.atomics
        if gpu_ns is not None and not rep.count("error"):  # pragma: no cover
            for name, a in _run_gpu(gpu_ns[job["kernel"]], case, gpu_inputs).items():
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
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: simulated threads are daemons


if __name__ == "__main__":
    sys.exit(main())

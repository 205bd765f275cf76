"""Child side of Triton grading: compile the kernel for sm_80, then run it on the interpreter.

Run as a fork of a zygote that has imported what its stage needs (pdc.grade.triton.warm,
pdc.grade.zygote: a bare environment, the sandbox's limits) with ``entry`` naming ``main``,
twice, side by side: the job's ``stage`` is "gate" (Triton lowers the kernel for an A100,
sm_80) or "run" (``TRITON_INTERPRET=1``: the module is imported as
interpreted functions and each case runs on CPU torch tensors with its loads and stores
traced). One process cannot do both: once the interpreter has patched ``triton.language``,
Triton no longer compiles, and the other way round. Everything written carries the nonce;
nothing here knows the expected values.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

GATE_CC = (8, 0)


def _gate(job: dict) -> str:
    """Empty when the kernel compiles for sm_80, else the compiler's reason in one line."""
    from pdc.ptx.triton_build import run_jobs

    specs = job.get("specs") or [job["spec"]]  # one per set of @triton.heuristics values
    compiles = [
        {**spec, "source": job["text"], "name": job["kernel"], "ccs": [GATE_CC]} for spec in specs
    ]
    for result in run_jobs(compiles):
        build = result["build"]
        if not build["ok"]:
            return build["error"] or "does not compile"
    return ""


def _tensor(spec: dict, inputs: Path):
    import torch

    if spec["kind"] == "array":
        return torch.from_numpy(np.load(inputs / spec["file"], allow_pickle=False))
    return np.dtype(spec["dtype"]).type(spec["value"]).item()


def main(job: dict, out: Path) -> None:
    """Compile the kernel, or run every case of the job; results go to ``out``."""
    os.chdir(Path(job["inputs"]).parent)  # a fresh child may have started elsewhere
    os.environ["TRITON_CACHE_DIR"] = str(Path(job["inputs"]).parent / "triton-cache")
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    nonce = job["nonce"]
    if job["stage"] == "gate":
        why = _gate(job)
        (out / "gate.json").write_text(json.dumps({"nonce": nonce, "error": why[:400]}))
        return
    os.environ["TRITON_INTERPRET"] = "1"
    from pdc.ptx.triton_build import load_module

    from . import libdevice
    from .interp import Trace, compiled_builtins, tracing

    libdevice.install()  # the interpreter has no libdevice of its own

    folder = Path(job["inputs"]).parent / "interpreted"
    folder.mkdir(exist_ok=True)
    module = load_module(job["text"], folder, "submitted_kernels")
    compiled_builtins(vars(module))
    kernel = getattr(module, job["kernel"])
    inputs = Path(job["inputs"])
    for case in job["cases"]:
        args = [_tensor(a, inputs) for a in case["args"]]
        trace = Trace()
        for spec, value in zip(case["args"], args):
            if spec["kind"] == "array":
                trace.watch(spec["name"], value)
        error = ""
        try:
            with tracing(trace):
                kernel[tuple(case["grid"])](*args, **job["constants"], **case["extra"])
        except Exception as exc:  # the kernel's own failure: this case's result
            error = f"the kernel failed: {type(exc).__name__}: {exc}"[:400]
        if trace.races and not error and not trace.out_of_range:  # out of range comes first
            error = trace.races[0][:400]
        arrays = {}
        for spec, value in zip(case["args"], args):
            if spec["kind"] == "array":
                w = trace.tensors[spec["name"]]
                arrays["loads_" + spec["name"]] = w.loads
                arrays["stores_" + spec["name"]] = w.stores
                if spec["name"] in case["outputs"]:
                    arrays["out_" + spec["name"]] = value.numpy()
        with open(out / f"{case['id']}.npz", "wb") as f:
            np.savez(f, **arrays)
        programs = [[list(p), name, *v] for (p, name), v in trace.programs.items()]
        meta = {
            "nonce": nonce,
            "case": case["id"],
            "error": error,
            "out_of_range": trace.out_of_range,
            "examples": trace.examples,
            "programs": programs,
        }
        (out / f"{case['id']}.json").write_text(json.dumps(meta))

"""On a machine with an NVIDIA GPU: pdc.sim against the GPU itself, kernel by kernel.

Every kernel of the solutions and of every submission in ``tests/submissions/`` (full marks or
not), defined as the grader defines it, runs on the GPU and on pdc.sim with the same inputs:
the smallest public case of more than one block for every kernel, and for full-marks kernels
every public case and the hidden cases of seed 0 as well. One JSON line per launch records
whether the two outputs agree (bit for bit for integers, the largest relative difference for
floats), how each compares with the exercise's reference, and pdc.sim's findings.

A launch that pdc.sim finds out of bounds, failing, divergent at a barrier or waiting on
another block does not run on the GPU: it could fault the context or never end there. The
kernels run in worker processes, each restarted after a CUDA error or a launch that outlasts
``--launch-timeout``, so that one bad kernel costs only its own line.

    python -m tests.sim_gpu_diff --out diff.jsonl [--workers 12] [--budget 240]
    python -m tests.sim_gpu_diff --summary diff.jsonl

The differential tests (tests/test_sim_differential.py) compare with numba's CUDA simulator
on every machine; this one needs the GPU and is run by hand, with ``make gpu-report``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: pdc.sim findings after which a launch stays off the GPU.
UNSAFE = ("oob", "error", "divergence", "warp")


def kernels():
    """(label, part, module text, full) for every kernel of solutions and submissions."""
    from tests.sim_diff_corpus import kernels as every

    return every(full_only=False)


def cases(part, full: bool):
    from pdc.grade import spec
    from tests.sim_diff_corpus import small_case

    first = small_case(part)
    yield "small", first
    if full:
        for k, c in enumerate(spec.public_cases(part)):
            if c is not first:
                yield f"public {k}", c
        for k, c in enumerate(spec.hidden_cases(part, np.random.default_rng(0))):
            yield f"hidden {k}", c


def _compare(x, y):
    if x.shape != y.shape:
        return {"shape": [list(x.shape), list(y.shape)]}
    if np.issubdtype(x.dtype, np.integer) or x.dtype == np.bool_:
        return {"differ": int((x != y).sum())}
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    same_nan = np.isnan(xf) & np.isnan(yf)
    d = np.abs(xf - yf) / np.maximum(1.0, np.abs(xf))
    d[same_nan] = 0.0
    d[np.isnan(d)] = np.inf
    return {"worst": float(d.max()) if d.size else 0.0}


def one(label, part, text, case_name, case, cuda):
    import hashlib
    import importlib.util
    import tempfile

    import pdc.sim as sim

    # A module in a file, as a notebook's kernels have one: cuda.jit(cache=True) needs it.
    name = "k" + hashlib.sha256(f"{label}\n{text}".encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / "pdc-sim-gpu-diff" / f"{name}.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    k = getattr(mod, part.name)
    names = list(case.args)
    a_sim = [v.copy() if isinstance(v, np.ndarray) else v for v in case.args.values()]
    a_gpu = [v.copy() if isinstance(v, np.ndarray) else v for v in case.args.values()]
    row = {"kernel": label, "case": case_name, "grid": case.grid, "block": case.block}
    t = time.perf_counter()
    rep = sim.launch(k, case.grid, case.block, a_sim, names)
    row["sim_s"] = round(time.perf_counter() - t, 4)
    row["findings"] = {c: f["count"] for c, f in rep.findings.items()}
    row["examples"] = {c: f["examples"][:1] for c, f in rep.findings.items()}
    if any(c in rep.findings for c in UNSAFE):
        row["gpu"] = "not run: " + ", ".join(c for c in UNSAFE if c in rep.findings)
        return row
    t = time.perf_counter()
    k[case.grid, case.block](*a_gpu)
    cuda.synchronize()
    row["gpu_s"] = round(time.perf_counter() - t, 4)
    want = part.reference(case.args)
    for o in case.outputs:
        i = names.index(o)
        row[o] = {
            "sim_vs_gpu": _compare(a_gpu[i], a_sim[i]),
            "gpu_vs_ref": _compare(np.asarray(want[o]), a_gpu[i]),
            "sim_vs_ref": _compare(np.asarray(want[o]), a_sim[i]),
        }
    row["gpu"] = "ran"
    return row


def worker(first: int, step: int, skip: int, out: Path, deadline: float) -> int:
    """Launches ``first, first + step, ...`` after the first ``skip`` of them, one JSON line
    each; exits 3 after a CUDA error so that the parent starts a fresh process."""
    import pdc

    cuda = pdc.numba_cuda()
    n = -1
    with out.open("a") as fh:
        for i, (label, part, text, full) in enumerate(kernels()):
            if i % step != first:
                continue
            for case_name, case in cases(part, full):
                n += 1
                if n < skip:
                    continue
                if time.time() > deadline:
                    return 0
                print(json.dumps({"start": n}), file=fh, flush=True)
                try:
                    row = one(label, part, text, case_name, case, cuda)
                except Exception as e:  # noqa: BLE001 - recorded, and a CUDA error restarts
                    row = {
                        "kernel": label,
                        "case": case_name,
                        "raised": re.sub(r"\x1b\[[0-9;]*m", "", f"{type(e).__name__}: {e}")[:400],
                    }
                    print(json.dumps(row, default=str), file=fh, flush=True)
                    if "CUDA" in type(e).__name__ or "Cuda" in type(e).__name__:
                        return 3
                    continue
                print(json.dumps(row, default=str), file=fh, flush=True)
    return 0


def drive(out: Path, workers: int, budget: float, launch_timeout: float) -> None:
    deadline = time.time() + budget
    files = [out.with_suffix(f".{w}.jsonl") for w in range(workers)]
    for f in files:
        f.unlink(missing_ok=True)
    skip = [0] * workers
    procs: dict = {}

    def start(w):
        cmd = [sys.executable, "-m", "tests.sim_gpu_diff", "--worker", f"{w},{workers},{skip[w]}"]
        cmd += ["--out", str(files[w]), "--deadline", str(deadline)]
        procs[w] = subprocess.Popen(cmd, cwd=ROOT)

    def progress(w):
        """The index of the last launch begun."""
        last = -1
        if files[w].exists():
            for line in files[w].read_text().splitlines():
                r = json.loads(line)
                if "start" in r:
                    last = r["start"]
        return last

    for w in range(workers):
        start(w)
    seen: dict = {}
    while procs:
        time.sleep(1)
        for w, p in list(procs.items()):
            last = progress(w)
            if last != seen.get(w, (None,))[0]:
                seen[w] = (last, time.time())
            rc = p.poll()
            stuck = rc is None and time.time() - seen[w][1] > launch_timeout and last >= 0
            if rc is None and not stuck:
                continue
            if stuck:
                p.kill()
                p.wait()
                with files[w].open("a") as fh:
                    print(
                        json.dumps({"index": last, "raised": "timed out on the GPU or pdc.sim"}),
                        file=fh,
                    )
            del procs[w]
            if (rc == 3 or stuck) and time.time() < deadline:
                skip[w] = last + 1
                start(w)
    with out.open("w") as fh:
        for f in files:
            for line in f.read_text().splitlines():
                if '"start"' not in line[:10]:
                    fh.write(line + "\n")
            f.unlink()


def summary(path: Path) -> dict:
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    out = {"launches": len(rows), "ran": 0, "not_run": 0, "raised": 0, "disagree": []}
    for r in rows:
        if "raised" in r:
            out["raised"] += 1
            continue
        if r.get("gpu") != "ran":
            out["not_run"] += 1
            continue
        out["ran"] += 1
        for k, v in r.items():
            if isinstance(v, dict) and "sim_vs_gpu" in v:
                c = v["sim_vs_gpu"]
                if c.get("shape") or c.get("differ") or c.get("worst", 0) > 1e-5:
                    out["disagree"].append(
                        {
                            "kernel": r["kernel"],
                            "case": r["case"],
                            "output": k,
                            **c,
                            "findings": r["findings"],
                        }
                    )
    return out


def markdown(path: Path, device: str) -> str:
    """The run as a page: what ran, and every launch whose outputs differ, with pdc.sim's
    findings that say why a GPU may give another answer."""
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    s = summary(path)
    kernels = {r["kernel"] for r in rows if "kernel" in r}
    out = [f"# pdc.sim against {device}", ""]
    out.append(
        f"{s['launches']} launches of {len(kernels)} kernels (`python -m tests.sim_gpu_diff`): "
        f"{s['ran']} ran on both, {s['not_run']} stayed off the GPU after pdc.sim's findings, "
        f"{s['raised']} raised. Outputs of the {s['ran']} agree except in the "
        f"{len(s['disagree'])} below (integers bit for bit, floats within 1e-5 relative)."
    )
    out += ["", "## Outputs that differ", ""]
    out += ["| kernel | case | output | difference | pdc.sim's findings |", "|---|---|---|---|---|"]
    for d in s["disagree"]:
        diff = f"{d['differ']} elements" if "differ" in d else f"{d.get('worst', 0):.3g} relative"
        found = ", ".join(f"{k} {v}" for k, v in d["findings"].items()) or "none"
        out.append(f"| {d['kernel']} | {d['case']} | {d['output']} | {diff} | {found} |")
    out += ["", "## Launches that raised", ""]
    seen: set = set()
    for r in rows:
        if "raised" in r and r.get("kernel") not in seen:
            seen.add(r.get("kernel"))
            text = r["raised"].splitlines()[0][:160].replace("|", "\\|")
            out.append(f"- {r.get('kernel')}: {text}")
    off: dict = {}
    for r in rows:
        if str(r.get("gpu", "")).startswith("not run"):
            off[r["gpu"]] = off.get(r["gpu"], 0) + 1
    out += ["", "## Kept off the GPU", ""]
    out += [f"- {k}: {v} launches" for k, v in sorted(off.items())]
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 2))
    ap.add_argument("--budget", type=float, default=240.0)
    ap.add_argument("--launch-timeout", type=float, default=60.0)
    ap.add_argument("--worker")
    ap.add_argument("--deadline", type=float)
    ap.add_argument("--summary", type=Path)
    ap.add_argument("--markdown", type=Path, help="a page of the run in this file")
    ap.add_argument("--device", default="the GPU")
    a = ap.parse_args()
    if a.markdown:
        print(markdown(a.markdown, a.device), end="")
        return 0
    if a.summary:
        print(json.dumps(summary(a.summary), indent=1))
        return 0
    if a.worker:
        first, step, skip = (int(x) for x in a.worker.split(","))
        return worker(first, step, skip, a.out, a.deadline)
    drive(a.out, a.workers, a.budget, a.launch_timeout)
    s = summary(a.out)
    print(json.dumps({k: (len(v) if isinstance(v, list) else v) for k, v in s.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

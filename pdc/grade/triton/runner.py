"""Grader side of a Triton part: cases in, a child process runs them, verdicts out.

``grade_part`` is the part's ``runner`` (``pdc.grade.grader`` calls it instead of its own
kernel path): it draws the cases, checks the kernel's source (``kernels.extract``), writes
the inputs into a fresh workspace, runs ``pdc.grade.triton.child`` under the sandbox's
limits, validates every file the child wrote (nonce, names, shapes, dtypes) and judges.
``check_kernel`` is the notebook's ``check``: the same path on the public cases.
"""

from __future__ import annotations

import inspect
import json
import secrets
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from pdc.grade import exercises as exs

from . import criteria, heuristics, kernels, warm

# Importing torch and Triton, and one compile for sm_80, take seconds on a busy machine.
MIN_TIMEOUT_S = warm.LIMIT_S


def _cases(part, seed, hidden, extra_seeds) -> list:
    cases = exs.public_cases(part)
    if hidden:
        for s in [secrets.randbits(64) if seed is None else seed, *extra_seeds]:
            cases += exs.hidden_cases(part, np.random.default_rng(s))
        for k, c in enumerate((c for c in cases if c.hidden), 1):
            c.label = f"hidden case {k}"
    return cases


def _write(cases, folder: Path, extras: list[dict]) -> list[dict]:
    specs = []
    for k, (c, extra) in enumerate(zip(cases, extras)):
        args = []
        for name, v in c.args.items():
            if isinstance(v, np.ndarray):
                np.save(folder / f"c{k}_{name}.npy", v, allow_pickle=False)
                args.append({"name": name, "kind": "array", "file": f"c{k}_{name}.npy"})
            else:
                args.append({"name": name, "kind": "scalar", "value": int(v), "dtype": "int32"})
        specs.append(
            {
                "id": f"c{k}",
                "grid": list(c.grid),
                "args": args,
                "outputs": list(c.outputs),
                "extra": extra,
            }
        )
    return specs


def _load(case, cid: str, out: Path, nonce: str) -> criteria.Run | None:
    """One case's validated result, or None when anything is missing or malformed."""
    try:
        meta = json.loads((out / f"{cid}.json").read_text())
        if meta.get("nonce") != nonce or meta.get("case") != cid:
            raise ValueError("nonce or case id does not match")
        run = criteria.Run(error=str(meta["error"])[:400], out_of_range=int(meta["out_of_range"]))
        run.examples = [str(e)[:400] for e in meta["examples"][:3]]
        for p, name, first, last, count in meta["programs"]:
            run.programs.append(
                (tuple(int(v) for v in p), str(name), int(first), int(last), int(count))
            )
        arrays = [k for k, v in case.args.items() if isinstance(v, np.ndarray)]
        with np.load(out / f"{cid}.npz", allow_pickle=False) as z:
            for name in arrays:
                size = case.args[name].size
                for kind in ("loads", "stores"):
                    v = z[f"{kind}_{name}"]
                    if v.shape != (size,) or v.dtype != np.int64 or (v < 0).any():
                        raise ValueError(f"{kind}_{name}: expected ({size},) counts")
                    getattr(run, kind)[name] = v
            for name in case.outputs:
                v, ref = z[f"out_{name}"], case.args[name]
                if v.shape != ref.shape or v.dtype != ref.dtype:
                    raise ValueError(f"out_{name}: expected {ref.shape} {ref.dtype}")
                run.outputs[name] = v
    except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError):
        return None
    return run


def grade_part(ex, part, cells, *, seed=None, timeout=60.0, hidden=True, extra_seeds=(), **_):
    """Grade one Triton kernel of a notebook (its code cells); returns a PartResult."""
    from pdc.grade import grader, sandbox

    from .exercises import compile_spec

    t0 = time.perf_counter()
    cases = _cases(part, seed, hidden, tuple(extra_seeds or ()))
    expected = [part.reference(c.args) for c in cases]
    if not hidden:
        part = exs.public_only(part)
    tensors = frozenset(k for k, v in cases[0].args.items() if isinstance(v, np.ndarray))
    found = kernels.extract(cells, part.name, part.params, ex.constants, tensors)
    extras, problem = _heuristic_values(found, cases, ex.constants)
    problem = found.problem or problem
    why = f"rejected: {problem}" if problem else ""
    runs: list = [None] * len(cases)
    if not why:
        with sandbox.workspace() as ws:
            job = {
                "entry": "pdc.grade.triton.child:main",
                "nonce": ws.nonce,
                "kernel": part.name,
                "text": found.text,
                "constants": dict(ex.constants),
                "spec": compile_spec(part.name),
                "inputs": str(ws.inputs),
                "outdir": str(ws.out),
                "cases": _write(cases, ws.inputs, extras),
            }
            job["specs"] = _gate_specs(job["spec"], extras, found.constexpr)
            limit = max(timeout, MIN_TIMEOUT_S)
            key = warm.gate_key(found.text, job["specs"])
            known = warm.gate_known(key)  # the same text compiled before: its verdict
            with ThreadPoolExecutor(max_workers=1) as pool:  # compile while the cases run
                gate = (
                    None if known is not None else pool.submit(warm.run, _stage(job, "gate"), limit)
                )
                note = warm.run(_stage(job, "run"), limit)
                gate_note = gate.result() if gate is not None else ""
            if known is not None:
                why = known
            else:
                why = _gate_verdict(ws.out / "gate.json", ws.nonce)
                if not gate_note:  # the gate finished: its verdict holds for this text
                    warm.gate_keep(key, why)
                elif not why:
                    why = f"does not compile for sm_80: {gate_note}"
            if not why:  # cases that finished are judged; the others have no result
                runs = [_load(c, f"c{k}", ws.out, ws.nonce) for k, c in enumerate(cases)]
                why = note
    rejected = why if why and all(r is None for r in runs) else ""
    verdicts = criteria.judge(part, cases, runs, expected, rejected)
    return grader.PartResult(ex.key, part.name, verdicts, time.perf_counter() - t0, why)


def _heuristic_values(found, cases, constants) -> tuple[list[dict], str]:
    """Each case's ``@triton.heuristics`` values (pdc.grade.triton.heuristics), or why not."""
    extras: list[dict] = []
    for c in cases:
        scalars = {k: int(v) for k, v in c.args.items() if not isinstance(v, np.ndarray)}
        try:
            extras.append(heuristics.values(list(found.heuristics), {**scalars, **constants}))
        except heuristics.Refused as exc:
            return [{} for _ in cases], f"{c.label}: {exc}"
    return extras, ""


#: Compile the kernel for at most this many distinct sets of heuristic values.
MAX_GATE_SPECS = 4


def _gate_specs(spec: dict, extras: list[dict], constexpr: frozenset) -> list[dict]:
    """The compile specs the gate builds: one per distinct set of heuristic values the cases
    give (Triton compiles the kernel once for each), constexprs by value, other parameters by
    the type Triton gives the value (``bool`` -> ``i1``, ``int`` -> ``i32``, ``float`` ->
    ``fp32``)."""
    out: list[dict] = []
    for extra in extras:
        s = {**spec, "constexprs": dict(spec["constexprs"]), "signature": dict(spec["signature"])}
        for k, v in extra.items():
            if k in constexpr:
                s["constexprs"][k] = v
            else:
                s["signature"][k] = (
                    "i1" if isinstance(v, bool) else "i32" if isinstance(v, int) else "fp32"
                )
        if s not in out:
            out.append(s)
    return out[:MAX_GATE_SPECS] or [spec]


def _stage(job: dict, stage: str) -> dict:
    return {**job, "stage": stage}


def _gate_verdict(path: Path, nonce: str) -> str:
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError):
        return ""
    if meta.get("nonce") != nonce or not meta.get("error"):
        return ""
    return f"does not compile for sm_80: {str(meta['error'])[:300]}"


def _sources(kernel) -> list[str]:
    """The kernel's source and that of the Triton functions beside it (a notebook's cells)."""
    fn = kernel
    while hasattr(fn, "fn"):
        fn = fn.fn
    out = [textwrap.dedent(inspect.getsource(fn))]
    for value in list(getattr(fn, "__globals__", {}).values()):
        inner = getattr(value, "fn", None)
        if inner is not None and inner is not fn and type(value).__module__.startswith("triton"):
            try:
                out.insert(0, textwrap.dedent(inspect.getsource(inner)))
            except (OSError, TypeError):
                continue
    return out


def check_kernel(kernel, name: str | None = None) -> None:
    """In-notebook check: the public cases, in the grader's child process, with feedback."""
    from pdc.grade.judge import summary

    fn = kernel
    while hasattr(fn, "fn"):
        fn = fn.fn
    name = name or fn.__name__
    ex, part = exs.find_part(name, plugins=True)
    if part.runner is not grade_part:
        raise ValueError(f"[grade.triton.check] expected a Triton exercise kernel, got {name!r}")
    result = grade_part(ex, part, _sources(kernel), hidden=False)
    print(summary(exs.public_only(part), result.verdicts))
    print("Public cases only: `pdc grade` adds hidden cases drawn when it runs.")

"""Grading exercise 6's handler: in the sandboxed child, and on the grader's side.

The child defines the checked handler's source as a ring kernel, launches it once on the cpu
backend's shared loop and streams each case's requests through it, resetting its state
before each stream, and writes raw replies, states and telemetry with the job's nonce. The
grader finds the handler in the notebook (``precheck``, which refuses what could run code
when it is defined), validates what the child wrote, and judges it against
``pdc.grade.exercises.ring_spec``.
"""

from __future__ import annotations

import ast
import math
import time

import numpy as np

from pdc.grade import source, spec

from .ring_judge import _judge
from .ring_spec import (
    MIN_TIMEOUT_S,
    QUEUE_SIZE,
    REPLY,
    REQUEST,
    STATE,
    TELEMETRY,
    hidden_cases,
    public_cases,
    warm_kernel,
)


# -- running a handler on cases (in the child process, or in the notebook for checks) --------
def run_cases(kdef, cases_requests: list, timeout: float = 20.0) -> list[dict]:
    """Stream each case's requests through one launched kernel; raw results per case.

    The kernel's state is reset before each stream (deactivated, reset, activated) and read
    after it (deactivated again), so each stream starts from an empty state.
    """
    from pdc.ring import EngineOptions, RingKernelRuntime

    results = []
    # The shared loop: only the student's handler is compiled (a loop precompiled for these
    # dtypes, e.g. before forking graders, is reused; see pdc.ring.engines.shared_loop).
    with RingKernelRuntime(backend="cpu", options=EngineOptions(shared_loop=True)) as rt:
        kernel = rt.launch(kdef, activate=False)
        for req in cases_requests:
            res: dict = {"error": None}
            try:
                kernel.reset_state()
                kernel.activate()
                sent = kernel.send_batch(req)
                replies = kernel.receive_batch(req.size, timeout=timeout)
                kernel.deactivate()
                res.update(
                    sent=np.asarray(sent, np.int64),
                    corr=np.asarray(replies.corr_ids, np.int64),
                    status=np.asarray(replies.status, np.int64),
                    records=np.asarray(replies.records),
                    state=kernel.read_state(),
                )
            except Exception as e:  # reported as this case's failure
                res["error"] = f"{type(e).__name__}: {e}"[:300]
            t = kernel.telemetry()
            res["telemetry"] = {k: int(getattr(t, k)) for k in TELEMETRY}
            results.append(res)
    return results


def handler_from_source(src: str, name: str, constants: dict, math_names: dict | None = None):
    """Define a checked handler's source and declare it as a ring kernel (validates it).

    ``math_names`` maps the names the notebook imported from ``math`` to what they are
    (``{"sqrt": "sqrt", "m": ""}`` for ``from math import sqrt`` and ``import math as m``).
    """
    import linecache

    from pdc.ring import ring_kernel, select

    filename = f"<ring handler {name}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns: dict[str, object] = {"math": math, "select": select, "__builtins__": {"abs": abs}}
    for alias, attr in (math_names or {}).items():
        ns[alias] = getattr(math, attr) if attr else math
    ns.update(constants)
    exec(compile(src, filename, "exec"), ns)  # noqa: S102 - a def statement, pre-checked
    handler = ns[name]
    if not callable(handler):
        raise TypeError(
            f"[grade.ring] expected {name} to be a function, got {type(handler).__name__}"
        )
    return ring_kernel(name, request=REQUEST, reply=REPLY, state=STATE, queue_size=QUEUE_SIZE)(
        handler
    )


def child_main(job: dict, out) -> None:
    """Child side: run the handler on the job's cases and write raw results with the nonce."""
    import json
    from pathlib import Path

    inputs = Path(job["inputs"])
    cases = [np.load(inputs / c["file"], allow_pickle=False) for c in job["cases"]]
    try:
        kdef = handler_from_source(
            job["functions"][job["kernel"]],
            job["kernel"],
            job["constants"],
            job.get("math_names"),
        )
    except Exception as e:  # a handler the ring's validator refuses
        (out / "rejected.json").write_text(
            json.dumps({"nonce": job["nonce"], "error": str(e)[:400]})
        )
        return
    for c, res in zip(job["cases"], run_cases(kdef, cases)):
        arrays = {k: res[k] for k in ("sent", "corr", "status", "records", "state") if k in res}
        with open(out / f"{c['id']}.npz", "wb") as f:
            np.savez(f, **arrays)
        meta = {
            "nonce": job["nonce"],
            "case": c["id"],
            "error": res["error"],
            "telemetry": res["telemetry"],
        }
        (out / f"{c['id']}.json").write_text(json.dumps(meta))


# -- grader side --------------------------------------------------------------------------------
def _find(cells: list[str], name: str) -> tuple | None:
    """``(def, its cell's source, (cell index, last line))`` of the handler ``name`` means
    after a top-to-bottom run, the last two where ``ring_kernel`` took it; or None."""
    found = None
    defs: dict = {}
    for k, src in enumerate(cells):
        tree = source.parse_cell(src)  # the same parse the kernels' extraction uses
        if tree is None:
            continue
        for top in tree.body:
            if isinstance(top, ast.FunctionDef):
                defs[top.name] = (top, src, (k, top.end_lineno))
                if top.name == name:
                    found = defs[top.name]
            elif (other := _rebinds(top, name, defs)) is not None:
                # detect = detect_v2: the name now means that handler; detect =
                # ring_kernel(...)(step): that function, taken by ring_kernel here
                fn, fsrc, at = defs[other]
                found = (
                    fn,
                    fsrc,
                    (k, top.end_lineno)
                    if isinstance(getattr(top, "value", None), ast.Call)
                    else at,
                )
    return found


def cells_run_at_definition(cells: list[str], name: str) -> list[str]:
    """The code a top-to-bottom run has executed when ``ring_kernel`` takes the handler.

    ``@ring_kernel`` validates the handler when its ``def`` runs and keeps the values its
    globals have then (``pdc.ring.handlers.spec.validate``): a constant assigned again in a
    later cell does not change the notebook's kernel, so it must not change the graded one.
    """
    found = _find(cells, name)
    if found is None:
        return list(cells)
    k, last = found[2]
    return [*cells[:k], "\n".join(cells[k].splitlines()[:last])]


def precheck(cells: list[str], name: str) -> tuple[str | None, str]:
    """Find the handler's ``def`` and refuse what could run code when it is defined."""
    found = _find(cells, name)
    if found is None:
        return None, f"no function named {name!r} in the notebook"
    fn, src, _ = found
    a = fn.args
    if (
        a.defaults
        or a.kw_defaults
        or a.vararg
        or a.kwarg
        or fn.returns is not None
        or any(x.annotation is not None for x in a.args + a.kwonlyargs + a.posonlyargs)
    ):
        return None, "the handler must be declared as `def detect(req, rep, state):`"
    for node in ast.walk(fn):
        bad = (isinstance(node, ast.Name) and node.id.startswith("__")) or (
            isinstance(node, ast.Attribute) and node.attr.startswith("_")
        )
        if (
            bad
            or isinstance(node, (ast.Import, ast.ImportFrom, ast.Lambda, ast.FunctionDef))
            and node is not fn
        ):
            assert isinstance(node, (ast.expr, ast.stmt))  # the kinds refused above carry lines
            return None, f"line {node.lineno - fn.lineno + 1}: not allowed in a ring handler"
    lines = src.splitlines()[fn.lineno - 1 : fn.end_lineno]
    lines[0] = lines[0].replace(f"def {fn.name}(", f"def {name}(", 1)
    return "\n".join(lines) + "\n", ""


def _rebinds(node, name: str, defs: dict) -> str | None:
    """``other`` when ``node`` is ``name = other``, or the decorator called by hand,
    ``name = ring_kernel(...)(other)``, for a function ``other`` defined above."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return None
    t, v = node.targets[0], node.value
    if not (isinstance(t, ast.Name) and t.id == name):
        return None
    if (
        isinstance(v, ast.Call)
        and isinstance(v.func, ast.Call)
        and _is_ring_kernel(v.func.func)
        and len(v.args) == 1
        and not v.keywords
    ):
        v = v.args[0]
    if isinstance(v, ast.Name) and v.id in defs:
        return v.id
    return None


def _is_ring_kernel(func) -> bool:
    """``ring_kernel`` or ``<module>.ring_kernel`` (``pdc.ring.ring_kernel``)."""
    if isinstance(func, ast.Attribute):
        return func.attr == "ring_kernel"
    return isinstance(func, ast.Name) and func.id == "ring_kernel"


def _validate(case, cid, out, nonce) -> dict:
    import json

    meta = json.loads((out / f"{cid}.json").read_text())
    if meta.get("nonce") != nonce or meta.get("case") != cid:
        raise ValueError("nonce or case id does not match")
    tel = meta["telemetry"]
    if set(tel) != {"submitted", "processed", "errors", "dropped", "in_flight"} or not all(
        isinstance(v, int) for v in tel.values()
    ):
        raise ValueError("malformed telemetry")
    res = {"error": meta["error"] if isinstance(meta["error"], str) else None, "telemetry": tel}
    n = case.args["requests"].size
    with np.load(out / f"{cid}.npz", allow_pickle=False) as z:
        want = set() if res["error"] else {"sent", "corr", "status", "records", "state"}
        if set(z.files) != want:
            raise ValueError(f"expected arrays {sorted(want)}, got {sorted(z.files)}")
        for k in z.files:
            v = z[k]
            if k == "records":
                if v.dtype != REPLY or v.shape != (n,):
                    raise ValueError(f"records: expected ({n},) reply records")
            elif k == "state":
                if v.dtype != STATE or v.shape != ():
                    raise ValueError("state: expected one state record")
            elif v.dtype != np.int64 or v.shape != (n,):
                raise ValueError(f"{k}: expected ({n},) int64")
            res[k] = v
    return res


def runner(ex, part, cells, *, seed=None, timeout=60.0, hidden=True, extra_seeds=()):
    """Grade the ring exercise (the grader calls this instead of run_part)."""
    import json
    import secrets

    from pdc.grade import grader, sandbox

    t0 = time.perf_counter()
    timeout = max(timeout, MIN_TIMEOUT_S)
    cases = public_cases()
    if hidden:
        for s in [secrets.randbits(64) if seed is None else seed, *extra_seeds]:
            cases += hidden_cases(np.random.default_rng(s))
        for k, c in enumerate((c for c in cases if c.hidden), 1):
            c.label = f"hidden case {k}"
    if not hidden:
        part = spec.public_only(part)
    src, why = precheck(cells, part.name)
    if src is None:
        return grader.PartResult(
            ex.key,
            part.name,
            _judge(part, cases, [None] * len(cases), f"rejected: {why}"),
            time.perf_counter() - t0,
            why,
        )
    with sandbox.workspace() as ws:
        specs = []
        for k, c in enumerate(cases):
            np.save(ws.inputs / f"c{k}.npy", c.args["requests"], allow_pickle=False)
            specs.append({"id": f"c{k}", "file": f"c{k}.npy"})
        job = {
            "entry": f"{__name__}:child_main",
            "nonce": ws.nonce,
            "kernel": part.name,
            "functions": {part.name: src},
            # the names as bound when the handler's def ran (later cells do not change it)
            "constants": _constants(ex, cells_run_at_definition(cells, part.name)),
            "math_names": math_names(cells_run_at_definition(cells, part.name)),
            "outdir": str(ws.out),
            "inputs": str(ws.inputs),
            "cases": specs,
        }
        note = sandbox.run_child(job, ws.root, timeout)
        rejected = None
        rej = ws.out / "rejected.json"
        if rej.is_file():
            meta = json.loads(rej.read_text())
            if meta.get("nonce") == ws.nonce:
                rejected = f"rejected: {str(meta.get('error'))[:400]}"
        results = []
        for k, c in enumerate(cases):
            try:
                results.append(_validate(c, f"c{k}", ws.out, ws.nonce))
            except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError):
                results.append(None)
    if note and not rejected:
        rejected = note
    verdicts = _judge(part, cases, results, rejected if all(r is None for r in results) else None)
    return grader.PartResult(
        ex.key, part.name, verdicts, time.perf_counter() - t0, rejected or note
    )


def math_names(cells: list[str]) -> dict[str, str]:
    """The names the cells bind to ``math`` or to one of its attributes (``from math import
    sqrt``, ``import math as m``), as the handler's globals would hold them in the notebook:
    alias -> attribute name ("" for the module)."""
    out = {}
    for alias, path in source.bound_names(cells, {}).imports.items():
        module, _, attr = (path or "").partition(".")
        if module == "math" and not alias.startswith("_") and (not attr or hasattr(math, attr)):
            out[alias] = attr
    return out


def _constants(ex, cells) -> dict:
    """The notebook's numeric constants, the exercise's own winning (as for kernels), as the
    ring's validator reads them: Python numbers (an ``np.float32`` constant is its float, as
    in the notebook's kernel). Arrays and tuples stay out: no handler may read them, and the
    job that carries the constants to the child is JSON."""
    from pdc.ring.handlers.subset import _NUMERIC, _plain

    consts = source.extract(cells, [], ex.constants).constants
    return {k: _plain(v) for k, v in consts.items() if isinstance(v, _NUMERIC)}


def _warm() -> None:
    """Compile what every run of this exercise compiles besides the student's handler: the
    shared cpu loop for its messages (pdc.ring.engines.shared_loop), the readers of its three
    record types and the compiled ``call`` of its rings (pdc.ring.host.fast), by building,
    never launching, a kernel of a trivial handler: no thread is started."""
    import gc

    from pdc.ring import EngineOptions
    from pdc.ring.engines.cpu import precompile_shared_loop
    from pdc.ring.host.kernel import RingKernel

    options = EngineOptions(shared_loop=True)
    precompile_shared_loop(REQUEST, REPLY, STATE, options)
    kdef = warm_kernel()
    kernel = RingKernel(kdef, "cpu", options)
    del kernel
    gc.collect()  # its doorbell's pipe closed before any fork

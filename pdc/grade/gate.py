"""The compile gate: a graded kernel must compile for a real GPU before it is simulated.

Each graded kernel, with the device functions, imports and constants the grader extracted
(pdc.grade.source), is written out as a module (``module_text``). numba-cuda compiles it to
PTX for sm_80 with the argument types of the exercise's public cases (pdc.ptx, in a separate
process, no GPU needed; one process compiles every kernel of a submission, forked from a warm
zygote where there is one), and the grader's
child process defines the same module and runs the kernel's typed IR on pdc.sim. So what
numba refuses in the notebook it refuses here, in its own words, and what it compiles runs.
"""

from __future__ import annotations

import ast
import json
import math
import re

import numpy as np

from pdc.grade.source import Extracted

CC = (8, 0)
COMPILE_TIMEOUT_S = 300.0

_CACHE: dict[str, tuple[bool, str]] = {}  # module text + types -> (ok, error), this process


def module_text(ext: Extracted, kernel: str) -> str:
    """A module defining ``kernel`` as the submission's notebook does, for numba to compile.

    It holds the notebook's imports of math, numpy, numba and numba.cuda (nothing more, and
    nothing it did not import), the constants, and the kernel and the functions it calls
    with their decorators exactly as written. Defining it runs only those imports, the
    constants' literals and the (checked) decorators: annotations are never evaluated, and
    no function body runs.
    """
    from pdc.grade.imports import statement

    # Callees before callers (Extracted keeps that order): an eager signature compiles there.
    code = [ext.written[n] if n in ext.written else ext.alias_src[n] for n in ext.order]
    used = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", "\n".join(code)))
    # The imports the code uses (a stray import elsewhere in the notebook is no concern here).
    lines = ["from __future__ import annotations", "import numpy as _pdc_np"]
    lines += [statement(name, path) for name, path in ext.imports.items() if name in used]
    free = _free_names(code)  # a constant the code only shadows (a parameter `out`) is left out
    lines += [f"{k} = {literal(v)}" for k, v in ext.constants.items() if free is None or k in free]
    lines += ["", *code]
    return "\n".join(lines) + "\n"


def _free_names(code: list[str]) -> set[str] | None:
    """The names the code reads from its module: in decorators, defaults and alias lines, and
    in each function's body unless the function binds them itself (a parameter, an
    assignment). A name bound only in a nested function or comprehension counts as read,
    which at worst keeps a constant the code does not need. None if the code does not parse.
    """
    from pdc import pyast
    from pdc.grade.source import _stored_names

    free: set[str] = set()
    for chunk in code:
        try:
            tree = pyast.parse(chunk)
        except SyntaxError:
            return None
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef):
                free |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                continue
            own = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
            own |= _stored_names(node.body)  # the function's own scope: nested scopes left out
            for part in (*node.decorator_list, *node.args.defaults, *node.args.kw_defaults):
                if part is not None:
                    free |= {n.id for n in ast.walk(part) if isinstance(n, ast.Name)}
            loads = {
                n.id
                for stmt in node.body
                for n in ast.walk(stmt)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            }
            free |= loads - own
    return free


def literal(v) -> str:
    """Python source for a constant: a number, a NumPy scalar, a tuple of them or an array."""
    if isinstance(v, np.ndarray):
        return f"_pdc_np.array({v.tolist()!r}, dtype={v.dtype.name!r})"
    if isinstance(v, tuple):
        return "(" + "".join(literal(x) + ", " for x in v) + ")"
    if isinstance(v, np.generic):
        return f"_pdc_np.{np.dtype(type(v)).name}({literal(v.item())})"
    if isinstance(v, float) and not math.isfinite(v):
        return f"float({str(v)!r})"
    return repr(v)


def check_compiles(jobs: list[tuple[str, str, str, list]]) -> dict[str, str | None]:
    """Compile ``(key, module text, kernel, example args)`` jobs in one process.

    Returns:
        key -> None when the kernel compiles for sm_80, else numba's error in one line.
        When NVIDIA's compiler is not installed, every key maps to None (no gate).
    """
    from pdc.cachedir import cache_dir
    from pdc.ptx import CompilerMissing, describe
    from pdc.ptx.compile import cache_key

    out: dict[str, str | None] = {}
    todo, memo = [], {}
    for key, text, kernel, args in jobs:
        descs = [describe(a) for a in args]
        # numba-cuda's version is in the key; so is this gate's, for the worker's rules.
        h = cache_key(f"{text}\0{_VERSION}", kernel, descs, CC)
        memo[key] = h
        if h not in _CACHE and (hit := _read_disk(cache_dir("ptx") / f"gate-{h}.json")):
            _CACHE[h] = hit
        if h not in _CACHE:
            todo.append((h, text, kernel, args))
    if todo:
        try:
            builds = compile_many_warm(todo, ccs=(CC,), timeout=COMPILE_TIMEOUT_S)
        except CompilerMissing:
            return {key: None for key, *_ in jobs}
        for (h, *_), b in zip(todo, builds):
            _CACHE[h] = (bool(b.ok), b.error or "numba could not compile it")
            if b.ok or b.error:  # a batch cut short by its timeout is not remembered
                _write_disk(cache_dir("ptx") / f"gate-{h}.json", _CACHE[h])
    for key, h in memo.items():
        ok, error = _CACHE[h]
        out[key] = None if ok else error
    return out


_PREPARE = "from pdc.ptx.worker import warm; warm()"


def warm_soon() -> None:
    """Start the gate's zygote now (it imports numba-cuda and loads NVVM in the background),
    so that the first ``check()`` of a notebook finds it warm."""
    from pdc.grade import zygote
    from pdc.ptx import CompilerMissing
    from pdc.ptx.build import find_ptxas

    if not zygote.enabled():
        return
    try:
        find_ptxas()
        zygote.get("gate", _PREPARE)
    except (CompilerMissing, OSError, zygote.ZygoteError):
        return  # the first check compiles the way it can and reports what fails


def compile_many_warm(jobs: list, ccs=(CC,), timeout: float | None = COMPILE_TIMEOUT_S) -> list:
    """``pdc.ptx.compile_many(jobs, ccs)`` in one compiling process: a fork of the gate's
    zygote where there is one, else a fresh child. The gate compiles through it, and so do
    a notebook check's real-GPU resources (``pdc.ptx.compile_cached``'s ``compiler``).

    Raises:
        CompilerMissing: If NVIDIA's compiler wheels are not installed.
    """
    from pdc.ptx import compile_many

    limit = COMPILE_TIMEOUT_S if timeout is None else timeout
    builds = _compile_warm(jobs, tuple(ccs), limit)
    if builds is None:
        # One compiling process: a class grades students side by side, and a single
        # submission simulates its kernels while they compile (a second process would
        # import numba again, a second of CPU, to save little).
        builds = compile_many(jobs, ccs=ccs, timeout=limit, workers=1)
    return builds


def _compile_warm(todo: list, ccs: tuple, limit: float) -> list | None:
    """``compile_many(todo, ccs)`` in a fork of the gate's zygote (pdc.grade.zygote), which
    has imported numba-cuda and loaded NVVM once: a class pays that second once, not once per
    student. None where zygotes are off or the zygote could not fork (nothing ran).

    Raises:
        CompilerMissing: If NVIDIA's compiler wheels are not installed.
    """
    import pickle

    from pdc.grade import sandbox, zygote
    from pdc.ptx.build import find_ptxas
    from pdc.ptx.compile import builds_from, job_specs

    if not zygote.enabled():
        return None
    find_ptxas()  # as compile_many: say that the compiler is missing before anything runs
    specs = job_specs(todo, ccs)
    with sandbox.workspace() as ws:
        (ws.inputs / "jobs.pkl").write_bytes(pickle.dumps(specs))
        job = {"entry": "pdc.ptx.worker:fork_main", "nonce": ws.nonce}
        job.update(inputs=str(ws.inputs), outdir=str(ws.out))
        try:
            note = zygote.get("gate", _PREPARE).run(job, ws.root, limit)
        except zygote.ZygoteError:
            return None
        results = []
        try:
            for line in (ws.out / "builds.jsonl").read_text().splitlines():
                r = json.loads(line)
                if isinstance(r, dict) and r.get("nonce") == ws.nonce:
                    results.append(r)
        except (OSError, ValueError):
            pass
    failure = f"the compiling process stopped: {note}" if note else "numba could not compile it"
    return builds_from(specs, results, failure)


_VERSION = "8"  # bump when what the gate accepts or says changes (pdc.ptx.worker's rules)


def _read_disk(path) -> tuple[bool, str] | None:
    try:
        d = json.loads(path.read_text())
        return bool(d["ok"]), str(d["error"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_disk(path, result: tuple[bool, str]) -> None:
    from pdc.ptx.compile import keep_json

    keep_json(path, {"ok": result[0], "error": result[1]})

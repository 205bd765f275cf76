"""The trusted core of ``pdc grade``: run submitted kernels elsewhere, judge them here.

Why a core of our own: graders that run the tests and the scoring inside the student's own
process can be talked into anything by the code they grade. Replacing ``numpy.allclose``
with a function that always agrees, patching the test runner or ``pickle.dump``, looping
forever, or reading the hidden tests from disk (or from an exception's text) all work when
grading shares a process, a file system view and a clock with the submission.

So here the submission is untrusted and the grader is not:

* The grader never imports or executes a submission notebook. It parses the code cells and
  takes only the kernel functions it grades, the device functions they call, the imports of
  math, numpy and numba they use and constants it computes itself (pdc.grade.source).
* That code runs in a child process (``python -I``) with a CPU-time limit, a wall-clock
  limit (the whole process group is killed), address-space and file-size limits. The time
  limit is CPU seconds, so a busy machine does not change a score (pdc.grade.sandbox).
* Inputs are written by the grader into a fresh temporary folder; hidden cases are drawn at
  grading time from a fresh seed. Expected values never leave this process.
* The child sends back raw outputs and counters only: ``.npz``/``.json`` files named after
  the case, carrying a nonce the child learns on its standard input. The grader loads them
  with ``allow_pickle=False`` and checks names, shapes, dtypes and the nonce; anything else is
  "no result". Comparison and scoring happen here, with this process's NumPy.
* Feedback describes public cases in detail and hidden cases only by number and category.

Kernels always run on pdc.sim, which executes numba-cuda's typed IR of the kernel (never its
Python) and finds out-of-bounds accesses, races, undefined values, divergent barriers,
warp-intrinsic misuse and memory traffic. On a machine with a
CUDA GPU the child also compiles each kernel with numba.cuda and runs every case on the GPU;
the GPU's outputs are then the ones compared.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pdc.grade import exercises as exs
from pdc.grade import gate, notebook, sandbox, simreport, source
from pdc.grade.judge import CaseResult, Verdict, judge
from pdc.grade.simreport import FINDING_KINDS, Dim3, LaunchReport

#: CPU seconds one kernel's run (all its cases) may take: a safety net; the simulator's
#: step and memory-operation budgets stop an endless loop first (pdc.sim.machine).
DEFAULT_TIMEOUT_S = 60.0
#: A thread of a part with a work budget (Part.max_work) may make this many times the memory
#: operations the whole launch is allowed (its budget times the launch's threads) before its
#: loop counts as endless: more than one thread doing every thread's work, twice over. A
#: correct kernel, however serial, stays under it; an endless loop stops in a few seconds
#: rather than at pdc.sim.machine.OPS_PER_THREAD.
SERIAL_SLACK = 2
OPS_FLOOR = 2_000  # and never fewer than this many


def _ops_limit(part, case) -> list | None:
    """[memory operations one thread may make, why] for ``case``, or None (the default)."""
    if part is None or part.max_work is None:
        return None
    threads = int(np.prod(case.grid)) * int(np.prod(case.block))
    most = max(OPS_FLOOR, SERIAL_SLACK * int(part.max_work(case)) * threads)
    return [most, "twice what all the launch's threads together are expected to make"]


@dataclass
class PartResult:
    """The verdicts for one kernel, and how long its run took."""

    exercise: str
    part: str
    verdicts: list
    seconds: float = 0.0
    note: str = ""

    @property
    def score(self) -> float:
        return round(sum(v.score for v in self.verdicts), 2)

    @property
    def max_score(self) -> float:
        return round(sum(v.max_score for v in self.verdicts), 2)


@dataclass
class Submission:
    """Everything graded for one submission (a notebook or a folder of notebooks)."""

    name: str
    path: str
    parts: list = field(default_factory=list)
    seconds: float = 0.0
    warnings: list = field(default_factory=list)
    unreadable: list = field(default_factory=list)  # notebooks that could not be read
    seed: int | None = None  # the hidden cases' seed (None: public cases only)

    @property
    def score(self) -> float:
        return round(sum(p.score for p in self.parts), 2)

    @property
    def max_score(self) -> float:
        return round(sum(p.max_score for p in self.parts), 2)


def _write_inputs(cases, folder: Path, prefix: str = "", part=None) -> list[dict]:
    specs = []
    for k, c in enumerate(cases):
        cid = f"{prefix}c{k}"
        args: list[dict[str, str | float]] = []
        for name, v in c.args.items():
            if isinstance(v, np.ndarray):
                fname = f"{cid}_{name}.npy"
                np.save(folder / fname, v, allow_pickle=False)
                args.append({"kind": "array", "file": fname})
            else:
                args.append({"kind": "scalar", "value": float(v), "dtype": np.dtype(type(v)).str})
        specs.append(
            {
                "id": cid,
                "names": list(c.args),
                "args": args,
                "grid": list(c.grid),
                "block": list(c.block),
                "outputs": list(c.outputs),
                "ops_limit": _ops_limit(part, c),
            }
        )
    return specs


def _load_result(case: exs.Case, cid: str, out: Path, nonce: str, gpu: bool) -> CaseResult:
    """Read and validate one case's files; anything unexpected means no result."""
    meta_path, npz_path = out / f"{cid}.json", out / f"{cid}.npz"
    if not meta_path.is_file() or not npz_path.is_file():
        return CaseResult(case, failure="no result (the run stopped before this case)")
    try:
        meta = json.loads(meta_path.read_text())
        if meta.get("nonce") != nonce or meta.get("case") != cid:
            raise ValueError("nonce or case id does not match")
        findings = {}
        for kind, v in meta["findings"].items():
            if kind not in FINDING_KINDS:
                raise ValueError(f"unknown finding kind {kind!r}")
            count, examples = v["count"], v["examples"]
            if not isinstance(count, int) or count < 0 or not isinstance(examples, list):
                raise ValueError("malformed finding entry")
            findings[kind] = {"count": count, "examples": [str(e)[:400] for e in examples[:3]]}
        grid, block = (
            Dim3(*(tuple(case.grid) + (1, 1))[:3]),
            Dim3(*(tuple(case.block) + (1, 1))[:3]),
        )
        rep = LaunchReport(grid=grid, block=block, findings=findings)
        n = rep.nthreads
        arrays = [name for name, v in case.args.items() if isinstance(v, np.ndarray)]
        want = {"shared_loads", "shared_stores", "atomics", "ops", "span", "shuffles"}
        want |= {f"{k}_{a}" for a in arrays for k in ("loads", "stores", "written")}
        want |= {f"out_{o}" for o in case.outputs}
        gpu_names = {f"gpu_{o}" for o in case.outputs} if gpu else set()
        with np.load(npz_path, allow_pickle=False) as z:
            # GPU outputs are missing when the simulator run already failed.
            if set(z.files) not in (want, want | gpu_names):
                raise ValueError(f"expected arrays {sorted(want)}, got {sorted(z.files)}")
            data = {k: z[k] for k in z.files}
        for k, v in data.items():
            if k.startswith(("out_", "gpu_")):
                ref = case.args[k[4:]]
                if v.shape != ref.shape or v.dtype != ref.dtype:
                    raise ValueError(
                        f"{k}: expected {ref.shape} {ref.dtype}, got {v.shape} {v.dtype}"
                    )
            elif v.shape != (n,) or v.dtype != np.int64 or (v < 0).any():
                raise ValueError(f"{k}: expected ({n},) int64 counts, got {v.shape} {v.dtype}")
        rep.loads = {a: data[f"loads_{a}"] for a in arrays}
        rep.stores = {a: data[f"stores_{a}"] for a in arrays}
        rep.written = {a: data[f"written_{a}"] for a in arrays}
        rep.shared_loads, rep.shared_stores = data["shared_loads"], data["shared_stores"]
        rep.atomics = data["atomics"]
        rep.ops, rep.span, rep.shuffles = data["ops"], data["span"], data["shuffles"]
        rep.barriers = int(meta["barriers"])
        rep.shared_arrays = int(meta["shared_arrays"])
        simreport.read_extras(rep, meta, case)
        outputs = {o: data[f"out_{o}"] for o in case.outputs}
        for o in case.outputs:  # on a GPU machine, the GPU's result is the one judged
            if f"gpu_{o}" in data:
                outputs[o] = data[f"gpu_{o}"]
    except (ValueError, KeyError, TypeError, OSError, json.JSONDecodeError) as e:
        return CaseResult(case, failure=f"no result (invalid result files: {e})"[:300])
    return CaseResult(case, outputs=outputs, report=rep)


@dataclass
class _Job:
    """One kernel made ready to run: its cases, their expected values and its sources."""

    ex: exs.Exercise
    part: exs.Part
    cases: list
    expected: list
    ext: source.Extracted
    why: str
    t0: float


def _prepare(ex, part, cells, seed, hidden, extra_seeds) -> _Job:
    t0 = time.perf_counter()
    cases = exs.public_cases(part)
    if hidden:
        for s in [secrets.randbits(64) if seed is None else seed, *(extra_seeds or ())]:
            cases += exs.hidden_cases(part, np.random.default_rng(s))
        for k, c in enumerate((c for c in cases if c.hidden), 1):
            c.label = f"hidden case {k}"
    expected = [part.reference(c.args) for c in cases]
    ext = source.extract(cells, [part.name], ex.constants)
    why = f"rejected: {ext.problems[part.name]}" if part.name in ext.problems else ""
    return _Job(ex, part, cases, expected, ext, why, t0)


def _finish(job: _Job, cells, run, compiled, hidden, seconds=None) -> PartResult:
    """Judge one kernel's run (``run``: (results, note), or None when it did not run)."""
    part, why = job.part, job.why
    results, note = run if run is not None else ([], "")
    if not why:
        # The gate's verdict is awaited only now: compiling overlaps with simulating.
        done = compiled.result() if isinstance(compiled, Future) else compiled
        if done is None or part.name not in done:
            done = compile_gate([(job.ex, part, cells)])
        error = done.get(part.name)
        why = f"does not compile for a GPU: {error}" if error else ""
    if why:
        results = [CaseResult(c, failure=why) for c in job.cases]
        note = why
    if not hidden:
        part = exs.public_only(part)
    verdicts = judge(part, results, job.expected)
    if note:
        for v in verdicts:
            if v.criterion == "public" and not v.passed and note not in v.output:
                v.output = f"{note}\n{v.output}"  # said once: the cases' lines may carry it
    took = time.perf_counter() - job.t0 if seconds is None else seconds
    return PartResult(job.ex.key, part.name, verdicts, took, note)


def run_part(
    ex: exs.Exercise,
    part: exs.Part,
    cells: list[str],
    *,
    seed: int | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    hidden: bool = True,
    gpu: bool | None = None,
    compiled: dict | Future | None = None,
    extra_seeds: tuple = (),
) -> PartResult:
    """Grade one kernel of a notebook (given as its code cells).

    Args:
        ex: The exercise.
        part: The kernel to grade.
        cells: Code cell sources of the submission notebook.
        seed: Seed for the hidden cases (default: a fresh random one).
        timeout: CPU seconds the child process may use (pdc.grade.sandbox).
        hidden: Whether to add hidden cases.
        gpu: Also run on a CUDA GPU (default: when pdc finds one).
        compiled: Kernel name -> None or why it does not compile, from ``compile_gate``,
            or a Future of it (default: compile this kernel after simulating it).
        extra_seeds: More seeds whose hidden cases are added, all run by one child process
            (to check a kernel under many draws at the cost of one start).

    Returns:
        A PartResult with one Verdict per criterion.
    """
    return run_parts(
        [(ex, part, cells)],
        seed=seed,
        timeout=timeout,
        hidden=hidden,
        gpu=gpu,
        compiled=compiled,
        extra_seeds=extra_seeds,
    )[0]


def run_parts(
    tasks: list,
    *,
    seed: int | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    hidden: bool = True,
    gpu: bool | None = None,
    compiled: dict | Future | None = None,
    extra_seeds: tuple = (),
) -> list[PartResult]:
    """Grade several kernels ((exercise, part, cells) each) in one child process.

    The child gets ``timeout`` CPU seconds per kernel. When it runs out, each kernel is graded
    again in a child of its own, so one endless kernel costs only its own points.
    """
    if gpu is None:
        gpu = _has_gpu()
    jobs = [_prepare(ex, part, cells, seed, hidden, extra_seeds) for ex, part, cells in tasks]
    live = [k for k, j in enumerate(jobs) if not j.why]
    runs: dict[int, tuple] = {}
    seconds: dict[int, float] = {}
    if live:
        out, took = _run_child([jobs[k] for k in live], timeout, gpu)
        if len(live) > 1 and any(note.startswith("timed out") for _, note in out):
            for k in live:  # which one ran out: each alone
                (runs[k],), (seconds[k],) = _run_child([jobs[k]], timeout, gpu)
        else:
            runs = dict(zip(live, out))
            seconds = dict(zip(live, took))
    return [
        _finish(j, tasks[k][2], runs.get(k), compiled, hidden, seconds.get(k))
        for k, j in enumerate(jobs)
    ]


def _has_gpu() -> bool:
    try:
        import pdc

        return bool(pdc.has_gpu())
    except (ImportError, AttributeError):
        return False


def _run_child(jobs: list, timeout: float, gpu: bool) -> tuple[list, list]:
    """Run ``jobs`` in one child: per job (case results, note), and seconds it took."""
    t0 = time.perf_counter()
    with sandbox.workspace() as ws:
        parts = []
        for k, j in enumerate(jobs):
            parts.append(
                {
                    "id": f"p{k}",
                    "kernel": j.part.name,
                    "module": gate.module_text(j.ext, j.part.name),
                    "cases": _write_inputs(j.cases, ws.inputs, f"p{k}", j.part),
                }
            )
        job = {
            "nonce": ws.nonce,
            "inputs": str(ws.inputs),
            "outdir": str(ws.out),
            "parts": parts,
            "gpu": bool(gpu),
        }
        note = sandbox.run_child(job, ws.root, timeout * len(jobs), gpu)
        out, took = [], []
        for k, j in enumerate(jobs):
            results = [
                _load_result(c, f"p{k}c{i}", ws.out, ws.nonce, gpu) for i, c in enumerate(j.cases)
            ]
            if note.startswith("timed out"):
                results = [
                    CaseResult(r.case, failure=note.split(" (")[0]) if r.failure else r
                    for r in results
                ]
            out.append((results, note))
            took.append(_seconds(ws.out / f"p{k}.seconds", time.perf_counter() - t0))
    return out, took


def _seconds(path: Path, default: float) -> float:
    """The child's own measure of one kernel's run (shown only), else ``default``."""
    try:
        v = float(path.read_text()[:20])
    except (OSError, ValueError):
        return default
    return v if 0 <= v < 1e6 else default


def find_notebooks(path: Path, warnings: list | None = None) -> dict:
    """Exercise key -> notebook path (see pdc.grade.notebook.find_notebooks)."""
    return notebook.find_notebooks(path, exs.ALL_KEYS, warnings)


def grade(
    path,
    *,
    only: list[str] | None = None,
    seed: int | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    jobs: int | None = None,
    hidden: bool = True,
    kernels: list[str] | None = None,
    extra_seeds: tuple = (),
) -> Submission:
    """Grade a submission: one notebook, or a folder with one notebook per exercise.

    Args:
        path: A notebook, or a folder of notebooks named after the exercises.
        only: Exercise keys to grade (default: those of the notebook, or all for a folder).
        seed: Seed for the hidden cases (default: fresh at every call).
        timeout: CPU seconds each kernel's run may use.
        jobs: Kernels graded at the same time (default: CPU count, at most 4).
        hidden: Whether hidden cases are added.
        kernels: Kernel names to grade (default: every kernel of the chosen exercises).
        extra_seeds: More seeds whose hidden cases are added to every kernel's run.

    Returns:
        A Submission with one PartResult per kernel.

    Raises:
        FileNotFoundError: ``path`` does not exist.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"[grade] expected a notebook or folder, got missing {path}")
    t0 = time.perf_counter()
    sub = Submission(path.stem if path.is_file() else path.name, str(path))
    if hidden and seed is None:
        seed = secrets.randbits(63)  # one seed per submission, recorded for a re-grade
    sub.seed = seed if hidden else None
    found = find_notebooks(path, sub.warnings)
    keys = only or (list(found) if path.is_file() else list(exs.ALL_KEYS))
    tasks = []
    for key in keys:
        if key not in exs.ALL_KEYS:
            raise ValueError(f"[grade] expected an exercise in {list(exs.ALL_KEYS)}, got {key!r}")
        ex = exs.exercise(key)
        if key not in found:
            for part in ex.parts:
                if kernels and part.name not in kernels:
                    continue
                sub.parts.append(_missing(ex, part, f"no notebook for {key} in {path}"))
            continue
        try:
            cells = notebook.notebook_cells(found[key])
        except notebook.NotebookError as e:  # this exercise scores 0; the others go on
            sub.warnings.append(str(e))
            sub.unreadable.append(str(found[key]))
            for part in ex.parts:
                if not kernels or part.name in kernels:
                    sub.parts.append(_missing(ex, part, str(e)))
            continue
        tasks += [(ex, part, cells) for part in ex.parts if not kernels or part.name in kernels]
    workers = jobs or min(4, os.cpu_count() or 1)
    # The simulated kernels go to one child per worker (each child pays numba's start-up
    # once); a part that grades itself (it has a runner) runs on its own.
    plain = [k for k, t in enumerate(tasks) if t[1].runner is None]
    groups = [plain[w::workers] for w in range(workers) if plain[w::workers]]
    results: list = [None] * len(tasks)
    with ThreadPoolExecutor(max_workers=workers + 1) as pool:
        compiled = pool.submit(compile_gate, [tasks[k] for k in plain])
        futures = {
            pool.submit(
                _grade_group, [tasks[k] for k in g], seed, timeout, hidden, compiled, extra_seeds
            ): g
            for g in groups
        }
        for k, (ex, part, cells) in enumerate(tasks):
            if part.runner is not None:
                fut = pool.submit(
                    _grade_task, ex, part, cells, seed, timeout, hidden, compiled, extra_seeds
                )
                futures[fut] = [k]
        for fut, g in futures.items():
            got = fut.result()
            for k, r in zip(g, got if isinstance(got, list) else [got]):
                results[k] = r
    for k, r in enumerate(results):
        if len(tasks) > 1 and r.note.startswith("timed out"):
            # Other kernels shared the machine: a slow run is retried alone before it counts.
            ex, part, cells = tasks[k]
            results[k] = _grade_task(ex, part, cells, seed, timeout, hidden, compiled, extra_seeds)
    sub.parts += results
    order = {k: i for i, k in enumerate(exs.ALL_KEYS)}
    sub.parts.sort(key=lambda p: order[p.exercise])
    sub.seconds = time.perf_counter() - t0
    return sub


def _grade_task(ex, part, cells, seed, timeout, hidden, compiled, extra_seeds=()):
    """Grade one kernel; a failure of the grader itself scores that kernel 0, with the reason."""
    try:
        return _grade_one(ex, part, cells, seed, timeout, hidden, compiled, extra_seeds)
    except Exception as e:  # one kernel must never stop the submission or the class
        return _missing(ex, part, f"could not be graded ({type(e).__name__}: {e})"[:500])


def _grade_group(tasks, seed, timeout, hidden, compiled, extra_seeds=()) -> list:
    """Grade simulated kernels in one child; a failure of the grader scores them 0."""
    try:
        return run_parts(
            tasks,
            seed=seed,
            timeout=timeout,
            hidden=hidden,
            compiled=compiled,
            extra_seeds=extra_seeds,
        )
    except Exception as e:  # one kernel must never stop the submission or the class
        why = f"could not be graded ({type(e).__name__}: {e})"[:500]
        return [_missing(ex, part, why) for ex, part, _ in tasks]


def _grade_one(ex, part, cells, seed, timeout, hidden, compiled, extra_seeds=()):
    grade_fn = part.runner or run_part
    kwargs = {"compiled": compiled} if part.runner is None else {}
    return grade_fn(
        ex,
        part,
        cells,
        seed=seed,
        timeout=timeout,
        hidden=hidden,
        extra_seeds=extra_seeds,
        **kwargs,
    )


def compile_gate(tasks) -> dict:
    """Compile every kernel of ``tasks`` ((exercise, part, cells)) for a GPU, in one process.

    Returns:
        Kernel name -> None when it compiles (or is rejected earlier, or no compiler is
        installed), else numba's error in one line.
    """
    from pdc.grade import gate

    jobs = []
    for ex, part, cells in tasks:
        ext = source.extract(cells, [part.name], ex.constants)
        if part.name in ext.problems:
            continue
        args = list(exs.public_cases(part)[0].args.values())
        jobs.append((part.name, gate.module_text(ext, part.name), part.name, args))
    return gate.check_compiles(jobs) if jobs else {}


def _missing(ex, part, why) -> PartResult:
    verdicts = [
        Verdict(f"{part.name}: {part.criterion_title(c)}", c, 0.0, float(p), why)
        for c, p in part.points.items()
    ]
    return PartResult(ex.key, part.name, verdicts, 0.0, why)

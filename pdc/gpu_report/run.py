"""``make gpu-report``: run the course on a real NVIDIA GPU and write what happened.

On a machine with an NVIDIA GPU, with that machine's own Python (numba-cuda, CuPy and
PyTorch as installed there; at most a folder of carried wheels is added, never anything
from a package registry), it runs the test suite with ``PDC_BACKEND=cuda`` (GPU tests
included), executes every chapter and solution notebook (their GPU branches run), runs
``pdc bench ring`` (with the launch-per-message baseline), and writes ``report.json`` and
``report.md`` into ``--out``. Each step has its own budget (tests 240 s, bench 90 s, notebooks
240 s, at most 150 s each), and every child runs in its own process group, killed whole when
its time is up, so the run ends in under 10 minutes; a step out of time is recorded as such.

This file runs as a plain script (``python pdc/gpu_report/run.py``) and imports only the
standard library, so that it can say clearly what is missing before anything else runs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# The MIME type under which the chapters store a measurement (see pdc/course/kit.py).
EVIDENCE_MIME = "application/vnd.pdc.evidence+json"
# numba_cuda, not numba.cuda: numba still ships a deprecated built-in numba.cuda.
NEEDED = ("numpy", "numba", "numba_cuda", "pytest", "nbformat", "nbclient", "ipykernel")
# Used by some chapters or tests; without them those fail, and the report says why.
OPTIONAL = ("cupy", "torch", "mlx", "matplotlib", "ipywidgets", "tqdm", "yaml", "nbval", "xdist")
# The tests that touch the GPU path: run with PDC_BACKEND=cuda, in parallel, each capped.
GPU_TESTS = (
    "tests/test_ring_cuda.py",
    "tests/test_ring_gpu_ready.py",
    "tests/test_ring_parking.py",
    "tests/test_buffer.py",
    "tests/test_kernel.py",
    "tests/test_backends.py",
    "tests/test_coursekit.py",
    "tests/test_device_limits.py",
    "tests/test_reach.py",
    "tests/test_ring_semantics.py",
    "tests/test_ring_crashes.py",
    "tests/test_ring_faults.py",
    "tests/test_ring_state_races.py",
    "tests/test_ring_bad_input.py",
    "tests/test_pool.py",
    "tests/test_backend_questions.py",
    "tests/test_gpu_doctor.py",
    "tests/test_gpu_guards.py",
)
# Test processes at once (pytest-xdist) and notebooks at once: a GPU node has the cores.
TEST_WORKERS = 8
NOTEBOOK_WORKERS = 6
STEPS = ("tests", "bench", "notebooks")
PER_TEST_S = 120
PER_NOTEBOOK_S = 150
# What the child reports of its CUDA stack: numba-cuda's own target, the libraries' GPU view.
STACK_PROBE = r"""
import json, importlib.metadata as md
out = {}
def version(dist):
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return None
for dist in ("numba-cuda", "numba", "cuda-bindings", "cuda-core", "cupy-cuda12x",
             "cupy-cuda13x", "torch"):
    out[dist] = version(dist)
try:
    from numba import cuda
    out["numba_cuda_implementation"] = getattr(cuda, "implementation", "unknown")
    dev = cuda.get_current_device()
    out["device"] = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    out["compute_capability"] = list(dev.compute_capability)
    out["driver_cuda"] = list(cuda.cudadrv.driver.driver.get_version())
except Exception as exc:
    out["numba_cuda_error"] = f"{type(exc).__name__}: {exc}"[:300]
try:
    from cuda.pathfinder import load_nvidia_dynamic_lib
    load_nvidia_dynamic_lib("nvJitLink")
    out["nvjitlink"] = True
except Exception as exc:
    out["nvjitlink"] = f"{type(exc).__name__}: {exc}"[:200]
try:
    import torch
    out["torch_cuda"] = torch.version.cuda
    out["torch_gpu"] = bool(torch.cuda.is_available())
except Exception as exc:
    out["torch_gpu"] = f"{type(exc).__name__}: {exc}"[:200]
try:
    import cupy
    out["cupy_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
    out["cupy_driver"] = cupy.cuda.runtime.driverGetVersion()
    out["cupy_gpu"] = cupy.cuda.runtime.getDeviceCount() > 0
except Exception as exc:
    out["cupy_gpu"] = f"{type(exc).__name__}: {exc}"[:200]
print(json.dumps(out))
"""


class Stop(Exception):
    """A reason the report cannot be made on this machine (printed, exit code 2)."""


def gpu_name() -> str:
    """The first NVIDIA GPU's name from ``nvidia-smi``, or raise :class:`Stop`."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        raise Stop("no NVIDIA GPU here: nvidia-smi is not installed")
    try:
        out = subprocess.run(
            [smi, "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Stop(f"nvidia-smi did not answer: {exc}") from exc
    lines = [ln.strip() for ln in out.stdout.splitlines() if ln.strip()]
    if out.returncode != 0 or not lines:
        raise Stop(f"nvidia-smi finds no GPU: {(out.stderr or out.stdout).strip()[:200]}")
    return lines[0]


def _env() -> dict[str, str]:
    env = dict(os.environ, PDC_BACKEND="cuda", NUMBA_ENABLE_CUDASIM="0")
    # The GPU named by nvidia-smi (PCI order) is the one measured; eager module loading, as
    # pdc asks for, so that no first launch waits for a resident ring kernel.
    env.update(CUDA_DEVICE_ORDER="PCI_BUS_ID", CUDA_MODULE_LOADING="EAGER")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def _run(cmd: list[str], seconds: float, cwd: Path = ROOT) -> dict[str, Any]:
    """Run ``cmd`` in its own process group; on timeout the whole group is killed.

    A notebook's Jupyter kernel is a grandchild: killing only the child would leave it, and
    any ring kernel it holds on the GPU, running for the rest of the report.
    """
    t0 = time.perf_counter()
    p = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        cwd=cwd,
        start_new_session=True,
    )
    try:
        out, err = p.communicate(timeout=max(seconds, 1))
        result = {"returncode": p.returncode, "stdout": out, "stderr": err}
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = p.communicate()
        result = {"returncode": None, "stdout": out, "stderr": f"timed out after {seconds:.0f} s"}
    result["seconds"] = round(time.perf_counter() - t0, 1)
    return result


def install_wheels(python: str, folder: Path) -> None:
    """``pip install --no-index`` every wheel in ``folder`` (no registry is contacted)."""
    wheels = sorted(str(w) for w in folder.glob("*.whl"))
    if not wheels:
        raise Stop(f"WHEELS={folder}: expected a folder of .whl files, found none")
    cmd = [python, "-m", "pip", "install", "--no-index", "--find-links", str(folder), *wheels]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Stop(f"installing the carried wheels failed: {p.stderr.strip()[-400:]}")


def missing_modules(python: str, modules: tuple[str, ...] = NEEDED) -> list[str]:
    """The modules of ``modules`` this Python cannot import."""
    code = (
        "import importlib.util as u, sys\n"
        f"print(','.join(m for m in {modules!r} if u.find_spec(m.split('.')[0]) is None))"
    )
    p = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    return [m for m in p.stdout.strip().split(",") if m]


def stack(python: str) -> dict[str, Any]:
    """numba-cuda, cuda-bindings, the driver, nvJitLink, and what torch and CuPy see."""
    p = subprocess.run([python, "-c", STACK_PROBE], capture_output=True, text=True, timeout=120)
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"error": (p.stderr or p.stdout).strip()[-300:]}


def pytest_command(python: str, out: Path, parallel: bool) -> list[str]:
    """The GPU-relevant tests, several at a time where pytest-xdist is there, each capped.

    ``-v`` prints one line per test as it ends, so a run stopped by its budget still says
    which tests passed and failed (the JUnit file is written only at the end).
    """
    cmd = [python, "-m", "pytest", "-v", "-p", "no:cacheprovider", *GPU_TESTS]
    cmd += [f"--junitxml={out / 'pytest.xml'}", "-o", "addopts=-ra", "-m", "not network"]
    cmd += [f"--timeout={PER_TEST_S}", "--durations=15"]
    return [*cmd, "-n", str(TEST_WORKERS)] if parallel else cmd


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def plain(text: str) -> str:
    """``text`` without terminal colour codes (nbclient colours the tracebacks it raises)."""
    return _ANSI.sub("", text)


_OUTCOME = re.compile(r"\b(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b.*?(tests/\S+::\S+)")


def outcomes_from_log(text: str) -> dict[str, str]:
    """``test id -> outcome`` from pytest's ``-v`` lines (with or without xdist's prefix)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        m = _OUTCOME.search(line)
        if m is None:  # without xdist the id comes first: "tests/x.py::t PASSED [ 3%]"
            m2 = re.match(r"(tests/\S+::\S+)\s+(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)", line)
            if m2:
                found[m2.group(1)] = m2.group(2)
            continue
        found[m.group(2)] = m.group(1)
    return found


def step_pytest(python: str, out: Path, seconds: float, parallel: bool = True) -> dict[str, Any]:
    """The GPU-relevant tests with PDC_BACKEND=cuda, GPU-marked tests included."""
    xml = out / "pytest.xml"
    xml.unlink(missing_ok=True)  # a JUnit file left by an earlier run would be read as this one's
    r = _run(pytest_command(python, out, parallel), seconds)
    (out / "pytest.log").write_text((r["stdout"] or "") + "\n--- stderr ---\n" + r["stderr"])
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    failed: list[str] = []
    if not xml.is_file():  # stopped by its budget: count what the log shows
        seen = outcomes_from_log(r["stdout"] or "")
        counts["tests"] = len(seen)
        counts["failures"] = sum(v == "FAILED" for v in seen.values())
        counts["errors"] = sum(v == "ERROR" for v in seen.values())
        counts["skipped"] = sum(v == "SKIPPED" for v in seen.values())
        failed = sorted(k for k, v in seen.items() if v in ("FAILED", "ERROR"))
    else:
        root = ET.parse(xml).getroot()
        suite = root if root.tag == "testsuite" else root.find("testsuite")
        if suite is not None:
            counts = {k: int(suite.get(k, 0)) for k in counts}
            for case in suite.iter("testcase"):
                if case.find("failure") is not None or case.find("error") is not None:
                    failed.append(f"{case.get('classname')}::{case.get('name')}")
    if r["returncode"] is None:  # stopped by the budget: its partial output is no summary
        summary = r["stderr"]
    else:
        summary = (r["stdout"].strip().splitlines()[-1:] or [r["stderr"][-200:]])[0]
    return {
        **counts,
        "failed": failed,
        "seconds": r["seconds"],
        "summary": summary,
        "passed": r["returncode"] == 0,
    }


def all_notebooks() -> list[Path]:
    """Every chapter and solution notebook, in order."""
    books = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
    return books + sorted((ROOT / "solutions").glob("[0-9]*.ipynb"))


def step_notebooks(
    python: str,
    out: Path,
    seconds: float,
    books: list[Path] | None = None,
    at_once: int = NOTEBOOK_WORKERS,
) -> list[dict[str, Any]]:
    """Execute chapter and solution notebooks (copies; the tree is not modified).

    ``at_once`` run together, each in its own process group. Unless that is 1, their timings
    share the GPU and the CPU and are not quiet-machine figures: ``measurements`` leaves the
    chapters' own measurements out.
    """
    from concurrent.futures import ThreadPoolExecutor

    books = all_notebooks() if books is None else books
    shutil.rmtree(out / "notebooks", ignore_errors=True)  # nothing left from an earlier run
    deadline = time.monotonic() + seconds
    with ThreadPoolExecutor(max_workers=at_once) as pool:
        return list(pool.map(lambda nb: _one_notebook(python, out, nb, deadline), books))


def _one_notebook(python: str, out: Path, nb: Path, deadline: float) -> dict[str, Any]:
    """Execute one notebook into ``out/notebooks/...`` before ``deadline``; what happened."""
    left = deadline - time.monotonic()
    rel = nb.relative_to(ROOT).as_posix()
    if left < 5:
        return {"notebook": rel, "ok": False, "error": "not run: out of time"}
    dest = out / "notebooks" / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    code = (
        "import sys, nbformat\nfrom nbclient import NotebookClient\n"
        "nb = nbformat.read(sys.argv[1], as_version=4)\n"
        "try:\n"
        "    NotebookClient(nb, timeout=int(sys.argv[3]), kernel_name='python3',\n"
        "                   resources={'metadata': {'path': sys.argv[4]}}).execute()\n"
        "finally:\n"
        "    nbformat.write(nb, sys.argv[2])\n"
    )
    cap = min(left, PER_NOTEBOOK_S)
    cmd = [python, "-c", code, str(nb), str(dest), str(int(cap)), str(nb.parent)]
    r = _run(cmd, cap)
    error = ""
    if r["returncode"] != 0:
        text = plain(r["stderr"] or "")
        lines = [ln for ln in text.splitlines() if ln.strip()]
        error = lines[-1][:300] if lines else "failed"
        dest.with_suffix(".log").write_text(r["stderr"] or "")
    return {
        "notebook": rel,
        "ok": not error,
        "seconds": r["seconds"],
        "error": error,
        "evidence": evidence_records(dest),
    }


def evidence_records(path: Path) -> list[dict[str, Any]]:
    """The measurements an executed notebook recorded beside their same-run baselines."""
    try:
        nb = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    found = []
    for cell in nb.get("cells", []):
        for output in cell.get("outputs", []):
            record = output.get("data", {}).get(EVIDENCE_MIME)
            if isinstance(record, dict) and isinstance(record.get("name"), str):
                found.append(record)
    return found


def step_bench(python: str, seconds: float) -> dict[str, Any]:
    """``pdc bench ring --json`` (ring kernel and launch-per-message baseline)."""
    cmd = [python, "-m", "pdc", "bench", "ring", "--json", "--no-progress"]
    r = _run([*cmd, "--backends", "cpu,cuda"], seconds)
    try:
        return {"seconds": r["seconds"], "result": json.loads(r["stdout"])}
    except json.JSONDecodeError:
        return {"seconds": r["seconds"], "error": (r["stderr"] or r["stdout"]).strip()[-400:]}


def measurements(report: dict[str, Any]) -> dict[str, Any]:
    """Flat ``key -> number`` figures the chapters can quote (see ``reference``).

    What the chapters measured (``evidence.*``) is kept only from notebooks run one at a time
    (``notebooks_at_once`` 1): beside other notebooks it measures their load, not the GPU's.
    """
    flat: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            flat[prefix] = value

    walk("bench_ring", report.get("bench_ring", {}).get("result", {}))
    for nb in report.get("notebooks", []):
        if nb.get("ok"):
            flat[f"notebook.{Path(nb['notebook']).stem}.seconds"] = nb["seconds"]
        if report.get("notebooks_at_once") != 1:
            continue
        for record in nb.get("evidence", []):  # what the chapters measured, under their names
            for field in ("seconds", "baseline_seconds"):
                if isinstance(record.get(field), (int, float)):
                    flat[f"evidence.{record['name']}.{field}"] = record[field]
            if isinstance(record.get("device"), str):  # where the cell timed its work
                flat[f"evidence.{record['name']}.on_gpu"] = int(record["device"] != "cpu")
    return flat


def markdown(report: dict[str, Any]) -> str:
    """The report as Markdown: device, tests, notebooks, benchmark figures."""
    t = report.get("pytest") or {"summary": "not run"}
    lines = [
        f"# GPU report: {report['device']}",
        "",
        f"{report['date']}, Python {report['python']}, {report['platform']}, "
        f"{report['seconds']:.0f} s in all.",
        "",
        f"Not installed here: {', '.join(report.get('missing_optional', [])) or 'nothing'}.",
        "",
        f"## Tests (PDC_BACKEND=cuda): {t.get('summary', '')}",
    ]
    if "tests" in t:
        lines += [
            "",
            f"{t['tests']} tests, {t.get('failures', 0)} failures, {t.get('errors', 0)} errors,"
            f" {t.get('skipped', 0)} skipped, {t.get('seconds', 0)} s.",
        ]
    lines += [f"- failed: `{name}`" for name in t.get("failed", [])]
    at_once = report.get("notebooks_at_once", NOTEBOOK_WORKERS)
    left_out = sum(len(nb.get("evidence", [])) for nb in report.get("notebooks", []))
    lines += ["", "## Notebooks", ""]
    if report.get("notebooks") and at_once != 1 and left_out:
        lines += [
            f"{at_once} at a time: the {left_out} measurements the chapters made are left out "
            "of the figures (`--notebooks-at-once 1` keeps them).",
            "",
        ]
    lines += ["| notebook | ok | seconds | error |", "|---|---|---|---|"]
    for nb in report.get("notebooks", []):
        err = nb.get("error", "").replace("|", "\\|")
        lines.append(
            f"| {nb['notebook']} | {'yes' if nb['ok'] else 'NO'} | "
            f"{nb.get('seconds', '')} | {err} |"
        )
    lines += ["", "## Figures", "", "| key | value |", "|---|---|"]
    lines += [f"| {k} | {v:.4g} |" for k, v in report["measurements"].items()]
    return "\n".join(lines) + "\n"


def plan(
    python: str,
    out: Path,
    budgets: dict[str, float],
    parallel: bool,
    steps: tuple[str, ...] = STEPS,
    books: list[Path] | None = None,
    at_once: int = NOTEBOOK_WORKERS,
) -> dict[str, Any]:
    """The commands the report runs and the seconds each step may take (``--dry-run``)."""
    books = all_notebooks() if books is None else books
    bench = [python, "-m", "pdc", "bench", "ring", "--json", "--no-progress"]
    every = [
        {"step": "tests", "budget": budgets["tests"], "cmd": pytest_command(python, out, parallel)},
        {"step": "bench", "budget": budgets["bench"], "cmd": [*bench, "--backends", "cpu,cuda"]},
        {
            "step": "notebooks",
            "budget": budgets["notebooks"],
            "each": PER_NOTEBOOK_S,
            "at_once": at_once,
            "notebooks": [nb.relative_to(ROOT).as_posix() for nb in books],
        },
    ]
    return {
        "env": {k: _env()[k] for k in ("PDC_BACKEND", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING")},
        "steps": [s for s in every if s["step"] in steps],
    }


def main(argv: list[str] | None = None) -> int:
    """Make the report; returns 0 when every step passed, 1 when one failed, 2 if impossible."""
    parser = argparse.ArgumentParser(prog="make gpu-report", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="gpu-report", help="folder for report.json/.md")
    parser.add_argument("--wheels", default="", help="folder of carried wheels (no index)")
    parser.add_argument("--tests-budget", type=float, default=240.0, help="seconds for the tests")
    parser.add_argument("--bench-budget", type=float, default=90.0, help="seconds for the bench")
    parser.add_argument("--notebooks-budget", type=float, default=240.0, help="all notebooks")
    parser.add_argument(
        "--steps",
        default=",".join(STEPS),
        help="which steps, comma-separated (default: %(default)s)",
    )
    parser.add_argument(
        "--notebooks",
        nargs="+",
        metavar="PATH",
        help="only these notebooks (paths from the course folder; default: every one)",
    )
    parser.add_argument(
        "--notebooks-at-once",
        type=int,
        default=NOTEBOOK_WORKERS,
        help="notebooks run together (default %(default)s); 1 keeps the chapters' timings",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print the plan as JSON, run nothing"
    )
    args = parser.parse_args(argv)
    steps = tuple(x.strip() for x in args.steps.split(",") if x.strip())
    if not steps or set(steps) - set(STEPS):
        parser.error(f"--steps: expected some of {', '.join(STEPS)}, got {args.steps!r}")
    if args.notebooks_at_once < 1:
        parser.error(f"--notebooks-at-once: expected 1 or more, got {args.notebooks_at_once}")
    books = None
    if args.notebooks:
        books = [(ROOT / p).resolve() for p in args.notebooks]
        missing_nb = [p for p, b in zip(args.notebooks, books) if not b.is_file()]
        if missing_nb:
            parser.error(f"--notebooks: no such notebook: {', '.join(missing_nb)}")
    python = sys.executable
    budgets = {"tests": args.tests_budget, "bench": args.bench_budget}
    budgets["notebooks"] = args.notebooks_budget
    t0 = time.monotonic()
    try:
        device = gpu_name()
        if args.wheels:
            install_wheels(python, Path(args.wheels))
        missing = missing_modules(python)
        if missing:
            raise Stop(
                f"this Python ({python}) lacks {', '.join(missing)}: carry their wheels "
                "and pass WHEELS=folder (installed with pip --no-index)"
            )
    except Stop as why:
        print(f"make gpu-report: {why}.", file=sys.stderr)
        print(
            "It runs on a machine with an NVIDIA GPU, with that machine's Python: "
            "make gpu-report PYTHON=/path/to/python [WHEELS=folder] [OUT=folder]",
            file=sys.stderr,
        )
        return 2
    out = Path(args.out).resolve()
    parallel = not missing_modules(python, ("xdist",))
    if args.dry_run:
        steps_plan = plan(python, out, budgets, parallel, steps, books, args.notebooks_at_once)
        print(json.dumps({"device": device, **steps_plan}, indent=1))
        return 0
    out.mkdir(parents=True, exist_ok=True)
    print(f"gpu-report on {device}: {', '.join(steps)} (budgets {budgets} s)")
    report: dict[str, Any] = {
        "device": device.split(",")[0].strip(),
        "device_details": device,
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "missing_optional": missing_modules(python, OPTIONAL),
        "stack": stack(python),
        "budgets": budgets,
        "notebooks_at_once": args.notebooks_at_once,
    }
    if report["stack"].get("numba_cuda_implementation") not in ("NVIDIA", None):
        print(f"  numba.cuda is {report['stack']['numba_cuda_implementation']}, not numba-cuda")
    report["pytest"] = {}
    if "tests" in steps:
        report["pytest"] = step_pytest(python, out, budgets["tests"], parallel)
        print(f"  tests: {report['pytest']['summary']}")
    report["bench_ring"] = {}
    if "bench" in steps:
        report["bench_ring"] = step_bench(python, budgets["bench"])
        print(f"  bench ring: {report['bench_ring'].get('error') or 'done'}")
    report["notebooks"] = []
    if "notebooks" in steps:
        report["notebooks"] = step_notebooks(
            python, out, budgets["notebooks"], books, args.notebooks_at_once
        )
    bad = [nb["notebook"] for nb in report["notebooks"] if not nb["ok"]]
    if report["notebooks"]:
        print(f"  notebooks: {len(report['notebooks']) - len(bad)} ran, failed: {bad or 'none'}")
    report["measurements"] = measurements(report)
    report["seconds"] = round(time.monotonic() - t0, 1)
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    (out / "report.md").write_text(markdown(report))
    print(f"wrote {out / 'report.json'} and {out / 'report.md'}")
    tests_ok = report["pytest"].get("passed", True)
    return 0 if tests_ok and not bad and "error" not in report["bench_ring"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""Every supported install resolves against the package index, without downloading it.

``pip install --dry-run --ignore-installed --report`` for each machine the course supports:
no NVIDIA driver, a CUDA 12 driver, a CUDA 13 driver (``make env`` picks one of the three from
the driver, with ``-c constraints.txt -c stacks/STACK.txt``), and hosted notebooks whose image
already holds torch and CuPy (Colab, Kaggle), where only the ``hosted`` extra is added. The
package index does not announce its wheels' metadata files, so without help pip would download
every wheel (about 3 GB for torch and its CUDA libraries alone); ``--use-feature=fast-deps``
makes it read each wheel's METADATA with HTTP range requests instead (a few MB in all).

Run it with ``make check-installs`` (or ``python -m tests.install_check``); it exits 1 when a
combination does not resolve (pip's ResolutionImpossible) or a CUDA stack mixes CUDA majors.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INDEX = "https://pypi.org/simple"


@dataclass(frozen=True)
class Combination:
    """One supported install: what pip is asked for, and which CUDA major it must hold."""

    name: str
    requirements: tuple[str, ...]
    constraints: tuple[str, ...] = ()
    cuda_major: int | None = None  # every CUDA wheel of the stack belongs to this major

    def pip_args(self, report: Path, index: str) -> list[str]:
        args = [sys.executable, "-m", "pip", "--isolated", "install", "--dry-run"]
        args += ["--ignore-installed", "--use-feature=fast-deps"]
        args += ["--report", str(report), "--index-url", index, "--no-cache-dir"]
        for c in self.constraints:
            args += ["-c", str(ROOT / c)]
        for r in self.requirements:
            args += ["-e", r] if r.startswith(str(ROOT)) else [r]
        return args


COMBINATIONS = (
    Combination("cpu", (f"{ROOT}[course,dev,metal,ptx]",), ("constraints.txt", "stacks/cpu.txt")),
    Combination(
        "cu12", (f"{ROOT}[course,dev,metal,cuda12]",), ("constraints.txt", "stacks/cu12.txt"), 12
    ),
    Combination(
        "cu13", (f"{ROOT}[course,dev,metal,cuda13]",), ("constraints.txt", "stacks/cu13.txt"), 13
    ),
    # Hosted images: their torch and CuPy stay; what the course adds must agree with them.
    Combination("colab-like", (f"{ROOT}[hosted]", "torch==2.9.0", "cupy-cuda12x==13.6.0")),
    Combination("kaggle-like", (f"{ROOT}[hosted]", "torch==2.6.0", "cupy-cuda12x==13.4.1")),
)


@dataclass
class Outcome:
    name: str
    ok: bool
    seconds: float
    problems: list[str] = field(default_factory=list)
    installs: dict[str, str] = field(default_factory=dict)


def mixed_majors(installs: dict[str, str], major: int) -> list[str]:
    """CUDA wheels in ``installs`` that belong to a CUDA major other than ``major``.

    A ``-cu12``/``-cu13`` suffix names the major; ``cuda-bindings`` and ``cuda-toolkit`` carry
    it as their version's major; unsuffixed ``nvidia-*`` wheels exist only from CUDA 13 on.
    """
    wrong = []
    for name, version in sorted(installs.items()):
        suffix = re.search(r"-cu(\d+)$", name)
        if suffix:
            if int(suffix.group(1)) != major:
                wrong.append(f"{name}=={version}")
        elif name in ("cuda-bindings", "cuda-toolkit"):
            if int(version.split(".")[0]) != major:
                wrong.append(f"{name}=={version}")
        elif name.startswith("nvidia-") and major < 13:
            wrong.append(f"{name}=={version}")
    return wrong


def pip_problem(stderr: str) -> str:
    """The lines of pip's output that say why it failed (the conflict, not the noise)."""
    keep = [
        ln.strip()
        for ln in stderr.splitlines()
        if re.search(r"ResolutionImpossible|depends on|conflict|ERROR|No matching", ln)
    ]
    return "\n".join(keep[:12]) or stderr.strip()[-600:]


def check(combo: Combination, index: str = INDEX, timeout: float = 540) -> Outcome:
    """Resolve one combination with pip's dry run; never installs, reads only wheel metadata."""
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"pdc-install-{combo.name}-") as tmp:
        report = Path(tmp) / "report.json"
        try:
            run = subprocess.run(
                combo.pip_args(report, index),
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=tmp,
            )
        except subprocess.TimeoutExpired:
            return Outcome(
                combo.name, False, time.perf_counter() - t0, problems=[f"pip ran past {timeout} s"]
            )
        out = Outcome(combo.name, run.returncode == 0, 0.0)
        if run.returncode != 0:
            out.problems.append(pip_problem(run.stderr + run.stdout))
        else:
            data = json.loads(report.read_text())
            for item in data["install"]:
                meta = item["metadata"]
                out.installs[re.sub(r"[-_.]+", "-", meta["name"]).lower()] = meta["version"]
    if out.ok and combo.cuda_major is not None:
        wrong = mixed_majors(out.installs, combo.cuda_major)
        if wrong:
            out.ok = False
            out.problems.append(f"CUDA {combo.cuda_major} stack holds {', '.join(wrong)}")
    out.seconds = time.perf_counter() - t0
    return out


def check_all(names: list[str] | None = None, index: str = INDEX) -> list[Outcome]:
    combos = [c for c in COMBINATIONS if not names or c.name in names]
    unknown = set(names or ()) - {c.name for c in COMBINATIONS}
    if unknown:
        raise ValueError(
            f"[install check] unknown combination(s) {sorted(unknown)}; "
            f"expected some of {[c.name for c in COMBINATIONS]}"
        )
    return check_many(combos, index)


def check_many(combos: list[Combination], index: str = INDEX) -> list[Outcome]:
    """Resolve several combinations at once: each pip waits on the network, not the CPU."""
    with ThreadPoolExecutor(max_workers=len(combos)) as pool:
        return list(pool.map(lambda c: check(c, index), combos))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="combinations to check (default: all)")
    parser.add_argument("--index-url", default=INDEX)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    outcomes = check_all(args.names, args.index_url)
    for o in outcomes:
        state = "resolves" if o.ok else "FAILS"
        print(f"{o.name:12s} {state:9s} {o.seconds:5.0f} s")
        for p in o.problems:
            print("    " + p.replace("\n", "\n    "))
    print(f"{len(outcomes)} combinations in {time.perf_counter() - t0:.0f} s")
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())

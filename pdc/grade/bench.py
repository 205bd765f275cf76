"""``pdc bench grade``: grade a synthetic class with one command and time it.

Builds N student folders in a temporary folder: every exercise's solution notebook, with some
students' notebooks replaced by the wrong and cheating submissions of ``tests/submissions/``
(when the course repository is at hand), one in ten with a notebook cut short and one in ten
with a 0-byte notebook. Then it runs ``pdc grade --class`` on them exactly as an instructor
would (CSV, per-student reports, class report) and prints the time per student, the total,
and a linear extrapolation to a class of 300.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _wrong_cases(root: Path) -> list[Path]:
    subs = root / "tests" / "submissions"
    if not subs.is_dir():
        return []
    return sorted(p for p in subs.iterdir() if (p / "expect.json").is_file())


def build_class(folder: Path, n: int, root: Path = ROOT) -> dict[str, str]:
    """Write ``n`` student folders under ``folder``; returns student name -> what it holds."""
    from pdc.grade import exercises as exs

    solutions = root / "solutions"
    wrong = _wrong_cases(root)
    kinds: dict[str, str] = {}
    for k in range(n):
        name = f"student{k:03d}"
        d = folder / name
        d.mkdir(parents=True)
        for key in exs.ALL_KEYS:
            shutil.copy(solutions / f"{key}.ipynb", d / f"{key}.ipynb")
        key = exs.ALL_KEYS[k % len(exs.ALL_KEYS)]
        if k % 10 == 3:
            text = (d / f"{key}.ipynb").read_text()
            (d / f"{key}.ipynb").write_text(text[: len(text) // 2])
            kinds[name] = f"{key} cut short"
        elif k % 10 == 7:
            (d / f"{key}.ipynb").write_bytes(b"")
            kinds[name] = f"{key} empty"
        elif wrong and k % 5 != 0:
            case = wrong[k % len(wrong)]
            expect = json.loads((case / "expect.json").read_text())
            for nb in case.glob("*.ipynb"):
                target = d / f"{expect['exercise']}.ipynb"
                shutil.copy(nb, target if nb.name.startswith(expect["exercise"]) else d / nb.name)
            kinds[name] = f"wrong: {case.name}"
        else:
            kinds[name] = "every solution"
    return kinds


_DEF = re.compile(r"^(\s*)def \w+\(.*\):\s*$")


def make_distinct(folder: Path, tag: str) -> None:
    """Give every function in the notebooks of ``folder`` a comment line naming ``tag``.

    Students' kernels differ from each other; copies of one solution would let every cache
    keyed by source text (the compile gates' verdicts, kept in memory and on disk) answer all
    but the first student.
    """
    for nb in folder.glob("*.ipynb"):
        try:
            data = json.loads(nb.read_text())
        except ValueError:
            continue  # the corrupted and empty notebooks stay as they are
        for cell in data.get("cells", []):
            if cell.get("cell_type") != "code":
                continue
            src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            lines = []
            for line in src.split("\n"):
                lines.append(line)
                m = _DEF.match(line)
                if m:
                    lines.append(f"{m.group(1)}    # {tag}")
            cell["source"] = "\n".join(lines)
        nb.write_text(json.dumps(data, indent=1))


def main(argv: list[str] | None = None) -> int:
    """Run ``pdc bench grade``; returns the exit status."""
    ap = argparse.ArgumentParser(prog="pdc bench grade", description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=20, help="synthetic students (default 20)")
    ap.add_argument("--jobs", type=int, help="students graded at once (default: the CPUs)")
    ap.add_argument("--seed", type=int, default=1, help="hidden-case seed (default 1)")
    ap.add_argument(
        "--distinct",
        action="store_true",
        help="a comment naming the student and this run in every function: no two students' "
        "sources alike, none seen by an earlier run",
    )
    ap.add_argument("--keep", type=Path, metavar="DIR", help="build the class here and keep it")
    args = ap.parse_args(argv)
    if args.students < 1:
        ap.error(f"expected --students >= 1, got {args.students}")
    from pdc.grade import batch, cli

    tmp = None if args.keep else tempfile.mkdtemp(prefix="pdc-bench-grade-")
    work = args.keep or Path(tmp or ".")
    try:
        kinds = build_class(work / "class", args.students)
        if args.distinct:
            # A tag new to this run: verdicts kept on disk by an earlier run answer nothing.
            run = secrets.token_hex(4)
            for name in kinds:
                make_distinct(work / "class" / name, f"{name} {run}")
        out = work / "reports"
        argv2 = ["--class", str(work / "class"), "--out-dir", str(out), "-q"]
        argv2 += ["--csv", str(work / "scores.csv"), "--report", str(work / "class.html")]
        argv2 += ["--seed", str(args.seed)] + (["--jobs", str(args.jobs)] if args.jobs else [])
        t0, start = time.perf_counter(), time.time()
        status = cli.main(argv2)
        wall = time.perf_counter() - t0
        subs = batch.read_outputs([out])
        print()
        print(f"{'student':12s} {'holds':48s} {'score':>7s} {'seconds':>8s}")
        for s in subs:
            print(f"{s.name:12s} {kinds.get(s.name, '?')[:48]:48s} {s.score:7.2f} {s.seconds:8.1f}")
        with_result = sum((out / n / "results.json").is_file() for n in kinds)
        jobs = args.jobs or os.cpu_count() or 1
        print(
            f"\n{len(kinds)} students, {with_result} with results.json; exit status {status}; "
            f"{wall:.1f} s wall ({wall / len(kinds):.2f} s per student, {jobs} jobs, "
            f"{os.cpu_count()} CPUs)"
        )
        print(f"linear extrapolation to 300 students: {wall / len(kinds) * 300 / 60:.1f} min")
        done = sorted(
            (out / n / "results.json").stat().st_mtime - start
            for n in kinds
            if (out / n / "results.json").is_file()
        )
        if len(done) >= 4:
            # The first results pay the one-off start (imports, warm zygotes); later ones
            # come at the class's steady rate.
            steady = (done[-1] - done[0]) / (len(done) - 1)
            print(
                f"first result after {done[0]:.1f} s, then {steady:.2f} s per student: "
                f"{(done[0] + 299 * steady) / 60:.1f} min for 300 students"
            )
        return 0 if with_result == len(kinds) else 1
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

"""``pdc grade``: grade submission notebooks or folders, print a table, write reports.

The exit status says whether grading ran (0), not the score; 2 means bad arguments or a
missing path. Scores go to the table, ``--json`` (Gradescope), ``--junit`` and ``--csv``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="pdc grade",
        description="Grade exercise notebooks. Each PATH is one submission: a notebook, or a "
        "folder holding one notebook per exercise (01_elementwise.ipynb, ...).",
    )
    ap.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    ap.add_argument(
        "-e",
        "--exercise",
        action="append",
        metavar="KEY",
        help="grade only this exercise (repeatable), e.g. 03_matmul",
    )
    ap.add_argument(
        "--json", type=Path, metavar="FILE", help="write Gradescope results.json (one submission)"
    )
    ap.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML (one submission)")
    ap.add_argument("--csv", type=Path, metavar="FILE", help="write one row of scores per PATH")
    ap.add_argument(
        "--out-dir",
        type=Path,
        metavar="DIR",
        help="write DIR/NAME/results.json and junit.xml for every submission",
    )
    ap.add_argument("--seed", type=int, help="seed for hidden cases (default: fresh each run)")
    ap.add_argument(
        "--timeout", type=float, default=None, help="seconds one kernel's run may take (default 30)"
    )
    ap.add_argument("--jobs", type=int, help="kernels graded at once (default: CPUs, max 4)")
    ap.add_argument("--no-hidden", action="store_true", help="public cases only")
    ap.add_argument("-q", "--quiet", action="store_true", help="totals only, no details")
    return ap


def main(argv: list[str] | None = None) -> int:
    """Run ``pdc grade``; returns the exit status."""
    args = _parser().parse_args(argv)
    from pdc.grade import report
    from pdc.grade.grader import DEFAULT_TIMEOUT_S, grade

    if len(args.paths) > 1 and (args.json or args.junit):
        print("pdc grade: --json/--junit take one PATH; use --out-dir for several", file=sys.stderr)
        return 2
    subs = []
    for path in args.paths:
        try:
            sub = grade(
                path,
                only=args.exercise,
                seed=args.seed,
                timeout=args.timeout or DEFAULT_TIMEOUT_S,
                jobs=args.jobs,
                hidden=not args.no_hidden,
            )
        except (FileNotFoundError, ValueError) as e:
            print(f"pdc grade: {e}", file=sys.stderr)
            return 2
        subs.append(sub)
        print(report.table(sub, details=not args.quiet))
        print()
        if args.out_dir:
            d = args.out_dir / sub.name
            d.mkdir(parents=True, exist_ok=True)
            report.write_json(sub, d / "results.json")
            (d / "junit.xml").write_text(report.junit(sub))
    if args.json:
        report.write_json(subs[0], args.json)
    if args.junit:
        args.junit.write_text(report.junit(subs[0]))
    if args.csv:
        args.csv.write_text(report.scores_csv(subs))
        print(f"wrote {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

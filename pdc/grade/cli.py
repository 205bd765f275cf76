"""``pdc grade``: grade submission notebooks or folders, print scores, write reports.

``pdc grade PATH...`` grades each PATH (a notebook, or a student's folder); ``--class DIR``
adds every sub-folder of DIR. ``--shard i/n`` keeps the i-th of n equal shares, and
``pdc grade merge DIR...`` combines the ``--out-dir`` folders of the shards.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_STATUS = """\
exit status:
  0  every submission was graded (whatever its scores)
  1  every submission was graded, but at least one notebook could not be read (empty, cut
     short, not a notebook) or a PATH does not exist: that exercise scores 0 with the reason,
     and every report and the CSV are written all the same
  2  the command itself is wrong (unknown option or exercise, bad --shard): nothing graded
  130  Ctrl-C on several submissions: those finished before it have their reports, CSV rows
     and class report; the rest are not graded (their grading children are stopped)
"""


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="pdc grade",
        description="Grade exercise notebooks. Each PATH is one submission: a notebook, or a "
        "folder (searched with its sub-folders) holding one notebook per exercise "
        "(NN_name.ipynb, named as in exercises/). `pdc grade merge DIR...` combines shards.",
        epilog=EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    ap.add_argument(
        "--class",
        dest="class_dirs",
        action="append",
        type=Path,
        metavar="DIR",
        help="grade every sub-folder of DIR as one student's submission (repeatable)",
    )
    ap.add_argument(
        "-e",
        "--exercise",
        action="append",
        metavar="KEY",
        help="grade only this exercise (repeatable): its notebook's name without .ipynb",
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
        help="write DIR/NAME/results.json, junit.xml and submission.json for every submission",
    )
    ap.add_argument(
        "--report", type=Path, metavar="FILE", help="write the class report (HTML, works offline)"
    )
    ap.add_argument(
        "--seed",
        type=int,
        help="seed for hidden cases (default: a fresh one, recorded in results.json and the "
        "CSV; pass it again to re-grade exactly)",
    )
    ap.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="CPU seconds one kernel's run may use (default 60)",
    )
    ap.add_argument("--jobs", type=int, help="kernels graded at once (default: the CPU count)")
    ap.add_argument("--shard", metavar="i/n", help="grade only the i-th of n shares of the PATHs")
    ap.add_argument("--no-hidden", action="store_true", help="public cases only")
    ap.add_argument("-q", "--quiet", action="store_true", help="one line per submission")
    return ap


def _merge_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="pdc grade merge",
        description="Combine the --out-dir folders of `pdc grade --shard` runs into one CSV "
        "and one class report.",
    )
    ap.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    ap.add_argument("--csv", type=Path, metavar="FILE", help="write the class CSV")
    ap.add_argument("--report", type=Path, metavar="FILE", help="write the class report (HTML)")
    ap.add_argument("-q", "--quiet", action="store_true", help="totals only")
    return ap


def _finish(subs, csv_path, report_path, quiet) -> None:
    from pdc.grade import batch, classreport

    if csv_path:
        csv_path.parent.mkdir(parents=True, exist_ok=True)
        csv_path.write_text(batch.scores_csv(subs))
        print(f"wrote {csv_path}")
    if report_path:
        report_path.parent.mkdir(parents=True, exist_ok=True)
        report_path.write_text(classreport.html_page(subs))
        print(f"wrote {report_path}")


def merge(argv: list[str]) -> int:
    """Run ``pdc grade merge``; returns the exit status."""
    args = _merge_parser().parse_args(argv)
    from pdc.grade import batch

    try:
        subs = batch.read_outputs(args.dirs)
    except (FileNotFoundError, ValueError) as e:
        print(f"pdc grade merge: {e}", file=sys.stderr)
        return 2
    if not args.quiet:
        for sub in subs:
            print(batch.one_line(sub))
    print(f"{len(subs)} submissions from {len(args.dirs)} folders")
    _finish(subs, args.csv, args.report, args.quiet)
    return 1 if any(s.unreadable for s in subs) else 0


def main(argv: list[str] | None = None) -> int:
    """Run ``pdc grade``; returns the exit status (see ``pdc grade --help``)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["merge"]:
        return merge(argv[1:])
    ap = _parser()
    args = ap.parse_args(argv)
    from pdc.grade import batch, report
    from pdc.grade import exercises as exs
    from pdc.grade.grader import DEFAULT_TIMEOUT_S

    paths = list(args.paths)
    try:
        for d in args.class_dirs or []:
            paths += batch.class_folders(d)
        bad = [k for k in args.exercise or [] if k not in exs.ALL_KEYS]
        if bad:
            raise ValueError(f"expected an exercise in {list(exs.ALL_KEYS)}, got {bad[0]!r}")
        if args.shard:
            paths = batch.shard(paths, *batch.parse_shard(args.shard))
    except (FileNotFoundError, ValueError) as e:
        print(f"pdc grade: {e}", file=sys.stderr)
        return 2
    if not paths and not args.shard:
        ap.print_usage(sys.stderr)
        print("pdc grade: expected at least one PATH or --class DIR", file=sys.stderr)
        return 2
    if len(paths) > 1 and (args.json or args.junit):
        print("pdc grade: --json/--junit take one PATH; use --out-dir for several", file=sys.stderr)
        return 2

    def done(sub) -> None:
        if args.quiet:
            print(batch.one_line(sub), flush=True)
        else:
            print(report.table(sub, details=True))
            if sub.seed is not None:
                print(f"hidden-case seed {sub.seed}")
            print(flush=True)
        if args.out_dir:  # written as each student finishes: a killed run keeps them
            batch.write_outputs(sub, args.out_dir / sub.name)

    try:
        subs = batch.grade_all(
            paths,
            jobs=args.jobs,
            on_done=done,
            only=args.exercise,
            seed=args.seed,
            timeout=args.timeout or DEFAULT_TIMEOUT_S,
            hidden=not args.no_hidden,
        )
    except batch.Interrupted as e:
        print(
            f"pdc grade: interrupted: {len(e.graded)} of {e.total} submissions graded "
            "(their reports, CSV rows and class report are written); run again for the rest",
            file=sys.stderr,
        )
        _finish(e.graded, args.csv, args.report, args.quiet)
        return 130
    if args.json and subs:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        import json

        args.json.write_text(json.dumps(batch.results_json(subs[0]), indent=2))
    if args.junit and subs:
        args.junit.write_text(report.junit(subs[0]))
    if args.quiet and len(subs) > 1:
        unread = sum(bool(s.unreadable) for s in subs)
        print(f"{len(subs)} submissions graded; {unread} with a file that could not be read")
    _finish(subs, args.csv, args.report, args.quiet)
    return 1 if any(s.unreadable for s in subs) else 0


if __name__ == "__main__":
    sys.exit(main())

"""Grade built submission cases several times with one seed; report verdicts that change.

The same submission graded again must score the same: a race whose outcome depends on
scheduling is flagged the same way on every run. Each case is graded ``--runs`` times (seed
11, as tests/test_grade_submissions.py grades it) and compared with its expect.json.

Run ``.venv/bin/python tests/submissions/regrade.py [--runs 3] CASE_OR_PREFIX ...``; a prefix
(``hoe_``) stands for every built case whose name starts with it. Exits 1 when a case scores
differently between runs or is graded against its expect.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).parent


def _names(args: list[str]) -> list[str]:
    built = sorted(p.parent.name for p in HERE.glob("*/expect.json"))
    out = [n for a in args for n in built if n == a or (a.endswith("_") and n.startswith(a))]
    if not out:
        raise SystemExit(f"[regrade] expected built case names or prefixes, got {args}")
    return out


def _as_expected(expect: dict, score: float, max_score: float, verdicts) -> bool:
    if expect.get("full"):
        return score == max_score
    failed = {c for c, passed, _ in verdicts if not passed}
    text = "\n".join(out for c, _, out in verdicts if c in expect["fail"])
    return (
        set(expect["fail"]) <= failed
        and not set(expect["passes"]) & failed
        and expect["reason"] in text
    )


def main() -> int:
    from pdc.grade.grader import grade

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    opts = ap.parse_args()
    bad = 0
    for name in _names(opts.cases):
        expect = json.loads((HERE / name / "expect.json").read_text())
        runs = []
        for _ in range(opts.runs):
            sub = grade(
                HERE / name,
                only=[expect["exercise"]],
                kernels=[expect["part"]],
                timeout=expect.get("timeout", 60.0),
                seed=11,
            )
            (part,) = sub.parts
            verdicts = tuple((v.criterion, v.passed, v.output) for v in part.verdicts)
            runs.append((part.score, part.max_score, verdicts))
        same = all(r == runs[0] for r in runs)
        ok = _as_expected(expect, *runs[0])
        bad += not (same and ok)
        failed = [c for c, passed, _ in runs[0][2] if not passed]
        print(
            f"{'ok ' if ok else 'BAD'} {'same' if same else 'DIFFERS'} x{opts.runs} {name}: "
            f"{runs[0][0]:g}/{runs[0][1]:g}, failed {failed}"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Grading output: a readable table, Gradescope's results.json, JUnit XML and CSV."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET

from pdc.grade.exercises import ALL_KEYS
from pdc.grade.judge import unrepeated


def table(sub, details: bool = True) -> str:
    """A plain-text table of one submission's scores, then what failed and why."""
    lines = [f"Submission {sub.name} ({sub.path})", ""]
    warnings = getattr(sub, "warnings", [])
    lines += [f"warning: {w}" for w in warnings] + ([""] if warnings else [])
    w1 = max([16, *(len(p.exercise) for p in sub.parts)])
    w2 = max([14, *(len(p.part) for p in sub.parts)])
    lines.append(f"{'exercise':{w1}s} {'kernel':{w2}s} {'score':>6s} {'max':>6s} {'time':>7s}")
    for p in sub.parts:
        lines.append(
            f"{p.exercise:{w1}s} {p.part:{w2}s} {p.score:6.2f} {p.max_score:6.2f} {p.seconds:6.1f}s"
        )
    total = f"{'total':{w1 + w2 + 1}s}"
    lines.append(f"{total} {sub.score:6.2f} {sub.max_score:6.2f} {sub.seconds:6.1f}s")
    if details:
        failed = [(p, v) for p in sub.parts for v in p.verdicts if not v.passed]
        if failed:
            lines += ["", "Not yet full marks:"]
        shown = {}  # each problem once per kernel, though it fails several criteria
        for p in sub.parts:
            bad = [v for v in p.verdicts if not v.passed]
            shown.update({id(v): out for v, out in zip(bad, unrepeated(bad))})
        for p, v in failed:
            lines.append(f"- {p.exercise} {v.test} ({v.score:g}/{v.max_score:g})")
            lines += [f"    {line}" for line in shown[id(v)].splitlines()]
    return "\n".join(lines)


def gradescope(sub) -> dict:
    """Results in Gradescope's autograder format (results.json)."""
    tests = []
    for i, p in enumerate(sub.parts, 1):
        for j, v in enumerate(p.verdicts, 1):
            tests.append(
                {
                    "name": f"{p.exercise} {v.test}",
                    "number": f"{i}.{j}",
                    "score": v.score,
                    "max_score": v.max_score,
                    "output": v.output,
                    "visibility": "visible",
                    "tags": [p.exercise, p.part, v.criterion],
                }
            )
    return {
        "score": sub.score,
        "max_score": sub.max_score,
        "execution_time": round(sub.seconds, 2),
        "output": "\n".join(
            [f"pdc grade: {sub.score:g} / {sub.max_score:g} points"]
            + [f"warning: {w}" for w in getattr(sub, "warnings", [])]
        ),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def junit(sub) -> str:
    """Results as JUnit XML: one testsuite per exercise, one testcase per criterion."""
    root = ET.Element("testsuites", name=f"pdc grade {sub.name}")
    total_tests = total_fail = 0
    for key in ALL_KEYS:
        parts = [p for p in sub.parts if p.exercise == key]
        if not parts:
            continue
        cases = [(p, v) for p in parts for v in p.verdicts]
        fails = sum(not v.passed for _, v in cases)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=key,
            tests=str(len(cases)),
            failures=str(fails),
            errors="0",
            skipped="0",
            time=f"{sum(p.seconds for p in parts):.3f}",
        )
        props = ET.SubElement(suite, "properties")
        score, max_score = sum(p.score for p in parts), sum(p.max_score for p in parts)
        ET.SubElement(props, "property", name="score", value=f"{score:g}")
        ET.SubElement(props, "property", name="max_score", value=f"{max_score:g}")
        for p, v in cases:
            tc = ET.SubElement(
                suite, "testcase", classname=f"{key}.{p.part}", name=v.test, time="0"
            )
            if not v.passed:
                f = ET.SubElement(tc, "failure", message=f"{v.score:g}/{v.max_score:g} points")
                f.text = v.output
            else:
                ET.SubElement(tc, "system-out").text = v.output
        total_tests += len(cases)
        total_fail += fails
    root.set("tests", str(total_tests))
    root.set("failures", str(total_fail))
    root.set("time", f"{sub.seconds:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode")


def scores_csv(subs) -> str:
    """One row per submission: name, path, the score of each exercise, total and maximum."""
    keys = [k for k in ALL_KEYS if any(p.exercise == k for s in subs for p in s.parts)]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["submission", "path", *keys, "total", "max_score"])
    for s in subs:
        per = [f"{sum(p.score for p in s.parts if p.exercise == k):g}" for k in keys]
        w.writerow([s.name, s.path, *per, f"{s.score:g}", f"{s.max_score:g}"])
    return buf.getvalue()


def write_json(sub, path) -> None:
    """Write Gradescope's results.json."""
    with open(path, "w") as f:
        json.dump(gradescope(sub), f, indent=2)

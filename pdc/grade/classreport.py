"""The class report: one static HTML page an instructor opens offline after grading a class.

It shows, per exercise, the distribution of scores (matplotlib bars of the scores, embedded as SVG,
so the page needs no network and no other file), the findings that cost the most students
points (by criterion and kernel line), the hidden cases that fail most, and the students
with a notebook that could not be read.
"""

from __future__ import annotations

import html
import io
import re
from collections import Counter
from collections.abc import Sequence

_NUMBER = re.compile(r"(?<![A-Za-z_#])-?\d+(\.\d+)?(e[-+]?\d+)?")
_HIDDEN = re.compile(r"^(hidden case \d+) failed: (.*)$")
_CASE = re.compile(r"^case [^:]*: ")


def _finding_key(line: str) -> str:
    """A feedback line with its values blanked (``line N`` kept), to count alike problems."""
    line = _CASE.sub("", line.strip())
    parts = re.split(r"(line \d+)", line)
    return "".join(p if p.startswith("line ") else _NUMBER.sub("#", p) for p in parts)[:200]


def findings(subs: Sequence) -> Counter:
    """(exercise, criterion, finding) -> number of students whose feedback has it."""
    counts: Counter = Counter()
    for sub in subs:
        seen = set()
        for p in sub.parts:
            for v in p.verdicts:
                if v.passed or v.criterion == "hidden":
                    continue
                for line in v.output.splitlines():
                    if not line.strip() or line.startswith("not awarded until"):
                        continue
                    seen.add((p.exercise, f"{p.part}: {v.criterion}", _finding_key(line)))
        counts.update(seen)
    return counts


def hidden_failures(subs: Sequence) -> Counter:
    """(exercise, kernel, "hidden case k: category") -> number of students failing it."""
    counts: Counter = Counter()
    for sub in subs:
        for p in sub.parts:
            for v in p.verdicts:
                if v.criterion != "hidden":
                    continue
                for line in v.output.splitlines():
                    if m := _HIDDEN.match(line.strip()):
                        counts[(p.exercise, p.part, f"{m.group(1)}: {m.group(2)}")] += 1
    return counts


def _histogram_svg(scores: list[float], max_score: float, title: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.2, 2.2))
    bins = min(20, max(5, len(set(scores))))
    ax.hist(scores, bins=bins, range=(0, max(max_score, 1e-9)), color="#3b6ea5")
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("score", fontsize=8)
    ax.set_ylabel("students", fontsize=8)
    ax.tick_params(labelsize=7)
    fig.tight_layout()
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    svg = buf.getvalue()
    return svg[svg.index("<svg") :]


def _table(rows: list[list[str]], head: list[str]) -> str:
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>")
    return "\n".join(out) + "</table>"


_STYLE = (
    "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;"
    "font-size:13px;text-align:left;vertical-align:top}.figs{display:flex;flex-wrap:wrap;gap:8px}"
)


def html_page(subs: Sequence, top: int = 25) -> str:
    """The class report as one self-contained HTML page."""
    from pdc.grade.exercises import ALL_KEYS

    n = len(subs)
    keys = [k for k in ALL_KEYS if any(p.exercise == k for s in subs for p in s.parts)]
    body = [f"<h1>pdc grade: class report ({n} submissions)</h1>"]
    if subs:
        totals = [s.score for s in subs]
        mx = max(s.max_score for s in subs)
        mean = sum(totals) / n
        body.append(
            f"<p>Total: mean {mean:.2f} of {mx:g}; full marks: "
            f"{sum(t >= mx for t in totals)} of {n}.</p>"
        )
        seeds = sorted({str(s.seed) for s in subs if s.seed is not None})
        if seeds:
            body.append(
                f"<p>Hidden-case seed(s): {html.escape(', '.join(seeds[:5]))}"
                f"{' ...' if len(seeds) > 5 else ''}</p>"
            )
    body.append("<h2>Score distribution per exercise</h2><div class='figs'>")
    body.append(
        _histogram_svg(
            [s.score for s in subs], max((s.max_score for s in subs), default=1.0), "total"
        )
    )
    for k in keys:
        scores = [sum(p.score for p in s.parts if p.exercise == k) for s in subs]
        mx = max(sum(p.max_score for p in s.parts if p.exercise == k) for s in subs)
        body.append(_histogram_svg(scores, mx, k))
    body.append("</div>")
    rows = [[str(c), e, kind, f] for (e, kind, f), c in findings(subs).most_common(top)]
    body.append("<h2>Most frequent findings (students, by criterion and kernel line)</h2>")
    body.append(_table(rows, ["students", "exercise", "kernel: criterion", "finding"]))
    rows = [[str(c), e, k, h] for (e, k, h), c in hidden_failures(subs).most_common(top)]
    body.append("<h2>Hidden cases that fail most</h2>")
    body.append(_table(rows, ["students", "exercise", "kernel", "hidden case"]))
    bad = [[s.name, "; ".join(s.warnings)] for s in subs if s.unreadable]
    body.append(f"<h2>Notebooks that could not be read ({len(bad)})</h2>")
    body.append(_table(bad, ["submission", "why"]))
    rows = [
        [s.name, f"{s.score:g}", f"{s.max_score:g}", "" if s.seed is None else str(s.seed)]
        for s in subs
    ]
    body.append("<h2>Scores</h2>" + _table(rows, ["submission", "score", "max", "seed"]))
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>pdc grade: class report</title><style>{_STYLE}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )

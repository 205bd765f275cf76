"""The book's page on the committed GPU reference reports (book/reference/*.json).

`make gpu-report` measures the course's kernels on a real GPU and writes report.json; the
reports committed to book/reference/ are shown on the book's "GPU reference" page. The JSON is
read generically, so that a field added to the report later still appears:

- scalars (strings, numbers, booleans) of an object become a two-column table,
- a list of objects becomes a table with one column per key, and a plot of its numeric
  columns when it has a text column to label the bars with,
- nested objects become subsections, named by their key.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

MAX_BARS = 40  # more bars than this make an unreadable plot; the table still has every row


def _cell(value: Any) -> str:
    if isinstance(value, float):
        text = f"{value:.4g}"
    elif isinstance(value, (dict, list)):
        text = json.dumps(value, sort_keys=True)
    elif value is None:
        text = ""
    else:
        text = str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |"]
    lines.append("|" + "---|" * len(header))
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return lines + [""]


def _plot(records: list[dict], columns: list[str], title: str, dest: Path) -> str | None:
    """Horizontal bars of each numeric column, labelled by the first text column."""
    labels = next((c for c in columns if all(isinstance(r.get(c), str) for r in records)), None)
    numeric = [c for c in columns if all(_is_number(r.get(c)) for r in records)]
    if labels is None or not numeric or len(records) > MAX_BARS:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r[labels] for r in records]
    fig, axes = plt.subplots(
        1, len(numeric), figsize=(3.2 * len(numeric) + 1.5, 0.3 * len(records) + 1.2)
    )
    axes = axes if len(numeric) > 1 else [axes]
    for ax, col in zip(axes, numeric):
        ax.barh(range(len(records)), [r[col] for r in records], color="#3b6ea5")
        ax.set_yticks(range(len(records)), names if ax is axes[0] else [""] * len(records))
        ax.invert_yaxis()
        ax.set_title(col, fontsize=9)
        ax.tick_params(labelsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(dest, dpi=110)
    plt.close(fig)
    return f"Bar charts of {', '.join(numeric)} for each {labels} in {title}"


def _section(obj: Any, title: str, depth: int, images: tuple[Path, str], stem: str) -> list[str]:
    lines = [f"{'#' * depth} {title}", ""]
    if isinstance(obj, dict):
        scalars = [(k, v) for k, v in obj.items() if _is_scalar(v)]
        if scalars:
            lines += _table(["field", "value"], [[k, v] for k, v in scalars])
        for key, value in obj.items():
            if not _is_scalar(value):
                lines += _section(value, str(key), min(depth + 1, 6), images, f"{stem}-{key}")
    elif isinstance(obj, list) and obj and all(isinstance(r, dict) for r in obj):
        columns = list(dict.fromkeys(k for r in obj for k in r))
        lines += _table(columns, [[r.get(c) for c in columns] for r in obj])
        png = images[0] / f"{stem}.png"
        alt = _plot(obj, columns, title, png)
        if alt is not None:
            lines += [f"![{alt}]({images[1]}/{png.name})", ""]
    elif isinstance(obj, list):
        lines += _table(["#", "value"], [[i, v] for i, v in enumerate(obj)])
    else:
        lines += [_cell(obj), ""]
    return lines


def render(reports: list[Path], images: Path, link: str) -> str:
    """The Markdown of the reference section for the given report files.

    Args:
        reports: The report.json files to show, in order.
        images: The folder to write plots into.
        link: The path of that folder as the page's Markdown names it.

    Returns:
        Markdown: a section per report, or a plain statement that none is recorded.

    Raises:
        ValueError: If a report is not valid JSON.
    """
    if not reports:
        return (
            "No GPU reference is recorded yet: book/reference/ holds no report. "
            "On a machine with an NVIDIA GPU, `make gpu-report` measures the course's kernels "
            "and writes `report.json`; commit it as `book/reference/NAME.json` and rebuild the "
            "book to show it here.\n"
        )
    images.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    for path in reports:
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"[gpu reference] expected JSON in {path}, got: {exc}") from exc
        lines += _section(data, f"Reference: `{path.name}`", 2, (images, link), path.stem)
    return "\n".join(lines) + "\n"

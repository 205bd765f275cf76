"""GPU reports: ``make gpu-report`` (``run.py``) and the committed reference figures.

A report made on a real GPU and committed as ``book/reference/NAME.json`` is what the
chapters quote beside their own local run, labelled with the device and the date.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

REFERENCE_DIR = Path(__file__).resolve().parents[2] / "book" / "reference"
NONE_YET = "no GPU reference is recorded yet"


def _format(value: float, key: str) -> str:
    if key.endswith("seconds"):  # as the chapters print their own: 7.94 µs, 6.79 ms
        for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
            if abs(value) >= scale or unit == "ns":
                return f"{value / scale:.3g} {unit}"
    for suffix, unit in (("_us", "us"), ("_ms", "ms")):
        if key.endswith(suffix):
            return f"{value:.3g} {unit}"
    return f"{value:.4g}"


def _reports(directory: str | Path | None) -> Iterator[tuple[str, dict]]:
    """("device, date", measurements) of each readable reference report, by file name."""
    for path in sorted(Path(directory or REFERENCE_DIR).glob("*.json")):
        try:
            report = json.loads(path.read_text())
        except (OSError, ValueError):
            continue  # an unreadable file is no reference
        figures = report.get("measurements") if isinstance(report, dict) else None
        if isinstance(figures, dict):
            yield f"{report.get('device', path.stem)}, {report.get('date', '?')}", figures


def reference(key: str, directory: str | Path | None = None) -> str:
    """The committed GPU reference figure for ``key``, labelled with device and date.

    Args:
        key: A measurement key of the report, e.g. ``"bench_ring.cuda.single.p50_us"``
            (``keys()`` lists them).
        directory: Where the reference reports are (default ``book/reference``).

    Returns:
        One line per reference report that has the figure, such as
        "NVIDIA H100 80GB HBM3, 2026-11-23: 12.3 us"; or "no GPU reference is recorded yet".
    """
    lines = [
        f"{label}: {_format(float(figures[key]), key)}"
        for label, figures in _reports(directory)
        if isinstance(figures.get(key), (int, float))
    ]
    return "\n".join(lines) or NONE_YET


def evidence_reference(
    name: str, on_host: bool = False, directory: str | Path | None = None
) -> str:
    """What the reference reports recorded for a chapter's ``evidence`` record ``name``.

    One "device, date: seconds" per report, as :func:`reference` gives, with the ratio to
    the baseline measured beside it there (the problem sizes may differ from this run's), and
    "(timed on its CPU)" where the cell times host work (``on_host``, as the cell declares
    it) or the report knows that it did (``evidence.NAME.on_gpu`` is 0): a cell that times
    NumPy, or a CPU input pipeline, measures the GPU machine's processor, not its GPU.
    """
    key = f"evidence.{name}.seconds"
    lines = []
    for label, figures in _reports(directory):
        value = figures.get(key)
        if not isinstance(value, (int, float)):
            continue
        host = on_host or figures.get(f"evidence.{name}.on_gpu") == 0
        where = " (timed on its CPU)" if host else ""
        # The baseline measured beside it there: the ratio compares across problem sizes.
        base = figures.get(f"evidence.{name}.baseline_seconds")
        if isinstance(base, (int, float)) and base > 0:
            where += f" = {value / base:.3g}x its baseline there ({_format(float(base), key)})"
        lines.append(f"{label}: {_format(float(value), key)}{where}")
    return " / ".join(lines) or NONE_YET


def keys(directory: str | Path | None = None) -> list[str]:
    """Every measurement key found in the reference reports."""
    return sorted({key for _, figures in _reports(directory) for key in figures})

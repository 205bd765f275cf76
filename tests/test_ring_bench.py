"""`pdc bench ring` runs end to end with tiny counts (its numbers are not checked here)."""

from __future__ import annotations

import asyncio
import json
import platform
import re
from pathlib import Path

from pdc.ring.tools import bench

ROOT = Path(__file__).resolve().parents[1]


def test_bench_json_has_every_measurement_and_ratio(capsys):
    argv = ["--backends", "cpu,nosuch", "--messages", "300", "--batch-messages", "4096"]
    argv += ["--batch", "1024", "--repeats", "2", "--json", "--no-progress"]
    assert bench.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["baselines"]) >= {"queue.SimpleQueue", "asyncio.Queue"}
    cpu = out["backends"]["cpu"]
    assert cpu["simulated"] is False and cpu["messages"] == 300
    assert len(cpu["runs_p50_us"]) == 2
    assert 0 < cpu["single"]["p50_us"] <= cpu["single"]["p99_us"]
    assert cpu["batched"]["msgs_per_s"] > 0 and cpu["batched"]["batch"] == 1024
    assert cpu["host_python"]["send_us"] > 0 and cpu["host_python"]["receive_us"] > 0
    if platform.machine() in ("x86_64", "AMD64"):  # the compiled client checks every reply
        assert 0 < cpu["compiled_client"]["p50_us"] <= cpu["compiled_client"]["p99_us"]
    ratio = cpu["speedup_vs"]["asyncio.Queue"]
    assert ratio == out["baselines"]["asyncio.Queue"]["p50_us"] / cpu["single"]["p50_us"]
    assert "expected a backend in" in out["backends"]["nosuch"]["error"]
    assert 0 <= cpu["idle_core_pct"] < 100  # process CPU while the kernel idles


def _shape(line: str) -> str:
    """A report line with its numbers, rate units and column padding blanked out."""
    return " ".join(re.sub(r"[0-9.]+ ?(k|M)?(/s)?", "#", line).split())


def test_bench_table_says_what_it_measured_and_the_readme_shows_the_same_table(capsys):
    argv = ["--backends", "cpu", "--messages", "200", "--batch-messages", "2048"]
    argv += ["--batch", "1024", "--repeats", "1", "--no-progress", "--idle-seconds", "0.3"]
    assert bench.main(argv) == 0
    text = capsys.readouterr().out
    assert "medians of 1 run(s)" in text
    assert "queue.SimpleQueue" in text and "asyncio.Queue" in text
    assert "x vs asyncio.Queue" in text and "batched (1024 per batch)" in text
    assert "idle kernel:" in text
    # The README's table (baselines and the cpu rows) has the lines the bench prints now.
    readme = (ROOT / "README.md").read_text()
    block = readme.split("baselines (this run, before any kernel)", 1)[1].split("```", 1)[0]
    cpu_rows = block.split("  cuda on", 1)[0].splitlines()[1:]
    printed = {_shape(line) for line in text.splitlines()}
    stale = [line for line in cpu_rows if line.strip() and _shape(line) not in printed]
    assert not stale, f"README bench table lines the bench no longer prints: {stale}"
    rows = text.split("baselines (this run, before any kernel)", 1)[1].splitlines()[1:]
    missing = [line for line in rows if line.strip() and _shape(line) not in map(_shape, cpu_rows)]
    assert not missing, f"bench lines missing from the README table: {missing}"


def test_asyncio_baseline_runs_inside_a_running_event_loop():
    async def inside_a_loop():  # as in a Jupyter kernel
        return bench.asyncio_pingpong(50)

    r = asyncio.run(inside_a_loop())
    assert 0 < r["p50_us"] <= r["p99_us"]


def test_a_ratio_below_one_keeps_two_significant_figures():
    from pdc.ring.tools.bench_report import _fmt_ratio

    assert [_fmt_ratio(x) for x in (33.0, 1.0, 0.52, 0.0316, 0.00123)] == [
        "33.0x",
        "1.0x",
        "0.52x",
        "0.032x",
        "0.0012x",
    ]
    assert _fmt_ratio(0.0) == "0.0x"  # nothing measured: no figures to invent

"""The table ``pdc bench ring`` prints from its measurements (``bench.run``'s dict)."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["format_report"]


def _fmt_rate(x: float) -> str:
    return f"{x / 1e6:.2f} M/s" if x >= 1e6 else f"{x / 1e3:.0f} k/s"


def _fmt_ratio(x: float) -> str:
    """A ratio with two significant figures below 1 (0.52x, 0.032x), never a bare 0.0x."""
    if not math.isfinite(x) or x <= 0 or x >= 1:
        return f"{x:.1f}x"
    return f"{x:.{1 - math.floor(math.log10(x))}f}x"


def format_report(result: dict[str, Any]) -> str:
    """The human-readable table."""
    lines = [
        f"pdc bench ring: medians of {result['repeats']} run(s), {result['machine']}",
        "",
        "baselines (this run, before any kernel) p50 us   p99 us   msg/s",
    ]
    for base, r in result["baselines"].items():
        lines.append(
            f"  {base:<34} {r['p50_us']:7.2f}  {r['p99_us']:7.2f}   {_fmt_rate(r['msgs_per_s'])}"
        )
    lpm = result.get("launch_per_message")
    if lpm is not None:
        lines.append(
            f"  {'CUDA launch + sync per message':<34} mean {lpm['mean_us']:.2f} us"
            f"           {_fmt_rate(lpm['msgs_per_s'])}"
        )
    lines += ["", "ring kernels"]
    for name, r in result["backends"].items():
        if "error" in r:
            lines.append(f"  {name}: not available here ({r['error']})")
            continue
        tag = " [simulated: small counts, not device speed]" if r["simulated"] else ""
        s, b = r["single"], r["batched"]
        lines.append(f"  {name} on {r['device']}{tag}")
        lines.append(
            f"    1-by-1 ({r['messages']} msgs): p50 {s['p50_us']:.2f} us, p99 "
            f"{s['p99_us']:.2f} us, {_fmt_rate(s['msgs_per_s'])}"
        )
        h = r["host_python"]
        lines.append(
            f"    host Python per message, no waiting: send {h['send_us']:.2f} us + receive "
            f"{h['receive_us']:.2f} us = {h['send_us'] + h['receive_us']:.2f} us"
        )
        c = r["compiled_client"]
        if c is not None:
            lines.append(
                f"    1-by-1 from compiled code (no Python per message): p50 {c['p50_us']:.2f} us,"
                f" p99 {c['p99_us']:.2f} us, {_fmt_rate(c['msgs_per_s'])}"
            )
        lines.append(f"    batched ({b['batch']} per batch): {_fmt_rate(b['msgs_per_s'])}")
        ratios = ", ".join(f"{_fmt_ratio(v)} vs {k}" for k, v in r["speedup_vs"].items())
        lines.append(f"    round trip p50 from Python: {ratios}")
        if lpm is not None and not r["simulated"]:
            mean_us = 1e6 / s["msgs_per_s"]
            lines.append(
                f"    mean round trip vs CUDA launch + sync per message: "
                f"{_fmt_ratio(lpm['mean_us'] / mean_us)}"
            )
        idle = r.get("idle_core_pct")
        if idle is not None:
            lines.append(f"    idle kernel: {idle:.2f} % of one core (process CPU, host asleep)")
        if r["compiled_speedup_vs"]:
            ratios = ", ".join(
                f"{_fmt_ratio(v)} vs {k}" for k, v in r["compiled_speedup_vs"].items()
            )
            lines.append(f"    round trip p50 from compiled code: {ratios}")
    return "\n".join(lines)

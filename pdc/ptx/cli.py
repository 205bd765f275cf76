"""``pdc ptx``: compile every kernel of the course for real GPUs, without a GPU.

With no paths, compiles what ``pdc.ptx.manifest`` finds in pdc/, solutions/, notebooks/
and tests/ for every target in ``DEFAULT_CCS`` (sm_75 to sm_121; the test suite's own
kernels for sm_80 and sm_90, ``manifest.SUITE_CCS``) and prints one row per kernel and
architecture; exits 1 if any kernel fails to compile (other than a failure the manifest
knows, with its reason), spills registers, or is missing from the manifest.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from .build import Build, CompilerMissing


def _parse_cc(text: str) -> list[tuple[int, int]]:
    out = []
    for part in text.replace("sm_", "").split(","):
        part = part.strip()
        if not (part.isdigit() and len(part) in (2, 3)):
            raise argparse.ArgumentTypeError(
                f"expected a capability like 90 or 80,90, got {text!r}"
            )
        out.append((int(part[:-1]), int(part[-1])))
    return out


def _root() -> Path:
    return Path(__file__).resolve().parents[2]


def _row(b: Build) -> dict[str, Any]:
    from .manifest import known_failure

    status = "ok" if b.ok and not b.spills else "spills" if b.ok else "FAILED"
    d = b.to_dict()
    d.update(status=status, arch=f"sm_{b.cc[0]}{b.cc[1]}")
    d["note"] = b.error if not b.ok else ""
    known = known_failure(b.name, d.get("where", ""), b.cc)
    if known and not b.ok and known[0] in (b.error or ""):
        d.update(status="known", note=f"{b.error}: {known[1]}")
    elif known and b.ok:
        d.update(status="FIXED", note="compiles now: remove it from manifest.KNOWN_FAILURES")
    return d


def _table(rows: list[dict[str, Any]]) -> str:
    head = f"{'kernel':<22} {'arch':<6} {'regs':>4} {'shared':>7} {'local':>6} {'spills':>6}  "
    lines = [head + f"{'status':<8} where", "-" * 100]
    for r in rows:
        if "arch" in r:
            figures = (
                f"{r['registers']:>4} {r['shared_bytes']:>7} {r['local_bytes']:>6} "
                f"{r['spill_stores'] + r['spill_loads']:>6}"
            )
        else:
            figures = f"{'-':>4} {'-':>7} {'-':>6} {'-':>6}"
            r = {**r, "arch": "-"}
        lines.append(
            f"{r['name'][:22]:<22} {r['arch']:<6} {figures}  {r['status']:<8} {r['where']}"
        )
        if r.get("note"):
            lines.append(f"{'':<24}{r['note'][:300]}")
    return "\n".join(lines)


# T4 (7.5), A100 (8.0), RTX 30xx/A10 (8.6), L4/RTX 40xx (8.9), H100 (9.0), and every newer
# target of the pinned toolchain (NVVM 12.9): B200 (10.0), Thor (10.1), B300 (10.3),
# RTX 50xx (12.0), DGX Spark (12.1). A test keeps this in step with what NVVM knows.
DEFAULT_CCS: tuple[tuple[int, int], ...] = (
    (7, 5),
    (8, 0),
    (8, 6),
    (8, 9),
    (9, 0),
    (10, 0),
    (10, 1),
    (10, 3),
    (12, 0),
    (12, 1),
)


def main(argv: list[str] | None = None) -> int:
    """Run ``pdc ptx``; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="pdc ptx",
        description="Compile every kernel of the course for the GPUs students have, without a GPU.",
    )
    parser.add_argument("paths", nargs="*", help="files or notebooks (default: the course)")
    default = ",".join(f"{a}{b}" for a, b in DEFAULT_CCS)
    parser.add_argument(
        "--cc",
        type=_parse_cc,
        default=list(DEFAULT_CCS),
        help=f"e.g. 90 or 80,90 (default {default})",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)

    from .compile import compile_many
    from .discover import discover
    from .manifest import find_all, jobs_for

    root = _root()
    if args.paths:
        found = []
        for p in args.paths:
            path = Path(p).resolve()
            if not path.is_file():
                print(f"pdc ptx: expected a file or notebook, got {p!r}", file=sys.stderr)
                return 2
            found += discover(path, root)
        jobs, rows = jobs_for(found, args.cc)
        rows = [r for r in rows if r["status"] != "missing"]
        jobs = [j for j in jobs if j["name"] != "launch_per_message"]
    else:
        jobs, rows = jobs_for(find_all(root), args.cc)
    total = sum(len(j.get("ccs", args.cc)) for j in jobs)
    bar = None
    if sys.stderr.isatty() and not args.json:
        try:
            from tqdm import tqdm

            bar = tqdm(total=total, unit="build", desc="pdc ptx", leave=False)
        except ImportError:
            bar = None
    t0 = time.perf_counter()
    try:
        tick = (lambda b: bar.update(1)) if bar is not None else None
        builds = compile_many(jobs, ccs=args.cc, progress=tick)
    except CompilerMissing as exc:
        print(str(exc), file=sys.stderr)
        return 2
    finally:
        if bar is not None:
            bar.close()
    if not args.paths:  # the course's Triton kernels, for the targets Triton is tuned for
        from .triton_kernels import builds as triton_builds

        more, triton_rows = triton_builds(root, args.cc)
        builds, rows = builds + more, rows + triton_rows
    seconds = time.perf_counter() - t0
    rows = [_row(b) for b in builds] + rows
    failed = sum(r["status"] in ("FAILED", "FIXED", "unlisted", "missing") for r in rows)
    spilled = sum(r["status"] == "spills" for r in rows)
    summary = {
        "builds": len(builds),
        "kernels": len(jobs),
        "failed": failed,
        "spills": spilled,
        "skipped": sum(r["status"] == "skip" for r in rows),
        "known": sum(r["status"] == "known" for r in rows),
        "seconds": round(seconds, 1),
    }
    if args.json:
        print(json.dumps({"summary": summary, "rows": rows}, indent=1))
    else:
        print(_table(rows))
        print(
            f"\n{summary['kernels']} kernels, {summary['builds']} builds in {seconds:.1f} s: "
            f"{failed} failed, {spilled} spill, {summary['skipped']} skipped, "
            f"{summary['known']} known to fail (reason shown)"
        )
    return 1 if failed or spilled else 0

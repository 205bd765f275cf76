"""``pdc bench check``: how long each exercise's ``check()`` takes, as a student meets it.

Each solution notebook runs top to bottom in a fresh Jupyter kernel (nbclient), as "Run
all" does, and every cell that calls ``check(`` is timed by the kernel itself (the cell's
execute-input to execute-reply). The first check of a notebook carries what a session sets
up once (the simulator's worker, the compile gate, the imports and compiles a part's own
checker needs); the later ones are what a student waits for while iterating.

A check ends with its verdict; its real-GPU resources line may still be compiling then and
fills in later (``pdc.grade.pending``). The column ``line`` is the seconds from the first
check's start until that line landed, measured in the kernel by a probe run after the cell.

``--cold`` gives the kernel an empty cache folder (``XDG_CACHE_HOME``, ``NUMBA_CACHE_DIR``):
nothing compiled by an earlier run answers, as on a machine that never ran the course.
``--pause S`` waits S seconds before each checking cell, as a student reading the exercise
does. Timings are of this machine now: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The feedback a student would call instant.
TARGET_S = 1.0


def _seconds(cell) -> float | None:
    """The kernel's own timing of an executed cell (nbclient's ``record_timing``)."""
    ex = cell.metadata.get("execution", {})
    start, end = ex.get("iopub.execute_input"), ex.get("shell.execute_reply")
    if not (start and end):
        return None
    parse = datetime.fromisoformat
    return (parse(end.replace("Z", "+00:00")) - parse(start.replace("Z", "+00:00"))).total_seconds()


def measure(path: Path, pause: float = 0.0, env: dict | None = None) -> dict:
    """Run one notebook in a fresh kernel; the seconds of each checking cell, in order.

    Raises:
        RuntimeError: a cell failed (its error is in the message).
    """
    from pdc.grade.notebook import nbformat_module

    nbformat = nbformat_module()
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    checks: list[float] = []
    lines: list[float | None] = []
    t0 = time.perf_counter()
    with client.setup_kernel(env={**os.environ, **(env or {})}):
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            checking = "check(" in cell.source
            if checking and pause:
                time.sleep(pause)
            try:
                client.execute_cell(cell, index)
            except CellExecutionError as exc:
                raise RuntimeError(
                    f"[bench check] expected every cell of {path.name} to run, got cell "
                    f"{index} failing: {exc.ename}: {exc.evalue}"
                ) from None
            if checking and (s := _seconds(cell)) is not None:
                checks.append(s)
                lines.append(_line_seconds(client, index))
    return {
        "notebook": path.stem,
        "checks": checks,
        "lines": lines,
        "total": time.perf_counter() - t0,
    }


_PROBE = "import json as _j; from pdc.grade import pending as _p; print(_j.dumps(_p.wait_last()))"


def _line_seconds(client, index: int) -> float | None:
    """Seconds from the check's start until its resources line landed (None: no line)."""
    from pdc.grade.notebook import nbformat_module

    nbformat = nbformat_module()

    probe = nbformat.v4.new_code_cell(_PROBE)
    client.execute_cell(probe, index, store_history=False)
    text = "".join(o.get("text", "") for o in probe.outputs if o.get("name") == "stdout")
    try:
        value = json.loads(text.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    return float(value) if isinstance(value, (int, float)) else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="pdc bench check", description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="*", help="solution notebooks by name (default: all)")
    ap.add_argument("--cold", action="store_true", help="start from empty compile caches")
    ap.add_argument("--pause", type=float, default=0.0, help="seconds before each check cell")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ns = ap.parse_args(argv)
    if ns.pause < 0:
        ap.error(f"expected --pause >= 0 seconds, got {ns.pause}")
    folder = ROOT / "solutions"
    paths = sorted(folder.glob("[0-9][0-9]_*.ipynb"))
    if ns.notebooks:
        wanted = {n.removesuffix(".ipynb") for n in ns.notebooks}
        unknown = wanted - {p.stem for p in paths}
        if unknown:
            ap.error(f"expected solution notebooks of {folder}, got {', '.join(sorted(unknown))}")
        paths = [p for p in paths if p.stem in wanted]
    from tqdm.auto import tqdm

    rows = []
    with tempfile.TemporaryDirectory(prefix="pdc-bench-check-") as tmp:
        for path in tqdm(paths, desc="notebooks", unit="nb", disable=ns.no_progress):
            env = {"PYDEVD_DISABLE_FILE_VALIDATION": "1"}
            if ns.cold:  # a folder of its own per notebook: nothing carried between them
                cache = Path(tmp) / path.stem
                env.update(XDG_CACHE_HOME=str(cache), NUMBA_CACHE_DIR=str(cache / "numba"))
            rows.append(measure(path, ns.pause, env))
    if ns.json:
        print(json.dumps(rows, indent=1))
        return 0
    caches = "empty caches" if ns.cold else "caches as found"
    print(f"check() per solution notebook, a fresh kernel each, {caches}, pause {ns.pause:g} s")
    print(f"{'notebook':22} {'first':>7} {'line':>7} {'later':>7} {'checks':>6} {'notebook':>9}")
    slow = []
    for r in rows:
        first = r["checks"][0] if r["checks"] else float("nan")
        later = max(r["checks"][1:], default=float("nan"))
        if first > TARGET_S or later > TARGET_S:
            slow.append(r["notebook"])
        later_text = f"{later:6.2f}s" if r["checks"][1:] else f"{'-':>7}"
        line = r["lines"][0] if r["lines"] else None
        line_text = f"{line:6.2f}s" if line is not None else f"{'-':>7}"
        print(
            f"{r['notebook']:22} {first:6.2f}s {line_text} {later_text} {len(r['checks']):6d} "
            f"{r['total']:8.1f}s"
        )
    print(f"over {TARGET_S:g} s: {', '.join(slow) if slow else 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

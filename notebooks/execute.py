"""Execute course notebooks in place, as a student's Jupyter would, and save their outputs.

Usage: ``python notebooks/execute.py notebooks/01_why_gpus.ipynb [more.ipynb ...]``

Each notebook runs in a fresh kernel with its own folder as the working directory (so
relative paths resolve as in JupyterLab), widget
state is stored (JupyterLab and the book show the chapter-2 explorer before anything is run),
and math libraries get a few threads, never more than the cores: an oversubscribed thread
pool on a busy machine turns microsecond operations into milliseconds and the committed
numbers into nonsense. A failing cell stops that notebook, which is then left unchanged.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

THREADS = str(max(1, min(4, os.cpu_count() or 1)))


def execute(path: Path, timeout: int) -> float:
    """Run one notebook top to bottom and write it back; return the seconds it took."""
    import nbformat
    from nbclient import NotebookClient
    from tqdm.auto import tqdm

    nb = nbformat.read(path, as_version=4)
    code_cells = sum(c.cell_type == "code" for c in nb.cells)
    bar = tqdm(total=code_cells, desc=path.name, unit="cell", leave=False, file=sys.stdout)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,
        on_cell_executed=lambda cell, **_: bar.update(cell.cell_type == "code"),
    )
    start = time.perf_counter()
    try:
        client.execute()
    finally:
        bar.close()
    elapsed = time.perf_counter() - start
    nbformat.write(nb, path)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = parser.parse_args(argv)
    # The kernel is a child process: it inherits these before any math library starts.
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, THREADS)
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    failed = []
    for i, path in enumerate(args.notebooks, 1):
        print(f"[{i}/{len(args.notebooks)}] {path} ...", flush=True)
        try:
            seconds = execute(path.resolve(), args.timeout)
        except Exception as exc:  # report and go on with the next notebook
            failed.append(path)
            print(f"[{i}/{len(args.notebooks)}] {path}: FAILED: {type(exc).__name__}", flush=True)
            print(str(exc)[-3000:], flush=True)
            continue
        print(f"[{i}/{len(args.notebooks)}] {path}: {seconds:.1f} s", flush=True)
    if failed:
        print(f"{len(failed)} notebook(s) failed: {', '.join(map(str, failed))}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

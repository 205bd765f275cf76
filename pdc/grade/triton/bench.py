"""Time ``check()`` of each Triton exercise, cold and warm, as a notebook meets it.

Each exercise runs in a fresh process that does what the solution notebook does: import
torch and Triton (on Triton's interpreter), import ``pdc.grade.triton``, define the kernel
from the notebook's code cells, then call ``check`` twice. "cold" is the first call right
after the import, "read" the first call a few seconds after it (a student reading the
exercise), "again" the second call, as many seconds after the first.

    python -m pdc.grade.triton.bench [--pause 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EXERCISES = {"12_triton_softmax": "softmax_kernel", "13_triton_matmul": "matmul_kernel"}

_CHILD = r"""
import contextlib, io, json, linecache, os, sys, time
import nbformat
os.environ["TRITON_INTERPRET"] = "1"
t0 = time.perf_counter()
import torch, triton
from pdc.grade.triton import check
t_import = time.perf_counter() - t0
ns = {}
for k, cell in enumerate(nbformat.read(sys.argv[1], as_version=4).cells):
    if cell.cell_type != "code" or "%pip" in cell.source:
        continue
    if cell.source.lstrip().startswith("check("):
        break  # the cells up to the exercise's check define its kernel
    name = f"<cell {k}>"
    linecache.cache[name] = (len(cell.source), None, cell.source.splitlines(True), name)
    exec(compile(cell.source, name, "exec"), ns)
kernel = ns[sys.argv[2]]
time.sleep(float(sys.argv[3]))
times = []
for k in range(2):
    if k:
        time.sleep(float(sys.argv[3]))  # the feedback read, the kernel edited
    buf = io.StringIO()
    t = time.perf_counter()
    with contextlib.redirect_stdout(buf):
        check(kernel)
    times.append(time.perf_counter() - t)
print(json.dumps({"import": t_import, "first": times[0], "second": times[1],
                  "feedback": buf.getvalue().splitlines()[:1]}))
"""


def measure(key: str, pause: float) -> dict:
    """One fresh process: the import, then two checks of ``key``'s solution kernel."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    nb = ROOT / "solutions" / f"{key}.ipynb"
    args = [sys.executable, "-c", _CHILD, str(nb), EXERCISES[key], str(pause)]
    proc = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"[triton bench] {key}: {proc.stderr.strip()[-800:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pause", type=float, default=5.0, help="seconds read before a check")
    ns = ap.parse_args(argv)
    print(f"{'exercise':20} {'import':>8} {'cold':>8} {'read':>8} {'again':>8}  feedback")
    for key in EXERCISES:
        cold = measure(key, 0.0)
        read = measure(key, ns.pause)
        print(
            f"{key:20} {cold['import']:7.2f}s {cold['first']:7.2f}s {read['first']:7.2f}s "
            f"{read['second']:7.2f}s  {(read['feedback'] or [''])[0][:60]}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

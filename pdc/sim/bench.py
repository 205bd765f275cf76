"""``pdc bench sim``: pdc's simulator, numba's CUDA simulator and NumPy, side by side.

Every workload runs in this one command: pdc.sim with every analysis on (warm: numba's
typing of the kernel is timed apart, since it happens once per kernel and signature),
numba's simulator in a child process (``NUMBA_ENABLE_CUDASIM=1``; skipped where it would
take minutes, and the table says so), and the NumPy expression that computes the same
result. Ratios are of medians measured here, in this run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

# Bound by _bind() to numba.cuda in the mode this process chose: the real target in
# `pdc bench sim` (pdc.sim runs here), numba's simulator where pdc.numba_cuda() chose it.
cuda: Any = None
float32: Any = None
TILE = 16
TTILE = 32
TTILE_PAD = TTILE + 1


def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    x, y = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = float32(0.0)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and t * TILE + tx < A.shape[1]:
            sA[ty, tx] = A[y, t * TILE + tx]
        if x < B.shape[1] and t * TILE + ty < B.shape[0]:
            sB[ty, tx] = B[t * TILE + ty, x]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = acc


def transpose_tiled(a, out):
    tile = cuda.shared.array((TTILE, TTILE_PAD), float32)
    x = cuda.blockIdx.x * TTILE + cuda.threadIdx.x
    y = cuda.blockIdx.y * TTILE + cuda.threadIdx.y
    if y < a.shape[0] and x < a.shape[1]:
        tile[cuda.threadIdx.y, cuda.threadIdx.x] = a[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TTILE + cuda.threadIdx.x
    y = cuda.blockIdx.x * TTILE + cuda.threadIdx.y
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y]


def _bind() -> None:
    from numba import cuda as c
    from numba import float32 as f32

    globals().update(cuda=c, float32=f32)


if "numba.cuda" in sys.modules:  # as in pdc.sim's worker, which imports the kernels by name
    _bind()


def _matmul(n):
    r = np.random.default_rng(0)
    A, B = r.random((n, n), np.float32), r.random((n, n), np.float32)
    g = -(-n // TILE)
    return matmul_tiled, (g, g), (TILE, TILE), [A, B, np.zeros((n, n), np.float32)], lambda: A @ B


def _transpose(n):
    a = np.random.default_rng(0).random((n, n), np.float32)
    g = -(-n // TTILE)
    args = [a, np.zeros((n, n), np.float32)]
    return transpose_tiled, (g, g), (TTILE, TTILE), args, lambda: np.ascontiguousarray(a.T)


#: name -> (builder, size, whether numba's simulator runs it in this bench)
WORKLOADS = {
    "tiled matmul 64x64": (_matmul, 64, True),
    "tiled matmul 256x256": (_matmul, 256, False),
    "tiled transpose 1024x1024": (_transpose, 1024, False),
}


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _numba_sim(name: str) -> float:
    """Seconds numba's simulator takes for workload ``name`` (in a child process)."""
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=root)
    code = (
        "import json, time; from pdc.sim import bench; bench._bind(); from numba import cuda; "
        f"b, n, _ = bench.WORKLOADS[{name!r}]; k, g, bl, args, _ = b(n); "
        "f = cuda.jit(k); t = time.perf_counter(); f[g, bl](*args); "
        "print(json.dumps(time.perf_counter() - t))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip().splitlines()[-1])


def run(repeats: int = 3, numba_sim: bool = True) -> list[dict]:
    """Measure every workload; returns one row per workload."""
    from pdc.sim import launch as launch_here

    _bind()
    rows = []
    for name, (build, n, with_numba) in WORKLOADS.items():
        kernel, grid, block, args, ref = build(n)
        t0 = time.perf_counter()
        rep = launch_here(kernel, grid, block, [a.copy() for a in args])
        first = time.perf_counter() - t0

        def once(kernel=kernel, grid=grid, block=block, args=args):
            launch_here(kernel, grid, block, [a.copy() for a in args])

        sim_s = _median_time(once, repeats)
        out = [a.copy() for a in args]
        launch_here(kernel, grid, block, out)
        ok = bool(np.allclose(out[-1], ref(), rtol=1e-4, atol=1e-4))
        np_s = _median_time(ref, max(repeats, 5))
        nb_s = _numba_sim(name) if (with_numba and numba_sim) else None
        rows.append(
            {
                "workload": name,
                "pdc_sim_s": sim_s,
                "first_call_s": first,
                "numba_sim_s": nb_s,
                "numpy_s": np_s,
                "correct": ok,
                "findings": sorted(rep.findings),
                "conflicts": rep.conflicts(),
            }
        )
    return rows


def table(rows: list[dict]) -> str:
    head = (
        f"{'workload':<30}{'pdc.sim':>10}{'(1st call)':>12}{'numba sim':>11}"
        f"{'speed-up':>10}{'NumPy':>10}{'sim/NumPy':>11}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        nb = r["numba_sim_s"]
        lines.append(
            f"{r['workload']:<30}{r['pdc_sim_s'] * 1e3:>8.1f}ms{r['first_call_s']:>11.2f}s"
            + (f"{nb:>10.2f}s{nb / r['pdc_sim_s']:>9.0f}x" if nb else f"{'not run':>11}{'':>10}")
            + f"{r['numpy_s'] * 1e3:>8.2f}ms{r['pdc_sim_s'] / r['numpy_s']:>10.0f}x"
            + ("" if r["correct"] and not r["findings"] else "  WRONG or findings")
        )
    lines.append(
        "Solution rows (NN kernel): every public case of the exercise, on the grader's own "
        "definition of the kernel; NumPy: the exercise's reference on the same cases."
    )
    lines.append(
        "pdc.sim: every analysis on (races, definedness, bounds, banks, sectors); warm "
        "(numba's typing, once per kernel, is in the 1st call). numba sim: one run, "
        "only where it takes seconds, not minutes."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="pdc bench sim", description=__doc__)
    p.add_argument("--repeats", type=int, default=3, help="timed runs per workload (median)")
    p.add_argument("--no-numba-sim", action="store_true", help="skip numba's simulator")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument(
        "--no-solutions", action="store_true", help="skip the exercises' solution kernels"
    )
    a = p.parse_args(argv)
    import numba.cuda  # noqa: F401 - the real target: pdc.sim runs in this process

    if a.repeats < 1:
        p.error(f"--repeats: expected a positive count, got {a.repeats}")
    rows = run(a.repeats, not a.no_numba_sim)
    if not a.no_solutions:
        from pdc.sim import bench_solutions

        rows += bench_solutions.rows(a.repeats, not a.no_numba_sim)
    print(json.dumps(rows, indent=1) if a.json else table(rows))
    return 0 if all(r["correct"] and not r["findings"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

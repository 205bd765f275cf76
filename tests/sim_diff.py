"""Run each case on numba's CUDA simulator and on pdc.sim; print how their outputs compare.

Run as a script with NUMBA_ENABLE_CUDASIM=1 (tests/test_sim_differential.py does): numba's
simulator runs in this process and pdc.sim in its worker process.
"""

import json
import sys
from pathlib import Path

import numpy as np

from tests import sim_cases as C


def cases():
    """Kernels numba's simulator can run: it has no warp shuffles, matches or libdevice (those are
    checked against NumPy in tests/test_sim.py)."""
    r = np.random.default_rng(3)
    f32 = np.float32
    yield "add", C.add, 4, 32, [r.random(100, f32), r.random(100, f32), np.zeros(100, f32)], 0
    a = r.random((20, 30), f32)
    yield "scale2d", C.scale2d, (2, 1), (16, 32), [a, np.zeros_like(a), 3.0], 1e-6
    A, B = r.random((20, 40), f32), r.random((40, 24), f32)
    yield "matmul", C.matmul_tiled, (2, 2), (16, 16), [A, B, np.zeros((20, 24), f32)], 1e-5
    yield "block_sum", C.block_sum, 3, 32, [r.random(80, f32), np.zeros(3, f32)], 1e-5
    v = r.integers(0, 8, 200)
    yield "histogram", C.histogram, 7, 32, [v, np.zeros(8, np.int64)], 0
    t = r.random((20, 24), f32)
    yield "transpose", C.transpose_padded, (2, 2), (16, 16), [t, np.zeros((24, 20), f32)], 0
    x = (r.random((3, 70), f32) * 20 - 10).astype(f32)
    yield "softmax", C.softmax_rows, 3, 32, [x, np.zeros_like(x)], 1e-5
    s = r.integers(0, 9, 50).astype(np.int32)
    yield "scan", C.scan_block, 2, 32, [s, np.zeros(50, np.int32)], 0


def main() -> int:
    from numba import cuda

    import pdc.sim as sim
    from tests.numba_oracle import Oracle

    kept = Oracle("sim_diff")
    text = Path(C.__file__).read_text()  # the kernels and the device functions they call
    out = {}
    for name, kernel, grid, block, args, tol in cases():
        mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        rep = sim.launch(kernel, grid, block, mine)
        kept.launch(
            lambda a, k=kernel, g=grid, b=block: cuda.jit(k)[g, b](*a),
            text,
            kernel.__name__,
            grid,
            block,
            theirs,
        )
        worst = 0.0
        for m, t in zip(mine, theirs):
            if isinstance(m, np.ndarray):
                if m.dtype.kind in "iub":
                    worst = max(worst, float((m != t).sum()))
                else:
                    err = np.abs(m.astype(np.float64) - t) / np.maximum(1, np.abs(t))
                    worst = max(worst, float(err.max()))
        out[name] = {"worst": worst, "tol": tol, "findings": sorted(rep.findings)}
    kept.save()
    print(json.dumps({"results": out, "oracle": kept.summary()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

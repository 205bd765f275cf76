"""`pdc bench sim` runs end to end and its rows say what they measured (numbers unchecked)."""

import pdc
from pdc.sim import bench

pdc.numba_cuda()  # this process's numba.cuda mode, as every test module chooses it


def test_bench_rows_and_table(monkeypatch):
    monkeypatch.setattr(
        bench, "WORKLOADS", {"tiled matmul 32x32": (bench._matmul, 32, False)}, raising=True
    )
    rows = bench.run(repeats=1, numba_sim=False)
    assert len(rows) == 1 and rows[0]["correct"] and rows[0]["findings"] == []
    text = bench.table(rows)
    assert "tiled matmul 32x32" in text and "not run" in text

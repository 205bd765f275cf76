"""Triton checks answer fast: children waiting with torch and Triton imported, the compile
gate's verdict kept by source, and the interpreter's unused overflow checks skipped."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pdc.grade import exercises as exs
from pdc.grade.triton import kernels, runner, warm
from pdc.ptx.triton_build import installed

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not installed(), reason="Triton is not installed (Linux only)")


def _cells(key: str) -> list[str]:
    import nbformat

    nb = nbformat.read(ROOT / "solutions" / f"{key}.ipynb", as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def _wait_ready(stages=warm.STAGES, timeout=120.0) -> dict:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        with warm._LOCK:
            ready = {s: p.pid for s, (p, _) in warm._READY.items() if p.poll() is None}
        if set(ready) == set(stages):
            return ready
        time.sleep(0.2)
    raise AssertionError(f"no waiting children after {timeout} s: {ready}")


def test_a_second_check_takes_a_waiting_child_and_the_kept_gate_verdict(monkeypatch):
    stages: list[str] = []
    real = warm.run

    def counted(job, limit):
        stages.append(job["stage"])
        return real(job, limit)

    monkeypatch.setattr(warm, "run", counted)
    # Verdicts kept by an earlier test in this process (the same solution graded) would
    # skip the first gate: start from none.
    monkeypatch.setattr(warm, "_GATE", {})
    ex, part = exs.find_part("softmax_kernel", plugins=True)
    cells = _cells("12_triton_softmax")
    try:
        warm.warm_soon(warm.LIMIT_S)
        first_pids = _wait_ready()
        first = runner.grade_part(ex, part, cells, hidden=False)
        assert sorted(stages) == ["gate", "run"]
        assert first.verdicts and all(v.passed for v in first.verdicts), first
        found = kernels.extract(cells, part.name, part.params, ex.constants)
        from pdc.grade.triton.exercises import compile_spec

        assert warm.gate_known(warm.gate_key(found.text, compile_spec(part.name))) == ""

        # The first check took the waiting children; new ones wait for the next check.
        second_pids = _wait_ready()
        assert not set(second_pids.values()) & set(first_pids.values())
        stages.clear()
        second = runner.grade_part(ex, part, cells, hidden=False)
        assert stages == ["run"]  # the same text: the gate's verdict is kept
        assert [(v.criterion, v.score) for v in second.verdicts] == [
            (v.criterion, v.score) for v in first.verdicts
        ]
    finally:
        warm._STATE["enabled"] = False
        warm._stop_all()


def test_a_changed_kernel_is_compiled_again():
    spec = {"signature": {"x": "*fp32"}, "constexprs": {}, "num_warps": 4}
    a = warm.gate_key("def k(x):\n    pass\n", spec)
    assert a != warm.gate_key("def k(x):\n    return\n", spec)
    assert a != warm.gate_key("def k(x):\n    pass\n", {**spec, "num_warps": 8})
    assert warm.gate_known(a) is None


def test_a_waiting_child_for_another_time_limit_is_not_used():
    try:
        warm.warm_soon(warm.LIMIT_S)
        pids = _wait_ready()
        proc = warm.take("run", warm.LIMIT_S + 30)
        assert proc.pid != pids["run"]
        warm._stop(proc)
    finally:
        warm._stop_all()


def test_tracing_skips_the_overflow_checks_that_triton_drops_and_restores_them():
    pytest.importorskip("torch")
    from triton.runtime import interpreter as it

    from pdc.grade.triton.interp import Trace, tracing

    before = it.interpreter_builder.options
    assert before.sanitize_overflow and not before.debug
    with tracing(Trace()):
        assert it.interpreter_builder.options.sanitize_overflow is False
    assert it.interpreter_builder.options is before

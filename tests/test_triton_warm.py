"""Triton checks answer fast: children forked from zygotes with torch and Triton imported,
the compile gate's verdict kept by source, and the interpreter's unused overflow checks
skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdc.grade import exercises as exs
from pdc.grade import zygote
from pdc.grade.triton import kernels, runner, warm
from pdc.ptx.triton_build import installed

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not installed(), reason="Triton is not installed (Linux only)")


def _cells(key: str) -> list[str]:
    import nbformat

    nb = nbformat.read(ROOT / "solutions" / f"{key}.ipynb", as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def _zygotes() -> dict:
    return {s: zygote._POOL[f"triton-{s}"].proc.pid for s in warm.STAGES}


def test_a_second_check_forks_from_the_same_zygotes_and_keeps_the_gate_verdict(
    monkeypatch, tmp_path
):
    stages: list[str] = []
    real = warm.run

    def counted(job, limit):
        stages.append(job["stage"])
        return real(job, limit)

    monkeypatch.setattr(warm, "run", counted)
    # Verdicts kept by an earlier test in this process (the same solution graded) would
    # skip the first gate, and so would those kept on disk: start from none.
    monkeypatch.setattr(warm, "_GATE", {})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    ex, part = exs.find_part("softmax_kernel", plugins=True)
    cells = _cells("12_triton_softmax")
    warm.warm_soon()
    first_pids = _zygotes()
    first = runner.grade_part(ex, part, cells, hidden=False)
    assert sorted(stages) == ["gate", "run"]
    assert first.verdicts and all(v.passed for v in first.verdicts), first
    found = kernels.extract(cells, part.name, part.params, ex.constants)
    from pdc.grade.triton.exercises import compile_spec

    assert warm.gate_known(warm.gate_key(found.text, [compile_spec(part.name)])) == ""
    stages.clear()
    second = runner.grade_part(ex, part, cells, hidden=False)
    assert stages == ["run"]  # the same text: the gate's verdict is kept
    assert _zygotes() == first_pids  # no process imported torch or Triton again
    assert [(v.criterion, v.score) for v in second.verdicts] == [
        (v.criterion, v.score) for v in first.verdicts
    ]
    # A new kernel process (nothing kept in memory) reads the verdict kept on disk.
    monkeypatch.setattr(warm, "_GATE", {})
    stages.clear()
    third = runner.grade_part(ex, part, cells, hidden=False)
    assert stages == ["run"]
    assert [v.score for v in third.verdicts] == [v.score for v in first.verdicts]


def test_a_gate_verdict_kept_on_disk_is_read_back_and_a_corrupted_one_is_not(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(warm, "_GATE", {})
    spec = {"signature": {"x": "*fp32"}, "constexprs": {}, "num_warps": 4}
    key = warm.gate_key("def k(x):\n    pass\n", [spec])
    warm.gate_keep(key, "does not compile for sm_80: because")
    monkeypatch.setattr(warm, "_GATE", {})
    assert warm.gate_known(key) == "does not compile for sm_80: because"
    for text in ("{not json", '{"verdict": 3}', "[]", ""):
        warm._disk(key).write_text(text)
        monkeypatch.setattr(warm, "_GATE", {})
        assert warm.gate_known(key) is None, text
    assert list(tmp_path.rglob("*.tmp")) == []  # written through a temporary file, renamed


def test_a_changed_kernel_is_compiled_again(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    spec = {"signature": {"x": "*fp32"}, "constexprs": {}, "num_warps": 4}
    a = warm.gate_key("def k(x):\n    pass\n", [spec])
    assert a != warm.gate_key("def k(x):\n    return\n", [spec])
    assert a != warm.gate_key("def k(x):\n    pass\n", [{**spec, "num_warps": 8}])
    # a second set of @triton.heuristics values is a second compile
    assert a != warm.gate_key("def k(x):\n    pass\n", [spec, {**spec, "constexprs": {"E": 1}}])
    assert warm.gate_known(a) is None


def test_tracing_skips_the_overflow_checks_that_triton_drops_and_restores_them():
    pytest.importorskip("torch")
    from triton.runtime import interpreter as it

    from pdc.grade.triton.interp import Trace, tracing

    before = it.interpreter_builder.options
    assert before.sanitize_overflow and not before.debug
    with tracing(Trace()):
        assert it.interpreter_builder.options.sanitize_overflow is False
    assert it.interpreter_builder.options is before

"""``pdc bench check``: each solution notebook in a fresh kernel, its check cells timed."""

from __future__ import annotations

import nbformat
import pytest

from pdc.grade import bench_check


def test_the_kernels_own_timing_of_a_cell_is_read():
    cell = nbformat.v4.new_code_cell("check(k)")
    assert bench_check._seconds(cell) is None  # never executed
    cell.metadata["execution"] = {
        "iopub.execute_input": "2026-11-26T10:00:00.250000Z",
        "shell.execute_reply": "2026-11-26T10:00:01.000000Z",
    }
    assert bench_check._seconds(cell) == pytest.approx(0.75)


def test_bad_arguments_name_what_was_expected(capsys):
    with pytest.raises(SystemExit):
        bench_check.main(["no_such_notebook"])
    assert "expected solution notebooks" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench_check.main(["--pause", "-1"])
    assert "expected --pause >= 0" in capsys.readouterr().err


def test_one_notebook_runs_in_a_fresh_kernel_with_empty_caches(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "mine"))
    assert bench_check.main(["01_elementwise", "--cold", "--no-progress"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("01_elementwise"))
    first, line, later, checks = row.split()[1:5]
    assert checks == "2" and first.endswith("s") and later.endswith("s")
    # The first check's resources line landed (measured in the kernel after the cell).
    assert line.endswith("s") and float(line[:-1]) > 0
    assert "empty caches" in out
    # The kernel got a cache folder of its own: nothing was written to this process's.
    assert not (tmp_path / "mine").exists()


def test_a_failing_cell_names_the_notebook_and_the_cell(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("1 / 0")]
    path = tmp_path / "99_broken.ipynb"
    nbformat.write(nb, path)
    with pytest.raises(
        RuntimeError,
        match=r"99_broken.ipynb to run, got cell 1 failing: ZeroDivisionError: division",
    ):
        bench_check.measure(path)

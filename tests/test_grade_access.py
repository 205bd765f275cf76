"""Access maps, their pictures, and the memory analysis on its way back from the grader."""

from __future__ import annotations

import json
import linecache
import subprocess
import sys

import matplotlib
import nbformat
import numpy as np
import pytest

import pdc
import pdc.sim as sim
from pdc.grade import checking, gate, grader, plots, simreport, source
from pdc.grade import exercises as exs

matplotlib.use("Agg")

cuda = pdc.numba_cuda()  # kernels are typed by numba-cuda (in pdc.sim's worker without a GPU)


def copy_unguarded(x, out):
    i = cuda.grid(1)
    out[i] = x[i]


def transpose_2d(a, out):
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[x, y] = a[y, x]


def reverse_in_shared(x, out):
    s = cuda.shared.array(32, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i]
    cuda.syncthreads()
    out[i] = s[31 - t]


def test_maps_name_the_last_thread_and_keep_out_of_range_attempts():
    x = np.arange(40, dtype=np.float32)
    out = np.zeros(40, np.float32)
    rep = sim.launch(copy_unguarded, 1, 64, [x, out], record=True)
    m = rep.access["out"]
    assert m["shape"] == (40,)
    np.testing.assert_array_equal(m["thread"], np.arange(40))
    np.testing.assert_array_equal(m["writes"], np.ones(40))
    np.testing.assert_array_equal(m["reads"], np.zeros(40))
    np.testing.assert_array_equal(rep.access["x"]["reads"], np.ones(40))
    # Threads 40..63 try x[40..63] (a read) and then out[40..63] (a write).
    assert m["oob"] == [(t, (t,)) for t in range(40, 64)]
    assert rep.access["x"]["oob"] == [(t, (t,)) for t in range(40, 64)]
    assert rep.count("oob") == 48


def test_a_2d_map_shows_the_transpose_and_reports_default_to_no_map():
    a = np.arange(6 * 5, dtype=np.float32).reshape(6, 5)
    out = np.zeros((5, 6), np.float32)
    rep = sim.launch(transpose_2d, (1, 2), (8, 4), [a, out], record=True)
    np.testing.assert_array_equal(out, a.T)
    # Thread (x, y) of block (0, by) has global id by * 32 + y_in_block * 8 + x.
    x, y = np.meshgrid(np.arange(5), np.arange(6))  # (6, 5) each: element a[y, x]
    gid = (y // 4) * 32 + (y % 4) * 8 + x
    np.testing.assert_array_equal(rep.access["a"]["thread"], gid)
    np.testing.assert_array_equal(rep.access["out"]["thread"], gid.T)
    assert sim.launch(transpose_2d, (1, 2), (8, 4), [a, out]).access is None


def test_shared_maps_are_block_zero_in_allocation_order():
    x = np.arange(96, dtype=np.float32)
    out = np.zeros(96, np.float32)
    rep = sim.launch(reverse_in_shared, 3, 32, [x, out], record=True)
    np.testing.assert_array_equal(out, x.reshape(3, 32)[:, ::-1].reshape(-1))
    assert sorted(rep.access) == ["out", "shared:0", "x"]
    m = rep.access["shared:0"]
    assert m["shape"] == (32,)
    # Each element is written by thread t and read last by thread 31 - t, all of block 0.
    np.testing.assert_array_equal(m["thread"], 31 - np.arange(32))
    np.testing.assert_array_equal(m["reads"], np.ones(32))
    np.testing.assert_array_equal(m["writes"], np.ones(32))


def test_access_map_draws_and_marks_out_of_range_in_red():
    x = np.arange(40, dtype=np.float32)
    out = np.zeros(40, np.float32)
    rep = sim.launch(copy_unguarded, 1, 64, [x, out], record=True)
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    ax = plots.access_map(rep, "out", color_by="warp")
    assert isinstance(ax, Axes)
    crosses = [c for c in ax.collections if len(c.get_offsets())]
    assert len(crosses) == 1
    xs = np.asarray(crosses[0].get_offsets())[:, 0]
    assert (xs >= 40).all()  # outside the frame of a 40-element row
    assert tuple(crosses[0].get_facecolor()[0][:3]) == (1.0, 0.0, 0.0)
    ax2 = plots.access_map(rep, "x", ax=plt.subplots()[1], color_by="block", title="x")
    assert ax2.get_title() == "x"
    plt.close("all")
    with pytest.raises(ValueError, match=r"\[access_map\] expected one of"):
        plots.access_map(rep, "y")
    with pytest.raises(ValueError, match="color_by"):
        plots.access_map(rep, "x", color_by="lane")
    with pytest.raises(ValueError, match="record=True"):
        plots.access_map(sim.launch(copy_unguarded, 1, 32, [x, out]), "x")


def test_importing_the_grader_does_not_import_matplotlib():
    code = (
        "import sys, pdc.grade, pdc.grade.plots, pdc.sim, pdc.grade.checking; "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _matmul_tiled():
    nb = nbformat.read("solutions/03_matmul.ipynb", as_version=4)
    cells = [c.source for c in nb.cells if c.cell_type == "code"]
    ex, part = exs.find_part("matmul_tiled")
    ext = source.extract(cells, [part.name], ex.constants)
    # Defined as the grader's child defines it: the compile gate's module, its source in
    # linecache (feedback quotes kernel lines).
    text, name = gate.module_text(ext, part.name), "<submission>"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    ns: dict = {"__name__": "submission"}
    exec(compile(text, name, "exec"), ns)  # noqa: S102 - the course's own solution
    return ex, part, ext, ns[part.name]


def test_check_shows_the_bank_table_and_the_access_maps(capsys, monkeypatch):
    import importlib

    import matplotlib.pyplot as plt

    # The real-GPU line compiles the kernel: not what this test is about.
    resources = importlib.import_module("pdc.ptx.resources")
    monkeypatch.setattr(resources, "check_line", lambda kernel, args, block, **kw: "")
    shown = []
    monkeypatch.setattr(plt, "show", lambda: shown.append(plt.gcf()))
    _, _, _, fn = _matmul_tiled()
    checking.check(fn, show="banks")
    text = capsys.readouterr().out
    assert "matmul_tiled:" in text and "wavefronts" in text and "total:" in text
    assert not shown
    checking.check(fn, show=("access", "banks"))
    assert "wavefronts" in capsys.readouterr().out
    (fig,) = shown
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert any(t.endswith(": C") for t in titles)
    assert any(t.endswith(": sA") for t in titles) and any(t.endswith(": sB") for t in titles)
    plt.close("all")
    with pytest.raises(ValueError, match=r"\[check\] expected show in"):
        checking.check(fn, show="sectors")


def test_memory_analysis_survives_json_and_rejects_forgeries():
    x = np.array([0, 0, 0, 3, 1], np.int64)
    hist = np.zeros(4, np.int32)
    from tests.test_grade_banks import histogram_shared

    rep = sim.launch(histogram_shared, 1, 32, [x, hist])
    data = json.loads(json.dumps(simreport.extras_to_json(rep)))
    back = simreport.LaunchReport(grid=rep.grid, block=rep.block)
    shapes = {"x": (5,), "hist": (4,)}
    simreport.extras_from_json(back, data, shapes)
    assert back.bank_conflicts == rep.bank_conflicts and back.sectors == rep.sectors
    assert back.requests == rep.requests and any(k.startswith("x:load:") for k in back.requests)
    assert back.shared_atomics == rep.shared_atomics == 5
    assert back.shared_contention == rep.shared_contention == 3  # x holds 0 three times
    for k in rep.atomic_counts:
        np.testing.assert_array_equal(back.atomic_counts[k], rep.atomic_counts[k])
    forged = [
        {**data, "shared_atomics": -1},
        {**data, "shared_contention": -1},
        {**data, "atomic_counts": {"x": [], "hist": [[9, 1]]}},
        {**data, "atomic_counts": {"x": []}},
        {**data, "sectors": {"secret:load": {"accesses": 1, "sectors": 1, "ideal": 1}}},
        {**data, "requests": {"secret:load:3": dict.fromkeys(simreport._REQUEST_FIELDS, 1)}},
        {
            **data,
            "requests": {"x:load:3": {**dict.fromkeys(simreport._REQUEST_FIELDS, 1), "over": -1}},
        },
        {**data, "bank_conflicts": {"3": {"text": 1, "accesses": 1}}},
        {**data, "extra": 1},
        [],
    ]
    for bad in forged:
        with pytest.raises(ValueError):
            simreport.extras_from_json(back, bad, shapes)


def _child_results(monkeypatch):
    """Grade matmul_tiled's public cases in the real child; return its results and metas."""
    ex, part, ext, fn = _matmul_tiled()
    cases = exs.public_cases(part)
    metas = []
    load = grader._load_result

    def spy(case, cid, out, nonce, gpu):
        metas.append(json.loads((out / f"{cid}.json").read_text()))
        return load(case, cid, out, nonce, gpu)

    monkeypatch.setattr(grader, "_load_result", spy)
    job = grader._Job(ex, part, cases, [], ext, "", 0.0)
    ((results, note),), _ = grader._run_child([job], 60.0, False)
    assert note == "" or "timed out" not in note
    local = []
    for c in cases:
        args = [v.copy() if isinstance(v, np.ndarray) else v for v in c.args.values()]
        local.append(sim.launch(fn, c.grid, c.block, args, list(c.args)))
    return cases, results, metas, local


def test_the_grading_child_sends_the_memory_analysis(monkeypatch):
    cases, results, metas, local = _child_results(monkeypatch)
    for case, r, meta, mine in zip(cases, results, metas, local):
        assert r.failure is None, r.failure
        rep = simreport.LaunchReport(grid=mine.grid, block=mine.block)
        simreport.read_extras(rep, meta, case)
        assert rep.bank_conflicts == mine.bank_conflicts != {}
        assert rep.sectors == mine.sectors and rep.sectors["C:store"]["accesses"] > 0
        assert rep.atomic_counts.keys() == {"A", "B", "C"}
        assert rep.global_atomics() == 0 and rep.shared_atomics == 0


def test_the_grader_reads_the_memory_analysis(monkeypatch):
    cases, results, _, local = _child_results(monkeypatch)
    for r, mine in zip(results, local):
        assert r.report.bank_conflicts == mine.bank_conflicts != {}
        assert r.report.sectors == mine.sectors


def test_every_subpackage_is_an_attribute_of_pdc_without_its_own_import():
    # On a GPU nothing imports pdc.sim for the exercise's setup cell; `import pdc` must do.
    code = (
        "import sys, pdc; assert 'pdc.sim' not in sys.modules; "
        "assert callable(pdc.sim.install) and pdc.grade.check; "
        "import pytest; pytest.raises(AttributeError, getattr, pdc, 'no_such_module')"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

"""Feedback a student reads: each problem once, names as written, hints that apply, counts
that agree with their nouns, and a picture where a finding is about positions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import pdc
import pdc.sim as sim
from pdc.grade import checking, plots, report
from pdc.grade import exercises as exs
from pdc.grade.grader import grade
from pdc.grade.judge import (
    CaseResult,
    Verdict,
    case_problem,
    counted,
    summary,
    unrepeated,
)

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"

# numba.cuda as the chapters have it (its simulator without a GPU): the kernels below are
# real numba kernels, as check() expects them.
cuda = pdc.numba_cuda()
TILE = 16
WARPS = 4


@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    out[i] = a[i] * b[i]  # no guard


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), np.float32)
    sB = cuda.shared.array((TILE, TILE), np.float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = np.float32(0.0)
    for t in range((kk + TILE - 1) // TILE):
        k = t * TILE + tx
        sA[ty, tx] = A[row, k] if row < m and k < kk else 0.0
        k = t * TILE + ty
        sB[ty, tx] = B[k, col] if k < kk and col < n else 0.0
        for j in range(TILE):  # no barrier before reading the tiles
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        C[row, col] = acc


@cuda.jit
def block_sum_warp(x, partial):
    warp_sums = cuda.shared.array(WARPS, np.float32)
    t = cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    i = cuda.grid(1)
    v = x[i] if i < x.size else np.float32(0.0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFF, v, offset)  # 16 bits: half the warp
        offset //= 2
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else np.float32(0.0)
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(0xFFFF, v, offset)
            offset //= 2
        if lane == 0:
            partial[cuda.blockIdx.x] = v


@pytest.fixture
def no_gpu_line(monkeypatch):
    """check() ends with a compile for a real GPU: not what these tests are about."""
    import importlib

    resources = importlib.import_module("pdc.ptx.resources")
    monkeypatch.setattr(resources, "check_line", lambda kernel, args, block, **kw: "")


@pytest.fixture
def shown(monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures: list = []
    monkeypatch.setattr(plt, "show", lambda: figures.append(plt.gcf()))
    yield figures
    plt.close("all")


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


# -- one line per distinct problem ---------------------------------------------------------------
def test_a_compile_error_is_printed_once():
    sub = grade(SUBMISSIONS / "kind_shared_sized_at_run_time", only=["05_reduction"], seed=3)
    text = report.table(sub)
    failing = [line for line in _lines(text) if "does not compile" in line]
    details = [line for line in failing if "TypingError" in line or "Failed in" in line]
    assert len(details) == 1, text
    hidden = [line for line in failing if line.startswith("hidden case")]
    assert len(hidden) <= len(sub.parts), text  # one line per kernel, naming its cases
    for line in hidden:
        assert re.fullmatch(r"hidden cases? [\d, ]+ failed: does not compile[a-zA-Z ]*", line)


def test_the_same_finding_in_several_cases_is_one_line():
    part, verdicts = checking.run_public(multiply)
    bounds = next(v for v in verdicts if v.criterion == "bounds")
    (line,) = bounds.output.splitlines()
    assert "cases n=1000, n=1: " in line and "out-of-bounds accesses, e.g." in line
    public = next(v for v in verdicts if v.criterion == "public").output
    assert len(public.splitlines()) == 2  # two cases, two different positions out of range


def test_a_problem_failing_two_criteria_is_said_once(no_gpu_line, capsys):
    part, verdicts = checking.run_public(block_sum_warp)
    text = summary(part, verdicts)
    lines = [line for line in _lines(text) if not line.startswith("[")]
    repeated = {line for line in lines if lines.count(line) > 1}
    assert not repeated - {"not awarded until the public cases pass"}, text
    masks = next(v for v in verdicts if v.criterion == "masks").output
    assert masks.index("why: ") < masks.index("cases n=1000")  # the rule first, then where
    assert "(the same problem as under" not in masks  # its own output is whole
    assert "the same problem as under barriers" in text or text.count("why: ") == 1


def test_unrepeated_points_back_to_the_first_criterion():
    a = Verdict("k: sync", "sync", 0.0, 1.0, "case n=5: 1 data race, e.g. x")
    b = Verdict("k: barriers", "barriers", 0.0, 1.0, "case n=5: 1 data race, e.g. x")
    c = Verdict("k: masks", "masks", 0.0, 1.0, "case n=5: 1 data race, e.g. x\nwhy: y")
    assert unrepeated([a, b, c]) == [a.output, "(the same problem as under sync)", "why: y"]


# -- names as the student wrote them --------------------------------------------------------------
def test_shared_arrays_are_named_as_the_student_wrote_them():
    a, b = np.ones((20, 18), np.float32), np.ones((18, 33), np.float32)
    c = np.zeros((20, 33), np.float32)
    rep = sim.launch(matmul_tiled, (3, 2), (16, 16), [a, b, c], ["A", "B", "C"], record=True)
    examples = rep.findings["race"]["examples"] + rep.findings["uninitialized"]["examples"]
    assert any("sA[" in e for e in examples) and any("sB[" in e for e in examples)
    assert not any("shared#" in e for e in examples)
    assert [rep.access[k]["name"] for k in ("shared:0", "shared:1")] == ["sA", "sB"]


def test_warp_kernels_name_their_shared_arrays_too():
    x = np.ones(300, np.float32)
    part = np.zeros(3, np.float32)
    rep = sim.launch(block_sum_warp, (3,), (128,), [x, part], ["x", "partial"], record=True)
    assert rep.access["shared:0"]["name"] == "warp_sums"


def test_a_name_taken_by_an_argument_keeps_the_neutral_name():
    def clash(x, out):
        x = cuda.shared.array(4, np.float32)  # rebinds the argument's name
        y = cuda.shared.array(4, np.float32)
        out[0] = x[cuda.threadIdx.x] + y[0]

    args = [np.ones(4, np.float32), np.zeros(1, np.float32)]
    rep = sim.launch(clash, (1,), (4,), args, ["x", "out"], record=True)
    assert [rep.access[k]["name"] for k in ("shared:0", "shared:1")] == ["shared#0", "y"]
    assert any("shared#0[" in e for e in rep.findings["uninitialized"]["examples"])


# -- hints only where they apply, counts that agree ---------------------------------------------
def _nan_case(part_name: str, bad: int):
    _, part = exs.find_part(part_name)
    case = exs.public_cases(part)[0]
    expected = part.reference(case.args)
    (name,) = case.outputs
    got = expected[name].copy()
    got.reshape(-1)[:bad] = np.nan
    return part, case_problem(part, CaseResult(case, outputs={name: got}), expected)


def test_the_exp_hint_is_for_softmax_only():
    _, text = _nan_case("multiply", 2)
    assert "2 are inf or nan" in text and "exp(" not in text and "exp of" not in text
    assert "division by zero" in text
    _, text = _nan_case("softmax_fused", 1)
    assert "1 is inf or nan" in text and "exp of a value above 88.7" in text


def test_counts_agree_with_their_nouns():
    assert counted(1, "race") == "1 data race"
    assert counted(2, "race") == "2 data races"
    assert counted(1, "oob") == "1 out-of-bounds access"
    assert counted(19884, "oob") == "19884 out-of-bounds accesses"
    assert counted(3, "warp") == "3 warp collectives that read an inactive lane"


# -- pictures -------------------------------------------------------------------------------------
def test_check_pictures_an_out_of_range_access_by_default(no_gpu_line, shown, capsys):
    checking.check(multiply)
    out = capsys.readouterr().out
    assert "case n=1000, pictured" in out
    (fig,) = shown
    axes = [ax for ax in fig.axes if ax.get_title()]
    legend = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert {"out of range", "not touched"} <= set(legend)
    assert axes[0].get_xlabel() and axes[0].get_ylabel()
    assert any(ax.get_ylabel().startswith("last thread") for ax in fig.axes)  # colour bar


def test_check_shows_no_picture_when_asked_or_when_nothing_is_about_positions(
    no_gpu_line, shown, capsys
):
    checking.check(multiply, show=None)
    checking.check(matmul_tiled)  # a race: about order, not position
    assert not shown
    assert "pictured" not in capsys.readouterr().out


def test_access_map_titles_a_shared_array_by_its_name():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a, b = np.ones((20, 18), np.float32), np.ones((18, 33), np.float32)
    c = np.zeros((20, 33), np.float32)
    rep = sim.launch(matmul_tiled, (3, 2), (16, 16), [a, b, c], ["A", "B", "C"], record=True)
    ax = plots.access_map(rep, "shared:1")
    assert ax.get_title().startswith("sB: last thread")
    plt.close("all")


def test_results_json_keeps_every_criterion_whole(tmp_path):
    """Gradescope shows each test alone: the de-duplication across criteria is for reading
    in one place, and results.json keeps each criterion's full output."""
    sub = grade(SUBMISSIONS / "warp_reduce_half_mask", only=["10_warp_reduce"], seed=3)
    tests = report.gradescope(sub)["tests"]
    outputs = [t["output"] for t in tests if t["score"] < t["max_score"]]
    assert sum("warp collectives that read an inactive lane" in o for o in outputs) >= 2
    json.dumps(tests)

"""The grader trusts nothing a child process writes that it did not ask for."""

from __future__ import annotations

import json
import re

import nbformat
import numpy as np
import pytest

import pdc
from pdc.grade import exercises as exs
from pdc.grade import grader
from pdc.grade.grader import _load_result, grade

NONCE = "a" * 32


@pytest.fixture
def case():
    _, part = exs.find_part("multiply")
    return exs.public_cases(part)[2]  # n = 1


def _write(out, case, *, nonce=NONCE, arrays=None, findings=None, extra_meta=None):
    n = 256  # one block of 256 threads
    good = {
        "out_out": np.zeros(1, np.float32),
        "shared_loads": np.zeros(n, np.int64),
        "shared_stores": np.zeros(n, np.int64),
        "atomics": np.zeros(n, np.int64),
        "ops": np.zeros(n, np.int64),
        "span": np.zeros(n, np.int64),
        "shuffles": np.zeros(n, np.int64),
    }
    for a in ("a", "b", "out"):
        good[f"loads_{a}"] = np.zeros(n, np.int64)
        good[f"stores_{a}"] = np.zeros(n, np.int64)
        good[f"written_{a}"] = np.zeros(n, np.int64)
    good.update(arrays or {})
    with open(out / "c0.npz", "wb") as f:
        np.savez(f, **good)
    meta = {
        "nonce": nonce,
        "case": "c0",
        "findings": findings or {},
        "barriers": 0,
        "shared_arrays": 0,
        "sim": {
            "bank_conflicts": {},
            "sectors": {},
            "requests": {},
            "atomic_counts": {"a": [], "b": [], "out": []},
            "shared_atomics": 0,
            "shared_contention": 0,
        },
    }
    meta.update(extra_meta or {})
    (out / "c0.json").write_text(json.dumps(meta))


def test_valid_files_are_read(tmp_path, case):
    _write(tmp_path, case)
    r = _load_result(case, "c0", tmp_path, NONCE, gpu=False)
    assert r.failure is None and r.outputs["out"].shape == (1,)


@pytest.mark.parametrize(
    "kwargs, why",
    [
        ({"nonce": "b" * 32}, "nonce"),
        ({"arrays": {"out_out": np.zeros(5, np.float32)}}, "out_out: expected (1,) float32"),
        ({"arrays": {"out_out": np.zeros(1, np.float64)}}, "out_out: expected (1,) float32"),
        ({"arrays": {"out_out": np.array([{"score": 1}], dtype=object)}}, "pickle"),
        ({"arrays": {"extra": np.zeros(1)}}, "expected arrays"),
        ({"arrays": {"atomics": -np.ones(256, np.int64)}}, "int64 counts"),
        ({"findings": {"fake": {"count": 0, "examples": []}}}, "unknown finding kind"),
        ({"findings": {"oob": {"count": -1, "examples": []}}}, "malformed"),
        ({"extra_meta": {"sim": {}}}, "memory analysis"),
        ({"extra_meta": {"sim": None}}, "memory analysis"),
    ],
)
def test_forged_or_malformed_results_are_no_result(tmp_path, case, kwargs, why):
    _write(tmp_path, case, **kwargs)
    r = _load_result(case, "c0", tmp_path, NONCE, gpu=False)
    assert r.outputs is None and r.failure.startswith("no result"), r.failure
    assert why in r.failure


def test_missing_files_are_no_result(tmp_path, case):
    r = _load_result(case, "c0", tmp_path, NONCE, gpu=False)
    assert "no result" in r.failure


def _notebook(tmp_path, kernel_src, name="01_elementwise"):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(kernel_src)]
    nbformat.write(nb, tmp_path / f"{name}.ipynb")
    return tmp_path


def test_memory_hog_fails_without_hurting_the_grader(tmp_path):
    src = """
from numba import cuda, float64


@cuda.jit
def multiply(a, b, out):
    big = cuda.local.array(2000000000, float64)
    out[0] = big[0]
"""
    cells = [src]
    ex, part = exs.find_part("multiply")
    res = grader.run_part(ex, part, cells, timeout=30, seed=0, gpu=False)
    public = next(v for v in res.verdicts if v.criterion == "public")
    # Refused before anything is allocated: more local memory than a GPU gives a thread.
    assert res.score == 0 and "bytes is more than a GPU gives" in public.output


def test_prints_and_grader_patches_stay_in_the_child(tmp_path):
    src = """
from numba import cuda, float64


@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    print("score: 100")
    if i < out.size:
        out[i] = a[i] * b[i]
"""
    before = grader.judge
    sub = grade(_notebook(tmp_path, src), kernels=["multiply"], seed=0)
    assert grader.judge is before
    assert sub.score == sub.max_score  # a correct kernel that prints is still correct


def test_hidden_cases_change_between_runs():
    _, part = exs.find_part("conv1d")
    a = [c.dims for c in exs.hidden_cases(part, np.random.default_rng(1))]
    b = [c.dims for c in exs.hidden_cases(part, np.random.default_rng(2))]
    assert a != b
    assert all(
        c.hidden and c.label.startswith("hidden case")
        for c in exs.hidden_cases(part, np.random.default_rng(1))
    )


def test_hidden_quality_feedback_has_no_numbers(tmp_path):
    src = """
from numba import cuda, float64


@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if out.size == 1000 or out.size == 256 or out.size == 1:
        if i < out.size:
            out[i] = a[i] * b[i]
    elif i == 0:
        for j in range(out.size):  # serial, and out of bounds, only on hidden sizes
            out[j] = a[j] * b[j]
        out[out.size] = 0.0
"""
    sub = grade(_notebook(tmp_path, src), kernels=["multiply"], seed=3)
    v = {x.criterion: x for x in sub.parts[0].verdicts}
    assert v["public"].passed and not v["hidden"].passed  # out of range fails the case
    for line in v["hidden"].output.splitlines()[1:]:
        line = line.replace(" failed", "")
        assert re.fullmatch(r"hidden cases? [\d, ]+: out-of-bounds access", line), line
    assert not v["parallel"].passed and not v["bounds"].passed
    assert re.fullmatch(r"hidden case \d: one thread does the work of many", v["parallel"].output)
    for line in v["bounds"].output.splitlines():
        assert re.fullmatch(r"hidden cases? [\d, ]+: out-of-bounds access", line), line


@pytest.mark.skipif(
    not pdc.has_gpu(),
    reason="the child's GPU branch needs a CUDA GPU: numba's CUDA simulator cannot stand in, "
    "since the child types kernels for pdc.sim with numba-cuda's real target",
)
def test_gpu_path_runs_on_a_gpu():
    """The GPU branch of the child (numba.cuda.jit, device copies) gives the outputs graded."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    cells = grader.source.notebook_cells(root / "solutions" / "03_matmul.ipynb")
    ex, part = exs.find_part("matmul_tiled")
    res = grader.run_part(ex, part, cells, seed=0, gpu=True, hidden=False, timeout=120)
    assert res.score == res.max_score, [v.output for v in res.verdicts]

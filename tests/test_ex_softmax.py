"""Exercise 11_softmax: its spec, cases and judges (pdc.grade.exercises.ex11_softmax).

The traffic judge is tested on hand-made launch reports; the model's fused kernel runs once on
a small case of the instrumented simulator to tie the judge and the work bound to what it
measures.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pdc
import pdc.sim as sim
from pdc.grade import exercises as exs
from pdc.grade.exercises import ex11_softmax as exm
from pdc.grade.judge import CaseResult, judge
from pdc.grade.simreport import Dim3, LaunchReport

EX = exs.exercise("11_softmax")
ROW_MAX, EXP_SUM, NORMALIZE, FUSED = EX.parts
TPB = exm.TPB

cuda = pdc.numba_cuda()  # kernels are typed by numba-cuda (in pdc.sim's worker without a GPU)
float32 = np.float32


def fused_model(x, out):
    s_max = cuda.shared.array(TPB, float32)
    s_sum = cuda.shared.array(TPB, float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    total = float32(0.0)
    for c in range(t, cols, TPB):
        v = x[r, c]
        if v > m:
            total = total * math.exp(m - v) + float32(1.0)
            m = v
        else:
            total += math.exp(v - m)
    s_max[t] = m
    s_sum[t] = total
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            m1, m2 = s_max[t], s_max[t + stride]
            if m2 > m1:
                s_sum[t] = s_sum[t] * math.exp(m1 - m2) + s_sum[t + stride]
                s_max[t] = m2
            elif m2 > -math.inf:
                s_sum[t] += s_sum[t + stride] * math.exp(m2 - m1)
        cuda.syncthreads()
        stride //= 2
    m = s_max[0]
    total = s_sum[0]
    for c in range(t, cols, TPB):
        out[r, c] = math.exp(x[r, c] - m) / total


def _case(part=FUSED, sizes=(3, 37, 0.0), hidden=False, k=1):
    case = part.make(np.random.default_rng(0), sizes)
    if hidden:
        case.hidden, case.label = True, f"hidden case {k}"
    return case


def _report(case, x_loads=2, out_stores=1):
    """A LaunchReport for the fused kernel: the loads and stores of its first threads."""
    rep = LaunchReport(grid=Dim3(case.grid[0], 1, 1), block=Dim3(TPB, 1, 1))
    elements = case.dims["rows"] * case.dims["cols"]
    loads, stores = np.zeros(rep.nthreads, np.int64), np.zeros(rep.nthreads, np.int64)
    loads[:elements] = x_loads
    stores[:elements] = out_stores
    rep.loads = {"x": loads, "out": np.zeros(rep.nthreads, np.int64)}
    rep.stores = {"x": np.zeros(rep.nthreads, np.int64), "out": stores}
    return rep


def _traffic(*results):
    return FUSED.judges["memory"](FUSED, list(results))


# -- spec and inputs ----------------------------------------------------------------------------
def test_spec_is_a_softmax_of_each_row():
    x = np.random.default_rng(1).uniform(-3, 3, (4, 9)).astype(np.float32)
    got = exm.softmax_spec(x)
    e = np.exp(x.astype(np.float64))
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    assert got.dtype == np.float32 and got.shape == x.shape


def test_spec_is_stable_where_the_textbook_formula_overflows():
    x = exm.matrix(np.random.default_rng(2), 4, 50, exm.BIG)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(x)
        naive = e / e.sum(axis=1, keepdims=True)
    assert np.isnan(naive).all(axis=1).all()  # every row overflows (or underflows) to nan
    got = exm.softmax_spec(x)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(got, exm.softmax_spec(x - x.max(axis=1, keepdims=True)), rtol=1e-5)


def test_exp_sum_spec_matches_its_definition():
    x = exm.matrix(np.random.default_rng(3), 3, 20, 0.0)
    e, s = exm.exp_sum_spec(x, x.max(axis=1))
    assert e.dtype == s.dtype == np.float32 and e.shape == x.shape and s.shape == (3,)
    assert (e.max(axis=1) == 1.0).all()  # the max term is exp(0)
    np.testing.assert_allclose(s, e.sum(axis=1), rtol=1e-6)


def test_matrix_offsets_each_row_by_half_to_all_of_the_offset():
    x = exm.matrix(np.random.default_rng(4), 200, 8, 1000.0)
    centre = np.abs(x.mean(axis=1))
    assert (centre >= 500 - exm.SPREAD).all() and (centre <= 1000 + exm.SPREAD).all()
    assert (x.max(axis=1) - x.min(axis=1) <= 2 * exm.SPREAD).all()
    assert (x.mean(axis=1) < 0).any() and (x.mean(axis=1) > 0).any()  # both signs occur
    assert np.abs(exm.matrix(np.random.default_rng(4), 5, 8, 0.0)).max() <= exm.SPREAD


# -- cases and geometry ---------------------------------------------------------------------------
def test_registered_under_its_key_with_four_kernels():
    assert EX is exm.SOFTMAX and EX.constants == {"TPB": TPB}
    assert [p.name for p in EX.parts] == ["row_max", "exp_sum", "normalize", "softmax_fused"]
    assert exs.find_part("softmax_fused") == (EX, FUSED)
    assert FUSED.judges.keys() == {"memory"} and "memory" in FUSED.titles


@pytest.mark.parametrize("part", [ROW_MAX, EXP_SUM, FUSED])
def test_row_kernels_run_one_block_per_row(part):
    case = _case(part, (5, 300, exm.BIG))
    assert case.grid == (5,) and case.block == (TPB,)
    assert case.args["x"].shape == (5, 300)
    assert (case.dims["rows"], case.dims["cols"], case.dims["offset"]) == (5, 300, exm.BIG)
    assert "rows offset by up to +-1000" in case.label
    expected = part.reference(case.args)
    assert set(expected) == set(case.outputs)
    for name in case.outputs:
        assert expected[name].shape == case.args[name].shape
        assert expected[name].dtype == np.float32 and np.isfinite(expected[name]).all()


def test_exp_sum_is_given_the_row_max():
    case = _case(EXP_SUM, (3, 40, exm.BIG))
    np.testing.assert_array_equal(case.args["m"], case.args["x"].max(axis=1))
    assert case.outputs == ("e", "s")


def test_normalize_covers_the_matrix_with_blocks_along_rows():
    case = _case(NORMALIZE, (3, 300, 0.0))
    assert case.grid == (math.ceil(300 / TPB), 3) and case.block == (TPB,)
    e, s = case.args["e"], case.args["s"]
    np.testing.assert_allclose(NORMALIZE.reference(case.args)["out"].sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(s, e.sum(axis=1), rtol=1e-5)


def test_public_cases_have_short_long_and_offset_rows():
    for part in EX.parts:
        cols = [c for _, c, _ in part.public]
        assert min(cols) < TPB < max(cols)
    assert any(offset == exm.BIG for _, _, offset in FUSED.public)


def test_hidden_sizes_cover_the_awkward_rows():
    draws = [FUSED.hidden(np.random.default_rng(seed)) for seed in range(30)]
    sizes = [exm._sizes(s) for draw in draws for s in draw]
    cols = {c for _, c, _, _ in sizes}
    assert {TPB - 1, 1, exm.LONG} <= cols
    assert any(c > 2 * TPB and c % TPB == 1 for c in cols) and any(1 < c < 32 for c in cols)
    assert sum(offset == exm.BIG for _, _, offset, _ in sizes) >= len(sizes) // 2
    for draw in draws:  # every draw: a row spread wide enough that exp(x) overflows float32
        assert any(
            spread > 88.7 and offset == 0.0 for _, _, offset, spread in map(exm._sizes, draw)
        )
    # Small enough for the simulator: a row of LONG columns is the largest case.
    assert max(r * math.ceil(c / TPB) * TPB for r, c, _, _ in sizes) <= exm.LONG + TPB


# -- the traffic judge --------------------------------------------------------------------------
def test_traffic_passes_two_loads_and_one_store_per_element():
    case = _case()
    frac, text = _traffic(CaseResult(case, {}, _report(case)))
    assert frac == 1.0 and "at most 2 global loads" in text
    frac, _ = _traffic(CaseResult(case, {}, _report(case, x_loads=1)))  # the row kept on chip
    assert frac == 1.0


@pytest.mark.parametrize("x_loads, out_stores", [(3, 1), (2, 2)])
def test_traffic_fails_a_third_read_or_a_second_write(x_loads, out_stores):
    case = _case()
    frac, text = _traffic(CaseResult(case, {}, _report(case, x_loads, out_stores)))
    assert frac == 0.0
    assert f"{x_loads:.2f} global loads and {out_stores:.2f} stores per element" in text


def test_traffic_on_a_hidden_case_reveals_no_numbers():
    case = _case(hidden=True, k=3)
    frac, text = _traffic(CaseResult(case, {}, _report(case, 3, 1)))
    assert frac == 0.0 and text == "hidden case 3: too much global traffic per element"


def test_work_bound_grows_with_the_row_and_stops_a_serial_thread():
    short, long = _case(sizes=(2, 100, 0.0)), _case(sizes=(2, 3 * TPB, 0.0))
    # x three times at a new max, then x, s_max[0], s_sum[0] and the store, per column
    assert FUSED.max_work(long) - FUSED.max_work(short) == 7 * 2
    assert 3 * 100 > FUSED.max_work(short)  # one thread reading a row twice and writing it


# -- the model on the simulator -------------------------------------------------------------------
def test_fused_model_passes_every_criterion_on_a_small_case():
    case = _case(sizes=(3, TPB + 1, exm.BIG))
    args = [a.copy() for a in case.args.values()]
    rep = sim.launch(fused_model, case.grid, case.block, args, list(case.args))
    result = CaseResult(case, outputs={"out": args[1]}, report=rep)
    verdicts = judge(FUSED, [result], [FUSED.reference(case.args)])
    failed = [(v.criterion, v.output) for v in verdicts if v.criterion != "hidden" and not v.passed]
    assert not failed
    assert rep.loads["x"].sum() == 2 * args[0].size and rep.stores["out"].sum() == args[0].size


# -- shuffles per thread (Part.max_shuffles) ------------------------------------------------------
FULL_MASK = 0xFFFFFFFF


def row_max_butterfly(x, m):
    """Each warp's max by five xor shuffles, the four warp maxima through shared memory."""
    buf = cuda.shared.array(4, np.float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    v = -math.inf
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    for offset in (16, 8, 4, 2, 1):
        v = max(v, cuda.shfl_xor_sync(FULL_MASK, v, offset))
    if t % 32 == 0:
        buf[t // 32] = v
    cuda.syncthreads()
    if t == 0:
        m[r] = max(max(buf[0], buf[1]), max(buf[2], buf[3]))


def row_max_lane_zero_gathers(x, m):
    """Right maxima, but every lane reads all 32 lanes' values one shuffle at a time."""
    buf = cuda.shared.array(4, np.float32)
    r, t = cuda.blockIdx.x, cuda.threadIdx.x
    v = -math.inf
    for c in range(t, x.shape[1], TPB):
        v = max(v, x[r, c])
    best = v
    for k in range(32):
        best = max(best, cuda.shfl_sync(FULL_MASK, v, k))
    if t % 32 == 0:
        buf[t // 32] = best
    cuda.syncthreads()
    if t == 0:
        m[r] = max(max(buf[0], buf[1]), max(buf[2], buf[3]))


@pytest.mark.parametrize(
    "kernel, shuffles, spread",
    [(row_max_butterfly, 5, True), (row_max_lane_zero_gathers, 32, False)],
)
def test_parallel_counts_the_shuffles_of_each_thread(kernel, shuffles, spread):
    case = ROW_MAX.make(np.random.default_rng(0), (3, 100, 0.0))
    args = [a.copy() for a in case.args.values()]
    rep = sim.launch(kernel, case.grid, case.block, args, list(case.args))
    np.testing.assert_array_equal(args[1], ROW_MAX.reference(case.args)["m"])
    assert int(rep.shuffles.max()) == shuffles
    verdicts = judge(
        ROW_MAX, [CaseResult(case, {"m": args[1]}, rep)], [ROW_MAX.reference(case.args)]
    )
    (parallel,) = [v for v in verdicts if v.criterion == "parallel"]
    assert parallel.passed == spread, parallel.output
    if not spread:
        assert f"32 shuffles, at most {exm.SHUFFLES_PER_PASS} expected" in parallel.output


def test_shuffle_budget_grows_with_the_columns_a_thread_strides_over():
    short, long = _case(sizes=(2, 100, 0.0)), _case(sizes=(2, 3 * TPB, 0.0))
    assert FUSED.max_shuffles(short) == exm.SHUFFLES_PER_PASS
    assert FUSED.max_shuffles(long) == 3 * exm.SHUFFLES_PER_PASS

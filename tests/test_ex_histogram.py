"""Exercise 07_histogram: its spec, streams, cases and judges (pdc.grade.exercises.ex07_histogram).

The judges are tested on hand-made report objects; two small launches on the instrumented
simulator tie the contention judge to what the simulator counts.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pdc
from pdc.grade import exercises as exs
from pdc.grade.exercises import ex07_histogram as exh
from pdc.grade.judge import CaseResult, judge

EX = exs.exercise("07_histogram")
GLOBAL, SHARED = EX.parts


class FakeReport:
    """The parts of a LaunchReport the histogram judges read."""

    def __init__(self, hist_atomics=None, work=None, nthreads=exh.BLOCKS * exh.TPB):
        counts = np.zeros(exh.BINS, np.int64) if hist_atomics is None else hist_atomics
        self.atomic_counts = {"values": np.zeros(1, np.int64), "hist": counts}
        self._work = np.full(nthreads, 10, np.int64) if work is None else work
        self.findings: dict = {}

    def global_atomics(self) -> int:
        return sum(int(v.sum()) for v in self.atomic_counts.values())

    def contention(self, name: str) -> int:
        return int(self.atomic_counts[name].max())

    def work(self) -> np.ndarray:
        return self._work

    def count(self, kind: str) -> int:
        return 0


def _result(report, sizes=(2000, "uniform"), hidden=False, k=1, part=SHARED):
    case = part.make(np.random.default_rng(0), sizes)
    if hidden:
        case.hidden, case.label = True, f"hidden case {k}"
    return CaseResult(case, outputs={}, report=report)


def _one_per_block(bins=exh.BINS):
    counts = np.zeros(exh.BINS, np.int64)
    counts[:bins] = exh.BLOCKS
    return counts


# -- spec, streams and cases --------------------------------------------------------------------
def test_spec_counts_readings_and_drops_failed_codes():
    values = np.array([3, 3, 200, 7, 3, 64, 0, 63, 255], np.uint8)
    hist = exh.histogram_spec(values)
    assert hist.shape == (exh.BINS,) and hist.dtype == np.int32
    assert (hist[3], hist[7], hist[0], hist[63]) == (3, 1, 1, 1)
    assert hist.sum() == 6  # 200, 64 and 255 are failed readings


@pytest.mark.parametrize("kind", list(exh.KINDS))
@pytest.mark.parametrize("n", [1, 2, 129, 2000])
def test_streams_are_bytes_of_their_kind(kind, n):
    v = exh.stream(np.random.default_rng(n), n, kind)
    assert v.dtype == np.uint8 and v.shape == (n,)
    assert v[0] < exh.BINS  # every stream counts something: a do-nothing kernel never passes
    readings = v[v < exh.BINS]
    if kind == "same":
        assert (v == v[0]).all()
    if kind == "hot" and n == 2000:
        top3 = np.sort(np.bincount(readings, minlength=exh.BINS))[-3:].sum()
        assert top3 > 0.8 * readings.size
    if kind != "same" and n == 2000:
        failed = (v >= exh.BINS).mean()
        assert 0.05 < failed < 0.2  # about one in eight


def test_stream_rejects_unknown_kinds_and_empty_streams():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"\[histogram.stream\] expected n >= 1"):
        exh.stream(rng, 10, "zipf")
    with pytest.raises(ValueError, match="got n=0"):
        exh.stream(rng, 0, "uniform")


def test_launches():
    assert exh.global_launch(1) == ((1,), (exh.TPB,))
    assert exh.global_launch(exh.TPB + 1) == ((2,), (exh.TPB,))
    assert exh.shared_launch(1) == exh.shared_launch(10**6) == ((exh.BLOCKS,), (exh.TPB,))


def test_public_cases_are_fixed_and_skewed():
    for part in EX.parts:
        a, b = exs.public_cases(part), exs.public_cases(part)
        assert [c.label for c in a] == [c.label for c in b]
        assert all(np.array_equal(x.args["values"], y.args["values"]) for x, y in zip(a, b))
        labels = " ".join(c.label for c in a)
        assert all(words in labels for words in exh.KINDS.values())
        for c in a:
            assert c.outputs == ("hist",) and not c.args["hist"].any()
            assert part.reference(c.args)["hist"].sum() > 0
    # One atomic per value exceeds one per bin and block on every public case of part 2.
    for c in exs.public_cases(SHARED):
        assert c.dims["n"] > exh.BINS * exh.BLOCKS


@pytest.mark.parametrize("seed", range(10))
def test_hidden_cases_are_awkward_and_never_all_zero(seed):
    rng = np.random.default_rng(seed)
    glob = exs.hidden_cases(GLOBAL, rng)
    sizes = [c.dims["n"] for c in glob]
    assert 1 in sizes and any(n % exh.TPB == exh.TPB - 1 for n in sizes)
    assert any(n % exh.TPB == 1 and n > exh.TPB for n in sizes)
    shared = exs.hidden_cases(SHARED, rng)
    sizes = [c.dims["n"] for c in shared]
    assert min(sizes) < exh.TPB and max(sizes) > exh.BLOCKS * exh.TPB
    assert any(c.label == "hidden case 4" for c in shared)
    for c in glob + shared:
        assert c.hidden and c.label.startswith("hidden case ")
        assert GLOBAL.reference(c.args)["hist"].sum() > 0  # a stub never passes one


# -- judges ----------------------------------------------------------------------------------
def test_contention_passes_one_atomic_per_bin_and_block():
    frac, msg = exh._contention(SHARED, [_result(FakeReport(_one_per_block()))])
    assert frac == 1.0 and f"({exh.BINS * exh.BLOCKS} in the busiest case)" in msg


def test_contention_fails_one_atomic_per_value_and_names_the_bin():
    counts = np.zeros(exh.BINS, np.int64)
    counts[9] = 1500  # an all-equal stream, one global atomic per value
    frac, msg = exh._contention(SHARED, [_result(FakeReport(counts), sizes=(1500, "same"))])
    assert frac == 0.0
    assert "case n=1500, all equal: 1500 global atomics, at most 256 expected" in msg
    assert f"hist[9] alone received 1500 from {exh.BLOCKS} blocks" in msg


def test_contention_fails_a_busy_bin_even_under_the_total():
    counts = np.zeros(exh.BINS, np.int64)
    counts[0] = exh.BLOCKS + 1  # few atomics in all, but two from one block on one bin
    frac, msg = exh._contention(SHARED, [_result(FakeReport(counts))])
    assert frac == 0.0 and f"received {exh.BLOCKS + 1}" in msg


def test_contention_on_hidden_cases_reveals_no_sizes():
    counts = np.full(exh.BINS, 40, np.int64)
    ok = _result(FakeReport(_one_per_block()))
    frac, msg = exh._contention(SHARED, [_result(FakeReport(counts), hidden=True, k=3), ok])
    assert frac == 0.0
    assert msg == "hidden case 3: a bin received more than one global atomic per block"


def test_contention_requires_atomic_counts():
    report = FakeReport()
    report.atomic_counts = {}
    with pytest.raises(TypeError, match=r"expected report.atomic_counts\['hist'\]"):
        exh._contention(SHARED, [_result(report)])


def test_spread_bounds_one_thread_to_its_share():
    case = _result(FakeReport()).case
    bound = exh._max_work(case)
    per_thread = math.ceil(2000 / (exh.BLOCKS * exh.TPB))
    assert 3 * per_thread + 4 < bound < 2000  # the model fits; reading the stream does not
    work = np.full(exh.BLOCKS * exh.TPB, 10, np.int64)
    assert exh._spread(SHARED, [_result(FakeReport(work=work))])[0] == 1.0
    work[5] = 2001  # one thread read the whole stream
    frac, msg = exh._spread(SHARED, [_result(FakeReport(work=work))])
    assert frac == 0.0 and f"one thread made 2001 memory accesses, at most {bound}" in msg
    frac, msg = exh._spread(SHARED, [_result(FakeReport(work=work), hidden=True, k=2)])
    assert msg == "hidden case 2: one thread does the work of many"


def test_judges_award_nothing_until_the_public_cases_pass():
    results = [_result(FakeReport(_one_per_block()), sizes=s) for s in SHARED.public]
    expected = [{"hist": np.ones(exh.BINS, np.int32)} for _ in results]
    for r in results:
        r.outputs = {"hist": np.zeros(exh.BINS, np.int32)}  # wrong counts
    verdicts = {v.criterion: v for v in judge(SHARED, results, expected)}
    assert verdicts["atomics"].score == 0.0
    assert verdicts["atomics"].output.startswith("not awarded until the public cases pass")


# -- the judges against the simulator -------------------------------------------------------
# Kernels as plain functions: the simulator runs them with its own ``cuda``.
BINS, TPB = exh.BINS, exh.TPB
cuda = pdc.numba_cuda()


def per_value(values, hist):
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        if values[i] < BINS:
            cuda.atomic.add(hist, values[i], 1)


def privatised(values, hist):
    s = cuda.shared.array(BINS, np.int32)
    t = cuda.threadIdx.x
    for b in range(t, BINS, TPB):
        s[b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), values.size, cuda.gridsize(1)):
        if values[i] < BINS:
            cuda.atomic.add(s, values[i], 1)
    cuda.syncthreads()
    for b in range(t, BINS, TPB):
        if s[b] > 0:
            cuda.atomic.add(hist, b, s[b])


def test_simulator_counts_feed_the_contention_judge():
    import pdc.sim as sim

    case = SHARED.make(np.random.default_rng(1), (1200, "same"))
    verdicts = {}
    for fn in (per_value, privatised):
        args = [a.copy() for a in case.args.values()]
        rep = sim.launch(fn, case.grid, case.block, args, list(case.args))
        assert np.array_equal(args[1], exh.histogram_spec(case.args["values"]))
        verdicts[fn.__name__] = exh._contention(SHARED, [CaseResult(case, {}, rep)])
    assert verdicts["per_value"][0] == 0.0 and "1200 global atomics" in verdicts["per_value"][1]
    assert verdicts["privatised"][0] == 1.0

"""Exercise 09_transpose: its spec, cases and judges (pdc.grade.exercises.ex09_transpose).

The judges are tested on hand-made report objects; one block of the model kernels runs on
the instrumented simulator to tie the judges to what it measures.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pdc
from pdc.grade import exercises as exs
from pdc.grade.exercises import ex09_transpose as ext
from pdc.grade.judge import CaseResult, judge

EX = exs.exercise("09_transpose")
NAIVE, TILED, PADDED = EX.parts


class FakeReport:
    """The parts of a LaunchReport the transpose judges read."""

    def __init__(self, sectors=None, banks=None, through_shared=10**6, requests=None):
        self.sectors = sectors or {}
        self.requests = requests or {}
        self.bank_conflicts = banks or {}
        self.findings: dict = {}
        # Shared-memory stores and loads in all (one thread's worth is enough for the sums).
        self.shared_stores = np.array([through_shared], np.int64)
        self.shared_loads = np.array([through_shared], np.int64)
        self.ops = self.span = None  # operations per thread not measured (not judged here)

    def conflicts(self) -> int:
        return sum(v["wavefronts"] - v["accesses"] for v in self.bank_conflicts.values())

    def count(self, kind: str) -> int:
        return 0


def _case(sizes=(40, 70), hidden=False, k=1):
    case = TILED.make(np.random.default_rng(0), sizes)
    if hidden:
        case.hidden, case.label = True, f"hidden case {k}"
    return case


def _sectors(load=(32, 128, 128), store=(32, 128, 128)):
    """report.sectors for one case: (accesses, sectors, ideal) of a's loads and out's stores."""
    keys = ("accesses", "sectors", "ideal")
    return {"a:load": dict(zip(keys, load)), "out:store": dict(zip(keys, store))}


COALESCED = _sectors()
# A warp storing a column of out touches a sector per lane: 32 sectors where 4 would do.
STRIDED = _sectors(store=(32, 1024, 128))
UNPADDED_LINE = {
    12: {"text": "tile[ty + k, tx] = a[row, col]", "accesses": 4, "wavefronts": 4, "worst": 1},
    17: {"text": "out[row, col] = tile[tx, ty + k]", "accesses": 4, "wavefronts": 128, "worst": 32},
}
PADDED_LINES = {
    12: {"text": "tile[ty + k, tx] = a[row, col]", "accesses": 4, "wavefronts": 4, "worst": 1},
    17: {"text": "out[row, col] = tile[tx, ty + k]", "accesses": 4, "wavefronts": 4, "worst": 1},
}


def _result(report, **case):
    return CaseResult(_case(**case), outputs={}, report=report)


# -- spec, launch geometry and cases ------------------------------------------------------------
def test_spec_transposes_into_a_new_contiguous_array():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = ext.transpose_spec(a)
    assert out.shape == (3, 2) and out.flags.c_contiguous and out.dtype == np.float32
    assert out[2, 1] == a[1, 2] and not np.shares_memory(out, a)


@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 65), (65, 1), (31, 33), (64, 96), (37, 53)])
def test_launches_cover_every_element(rows, cols):
    (gx, gy), (bx, by) = ext.naive_launch(rows, cols)
    assert (bx, by) == (32, 8)  # one warp per row segment of 32 columns
    assert gx * bx >= cols and gy * by >= rows
    assert (gx - 1) * bx < cols and (gy - 1) * by < rows  # no block entirely outside
    (gx, gy), (bx, by) = ext.tiled_launch(rows, cols)
    assert (bx, by) == (ext.TILE, ext.BLOCK_ROWS)
    assert gx * ext.TILE >= cols and gy * ext.TILE >= rows
    assert (gx - 1) * ext.TILE < cols and (gy - 1) * ext.TILE < rows


def test_cases_hold_a_and_a_zeroed_out_of_the_transposed_shape():
    for part in EX.parts:
        for case in exs.public_cases(part):
            rows, cols = case.dims["rows"], case.dims["cols"]
            assert case.args["a"].shape == (rows, cols) and case.args["a"].dtype == np.float32
            assert case.args["out"].shape == (cols, rows) and not case.args["out"].any()
            assert case.outputs == ("out",) and list(case.args) == list(part.params)
            assert np.array_equal(part.reference(case.args)["out"], case.args["a"].T)


def test_first_public_case_is_not_square_nor_a_multiple_of_the_tile():
    rows, cols = NAIVE.public[0]
    assert rows != cols and rows % ext.TILE and cols % ext.TILE


def test_hidden_sizes_are_awkward_and_small():
    seen = []
    for seed in range(200):
        sizes = ext._hidden(np.random.default_rng(seed))
        seen += sizes
        for rows, cols in sizes:
            grid, block = ext.naive_launch(rows, cols)
            assert math.prod(grid) * math.prod(block) <= 4096  # cheap on the simulator
    cut = seen[0::5] + seen[1::5]  # a tile edge cut in both dimensions, never square
    assert all(r % ext.TILE and c % ext.TILE and r != c for r, c in cut)
    assert any(r == 1 for r, _ in seen) and any(c == 1 for _, c in seen)
    assert {ext.TILE + 1, ext.TILE - 1} <= {r for r, _ in seen}  # just past and short of a tile
    assert all(r in ext._PRIMES and c in ext._PRIMES and r != c for r, c in seen[4::5])


def test_part_two_is_not_graded_on_conflicts_part_three_is():
    assert "conflicts" not in TILED.points and "memory" in TILED.points
    assert PADDED.points["conflicts"] >= 1 and "memory" in PADDED.points
    assert "memory" not in NAIVE.points  # the naive kernel's strided side is the lesson
    for part in EX.parts:
        for criterion in part.points:
            assert part.criterion_title(criterion)
        assert set(part.judges) <= set(part.points)
    assert EX.constants == {"TILE": 32, "BLOCK_ROWS": 8}


# -- the memory judge -------------------------------------------------------------------------
def test_coalesced_accesses_pass():
    frac, msg = ext._coalescing(TILED, [_result(FakeReport(COALESCED))])
    assert frac == 1.0 and "coalesced" in msg


def test_one_straddled_sector_per_access_is_still_coalesced():
    # 32 floats of a row that does not start on a 32-byte boundary span 5 sectors, not 4.
    report = FakeReport(_sectors(load=(32, 160, 128), store=(8, 8, 8)))
    assert ext._coalescing(TILED, [_result(report)])[0] == 1.0


def test_strided_stores_fail_and_say_how_far_from_ideal():
    frac, msg = ext._coalescing(TILED, [_result(FakeReport(STRIDED))])
    assert frac == 0.0
    assert "case a 40x70: stores to out are not coalesced" in msg
    assert "32.0 sectors per warp access, 4.0 needed" in msg


def test_strided_loads_fail_too():
    report = FakeReport(_sectors(load=(32, 1024, 128)))
    frac, msg = ext._coalescing(PADDED, [_result(report)])
    assert frac == 0.0 and "loads of a are not coalesced" in msg


def test_a_hidden_case_is_named_without_its_numbers():
    results = [_result(FakeReport(COALESCED)), _result(FakeReport(STRIDED), hidden=True, k=2)]
    frac, msg = ext._coalescing(TILED, results)
    assert frac == 0.0 and msg == "hidden case 2: stores to out are not coalesced"


def test_public_cases_explain_before_hidden_ones():
    results = [_result(FakeReport(STRIDED), hidden=True), _result(FakeReport(STRIDED))]
    assert ext._coalescing(TILED, results)[1].startswith("case a 40x70")


def test_a_kernel_that_never_stores_gets_no_memory_points():
    report = FakeReport({"a:load": {"accesses": 4, "sectors": 16, "ideal": 16}})
    frac, msg = ext._coalescing(TILED, [_result(report)])
    assert frac == 0.0 and "no stores to out" in msg


def test_a_report_without_sector_counts_earns_nothing():
    frac, msg = ext._coalescing(TILED, [_result(FakeReport({}))])
    assert frac == 0.0 and "no sector counts came back" in msg


# -- the conflicts judge ----------------------------------------------------------------------
def test_no_conflicts_pass():
    frac, msg = ext._conflict_free(PADDED, [_result(FakeReport(COALESCED, PADDED_LINES))])
    assert frac == 1.0 and "no shared-memory bank conflicts" in msg


def test_conflicts_name_the_line_the_code_and_the_degree():
    frac, msg = ext._conflict_free(PADDED, [_result(FakeReport(COALESCED, UNPADDED_LINE))])
    assert frac == 0.0
    assert "line 17 (`out[row, col] = tile[tx, ty + k]`)" in msg
    assert "32-way" in msg and "128 wavefronts for 4 warp accesses" in msg
    assert "124 extra" in msg


def test_conflicts_on_a_hidden_case_name_only_the_line():
    results = [_result(FakeReport(COALESCED, UNPADDED_LINE), hidden=True, k=3)]
    frac, msg = ext._conflict_free(PADDED, results)
    assert frac == 0.0 and msg == "hidden case 3: bank conflicts at kernel line 17"


def test_no_shared_memory_is_no_way_to_avoid_conflicts():
    frac, msg = ext._conflict_free(PADDED, [_result(FakeReport(STRIDED, {}))])
    assert frac == 0.0 and "no shared memory is used" in msg


def test_extra_coalesced_accesses_do_not_hide_strided_ones():
    """Totals padded with useless coalesced re-reads: within ``ideal + accesses``, but more
    sectors than one coalesced pass over the array touches."""
    budget = ext.one_pass_sectors(40, 70)
    assert budget == 40 * (2 * 5 + 2)  # two runs of 32 and one of 6 floats per row
    # 40 x 70 strided loads (2800 sectors, 2800 / 8 ideal) and 100000 coalesced re-reads.
    padded = _sectors(load=(88 + 25000, 2800 + 100000, 350 + 100000))
    frac, msg = ext._coalescing(TILED, [_result(FakeReport(padded))])
    assert frac == 0.0
    assert (
        f"102800 sectors, where one coalesced pass over the array touches at most {budget}" in msg
    )
    frac, _ = ext._coalescing(TILED, [_result(FakeReport(_sectors((88, budget, 400))))])
    assert frac == 1.0


def test_conflict_free_only_counts_when_the_tile_carries_the_transpose():
    coalesced = _sectors((88, 400, 360), (88, 400, 360))
    # Conflict-free shared accesses beside a strided transpose: the strided stores decide.
    frac, msg = ext._conflict_free(PADDED, [_result(FakeReport(STRIDED, PADDED_LINES))])
    assert frac == 0.0 and "stores to out are not coalesced" in msg
    # Coalesced, conflict-free, but one shared word: the elements never pass through a tile.
    one_word = FakeReport(coalesced, PADDED_LINES, through_shared=1)
    frac, msg = ext._conflict_free(PADDED, [_result(one_word)])
    assert frac == 0.0 and "the tile does not carry the transpose" in msg
    frac, _ = ext._conflict_free(PADDED, [_result(FakeReport(coalesced, PADDED_LINES))])
    assert frac == 1.0


def test_judges_are_wired_into_the_grade():
    """Through judge(): passing public cases earn the judges' points, conflicts lose them."""
    cases = [_case(s) for s in PADDED.public] + [_case((33, 1), hidden=True)]
    expected = [PADDED.reference(c.args) for c in cases]

    def results(banks):
        out = []
        for c, e in zip(cases, expected):
            rep = FakeReport(_sectors((1, 1, 1), (1, 1, 1)), banks)  # one coalesced access each
            rep.written = {"a": np.zeros(1, np.int64), "out": np.ones(1, np.int64)}
            rep.work = lambda: np.ones(1, np.int64)
            out.append(CaseResult(c, outputs=dict(e), report=rep))
        return out

    verdicts = {v.criterion: v for v in judge(PADDED, results(PADDED_LINES), expected)}
    assert all(v.passed for v in verdicts.values()), [v.output for v in verdicts.values()]
    verdicts = {v.criterion: v for v in judge(PADDED, results(UNPADDED_LINE), expected)}
    assert not verdicts["conflicts"].passed and verdicts["memory"].passed
    assert verdicts["conflicts"].score == 0 and verdicts["public"].passed


# -- the simulator measures what the judges expect ------------------------------------------------
cuda = pdc.numba_cuda()  # the kernels below are compiled by numba-cuda for the simulator
TILE, BLOCK_ROWS = ext.TILE, ext.BLOCK_ROWS
PADDED_WIDTH = TILE + 1  # a shared array's shape must be constants numba can read


def naive(a, out):
    col, row = cuda.grid(2)
    if row < a.shape[0] and col < a.shape[1]:
        out[col, row] = a[row, col]


@cuda.jit(device=True)
def _tiled(a, out, tile):
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    rows, cols = a.shape
    col = cuda.blockIdx.x * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + k
        if row < rows and col < cols:
            tile[ty + k, tx] = a[row, col]
    cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    for k in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + k
        if row < cols and col < rows:
            out[row, col] = tile[tx, ty + k]


def tiled(a, out):
    _tiled(a, out, cuda.shared.array((TILE, TILE), np.float32))


def padded(a, out):
    _tiled(a, out, cuda.shared.array((TILE, PADDED_WIDTH), np.float32))


@pytest.fixture(scope="module")
def sim_reports():
    import pdc.sim as sim

    part_of = {"naive": NAIVE, "tiled": TILED, "padded": PADDED}
    reports = {}
    for name, fn in (("naive", naive), ("tiled", tiled), ("padded", padded)):
        case = part_of[name].make(np.random.default_rng(1), (32, 32))  # one tile: 256 threads
        args = list(case.args.values())
        rep = sim.launch(fn, case.grid, case.block, args, list(case.args))
        assert np.array_equal(args[1], case.args["a"].T), name
        reports[name] = CaseResult(case, outputs={"out": args[1]}, report=rep)
    return reports


def test_simulated_tiled_kernels_are_coalesced_and_naive_is_not(sim_reports):
    for name in ("tiled", "padded"):
        assert ext._coalescing(TILED, [sim_reports[name]])[0] == 1.0, name
    frac, msg = ext._coalescing(TILED, [sim_reports["naive"]])
    assert frac == 0.0 and "stores to out are not coalesced" in msg


def test_simulated_padding_removes_the_conflict(sim_reports):
    frac, msg = ext._conflict_free(PADDED, [sim_reports["tiled"]])
    assert frac == 0.0 and "32-way" in msg
    assert ext._conflict_free(PADDED, [sim_reports["padded"]]) == (
        1.0,
        "no shared-memory bank conflicts",
    )


def test_a_strided_request_loses_memory_whatever_the_totals():
    """Sectors per request, per instruction: coalesced requests cannot hide a strided one."""
    rows, cols = 40, 70
    one = {"requests": 1, "sectors": 8, "ideal": 1, "over": 1, "worst": 7}
    rest = {"requests": 88, "sectors": 400, "ideal": 360, "over": 0, "worst": 1}
    totals = _sectors((89, 408, 361), (88, 400, 360))  # within ideal + accesses and one pass
    assert totals["a:load"]["sectors"] <= ext.one_pass_sectors(rows, cols)
    clean = FakeReport(totals, requests={"a:load:8": rest, "out:store:14": rest})
    frac, _ = ext._coalescing(TILED, [_result(clean)])
    assert frac == 1.0
    hidden = FakeReport(totals, requests={"a:load:8": rest, "a:load:6": one, "out:store:14": rest})
    frac, why = ext._coalescing(TILED, [_result(hidden)])
    assert frac == 0.0 and "kernel line 6" in why and "1 of 1 warp requests" in why

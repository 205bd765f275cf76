"""Shared-memory bank conflicts, global sectors and atomics as the simulator counts them."""

from __future__ import annotations

import numpy as np
import pytest

import pdc
import pdc.sim as sim
from pdc.grade import plots

# Kernels below use the name `cuda`; sim.launch rebinds it to its own stand-in.
cuda = pdc.numba_cuda()


def transpose_padded(a, out):
    tile = cuda.shared.array((32, 33), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = tile[tx, ty]  # down a column: banks (tx * 33 + ty) % 32 all differ


def transpose_unpadded(a, out):
    tile = cuda.shared.array((32, 32), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = tile[tx, ty]  # down a column: every lane in bank ty


def broadcast(x, out):
    s = cuda.shared.array(64, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncthreads()
    out[t] = s[0] + s[t // 32]  # every lane of a warp reads one word


def stride2(x, out):
    s = cuda.shared.array(128, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    s[t + 64] = x[t + 64]
    cuda.syncthreads()
    out[t] = s[2 * t]  # lanes t and t + 16 share a bank


def doubles(x, out):
    s = cuda.shared.array(64, np.float64)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncthreads()
    out[t] = s[(2 * t) % 64]


def transpose_naive(a, out):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    out[tx, ty] = a[ty, tx]  # the store goes down a column of out


def copy_rows(a, out):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    out[ty, tx] = a[ty, tx]


def transpose_atomic(a, out):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    cuda.atomic.add(out, (tx, ty), a[ty, tx])  # onto zeros: a store down a column of out


def copy_rows_atomic(a, out):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    cuda.atomic.add(out, (ty, tx), a[ty, tx])


def histogram(x, hist):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(hist, x[i], 1)


def histogram_shared(x, hist):
    s = cuda.shared.array(8, np.int32)
    t = cuda.threadIdx.x
    if t < 8:
        s[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(s, x[i], 1)
    cuda.syncthreads()
    if t < 8:
        cuda.atomic.add(hist, t, s[t])


def _line_of(rep, needle):
    hits = [v for v in rep.bank_conflicts.values() if needle in v["text"]]
    assert len(hits) == 1, rep.bank_conflicts
    return hits[0]


def _transpose(kernel, transposes=True):
    a = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
    out = np.zeros_like(a)
    rep = sim.launch(kernel, 1, (32, 32), [a, out])
    np.testing.assert_array_equal(out, a.T if transposes else a)
    return rep


def test_padded_tile_is_conflict_free():
    rep = _transpose(transpose_padded)
    assert rep.conflicts() == 0
    read = _line_of(rep, "tile[tx, ty]")
    assert read == {"text": read["text"], "accesses": 32, "wavefronts": 32, "worst": 1}


def test_unpadded_column_read_is_32_way():
    rep = _transpose(transpose_unpadded)
    read = _line_of(rep, "tile[tx, ty]")
    assert read["accesses"] == 32 and read["worst"] == 32
    assert read["wavefronts"] == 32 * 32
    write = _line_of(rep, "tile[ty, tx] =")  # along a row: one word per bank
    assert write["worst"] == 1 and write["wavefronts"] == write["accesses"] == 32
    assert rep.conflicts() == 32 * 31  # 31 extra wavefronts per warp access
    # Lines are counted from the function's first line (the def), as findings count them.
    assert sorted(rep.bank_conflicts) == [5, 7]


def test_broadcast_is_free_and_stride_two_is_two_way():
    x = np.arange(128, dtype=np.float32)
    out = np.zeros(64, np.float32)
    rep = sim.launch(broadcast, 1, 64, [x[:64].copy(), out])
    assert rep.conflicts() == 0 and _line_of(rep, "s[0]")["worst"] == 1
    np.testing.assert_array_equal(out, x[0] + x[np.arange(64) // 32])

    out = np.zeros(64, np.float32)
    rep = sim.launch(stride2, 1, 64, [x, out])
    read = _line_of(rep, "s[2 * t]")
    assert read["worst"] == 2 and read["wavefronts"] == 2 * read["accesses"] == 4
    assert rep.conflicts() == 2
    np.testing.assert_array_equal(out, x[::2][:64])


def test_doubles_are_served_per_half_warp():
    x = np.arange(64, dtype=np.float64)
    out = np.zeros(64, np.float64)
    rep = sim.launch(doubles, 1, 64, [x, out])
    write = _line_of(rep, "s[t] =")  # consecutive doubles: two half-warp requests, no conflict
    assert write == {"text": write["text"], "accesses": 4, "wavefronts": 4, "worst": 1}
    read = _line_of(rep, "s[(2 * t) % 64]")  # stride 2 doubles: lanes t and t + 8 collide
    assert read["worst"] == 2 and read["wavefronts"] == 8
    np.testing.assert_array_equal(out, x[(2 * np.arange(64)) % 64])


def test_bank_table_lists_lines_and_total():
    text = plots.bank_table(_transpose(transpose_unpadded))
    assert "tile[tx, ty]" in text and "32-way" in text and "992 extra wavefronts" in text
    assert "conflict-free" in plots.bank_table(_transpose(transpose_padded))


def test_transposed_store_touches_eight_times_the_sectors():
    rep = _transpose(transpose_naive)
    store, load = rep.sectors["out:store"], rep.sectors["a:load"]
    assert store["accesses"] == 32 and store["ideal"] == 32 * 4
    assert store["sectors"] == 32 * 32  # one sector per lane: 8x the ideal
    assert load["sectors"] == load["ideal"] == 128  # the rows of a are read coalesced
    assert rep.sectors["a:store"] == {"accesses": 0, "sectors": 0, "ideal": 0}
    assert rep.bank_conflicts == {} and rep.conflicts() == 0

    rep = _transpose(copy_rows, transposes=False)
    assert rep.sectors["out:store"] == {"accesses": 32, "sectors": 128, "ideal": 128}


def test_global_atomics_move_sectors_as_a_load_and_a_store_would():
    rep = _transpose(transpose_atomic)
    strided = {"accesses": 32, "sectors": 32 * 32, "ideal": 32 * 4}  # a sector per lane
    assert rep.sectors["out:store"] == rep.sectors["out:load"] == strided
    rep = _transpose(copy_rows_atomic, transposes=False)
    rows = {"accesses": 32, "sectors": 128, "ideal": 128}
    assert rep.sectors["out:store"] == rep.sectors["out:load"] == rows


@pytest.mark.parametrize("kernel", [histogram, histogram_shared])
def test_atomic_counts_match_bincount_on_a_skewed_input(kernel):
    rng = np.random.default_rng(7)
    x = np.where(rng.random(300) < 0.7, 0, rng.integers(0, 8, 300)).astype(np.int64)
    hist = np.zeros(8, np.int32)
    rep = sim.launch(kernel, 3, 128, [x, hist])
    expect = np.bincount(x, minlength=8)
    np.testing.assert_array_equal(hist, expect)
    if kernel is histogram:
        np.testing.assert_array_equal(rep.atomic_counts["hist"], expect)
        assert rep.contention("hist") == expect.max() > 200
        assert rep.global_atomics() == 300 and rep.shared_atomics == 0
    else:  # one global atomic per bin and block; the skew lands on shared memory
        np.testing.assert_array_equal(rep.atomic_counts["hist"], np.full(8, 3))
        assert rep.contention("hist") == 3
        assert rep.global_atomics() == 24 and rep.shared_atomics == 300
    assert rep.atomic_counts["x"].sum() == 0 and rep.contention("x") == 0
    assert rep.atomic_counts["hist"].dtype == np.int64
    with pytest.raises(ValueError, match=r"\[contention\] expected one of"):
        rep.contention("nope")


@pytest.mark.parametrize("itemsize", [1, 4, 8, 16, 64])
def test_a_lone_lane_per_warp_counts_sectors_as_the_full_matrix_does(itemsize):
    """The shortcut for requests of one lane per warp (a thread working alone) gives what
    the (warps, 32) matrix gives, for random lanes, addresses and inactive lanes."""
    from types import SimpleNamespace

    from pdc.sim import analysis

    rng = np.random.default_rng(itemsize)
    arr = SimpleNamespace(dtype=np.dtype(f"V{itemsize}"), name="a")
    for _ in range(200):
        n = 32 * int(rng.integers(1, 9))
        warps = rng.choice(n // 32, size=int(rng.integers(1, n // 32 + 1)), replace=False)
        lanes = np.sort(warps * 32 + rng.integers(0, 32, warps.size)).astype(np.int64)
        f = rng.integers(0, 4096, lanes.size)
        ok = rng.random(lanes.size) < 0.8
        an = analysis.Analysis.__new__(analysis.Analysis)
        an.S = SimpleNamespace(N=n)
        fast = an._sectors(arr, lanes, f, ok)
        mat = analysis._rows(an.S, lanes, f, ok)
        full = (0, 0, 0, 0, 0) if mat is None else analysis._matrix_sectors(mat, itemsize)
        assert fast == full, (lanes, f, ok)

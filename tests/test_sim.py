"""pdc.sim: numba-cuda's typed IR on a SIMT machine, with exact numerics and sanitizer checks.

Each class of failure the old thread-by-thread simulator had gets several cases: correct
kernels it refused, Python numerics where a GPU differs, warp modelling gaps, and races
found by schedule instead of by construction.
"""

import numpy as np
import pytest

import pdc.sim as sim
from tests import sim_cases as C

rng = np.random.default_rng(7)


def run(kernel, grid, block, args):
    return sim.launch(kernel, grid, block, args)


def kinds(rep) -> dict:
    return {k: v["count"] for k, v in rep.findings.items()}


# -- the course's kind of kernels run exactly --------------------------------------------------
def test_tiled_matmul_ragged_edges():
    A = rng.random((40, 50), dtype=np.float32)
    B = rng.random((50, 30), dtype=np.float32)
    out = np.zeros((40, 30), np.float32)
    rep = run(C.matmul_tiled, (2, 3), (16, 16), [A, B, out])
    assert kinds(rep) == {}
    np.testing.assert_allclose(out, A @ B, rtol=1e-5, atol=1e-5)
    assert rep.barriers == 8  # four tiles of K, two barriers each
    assert rep.conflicts() == 0


def test_temporaries_of_a_divergent_loop_keep_each_threads_values():
    """Threads leave a loop at different passes, by different branches: the temporaries a
    block assigns without merging (pdc.sim.program) never mix two threads' values."""
    x = rng.integers(1, 200, 200).astype(np.int64)
    out, steps = np.zeros(200, np.float32), np.zeros(200, np.int64)
    assert kinds(run(C.divergent_steps, 4, 64, [x, out, steps])) == {}
    f32 = np.float32
    for i, v in enumerate(x.tolist()):
        acc, k = f32(0.0), 0
        while v != 1:
            if v % 2 == 0:
                v //= 2
                acc = f32(acc + f32(v) * f32(0.5))
            else:
                v = 3 * v + 1
                acc = f32(acc - f32(k))
            k += 1
        assert (out[i], steps[i]) == (acc, k), i


def test_indices_numba_types_as_uint64_address_every_kind_of_memory():
    """uint8 >> 3 is a uint64 in numba: NumPy would make its product with an int64 stride a
    float, which no array takes as an index."""
    values = np.arange(64, dtype=np.uint8)
    x2 = np.arange(64, dtype=np.float32).reshape(8, 8)
    out, cnt = np.zeros(64, np.float32), np.zeros((8, 8), np.int32)
    assert kinds(run(C.unsigned_indices, 1, 64, [values, x2, out, cnt])) == {}
    sums = [float(x2[v >> 3, : v >> 3].sum()) if v % 2 == 0 else 0.0 for v in range(64)]
    want = [sums[(i // 32) * 32 + (i >> 3)] + (i >> 3) if i % 2 == 0 else 0 for i in range(64)]
    np.testing.assert_array_equal(out, np.array(want, np.float32))
    np.testing.assert_array_equal(cnt, np.diag(np.full(8, 4, np.int32)))


def test_libdevice_functions_beyond_maths_names():
    """Rounded-to-nearest arithmetic, PTX's saturating float -> int conversions (NaN -> 0),
    reinterpretation and integer helpers, against values worked out by hand."""
    x = np.array([0.5, -1.5, 2.5, 3e9, np.nan, -7.25], np.float32)
    y = np.array([2.0, 0.5, -3.0, 1.0, 1.0, 0.0], np.float32)
    i = np.array([0, 1, -1, 12, 2**31 - 1, 256], np.int32)
    fo, io = np.zeros((6, 5), np.float32), np.zeros((6, 9), np.int32)
    assert kinds(run(C.libdevice_calls, 1, 32, [x, y, i, fo, io])) == {}
    np.testing.assert_array_equal(fo[:, 0], x * y)
    np.testing.assert_array_equal(
        fo[:, 1], np.array([0.25, -3, 2.5 / -3, 3e9, np.nan, -np.inf], np.float32)
    )
    np.testing.assert_array_equal(fo[:, 2], [0.5, 0, 1, 1, 0, 0])  # NaN saturates to 0
    np.testing.assert_array_equal(fo[:, 3], [0, 0, 5.5, np.float32(3e9) - 1, np.nan, 0])
    np.testing.assert_array_equal(fo[:, 4], x)
    top, low = 2**31 - 1, -(2**31)
    np.testing.assert_array_equal(io[:, 0], [500000000, -1500000000, top, top, 0, low])
    np.testing.assert_array_equal(io[:, 1], [0, -1, 2, top, 0, -7])
    np.testing.assert_array_equal(io[:, 2], [0, -2, 2, top, 0, -8])
    np.testing.assert_array_equal(io[:, 3], [0, 1, 32, 2, 31, 1])  # popc
    np.testing.assert_array_equal(io[:, 4], [32, 31, 0, 28, 1, 23])  # clz
    np.testing.assert_array_equal(io[:, 5], [0, 1, 1, 3, 1, 9])  # ffs
    np.testing.assert_array_equal(io[:, 6], [0, low, -1, 0x30000000, -2, 1 << 23])  # brev
    np.testing.assert_array_equal(io[:, 7], [0, 0, 0, 0, 2**30 - 1, 0])  # mulhi(n, n)
    np.testing.assert_array_equal(io[:, 8], [2, 2, 1, 8, 2**30 + 1, 130])  # rhadd(n, 3)


def test_reductions_scans_and_atomics():
    x = rng.random(100, dtype=np.float32)
    out = np.zeros(4, np.float32)
    assert kinds(run(C.block_sum, 4, 32, [x, out])) == {}
    np.testing.assert_allclose(out, np.pad(x, (0, 28)).reshape(4, 32).sum(1), rtol=1e-5)
    tot = np.zeros(1, np.float32)
    assert kinds(run(C.warp_sum, 4, 32, [x, tot])) == {}
    np.testing.assert_allclose(tot[0], x.sum(), rtol=1e-5)
    v = rng.integers(0, 10, 1000)
    counts = np.zeros(10, np.int64)
    rep = run(C.histogram, 32, 32, [v, counts])
    assert kinds(rep) == {} and (counts == np.bincount(v, minlength=10)).all()
    assert rep.contention("counts") == np.bincount(v).max()
    xs = rng.integers(0, 10, 70).astype(np.int32)
    ys = np.zeros(70, np.int32)
    assert kinds(run(C.scan_block, 3, 32, [xs, ys])) == {}
    ref = np.concatenate([np.cumsum(xs[k : k + 32]) for k in range(0, 70, 32)])
    assert (ys == ref).all()


def test_softmax_in_float32_with_wide_rows():
    x = (rng.random((5, 300), dtype=np.float32) * 200 - 100).astype(np.float32)
    out = np.zeros_like(x)
    assert kinds(run(C.softmax_rows, 5, 32, [x, out])) == {}
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_transpose_padded_and_its_bank_conflicts():
    a = rng.random((40, 50), dtype=np.float32)
    out = np.zeros((50, 40), np.float32)
    rep = run(C.transpose_padded, (4, 3), (16, 16), [a, out])
    assert kinds(rep) == {} and (out == a.T).all()
    # A 16x17 tile read by 16x16 blocks: each warp spans two rows; words k and 17 + 15 meet.
    assert all(v["worst"] <= 2 for v in rep.bank_conflicts.values())


# -- class 1: what numba-cuda compiles, the simulator runs -------------------------------------
def test_python_features_numba_compiles():
    """assert, raise, lambda, nested def, np.minimum/maximum, libdevice, divmod, a module
    constant computed by a call, an @njit helper and a device function."""
    x = rng.uniform(-50, 50, 100).astype(np.float32)
    out = np.zeros_like(x)
    rep = run(C.uses_python_features, 4, 32, [x, out])
    assert kinds(rep) == {}
    np.testing.assert_allclose(out, C.uses_python_features_ref(x), rtol=1e-5)


def test_a_kernel_numba_refuses_is_refused_with_numbas_message():
    rep = run(C.shape_at_run_time, 1, 32, [np.zeros(4, np.float32)])
    assert kinds(rep) == {"error": 1}
    text = rep.findings["error"]["examples"][0]
    assert "numba-cuda cannot compile" in text and "shared.array" in text


def test_a_raise_that_fires_stops_the_thread_and_is_reported():
    """numba-cuda's kernel returns at a raise without debug=True: the thread stops there, and
    the launch notes it ("stopped": what the outputs then lack is what the case judges)."""
    x = np.full(64, -1e31, np.float32)
    out = np.zeros_like(x)
    rep = run(C.uses_python_features, 2, 32, [x, out])
    assert kinds(rep) == {"stopped": 64}
    assert "ValueError" in rep.findings["stopped"]["examples"][0]
    assert (out == 0).all()


def test_with_debug_true_a_raise_fails_the_launch():
    """With debug=True numba-cuda raises the kernel's exception on the host when the launch
    ends: an error, not a note (the flag survives the trip to pdc.sim's worker)."""
    from numba import cuda

    kernel = cuda.jit(debug=True, opt=False)(C.uses_python_features)
    x = np.full(64, -1e31, np.float32)
    rep = run(kernel, 2, 32, [x, np.zeros_like(x)])
    assert kinds(rep) == {"error": 64}
    assert "ValueError" in rep.findings["error"]["examples"][0]
    assert "debug=True" in rep.findings["error"]["examples"][0]
    x = np.ones(64, np.float32)  # nothing raised: no finding
    assert kinds(run(kernel, 2, 32, [x, np.zeros_like(x)])) == {}


def test_a_kernel_pickled_for_the_worker_keeps_its_debug_flag():
    """Kernel objects inside a job (device functions, kernels in arguments) cross to the worker
    pickled and jitted again there: with the debug flag they were given."""
    import pickle

    from numba import cuda

    from pdc.sim import remote
    from pdc.sim.run import debug_of

    for debug in (True, False):
        kernel = cuda.jit(debug=debug, opt=not debug)(C.uses_python_features)
        assert debug_of(pickle.loads(remote.dumps(kernel))) is debug
    device = pickle.loads(remote.dumps(cuda.jit(device=True)(C.uses_python_features)))
    assert not debug_of(device)


# -- class 2: numerics are numba's, checked against numba.njit ---------------------------------
@pytest.mark.parametrize("case", C.NUMERIC, ids=lambda c: c[0].__name__)
def test_scalar_semantics_match_numba(case):
    import numba

    kernel, fn, dtypes, odt = case
    ins = C.numeric_inputs(dtypes)
    out = np.zeros(64, odt)
    rep = run(kernel, 2, 32, ins + [out])
    assert kinds(rep) == {}
    oracle = numba.njit(error_model="numpy")(fn.py_func)
    vals = [oracle(*[a[i] for a in ins]) for i in range(64)]
    if np.dtype(odt).kind in "iu":  # two's complement, as the store into `out` does
        ref = np.array([int(v) % 2**64 for v in vals], dtype=np.uint64).astype(odt)
    else:
        ref = np.array(vals).astype(odt)
    if np.dtype(odt).kind == "f":
        np.testing.assert_allclose(out, ref, rtol=4e-7, atol=0, equal_nan=True)
    else:
        assert (out == ref).all()


def test_float32_exp_overflows_where_a_gpu_does():
    a = np.array([88.0, 88.7, 88.8, 100.0], np.float32)
    out = np.zeros(4, np.float32)
    run(C.k_exp32, 1, 32, [a, out])
    assert np.isfinite(out[:2]).all() and np.isinf(out[2:]).all()


def test_float_division_by_zero_follows_the_numpy_error_model():
    a = np.array([-1.0, 1.0, 0.0], np.float32)
    b = np.zeros(3, np.float32)
    out = np.zeros(3, np.float32)
    rep = run(C.k_div_by, 1, 32, [a, b, out])
    assert kinds(rep) == {}
    assert out[0] == -np.inf and out[1] == np.inf and np.isnan(out[2])


def test_integer_division_by_zero_is_a_finding():
    a = np.arange(32, dtype=np.int32)
    b = np.ones(32, np.int32)
    b[5] = 0
    rep = run(C.int_div, 1, 32, [a, b, np.zeros(32, np.int32)])
    assert kinds(rep) == {"error": 1}
    assert "division by zero" in rep.findings["error"]["examples"][0]


# -- class 3: warps ------------------------------------------------------------------------------
def test_match_any_sync_groups_lanes_by_value():
    keys = (np.arange(64) % 5).astype(np.int32)
    out = np.zeros(64, np.uint32)
    assert kinds(run(C.match_groups, 2, 32, [keys, out])) == {}
    for lane in range(32):
        want = sum(1 << j for j in range(32) if keys[j] == keys[lane])
        assert out[lane] == want


def test_a_shuffle_from_an_inactive_lane_matters_only_if_used():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    assert kinds(run(C.shuffle_discarded, 1, 32, [x, out])) == {}
    assert (out[:19] == x[1:20]).all()
    rep = run(C.shuffle_inactive_stored, 1, 32, [x, np.zeros(32, np.float32)])
    assert kinds(rep) == {"uninitialized": 1}
    assert "out[19]" in rep.findings["uninitialized"]["examples"][0]


def test_a_lane_reading_outside_its_own_mask_is_caught():
    rep = run(
        C.shuffle_outside_own_mask, 1, 32, [np.ones(32, np.float32), np.zeros(32, np.float32)]
    )
    assert kinds(rep) == {"uninitialized": 1}
    assert "out[15]" in rep.findings["uninitialized"]["examples"][0]


def test_a_full_mask_with_lanes_elsewhere_is_a_warp_finding():
    rep = run(C.shuffle_diverged_mask, 1, 32, [np.ones(32, np.float32), np.zeros(32, np.float32)])
    assert rep.count("warp") == 16


def test_bank_conflicts_count_shared_atomics():
    rep = run(C.shared_atomic_conflicts, 1, 32, [np.zeros(32, np.int32), np.zeros(64, np.int32)])
    atomic_line = [v for v in rep.bank_conflicts.values() if "atomic" in v["text"]]
    assert atomic_line and atomic_line[0]["worst"] == 2
    assert rep.shared_atomics == 32
    assert rep.shared_contention == 16  # 16 lanes on each of the two words, one after another


# -- class 4: races by construction, the same every run ----------------------------------------
RACES = [
    (C.race_missing_barrier, 1, "read s[1] written by another thread"),
    (C.race_war, 1, "write s[0] read by another thread"),
    (C.race_intra_warp, 1, "read s[16] written by another thread"),
    (C.race_blocks_write, 2, "write out[0] by several threads"),
    (C.race_atomic_and_plain, 2, "written by another thread"),
]


@pytest.mark.parametrize("case", RACES, ids=lambda c: c[0].__name__)
def test_races_are_found_the_same_way_ten_times(case):
    kernel, grid, text = case
    seen = set()
    for _ in range(10):
        x = np.arange(64, dtype=np.float32)
        rep = run(kernel, grid, 32, [x, np.zeros(64, np.float32)])
        seen.add(repr(rep.findings))
    assert len(seen) == 1
    assert text in rep.findings["race"]["examples"][0]


@pytest.mark.parametrize(
    "kernel, grid", [(C.syncwarp_orders, 1), (C.atomics_only, 2)], ids=["syncwarp", "atomics"]
)
def test_ordered_accesses_are_not_races(kernel, grid):
    rep = run(kernel, grid, 32, [np.arange(64, dtype=np.float32), np.zeros(64, np.float32)])
    assert kinds(rep) == {}


def test_one_value_written_twice_is_no_race():
    x = np.arange(32, dtype=np.float32)
    rep = run(C.same_value_written_twice, 1, 32, [x, np.zeros(32, np.float32)])
    assert kinds(rep) == {}


def test_a_read_racing_with_atomics_sees_a_stale_defined_value():
    """The first plain read of a CAS loop races with other blocks' atomics but reads a value
    the element held (atomics are indivisible), which the CAS checks: no finding, and the
    loop counts every thread once."""
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(4, np.int32)
    rep = run(C.cas_retry_loop, 2, 32, [x, out])
    assert out.tolist() == [16, 16, 16, 16]
    assert kinds(rep) == {}


# -- definedness (initcheck) -------------------------------------------------------------------
def test_undefined_values_are_reported_where_they_are_used():
    x = np.arange(32, dtype=np.float32)
    rep = run(C.uninit_shared_to_global, 1, 32, [x, np.zeros(32, np.float32)])
    assert kinds(rep) == {"uninitialized": 16}
    assert "s[16] read before any write" in rep.findings["uninitialized"]["examples"][0]
    assert kinds(run(C.uninit_read_discarded, 1, 32, [x, np.zeros(32, np.float32)])) == {}
    rep = run(C.uninit_local_branch, 1, 32, [x, np.zeros(32, np.int32)])
    assert "branch condition" in rep.findings["uninitialized"]["examples"][0]


def test_out_of_range_reads_and_writes_and_negative_indices():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    rep = run(C.shifted, 1, 32, [x, out])
    texts = " ".join(rep.findings["oob"]["examples"])
    assert "negative index" not in texts and "x[32] outside shape (32,)" in texts
    assert rep.count("oob") == 1  # lane 0's x[-1] is x[31] (numba wraps it)
    # lane 31 stores a value read past the end: the read is the finding, not the store
    assert rep.count("uninitialized") == 0


def test_simulate_reads_like_a_launch():
    import pdc

    x = np.arange(40, dtype=np.float32)
    out = np.zeros(40, np.float32)
    k = pdc.simulate(C.add)
    rep = k[2, 32](x, x, out)
    assert (out == 2 * x).all() and rep.findings == {}
    assert "no findings" in repr(k)
    with pytest.raises(ValueError, match=r"expected kernel\[grid, block\]"):
        k[2](x, x, out)


def test_loops_over_tuples_arrays_enumerate_and_default_arguments():
    x = rng.random(50, dtype=np.float32)
    out = np.zeros(50, np.float32)
    rep = run(C.loops_of_every_kind, 2, 32, [x, out])
    assert kinds(rep) == {}
    np.testing.assert_allclose(out, C.loops_of_every_kind_ref(x), rtol=1e-6)


# -- access maps (record=True), as pdc.grade.plots draws them ----------------------------------
def test_maps_name_the_last_thread_and_keep_out_of_range_attempts():
    x = np.arange(40, dtype=np.float32)
    out = np.zeros(40, np.float32)
    rep = sim.launch(C.copy_unguarded, 1, 64, [x, out], record=True)
    m = rep.access["out"]
    assert m["shape"] == (40,)
    np.testing.assert_array_equal(m["thread"], np.arange(40))
    np.testing.assert_array_equal(m["writes"], np.ones(40))
    np.testing.assert_array_equal(m["reads"], np.zeros(40))
    np.testing.assert_array_equal(rep.access["x"]["reads"], np.ones(40))
    assert m["oob"] == [(t, (t,)) for t in range(40, 64)]
    assert rep.access["x"]["oob"] == [(t, (t,)) for t in range(40, 64)]
    assert rep.count("oob") == 48 and rep.count("uninitialized") == 0


def test_a_2d_map_shows_the_transpose():
    a = np.arange(6 * 5, dtype=np.float32).reshape(6, 5)
    out = np.zeros((5, 6), np.float32)
    rep = sim.launch(C.transpose_2d, (1, 2), (8, 4), [a, out], record=True)
    np.testing.assert_array_equal(out, a.T)
    x, y = np.meshgrid(np.arange(5), np.arange(6))
    gid = (y // 4) * 32 + (y % 4) * 8 + x
    np.testing.assert_array_equal(rep.access["a"]["thread"], gid)
    np.testing.assert_array_equal(rep.access["out"]["thread"], gid.T)
    assert sim.launch(C.transpose_2d, (1, 2), (8, 4), [a, out]).access is None


def test_shared_maps_are_block_zero():
    x = np.arange(96, dtype=np.float32)
    out = np.zeros(96, np.float32)
    rep = sim.launch(C.reverse_in_shared, 3, 32, [x, out], record=True)
    np.testing.assert_array_equal(out, x.reshape(3, 32)[:, ::-1].reshape(-1))
    assert sorted(rep.access) == ["out", "shared:0", "x"]
    m = rep.access["shared:0"]
    np.testing.assert_array_equal(m["thread"], 31 - np.arange(32))
    np.testing.assert_array_equal(m["reads"], np.ones(32))
    np.testing.assert_array_equal(m["writes"], np.ones(32))
    from pdc.grade import plots

    assert plots.access_map(rep, "out", color_by="warp") is not None


def test_votes_and_block_counts():
    x = np.where(np.arange(64) % 3 == 0, 1.0, -1.0).astype(np.float32)
    out = np.zeros((64, 4), np.uint32)
    assert kinds(run(C.votes, 2, 32, [x, out])) == {}
    bits = sum(1 << j for j in range(32) if j % 3 == 0)
    assert out[0, 0] == bits and out[0, 1] == 1 and out[0, 2] == 0
    per_block = (x.reshape(2, 32) > 0).sum(axis=1)  # threads of each block with x > 0
    assert out[0, 3] == per_block[0] and out[32, 3] == per_block[1]


def test_compare_and_swap_in_lane_order_and_local_arrays():
    counter = np.zeros(1, np.int32)
    out = np.zeros(32, np.int32)
    assert kinds(run(C.cas_and_local, 1, 32, [counter, out])) == {}
    assert counter[0] == 1  # lane 0 swapped first; the others saw 1
    assert out[0] == 1000 and (out[1:] == 2 * np.arange(1, 32)).all()


def test_the_worker_process_comes_back_after_it_dies():
    from pdc.sim import remote

    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    remote.launch(C.add, 1, 32, [x, x, out])
    assert (out == 2 * x).all()
    remote._WORKER.kill()
    remote._WORKER.wait()
    out[:] = 0
    rep = remote.launch(C.add, 1, 32, [x, x, out])
    assert (out == 2 * x).all() and rep.findings == {}


# -- views: A[i], A[i, a:b], x[::-1], as numba-cuda compiles them ------------------------------
def test_views_read_and_write_their_base():
    A = np.arange(12, dtype=np.float32).reshape(4, 3)
    out, out2 = np.zeros(4, np.float32), np.zeros((4, 4), np.float32)
    rep = run(C.views_of_rows, 1, 32, [A, out, out2])
    assert kinds(rep) == {}
    np.testing.assert_array_equal(out, A.sum(axis=1) + A[:, 1] + 2 + 3)
    np.testing.assert_array_equal(out2[:, 0], A[:, -1])
    np.testing.assert_array_equal(out2[:, 1], A[:, 1:].sum(axis=1))
    np.testing.assert_array_equal(out2[:, 2], A[:, 0] + 2)
    np.testing.assert_array_equal(out2[:, 3], 1.0)
    assert rep.loads["A"].sum() == 4 * (3 + 1 + 1 + 2 + 1)


def test_a_view_read_past_its_end_reads_the_base_as_a_gpu_does():
    A = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = np.zeros(4, np.float32)
    rep = run(C.view_past_its_end, 1, 32, [A, out])
    # row[1] of A[i, 0:1] is A[i, 1]: no finding. A[i, 1:3][2] is A[i, 3], outside A's axis
    # (as the same index written on A is): reported once, where it is read.
    assert kinds(rep) == {"oob": 4}
    assert "A[0, 3]" in rep.findings["oob"]["examples"][0]


def test_numpy_reductions_over_views_load_every_element():
    A = np.arange(1, 13, dtype=np.float32).reshape(4, 3)
    out = np.zeros((4, 5), np.float32)
    rep = run(C.reductions_of_views, 1, 32, [A, out])
    assert kinds(rep) == {}
    firsts = [A[j, : j + 1].sum() for j in range(4)]
    want = np.stack([A.sum(1), A[:, 1:].prod(1), A.mean(1), A.sum(1), firsts], 1)
    np.testing.assert_allclose(out, want, rtol=1e-6)
    assert rep.loads["A"].sum() == 4 * (3 + 2 + 3 + 3) + sum(min(j + 1, 3) for j in range(4))


def test_shared_arrays_declared_with_keywords():
    x = rng.random(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    rep = run(C.shared_by_keywords, 1, 32, [x, out])
    assert kinds(rep) == {}
    np.testing.assert_array_equal(out, x[::-1])

"""The instrumented simulator sees what numba's simulator lets pass (pdc.sim)."""

from __future__ import annotations

import math
from math import exp

import numpy as np
import pytest

import pdc
import pdc.sim as sim

cuda = pdc.numba_cuda()  # kernels are typed by numba-cuda (in pdc.sim's worker without a GPU)


def copy_guarded(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i]


def copy_unguarded(x, out):
    i = cuda.grid(1)
    out[i] = x[i]


def shift_left(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i - 1]  # i = 0 reads x[-1]: numba wraps it to the last element


def shared_no_sync(x, out):
    s = cuda.shared.array(32, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    out[t] = s[31 - t]


def shared_sync(x, out):
    s = cuda.shared.array(32, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncthreads()
    out[t] = s[31 - t]


def divergent_barrier(x, out):
    t = cuda.threadIdx.x
    if t < 16:
        cuda.syncthreads()
    out[t] = x[t]


def two_barriers(x, out):
    t = cuda.threadIdx.x
    if t % 2 == 0:
        cuda.syncthreads()
    else:
        cuda.syncthreads()
    out[t] = x[t]


def reads_uninitialised(x, out):
    s = cuda.shared.array(32, np.float32)
    t = cuda.threadIdx.x
    if t < 16:
        s[t] = x[t]
    cuda.syncthreads()
    out[t] = s[t]


def blocks_collide(x, out):
    if cuda.threadIdx.x == 0:
        out[0] = x[cuda.grid(1)]  # thread 0 of every block writes out[0]


def bad_index(x, out):
    out[0.5] = 1.0


def divides_by_lane(n, out):
    i = cuda.grid(1)
    out[i] = n[0] // (i - 1)  # thread 1 divides by zero


def atomic_count(x, out):
    cuda.atomic.add(out, 0, 1)


def test_guarded_kernel_is_clean():
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    rep = sim.launch(copy_guarded, 4, 32, (x, out))
    np.testing.assert_array_equal(out, x)
    assert rep.findings == {}
    assert rep.loads["x"].sum() == 100 and rep.stores["out"].sum() == 100
    assert rep.nthreads == 128 and rep.barriers == 0


def test_out_of_bounds_is_reported_and_dropped():
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    rep = sim.launch(copy_unguarded, 4, 32, (x, out))
    assert rep.count("oob") == 2 * 28  # 28 idle threads each read x and write out
    assert "read x[100] outside shape (100,)" in rep.findings["oob"]["examples"][0]
    np.testing.assert_array_equal(out, x)


def test_negative_index_wraps_as_numba_cuda_does():
    x = np.arange(1, 9, dtype=np.float32)
    out = np.zeros_like(x)
    rep = sim.launch(shift_left, 1, 8, (x, out))
    # numba-cuda wraps a negative signed index as Python does (its PTX adds the length):
    # x[-1] is x[7], an element of x, which compute-sanitizer does not report either.
    assert rep.findings == {}
    assert out[0] == 8.0


def test_missing_barrier_is_a_race_even_when_values_are_right():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros_like(x)
    rep = sim.launch(shared_no_sync, 1, 32, (x, out))
    assert rep.count("race") > 0
    assert "no barrier in between" in rep.findings["race"]["examples"][0]


def test_barrier_removes_the_race():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros_like(x)
    rep = sim.launch(shared_sync, 1, 32, (x, out))
    np.testing.assert_array_equal(out, x[::-1])
    assert rep.findings == {} and rep.barriers == 1
    assert rep.shared_loads.sum() == 32 and rep.shared_stores.sum() == 32


def test_barrier_in_a_branch_is_divergent():
    x = np.arange(32, dtype=np.float32)
    rep = sim.launch(divergent_barrier, 1, 32, (x, np.zeros_like(x)))
    assert rep.count("divergence") == 1
    assert "16 wait elsewhere" in rep.findings["divergence"]["examples"][0]
    # Several blocks run together: the count is still that of the block the finding names.
    x = np.arange(96, dtype=np.float32)
    rep = sim.launch(divergent_barrier, 3, 32, (x, np.zeros_like(x)))
    assert "16 wait elsewhere" in rep.findings["divergence"]["examples"][0]


def test_threads_at_different_barriers_are_divergent():
    x = np.arange(32, dtype=np.float32)
    rep = sim.launch(two_barriers, 1, 32, (x, np.zeros_like(x)))
    assert rep.count("divergence") >= 1
    assert "not reached by every thread" in rep.findings["divergence"]["examples"][0]


def test_uninitialised_shared_read():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros_like(x)
    rep = sim.launch(reads_uninitialised, 1, 32, (x, out))
    assert rep.count("uninitialized") == 16
    assert np.isnan(out[16:]).all()


def test_blocks_writing_one_element_race():
    x = np.arange(64, dtype=np.float32)
    rep = sim.launch(blocks_collide, 2, 32, (x, np.zeros(1, np.float32)))
    assert rep.count("race") == 1
    assert "write out[0] by several threads" in rep.findings["race"]["examples"][0]


def test_what_numba_refuses_is_an_error_in_its_words():
    rep = sim.launch(bad_index, 1, 2, (np.zeros(1), np.zeros(1)))
    assert rep.count("error") == 1
    text = rep.findings["error"]["examples"][0]
    assert "cannot compile" in text and "setitem(array(float64, 1d, C), float64" in text


def test_kernel_errors_name_the_thread():
    n, out = np.array([6], np.int64), np.zeros(3, np.int64)
    rep = sim.launch(divides_by_lane, 1, 3, (n, out))
    assert rep.count("error") == 1
    text = rep.findings["error"]["examples"][0]
    assert "integer division by zero" in text and "block (0, 0, 0) thread (1, 0, 0)" in text
    assert out[0] == -6 and out[2] == 6  # the other threads go on


def test_atomics_are_counted_not_races():
    out = np.zeros(1, np.int64)
    rep = sim.launch(atomic_count, 2, 32, (np.zeros(1), out))
    assert out[0] == 64 and rep.atomics.sum() == 64 and "race" not in rep.findings


def test_work_per_thread():
    x = np.arange(40, dtype=np.float32)
    rep = sim.launch(copy_guarded, 2, 32, (x, np.zeros_like(x)))
    assert rep.work().max() == 2 and rep.work().sum() == 80


def test_too_many_threads_per_block():
    with pytest.raises(ValueError, match="at most 1024 threads"):
        sim.launch(copy_guarded, 1, (64, 32), (np.zeros(1), np.zeros(1)))


def test_numba_kernel_in_simulator_mode():
    """A real @cuda.jit kernel (numba's simulator here) is unwrapped and run instrumented."""
    import pdc
    from tests import kernels_for_tests as k

    kernel = pdc.numba_cuda().jit(k.add)
    x = np.arange(50, dtype=np.float32)
    out = np.zeros_like(x)
    rep = sim.launch(kernel, 2, 32, (x, x, out))
    np.testing.assert_array_equal(out, 2 * x)
    assert rep.findings == {}


def _decorated(fn):  # a decorator above the def, as @cuda.jit stands: co_firstlineno is its line
    return fn


@_decorated
def oob_inline(x, out):
    i = cuda.grid(1)
    out[i] = x[i]


@_decorated
def oob_after_barrier(x, out):
    i = cuda.grid(1)
    cuda.syncthreads()
    out[i] = x[i]


def test_lines_count_from_the_def_whatever_stands_above_it():
    """Kernel lines count from the ``def`` (line 1), with or without a barrier or decorator."""
    x = np.zeros(32, np.float32)
    inline = sim.launch(oob_inline, 1, 33, (x, np.zeros_like(x)))
    after = sim.launch(oob_after_barrier, 1, 33, (x, np.zeros_like(x)))
    assert "oob_inline line 3)" in inline.findings["oob"]["examples"][0]
    assert "oob_after_barrier line 4)" in after.findings["oob"]["examples"][0]


def test_a_kernel_from_a_notebook_cell_counts_lines_from_its_def():
    """A cell's source is only in linecache (as in Jupyter); the simulator still finds it."""
    import linecache

    src = "\n@cuda.jit\ndef k(x, out):\n    i = cuda.grid(1)\n    out[i] = x[i]\n"
    name = "<cell oob>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    ns = {"cuda": cuda}
    exec(compile(src, name, "exec"), ns)  # noqa: S102 - the test's own kernel
    x = np.zeros(32, np.float32)
    rep = sim.launch(ns["k"], 1, 33, (x, np.zeros_like(x)))
    assert rep.findings["oob"]["examples"][0].endswith("k line 3)")


def test_memory_analysis_is_cheap_to_skip_and_always_there():
    x = np.arange(100, dtype=np.float32)
    rep = sim.launch(copy_guarded, 4, 32, (x, np.zeros_like(x)))
    assert rep.access is None and rep.bank_conflicts == {} and rep.conflicts() == 0
    # 100 floats in 4 warps: 400 bytes are 13 sectors; the last warp reads 4 of its lanes.
    assert rep.sectors["x:load"] == {"accesses": 4, "sectors": 13, "ideal": 13}
    assert rep.sectors["out:store"] == rep.sectors["x:load"]
    assert rep.global_atomics() == 0 and rep.shared_atomics == 0


def ieee_math(x, out):
    i = cuda.grid(1)
    if i == 0:
        out[0] = math.exp(x[0])  # exp(1000): inf on a GPU, OverflowError in Python
        out[1] = math.log(x[1])  # log(0): -inf
        out[2] = math.sqrt(x[2])  # sqrt(-1): nan
        out[3] = exp(x[3])  # imported by name, as `from math import exp`
        out[4] = math.exp(x[4]) / math.exp(x[0])  # inf / inf: nan, as in a naive softmax
        out[5] = math.pow(x[1], -1.0)  # 0 ** -1: inf


def test_math_returns_inf_and_nan_as_a_gpu_does_instead_of_raising():
    x = np.array([1000.0, 0.0, -1.0, 1.5, 1000.0, 0.0])
    out = np.zeros(6)
    rep = sim.launch(ieee_math, (1,), (32,), (x, out))
    assert rep.findings == {}
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2])
    assert out[3] == math.exp(1.5)  # ordinary values are Python's own, bit for bit
    assert np.isnan(out[4]) and out[5] == np.inf
    with pytest.raises(OverflowError):  # the real module is left alone
        math.exp(1000.0)

"""pdc.sim on held-out submissions' patterns that numba-cuda compiles: transposed views
(``B.T[col]``) and membership tests (``i in range(n)``, ``v in (1, 4, 9)``).

Plain functions, as in tests/sim_cases.py: pdc.sim types them with numba-cuda.
"""

import math

import numpy as np

import pdc
import pdc.sim as sim

cuda = pdc.numba_cuda()


def _kinds(rep) -> dict:
    return {k: v["count"] for k, v in rep.findings.items()}


def transposed_views(A, out):
    # (4, 3) A; out (3, 8): out[:, :4] = A.T, out[:, 4:] = A[1:].T read as a row, written
    # through out.T.
    i = cuda.grid(1)
    if i < A.shape[0]:
        at = A.T  # (3, 4)
        for j in range(at.shape[0]):
            out[j, i] = at[j, i]
    if i < A.shape[1]:
        tail = A[1:, :].T[i]  # column i of A, rows 1..3
        ot = out.T  # (8, 3)
        ot[4, i] = tail.shape[0]
        for k in range(tail.shape[0]):
            ot[5 + k, i] = tail[k]


def test_transposed_views_read_and_write_their_base():
    A = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = np.zeros((3, 8), np.float32)
    rep = sim.launch(transposed_views, 1, 32, (A, out))
    assert _kinds(rep) == {}
    np.testing.assert_array_equal(out[:, :4], A.T)
    np.testing.assert_array_equal(out[:, 4], 3)
    np.testing.assert_array_equal(out[:, 5:], A[1:].T)
    assert rep.loads["A"].sum() == 12 + 9


def transposed_view_past_its_end(A, out):
    i = cuda.grid(1)
    if i < 2:
        out[i] = A.T[i, 4]  # A is (4, 3): A.T[0, 4] is A[4, 0], outside A


def test_a_transposed_index_past_the_base_is_outside():
    A = np.arange(12, dtype=np.float32).reshape(4, 3)
    rep = sim.launch(transposed_view_past_its_end, 1, 32, (A, np.zeros(2, np.float32)))
    assert "oob" in _kinds(rep)
    assert "A[4, 0]" in rep.findings["oob"]["examples"][0]


def membership(n, out):
    # out[i]: bit 0 for i in range(n), bit 1 for i in range(2, 20, 3), bit 2 for i in
    # range(20, 1, -4), bit 3 for i in (1, 4, 9).
    i = cuda.grid(1)
    if i < out.size:
        v = 0
        if i in range(n):
            v += 1
        if i in range(2, 20, 3):
            v += 2
        if i in range(20, 1, -4):
            v += 4
        if i in (1, 4, 9):
            v += 8
        out[i] = v


def test_membership_in_ranges_and_tuples_as_python_computes_it():
    out = np.zeros(32, np.int64)
    rep = sim.launch(membership, 1, 32, (np.int64(7), out))
    assert _kinds(rep) == {}
    want = [
        (i in range(7))
        + 2 * (i in range(2, 20, 3))
        + 4 * (i in range(20, 1, -4))
        + 8 * (i in (1, 4, 9))
        for i in range(32)
    ]
    assert out.tolist() == want


def tuple_builtins(x, img, out):
    # min, max and sum of tuples (a shape too), numba-cuda's way: in the result's type
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = max(img.shape) + min(img.shape)
        out[i, 1] = max((1.5, x[i], -2.0))
        out[i, 2] = min((i, 3, 5))
        out[i, 3] = sum((1.0, x[i], 3.0))
        out[i, 4] = sum((i, 2), 10)


def test_min_max_and_sum_of_a_tuple():
    x = np.linspace(-2.5, 3.0, 8).astype(np.float32)
    img = np.zeros((3, 7), np.float32)
    out = np.zeros((8, 5), np.float64)
    rep = sim.launch(tuple_builtins, 1, 32, (x, img, out))
    assert _kinds(rep) == {}
    xs = x.astype(np.float64)
    np.testing.assert_array_equal(out[:, 0], 10.0)
    np.testing.assert_array_equal(out[:, 1], np.maximum(xs, 1.5))
    np.testing.assert_array_equal(out[:, 2], np.minimum(np.arange(8), 3))
    np.testing.assert_array_equal(out[:, 3], 1.0 + xs + 3.0)
    np.testing.assert_array_equal(out[:, 4], np.arange(8) + 12)


def more_math(x, out):
    # functions numba-cuda lowers on scalars that the simulator's first table lacked
    i = cuda.grid(1)
    if i < x.size:
        m, e = math.frexp(x[i])
        out[i, 0] = m * 100 + e
        out[i, 1] = math.modf(x[i])[0] + math.modf(x[i])[1] * 10
        out[i, 2] = math.gamma(x[i])
        out[i, 3] = math.lgamma(x[i]) + math.erfc(x[i])
        out[i, 4] = np.deg2rad(x[i]) + np.rad2deg(np.float32(1.0))
        out[i, 5] = np.bitwise_and(i, 5) + np.left_shift(i, 2) + np.invert(i)
        out[i, 6] = np.greater(x[i], 0.5) + np.logical_and(i, 2) * 10
        out[i, 7] = np.arcsinh(x[i])


def test_scalar_functions_numba_cuda_compiles():
    x = np.array([-2.5, -1.0, 0.0, 0.25, 1.0, 2.5, 3.0, 7.5], np.float32)
    out = np.zeros((8, 8), np.float64)
    rep = sim.launch(more_math, 1, 32, (x, out))
    assert _kinds(rep) == {}
    i = np.arange(8)
    m, e = np.frexp(x)
    np.testing.assert_array_equal(out[:, 0], m.astype(np.float64) * 100 + e)
    frac, whole = np.modf(x)
    np.testing.assert_array_equal(out[:, 1], frac.astype(np.float64) + whole * 10.0)
    # a GPU's tgamma: +-inf at +-0 and NaN at the negative integers, where Python raises
    want = [math.gamma(v) if v != int(v) or v > 0 else math.nan for v in x.tolist()]
    want[2] = math.inf
    np.testing.assert_allclose(out[:, 2], want, rtol=1e-6, equal_nan=True)
    want = [math.inf if v == int(v) and v <= 0 else math.lgamma(v) for v in x.tolist()]
    np.testing.assert_allclose(
        out[:, 3], np.array(want) + [math.erfc(v) for v in x.tolist()], rtol=1e-6
    )
    np.testing.assert_allclose(out[:, 4], np.deg2rad(x) + np.rad2deg(np.float32(1)), rtol=1e-6)
    np.testing.assert_array_equal(out[:, 5], (i & 5) + (i << 2) + ~i)
    np.testing.assert_array_equal(out[:, 6], (x > 0.5) + 10 * ((i != 0) & True))
    np.testing.assert_allclose(out[:, 7], np.arcsinh(x), rtol=1e-6)


def complex_of_two(x, out):
    i = cuda.grid(1)
    if i < x.size:
        z = complex(x[i], 1.0)
        out[i] = abs(z * z)


def test_complex_of_a_real_and_an_imaginary_part():
    x = np.linspace(-1, 2, 8).astype(np.float32)
    out = np.zeros(8, np.float64)
    assert _kinds(sim.launch(complex_of_two, 1, 32, (x, out))) == {}
    np.testing.assert_allclose(out, x.astype(np.float64) ** 2 + 1, rtol=1e-12)

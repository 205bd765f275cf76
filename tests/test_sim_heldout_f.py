"""pdc.sim on held-out submissions' patterns that numba-cuda compiles: transposed views
(``B.T[col]``) and membership tests (``i in range(n)``, ``v in (1, 4, 9)``).

Plain functions, as in tests/sim_cases.py: pdc.sim types them with numba-cuda.
"""

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

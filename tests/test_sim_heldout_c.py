"""pdc.sim on held-out submissions' patterns: undefined values that reach memory through an
atomic, and numba's integer semantics where Python's and C's differ.

Plain functions, as in tests/sim_cases.py: pdc.sim types them with numba-cuda.
"""

import numpy as np

import pdc
import pdc.sim as sim

cuda = pdc.numba_cuda()
FULL = 0xFFFFFFFF


def _kinds(rep) -> dict:
    return {k: v["count"] for k, v in rep.findings.items()}


def tail_sum_active_mask(x, out):
    # Lanes past the end left; the mask of those still here names them correctly, but a
    # shuffle down from lane 0 still reads lane 16, which left: an undefined value.
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        mask = cuda.activemask()
        for off in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(mask, v, off)
        if cuda.threadIdx.x % 32 == 0:
            cuda.atomic.add(out, 0, v)


def tail_sum_guarded(x, out):
    # The same warp, with each value a lane received used only where its sender took part.
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        mask = cuda.activemask()
        count = cuda.popc(mask)
        for off in (16, 8, 4, 2, 1):
            other = cuda.shfl_down_sync(mask, v, off)
            if cuda.threadIdx.x % 32 + off < count:
                v += other
        if cuda.threadIdx.x % 32 == 0:
            cuda.atomic.add(out, 0, v)


def test_an_undefined_value_added_by_an_atomic_is_reported():
    x = np.arange(5, dtype=np.float32)
    rep = sim.launch(tail_sum_active_mask, 1, 32, (x, np.zeros(1, np.float32)))
    assert _kinds(rep) == {"uninitialized": 1}
    text = rep.findings["uninitialized"]["examples"][0]
    assert "operand of atomic add on out[0]" in text
    assert "shfl_down_sync() by lane 0 from lane 16" in text
    out = np.zeros(1, np.float32)
    assert _kinds(sim.launch(tail_sum_guarded, 1, 32, (x, out))) == {}
    assert out[0] == 10.0


def test_an_undefined_value_into_a_shared_atomic_is_reported():
    def shared_pile(x, out):
        s = cuda.shared.array(1, np.float32)
        t = cuda.threadIdx.x
        if t == 0:
            s[0] = 0.0
        cuda.syncthreads()
        if t < 4:
            v = cuda.shfl_down_sync(0xF, x[t], 8)  # lane 8 is not in the mask
            cuda.atomic.add(s, 0, v)
        cuda.syncthreads()
        if t == 0:
            out[0] = s[0]

    rep = sim.launch(shared_pile, 1, 32, (np.ones(32, np.float32), np.zeros(1, np.float32)))
    assert "uninitialized" in _kinds(rep)


def mixed_sign_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] + b[i]  # int64 + uint64: numba computes in int64, wrapping
        out[i, 1] = a[i] * b[i]
        out[i, 2] = a[i] // b[i]
        out[i, 3] = a[i] % b[i]
        out[i, 4] = a[i] & b[i]


def signed_division_overflow(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] // b[i]
        out[i, 1] = a[i] % b[i]
        q, r = divmod(a[i], b[i])
        out[i, 2] = q
        out[i, 3] = r


def test_mixed_signed_and_unsigned_integers_wrap_as_numba_computes_them():
    import numba

    a = np.array([-7, 5, -(2**40), 2**62, -1], np.int64)
    b = np.array([2**64 - 1, 3, 2**63 + 5, 7, 2**64 - 2], np.uint64)
    out = np.zeros((5, 5), np.int64)
    assert _kinds(sim.launch(mixed_sign_ops, 1, 32, (a, b, out))) == {}

    @numba.njit(error_model="numpy")
    def ref(a, b, out):
        for i in range(a.size):
            out[i, 0] = a[i] + b[i]
            out[i, 1] = a[i] * b[i]
            out[i, 2] = a[i] // b[i]
            out[i, 3] = a[i] % b[i]
            out[i, 4] = a[i] & b[i]

    want = np.zeros_like(out)
    ref(a, b, want)
    assert out[0, 0] == -8  # NumPy's int64 + uint64 is a float64: 1.8e19, not -8
    assert (out == want).all(), (out, want)


def test_the_lowest_signed_value_divided_by_minus_one_is_zero_as_in_numba():
    import numba

    lo = np.iinfo(np.int64).min
    a = np.array([lo, lo, -7, 7], np.int64)
    b = np.array([-1, 2, -2, -2], np.int64)
    out = np.zeros((4, 4), np.int64)
    assert _kinds(sim.launch(signed_division_overflow, 1, 32, (a, b, out))) == {}

    @numba.njit(error_model="numpy")
    def ref(a, b, out):
        for i in range(a.size):
            out[i, 0] = a[i] // b[i]
            out[i, 1] = a[i] % b[i]
            q, r = divmod(a[i], b[i])
            out[i, 2] = q
            out[i, 3] = r

    want = np.zeros_like(out)
    ref(a, b, want)
    assert (out[0] == 0).all() and (out == want).all(), (out, want)

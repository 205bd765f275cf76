"""Definedness through arithmetic: which results an undefined operand leaves undefined.

Plain functions, as in tests/sim_cases.py: pdc.sim types them with numba-cuda.
"""

import numpy as np

import pdc
import pdc.sim as sim

cuda = pdc.numba_cuda()


def _kinds(rep) -> dict:
    return {k: v["count"] for k, v in rep.findings.items()}


def int_masked(x, out, unused):
    # Lanes 16-31 read slots nobody wrote, then multiply (or and) them by a defined zero:
    # whatever the bits, the product is 0 on a GPU.
    s = cuda.shared.array(32, np.int32)
    t = cuda.threadIdx.x
    if t < 16:
        s[t] = x[t]
    cuda.syncthreads()
    keep = 1 if t < 16 else 0
    out[t] = s[t] * keep + (s[t] & (keep * -1))


def float_masked(x, out, unused):
    # The same with floats: an undefined float may be NaN or infinite, and NaN * 0 is NaN.
    s = cuda.shared.array(32, np.float32)
    t = cuda.threadIdx.x
    if t < 16:
        s[t] = x[t]
    cuda.syncthreads()
    out[t] = s[t] * (1.0 if t < 16 else 0.0)


def int_scaled(x, out, unused):
    s = cuda.shared.array(32, np.int32)
    t = cuda.threadIdx.x
    if t < 16:
        s[t] = x[t]
    cuda.syncthreads()
    out[t] = s[t] * 2  # a nonzero factor keeps it undefined


def test_an_integer_times_a_defined_zero_is_defined():
    out = np.full(32, -1, np.int32)
    rep = sim.launch(int_masked, 1, 32, [np.arange(32, dtype=np.int32), out, 0])
    assert _kinds(rep) == {}
    assert (out[:16] == 2 * np.arange(16)).all() and (out[16:] == 0).all()


def test_a_float_times_zero_and_an_integer_times_two_stay_undefined():
    for kernel, dt in ((float_masked, np.float32), (int_scaled, np.int32)):
        out = np.zeros(32, dt)
        rep = sim.launch(kernel, 1, 32, [np.arange(32, dtype=dt), out, 0])
        assert _kinds(rep) == {"uninitialized": 16}, kernel.__name__
        assert "read before any write" in rep.findings["uninitialized"]["examples"][0]

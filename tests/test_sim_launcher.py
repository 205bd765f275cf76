"""``pdc.sim.install(cuda)``: an exercise's ``kernel[grid, block](...)`` runs on pdc.sim.

Without a GPU the tests run on numba's CUDA simulator (tests/conftest.py), which is where
``install`` acts; each test puts ``cuda.jit`` back afterwards (``monkeypatch``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pdc
from pdc.backends.cuda import _is_sim
from pdc.sim import launcher

cuda = pdc.numba_cuda()
needs_sim = pytest.mark.skipif(
    not _is_sim(cuda), reason="a GPU: install acts only on numba's CUDA simulator"
)


@pytest.fixture
def on_sim(monkeypatch):
    monkeypatch.setattr(cuda, "jit", cuda.jit)  # restored after the test
    pdc.sim.install(cuda)
    pdc.sim.install(cuda)  # twice: still one wrapper
    return cuda


@needs_sim
def test_a_launch_runs_numba_cudas_types_where_numbas_simulator_runs_numpys(on_sim):
    @on_sim.jit(device=True)
    def twice(v):
        return v * 2

    @on_sim.jit
    def widen(x, out):
        i = on_sim.grid(1)
        if i < x.size:
            out[i] = twice(x[i] - 64)  # uint8 - int64: numba-cuda widens, NumPy 2 wraps

    x = np.array([3, 100, 200], np.uint8)
    out = np.zeros(3, np.int64)
    assert widen[1, 32](x, out) is None  # as a launch on a GPU
    assert out.tolist() == [-122, 72, 272]
    assert widen.last_report.findings == {}
    assert widen.__name__ == "widen" and "pdc.sim" in repr(widen)
    assert launcher.installed(on_sim) and "pdc.sim" in pdc.device_summary()


@needs_sim
def test_device_arrays_are_updated_in_place_and_findings_are_a_warning(on_sim):
    @on_sim.jit("void(float32[:], float32[:])")  # a signature: cuda.jit(sig) is a decorator
    def copy_unguarded(x, out):
        i = on_sim.grid(1)
        out[i] = x[i]

    d_x = on_sim.to_device(np.arange(5, dtype=np.float32))
    d_out = on_sim.device_array(5, np.float32)
    with pytest.warns(launcher.SimFindings, match=r"read x\[5\] outside shape \(5,\)"):
        copy_unguarded[1, 8](d_x, d_out)
    assert d_out.copy_to_host().tolist() == [0, 1, 2, 3, 4]


@needs_sim
def test_check_and_sim_launch_take_such_a_kernel(on_sim):
    from pdc.sim import launch

    @on_sim.jit(max_registers=64)  # options: cuda.jit(...) is a decorator too
    def add_one(x):
        i = on_sim.grid(1)
        if i < x.size:
            x[i] += 1

    x = np.zeros(40, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a clean launch warns nothing
        add_one[2, 32](x)
    rep = launch(add_one, 1, 64, [x])  # the kernel object passes as numba's kernel did
    assert not rep.findings and (x == 2).all()


@needs_sim
@pytest.mark.parametrize(
    "config, why",
    [((4,), "expected kernel\\[grid, block\\]"), ((1, 32, 0, 256), "no dynamic shared memory")],
)
def test_a_launch_the_simulator_cannot_make_is_refused_with_its_reason(on_sim, config, why):
    @on_sim.jit
    def nothing(x):
        pass

    with pytest.raises(ValueError, match=why):
        nothing[config](np.zeros(1, np.float32))


def test_with_a_gpu_nothing_changes():
    class RealCuda:  # numba-cuda's own module: its jit is not the simulator's
        @staticmethod
        def jit(fn):
            return fn

    real = RealCuda()
    pdc.sim.install(real)
    assert real.jit is RealCuda.jit and not launcher.installed(real)

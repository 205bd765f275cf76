"""Tier 1: backend discovery, selection and the doctor."""

import json
import os
import subprocess
import sys

import pytest

import pdc
from pdc import doctor
from tests.markers import needs_mlx


def test_all_three_backends_are_available_here():
    # numba-cuda (simulator without a GPU) and mlx[cpu] are part of the course environment;
    # a GPU machine's own Python (make gpu-report) may have no MLX.
    from pdc.backends import _probe

    if not _probe.has_mlx():
        pytest.skip("MLX is not installed in this Python: the metal backend is absent")
    assert pdc.available_backends() == ["cuda", "metal", "cpu"]


def test_default_prefers_real_devices(monkeypatch):
    monkeypatch.delenv("PDC_BACKEND", raising=False)
    metal = "metal" in pdc.available_backends() and pdc.get_backend("metal").has_metal
    expected = "cuda" if pdc.has_gpu() else ("metal" if metal else "cpu")
    assert pdc.default_backend() == expected


@pytest.mark.parametrize("name", ["cpu", "cuda", pytest.param("metal", marks=needs_mlx)])
def test_pdc_backend_overrides_the_default(monkeypatch, name):
    monkeypatch.setenv("PDC_BACKEND", name.upper())
    assert pdc.default_backend() == name
    assert pdc.get_backend().name == name


def test_unknown_backend_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("PDC_BACKEND", "opencl")
    with pytest.raises(
        ValueError, match=r"\[PDC_BACKEND\] expected one of cuda, metal, cpu, got 'opencl'"
    ):
        pdc.default_backend()
    with pytest.raises(ValueError, match=r"\[get_backend\] expected one of"):
        pdc.get_backend("tpu")


def test_backends_are_cached():
    assert pdc.get_backend("cpu") is pdc.get_backend("cpu")


def test_simulation_is_reported_honestly():
    cuda = pdc.get_backend("cuda")
    assert cuda.simulated is (not pdc.has_gpu())
    assert ("simulator" in cuda.device_name) is cuda.simulated
    if "metal" not in pdc.available_backends():
        return  # no MLX in this Python
    metal = pdc.get_backend("metal")
    assert metal.simulated is (not metal.has_metal) and metal.zero_copy


def test_device_summary_says_what_runs_where():
    text = pdc.device_summary()
    if pdc.has_gpu():
        assert "CUDA GPU found" in text
    else:
        assert "simulator" in text


@needs_mlx
def test_metal_kernels_without_metal_name_what_is_missing():
    metal = pdc.get_backend("metal")
    if metal.has_metal:
        pytest.skip("Metal is present: custom kernels run")
    with pytest.raises(RuntimeError, match=r"\[metal.launch\].*mx.fast.metal_kernel.*is False"):
        metal.launch(None, (1, 1, 1), (1, 1, 1), ())


def test_doctor_reports_all_three_backends_and_exits_zero():
    out = subprocess.run([sys.executable, "-m", "pdc", "doctor"], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    for name in ("cuda", "metal", "cpu"):
        assert f"\n  {name} " in out.stdout
    assert "All good" in out.stdout
    if not pdc.has_gpu():
        assert "numba CUDA simulator (no GPU) (simulated)" in out.stdout


def test_doctor_json_is_machine_readable():
    out = subprocess.run(
        [sys.executable, "-m", "pdc", "doctor", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(out.stdout)
    assert set(report["backends"]) == {"cuda", "metal", "cpu"}
    assert report["libraries"]["numpy"]
    assert report["problems"] == []


def test_doctor_fails_with_a_fix_it_hint_when_broken(monkeypatch, capsys):
    monkeypatch.setenv("PDC_BACKEND", "rocm")
    assert doctor.main([]) == 1
    out = capsys.readouterr().out
    assert "PROBLEMS" in out and "Fix: unset PDC_BACKEND" in out


def test_doctor_reports_a_backend_that_fails_to_start(monkeypatch, capsys):
    def broken(name=None):
        raise ImportError("libcudart.so.12: cannot open shared object file")

    monkeypatch.setattr(doctor, "get_backend", broken)
    assert doctor.main([]) == 1
    out = capsys.readouterr().out
    assert "BROKEN: ImportError: libcudart.so.12" in out and "pip install -e '.[cuda]'" in out


def test_cli_usage_and_unknown_command():
    ok = subprocess.run([sys.executable, "-m", "pdc", "--help"], capture_output=True, text=True)
    assert ok.returncode == 0 and "doctor" in ok.stdout and "grade" in ok.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "pdc", "frobnicate"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "unknown command 'frobnicate'" in bad.stderr


_CODEGEN = """
import numpy as np
import pdc

cuda = pdc.numba_cuda()


@cuda.jit(lineinfo=True, max_registers=32, launch_bounds=(64,), forceinline=True)
def fill(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i


a = np.zeros(40, np.float32)
fill[2, 32](a)
assert (a == np.arange(40)).all(), a
try:
    cuda.jit(not_an_option=1)
except TypeError as e:
    print("refused:", e)
"""


def test_code_generation_options_run_on_the_simulator_and_others_are_still_refused():
    """``@cuda.jit(max_registers=64)`` (a chapter suggests it) shapes only the machine code: on
    numba's simulator it runs, where numba's own simulator ``jit`` raises TypeError."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    if pdc.has_gpu():
        pytest.skip("a GPU machine runs the real cuda.jit, which takes these options itself")
    out = subprocess.run(
        [sys.executable, "-c", _CODEGEN], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "refused: jit() got an unexpected keyword argument 'not_an_option'" in out.stdout

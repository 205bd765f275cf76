"""Tier 1: pdc.reach says whether CuPy or torch can use the GPU, with fakes for both."""

import importlib
import sys
import types

import pytest

import pdc

reach_mod = importlib.import_module("pdc.reach")  # the module; pdc.reach is the function


@pytest.fixture
def fresh(monkeypatch):
    reach_mod._ask.cache_clear()
    yield monkeypatch
    reach_mod._ask.cache_clear()


def test_without_a_gpu_neither_library_is_reached(fresh):
    fresh.setattr(reach_mod._probe, "has_cuda_gpu", lambda: False)
    assert pdc.reach("torch") is None and pdc.reach("cupy") is None
    assert pdc.why_not("cupy") == "no CUDA GPU on this machine"


def test_a_cpu_only_torch_on_a_gpu_machine_is_not_reached(fresh):
    fake = types.SimpleNamespace(
        __version__="2.13.0+cpu",
        version=types.SimpleNamespace(cuda=None),
        cuda=types.SimpleNamespace(is_available=lambda: False),
    )
    fresh.setattr(reach_mod._probe, "has_cuda_gpu", lambda: True)
    fresh.setitem(sys.modules, "torch", fake)
    assert pdc.reach("torch") is None
    assert pdc.why_not("torch") == (
        "torch 2.13.0+cpu cannot use the GPU (its CUDA: none (a CPU-only build))"
    )


def test_a_cupy_without_its_cuda_libraries_is_not_reached(fresh):
    def arange(*a, **k):
        raise RuntimeError("CuPy failed to load libcublas.so.12")

    fake = types.SimpleNamespace(
        cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 1)),
        arange=arange,
        float32="float32",
    )
    fresh.setattr(reach_mod._probe, "has_cuda_gpu", lambda: True)
    fresh.setitem(sys.modules, "cupy", fake)
    assert pdc.reach("cupy") is None
    assert "libcublas.so.12" in pdc.why_not("cupy")


def test_missing_library_and_unknown_name(fresh):
    fresh.setattr(reach_mod._probe, "has_cuda_gpu", lambda: True)
    fresh.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    assert pdc.reach("cupy") is None and pdc.why_not("cupy").startswith("cupy is not installed")
    with pytest.raises(
        ValueError, match=r"\[reach\] expected one of \('cupy', 'torch'\), got 'jax'"
    ):
        pdc.reach("jax")

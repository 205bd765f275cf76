"""Tier 1: a GPU whose CUDA does not start leaves the notebooks on the cpu backend, with why.

The driver is faked: it reports a GPU, and the CUDA backend fails as numba-cuda does when the
CUDA libraries are newer than the driver. Nothing here starts numba.cuda.
"""

from __future__ import annotations

import pytest

import pdc
from pdc import backends
from pdc.backends import _probe
from pdc.backends.base import Backend

REASON = "CUDA driver version 12020 is older than the 13000 the libraries need"


class BrokenCuda(Backend):
    name = "cuda"

    def __init__(self) -> None:
        raise RuntimeError(REASON)


@pytest.fixture
def broken_gpu(monkeypatch):
    real_load = backends._load
    monkeypatch.setattr(backends, "_instances", {})
    monkeypatch.setattr(backends, "_failed", {})
    monkeypatch.setattr(_probe, "has_cuda_gpu", lambda: True)
    monkeypatch.setattr(backends, "_installed", lambda name: name in ("cuda", "cpu"))
    monkeypatch.setattr(
        backends, "_load", lambda name: BrokenCuda if name == "cuda" else real_load(name)
    )
    monkeypatch.delenv("PDC_BACKEND", raising=False)


def test_the_default_falls_back_to_cpu_and_says_why(broken_gpu):
    assert pdc.default_backend() == "cuda"
    with pytest.warns(RuntimeWarning, match=r"\[get_backend\] the default backend 'cuda' did not"):
        backend = pdc.get_backend()
    assert backend.name == "cpu" and pdc.default_backend() == "cpu"
    assert backends.start_failure("cuda") == f"RuntimeError: {REASON}"
    assert "did not start (RuntimeError: CUDA driver version 12020" in pdc.device_summary()
    with pytest.raises(RuntimeError, match="older than"):
        pdc.get_backend("cuda")  # asked for by name: the error itself


def test_a_chosen_backend_that_does_not_start_raises(broken_gpu, monkeypatch):
    monkeypatch.setenv("PDC_BACKEND", "cuda")
    with pytest.raises(RuntimeError, match="older than"):
        pdc.get_backend()
    assert backends.start_failure("cuda") is not None


def test_device_summary_names_the_failure_without_a_prior_start(broken_gpu):
    summary = pdc.device_summary()
    assert summary.startswith("CUDA GPU found, but CUDA did not start (RuntimeError:")
    assert summary.endswith("pdc uses the 'cpu' backend.")

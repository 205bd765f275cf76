"""Tier 1: the CUDA probe with a fake driver: module loading is EAGER before the first cuInit."""

import ctypes
import os

import pytest

from pdc.backends import _probe


class FakeLibcuda:
    """A libcuda that records what the process environment said when cuInit ran."""

    def __init__(self, initialised: bool, devices: int = 1, version: int = 12080):
        self.initialised, self.devices, self.version = initialised, devices, version
        self.loading_at_init: str | None = None
        self.init_result = 0

    def cuCtxGetCurrent(self, ptr):
        return 0 if self.initialised else 3  # CUDA_ERROR_NOT_INITIALIZED before cuInit

    def cuInit(self, flags):
        self.loading_at_init = os.environ.get("CUDA_MODULE_LOADING")
        self.initialised = True
        return self.init_result

    def cuDeviceGetCount(self, ptr):
        ctypes.cast(ptr, ctypes.POINTER(ctypes.c_int))[0] = self.devices
        return 0

    def cuDriverGetVersion(self, ptr):
        ctypes.cast(ptr, ctypes.POINTER(ctypes.c_int))[0] = self.version
        return 0


@pytest.fixture
def fake(monkeypatch):
    def install(lib, loading=None):
        monkeypatch.setattr(_probe, "_libcuda", lambda: lib)
        monkeypatch.setattr(_probe, "_loading", {})
        if loading is None:
            monkeypatch.delenv("CUDA_MODULE_LOADING", raising=False)
        else:
            monkeypatch.setenv("CUDA_MODULE_LOADING", loading)
        return _probe.cuda_device_count.__wrapped__()

    return install


def test_pdc_asks_for_eager_loading_before_the_first_cuinit(fake):
    lib = FakeLibcuda(initialised=False, devices=2)
    assert fake(lib) == 2
    assert lib.loading_at_init == "EAGER"
    assert _probe.module_loading() == ("EAGER", "pdc")


def test_a_mode_the_user_chose_is_kept(fake):
    lib = FakeLibcuda(initialised=False)
    fake(lib, loading="lazy")
    assert lib.loading_at_init == "lazy"
    assert _probe.module_loading() == ("LAZY", "CUDA_MODULE_LOADING")


def test_cuda_started_earlier_by_another_library_is_recorded_as_lazy(fake):
    lib = FakeLibcuda(initialised=True)
    fake(lib)
    assert _probe.module_loading() == ("LAZY", "a library that started CUDA before pdc")


def test_the_driver_version_picks_the_stack(monkeypatch):
    monkeypatch.setattr(_probe, "_libcuda", lambda: FakeLibcuda(False, version=13010))
    assert _probe.cuda_driver_version() == 13010
    assert _probe.cuda_stack() == "cu13"
    monkeypatch.setattr(_probe, "_libcuda", lambda: None)
    assert _probe.cuda_stack() == "cpu"


def test_a_driver_that_fails_to_start_keeps_its_cuda_result(fake, monkeypatch):
    lib = FakeLibcuda(initialised=False)
    lib.init_result = 803  # CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
    assert fake(lib) == 0
    monkeypatch.setattr(_probe, "cuda_device_count", lambda: 0)
    assert _probe.cuda_init_error() == 803

"""The doctor launches a kernel, and freed buffers give their memory back.

Tier 1 with a faked backend: a device that starts but whose first launch fails is a problem,
not "All good"; a buffer's ``free()`` asks the backend to reclaim only once nothing refers to
the array. The ``gpu`` tests run the real thing on a CUDA GPU.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import pdc
from pdc import doctor
from pdc.backends.cpu import CPUBackend
from pdc.backends.cuda import CUDABackend, pending_frees


class LaunchFails(CPUBackend):
    def self_test(self):
        raise RuntimeError("PTX .version 8.8 is newer than the driver's 8.5")


def test_doctor_reports_a_device_whose_first_launch_fails(monkeypatch):
    real = doctor.get_backend
    monkeypatch.setattr(doctor, "get_backend", lambda n: LaunchFails() if n == "cpu" else real(n))
    report = doctor.collect()
    entry = report["backends"]["cpu"]
    assert entry["ok"] is False and entry["error"].startswith("kernel launch: RuntimeError")
    assert any("one-thread kernel failed: PTX .version 8.8" in p for p in report["problems"])
    assert "All good" not in doctor.render(report)


class Reclaiming(CPUBackend):
    def __init__(self) -> None:
        super().__init__()
        self.arrays: list[weakref.ref] = []
        self.alive_at_reclaim: list[bool] = []

    def allocate(self, shape, dtype):
        arr = super().allocate(shape, dtype)
        self.arrays.append(weakref.ref(arr))
        return arr

    def reclaim(self):
        self.alive_at_reclaim.append(any(ref() is not None for ref in self.arrays))


def test_free_reclaims_after_the_buffer_lets_go_of_its_array():
    backend = Reclaiming()
    buf = pdc.UnifiedBuffer(1024, np.float32, backend=backend)
    buf.free()
    buf.free()  # a second free does nothing
    assert backend.alive_at_reclaim == [False]


@pytest.mark.gpu
def test_the_cuda_self_test_compiles_launches_and_times_a_kernel():
    facts = pdc.get_backend("cuda").self_test()
    assert facts["kernel_event_ms"] > 0 and facts["kernel_first_launch_ms"] > 0
    assert "numba-cuda" in facts["versions"] and facts["driver_cuda"] > 0
    report = doctor.collect()
    assert report["backends"]["cuda"]["ok"] and not report["problems"], report


@pytest.mark.gpu
def test_a_freed_cuda_buffer_returns_its_memory():
    from cuda.bindings import driver as cu

    cuda = pdc.numba_cuda()
    ctx = cuda.current_context()
    size = 512 * 2**20

    def allocated(ptr: int) -> bool:
        # Asked of this process's own allocation: the device-wide free memory moves with
        # every other process on the GPU (a parallel test run showed 512 MiB "left").
        (err, *_) = cu.cuMemGetAddressRange(cu.CUdeviceptr(ptr))
        return err == cu.CUresult.CUDA_SUCCESS

    gc.collect()
    for queue in pending_frees(ctx):
        queue.clear()
    buf = pdc.UnifiedBuffer(size // 4, np.float32, backend="cuda")
    array = weakref.ref(buf._device)
    ptr = int(buf._device.device_ctypes_pointer.value)
    assert allocated(ptr)
    buf.free()
    alive = array() is not None
    assert not allocated(ptr), "free() left the allocation in place; the device array is " + (
        "still referenced" if alive else f"gone, {len(ctx.deallocations)} frees pending"
    )


def test_reclaim_flushes_the_memory_managers_frees_as_well_as_the_contexts():
    # numba-cuda queues cuMemFree on ctx.memory_manager.deallocations and module, stream and
    # event finalizers on ctx.deallocations; flushing only the latter kept a freed 512 MiB
    # buffer on an H100 and an H200.
    class Queue(list):
        def clear(self) -> None:
            while self:
                self.pop()()

    freed: list[str] = []

    class Manager:
        deallocations = Queue([lambda: freed.append("device memory")])

    class Context:
        deallocations = Queue([lambda: freed.append("stream")])
        memory_manager = Manager()

    class Cuda:
        @staticmethod
        def current_context():
            return Context()

    backend = CUDABackend.__new__(CUDABackend)
    backend.simulated, backend.cuda = False, Cuda()
    backend.reclaim()
    assert sorted(freed) == ["device memory", "stream"]
    assert [len(q) for q in pending_frees(Context())] == [0, 0]
    Context.memory_manager = Manager()  # a manager sharing the context's queue counts once
    Context.memory_manager.deallocations = Context.deallocations
    assert len(pending_frees(Context())) == 1

"""Tier 1: ``pdc.course.kit.device_limits`` with fake numba devices of the GPUs students have.

Each fake resolves attribute names exactly as numba-cuda's ``Device.__getattr__`` does (through
cuda.bindings' ``CUdevice_attribute``), so a misspelt name fails here as it would on a GPU.
The tables are the CUDA C++ Programming Guide's figures per compute capability.
"""

import importlib

import pytest

from pdc.course import kit as ck

pocc = importlib.import_module("pdc.ptx.occupancy")  # the module; pdc.ptx.occupancy is a function

binding = pytest.importorskip(
    "cuda.bindings.driver", reason="the attribute names are checked against cuda.bindings"
)

KiB = 1024
# name: (cc, SMs, threads/SM, blocks/SM, smem/SM, opt-in smem/block, reserved/block)
GPUS = {
    "T4": ((7, 5), 40, 1024, 16, 64 * KiB, 64 * KiB, 0),
    "L4": ((8, 9), 58, 1536, 24, 100 * KiB, 99 * KiB, 1 * KiB),
    "A100": ((8, 0), 108, 2048, 32, 164 * KiB, 163 * KiB, 1 * KiB),
    "H100": ((9, 0), 132, 2048, 32, 228 * KiB, 227 * KiB, 1 * KiB),
    "B200": ((10, 0), 148, 2048, 32, 228 * KiB, 227 * KiB, 1 * KiB),
}


class CudaAPIError(Exception):
    """Stands for numba's driver error, which numba keeps in the module of its Device."""


class FakeDevice:
    """A numba ``Device`` whose driver answers from a table."""

    def __init__(self, name, refuse=()):
        cc, sms, threads, blocks, smem_sm, optin, reserved = GPUS[name]
        self.name, self.compute_capability, self.refuse = f"NVIDIA {name}".encode(), cc, refuse
        A = binding.CUdevice_attribute
        self.table = {
            A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: sms,
            A.CU_DEVICE_ATTRIBUTE_WARP_SIZE: 32,
            A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: 1024,
            A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: threads,
            A.CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: blocks,
            A.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: 65536,
            A.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: 65536,
            A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: smem_sm,
            A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: optin,
            A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: 48 * KiB,
            A.CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: reserved,
        }

    def __getattr__(self, attr):
        # numba-cuda 0.30 driver.py Device.__getattr__: the enum lookup, then the driver call.
        code = getattr(binding.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{attr}")
        if attr in self.refuse:
            raise CudaAPIError(1, f"cuDeviceGetAttribute({attr}) refused")
        return self.table[code]


def test_every_attribute_name_exists_in_cuda_bindings():
    for field, attribute in ck.DRIVER_ATTRIBUTES.items():
        assert hasattr(binding.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{attribute}"), field
        assert hasattr(ck.SMLimits, field) or field in ck.SMLimits.__dataclass_fields__


@pytest.mark.parametrize("gpu", sorted(GPUS))
def test_limits_come_from_the_driver_for_each_gpu(gpu):
    cc, sms, threads, blocks, smem_sm, optin, reserved = GPUS[gpu]
    lim = ck.limits_of(FakeDevice(gpu))
    assert lim.sm_count == sms
    assert lim.max_threads_per_sm == threads and lim.max_warps_per_sm == threads // 32
    assert lim.max_blocks_per_sm == blocks
    assert (lim.smem_per_sm, lim.max_smem_per_block) == (smem_sm, optin)
    assert lim.max_static_smem_per_block == 48 * KiB
    assert lim.smem_reserved_per_block == reserved
    assert lim.smem_alloc_unit == (256 if cc < (8, 0) else 128)
    assert f"compute capability {cc[0]}.{cc[1]}" in lim.name and gpu in lim.name


@pytest.mark.parametrize("gpu", sorted(GPUS))
def test_the_pdc_table_agrees_with_the_driver(gpu):
    lim, ref = ck.limits_of(FakeDevice(gpu)), pocc.DEVICES[gpu]
    for field in ck.DRIVER_ATTRIBUTES:
        if hasattr(ref, field):
            assert getattr(ref, field) == getattr(lim, field), field
    assert (ref.smem_alloc_unit, ref.smem_reserved_per_block) == pocc.allocation_units(ref.cc)


@pytest.mark.parametrize("gpu", sorted(GPUS))
def test_occupancy_never_raises_for_chapter_2s_rows(gpu):
    lim = ck.limits_of(FakeDevice(gpu))
    for block, regs, smem_kib in [(128, 32, 0), (256, 32, 0), (128, 32, 100), (1024, 32, 48)]:
        o = ck.occupancy(block, regs, smem_kib * KiB, limits=lim)
        assert 0 <= o.occupancy <= 1
        if smem_kib * KiB > lim.max_smem_per_block:
            assert o.blocks_per_sm == 0 and o.limiter == "shared memory"
        assert o.needs_opt_in == (smem_kib > 48)


def test_t4_without_shared_memory_is_limited_by_warps_not_a_division_by_zero():
    t4 = ck.limits_of(FakeDevice("T4"))
    o = ck.occupancy(128, 32, 0, limits=t4)
    # 4 warps per block, 32 warps per SM: 8 blocks, full occupancy; smem would allow 16.
    assert (o.blocks_per_sm, o.limiter, o.occupancy) == (8, "warps", 1.0)
    assert o.blocks_by_smem == 16
    assert pocc.occupancy(128, 32, 0, "T4").blocks_per_sm == 8
    # 100 KiB per block: more than a T4 block can have; 60 KiB: one block.
    assert ck.occupancy(128, 32, 100 * KiB, limits=t4).blocks_per_sm == 0
    assert ck.occupancy(128, 32, 60 * KiB, limits=t4).blocks_per_sm == 1


def test_t4_and_l4_differ_from_the_h100_reference():
    t4, l4 = ck.limits_of(FakeDevice("T4")), ck.limits_of(FakeDevice("L4"))
    assert ck.occupancy(1024, 32, limits=t4).occupancy == 1.0  # one 32-warp block fills a T4 SM
    assert ck.occupancy(1024, 32, limits=l4).occupancy == pytest.approx(32 / 48)
    assert ck.occupancy(1024, 32).occupancy == 1.0  # two blocks on the H100


def test_a_refused_attribute_keeps_the_fallback_and_a_misspelt_one_raises():
    lim = ck.limits_of(FakeDevice("T4", refuse=("RESERVED_SHARED_MEMORY_PER_BLOCK",)))
    assert lim.smem_reserved_per_block == ck.H100_SXM.smem_reserved_per_block
    assert lim.sm_count == 40
    with pytest.raises(AttributeError):
        FakeDevice("T4").MAX_THREADS_PER_MULTI_PROCESSOR  # the old, misspelt name


def test_device_limits_asks_the_current_device(monkeypatch):
    import pdc

    class FakeCuda:
        @staticmethod
        def get_current_device():
            return FakeDevice("L4")

    monkeypatch.setattr(pdc, "has_gpu", lambda: True)
    monkeypatch.setattr(pdc, "numba_cuda", lambda: FakeCuda)
    assert ck.device_limits().max_threads_per_sm == 1536

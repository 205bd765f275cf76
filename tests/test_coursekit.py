"""Tests for pdc/course/kit.py, the functions behind chapters 1-5 of the course."""

import sys

import numpy as np
import pytest

import pdc
from pdc.course import kit as ck


@pytest.mark.parametrize(
    ("block", "regs", "smem", "blocks", "limiter", "occ"),
    [
        (256, 32, 0, 8, "warps", 1.0),  # 8 warps/block, 64 warps/SM
        (
            256,
            64,
            0,
            4,
            "registers",
            0.5,
        ),  # 2048 regs/warp -> 8 warps per sub-partition
        (32, 16, 0, 32, "blocks", 0.5),  # 32-block cap with 1-warp blocks
        (
            128,
            32,
            48 * 1024,
            4,
            "shared memory",
            0.25,
        ),  # (48 KB + 1 KB) -> 4 per 228 KB
        (1024, 32, 0, 2, "warps", 1.0),
        (
            96,
            40,
            0,
            16,
            "registers",
            0.75,
        ),  # 1280 regs/warp -> 12 warps/partition -> 48
        (
            1024,
            255,
            0,
            0,
            "registers",
            0.0,
        ),  # 8160 regs/warp * 32 warps > 65536: no launch
        (1, 1, 0, 32, "blocks", 0.5),  # a 1-thread block still costs a whole warp
    ],
)
def test_occupancy_matches_hand_computed_h100_cases(block, regs, smem, blocks, limiter, occ):
    r = ck.occupancy(block, regs, smem)
    assert r.blocks_per_sm == blocks
    assert r.limiter == limiter
    assert r.occupancy == pytest.approx(occ)
    assert r.active_warps == blocks * r.warps_per_block


def test_occupancy_never_exceeds_the_sm_limits():
    lim = ck.H100_SXM
    for block in range(1, 1025, 37):
        for regs in (16, 32, 48, 64, 96, 128, 200, 255):
            for smem in (0, 1000, 16 * 1024, 100 * 1024, 227 * 1024):
                r = ck.occupancy(block, regs, smem)
                assert 0 <= r.blocks_per_sm <= lim.max_blocks_per_sm
                assert r.active_warps <= lim.max_warps_per_sm
                assert r.blocks_per_sm * block <= lim.max_threads_per_sm
                used = r.blocks_per_sm * (smem + lim.smem_reserved_per_block)
                assert used <= lim.smem_per_sm
                assert r.active_warps * regs * lim.warp_size <= lim.regs_per_sm


def test_occupancy_is_monotone_in_resources():
    prev = 2.0
    for regs in range(8, 256, 8):
        occ = ck.occupancy(256, regs).occupancy
        assert occ <= prev
        prev = occ


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"block_size": 0}, "block_size"),
        ({"block_size": 1025}, "block_size"),
        ({"block_size": 128, "regs_per_thread": 256}, "regs_per_thread"),
        ({"block_size": 128, "smem_per_block": -1}, "smem_per_block"),
    ],
)
def test_occupancy_rejects_impossible_requests(kwargs, match):
    with pytest.raises(ValueError, match=rf"\[occupancy\] expected {match}"):
        ck.occupancy(**kwargs)


def test_more_shared_memory_than_a_block_may_have_gives_no_resident_block():
    r = ck.occupancy(128, 32, 228 * 1024)  # the H100 allows 227 KiB per block
    assert (r.blocks_per_sm, r.limiter, r.occupancy) == (0, "shared memory", 0.0)
    assert r.needs_opt_in and not ck.occupancy(128, 32, 48 * 1024).needs_opt_in


def test_custom_limits_change_the_answer():
    small = ck.SMLimits(name="48-warp SM", sm_count=1, max_threads_per_sm=1536, max_warps_per_sm=48)
    assert ck.occupancy(1024, 32, limits=small).blocks_per_sm == 1
    assert ck.occupancy(1024, 32, limits=small).occupancy == pytest.approx(32 / 48)


def test_device_limits_without_gpu_is_the_reference(monkeypatch):
    pdc = pytest.importorskip("pdc")
    if pdc.has_gpu():
        lim = ck.device_limits()
        assert lim.sm_count > 0 and lim.max_warps_per_sm > 0
    else:
        assert ck.device_limits() is ck.H100_SXM


@pytest.mark.parametrize(("stride", "sectors"), [(1, 4), (2, 8), (4, 16), (8, 32), (32, 32)])
def test_sectors_touched_by_a_warp_of_float32_loads(stride, sectors):
    addrs = ck.warp_addresses(stride)
    assert addrs.shape == (32,)
    assert addrs[1] - addrs[0] == 4 * stride
    assert ck.sectors_touched(addrs).size == sectors


def test_misaligned_load_spans_an_extra_sector():
    assert ck.sectors_touched(ck.warp_addresses(1, offset=1)).size == 5
    assert ck.sectors_touched(np.array([30]), itemsize=4).tolist() == [0, 1]


def test_warp_addresses_rejects_bad_stride():
    with pytest.raises(ValueError, match=r"\[warp_addresses\]"):
        ck.warp_addresses(0)


def test_crossover_interpolates_in_log_space():
    sizes = [10, 100, 1000, 10000]
    a = [1.0, 1.0, 1.0, 1.0]
    b = [
        4.0,
        2.0,
        0.5,
        0.25,
    ]  # ratio crosses 1 between 100 and 1000, at the geometric midpoint
    assert ck.crossover(sizes, a, b) == pytest.approx(np.sqrt(100 * 1000))


def test_crossover_edge_cases():
    assert ck.crossover([1, 2, 3], [1, 1, 1], [2, 2, 2]) is None  # b never wins
    assert ck.crossover([1, 2, 3], [1, 1, 1], [0.5, 0.5, 0.5]) == 1.0  # b always wins
    # b wins early, loses in the middle, wins at the end: the last crossing counts
    assert 3 < ck.crossover([1, 2, 3, 4], [1, 1, 1, 1], [0.5, 0.5, 2, 0.5]) < 4
    assert ck.crossover([1, 2], [1, 1], [0.5, 2]) is None  # b loses at the largest size
    with pytest.raises(ValueError, match=r"\[crossover\]"):
        ck.crossover([1, 2], [1], [1, 2])
    with pytest.raises(ValueError, match=r"\[crossover\]"):
        ck.crossover([2, 1], [1, 1], [1, 1])


def test_measure_counts_calls_and_reports_median_and_spread():
    calls = []
    t = ck.measure(calls.append, 1, repeat=7, warmup=2, number=3)
    assert len(calls) == 2 + 7 * 3
    assert len(t.samples) == 7 and t.device == "cpu" and t.clock == "perf_counter"
    assert t.p10_s <= t.median_s <= t.p90_s


def test_measure_calls_sync_inside_every_sample():
    syncs = []
    ck.measure(lambda: None, repeat=4, warmup=1, sync=lambda: syncs.append(1))
    assert len(syncs) == 1 + 4  # once after warm-up, once per sample


def test_measure_on_cuda_without_a_gpu_uses_the_clock():
    t = ck.measure(lambda: None, repeat=3, device="cuda")
    assert t.clock == ("cuda events" if pdc.has_gpu() else "perf_counter")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"repeat": 0}, "repeat >= 1"), ({"warmup": -1}, "warmup >= 0"), ({"device": "tpu"}, "tpu")],
)
def test_measure_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ck.measure(lambda: None, **kwargs)


def test_timing_str_uses_one_unit_for_median_and_percentiles():
    t = ck.Timing(tuple([1.20e-3] * 2 + [1.23e-3] * 6 + [1.31e-3] * 2))
    assert str(t) == "1.23 ms (p10 1.2, p90 1.31, n=10)"
    assert str(ck.Timing((5e-6,))) == "5 µs (p10 5, p90 5, n=1)"


def test_setup_torch_caps_threads_at_the_cores():
    torch = pytest.importorskip("torch")
    n = ck.setup_torch(max_threads=4)
    assert 1 <= n <= 4 and torch.get_num_threads() == n


_FAULTS = """
import resource, sys
import numpy as np
from pdc.course import kit as ck

def faults_of_second_allocation():
    np.ones(2**24, np.float32)  # 64 MiB, allocated, touched and freed
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    np.ones(2**24, np.float32)  # the same size again
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

default = faults_of_second_allocation()
kept = ck.keep_freed_memory()
faults_of_second_allocation()  # the first block kept in the heap
print(default, kept, faults_of_second_allocation())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt: Linux only")
def test_keep_freed_memory_stops_page_faults_of_reallocation():
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", _FAULTS],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout.split()
    default, kept, after = int(out[0]), out[1], int(out[2])
    assert kept == "True"
    # 64 MiB are 16,384 pages of 4 KiB (or 32 huge pages of 2 MiB, which NumPy asks for):
    # faulted in again by default, hardly at all when kept.
    assert default >= 32, f"expected the default allocator to fault pages in, got {default}"
    assert after < default / 10, f"kept memory still faulted {after} pages (default {default})"


def test_keep_freed_memory_rejects_bad_limits():
    with pytest.raises(ValueError, match="keep_freed_memory.*expected 1 B to 2 GiB, got 0 B"):
        ck.keep_freed_memory(0)

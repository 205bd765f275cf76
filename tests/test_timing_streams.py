"""Tier 1: ``measure(device="cuda")`` on a GPU, with numba's events faked.

Which clock a sample uses on a GPU: CUDA events recorded on the stream the work is queued on
(the legacy default stream unless ``stream=`` names one), or, when the caller gives ``sync``,
``perf_counter`` plus that call (events on one stream would not bracket work on others); and
where ``start`` is recorded: behind one untimed call, so a busy GPU stamps it.
"""

from __future__ import annotations

import pytest

import pdc
from pdc.timing import measure


class FakeEvent:
    def __init__(self, log: list) -> None:
        self.log = log

    def record(self, stream=0) -> None:
        self.log.append(stream)

    def synchronize(self) -> None:
        pass

    def elapsed_time(self, end: FakeEvent) -> float:
        return 4.0  # milliseconds, as numba's Event.elapsed_time reports


class FakeCuda:
    def __init__(self) -> None:
        self.recorded: list = []
        self.synced = 0

    def event(self) -> FakeEvent:
        return FakeEvent(self.recorded)

    def synchronize(self) -> None:
        self.synced += 1


@pytest.fixture
def gpu(monkeypatch) -> FakeCuda:
    cuda = FakeCuda()
    monkeypatch.setattr(pdc, "has_gpu", lambda: True)
    monkeypatch.setattr(pdc, "numba_cuda", lambda: cuda)
    return cuda


def test_events_on_the_default_stream_unless_a_stream_is_named(gpu):
    t = measure(lambda: None, repeat=3, warmup=1, number=2, device="cuda")
    assert t.clock == "cuda events" and gpu.recorded == [0] * 6
    assert t.samples == (2e-3,) * 3  # 4 ms per sample over 2 calls, in seconds
    stream = object()
    gpu.recorded.clear()
    measure(lambda: None, repeat=2, warmup=0, device="cuda", stream=stream)
    assert gpu.recorded == [stream] * 4


def test_a_given_sync_replaces_the_events(gpu):
    syncs = []
    t = measure(lambda: None, repeat=3, warmup=1, device="cuda", sync=lambda: syncs.append(1))
    assert t.clock == "perf_counter" and gpu.recorded == []
    assert len(syncs) == 1 + 3  # after the warm-up, then once per sample


def test_start_is_recorded_behind_one_untimed_call(gpu):
    # fn's calls and the events' records go to one log, in the order the host makes them.
    log = gpu.recorded
    measure(lambda: log.append("call"), repeat=2, warmup=1, number=3, device="cuda")
    sample = ["call", 0, "call", "call", "call", 0]
    assert log == ["call"] + sample * 2  # the warm-up, then per sample: lead call, start, 3, end

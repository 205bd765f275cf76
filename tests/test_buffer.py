"""Tier 2: UnifiedBuffer on every available backend."""

import numpy as np
import pytest

import pdc
from pdc import BufferState
from tests.markers import needs_mlx


class CopySpy:
    """Wraps a backend's copy methods to record the transfers really made."""

    def __init__(self, monkeypatch, backend):
        self.h2d: list[int] = []
        self.d2h: list[int] = []
        to_dev, to_host = backend.copy_to_device, backend.copy_to_host

        def copy_to_device(host, dev):
            self.h2d.append(host.nbytes)
            return to_dev(host, dev)

        def copy_to_host(dev, host):
            self.d2h.append(host.nbytes)
            return to_host(dev, host)

        monkeypatch.setattr(backend, "copy_to_device", copy_to_device)
        monkeypatch.setattr(backend, "copy_to_host", copy_to_host)


def device_double(buf):
    """Double the data on the device side with the backend's own array type."""
    dev = buf.device
    if buf.backend.name == "metal":
        buf.device = dev * 2
    elif buf.backend.name == "cuda":
        tmp = dev.copy_to_host()
        dev.copy_to_device(tmp * 2)  # a device-side write, as a kernel would make
    else:
        dev *= 2


def test_round_trip_host_device_host(any_backend, monkeypatch):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    buf = pdc.UnifiedBuffer.from_array(data, backend=any_backend)
    spy = CopySpy(monkeypatch, buf.backend)
    device_double(buf)
    assert np.array_equal(buf.host, data * 2)
    if buf.backend.zero_copy:
        assert buf.stats == pdc.TransferStats() and spy.h2d == spy.d2h == []
    else:
        assert (buf.stats.h2d_count, buf.stats.d2h_count) == (len(spy.h2d), len(spy.d2h)) == (1, 1)
        assert buf.stats.h2d_bytes == sum(spy.h2d) == data.nbytes
        assert buf.stats.d2h_bytes == sum(spy.d2h) == data.nbytes


def test_no_transfer_when_nothing_changed(any_backend, monkeypatch):
    buf = pdc.UnifiedBuffer.from_array(np.ones(8, np.int32), backend=any_backend)
    spy = CopySpy(monkeypatch, buf.backend)
    buf.sync_to_device()
    buf.sync_to_device()
    buf.sync_to_host()
    buf.read_host()
    expected = 0 if buf.backend.zero_copy else 1
    assert len(spy.h2d) == buf.stats.h2d_count == expected
    assert len(spy.d2h) == buf.stats.d2h_count == 0


def test_state_machine(any_backend):
    buf = pdc.UnifiedBuffer((4,), np.float64, backend=any_backend)
    if buf.backend.zero_copy:
        buf.device
        assert buf.state is BufferState.IN_SYNC
        return
    assert buf.state is BufferState.HOST_NEWER
    buf.sync_to_device()
    assert buf.state is BufferState.IN_SYNC
    buf.device
    assert buf.state is BufferState.DEVICE_NEWER
    buf.read_host()
    assert buf.state is BufferState.IN_SYNC
    buf.host
    assert buf.state is BufferState.HOST_NEWER


def test_read_host_is_read_only(any_backend):
    buf = pdc.UnifiedBuffer.from_array(np.arange(3), backend=any_backend)
    view = buf.read_host()
    with pytest.raises(ValueError):
        view[0] = 1


def test_many_round_trips_count_exactly(any_backend, monkeypatch):
    buf = pdc.UnifiedBuffer.from_array(np.zeros(16, np.float32), backend=any_backend)
    spy = CopySpy(monkeypatch, buf.backend)
    for _ in range(5):
        buf.device
        buf.host[0] += 1
    assert buf.to_numpy()[0] == 5
    if not buf.backend.zero_copy:
        assert buf.stats.h2d_count == len(spy.h2d) == 5
        assert buf.stats.d2h_count == len(spy.d2h) == 5
    buf.reset_stats()
    assert buf.stats.total_bytes == 0


@pytest.mark.parametrize(
    ("shape", "dtype", "exc", "message"),
    [
        ((2, -1), np.float32, ValueError, r"\[UnifiedBuffer\] expected non-negative dimensions"),
        ("abc", np.float32, TypeError, r"\[UnifiedBuffer\] expected shape of ints, got 'abc'"),
        ((2.5,), np.float32, TypeError, r"\[UnifiedBuffer\] expected shape of ints"),
        (
            (2,),
            object,
            TypeError,
            r"\[UnifiedBuffer\] expected a numeric or structured dtype, got object",
        ),
        (
            (2,),
            "notadtype",
            TypeError,
            r"\[UnifiedBuffer\] expected a NumPy dtype, got 'notadtype'",
        ),
    ],
)
def test_bad_shapes_and_dtypes_name_the_operation(shape, dtype, exc, message):
    with pytest.raises(exc, match=message):
        pdc.UnifiedBuffer(shape, dtype, backend="cpu")


def test_copy_from_checks_shape_and_dtype(any_backend):
    buf = pdc.UnifiedBuffer((2, 3), np.float32, backend=any_backend)
    with pytest.raises(ValueError, match=r"expected shape \(2, 3\), got \(3, 2\)"):
        buf.copy_from(np.zeros((3, 2), np.float32))
    with pytest.raises(TypeError, match=r"expected dtype float32, got float64"):
        buf.copy_from(np.zeros((2, 3)))
    assert buf.stats.total_bytes == 0  # nothing moved by a rejected write


def test_device_setter_checks_shape(any_backend):
    buf = pdc.UnifiedBuffer((4,), np.float32, backend=any_backend)
    with pytest.raises(
        ValueError, match=r"\[UnifiedBuffer.device\] expected shape \(4,\), got \(5,\)"
    ):
        buf.device = np.zeros(5, np.float32)


def test_freed_buffer_refuses_use():
    buf = pdc.UnifiedBuffer((2,), backend="cpu")
    buf.free()
    with pytest.raises(RuntimeError, match=r"buffer was freed"):
        buf.host


def test_pinned_is_true_only_when_really_page_locked(any_backend):
    buf = pdc.UnifiedBuffer((4,), pinned=True, backend=any_backend)
    really = any_backend == "cuda" and not buf.backend.simulated
    assert buf.pinned is really


@pytest.mark.gpu
def test_pinned_host_memory_is_page_locked_on_a_gpu():
    cuda = pdc.numba_cuda()
    buf = pdc.UnifiedBuffer((1024,), pinned=True, backend="cuda")
    assert buf.pinned
    # numba marks page-locked host arrays it allocated with a pinned memory owner.
    assert "Pinned" in type(buf._host.base).__name__ or cuda.is_cuda_array(buf.device)


@needs_mlx
def test_metal_is_zero_copy():
    buf = pdc.UnifiedBuffer.from_array(np.arange(4, dtype=np.float32), backend="metal")
    buf.host[1] = 42
    # the MLX array sees the host write without any transfer: same memory
    assert float(buf.backend.mx.sum(buf._device).item()) == 0 + 42 + 2 + 3
    assert buf.stats.total_bytes == 0

"""Tier 1/3: launch geometry and kernel launches on the CUDA backend (GPU or simulator)."""

import warnings

import numpy as np
import pytest

import pdc
from tests import kernels_for_tests as k
from tests.markers import needs_mlx


def test_grid_is_computed_from_the_problem_size():
    assert pdc.grid_for(1000, (256,)) == (4,)
    assert pdc.grid_for(1024, (256,)) == (4,)
    assert pdc.grid_for((100, 33), (16, 16)) == (7, 3)


def test_grid_rank_must_match_block():
    with pytest.raises(
        ValueError,
        match=r"expected a problem size with 2 dimension\(s\) to match block=\(16, 16\), got size=\(100,\)",
    ):
        pdc.grid_for((100,), (16, 16))


def test_block_over_1024_threads_is_rejected():
    with pytest.raises(ValueError, match=r"expected at most 1024 threads per block, got 2048"):
        pdc.kernel(block=(64, 32))(k.add)


def test_block_not_a_warp_multiple_warns():
    with pytest.warns(UserWarning, match=r"100 threads, not a multiple of the warp size 32"):
        pdc.kernel(block=100)(k.add)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pdc.kernel(block=128)(k.add)


@pytest.mark.parametrize("bad", [0, -1, (1, 2, 3, 4), 2.0])
def test_malformed_geometry(bad):
    with pytest.raises(ValueError, match=r"\[kernel\] expected block"):
        pdc.kernel(block=bad)(k.add)


@pytest.mark.parametrize("target", ["cuda", "cpu"])
def test_launch_with_size_not_a_multiple_of_block(target):
    x = np.arange(1000, dtype=np.float32)
    out = np.zeros_like(x)
    add = pdc.kernel(block=128, backend=target)(k.add)
    assert add.geometry(1000) == ((8,), (128,))
    add(x, x, out)
    np.testing.assert_array_equal(out, 2 * x)
    assert add.launches == 1


def test_explicit_grid_and_indexing_form():
    x = np.ones(64, np.float32)
    out = np.zeros_like(x)
    add = pdc.kernel(block=32, grid=1)(k.add)
    add(x, x, out)  # one block of 32 threads covers only half
    assert out[:32].sum() == 64 and out[32:].sum() == 0
    add[2, 32](x, x, out)
    assert out.sum() == 128


def test_two_dimensional_launch():
    a = np.arange(70 * 45, dtype=np.float32).reshape(70, 45)
    out = np.zeros_like(a)
    scale = pdc.kernel(block=(16, 16))(k.scale2d)
    assert scale.geometry(a.shape) == ((5, 3), (16, 16))
    scale(a, out, np.float32(3))
    np.testing.assert_array_equal(out, 3 * a)


def test_unified_buffers_are_passed_as_device_arrays(backend):
    if backend == "metal":
        pytest.skip("numba.cuda kernels do not run on the metal backend (MLX arrays)")
    x = pdc.UnifiedBuffer.from_array(np.arange(256, dtype=np.float32), backend=backend)
    out = pdc.UnifiedBuffer((256,), np.float32, backend=backend)
    pdc.kernel(block=64, backend=backend)(k.add)(x, x, out)
    np.testing.assert_array_equal(out.host, 2 * np.arange(256))
    assert out.state is pdc.BufferState.HOST_NEWER
    assert x.stats.h2d_count == 1


def test_kernel_on_metal_backend_is_refused():
    add = pdc.kernel(block=32, backend="metal")(k.add)
    with pytest.raises(ValueError, match=r"expected backend 'cuda' or 'cpu'.*got 'metal'"):
        add(np.ones(4), np.ones(4), np.ones(4))


def test_missing_size_is_a_clear_error():
    add = pdc.kernel(block=32)(k.add)
    with pytest.raises(ValueError, match=r"\[add\] expected size=... or an array argument"):
        add(1, 2, 3)


@needs_mlx
def test_buffer_from_another_backend_is_named():
    add = pdc.kernel(block=32, backend="cuda")(k.add)
    buf = pdc.UnifiedBuffer((4,), np.float32, backend="metal")
    with pytest.raises(
        ValueError,
        match=r"\[add\] expected argument 1 on backend 'cuda'.*got a UnifiedBuffer on 'metal'",
    ):
        add(np.ones(4, np.float32), buf, np.ones(4, np.float32))

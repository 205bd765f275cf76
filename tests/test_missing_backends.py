"""A machine without MLX (a GPU node's own Python, a hosted notebook): clear refusals, no crash."""

from __future__ import annotations

import numpy as np
import pytest

import pdc
import pdc.backends
from tests import kernels_for_tests as k


@pytest.fixture
def no_mlx(monkeypatch):
    monkeypatch.setattr(pdc.backends, "available_backends", lambda: ["cuda", "cpu"])
    monkeypatch.setattr(pdc.backends, "_installed", lambda name: name != "metal")


def test_the_metal_ring_engine_is_refused_by_name_where_mlx_is_missing(no_mlx):
    from pdc.ring.engines.base import engine_class

    with pytest.raises(
        ImportError, match=r"\[ring engine\] the metal engine .*available: cuda, cpu"
    ):
        engine_class("metal")
    assert engine_class("cpu").__name__ == "CpuEngine"


def test_a_numba_kernel_on_metal_is_refused_for_what_it_is_even_without_mlx(no_mlx):
    add = pdc.kernel(block=32, backend="metal")(k.add)
    with pytest.raises(ValueError, match=r"expected backend 'cuda' or 'cpu'.*got 'metal'"):
        add(np.ones(4), np.ones(4), np.ones(4))

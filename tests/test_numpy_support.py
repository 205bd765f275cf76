"""numba-cuda 0.30 cannot compile with NumPy 2.5: pdc says so, naming both versions."""

from __future__ import annotations

import numpy as np
import pytest

import pdc
from pdc.backends import cuda as cuda_backend


def test_a_numpy_without_row_stack_is_refused_with_both_versions(monkeypatch):
    monkeypatch.delattr(np, "row_stack", raising=False)  # as NumPy 2.5 has it
    with pytest.raises(RuntimeError, match=r"\[numba_cuda\] numba-cuda 0\.30\.\d+ .*NumPy.*<2\.5"):
        pdc.numba_cuda()


def test_the_supported_numpy_passes_the_check():
    assert hasattr(np, "row_stack")
    cuda_backend._check_numpy_supported()  # raises nothing


def test_the_pin_keeps_numpy_below_the_release_that_removed_row_stack():
    from pathlib import Path

    import tomllib

    meta = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    deps = [d for d in meta["project"]["dependencies"] if d.startswith("numpy")]
    assert deps == ["numpy>=1.26,<2.5"]

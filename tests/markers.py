"""Skip marks shared by several test files."""

from __future__ import annotations

import pytest

import pdc

needs_mlx = pytest.mark.skipif(
    "metal" not in pdc.available_backends(),
    reason="MLX is not installed in this Python (a GPU node's own Python): no metal backend",
)

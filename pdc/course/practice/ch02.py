"""Chapter 2 practice: covering data with a grid of blocks."""

from __future__ import annotations

from . import Wrong, exercise


def blocks_for(n, block):
    return (n + block - 1) // block


@exercise("ch02.blocks", answer=blocks_for)
def _check_blocks(fn):
    for n, block, want in [(1000, 128, 8), (1024, 128, 8), (1, 256, 1), (2049, 1024, 3)]:
        got = fn(n, block)
        if got is None:
            raise Wrong("blocks_for returned None: is it still the stub?")
        if not isinstance(got, int):
            raise Wrong(f"blocks_for({n}, {block}) = {got!r}: a block count must be an int")
        if got == n // block and got != want:
            raise Wrong(
                f"blocks_for({n}, {block}) = {got}: floor division leaves the last "
                f"{n - got * block} elements without a thread; round up"
            )
        if got != want:
            raise Wrong(f"blocks_for({n}, {block}) = {got}, expected {want}")
    return "rounds up, and exact multiples get no extra block"


def grid_2d(width, height, block_x, block_y):
    return ((width + block_x - 1) // block_x, (height + block_y - 1) // block_y)


@exercise("ch02.grid2d", answer=grid_2d)
def _check_grid2d(fn):
    width, height, bx, by = 1920, 1080, 32, 8
    want = (60, 135)
    got = fn(width, height, bx, by)
    if got is None:
        raise Wrong("grid_2d returned None: is it still the stub?")
    got = tuple(got)
    if got == want:
        odd = tuple(fn(100, 30, 16, 16))
        if odd != (7, 2):
            raise Wrong(f"grid_2d(100, 30, 16, 16) = {odd}, expected (7, 2): round both up")
        return "(60, 135) blocks cover a 1920 x 1080 image with 32 x 8 blocks"
    if got == want[::-1]:
        raise Wrong(
            f"grid_2d(1920, 1080, 32, 8) = {got}: x comes first and walks along a row "
            "(the width), y walks down the columns (the height)"
        )
    raise Wrong(f"grid_2d(1920, 1080, 32, 8) = {got}, expected {want}")

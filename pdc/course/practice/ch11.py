"""Chapter 11 practice: programs and masked lanes, a softmax's global traffic, grouped order."""

from __future__ import annotations

from . import Wrong, exercise


def launch_shape(n, block):
    """Programs launched for n elements in blocks of ``block``, and lanes masked off."""
    programs = -(-n // block)  # ceil(n / block): the last program may be partly empty
    return programs, programs * block - n


@exercise("ch11.launch", answer=launch_shape)
def _check_launch(fn):
    for n, block in ((1000, 256), (1024, 256), (1, 128), (257, 256), (98432, 1024)):
        got = fn(n, block)
        if got is None:
            raise Wrong("launch_shape returned None: is it still the stub?")
        want = launch_shape(n, block)
        if tuple(got) != want:
            hint = ""
            if got[0] == n // block and n % block:
                hint = ": n // block drops the last, partial block; round up"
            raise Wrong(f"launch_shape({n}, {block}) = {tuple(got)}, expected {want}{hint}")
    return "ceil(n / BLOCK) programs; the last one masks off the lanes past n"


def softmax_bytes(rows, cols, fused):
    """Bytes of global memory a float32 row softmax moves: three kernels, or one fused."""
    n = rows * cols * 4
    if fused:
        return 2 * n  # read x once, write y once
    # row_max reads x; exp_sum reads x, writes e; normalize reads e, writes y (the row
    # statistics, one float per row, are negligible and left out)
    return 5 * n


@exercise("ch11.traffic", answer=softmax_bytes)
def _check_traffic(fn):
    for rows, cols in ((256, 1000), (1, 1), (4096, 4096)):
        for fused in (True, False):
            got, want = fn(rows, cols, fused), softmax_bytes(rows, cols, fused)
            if got is None:
                raise Wrong("softmax_bytes returned None: is it still the stub?")
            if int(got) != want:
                hint = ": count every array each kernel reads and writes, 4 bytes an element"
                kind = "fused" if fused else "three kernels"
                raise Wrong(f"softmax_bytes({rows}, {cols}, {kind}) = {got}, expected {want}{hint}")
    return "fused: read x and write y once (8 bytes an element); three kernels: 20 bytes, 2.5x more"


def grouped_tile(pid, num_pid_m, num_pid_n, group_m):
    """The tile (pid_m, pid_n) of C that program ``pid`` computes in the grouped order."""
    in_group = group_m * num_pid_n  # programs per group of group_m rows of tiles
    first_m = pid // in_group * group_m
    size_m = min(num_pid_m - first_m, group_m)  # the last group may be shorter
    return first_m + pid % in_group % size_m, pid % in_group // size_m


@exercise("ch11.grouped", answer=grouped_tile)
def _check_grouped(fn):
    for pm, pn, g in ((4, 4, 2), (9, 9, 4), (5, 3, 2), (3, 7, 8), (1, 5, 4)):
        for pid in range(pm * pn):
            got, want = fn(pid, pm, pn, g), grouped_tile(pid, pm, pn, g)
            if got is None:
                raise Wrong("grouped_tile returned None: is it still the stub?")
            if tuple(got) != want:
                hint = ""
                if tuple(got) == divmod(pid, pn):
                    hint = ": that is the row-major order; go down group_m rows of tiles first"
                raise Wrong(
                    f"grouped_tile({pid}, {pm}, {pn}, {g}) = {tuple(got)}, expected {want}{hint}"
                )
    return "every tile exactly once; groups of group_m rows, columns walked inside each group"

"""Chapter 10 practice: sectors per warp (coalescing), and the loads of a tiled kernel."""

from __future__ import annotations

import numpy as np

from . import Wrong, _cuda, exercise

cuda = _cuda.cuda()  # module level: the simulator swaps this name while a kernel runs


def sectors_per_warp(stride, itemsize=4):
    """Distinct 32-byte sectors read by a warp where thread t reads element t * stride."""
    addresses = np.arange(32) * stride * itemsize  # byte offset of each thread's element
    return len(set((addresses // 32).tolist()))  # sectors are aligned 32-byte blocks


@exercise("ch10.sectors", answer=sectors_per_warp)
def _check_sectors(fn):
    for stride, itemsize in ((1, 4), (2, 4), (8, 4), (64, 4), (1, 8), (1, 2), (3, 4), (0, 4)):
        want = sectors_per_warp(stride, itemsize)
        got = fn(stride, itemsize)
        if got is None:
            raise Wrong("sectors_per_warp returned None: is it still the stub?")
        if int(got) != want:
            hint = ""
            if want == 32 and got > 32:
                hint = ": a warp has 32 threads, so it can touch at most 32 sectors"
            elif stride == 0:
                hint = ": every thread reads the same element"
            elif stride == 3:
                hint = ": count distinct sectors, some threads share one"
            raise Wrong(f"sectors_per_warp({stride}, {itemsize}) = {got}, expected {want}{hint}")
    return "1 sector per 8 floats when coalesced, 32 (one per thread) from a stride of 8 floats"


def tiled_matvec_loads(rows, cols, tile):
    """Global loads counted by matvec_tiled for an A of shape (rows, cols)."""
    blocks = -(-rows // tile)
    # every element of A once; x once per block, loaded by all its threads, rowless ones too
    return rows * cols + blocks * cols


def _counted_loads(rows, cols, tile):
    """Run a copy of the chapter's matvec_tiled on (rows, cols) and return its load counter."""
    from numba import float32

    @cuda.jit
    def matvec_tiled(At, x, y, loads):
        xs = cuda.shared.array(tile, float32)
        t = cuda.threadIdx.x
        row = cuda.grid(1)
        acc = float32(0.0)
        my_loads = 0
        for k0 in range(0, x.size, tile):
            xs[t] = float32(0.0)
            if k0 + t < x.size:
                xs[t] = x[k0 + t]
                my_loads += 1
            cuda.syncthreads()
            if row < y.size:
                for k in range(min(tile, x.size - k0)):
                    acc += At[k0 + k, row] * xs[k]
                    my_loads += 1
            cuda.syncthreads()
        if row < y.size:
            y[row] = acc
        cuda.atomic.add(loads, 0, my_loads)

    at = np.ones((cols, rows), np.float32)
    loads = np.zeros(1, np.int64)
    matvec_tiled[-(-rows // tile), tile](
        at, np.ones(cols, np.float32), np.zeros(rows, np.float32), loads
    )
    return int(loads[0])


@exercise("ch10.matvec_loads", answer=tiled_matvec_loads)
def _check_matvec(fn):
    for rows, cols, tile in ((8, 5, 4), (9, 6, 4), (3, 10, 8)):
        want = _counted_loads(rows, cols, tile)
        got = fn(rows, cols, tile)
        if got is None:
            raise Wrong("tiled_matvec_loads returned None: is it still the stub?")
        if int(got) != want:
            hint = ""
            if int(got) == rows * cols + rows * cols // tile or int(got) == rows * cols + -(
                -rows * cols // tile
            ):
                hint = ": x is loaded once per block, and blocks are counted in whole blocks"
            elif int(got) == 2 * rows * cols:
                hint = ": that is the naive kernel; the tiled one loads x once per block"
            raise Wrong(
                f"tiled_matvec_loads({rows}, {cols}, {tile}) = {got}, "
                f"the kernel counted {want}{hint}"
            )
    return "matches the kernel's own counter, including a last block with rowless threads"


def ring_allreduce(buffers, send):
    """Sum P equal-length vectors around a ring; return P arrays, each the total."""
    p = len(buffers)
    seg = [np.array_split(np.array(b, dtype=np.float64), p) for b in buffers]  # seg[i][k]
    # Reduce-scatter: at step s worker i passes on segment (i - s) % p, which its right
    # neighbour adds to its own copy. After p - 1 steps worker i holds the full sum of
    # segment (i + 1) % p.
    for s in range(p - 1):
        arrived = [send(i, seg[i][(i - s) % p]) for i in range(p)]  # all workers at once
        for i in range(p):
            left = (i - 1) % p
            seg[i][(left - s) % p] = seg[i][(left - s) % p] + arrived[left]
    # All-gather: the finished segments travel once around the ring.
    for s in range(p - 1):
        arrived = [send(i, seg[i][(i + 1 - s) % p]) for i in range(p)]
        for i in range(p):
            left = (i - 1) % p
            seg[i][(left + 1 - s) % p] = arrived[left]
    return [np.concatenate(parts) for parts in seg]


class _Ring:
    """The network of the check: worker i can send only to worker (i + 1) % p."""

    def __init__(self, p: int):
        self.p = p
        self.sent = [0] * p  # elements each worker sent
        self.messages = [0] * p

    def send(self, i, data):
        if not isinstance(i, (int, np.integer)) or not 0 <= i < self.p:
            raise Wrong(f"send(i, data): i must be a worker number 0 to {self.p - 1}, got {i!r}")
        arr = np.array(data, dtype=np.float64)  # a copy: what arrives is the receiver's own
        self.sent[int(i)] += arr.size
        self.messages[int(i)] += 1
        return arr


@exercise("ch10.ring_allreduce", answer=ring_allreduce)
def _check_ring(fn):
    rng = np.random.default_rng(3)
    for p, n in ((4, 12), (3, 10), (2, 7)):
        buffers = [rng.integers(-9, 10, n).astype(np.float64) for _ in range(p)]
        before = [b.copy() for b in buffers]
        ring = _Ring(p)
        got = fn([b.copy() for b in buffers], ring.send)
        if got is None:
            raise Wrong("ring_allreduce returned None: is it still the stub?")
        if len(got) != p:
            raise Wrong(f"with {p} workers ring_allreduce returned {len(got)} arrays, expected {p}")
        total = np.sum(before, axis=0)
        for i, g in enumerate(got):
            g = np.asarray(g)
            if g.shape != total.shape or not np.allclose(g, total):
                raise Wrong(
                    f"{p} workers, n = {n}: worker {i} ends with {np.round(g, 3).tolist()}, "
                    f"expected the sum {total.tolist()}"
                    + (
                        ": after the reduce-scatter each worker owns only one summed segment; "
                        "the all-gather passes them around"
                        if g.shape == total.shape and np.isclose(g, total).sum() >= n // p
                        else ""
                    )
                )
        if sum(ring.sent) == 0:
            raise Wrong(
                "the sums are right, but no data went through send(): workers share no memory"
            )
        if n % p == 0:
            ideal = 2 * (p - 1) * n // p
            if max(ring.sent) > ideal:
                raise Wrong(
                    f"{p} workers, n = {n}: a worker sent {max(ring.sent)} values; a ring "
                    f"all-reduce sends 2 (p - 1) / p * n = {ideal} (the whole vector p - 1 times "
                    f"is {(p - 1) * n}): send segments of n / p, not whole vectors"
                )
    return "4, 3 and 2 workers: every worker ends with the sum, sending 2 (p - 1) / p of its vector"

"""Run ``torch.distributed``'s all-reduce on CPU processes, as it would run across GPUs.

Chapter 10's section on many GPUs checks a ring all-reduce the student writes against the
library's own: ``gloo_all_reduce(buffers)`` starts one process per buffer, joins them into a
process group with the **gloo** backend (PyTorch's CPU backend; NCCL is its GPU
counterpart), calls ``torch.distributed.all_reduce`` in every process and returns what each
process holds afterwards. The group meets through a file, so no network port is needed.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

__all__ = ["gloo_all_reduce"]


def _worker(rank: int, world: int, store: str, buffers: list[np.ndarray], results) -> None:
    import torch
    import torch.distributed as dist

    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # the processes talk over loopback
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    try:
        t = torch.from_numpy(buffers[rank].copy())
        dist.all_reduce(t, op=dist.ReduceOp.SUM)  # every rank ends with the sum of all ranks
        results.put((rank, t.numpy()))
    finally:
        dist.destroy_process_group()


def gloo_all_reduce(buffers: list[np.ndarray]) -> list[np.ndarray]:
    """Sum equal-shaped arrays with ``torch.distributed.all_reduce``, one process per array.

    Args:
        buffers: One array per process (rank ``i`` contributes ``buffers[i]``); 2 to 8 of them.

    Returns:
        What each rank holds after the all-reduce, in rank order.

    Raises:
        ValueError: If fewer than 2 or more than 8 buffers are given, or their shapes differ.
    """
    import torch.multiprocessing as mp

    if not 2 <= len(buffers) <= 8:
        raise ValueError(f"[gloo_all_reduce] expected 2 to 8 buffers, got {len(buffers)}")
    shapes = {np.shape(b) for b in buffers}
    if len(shapes) != 1:
        raise ValueError(f"[gloo_all_reduce] expected buffers of one shape, got {sorted(shapes)}")
    store = os.path.join(tempfile.mkdtemp(prefix="gloo-"), "store")
    results = mp.get_context("spawn").SimpleQueue()
    world = len(buffers)
    arrays = [np.ascontiguousarray(b) for b in buffers]
    mp.spawn(_worker, args=(world, store, arrays, results), nprocs=world, join=True)
    got = dict(results.get() for _ in range(world))
    return [got[r] for r in range(world)]

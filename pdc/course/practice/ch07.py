"""Chapter 7 practice: an input pipeline for a device, and the FLOPs of a training step."""

from __future__ import annotations

import numpy as np

from . import Wrong, exercise


def make_pipeline(dataset, device_type):
    """A shuffling loader of 256-sample batches for ``device_type``, and the ``.to()`` kwargs."""
    from torch.utils.data import DataLoader

    cuda = device_type == "cuda"
    # pinned batches let the copy to the GPU be an asynchronous DMA; non_blocking lets it overlap
    loader = DataLoader(dataset, batch_size=256, shuffle=True, pin_memory=cuda)
    return loader, {"non_blocking": cuda}


@exercise("ch07.loader", answer=make_pipeline)
def _check_pipeline(fn):
    import torch
    from torch.utils.data import RandomSampler, TensorDataset

    data = TensorDataset(torch.zeros(1024, 4), torch.zeros(1024, 1))
    for device_type in ("cuda", "cpu"):
        got = fn(data, device_type)
        if not (isinstance(got, tuple) and len(got) == 2):
            raise Wrong(f"make_pipeline(..., {device_type!r}) should return (loader, kwargs)")
        loader, kwargs = got
        if loader.batch_size != 256:
            raise Wrong(f"batch_size is {loader.batch_size}, expected 256")
        if not isinstance(loader.sampler, RandomSampler):
            raise Wrong("the loader does not shuffle: pass shuffle=True")
        if loader.pin_memory != (device_type == "cuda"):
            why = (
                "batches for a CUDA device should be pinned: only from pinned memory can the "
                "copy to the GPU run asynchronously and overlap with compute"
                if device_type == "cuda"
                else "pinning for the CPU only costs page-locked memory (PyTorch ignores it)"
            )
            raise Wrong(f"{device_type}: pin_memory={loader.pin_memory}: {why}")
        if not isinstance(kwargs, dict):
            raise Wrong(
                f"the second value should be a dict of .to() keyword arguments, got {kwargs!r}"
            )
        if device_type == "cuda" and not kwargs.get("non_blocking", False):
            raise Wrong(
                "cuda: from pinned batches, .to(device, non_blocking=True) returns at once and "
                "overlaps the copy with compute: put non_blocking=True in the kwargs"
            )
    return "cuda: pinned batches and non_blocking copies; cpu: neither"


def mlp_flops(batch, d_in, d_hidden, d_out):
    """FLOPs of the matmuls of one forward + backward step of the two-layer MLP."""
    layer1 = 2 * batch * d_in * d_hidden  # one matmul's worth of layer 1
    layer2 = 2 * batch * d_hidden * d_out
    # forward: both layers; backward: both weight gradients and the input gradient of layer 2
    # (it is the gradient of the hidden activations); X is data, so layer 1 has no input gradient
    return 2 * layer1 + 3 * layer2


def _counted(batch, d_in, d_hidden, d_out):
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    w1 = torch.zeros(d_in, d_hidden, requires_grad=True)
    w2 = torch.zeros(d_hidden, d_out, requires_grad=True)
    b1 = torch.zeros(d_hidden, requires_grad=True)
    b2 = torch.zeros(d_out, requires_grad=True)
    with FlopCounterMode(display=False) as counter:
        hidden = torch.relu(torch.zeros(batch, d_in) @ w1 + b1)
        torch.mean((hidden @ w2 + b2) ** 2).backward()
    return counter.get_total_flops()


@exercise("ch07.mlp_flops", answer=mlp_flops)
def _check_flops(fn):
    for shape in ((256, 128, 256, 10), (32, 64, 512, 100), (1, 3, 5, 7)):
        want = _counted(*shape)
        got = fn(*shape)
        if got is None:
            raise Wrong("mlp_flops returned None: is it still the stub?")
        if np.isclose(got, want, rtol=1e-9):
            continue
        b, i, h, o = shape
        l1, l2 = 2 * b * i * h, 2 * b * h * o
        hints = {
            3
            * (
                l1 + l2
            ): "you counted an input gradient for layer 1: X is data, nothing needs dL/dX",
            2 * (l1 + l2): "layer 2 needs its input gradient too (dL/dH feeds layer 1's gradients)",
            l1 + l2: "that is the forward pass only",
            (l1 + l2) // 2: "a multiply-accumulate is 2 FLOPs",
        }
        hint = hints.get(int(got), "compare with the table of matmuls above")
        raise Wrong(f"mlp_flops{shape} = {got}, PyTorch's FlopCounterMode counts {want}: {hint}")
    return "agrees with torch.utils.flop_counter for three shapes"

"""Chapter 9 practice: when a persistent kernel pays off, and a branch-free ring handler."""

from __future__ import annotations

import math

import numpy as np

from pdc import ring

from . import Wrong, exercise


def breakeven(t_launch, t_sync, t_poll):
    """Messages after which the persistent kernel is ahead (math.inf if never)."""
    saved = t_launch + t_sync - t_poll  # what each message saves against launch + sync
    if saved <= 0:
        return math.inf
    return t_launch / saved  # the one launch of the persistent kernel, paid back


@exercise("ch09.breakeven", answer=breakeven)
def _check_breakeven(fn):
    cases = [(5e-6, 1.7e-6, 1e-6), (5e-6, 1.7e-6, 6e-6), (10e-6, 0.0, 10e-6), (1e-3, 1e-5, 1e-6)]
    for args in cases:
        want = breakeven(*args)
        got = fn(*args)
        if got is None:
            raise Wrong("breakeven returned None: is it still the stub?")
        if math.isinf(want):
            if not math.isinf(got):
                raise Wrong(
                    f"breakeven{args} = {got!r}: polling ({args[2]:g} s) costs at least as much "
                    "as launch + sync per message, so the persistent kernel never catches up: "
                    "return math.inf"
                )
            continue
        if not np.isclose(got, want, rtol=1e-9):
            raise Wrong(
                f"breakeven{args} = {got!r}, expected {want:.4g}: per message the persistent "
                "kernel saves t_launch + t_sync - t_poll; how many such savings repay one launch?"
            )
    return "the one launch is repaid after t_launch / (t_launch + t_sync - t_poll) messages"


def clamp01(req, rep):
    """Reply with req.x clamped to [0, 1]."""
    rep.dist = ring.select(req.x < 0.0, 0.0, ring.select(req.x > 1.0, 1.0, req.x))


_REQ = np.dtype([("x", np.float64), ("y", np.float64)])
_REP = np.dtype([("dist", np.float64)])


@exercise("ch09.clamp01", answer=clamp01)
def _check_clamp(fn):
    try:
        kdef = ring.ring_kernel(kernel_id="clamp01", request=_REQ, reply=_REP, queue_size=128)(fn)
    except ring.HandlerError as err:
        raise Wrong(f"the handler is outside the subset every backend compiles: {err}") from err
    batch = np.zeros(100, _REQ)
    batch["x"] = np.random.default_rng(1).uniform(-1, 2, 100)
    with ring.RingKernelRuntime(backend="cpu") as rt:
        rt.launch(kdef)
        rt.send_batch("clamp01", batch)
        out = rt.receive_batch("clamp01", 100, timeout=30)
    order = np.argsort(out.corr_ids)  # message ids count up in the order they were sent
    got = np.asarray(out.records["dist"])[order]
    want = np.clip(batch["x"], 0.0, 1.0)
    bad = np.nonzero(~np.isclose(got, want))[0]
    if bad.size:
        k = int(bad[0])
        raise Wrong(
            f"{bad.size} of 100 replies differ; x = {batch['x'][k]:.3f} gave {got[k]:.3f}, "
            f"expected {want[k]:.3f}"
        )
    return "100 values through a CPU ring kernel, all equal to np.clip(x, 0, 1)"

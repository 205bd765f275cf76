"""The baseline of ``pdc bench ring`` on cuda: one kernel launch per message.

A persistent ring kernel is launched once and serves every message; the pattern it
replaces launches a kernel per message and waits for it. ``launch_per_message`` measures
that pattern with the same handler, for the bench's table.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pdc.ring.engines.cuda import SimMath, cuda_module
from pdc.ring.engines.cuda_kernel import select_device
from pdc.ring.handlers import HandlerSpec

__all__ = ["build_single", "launch_per_message"]


def launch_per_message(spec: HandlerSpec, requests: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Handle each request with a kernel launch of its own, then a synchronize (the baseline).

    Per message: the host writes the request into a mapped slot, launches a one-thread
    kernel that runs the handler (the same device function the ring kernel calls) and
    waits for it on its stream before reading the reply: the launch-per-message pattern a
    persistent ring kernel avoids. Meant for a real GPU (it also runs, slowly, simulated).

    Args:
        spec: The handler (``HandlerSpec.create(fn, request, reply)``).
        requests: Structured array of ``spec.request`` records, one per message.

    Returns:
        ``(replies, codes)``: ``spec.reply`` records and the handler's return values.
    """
    if spec.python:
        raise TypeError("[ring cuda] pure-Python handlers run on the cpu backend only")
    cuda, sim = cuda_module()

    requests = np.asarray(requests)
    if requests.dtype != spec.request:
        raise TypeError(
            f"[launch_per_message] expected requests of dtype {spec.request}, got {requests.dtype}"
        )
    math_impl = SimMath() if sim else math
    handler = cuda.jit(device=True)(spec.build(select_impl=select_device(sim), math_impl=math_impl))
    kernel = build_single(handler)
    req = cuda.mapped_array(1, spec.request)
    rep = cuda.mapped_array(1, spec.reply)
    code = cuda.mapped_array(1, np.int64)
    req_h, rep_h, code_h = (a._ary if sim else a for a in (req, rep, code))
    stream = cuda.stream()  # launches on it never wait for a resident ring kernel
    replies = np.zeros(len(requests), spec.reply)
    codes = np.zeros(len(requests), np.int64)
    for i in range(len(requests)):
        req_h[0] = requests[i]
        rep_h[0] = np.zeros((), spec.reply)
        kernel[1, 1, stream](req, rep, code)
        stream.synchronize()
        replies[i] = rep_h[0]
        codes[i] = code_h[0]
    return replies, codes


def build_single(handler: Any) -> Any:
    """A kernel that runs ``handler`` once on record 0: ``kernel[1, 1](req, rep, code)``.

    Returns a numba CUDA dispatcher: indexed with a launch configuration, then called.
    """

    import numba.cuda

    @numba.cuda.jit
    def handle_once(req, rep, code):
        code[0] = handler(req[0], rep[0])

    return handle_once

"""``pdc bench ring``'s compiled client: the ring's own round trip, from numba code.

The protocol's host side compiled with numba, one message at a time, without the Python
code of ``send`` and ``receive``; timed with the CPU cycle counter (x86 only).
"""

from __future__ import annotations

import functools
import platform
import time
from typing import Any

import numpy as np

from pdc.ring.tools.bench_baselines import _percentiles

__all__ = ["ring_compiled_client"]


@functools.cache
def _compiled_client():
    """A numba-compiled host client: the protocol's host side, one message at a time.

    It shows the ring's own round trip, without the Python code of ``send``/``receive``.
    Round trips are timed with the CPU cycle counter (x86: ``rdtsc``), converted to
    seconds by calibrating against ``time.perf_counter`` over the whole run.
    """
    import numba
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    from pdc.ring import protocol as p
    from pdc.ring.protocol.atomics import load_acquire, store_release

    @intrinsic
    def cycles(typingctx):
        def codegen(context, builder, signature, args):
            fnty = ir.FunctionType(ir.IntType(64), [])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
            return builder.call(fn, [])

        return types.int64(), codegen

    head, tail, lane = p.HEAD + p.LINE, p.TAIL + p.LINE, p.NORMAL
    rep_head, rep_tail, submitted = p.REP_HEAD, p.REP_TAIL, p.SUBMITTED

    @numba.njit(nogil=True)
    def client(ctrl, req_meta, req_slots, rep_meta, rep_slots, first_corr, lat):
        cap = req_meta.shape[1]
        rcap = rep_meta.shape[0]
        for m in range(lat.shape[0]):
            t0 = cycles()
            h = ctrl[head]
            while h - load_acquire(ctrl, tail) >= cap:
                pass
            i = h % cap
            req_slots[lane, i].x = float(m)
            req_meta[lane, i, 0] = first_corr + m
            req_meta[lane, i, 1] = 0
            store_release(ctrl, head, h + 1)
            store_release(ctrl, submitted, ctrl[submitted] + 1)
            t = ctrl[rep_tail]
            while load_acquire(ctrl, rep_head) <= t:
                pass
            j = t % rcap
            ok = rep_meta[j, 0] == first_corr + m and rep_slots[j].y == 2.0 * m
            rep_slots[j].y = 0.0  # consumed reply slots are zeroed (the only field)
            store_release(ctrl, rep_tail, t + 1)
            lat[m] = cycles() - t0
            if not ok:
                return m
        return lat.shape[0]

    @numba.njit
    def now():
        return cycles()

    return client, now


def ring_compiled_client(kernel: Any, n: int) -> dict[str, float] | None:
    """Round trips from compiled code (x86 only: it needs a cycle counter)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    client, now = _compiled_client()
    arrays = kernel.rings.arrays()
    warm = np.zeros(min(n, 200), np.int64)
    kernel.producer.next_id += client(*arrays, kernel.producer.next_id, warm)  # compile and warm up
    kernel.received += len(warm)
    lat = np.zeros(n, np.int64)
    c0, t0 = now(), time.perf_counter()
    done = client(*arrays, kernel.producer.next_id, lat)
    c1, t1 = now(), time.perf_counter()
    kernel.producer.next_id += done
    kernel.received += done
    if done != n:
        raise RuntimeError(f"[bench compiled client] expected {n} matching replies, got {done}")
    seconds_per_cycle = (t1 - t0) / (c1 - c0)
    return {
        **_percentiles((lat * seconds_per_cycle).tolist()),
        "msgs_per_s": n / (t1 - t0),
    }

"""The simulator's fallback for kernels it cannot rewrite: one OS thread per simulated thread.

pdc.grade.simgen turns kernels with barriers into generators from their source. A kernel
whose source is not available (or that reaches a collective some other way) restarts here:
every simulated thread of a block gets an OS thread, and a baton (one semaphore per thread)
lets exactly one run at a time, so a run stays deterministic.
"""

from __future__ import annotations

import threading

from pdc.grade import simwarp

_STACK_BYTES = 256 * 1024


class Abort(BaseException):
    """Raised in simulated threads when another thread of the block failed."""


def run_block(L, fn, args, ctxs, order):
    """Run one block with an OS thread per simulated thread, handing a baton between them."""

    def body(c):
        c.sem.acquire()
        try:
            if not L.abort:
                L.call_thread(fn, args, c)
            c.state = "done"
        except Abort:
            c.state = "done"
        except BaseException as e:  # reported by the scheduler
            c.exc = e
            c.state = "error"
        finally:
            L.main_sem.release()

    threads = []
    old = threading.stack_size()
    threading.stack_size(_STACK_BYTES)
    try:
        for c in ctxs:
            c.sem = threading.Semaphore(0)
            th = threading.Thread(target=body, args=(c,), daemon=True)
            th.start()
            threads.append(th)
    finally:
        threading.stack_size(old)
    try:
        while True:
            for c in order:
                if c.state != "ready":
                    continue
                L.cur = c
                c.sem.release()
                L.main_sem.acquire()
                if c.state == "error":
                    raise c.exc
            if not any(c.state == "wait" for c in ctxs):
                break
            if not simwarp.resolve_warps(L, ctxs):
                L.resolve_block(ctxs)
    finally:
        L.abort = True
        for c in ctxs:
            if c.state in ("ready", "wait"):
                c.sem.release()
        for th in threads:
            th.join()
        L.abort = False

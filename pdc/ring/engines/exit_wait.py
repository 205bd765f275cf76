"""Workers the interpreter must wait for at exit: an engine whose loop cannot be interrupted.

The metal engine's worker spends its batches inside MLX evaluations, which nothing can
interrupt; the interpreter must not finalize while one runs. Such an engine holds itself
(``hold``) while its worker runs and releases itself (``release``) when the worker ends; at
exit every held engine is asked to leave and waited for.
"""

from __future__ import annotations

import atexit
import sys
import time
import weakref
from typing import TYPE_CHECKING

from pdc.ring.protocol import TERMINATE

if TYPE_CHECKING:
    from pdc.ring.engines.base import Engine

__all__ = ["hold", "release"]

_RUNNING: weakref.WeakSet[Engine] = weakref.WeakSet()


@atexit.register
def _finish_workers() -> None:
    """At exit, ask every MLX worker to leave and wait until it has, however long.

    An MLX evaluation cannot be interrupted, and a worker thread still inside one when the
    interpreter finalizes ends the process with SIGSEGV (measured with MLX 0.32.4: a batch
    of a handler looping 2**20 times, exited or terminated mid-batch). A worker checks
    ``TERMINATE`` between batches, and a batch is bounded (handler loops are bounded at
    definition), so this wait ends. Registered when this module is first imported (by
    ``pdc.ring.engines.metal``, after ``pdc.ring.runtime``'s hook), so it runs before that hook
    (atexit runs last-registered first).
    """
    engines = list(_RUNNING)
    for engine in engines:
        engine.rings.ctrl[TERMINATE] = 1  # what RingHost.request_terminate writes
        engine.wake()
    t0 = time.monotonic()
    told = False
    for engine in engines:
        while not engine.join(1.0):
            if not told:
                told = True
                print(
                    f"[ring metal] waiting for kernel {engine.handler.name!r} to finish its "
                    "MLX batch before the interpreter exits (an MLX evaluation cannot be "
                    "interrupted)",
                    file=sys.stderr,
                )
    if told:
        print(f"[ring metal] stopped after {time.monotonic() - t0:.1f} s", file=sys.stderr)


def hold(engine: Engine) -> None:
    """Wait for ``engine``'s worker at exit (call before it starts)."""
    _RUNNING.add(engine)


def release(engine: Engine) -> None:
    """Its worker has ended: nothing to wait for."""
    _RUNNING.discard(engine)

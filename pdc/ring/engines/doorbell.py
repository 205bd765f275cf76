"""A doorbell for the cpu ring loop: an idle loop naps in ``poll`` until a send rings it.

An idle loop that only sleeps must wake up now and then to look for work, and each
wake-up costs the machine tens of microseconds (on a virtual machine, more): a loop that
naps 1 ms costs 2-3 % of a core doing nothing. A loop that has been idle for a while
(``pdc.ring.engines.cpu``'s back-off has run its course) instead arms the doorbell: it sets the
``NAPPING`` control word, looks for work once more, and waits in ``poll(2)`` on the read
end of a pipe for at most ``NAP_MS``. A host that publishes anything (a message, a state
change, a drop request) and sees ``NAPPING`` writes one byte into the pipe.

Both sides follow the store-fence-load pattern (Dekker's): the loop stores ``NAPPING``
then loads the heads; the host stores a head then loads ``NAPPING``, each with a full
fence in between, so at least one of them sees the other's store and no wake-up is
missed. Should one ever be, the nap still ends after ``NAP_MS``.

The pipe's file descriptor and its ``pollfd`` live in the ``DOORBELL`` line of the
control block, so the compiled loop (shared by every kernel with the same handler) finds
its own kernel's pipe. POSIX only, as is the cpu loop (``usleep``, ``sched_yield``).
"""

from __future__ import annotations

import os
import weakref

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

from pdc.ring.protocol import (
    ACTIVE,
    DOORBELL,
    HEAD,
    LANES,
    LINE,
    NAPPING,
    S_ACTIVE,
    SKIP,
    STATE,
    TAIL,
    TERMINATE,
)
from pdc.ring.protocol.atomics import load_acquire, store_release
from pdc.ring.protocol.jitcache import keep

__all__ = ["NAP_MS", "Doorbell", "nap", "napping"]

NAP_MS = 200  # longest nap; a wake-up that was missed (none should be) costs this much
_POLLIN = 0x0001
_ARMED = DOORBELL + 1  # 1 when the line holds a pipe (the pollfd at DOORBELL)
_SCRATCH = DOORBELL + 2  # where the loop reads the bytes written into the pipe

# libc's functions by name, linked when the loop is compiled (not ctypes: see cpu_prims).
# Pointers are passed as integers (LP64: the same registers).
_poll = types.ExternalFunction("poll", types.int32(types.uintp, types.uint64, types.int32))
_read = types.ExternalFunction("read", types.intp(types.int32, types.uintp, types.uintp))


@intrinsic
def _fence_full(typingctx):
    """A sequentially consistent fence: orders a store before a later load (``mfence``)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        builder.fence("seq_cst")
        return context.get_dummy_value()

    return sig, codegen


@numba.njit(nogil=True, inline="always")
def _work(ctrl):
    """True when the loop has something to do (so it must not nap)."""
    if load_acquire(ctrl, TERMINATE) != 0:
        return True
    active = load_acquire(ctrl, ACTIVE) != 0
    if active != (ctrl[STATE] == S_ACTIVE):
        return True
    for lane in range(LANES):
        t = ctrl[TAIL + lane * LINE]
        if load_acquire(ctrl, SKIP + lane * LINE) > t:
            return True
        if active and load_acquire(ctrl, HEAD + lane * LINE) > t:
            return True
    return False


@numba.njit(nogil=True, inline="always")
def nap(ctrl, max_ms):
    """Nap until the doorbell rings or ``max_ms`` pass (returns at once when there is work).

    Returns False when this control block has no doorbell (the caller sleeps instead).
    """
    if ctrl[_ARMED] != 1:
        return False
    store_release(ctrl, NAPPING, 1)
    _fence_full()
    if not _work(ctrl):
        _poll(ctrl.ctypes.data + DOORBELL * 8, 1, max_ms)
    store_release(ctrl, NAPPING, 0)
    fd = ctrl[DOORBELL] & 0xFFFFFFFF
    while _read(fd, ctrl.ctypes.data + _SCRATCH * 8, 8) == 8:  # drain (non-blocking)
        pass
    return True


@keep
@numba.njit
def _napping(ctrl):
    _fence_full()  # the caller's stores (a head, a flag) before this load
    return load_acquire(ctrl, NAPPING)


def napping(ctrl: np.ndarray) -> bool:
    """True when the loop of ``ctrl`` naps (after a full fence: see the module docstring)."""
    return _napping(ctrl) != 0


def _close(fds: tuple[int, int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


class Doorbell:
    """The pipe of one kernel's doorbell, armed in its control block.

    Args:
        ctrl: The kernel's control block; its ``DOORBELL`` line gets the pipe.
    """

    def __init__(self, ctrl: np.ndarray):
        self.ctrl = ctrl
        r, w = os.pipe()
        os.set_blocking(r, False)
        os.set_blocking(w, False)
        self._w = w
        ctrl[DOORBELL] = r | (_POLLIN << 32)  # struct pollfd {int fd; short events, revents}
        ctrl[_ARMED] = 1
        # Closed with the engine; the loop has left by then (the engine joins it first or
        # is collected only once its thread, which holds it, has ended).
        self._finalizer = weakref.finalize(self, _close, (r, w))

    def ring(self) -> None:
        """Wake the loop if it naps (cheap when it does not: one fenced load)."""
        if _napping(self.ctrl):
            try:
                os.write(self._w, b"\x01")
            except (BlockingIOError, OSError):  # full (a wake-up is pending) or closed
                pass

    def close(self) -> None:
        """Disarm and close the pipe (call once the loop has left)."""
        self.ctrl[_ARMED] = 0
        self._finalizer()

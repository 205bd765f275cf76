"""The device side of the ring protocol: the consumer loop every compiled backend runs.

``make_serve`` builds it from a handler and a few memory primitives (``Primitives``), so
the same loop is compiled by ``njit`` (cpu), by ``cuda.jit`` (cuda) or run as plain Python
(a Python handler, tests). The byte map and ordering rules are in ``pdc.ring.protocol``.

What an idle pass costs. On cuda the rings are host memory read over the bus (about a
microsecond a read on PCIe), so the loop keeps every word only it writes (the tails, the
reply head, the counters, the heartbeat, the acknowledged state) in registers, read once
when ``serve`` starts. An idle pass then reads one host word: the head of one lane, the
two lanes in turn, with a plain (relaxed) load. Only when a head shows work does it issue
one acquire fence (``fence``) before reading the messages. The control words
(``TERMINATE``, ``ACTIVE``, the drop floors) are read every ``check_every`` idle passes,
at once after a ``pause`` that slept, and on every pass that found work (once per burst).
The heartbeat is a plain store of the register's count, without a fence: it only shows
that the loop is alive. ``tests/test_ring_cuda.py`` checks this on the real-GPU kernel's
PTX.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from pdc.ring.protocol import (
    ACTIVE,
    DISP_DROPPED,
    DISP_PROCESSED,
    DROPPED,
    ERR_CODE,
    ERR_COUNT,
    HEAD,
    HEARTBEAT,
    LANES,
    LINE,
    PARK,
    PROCESSED,
    REP_HEAD,
    REP_TAIL,
    S_ACTIVE,
    S_DEACTIVATED,
    S_TERMINATING,
    SKIP,
    STATE,
    TAIL,
    TERMINATE,
)

__all__ = ["CHECK_EVERY", "Primitives", "make_serve"]

# Idle passes between two reads of the control words (more often after a pause that slept).
CHECK_EVERY = 64


class Primitives(NamedTuple):
    """The memory operations of one backend, as functions its compiler can call.

    Its fields, in order:

    - ``load(ctrl, i) -> int``: acquire load of a control word.
    - ``store(ctrl, i, v)``: release store (every earlier write visible first).
    - ``poll(ctrl, i) -> int``: plain (relaxed) load, for the idle poll of a head.
    - ``fence()``: acquire fence, after a poll that saw work.
    - ``put(ctrl, i, v)``: plain store without a fence (the heartbeat).
    - ``pause(ctrl, idle) -> int``: after a pass without work (spin hint, yield, nap...);
      returns nonzero when it slept, so that the control words are read at once. Must not
      block for long.
    """

    load: Callable
    store: Callable
    poll: Callable
    fence: Callable
    put: Callable
    pause: Callable


def make_serve(
    handler: Callable, prims: Primitives, burst: int = 256, check_every: int = CHECK_EVERY
) -> Callable:
    """Build the consumer loop (the device side of the protocol).

    The returned function is plain Python that numba can compile (``njit``, or
    ``cuda.jit(device=True)``) and that also runs as is.

    Args:
        handler: ``handler(req_record, rep_record, state_record) -> int`` (0 = ok); a
            handler without state ignores its third argument.
        prims: The backend's memory primitives.
        burst: Messages handled per pass before the loop publishes and polls again.
        check_every: Idle passes between two reads of the control words.

    Returns:
        ``serve(ctrl, req_meta, req_slots, rep_meta, rep_slots, idle_limit, state) -> int``
        (``state``: a 1-element array whose record is the handler's third argument; any
        1-element array for a handler without state) that runs until ``TERMINATE`` is set
        (returns 1), until ``PARK`` is set (returns 3: every word it owns is already
        stored, so a later call goes on where this one stopped) or until ``idle_limit``
        consecutive passes found no work (returns 2 when this call handled or dropped
        messages before, 0 when it did nothing; call it again to go on serving).
    """
    load, store, poll, fence, put, pause = prims
    check_every = max(1, int(check_every))

    def serve(ctrl, req_meta, req_slots, rep_meta, rep_slots, idle_limit, state):
        cap = req_meta.shape[1]
        rcap = rep_meta.shape[0]
        # Words only this loop writes: read once, then kept in registers.
        t0 = ctrl[TAIL]
        t1 = ctrl[TAIL + LINE]
        rh = ctrl[REP_HEAD]
        processed = ctrl[PROCESSED]
        dropped = ctrl[DROPPED]
        errs = ctrl[ERR_COUNT]
        beat = ctrl[HEARTBEAT]
        ack = ctrl[STATE]
        rt = load(ctrl, REP_TAIL)  # the reply tail last seen (read again when full)
        h0 = t0  # the heads last seen
        h1 = t1
        active = 0
        turn = 0  # the lane whose head the next idle pass polls
        countdown = 0  # passes until the control words are read again
        idle = 0
        worked = 0
        while True:
            work = 0
            polled = 0
            if countdown <= 0:
                countdown = check_every
                if load(ctrl, TERMINATE) != 0:
                    store(ctrl, STATE, S_TERMINATING)
                    return 1
                if load(ctrl, PARK) != 0:  # everything it owns is published: leave as is
                    return 3
                active = load(ctrl, ACTIVE)
                want = S_DEACTIVATED
                if active != 0:
                    want = S_ACTIVE
                if ack != want:
                    ack = want
                    store(ctrl, STATE, want)
                # Drop requests are served even while paused (dropping is not processing).
                for lane in range(LANES):
                    t = t1 if lane == 1 else t0
                    floor = load(ctrl, SKIP + lane * LINE)
                    if floor > t:
                        h = load(ctrl, HEAD + lane * LINE)
                        n = 0
                        while t < floor and t < h:
                            req_meta[lane, t % cap, 1] = DISP_DROPPED
                            t += 1
                            n += 1
                        if n > 0:
                            dropped += n
                            store(ctrl, DROPPED, dropped)
                            store(ctrl, TAIL + lane * LINE, t)
                            work += n
                            if lane == 1:
                                t1 = t
                            else:
                                t0 = t
                if active != 0:  # both heads on this pass
                    h0 = poll(ctrl, HEAD)
                    h1 = poll(ctrl, HEAD + LINE)
                    polled = 1
            countdown -= 1
            beat += 1
            put(ctrl, HEARTBEAT, beat)
            if active != 0:
                if polled == 0 and t0 >= h0 and t1 >= h1:  # nothing known: poll one head
                    if turn == 0:
                        h0 = poll(ctrl, HEAD)
                    else:
                        h1 = poll(ctrl, HEAD + LINE)
                    turn = 1 - turn
                if t0 < h0 or t1 < h1:
                    fence()  # acquire: the messages were written before their head
                    if rh - rt >= rcap:
                        rt = load(ctrl, REP_TAIL)
                    room = rcap - (rh - rt)
                    done = 0
                    errors = 0
                    last = 0
                    while done < room and done < burst:
                        if t0 >= h0:  # the high lane is looked at before every message
                            h = poll(ctrl, HEAD)
                            if h > h0:
                                fence()
                                h0 = h
                        if t0 < h0:
                            lane = 0
                            t = t0
                            t0 += 1
                        elif t1 < h1:
                            lane = 1
                            t = t1
                            t1 += 1
                        else:
                            break
                        i = t % cap
                        j = rh % rcap
                        code = handler(req_slots[lane, i], rep_slots[j], state[0])
                        rep_meta[j, 0] = req_meta[lane, i, 0]
                        rep_meta[j, 1] = code
                        req_meta[lane, i, 1] = DISP_PROCESSED
                        rh += 1
                        done += 1
                        if code != 0:
                            errors += 1
                            last = code
                    if done > 0:
                        # Counters first, the reply head last: a host that sees a reply
                        # also sees it counted (processed, errors) and its slot freed.
                        processed += done
                        store(ctrl, PROCESSED, processed)
                        if errors > 0:
                            errs += errors
                            store(ctrl, ERR_CODE, last)
                            store(ctrl, ERR_COUNT, errs)
                        store(ctrl, TAIL, t0)
                        store(ctrl, TAIL + LINE, t1)
                        store(ctrl, REP_HEAD, rh)
                    work += done
            if work > 0:
                idle = 0
                worked = 2
                countdown = 0  # while busy, the control words are read every pass
            else:
                idle += 1
                if idle >= idle_limit:
                    return worked
                if pause(ctrl, idle) != 0:
                    countdown = 0  # it slept: look at the control words now

    return serve


def ignore_state(handler: Callable) -> Callable:
    """``handler(req, rep)`` as the three-argument handler ``make_serve`` calls."""

    def handle(req, rep, state):
        return handler(req, rep)

    return handle

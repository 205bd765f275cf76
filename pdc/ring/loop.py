"""The device side of the ring protocol: the consumer loop every compiled backend runs.

``make_serve`` builds it from four primitives (a handler, an atomic load, a release store
and a pause), so the same loop is compiled by ``njit`` (cpu), by ``cuda.jit`` (cuda) or run
as plain Python (tests). The byte map and ordering rules are in ``pdc.ring.protocol``.
"""

from __future__ import annotations

from collections.abc import Callable

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

__all__ = ["make_serve"]


def make_serve(
    handler: Callable,
    load: Callable,
    store: Callable,
    pause: Callable,
    burst: int = 256,
) -> Callable:
    """Build the consumer loop (the device side of the protocol) from four primitives.

    The returned function is plain Python that numba can compile (``njit``, or
    ``cuda.jit(device=True)``) and that also runs as is.

    Args:
        handler: ``handler(req_record, rep_record) -> int`` (0 = ok).
        load: ``load(ctrl, index) -> int``: acquire load of a control word.
        store: ``store(ctrl, index, value)``: release store of a control word.
        pause: ``pause(ctrl, idle_passes)``: called after a pass that found no work (spin
            hint, ``sched_yield``, a nap its doorbell ends...); must not block for long.
        burst: Messages handled per pass before the loop checks the control words again.

    Returns:
        ``serve(ctrl, req_meta, req_slots, rep_meta, rep_slots, idle_limit) -> int`` that
        runs until ``TERMINATE`` is set (returns 1) or until ``idle_limit`` consecutive
        passes found no work (returns 2 when this call handled or dropped messages before,
        0 when it did nothing; call it again to go on serving).
    """

    def serve(ctrl, req_meta, req_slots, rep_meta, rep_slots, idle_limit):
        cap = req_meta.shape[1]
        rcap = rep_meta.shape[0]
        idle = 0
        worked = 0
        while True:
            if load(ctrl, TERMINATE) != 0:
                store(ctrl, STATE, S_TERMINATING)
                return 1
            active = load(ctrl, ACTIVE)
            want = S_DEACTIVATED
            if active != 0:
                want = S_ACTIVE
            if ctrl[STATE] != want:
                store(ctrl, STATE, want)
            store(ctrl, HEARTBEAT, ctrl[HEARTBEAT] + 1)
            work = 0
            # Drop requests are served even while paused (dropping is not processing).
            for lane in range(LANES):
                t = ctrl[TAIL + lane * LINE]
                floor = load(ctrl, SKIP + lane * LINE)
                if floor > t:
                    h = load(ctrl, HEAD + lane * LINE)
                    n = 0
                    while t < floor and t < h:
                        req_meta[lane, t % cap, 1] = DISP_DROPPED
                        t += 1
                        n += 1
                    if n > 0:
                        store(ctrl, DROPPED, ctrl[DROPPED] + n)
                        store(ctrl, TAIL + lane * LINE, t)
                        work += n
            if active != 0:
                # Handle up to `burst` messages, then publish tails and heads once.
                rh = ctrl[REP_HEAD]
                room = rcap - (rh - load(ctrl, REP_TAIL))
                t0 = ctrl[TAIL]
                t1 = ctrl[TAIL + LINE]
                h0 = t0
                h1 = t1
                done = 0
                errors = 0
                last = 0
                while done < room and done < burst:
                    if t0 >= h0:  # the high lane is looked at before every message
                        h0 = load(ctrl, HEAD)
                    if t0 < h0:
                        lane = 0
                        t = t0
                        t0 += 1
                    else:
                        if t1 >= h1:
                            h1 = load(ctrl, HEAD + LINE)
                        if t1 < h1:
                            lane = 1
                            t = t1
                            t1 += 1
                        else:
                            break
                    i = t % cap
                    j = rh % rcap
                    code = handler(req_slots[lane, i], rep_slots[j])
                    rep_meta[j, 0] = req_meta[lane, i, 0]
                    rep_meta[j, 1] = code
                    req_meta[lane, i, 1] = DISP_PROCESSED
                    rh += 1
                    done += 1
                    if code != 0:
                        errors += 1
                        last = code
                if done > 0:
                    # Counters first, the reply head last: a host that sees a reply also
                    # sees it counted (processed, errors) and its request slot freed.
                    store(ctrl, PROCESSED, ctrl[PROCESSED] + done)
                    if errors > 0:
                        store(ctrl, ERR_CODE, last)
                        store(ctrl, ERR_COUNT, ctrl[ERR_COUNT] + errors)
                    store(ctrl, TAIL, t0)
                    store(ctrl, TAIL + LINE, t1)
                    store(ctrl, REP_HEAD, rh)
                work += done
            if work > 0:
                idle = 0
                worked = 2
            else:
                idle += 1
                if idle >= idle_limit:
                    return worked
                pause(ctrl, idle)

    return serve

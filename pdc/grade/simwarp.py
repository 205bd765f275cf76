"""Warp collectives of the simulator: syncwarp, shuffles, votes and activemask.

A warp is 32 consecutive threads of a block (x, then y, then z). The scheduler runs every
thread until it exits or waits at a collective, then calls ``resolve_warps``. Lanes waiting at
the same warp call (``syncwarp`` calls count as one) are resolved together once every lane
named in the mask has arrived there or exited. A lane that reads a value from a lane which
is not in the mask, has exited, or is not part of the block gets garbage, and the read is a
"warp" finding: on a GPU that value is undefined.
"""

from __future__ import annotations

import numpy as np

from pdc.grade import simgen, simmem

WARP = 32


def _garbage_like(v):
    return simmem.garbage(np.asarray(v).dtype)


def _line(site) -> str:
    return "" if site is None else f"line {simgen.line_in(*site)}"


def resolve_warps(L, ctxs) -> bool:
    """Resolve the warp collectives that can complete; False if there were none waiting."""
    stuck = None
    pending = False
    for w0 in range(0, len(ctxs), WARP):
        lanes = ctxs[w0 : w0 + WARP]
        groups: dict = {}
        for c in lanes:
            if c.state == "wait" and c.op[0] == "warp":
                key = "syncwarp" if c.op[1] == "syncwarp" else (c.op[1], c.op[2])
                groups.setdefault(key, []).append(c)
        for group in groups.values():
            pending = True
            mask = 0
            for c in group:
                mask |= c.op[3]
            here = {id(c) for c in group}
            late = [
                c
                for i, c in enumerate(lanes)
                if mask >> i & 1 and id(c) not in here and c.state == "wait"
            ]
            if group[0].op[1] == "activemask" or not late:
                _resolve(L, lanes, group, mask)
                return True
            stuck = stuck or (group, mask, late)
    if stuck is None:
        return pending
    group, mask, late = stuck  # lanes named in the mask wait elsewhere: they never arrive
    L.cur = group[0]
    L.finding(
        "warp",
        f"{group[0].op[1]} at {_line(group[0].op[2])} names lanes in its mask "
        f"that wait at another call ({_line(late[0].op[2])})",
        where=False,
    )
    _resolve(L, lanes_of(ctxs, group[0]), group, mask)
    return True


def lanes_of(ctxs, c):
    w0 = c.tid // WARP * WARP
    return ctxs[w0 : w0 + WARP]


def _resolve(L, lanes, group, mask):
    kind = group[0].op[1]
    by_lane = {c.tid % WARP: c for c in group}
    for c in group:
        if not (c.op[3] >> (c.tid % WARP)) & 1 and kind != "activemask":
            L.cur = c
            L.finding(
                "warp",
                f"{kind} called by a lane that its own mask {c.op[3]:#010x} leaves out",
                site=c.op[2],
            )
    if kind == "syncwarp":
        gens = {c.tid: c.gen for c in group}
        for c in group:
            c.seen.update(gens)
        for c in group:
            c.gen += 1
            c.result = None
    elif kind == "activemask":
        active = sum(1 << lane for lane in by_lane)
        for c in group:
            c.result = active
    elif kind in ("all", "any", "ballot", "eq"):
        preds = [bool(c.op[4]) for c in group]
        ballot = sum(1 << (c.tid % WARP) for c in group if c.op[4])
        value = {
            "all": int(all(preds)),
            "any": int(any(preds)),
            "ballot": ballot,
            "eq": int(len(set(preds)) == 1),
        }[kind]
        for c in group:
            c.result = value
    else:
        for c in group:
            c.result = _shuffle(L, c, kind, by_lane, mask, len(lanes))
    for c in group:
        c.state = "ready"


def _shuffle(L, c, kind, by_lane, mask, nlanes):
    lane, value, arg = c.tid % WARP, c.op[4], int(c.op[5])
    if kind == "up":
        src = lane - arg
        if src < 0:
            return value
    elif kind == "down":
        src = lane + arg
        if src >= WARP:
            return value
    elif kind == "xor":
        src = lane ^ arg
        if src >= WARP:
            return value
    else:
        src = arg % WARP
    other = by_lane.get(src)
    if other is not None and mask >> src & 1:
        return other.op[4]
    why = (
        "not part of the block"
        if src >= nlanes
        else "not in the mask"
        if not mask >> src & 1
        else "not at this call (exited or elsewhere)"
    )
    L.cur = c
    L.finding(
        "warp",
        f"shfl ({kind}) reads lane {src}, which is {why}: its value is undefined",
        site=c.op[2],
    )
    return _garbage_like(value)

"""Warp intrinsics: ``syncwarp``, shuffles, votes, ``match_*_sync``, ``activemask``.

They follow the CUDA programming guide's rules per lane: a lane passes its own ``mask``; it
must be in that mask, and every lane the mask names that has not exited must execute the
same intrinsic with it (converged), or the behaviour is undefined (a "warp" finding). A lane
that exited is no such lane: the guide's words are "all non-exited threads named in mask",
so a full mask after an early return is fine. A shuffle that reads a lane which is not
active (one that exited included), or not in the reading lane's mask, gets an undefined
value: reported only if that value reaches memory, an address or a branch.
"""

from __future__ import annotations

import numpy as np

from pdc.sim.frontend import dtype_of
from pdc.sim.machine import WARP, Frame, check_defined, values, vec

FULL = 0xFFFFFFFF


# -- masks ----------------------------------------------------------------------------------
def _bits(m) -> np.ndarray:
    """Per warp: the active lanes of bool vector ``m`` as a 32-bit mask (int64)."""
    w = m.reshape(-1, WARP).astype(np.int64)
    return (w << np.arange(WARP, dtype=np.int64)).sum(axis=1)


def _mask_check(fr: Frame, mask, what: str, site: str):
    """Check each active lane's mask; returns (its mask as int64 per thread, active bits)."""
    S = fr.S
    mk = vec(mask, S.N).astype(np.int64) & FULL
    act = _bits(fr.m)[S.warp_of]
    lanes = fr.lanes
    own = (mk[lanes] >> S.lane[lanes]) & 1
    if not own.all():
        k = lanes[int(np.argmin(own))]
        S.finding(
            "warp",
            f"{what}: the lane is not in its own mask {int(mk[k]):#x}",
            k,
            site,
            count=int((own == 0).sum()),
        )
    gone = _bits(~S.alive)[S.warp_of[lanes]]  # exited (or never launched): not waited for
    missing = mk[lanes] & ~act[lanes] & ~gone
    # The lanes a mask names that are here must pass that same mask.
    others = mk.reshape(-1, WARP)[S.warp_of[lanes]] != mk[lanes][:, None]  # (lane, lane j)
    other = (others.astype(np.int64) << np.arange(WARP, dtype=np.int64)).sum(axis=1)
    other &= mk[lanes] & act[lanes]
    for bad, why in ((missing, "are not here (they wait at other code)"), (other, "pass")):
        if not bad.any():
            continue
        i = int(np.argmax(bad != 0))
        k = lanes[i]
        miss = [j for j in range(WARP) if (int(bad[i]) >> j) & 1]
        if why == "pass":
            why = f"pass another mask ({int(mk[S.warp_of[k] * WARP + miss[0]]):#x})"
        S.finding(
            "warp",
            f"{what} with mask {int(mk[k]):#x}: lanes {miss[:4]}{'...' if len(miss) > 4 else ''}"
            f" named in the mask {why}",
            k,
            site,
            count=int((bad != 0).sum()),
        )
    return mk, act


def syncwarp(b, e, sig, gets, kws, site, line, tgt):
    g = gets[0] if gets else None

    def sw(fr: Frame):
        S = fr.S
        mask = g(fr)[0] if g is not None else np.int64(FULL)
        mk, _ = _mask_check(fr, mask, "syncwarp()", site)
        pg = S.joined()
        S.fences += 1
        warps = np.unique(S.warp_of[fr.lanes])
        S.wgen = S.wgen.copy()
        S.wgen[warps] += 1
        # Each lane passes its own mask (two half-warps may sync apart at one call): lanes
        # i and j are ordered when both are here and each names the other.
        names = np.zeros((warps.size, WARP), dtype=np.int64)
        row = np.searchsorted(warps, S.warp_of[fr.lanes])
        names[row, S.lane[fr.lanes]] = mk[fr.lanes]
        named = ((names[:, :, None] >> np.arange(WARP)) & 1).astype(bool)  # (warp, i, j)
        both = named & named.transpose(0, 2, 1)
        gen = S.wgen[warps][:, None, None]
        pg[warps] = np.where(both, gen, pg[warps])
        # A whole-warp barrier ends a stretch of the span (pdc.sim.work): a tree whose last
        # levels, in one warp, wait at syncwarp() instead of syncthreads() keeps them short.
        whole = fr.lanes[(mk[fr.lanes] & FULL) == FULL]
        if whole.size:
            S.spans.barrier(S.operations(), whole)
        return None, None

    return sw


def shuffle(kind):
    def make(b, e, sig, gets, kws, site, line, tgt):
        dt = dtype_of(sig.return_type)

        def shfl(fr: Frame):
            S = fr.S
            (mask, value, arg, *rest), us = values(gets, fr)
            width = int(np.asarray(rest[0]).flat[0]) if rest else WARP
            mk, act = _mask_check(fr, mask, f"{kind}()", site)
            S.shuffles.add(fr.lanes)
            lane = S.lane
            a = vec(arg, S.N).astype(np.int64)
            base = (lane // width) * width
            if kind == "shfl_sync":
                src = base + (a % width)
            elif kind == "shfl_up_sync":
                src = np.where(lane - a >= base, lane - a, lane)
            elif kind == "shfl_down_sync":
                src = np.where(lane + a < base + width, lane + a, lane)
            else:
                src = lane ^ a
                src = np.where(src // width == lane // width, src, lane)
            src = np.clip(src, 0, WARP - 1)
            gsrc = S.warp_of * WARP + src
            v = vec(value, S.N)
            out = v[gsrc].astype(dt, copy=False)
            ok = ((act >> src) & 1).astype(bool) & ((mk >> src) & 1).astype(bool)
            u = ~ok
            bad = u[fr.lanes]
            if bad.any():
                S.undef_from.add("shuffle")
            if bad.any() and not S.undef_origin:  # the first undefined value's origin
                k = fr.lanes[int(np.argmax(bad))]
                S.undef_origin = (
                    f"{kind}() by lane {int(lane[k])} from lane {int(src[k])}, which is not in "
                    f"its mask {int(mk[k]):#x} or not here, {site}"
                )
            if us[1] is not None:
                u = u | us[1][gsrc]
            return out, (u if u[fr.lanes].any() else None)

        return shfl

    return make


def vote(kind):
    def make(b, e, sig, gets, kws, site, line, tgt):
        dt = dtype_of(sig.return_type)

        def vote(fr: Frame):
            S = fr.S
            (mask, pred), us = values(gets, fr)
            mk, act = _mask_check(fr, mask, f"{kind}()", site)
            check_defined(fr, us[1], f"the value of {kind}()", site)
            p = vec(pred, S.N)
            if kind == "eq_sync":
                p0 = p.reshape(-1, WARP)
                eq = np.ones(S.N, dtype=bool)
                lanes = fr.lanes
                for j in range(WARP):  # all lanes in the mask agree with lane j's value
                    inm = ((mk >> j) & 1).astype(bool) & ((act >> j) & 1).astype(bool)
                    other = p0[:, j][S.warp_of]
                    eq &= ~inm | (other == p)
                del lanes
                return eq.astype(dt), None
            bits = _bits(p != 0)[S.warp_of] & mk & act
            if kind == "ballot_sync":
                return bits.astype(dt), None
            if kind == "any_sync":
                return (bits != 0).astype(dt), None
            return (bits == (mk & act)).astype(dt), None

        return vote

    return make


def match(all_):
    def make(b, e, sig, gets, kws, site, line, tgt):
        def match(fr: Frame):
            S = fr.S
            (mask, value), us = values(gets, fr)
            mk, act = _mask_check(
                fr, mask, "match_all_sync()" if all_ else "match_any_sync()", site
            )
            check_defined(fr, us[1], "the value of a match", site)
            v = vec(value, S.N).reshape(-1, WARP)
            same = v[:, :, None] == v[:, None, :]  # (warps, lane, other lane)
            bits = (same.astype(np.int64) << np.arange(WARP, dtype=np.int64)).sum(axis=2)
            bits = bits.reshape(-1) & mk & act
            if not all_:
                return bits.astype(np.uint32), None
            full = bits == (mk & act)
            return (np.where(full, mk & act, 0).astype(np.uint32), full.astype(np.int32)), None

        return match

    return make


def activemask(b, e, sig, gets, kws, site, line, tgt):
    return lambda fr: (_bits(fr.m)[fr.S.warp_of].astype(np.uint32), None)


def lanemask_lt(b, e, sig, gets, kws, site, line, tgt):
    return lambda fr: (((np.int64(1) << fr.S.lane) - 1).astype(np.uint32), None)

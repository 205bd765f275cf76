"""A compiled ``call`` for the cpu backend: one message in, its reply out, in one C call.

From Python, ``send`` and ``receive`` cost microseconds (struct packing, memoryviews, the
reply's bookkeeping) while the ring loop itself answers in a fraction of one. For each
pair of message dtypes this module generates a numba ``njit`` function

    ``call(dl, v0, v1, ...) -> (code, corr, status, (r0, r1, ...))``

that does the host side of the protocol in compiled code: it takes the message's
correlation id from the descriptor, writes the request slot, release-stores the lane's
head, polls the reply head up to ``d[D_POLLS]`` times and, when the next reply is this
message's, reads it and frees its slot. ``code`` says what happened: 2 = replied (``corr``,
``status`` and the tuple of reply fields follow), 1 = sent as ``corr`` but its reply is not next
(another reply is ahead, the loop is napping, or the polls ran out: the caller waits the
generic way), 0 = the lane is full, -1 = a value does not fit its field, -2 = the loop has
terminated, -3 = a producer of the generic path is at work (nothing written and no id
taken for 0 to -3: the caller goes the generic way, which waits, drops or raises the right
error).

numba is not a library that hand-written code should replace; what no library does is
the pairing of our ring layout with one unboxing of plain scalars: numba types and unboxes
an int in tens of nanoseconds but a structured array in hundreds, so the function takes
the rings' addresses as ints (in the int64 descriptor ``d``) and the field values as
scalars. Every argument costs the Python caller a few tens of nanoseconds (a round trip
from Python is about two microseconds), so the first one, ``dl``, carries three: the
descriptor's address ``d`` (8-byte aligned), the lane in bit 0 and ``locked`` in bit 1
(``FastCall.arg`` packs them); the poll count is a descriptor word. The reply fields come
back as one inner tuple, the ``Reply``'s values as they are.

Who may touch the rings. The function holds the GIL while it runs (it runs for
microseconds), so no Python thread interleaves with it; what it must not do is step into
the middle of another thread's Python code on the rings. Consumers are kept out by the
kernel's consumer lock, which the caller holds. Producers of the generic path hold the
producer lock and raise ``d[D_SENDING]`` while they work; the function returns -3 when it
is raised (``locked`` set skips that test, for a caller that holds the producer lock
itself). So the common call takes one lock, not two, and the correlation ids, one counter
in ``d[D_NEXT]``, are never handed out twice.

An interrupt (Ctrl-C) is only raised between Python bytecodes, never inside the C call.
The reply the call took off the ring is also copied into the descriptor's hold buffer and
its id into ``d[D_HELD]``; the caller clears ``D_HELD`` once the reply object exists, and
puts a held reply back in the stash when an interrupt lands in between: nothing is lost.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Mapping
from typing import Any

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

from pdc.ring.protocol import (
    D_CAP,
    D_CTRL,
    D_HELD,
    D_HELD_STATUS,
    D_HOLD,
    D_NEXT,
    D_POLLS,
    D_QMETA,
    D_RCAP,
    D_REP,
    D_REQ,
    D_RMETA,
    D_SENDING,
    DESC_WORDS,
    HEAD,
    LINE,
    NAPPING,
    REP_HEAD,
    REP_TAIL,
    S_TERMINATED,
    STATE,
    SUBMITTED,
    TAIL,
    Rings,
    fields_by_offset,
)
from pdc.ring.protocol.atomics import ld, ld_acq, peek, poke, spin_hint, st, st_rel
from pdc.ring.protocol.jitcache import keep

__all__ = ["D_HELD", "D_HELD_STATUS", "POLLS", "FastCall", "fast_call"]

# Most fields of a message (request or reply) the compiled call is made for. Its compile
# time grows with the fields (measured here, 2 cores: about 0.8 s for 16 fields, 2.9 s for
# 128, 6.6 s for 256) while it saves microseconds per call; larger messages take the
# generic path, and a kernel's launch time stays that of its loop.
MAX_FIELDS = 64

# Polls of the reply head inside one call (a few microseconds) before the caller falls
# back to the generic wait, which spins, yields and sleeps.
POLLS = 20_000


def _fields(dtype: np.dtype) -> Mapping[str, Any]:
    return dtype.fields or {}


def _supported(dtype: np.dtype) -> bool:
    """True when every field is an int (1-8 bytes) or a float (4 or 8 bytes)."""
    fields: Mapping[str, Any] = dtype.fields or {}
    return bool(fields) and all(
        (f[0].kind in "iu") or (f[0].kind == "f" and f[0].itemsize in (4, 8))
        for f in fields.values()
    )


@intrinsic
def _integral(typingctx, value):
    """True (a compile-time constant) when ``value`` is typed as an integer or a bool."""
    res = isinstance(value, (types.Integer, types.Boolean))

    def codegen(context, builder, sig, args):
        return context.get_constant(types.boolean, res)

    return types.boolean(value), codegen


@intrinsic
def _numeric(typingctx, value):
    """True (a compile-time constant) when ``value`` is typed as a real number or a bool."""
    res = isinstance(value, (types.Integer, types.Boolean, types.Float))

    def codegen(context, builder, sig, args):
        return context.get_constant(types.boolean, res)

    return types.boolean(value), codegen


def _check(i: int, dt: np.dtype) -> str:
    """Compiled test that value ``v{i}`` fits field type ``dt`` (else ``bad``: the generic path).

    The type tests are resolved when numba specialises for the arguments' types: a float
    given for an int field goes the generic way, which raises its TypeError. The tests are
    one branch-free line per field, and one return follows them all, so that the function
    grows linearly with the number of fields (a return per field, each building the whole
    reply tuple, made numba's compile time grow with its square: 13 s for 64 fields).
    """
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return f"    bad |= (not integral(v{i})) | (v{i} < {info.min}) | (v{i} > {info.max})\n"
    out = f"    bad |= not numeric(v{i})\n"
    if dt.itemsize == 4:
        big = float(np.finfo(np.float32).max)
        out += f"    bad |= (abs(v{i}) > {big!r}) & (abs(v{i}) < np.inf)\n"
    return out


def _source(req: np.dtype, rep: np.dtype) -> tuple[str, dict[str, Any]]:
    """Python source of ``call`` for one pair of ring dtypes, and its namespace."""
    ns: dict[str, Any] = {
        "np": np,
        "ld": ld,
        "ld_acq": ld_acq,
        "st": st,
        "st_rel": st_rel,
        "spin_hint": spin_hint,
        "integral": _integral,
        "numeric": _numeric,
        "poke_u8": poke(np.dtype(np.uint8)),
        "peek_u8": peek(np.dtype(np.uint8)),
    }
    rq = fields_by_offset(req)
    rp = fields_by_offset(rep)
    zeros = []
    for i, name in enumerate(rp):
        dt = _fields(rep)[name][0]
        ns[f"R{i}"] = numba.from_dtype(dt)
        ns[f"peek{i}"] = peek(dt)
        zeros.append(f"R{i}(0)")
    zero = ", ".join(zeros)
    args = ", ".join(f"v{i}" for i in range(len(rq)))
    src = [
        f"def call(dl, {args}):\n",
        f"    zero = ({zero},)\n",
        "    d = dl & ~7\n",
        "    lane = dl & 1\n",
        "    locked = dl & 2\n",
        "    bad = False\n",
    ]
    for i, name in enumerate(rq):
        dt = _fields(req)[name][0]
        ns[f"poke{i}"] = poke(dt)
        src.append(_check(i, dt))
    src.append(
        "    if bad:\n"
        f"        return (-1, 0, 0, zero)\n"
        # A producer of the generic path is between its reads and writes: leave it be.
        f"    if not locked and ld(d + {D_SENDING * 8}) != 0:\n"
        f"        return (-3, 0, 0, zero)\n"
        f"    c = ld(d + {D_CTRL * 8})\n"
        f"    if ld_acq(c + {STATE * 8}) == {S_TERMINATED}:\n"
        f"        return (-2, 0, 0, zero)\n"
        f"    hw = c + ({HEAD} + lane * {LINE}) * 8\n"
        "    h = ld(hw)\n"
        f"    cap = ld(d + {D_CAP * 8})\n"
        f"    if h - ld_acq(hw + {(TAIL - HEAD) * 8}) >= cap:\n"
        f"        return (0, 0, 0, zero)\n"
        # The message's id: taken only now that it is certain to be written.
        f"    corr = ld(d + {D_NEXT * 8})\n"
        f"    st(d + {D_NEXT * 8}, corr + 1)\n"
        "    k = lane * cap + h % cap\n"
        f"    base = ld(d + {D_REQ * 8}) + k * {req.itemsize}\n"
    )
    for i, name in enumerate(rq):
        off = _fields(req)[name][1]
        src.append(f"    poke{i}(base + {off}, v{i})\n")
    src.append(
        f"    m = ld(d + {D_QMETA * 8}) + k * 16\n"
        "    st(m, corr)\n"
        "    st(m + 8, 0)\n"
        f"    t = ld(c + {REP_TAIL * 8})\n"
        "    st_rel(hw, h + 1)\n"
        f"    st(c + {SUBMITTED * 8}, ld(c + {SUBMITTED * 8}) + 1)\n"
        # A napping loop needs its wake-up: the caller sends it and waits the generic way.
        f"    if ld_acq(c + {NAPPING * 8}) != 0:\n"
        f"        return (1, corr, 0, zero)\n"
        "    n = 0\n"
        f"    polls = ld(d + {D_POLLS * 8})\n"
        f"    while ld_acq(c + {REP_HEAD * 8}) <= t:\n"
        "        n += 1\n"
        "        if n > polls:\n"
        f"            return (1, corr, 0, zero)\n"
        "        spin_hint()\n"
        f"    j = t % ld(d + {D_RCAP * 8})\n"
        f"    rm = ld(d + {D_RMETA * 8}) + j * 16\n"
        "    if ld(rm) != corr:\n"
        f"        return (1, corr, 0, zero)\n"
        "    status = ld(rm + 8)\n"
        f"    base = ld(d + {D_REP * 8}) + j * {rep.itemsize}\n"
    )
    outs = []
    for i, name in enumerate(rp):
        off = _fields(rep)[name][1]
        src.append(f"    r{i} = peek{i}(base + {off})\n")
        outs.append(f"r{i}")
    src.append(
        f"    hold = ld(d + {D_HOLD * 8})\n"
        f"    for b in range({rep.itemsize}):\n"
        "        poke_u8(hold + b, peek_u8(base + b))\n"
        "        poke_u8(base + b, 0)\n"
        f"    st(d + {D_HELD * 8}, corr)\n"
        f"    st(d + {D_HELD_STATUS * 8}, status)\n"
        f"    st_rel(c + {REP_TAIL * 8}, t + 1)\n"
        f"    return (2, corr, status, ({', '.join(outs)},))\n"
    )
    return "".join(src), ns


_CACHE: dict[tuple[np.dtype, np.dtype], Any] = {}
_CACHE_LOCK = threading.Lock()


def _compiled(req: np.dtype, rep: np.dtype) -> Any:
    """The ``call`` for these message types (one dispatcher per key in a process, kept on
    disk by ``pdc.ring.protocol.jitcache``; numba compiles it on the first call)."""
    key = (req, rep)
    with _CACHE_LOCK:  # one dispatcher per key, whichever thread asks first
        call = _CACHE.get(key)
        if call is None:
            src, ns = _source(req, rep)
            ns["__name__"] = __name__  # numba rebuilds a kept function's globals from it
            # Kept by its source and its dtypes: the fields' types are in ``ns``, not in the
            # source (two replies of one layout, int64 and float64 fields, share the text).
            exec(compile(src, f"<pdc.ring.host.fast {req} -> {rep}>", "exec"), ns)
            call = _CACHE[key] = keep(numba.njit(ns["call"]), "fast call", src, req, rep)
    return call


class FastCall:
    """The compiled ``call`` of one kernel's rings, with its descriptor and hold buffer.

    Attributes:
        call: The compiled function (see the module docstring).
        addr: The address of the descriptor (``arg`` packs it with a lane for ``call``).
        values: ``values(fields)``: the request values in ring order from a dict of every
            field (raises KeyError when one is missing).
        hold: One reply record: the bytes of the last reply ``call`` took.
        words: The descriptor as int64 items (``words[D_HELD]``: the held reply's id).
        refused: What numba raises for an argument it cannot take (before running).
        polls: Polls of the reply head per call (``POLLS``; the descriptor's ``D_POLLS``).
    """

    HELD = D_HELD

    def __init__(self, rings: Rings):
        self.rings = rings  # keeps the memory the descriptor points at alive
        d = np.zeros(DESC_WORDS, np.int64)
        self.hold = np.zeros(1, rings.reply_dtype)
        d[D_CTRL] = rings.ctrl.ctypes.data
        d[D_QMETA] = rings.req_meta.ctypes.data
        d[D_REQ] = rings.req_slots.ctypes.data
        d[D_RMETA] = rings.rep_meta.ctypes.data
        d[D_REP] = rings.rep_slots.ctypes.data
        d[D_CAP] = rings.capacity
        d[D_RCAP] = rings.reply_capacity
        d[D_HOLD] = self.hold.ctypes.data
        d[D_POLLS] = POLLS
        self.d = d
        self.addr = int(d.ctypes.data)
        if self.addr & 7:  # numpy aligns int64 data; the lane and flag bits need it
            raise RuntimeError(
                f"[fast_call] expected an 8-byte aligned descriptor, got {self.addr:#x}"
            )
        self.words = d.data.cast("B").cast("q")
        self.call = _compiled(rings.request_dtype, rings.reply_dtype)
        names = fields_by_offset(rings.request_dtype)
        self.names: tuple[str, ...] = tuple(names)
        getter = operator.itemgetter(*names)
        self.values: Callable[[dict], tuple] = (
            getter if len(names) > 1 else (lambda fields: (getter(fields),))
        )
        self.refused = (TypeError, ValueError, OverflowError, numba.core.errors.NumbaError)

    @property
    def polls(self) -> int:
        return self.words[D_POLLS]

    @polls.setter
    def polls(self, value: int) -> None:
        self.words[D_POLLS] = value

    def arg(self, lane: int, locked: bool = False) -> int:
        """``call``'s first argument: the descriptor's address, ``lane`` and ``locked``."""
        return self.addr | lane | (2 if locked else 0)

    def entry(self) -> Callable[..., tuple] | None:
        """numba's native entry point of ``call`` for plain Python ints and floats, or None.

        ``call(arg, *values)`` with an ``int`` for every int field and a ``float`` for
        every float field, without the dispatcher's type resolution (a few hundred
        nanoseconds per call). The caller must pass exactly those types: the wrapper
        converts, it does not check. None when numba offers no entry point.
        """
        fields = _fields(self.rings.request_dtype)
        sig = (types.int64,) + tuple(
            types.float64 if fields[n][0].kind == "f" else types.int64 for n in self.names
        )
        try:
            self.call.compile(sig)
            return self.call.overloads[sig].entry_point
        except (AttributeError, KeyError, numba.core.errors.NumbaError):
            return None

    def held(self) -> tuple[int, int, np.void] | None:
        """The reply a call took and nobody was handed (interrupted), and forget it."""
        corr = self.words[D_HELD]
        if not corr:
            return None
        self.words[D_HELD] = 0
        return corr, self.words[D_HELD_STATUS], self.hold[0].copy()


def fast_call(rings: Rings, python_handler: bool) -> FastCall | None:
    """The compiled ``call`` for a cpu kernel's rings, or None where it does not apply.

    It applies to compiled handlers (a Python handler's loop holds the GIL anyway) whose
    request and reply fields are all ints or 4- and 8-byte floats, at most ``MAX_FIELDS``
    of each.
    """
    if python_handler:
        return None
    if max(len(rings.request_dtype.names or ()), len(rings.reply_dtype.names or ())) > MAX_FIELDS:
        return None
    if not (_supported(rings.request_dtype) and _supported(rings.reply_dtype)):
        return None
    return FastCall(rings)

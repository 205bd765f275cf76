"""Compiled host fast paths of the cpu backend: one message in, one reply out, one C call each.

``send``, ``receive`` and ``call`` in Python cost microseconds (struct packing, memoryviews,
NumPy scalars); the ring itself answers in a fraction of that. For each pair of message
dtypes this module generates numba ``njit(nogil=True)`` functions that take the field
values as plain scalars and do the whole host side of the protocol in compiled code:

* ``push(d, lane, corr, v0, v1, ...)``: check the lane, write the slot, release-store the head;
* ``pop(d)``: acquire-load the reply head, read and zero the slot, release-store the tail;
* ``call(d, lane, corr, spin, v0, ...)``: push, poll for the reply up to ``spin`` times,
  and pop it when it is the one asked for.

They take one int64 descriptor array ``d`` (the addresses of the rings and a few counters)
instead of the five ring arrays: numba types and unboxes a plain int64 array quickly, a
structured array slowly. A reply that ``pop`` takes off the ring is counted as received and
copied to a hold buffer (``d[D_HELD]`` = its id) inside the same C call, so an interrupt
(Ctrl-C) can only land before the reply left the ring or after it is held: the caller puts
a held reply back in the stash (``RingKernel._unhold``) and nothing is lost or counted twice.

Only kernels whose fields are all ints (1-8 bytes) or floats (4 or 8 bytes) get fast paths.
A value that does not fit its field (a float for an int field, out of range) makes the
compiled function return -1 before it writes anything, and one numba cannot take at all
raises before it runs: either way the caller goes the generic way, which raises its error.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from pdc.ring.cpu import _spin_hint
from pdc.ring.protocol import (
    HEAD,
    LINE,
    REP_HEAD,
    REP_TAIL,
    S_TERMINATED,
    STATE,
    SUBMITTED,
    TAIL,
    Rings,
    fields_by_offset,
)
from pdc.ring.replies import (
    D_CAP,
    D_CTRL,
    D_HOLD,
    D_QMETA,
    D_RCAP,
    D_REP,
    D_REQ,
    D_RMETA,
)

__all__ = ["FastHost", "fast_host", "supported"]

_I64 = ir.IntType(64)


def _addr(context, builder, sig, args, i, llty):
    a = context.cast(builder, args[i], sig.args[i], types.int64)
    return builder.inttoptr(a, llty.as_pointer())


@intrinsic
def _ld(typingctx, addr):
    """Plain int64 load from an address (words only this side writes)."""

    def codegen(context, builder, sig, args):
        return builder.load(_addr(context, builder, sig, args, 0, _I64))

    return types.int64(addr), codegen


@intrinsic
def _ld_acq(typingctx, addr):
    """int64 ``load atomic acquire`` from an address (words the other side publishes)."""

    def codegen(context, builder, sig, args):
        return builder.load_atomic(_addr(context, builder, sig, args, 0, _I64), "acquire", 8)

    return types.int64(addr), codegen


@intrinsic
def _st(typingctx, addr, value):
    """Plain int64 store to an address."""

    def codegen(context, builder, sig, args):
        val = context.cast(builder, args[1], sig.args[1], types.int64)
        builder.store(val, _addr(context, builder, sig, args, 0, _I64))
        return context.get_dummy_value()

    return types.void(addr, value), codegen


@intrinsic
def _st_rel(typingctx, addr, value):
    """int64 ``store atomic release`` to an address (publishes what was written before)."""

    def codegen(context, builder, sig, args):
        val = context.cast(builder, args[1], sig.args[1], types.int64)
        builder.store_atomic(val, _addr(context, builder, sig, args, 0, _I64), "release", 8)
        return context.get_dummy_value()

    return types.void(addr, value), codegen


def _poke_of(nbty: types.Type) -> Any:
    """An intrinsic ``poke(addr, value)`` storing ``value`` as ``nbty`` at ``addr``."""

    @intrinsic
    def poke(typingctx, addr, value):
        def codegen(context, builder, sig, args):
            ptr = _addr(context, builder, sig, args, 0, context.get_data_type(nbty))
            val = context.cast(builder, args[1], sig.args[1], nbty)
            context.pack_value(builder, nbty, val, ptr)
            return context.get_dummy_value()

        return types.void(addr, value), codegen

    return poke


def _peek_of(nbty: types.Type) -> Any:
    """An intrinsic ``peek(addr)`` loading an ``nbty`` from ``addr``."""

    @intrinsic
    def peek(typingctx, addr):
        def codegen(context, builder, sig, args):
            ptr = _addr(context, builder, sig, args, 0, context.get_data_type(nbty))
            return context.unpack_value(builder, nbty, ptr)

        return nbty(addr), codegen

    return peek


_POKE: dict[np.dtype, Any] = {}
_PEEK: dict[np.dtype, Any] = {}


def _poke(dt: np.dtype) -> Any:
    if dt not in _POKE:
        _POKE[dt] = _poke_of(numba.from_dtype(dt))
    return _POKE[dt]


def _peek(dt: np.dtype) -> Any:
    if dt not in _PEEK:
        _PEEK[dt] = _peek_of(numba.from_dtype(dt))
    return _PEEK[dt]


def supported(dtype: np.dtype) -> bool:
    """True when every field is an int (1-8 bytes) or a float (4 or 8 bytes)."""
    fields = dtype.fields or {}
    return all(
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
    """Compiled test that value ``v{i}`` fits field type ``dt`` (else the generic path).

    The type tests are resolved when numba specialises for the arguments' types: a float
    given for an int field, or a complex, goes the generic way (which raises TypeError).
    """
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return (
            f"    if not integral(v{i}):\n        return -1\n"
            f"    if v{i} < {info.min} or v{i} > {info.max}:\n        return -1\n"
        )
    out = f"    if not numeric(v{i}):\n        return -1\n"
    if dt.itemsize == 4:
        big = float(np.finfo(np.float32).max)
        out += f"    if abs(v{i}) > {big!r} and abs(v{i}) < np.inf:\n        return -1\n"
    return out


def _source(req: np.dtype, rep: np.dtype) -> tuple[str, dict[str, Any]]:
    """Python source of push/pop/call for one dtype pair, and its namespace."""
    ns: dict[str, Any] = {
        "np": np,
        "ld": _ld,
        "ld_acq": _ld_acq,
        "st": _st,
        "st_rel": _st_rel,
        "spin_hint": _spin_hint,
        "integral": _integral,
        "numeric": _numeric,
        "poke_u8": _poke(np.dtype(np.uint8)),
        "peek_u8": _peek(np.dtype(np.uint8)),
    }
    rq = fields_by_offset(req)
    rp = fields_by_offset(rep)
    args = ", ".join(f"v{i}" for i in range(len(rq)))
    zeros = []
    for i, name in enumerate(rp):
        dt, _ = (rep.fields or {})[name][:2]
        ns[f"R{i}"] = numba.from_dtype(dt)
        ns[f"peek{i}"] = _peek(dt)
        zeros.append(f"R{i}(0)")
    zero = ", ".join(zeros) + ("," if len(zeros) == 1 else "")
    push = [f"def push(d, lane, corr, {args}):\n"]
    for i, name in enumerate(rq):
        dt, off = (req.fields or {})[name][:2]
        ns[f"poke{i}"] = _poke(dt)
        push.append(_check(i, dt))
    push.append(
        "    c = ld(d + 0)\n"
        f"    if ld_acq(c + {STATE * 8}) == {S_TERMINATED}:\n"
        "        return -2\n"
        f"    hw = c + ({HEAD} + lane * {LINE}) * 8\n"
        "    h = ld(hw)\n"
        "    cap = ld(d + 40)\n"
        f"    if h - ld_acq(hw + {(TAIL - HEAD) * 8}) >= cap:\n"
        "        return 0\n"
        "    k = lane * cap + h % cap\n"
        f"    base = ld(d + 16) + k * {req.itemsize}\n"
    )
    for i, name in enumerate(rq):
        off = (req.fields or {})[name][1]
        push.append(f"    poke{i}(base + {off}, v{i})\n")
    push.append(
        "    m = ld(d + 8) + k * 16\n"
        "    st(m, corr)\n"
        "    st(m + 8, 0)\n"
        "    st_rel(hw, h + 1)\n"
        f"    st(c + {SUBMITTED * 8}, ld(c + {SUBMITTED * 8}) + 1)\n"
        "    return 1\n"
    )
    pop = [
        "def pop(d):\n"
        "    c = ld(d + 0)\n"
        f"    t = ld(c + {REP_TAIL * 8})\n"
        f"    if ld_acq(c + {REP_HEAD * 8}) <= t:\n"
        f"        return (0, 0, 0, {zero})\n"
        "    j = t % ld(d + 48)\n"
        f"    base = ld(d + 32) + j * {rep.itemsize}\n"
    ]
    outs = []
    for i, name in enumerate(rp):
        off = (rep.fields or {})[name][1]
        pop.append(f"    r{i} = peek{i}(base + {off})\n")
        outs.append(f"r{i}")
    out = ", ".join(outs) + ("," if len(outs) == 1 else "")
    pop.append(
        "    rm = ld(d + 24) + j * 16\n"
        "    corr = ld(rm)\n"
        "    status = ld(rm + 8)\n"
        "    hold = ld(d + 56)\n"
        f"    for b in range({rep.itemsize}):\n"
        "        poke_u8(hold + b, peek_u8(base + b))\n"
        "        poke_u8(base + b, 0)\n"
        "    st(d + 64, corr)\n"
        "    st(d + 72, status)\n"
        "    st(d + 80, ld(d + 80) + 1)\n"
        f"    st_rel(c + {REP_TAIL * 8}, t + 1)\n"
        f"    return (2, corr, status, {out})\n"
    )
    call = (
        f"def call(d, lane, corr, spin, {args}):\n"
        f"    p = push(d, lane, corr, {args})\n"
        "    if p != 1:\n"
        f"        return (p, 0, 0, {zero})\n"
        "    c = ld(d + 0)\n"
        f"    t = ld(c + {REP_TAIL * 8})\n"
        "    n = 0\n"
        f"    while ld_acq(c + {REP_HEAD * 8}) <= t:\n"
        "        n += 1\n"
        "        if n > spin:\n"
        f"            return (1, 0, 0, {zero})\n"
        "        spin_hint()\n"
        "    if ld(ld(d + 24) + (t % ld(d + 48)) * 16) != corr:\n"
        f"        return (1, 0, 0, {zero})\n"
        "    return pop(d)\n"
    )
    return "".join(push) + "\n" + "".join(pop) + "\n" + call, ns


_CACHE: dict[tuple[np.dtype, np.dtype], tuple[Any, Any, Any]] = {}


def _compiled(req: np.dtype, rep: np.dtype) -> tuple[Any, Any, Any]:
    key = (req, rep)
    if key not in _CACHE:
        src, ns = _source(req, rep)
        exec(compile(src, f"<pdc.ring.fast {req} -> {rep}>", "exec"), ns)
        jit = numba.njit(nogil=True)
        push = jit(ns["push"])
        ns["push"] = push
        pop = jit(ns["pop"])
        ns["pop"] = pop
        _CACHE[key] = (push, pop, jit(ns["call"]))
    return _CACHE[key]


class FastHost:
    """The compiled push/pop/call of one kernel's rings, and its descriptor ``d``.

    Attributes:
        d: int64 descriptor (``D_*`` words); ``d[D_RECEIVED]`` is the kernel's
            ``received`` counter and ``d[D_HELD]`` the id of a held reply (0: none).
        addr: The address of ``d``, passed to the compiled functions (numba takes a
            plain int several times faster than an array).
        hold: One reply record: the bytes of the last reply ``pop`` took.
        push, pop, call: The compiled functions (see the module docstring).
        words: ``d`` as a memoryview of int64 (cheaper item stores than NumPy's).
    """

    def __init__(self, rings: Rings, d: np.ndarray):
        self.rings = rings  # keeps the memory that ``d`` points at alive
        self.d = d
        self.hold = np.zeros(1, rings.reply_dtype)
        d[D_CTRL] = rings.ctrl.ctypes.data
        d[D_QMETA] = rings.req_meta.ctypes.data
        d[D_REQ] = rings.req_slots.ctypes.data
        d[D_RMETA] = rings.rep_meta.ctypes.data
        d[D_REP] = rings.rep_slots.ctypes.data
        d[D_CAP] = rings.capacity
        d[D_RCAP] = rings.reply_capacity
        d[D_HOLD] = self.hold.ctypes.data
        self.addr = d.ctypes.data  # what the compiled functions take as ``d``
        self.push, self.pop, self.call = _compiled(rings.request_dtype, rings.reply_dtype)
        # What numba raises for an argument it cannot take (before running anything).
        self.refused = (TypeError, ValueError, OverflowError, numba.core.errors.NumbaError)
        self.words = d.reshape(-1).view(np.uint8).data.cast("q")  # item access, no NumPy


def fast_host(rings: Rings, d: np.ndarray) -> FastHost | None:
    """Compiled fast paths for ``rings`` (ordinary memory), or None when the dtypes have
    fields the fast paths do not handle (bool, float16)."""
    if not (supported(rings.request_dtype) and supported(rings.reply_dtype)):
        return None
    return FastHost(rings, d)

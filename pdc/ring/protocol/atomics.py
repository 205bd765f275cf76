"""Memory operations for compiled CPU code (numba intrinsics): the ring's loads and stores.

Both sides of the ring need loads and stores with a memory order that numba's array
indexing does not give (it may legally hoist a plain load out of a polling loop, which
would then spin forever):

* on an int64 array element: ``load_acquire`` (LLVM ``load atomic acquire``),
  ``store_release`` (``store atomic release``), and ``release_fence`` (an acquire-release
  fence callable from Python), used by the cpu loop, its doorbell and the host;
* on a raw address (an int, for code that unboxes scalars, not arrays: ``pdc.ring.host.fast``):
  ``ld``/``ld_acq``/``st``/``st_rel`` for int64 words, ``poke(dt)``/``peek(dt)`` for a
  field of NumPy type ``dt``;
* ``spin_hint``: the x86 ``pause`` instruction, else nothing.

numba and llvmlite only: importing this module imports no GPU library.
"""

from __future__ import annotations

import platform
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = [
    "ld",
    "ld_acq",
    "load_acquire",
    "peek",
    "poke",
    "release_fence",
    "spin_hint",
    "st",
    "st_rel",
    "store_release",
]

_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


def _item_pointer(context, builder, aryty, ary, idx, idxty):
    arr = context.make_array(aryty)(context, builder, ary)
    i = context.cast(builder, idx, idxty, types.intp)
    return cgutils.get_item_pointer(context, builder, aryty, arr, [i], wraparound=False)


@intrinsic
def load_acquire(typingctx, ary, idx):
    """``ary[idx]`` as an LLVM ``load atomic acquire`` (int64 arrays)."""
    if not (isinstance(ary, types.Array) and ary.dtype == types.int64):
        return None
    sig = types.int64(ary, idx)

    def codegen(context, builder, signature, args):
        ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1], idx)
        return builder.load_atomic(ptr, "acquire", 8)

    return sig, codegen


@intrinsic
def store_release(typingctx, ary, idx, value):
    """``ary[idx] = value`` as an LLVM ``store atomic release`` (int64 arrays)."""
    if not (isinstance(ary, types.Array) and ary.dtype == types.int64):
        return None
    sig = types.void(ary, idx, value)

    def codegen(context, builder, signature, args):
        ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1], idx)
        val = context.cast(builder, args[2], value, types.int64)
        builder.store_atomic(val, ptr, "release", 8)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _fence_release(typingctx):
    sig = types.void()

    def codegen(context, builder, signature, args):
        builder.fence("acq_rel")  # serves as the host's acquire and release fence
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def spin_hint(typingctx):
    """The x86 ``pause`` instruction (kinder to the sibling hyperthread); else nothing."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        if _X86:
            fnty = ir.FunctionType(ir.VoidType(), [])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.sse2.pause")
            builder.call(fn, [])
        return context.get_dummy_value()

    return sig, codegen


@numba.njit(nogil=True)
def _release_fence_nb():
    _fence_release()


def release_fence() -> None:
    """An acquire-release fence for host code on weakly ordered CPUs (around slot access)."""
    _release_fence_nb()


_I64 = ir.IntType(64)


def _addr(context, builder, sig, args, i, llty):
    a = context.cast(builder, args[i], sig.args[i], types.int64)
    return builder.inttoptr(a, llty.as_pointer())


@intrinsic
def ld(typingctx, addr):
    """Plain int64 load from an address (words only this side writes)."""

    def codegen(context, builder, sig, args):
        return builder.load(_addr(context, builder, sig, args, 0, _I64))

    return types.int64(addr), codegen


@intrinsic
def ld_acq(typingctx, addr):
    """int64 ``load atomic acquire`` from an address (words the other side publishes)."""

    def codegen(context, builder, sig, args):
        return builder.load_atomic(_addr(context, builder, sig, args, 0, _I64), "acquire", 8)

    return types.int64(addr), codegen


@intrinsic
def st(typingctx, addr, value):
    """Plain int64 store to an address."""

    def codegen(context, builder, sig, args):
        val = context.cast(builder, args[1], sig.args[1], types.int64)
        builder.store(val, _addr(context, builder, sig, args, 0, _I64))
        return context.get_dummy_value()

    return types.void(addr, value), codegen


@intrinsic
def st_rel(typingctx, addr, value):
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


def poke(dt: np.dtype) -> Any:
    """An intrinsic ``poke(addr, value)`` storing ``value`` as type ``dt`` (one per dtype)."""
    if dt not in _POKE:
        _POKE[dt] = _poke_of(numba.from_dtype(dt))
    return _POKE[dt]


def peek(dt: np.dtype) -> Any:
    """An intrinsic ``peek(addr)`` loading a value of type ``dt`` (one per dtype)."""
    if dt not in _PEEK:
        _PEEK[dt] = _peek_of(numba.from_dtype(dt))
    return _PEEK[dt]

"""The cpu loop compiled once per message types, shared by every handler of those types.

Why it exists. ``pdc.ring.engines.cpu.compiled_loop`` closes the loop (``make_serve``)
over its handler and compiles the two as one function: the handler is inlined, and every
new handler, even one character different, pays for compiling the whole loop again (about
1.7 s on a quiet machine). A grader that launches a class's handlers, one kernel each, pays
it once per student. With ``EngineOptions(shared_loop=True)`` the handler is compiled
alone, as a C-callable function (``numba.cfunc``) over pointers to its three records, and
the loop calls it through its address. The loop then depends only on what its types and
constants depend on (the record dtypes and the options of ``cpu_prims.loop_key``), so a
process compiles it once for those (``precompile_shared_loop`` does it ahead of time, for
a process that forks graders), and a new handler costs only its own compile.

How. The loop is ``make_serve``'s, unchanged; its handler is ``_call``. The one parameter
of the loop that reaches the handler is ``state`` (``make_serve`` passes ``state[0]`` as the
third argument), so here it is the 1-tuple ``loop_state(...)``:
``((address, state, raised),)``: the compiled handler's address, the state array (one
record; an int64 stand-in for a handler without state) and a one-word flag. ``_call``
turns the records into pointers and calls the address (two small intrinsics). numba's
first-class functions (``types.FunctionType``) would do the same, but numba marks them
experimental and warns whenever it types one; an address is a plain int64.

What it costs per message: one indirect call that the compiler can neither inline nor
specialise (the handler reads and writes its records through memory either way); the
handler's own code is the same. ``pdc bench ring --shared-loop 5`` prints the round-trip
p50 of both loops side by side.

Faults. A validated handler does not raise (``pdc.ring.handlers.guards`` turns its
divisions by zero into the status ``FAULT``), but should one raise, a ``cfunc`` would print
the exception and return 0, an ok status. So the compiled handler catches it and sets
``raised``, and ``_call`` raises ``RuntimeError`` at that message: the loop leaves as the
inlined loop leaves with the handler's own exception (the message neither replied nor
counted, the state not committed); only the exception's type and text are lost.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from pdc.ring.engines.base import EngineOptions
from pdc.ring.engines.cpu_prims import (
    cpu_primitives,
    loop_key,
    not_compiled,
    state_arg,
    stateful_handler,
)
from pdc.ring.engines.loop import make_serve
from pdc.ring.handlers import HandlerSpec
from pdc.ring.handlers.state import check_state_dtype
from pdc.ring.protocol import TERMINATE, Rings, check_message_dtype

__all__ = ["compile_entry", "loop_state", "precompile_shared_loop", "shared_loop"]

# The compiled handler: (request, reply, state, raised) record pointers -> status.
ENTRY_SIGNATURE = types.int64(types.voidptr, types.voidptr, types.voidptr, types.voidptr)
_ENTRY_IR = ir.FunctionType(ir.IntType(64), [cgutils.voidptr_t] * 4)


@intrinsic
def _pointer(typingctx, value):
    """The address of a record (a numba record value is a pointer) or of an array's data."""
    if isinstance(value, types.Record):

        def record(context, builder, signature, args):
            return builder.bitcast(args[0], cgutils.voidptr_t)

        return types.voidptr(value), record
    if isinstance(value, types.Array):

        def array(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            return builder.bitcast(data, cgutils.voidptr_t)

        return types.voidptr(value), array
    return None


@intrinsic
def _call_address(typingctx, address, req, rep, state, raised):
    """Call the compiled handler at ``address`` (an int64) with four pointers."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        fn = builder.inttoptr(args[0], _ENTRY_IR.as_pointer())
        return builder.call(fn, args[1:])

    return types.int64(address, types.voidptr, types.voidptr, types.voidptr, types.voidptr), codegen


@numba.njit(nogil=True, inline="always")
def _call(req, rep, context):
    address, state, raised = context
    code = _call_address(address, _pointer(req), _pointer(rep), _pointer(state), _pointer(raised))
    if raised[0] != 0:
        raise RuntimeError(
            "[ring shared loop] the handler raised an exception (a compiled handler called "
            "by address passes on neither its type nor its text)"
        )
    return code


def _entry(handler: Any, request: np.dtype, reply: np.dtype, state: np.dtype) -> Any:
    """``handler(req, rep, state)`` as a function of record pointers (see ``_call``)."""

    def entry(req, rep, st, raised):
        flag = numba.carray(raised, 1, np.int64)
        code = 0
        try:
            code = handler(
                numba.carray(req, 1, request)[0],
                numba.carray(rep, 1, reply)[0],
                numba.carray(st, 1, state)[0],
            )
        except Exception:  # noqa: BLE001 - any: a cfunc would otherwise return 0
            flag[0] = 1
        return code

    return entry


_ENTRIES: dict[tuple, Any] = {}


def compile_entry(spec: HandlerSpec) -> Any:
    """Compile ``spec``'s handler alone, as a ``numba.cfunc`` of ``ENTRY_SIGNATURE``.

    Cached per handler and dtypes. Keep the returned object alive while a loop may call
    its ``address``.

    Raises:
        TypeError: when numba cannot compile the handler.
    """
    key = (spec.function, spec.request, spec.reply, spec.state)
    entry = _ENTRIES.get(key)
    if entry is None:
        handler = stateful_handler(spec)
        state = state_arg(spec.state).dtype
        try:
            entry = numba.cfunc(ENTRY_SIGNATURE)(_entry(handler, spec.request, spec.reply, state))
        except numba.core.errors.NumbaError as exc:
            raise not_compiled(spec, exc) from exc
        _ENTRIES[key] = entry
    return entry


def loop_state(entry: Any, state: np.ndarray, raised: np.ndarray) -> tuple:
    """The shared loop's ``state`` argument: the handler ``entry`` and its arrays.

    Args:
        entry: The handler, from ``compile_entry``.
        state: ``(1,)`` array: the kernel's state record (int64 for a handler without).
        raised: ``(1,)`` int64 array, zero: set when the handler raised.
    """
    return ((entry.address, state, raised),)


_LOOPS: dict[tuple, Any] = {}


def shared_loop(
    request: np.dtype, reply: np.dtype, state: np.dtype | None, options: EngineOptions
) -> Any:
    """The njit-compiled loop shared by the handlers of these dtypes and loop options.

    Compiled on the first call for a key, cached in the process after it: the
    dispatcher has one signature however many handlers it serves.
    """
    key = (request, reply, state, *loop_key(options))
    loop = _LOOPS.get(key)
    if loop is None:
        loop = numba.njit(nogil=True)(make_serve(_call, cpu_primitives(options), options.burst))
        # Compile now, on a throw-away ring that asks the loop to leave at once (the
        # loop never calls the handler, so no handler is needed: address 0).
        dummy = Rings.allocate(request, reply, 1)
        dummy.ctrl[TERMINATE] = 1
        context = ((0, state_arg(state), np.zeros(1, np.int64)),)
        loop(*dummy.arrays(), 1, context)
        _LOOPS[key] = loop
    return loop


def precompile_shared_loop(
    request: Any, reply: Any, state: Any = None, options: EngineOptions | None = None
) -> Any:
    """Compile the shared cpu loop for these message types ahead of any handler.

    A process that later launches handlers with ``EngineOptions(shared_loop=True)`` (or
    forks children that do) then compiles only the handlers.

    Args:
        request: Request structured dtype.
        reply: Reply structured dtype.
        state: State structured dtype, or None for handlers without state.
        options: The engine options the kernels will use (default ``EngineOptions()``;
            ``queue_size`` and ``shared_loop`` do not matter).

    Returns:
        The compiled loop (a numba dispatcher).

    Raises:
        TypeError: when a dtype is not a structured dtype of scalar numeric fields.
    """
    req = check_message_dtype(request, "request")
    rep = check_message_dtype(reply, "reply")
    st = None if state is None else check_state_dtype(state, "precompile_shared_loop")
    return shared_loop(req, rep, st, options or EngineOptions())

"""The cpu loop compiled once per message types, shared by every handler of those types.

Why it exists. ``pdc.ring.engines.cpu.compiled_loop`` closes the loop (``make_serve``)
over its handler and compiles the two as one function: the handler is inlined, and every
new handler, even one character different, pays for compiling the whole loop again (about
1.7 s on a quiet machine). A grader that launches a class's handlers, one kernel each, pays
it once per student. With ``EngineOptions(shared_loop=True)`` the handler is compiled
alone (``numba.njit`` for its three record types), and the loop calls it through its
address. The loop then depends only on what its types and constants depend on (the record
dtypes and the options of ``cpu_prims.loop_key``), so a process compiles it once for those
(``precompile_shared_loop`` does it ahead of time, for a process that forks graders; after
a machine's first compile it is loaded from ``pdc.ring.protocol.jitcache``), and a new
handler costs only its own compile.

How. The loop is ``make_serve``'s, unchanged; its handler is ``_call``. The one parameter
of the loop that reaches the handler is ``state`` (``make_serve`` passes ``state[0]`` as the
third argument), so here it is the 1-tuple ``loop_state(...)``: ``((address, state),)``:
the address of the compiled handler's native function and the state array (one record; an
int64 stand-in for a handler without state). ``_call`` calls the address with numba's own
calling convention (an intrinsic, ``_call_address``), as a numba function calls another:
the records go as pointers, and an exception the handler raises comes back as a status
that the loop passes on, as it would the inlined handler's. numba's first-class functions
(``types.FunctionType``) would do the same, but numba marks them experimental and warns
whenever it types one; an address is a plain int64. A ``numba.cfunc`` around the handler
would give a C address too, but its wrapper (the records from raw pointers, an exception
caught and turned into a flag) took longer to compile than the handler itself (0.47 s
against 0.18 s for exercise 6's, CPU time), and a check compiles one per handler.

What it costs per message: one indirect call that the compiler can neither inline nor
specialise (the handler reads and writes its records through memory either way); the
handler's own code is the same. ``pdc bench ring --shared-loop 5`` prints the round-trip
p50 of both loops side by side.

Faults. A validated handler does not raise (``pdc.ring.handlers.guards`` turns its
divisions by zero into the status ``FAULT``), but should one raise, the loop leaves at that
message with the handler's exception, its type and text, exactly as the inlined loop does
(the message neither replied nor counted, the state not committed).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from pdc.ring.engines.base import EngineOptions
from pdc.ring.engines.cpu_prims import (
    cpu_fields,
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
from pdc.ring.protocol.jitcache import keep

__all__ = ["Entry", "compile_entry", "loop_state", "precompile_shared_loop", "shared_loop"]


@intrinsic
def _call_address(typingctx, address, req, rep, state):
    """Call the compiled handler whose native function is at ``address`` (an int64) with
    its three records, in numba's calling convention; its exception, if any, propagates."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        argtys = signature.args[1:]
        fnty = context.call_conv.get_function_type(types.int64, argtys)
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        status, code = context.call_conv.call_function(builder, fn, types.int64, argtys, args[1:])
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return code

    return types.int64(address, req, rep, state), codegen


@numba.njit(nogil=True, inline="always")
def _call(req, rep, context):
    address, state = context
    return _call_address(address, req, rep, state[0])


@dataclass(frozen=True)
class Entry:
    """A handler compiled alone for the shared loop: its dispatcher (which keeps the code
    alive) and the address of its native function."""

    dispatcher: Any
    address: int


def _record_types(spec: HandlerSpec) -> tuple:
    """The numba types of the three values the loop passes the handler (``make_serve``:
    ``req_slots[lane, i]``, ``rep_slots[j]``, ``state[0]``)."""
    state = numba.typeof(state_arg(spec.state)).dtype
    return (numba.from_dtype(spec.request), numba.from_dtype(spec.reply), state)


_ENTRIES: dict[tuple, Entry] = {}


def compile_entry(spec: HandlerSpec) -> Entry:
    """Compile ``spec``'s handler alone for its record types; its address for ``_call``.

    Cached per handler and dtypes. Keep the returned object alive while a loop may call
    its ``address``.

    Raises:
        TypeError: when numba cannot compile the handler.
    """
    key = (spec.function, spec.request, spec.reply, spec.state)
    entry = _ENTRIES.get(key)
    if entry is None:
        cpu_fields(spec)
        handler = stateful_handler(spec)
        args = _record_types(spec)
        try:  # the loop's status is an int64, whatever integer the handler returns
            handler.compile(types.int64(*args))
        except numba.core.errors.NumbaError as exc:
            raise not_compiled(spec, exc) from exc
        cres = handler.overloads[args]
        address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        entry = _ENTRIES[key] = Entry(handler, address)
    return entry


def loop_state(entry: Entry, state: np.ndarray) -> tuple:
    """The shared loop's ``state`` argument: the handler ``entry`` and the state array.

    Args:
        entry: The handler, from ``compile_entry``.
        state: ``(1,)`` array: the kernel's state record (int64 for a handler without).
    """
    return ((entry.address, state),)


_LOOPS: dict[tuple, Any] = {}
_LOOPS_LOCK = threading.Lock()


def shared_loop(
    request: np.dtype, reply: np.dtype, state: np.dtype | None, options: EngineOptions
) -> Any:
    """The njit-compiled loop shared by the handlers of these dtypes and loop options.

    Compiled on the first call for a key (loaded from ``pdc.ring.protocol.jitcache`` where a
    process compiled it before), kept in the process after it: the dispatcher has one
    signature however many handlers it serves.
    """
    key = (request, reply, state, *loop_key(options))
    with _LOOPS_LOCK:  # a warm-up thread may be compiling this very loop: wait for it
        loop = _LOOPS.get(key)
        if loop is None:
            loop = numba.njit(nogil=True)(make_serve(_call, cpu_primitives(options), options.burst))
            keep(loop, "shared loop", request, reply, state, loop_key(options))
            # Compile now, on a throw-away ring that asks the loop to leave at once (the
            # loop never calls the handler, so no handler is needed: address 0).
            dummy = Rings.allocate(request, reply, 1)
            dummy.ctrl[TERMINATE] = 1
            loop(*dummy.arrays(), 1, ((0, state_arg(state)),))
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

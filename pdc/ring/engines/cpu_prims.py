"""The compiled pieces every cpu loop is built from: memory primitives, back-off, handler.

Both cpu loops use them: the one that inlines its handler (``pdc.ring.engines.cpu``) and
the one shared by every handler of the same message types
(``pdc.ring.engines.shared_loop``). See ``pdc.ring.engines.cpu`` for the idle policy.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

from pdc.ring.engines.base import EngineOptions
from pdc.ring.engines.loop import Primitives, ignore_state
from pdc.ring.handlers import HandlerSpec
from pdc.ring.protocol.atomics import load_acquire, spin_hint, store_release
from pdc.ring.protocol.jitcache import keep

__all__ = [
    "compile_handler",
    "cpu_primitives",
    "handler_key",
    "loop_key",
    "not_compiled",
    "state_arg",
    "stateful_handler",
]

# libc's functions by name, linked when the loop is compiled: a ctypes function would be
# embedded as this process's address, which numba refuses to keep on disk (jitcache).
_sched_yield = types.ExternalFunction("sched_yield", types.int32())
_usleep = types.ExternalFunction("usleep", types.int32(types.uint32))


@numba.njit(nogil=True, inline="always")
def _put(ctrl, i, v):
    ctrl[i] = v


@numba.njit(nogil=True, inline="always")
def _no_fence():
    pass  # the cpu loop polls with acquire loads already (a plain load on x86)


@intrinsic
def _select_nb(typingctx, cond, a, b):
    """``select(cond, a, b)`` as one ``select`` instruction: ``a if cond else b`` with both
    sides computed, in the type numba gives that ternary (``unify_types``).

    Why an intrinsic: a validated handler calls ``select`` for every guard (a division, a
    conversion, the state's commit: about thirty in exercise 6's handler), and an
    ``njit(inline="always")`` function is typed and spliced into the caller's IR at each
    call, which made a third of the handler's compile time.
    """
    result = typingctx.unify_types(types.unliteral(a), types.unliteral(b))
    if result is None:
        return None  # numba then says which types select() got

    def codegen(context, builder, signature, args):
        c = context.is_true(builder, signature.args[0], args[0])
        x = context.cast(builder, args[1], signature.args[1], result)
        y = context.cast(builder, args[2], signature.args[2], result)
        return builder.select(c, x, y)

    return result(cond, a, b), codegen


def handler_key(spec: HandlerSpec) -> tuple:
    """What a compiled handler depends on besides ``pdc.ring`` itself (a disk-cache key,
    ``pdc.ring.protocol.jitcache``): its normalized source, the values of the constants it
    reads, its record types."""
    constants = tuple((k, type(v).__name__, repr(v)) for k, v in sorted(spec.constants.items()))
    return (spec.name, spec.source, constants, spec.request, spec.reply, spec.state)


def compile_handler(spec: HandlerSpec) -> Any:
    """Compile a validated handler with numba ``njit(nogil=True)`` (lazily, on first call;
    kept on disk)."""
    handler = numba.njit(nogil=True)(spec.build(select_impl=_select_nb, math_impl=math))
    return keep(handler, "handler", handler_key(spec))


def stateful_handler(spec: HandlerSpec) -> Any:
    """``compile_handler(spec)`` taking a state record, whether the handler has one or not
    (a handler without state ignores the loop's stand-in)."""
    handler = compile_handler(spec)
    if spec.state is None:
        handler = numba.njit(nogil=True, inline="always")(ignore_state(handler))
        keep(handler, "handler without state", handler_key(spec))
    return handler


def cpu_fields(spec: HandlerSpec) -> None:
    """Refuse, naming it, a record field numba's CPU target has no type for (float16: it
    compiles for CUDA, and NumPy holds it, but a compiled cpu loop cannot).

    Raises:
        TypeError: such a field in the request, reply or state record.
    """
    records = (("request", spec.request), ("reply", spec.reply), ("state", spec.state))
    for what, dtype in records:
        if dtype is None or dtype.fields is None:
            continue
        for name, (field, *_) in dtype.fields.items():
            base = field.base
            if base.kind == "f" and base.itemsize == 2:
                raise TypeError(
                    f"[ring handler {spec.name}] expected fields the cpu backend can compile, "
                    f"got {what} field {name!r} of type float16 (numba's CPU target has none): "
                    "use float32, a pure-Python handler (python=True), or the cuda backend"
                )


def not_compiled(spec: HandlerSpec, exc: Exception) -> TypeError:
    """The error a cpu loop raises when numba refuses ``spec``'s handler."""
    return TypeError(
        f"[ring handler {spec.name}] numba cannot compile the handler for the cpu backend:\n{exc}"
    )


def _make_pause(spin: int, yield_every: int, max_sleep_us: int):
    from pdc.ring.engines.doorbell import NAP_MS, nap

    # Naps of the back-off: 20 us doubling every 16 naps, up to max_sleep; after the last
    # one (about 40 ms of idleness at the defaults) the loop naps on its doorbell instead.
    steps = 0
    while (20 << steps) < max_sleep_us and steps < 16:
        steps += 1
    ladder = 16 * (steps + 1)

    @numba.njit(nogil=True, inline="always")
    def pause(ctrl, idle):
        if idle < spin:
            # Optionally yield now and then while spinning (yield_every > 0). Off by
            # default: measured on a loaded 2-core machine, a yield often handed the core
            # to another process for a whole time slice (round-trip p50 5 us -> 30 us).
            if yield_every > 0 and idle % yield_every == 0:
                _sched_yield()
                return 1
            spin_hint()
            return 0
        if idle < 2 * spin:
            _sched_yield()
            return 1
        if idle < 2 * spin + ladder or not nap(ctrl, NAP_MS):
            # Sleep in compiled code, without the GIL (a Python-level sleep would need the
            # GIL to wake up, and a host thread polling in Python holds it).
            k = (idle - 2 * spin) // 16
            us = max_sleep_us
            if k < 16 and (20 << k) < max_sleep_us:
                us = 20 << k
            _usleep(us)
        return 1

    return pause


def cpu_primitives(options: EngineOptions) -> Primitives:
    """The cpu loop's memory primitives, with the back-off ``options`` ask for."""
    max_us = max(1, int(options.max_sleep * 1e6))
    pause = _make_pause(options.spin, max(0, options.yield_every), max_us)
    return Primitives(load_acquire, store_release, load_acquire, _no_fence, _put, pause)


def loop_key(options: EngineOptions) -> tuple:
    """The options a compiled cpu loop depends on (a cache key)."""
    return (options.burst, options.spin, options.yield_every, options.max_sleep)


def state_arg(state: np.dtype | None) -> np.ndarray:
    """The loop's state argument: a record of the state, else any 1-element array."""
    return np.zeros(1, np.int64 if state is None else state)

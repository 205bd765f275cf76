"""Device code of the CUDA ring kernel: one persistent kernel per handler.

This module imports ``numba.cuda`` at the top and holds nothing but kernel code, because
numba's CUDA simulator swaps every module-level name bound to ``numba.cuda`` in a kernel's
module while the kernel runs; the host side (``pdc.ring.engines.cuda``) must not share a module
with a kernel that runs for minutes. Import it only after ``pdc.numba_cuda()``.

The kernel body is the protocol's own consumer loop (``pdc.ring.engines.loop.make_serve``),
compiled as a device function with these device primitives:

* ``load``: an acquire load of a control word (``ld.acquire.sys.u64``, inline PTX
  marked as having side effects, so the compiler can neither hoist it out of the polling
  loop nor merge two of them). It never writes: a read-modify-write such as an atomic add
  of 0 could overwrite a host store that lands between its read and its write.
* ``store``: ``cuda.threadfence_system()`` (every earlier write, e.g. a reply, becomes
  visible to the host first), then a volatile store (``st.volatile.u64``).

  Both use generic addressing: numba hands the asm a generic pointer, and the rings are
  host-mapped memory, so no state space (``.global``) is claimed for them.
* ``poll``: a relaxed load (``ld.relaxed.sys.u64``): the idle pass's one read of a head;
  ``fence``: ``fence.acq_rel.sys``, once, when a poll saw work; ``put``: the heartbeat's
  relaxed store (``st.relaxed.sys.u64``), without a fence (``pdc.ring.engines.loop`` says what an
  idle pass reads).
* ``pause``: ``cuda.nanosleep`` between empty polls, longer as the loop stays idle.
* ``nap``: the kernel's back-off when ``serve`` returns idle, doubling up to ``max_sleep``.

On the simulator the kernel body is Python run by a thread: there is no compiler to hoist
a load, so ``load`` and ``store`` are plain indexing (the simulator's ``threadfence_system``
does nothing, and CPython's interpreter lock orders the stores), ``pause`` yields the
interpreter lock (``time.sleep(0)``) and ``nap`` waits on a ``Waker``
(``pdc.ring.engines.base``) that the host sets when it sends, for at most the back-off time.

The kernel leaves its loop on ``TERMINATE`` (it then stores ``S_TERMINATED``, its last act)
or on ``PARK`` (it stores nothing: every word the loop owns is stored before it reads the
control words, so the engine launches it again and it goes on where it stopped; loading code
into a GPU context waits for the kernels running in it, ``pdc.ring.engines.parking``).

A kernel with state (``pdc.ring.handlers.state``) takes one more argument, its state record (a
1-element array in host-mapped memory beside the rings), and its loop is the protocol's
loop with the state passed to the handler (``make_serve``'s state argument). The record stays
where the kernel reads and writes it; the host reads it only while the kernel serves no
message (deactivated, or terminated). Each message reads the fields it uses once, over the
bus (about a microsecond on PCIe), and writes back those it changed.

Launch geometry: ``grid=1, block=1``. The protocol has one consumer per ring (one reply
head, FIFO per lane), so a single thread runs it without any intra-block broadcast
(no ``__syncthreads`` per message) and occupies one warp slot of one SM, leaving the rest of
the GPU to other kernels on other streams.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from numba import cuda

from pdc.ring.engines.loop import Primitives, ignore_state, make_serve
from pdc.ring.protocol import PROCESSED, S_TERMINATED, STATE

# The kernel's own trace words (a separate int64 array only the kernel writes).
T_ENTRIES = 0  # kernel entries: 1 for a kernel launched once
T_SERVES = 1  # calls of the consumer loop (it returns after an idle spell)
T_NAPS = 2  # back-off sleeps of an idle kernel
T_HANDLED = 3  # messages the kernel saw handled (PROCESSED delta over its serve calls)
T_EXITS = 4  # 1 once the kernel has left its loop
T_THREADS = 5  # threads in the launch (blockDim.x * gridDim.x): 1
T_PARKS = 6  # times the kernel left on a PARK request (``pdc.ring.engines.parking``)
TRACE_WORDS = 8

NS_MIN = 1_000  # first back-off sleep of an idle kernel (1 us)
SIM_IDLE_PASSES = 8  # empty passes before the simulated loop naps (each pass is Python)


def _select(cond, a, b):
    return a if cond else b


# -- primitives for a real GPU ----------------------------------------------------------
_GPU: dict[str, Any] = {}


def gpu_primitives() -> tuple[Any, Any, Any, Any, Any]:
    """``(load, store, poll, fence, put)`` device functions for a real GPU (built once)."""
    if not _GPU:
        jit = _jit()
        # numba.cuda.cgutils is numba-cuda's (imported at run time); mypy reads the older
        # numba.cuda bundled with numba, which has no cgutils.
        from llvmlite import ir
        from numba import types
        from numba.cuda import cgutils  # type: ignore[attr-defined]
        from numba.cuda.extending import intrinsic

        def pointer(context, builder, aryty, ary, idx, idxty):
            arr = context.make_array(aryty)(context, builder, ary)
            i = context.cast(builder, idx, idxty, types.intp)
            return cgutils.get_item_pointer(context, builder, aryty, arr, [i], wraparound=False)

        i64 = ir.IntType(64)

        @intrinsic
        def load_acquire(typingctx, ary, idx):
            if not (isinstance(ary, types.Array) and ary.dtype == types.int64):
                return None

            def codegen(context, builder, sig, args):
                ptr = pointer(context, builder, sig.args[0], args[0], args[1], sig.args[1])
                asm = ir.InlineAsm(
                    ir.FunctionType(i64, [i64.as_pointer()]),
                    "ld.acquire.sys.u64 $0, [$1];",
                    "=l,l,~{memory}",
                    side_effect=True,
                )
                return builder.call(asm, [ptr])

            return types.int64(ary, idx), codegen

        @intrinsic
        def store_volatile(typingctx, ary, idx, value):
            if not (isinstance(ary, types.Array) and ary.dtype == types.int64):
                return None

            def codegen(context, builder, sig, args):
                ptr = pointer(context, builder, sig.args[0], args[0], args[1], sig.args[1])
                val = context.cast(builder, args[2], sig.args[2], types.int64)
                asm = ir.InlineAsm(
                    ir.FunctionType(ir.VoidType(), [i64.as_pointer(), i64]),
                    "st.volatile.u64 [$0], $1;",
                    "l,l,~{memory}",
                    side_effect=True,
                )
                builder.call(asm, [ptr, val])
                return context.get_dummy_value()

            return types.void(ary, idx, value), codegen

        @intrinsic
        def load_relaxed(typingctx, ary, idx):
            if not (isinstance(ary, types.Array) and ary.dtype == types.int64):
                return None

            def codegen(context, builder, sig, args):
                ptr = pointer(context, builder, sig.args[0], args[0], args[1], sig.args[1])
                asm = ir.InlineAsm(
                    ir.FunctionType(i64, [i64.as_pointer()]),
                    "ld.relaxed.sys.u64 $0, [$1];",
                    "=l,l,~{memory}",
                    side_effect=True,
                )
                return builder.call(asm, [ptr])

            return types.int64(ary, idx), codegen

        @intrinsic
        def fence_acquire(typingctx):
            def codegen(context, builder, sig, args):
                asm = ir.InlineAsm(
                    ir.FunctionType(ir.VoidType(), []), "fence.acq_rel.sys;", "~{memory}", True
                )
                builder.call(asm, [])
                return context.get_dummy_value()

            return types.void(), codegen

        @jit(device=True, forceinline=True)
        def load(ctrl, i):
            return load_acquire(ctrl, i)

        @jit(device=True, forceinline=True)
        def poll(ctrl, i):
            return load_relaxed(ctrl, i)

        @jit(device=True, forceinline=True)
        def fence():
            fence_acquire()

        @intrinsic
        def store_relaxed(typingctx, ary, idx, value):
            if not (isinstance(ary, types.Array) and ary.dtype == types.int64):
                return None

            def codegen(context, builder, sig, args):
                ptr = pointer(context, builder, sig.args[0], args[0], args[1], sig.args[1])
                val = context.cast(builder, args[2], sig.args[2], types.int64)
                asm = ir.InlineAsm(
                    ir.FunctionType(ir.VoidType(), [i64.as_pointer(), i64]),
                    "st.relaxed.sys.u64 [$0], $1;",
                    "l,l,~{memory}",
                    side_effect=True,
                )
                builder.call(asm, [ptr, val])
                return context.get_dummy_value()

            return types.void(ary, idx, value), codegen

        @jit(device=True, forceinline=True)
        def put(ctrl, i, v):
            store_relaxed(ctrl, i, v)  # no fence: the heartbeat orders nothing

        @jit(device=True, forceinline=True)
        def store(ctrl, i, v):
            cuda.threadfence_system()  # the reply (or slot state) first, then the counter
            store_volatile(ctrl, i, v)

        _GPU["prims"] = (load, store, poll, fence, put)
    return _GPU["prims"]


# -- primitives for the simulator -------------------------------------------------------
def _sim_load(ctrl, i):
    return ctrl[i]


def _sim_store(ctrl, i, v):
    ctrl[i] = v


def _sim_pause(ctrl, idle):
    time.sleep(0)  # let the host thread run: the simulated loop is Python
    return 1


def _sim_fence():
    pass  # the simulator's threads share memory under the interpreter lock


def build_kernel(
    handler: Any,
    *,
    simulated: bool,
    burst: int,
    spin: int,
    max_sleep_ns: int,
    wake: Any = None,
    stateful: bool = False,
) -> tuple[Any, int]:
    """Build the persistent ring kernel around a compiled handler.

    Args:
        handler: The handler as a CUDA device function (``cuda.jit(device=True)``).
        simulated: True on numba's CUDA simulator.
        burst: Messages per pass of the consumer loop.
        spin: Empty passes before the loop backs off (a real GPU).
        max_sleep_ns: Longest back-off sleep of an idle kernel, in nanoseconds.
        wake: Simulator only: the event the host sets after a send (ends a nap early).
        stateful: The handler takes a state record: the kernel takes a last argument,
            ``state`` (a 1-element array of the state dtype).

    Returns:
        ``(kernel, idle_passes)``: the ``cuda.jit`` kernel, to launch with ``[1, 1]`` as
        ``kernel(ctrl, req_meta, req_slots, rep_meta, rep_slots, trace)`` (plus ``state``
        when ``stateful``), and the number of empty passes after which ``serve`` returns
        to the kernel's back-off.
    """
    jit = _jit()
    max_sleep_ns = max(int(max_sleep_ns), NS_MIN)
    if simulated:
        prims = Primitives(_sim_load, _sim_store, _sim_load, _sim_fence, _sim_store, _sim_pause)
        event = wake if wake is not None else threading.Event()  # a Waker from the engine
        idle_passes = SIM_IDLE_PASSES

        def nap_py(ns):
            event.wait(ns * 1e-9)  # a Waker's wait takes the wake-up: none is lost

        nap = jit(device=True)(nap_py)
    else:
        load, store, poll, fence, put = gpu_primitives()
        idle_passes = max(int(spin), 1)

        @jit(device=True, forceinline=True)
        def pause(ctrl, idle):
            # 0.1 us, then longer as the spell of empty passes grows (at most ~6.5 us).
            cuda.nanosleep(100 * (1 + min(idle >> 8, 64)))
            return 0  # short: the control words wait for their turn

        prims = Primitives(load, store, poll, fence, put, pause)

        @jit(device=True, forceinline=True)
        def nap(ns):
            t = 0
            while t < ns:  # nanosleep sleeps at most ~1 ms per call
                cuda.nanosleep(min(ns - t, 1_000_000))
                t += 1_000_000

    device = jit(device=True) if simulated else jit(device=True, forceinline=True)
    if not stateful:  # the loop passes a record of ``state`` (here the trace) it ignores
        handler = device(ignore_state(handler))
    serve = jit(device=True)(make_serve(handler, prims, burst))
    store = prims.store

    @device
    def step(ctrl, req_meta, req_slots, rep_meta, rep_slots, state):
        return serve(ctrl, req_meta, req_slots, rep_meta, rep_slots, idle_passes, state)

    @device
    def run(ctrl, req_meta, req_slots, rep_meta, rep_slots, trace, state):
        trace[T_ENTRIES] += 1
        trace[T_THREADS] = cuda.blockDim.x * cuda.gridDim.x
        sleep_ns = NS_MIN
        parked = False
        while True:
            before = ctrl[PROCESSED]
            r = step(ctrl, req_meta, req_slots, rep_meta, rep_slots, state)
            trace[T_SERVES] += 1
            trace[T_HANDLED] += ctrl[PROCESSED] - before
            if r == 1:  # TERMINATE was set
                break
            if r == 3:  # PARK was set: leave; the engine launches the kernel again
                parked = True
                break
            if r == 2:  # worked, then idled: poll again soon
                sleep_ns = NS_MIN
            nap(sleep_ns)
            trace[T_NAPS] += 1
            sleep_ns = min(sleep_ns * 2, max_sleep_ns)
        if parked:
            trace[T_PARKS] += 1
        else:
            trace[T_EXITS] = 1
            store(ctrl, STATE, S_TERMINATED)

    if stateful:

        @jit
        def ring_kernel(ctrl, req_meta, req_slots, rep_meta, rep_slots, trace, state):
            run(ctrl, req_meta, req_slots, rep_meta, rep_slots, trace, state)

    else:

        @jit
        def ring_kernel(ctrl, req_meta, req_slots, rep_meta, rep_slots, trace):
            run(ctrl, req_meta, req_slots, rep_meta, rep_slots, trace, trace)  # no state

    return ring_kernel, idle_passes


def compile_unit(spec: Any, **build_options: Any) -> tuple[Callable, tuple]:
    """The real-GPU ring kernel of a handler, ready for ``cuda.compile_ptx``.

    Usable in a process that does not run the simulator and has no GPU (the caller points
    numba's compute-capability lookup at its target, as ``pdc ptx`` does).

    Args:
        spec: The handler (a ``HandlerSpec``; pure-Python handlers cannot be compiled).
        **build_options: ``burst``, ``spin`` and ``max_sleep_ns`` of ``build_kernel``
            (defaults: those of ``EngineOptions``).

    Returns:
        ``(py_func, argtypes)``: the kernel's Python function and the numba types of its
        arguments ``(ctrl, req_meta, req_slots, rep_meta, rep_slots, trace)``, and
        ``state`` for a handler with state.

    Raises:
        TypeError: for a pure-Python handler, or an unknown build option.
    """
    import math

    from numba import types as nt
    from numba.cuda.np.numpy_support import from_dtype

    if spec.python:
        raise TypeError(f"[compile_unit] expected a compiled handler, got {spec.name!r} (python)")
    unknown = set(build_options) - {"burst", "spin", "max_sleep_ns"}
    if unknown:
        raise TypeError(
            "[compile_unit] expected options among burst, spin, max_sleep_ns, got "
            f"{sorted(unknown)}"
        )
    opts = {"burst": 256, "spin": 20_000, "max_sleep_ns": 1_000_000, **build_options}
    handler = _jit()(device=True)(spec.build(select_impl=select_device(False), math_impl=math))
    stateful = spec.state is not None
    kernel, _ = build_kernel(handler, simulated=False, stateful=stateful, **opts)
    argtypes: tuple = (
        nt.int64[::1],  # ctrl
        nt.int64[:, :, ::1],  # req_meta (LANES, capacity, 2)
        from_dtype(spec.request)[:, ::1],  # req_slots (LANES, capacity)
        nt.int64[:, ::1],  # rep_meta (reply_capacity, 2)
        from_dtype(spec.reply)[::1],  # rep_slots (reply_capacity,)
        nt.int64[::1],  # trace
    )
    if stateful:
        argtypes += (from_dtype(spec.state)[::1],)  # state (1,)
    return kernel.py_func, argtypes


def select_device(simulated: bool) -> Any:
    """``select(cond, a, b)`` as a CUDA device function (a ternary)."""
    jit = _jit()
    if simulated:
        return jit(device=True)(_select)
    return jit(device=True, forceinline=True)(_select)


def _jit() -> Any:
    # The real ``numba.cuda.jit`` even while a simulated kernel of this module runs (the
    # simulator then rebinds this module's global ``cuda`` to its per-launch fake module).
    import numba.cuda

    return numba.cuda.jit

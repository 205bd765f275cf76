"""Metal engine (MLX): a host-driven persistent dispatcher that handles messages in batches.

What this is, exactly: Metal has no equivalent of a CUDA kernel that polls host memory for
minutes, and MLX exposes none. So the "device loop" here is a host worker thread that stays
alive for the kernel's whole life (launched once), drains the request rings in batches and
runs the handler over each batch as MLX array operations on the default MLX device: the
Metal GPU on Apple Silicon, MLX's CPU device elsewhere (``mlx[cpu]`` on Linux, where the
tests run it). It keeps the protocol's counters exactly like the other engines.

Per batch (up to ``extra["batch"]`` messages of one lane, high lane first, contiguous in
both the request and the reply ring):

* ``req`` is a namespace whose fields are ``mx.array`` columns, one element per message.
  The rings are allocated in MLX-owned memory (``mx.zeros`` of bytes, evaluated, and handed
  to the protocol as the NumPy view ``np.asarray(memoryview(buffer))``: on Apple Silicon
  that is unified memory the GPU reads directly). A request column is a strided MLX view of
  that buffer (``buffer.view(dtype).reshape(slots, words)[rows, column]``), so the host's
  request writes are read in place, with no copy, when the field is naturally aligned (its
  offset and the record size are multiples of its size); other fields are copied, and so
  are float64 fields on the Metal GPU, converted to float32 on the host.
* ``rep`` collects the fields the handler assigns; unassigned ones stay 0.
* ``select`` is ``mx.where`` and ``math.*`` the ``mlx.core`` function of the same meaning
  (``pdc.ring.handlers.MATH_FUNCTIONS``); the validator refuses ``if``, ``and``/``or`` and
  ternaries, which are not elementwise.
* The handler's return value may be an array: one error code per message.
* The batch function is compiled with ``mx.compile(shapeless=True)`` (one fused graph for
  any batch size; ``extra={"compile": False}`` turns that off). The worker thread compiles
  it and drops it before it ends: with MLX 0.32.4, a compiled function that outlived the
  thread that ran it made the interpreter abort at exit ("terminate called without an
  active exception") in about one run in two here.
* Results are evaluated, then copied into the reply ring from NumPy views of the MLX
  results (one copy per reply field), and only then published.

A kernel with state (``pdc.ring.state``) cannot take a batch as one array computation: message
k must see the state left by message k-1. The worker keeps the state as MLX arrays of its
own (one 1-element array per field, loaded from ``state_buf`` at the start and after
``reset_state``) and runs the handler once per message, in order, chaining the state
lazily from one message to the next; each batch (at most ``STATE_BATCH`` messages) is
evaluated once and the state is then mirrored into ``state_buf`` (MLX memory) for
``read_state``. The cost: one call of the (compiled) handler graph per message instead of
one per batch: measured on MLX's CPU device here (2 cores, batches of 1024 messages),
about 77 us per message with state against about 1 us without, nearly all of it Python
and graph building per message.

Differences from the other engines: a high-priority message overtakes the normal ones not
yet taken into a batch (not those in the batch being handled); MLX promotes an integer
field combined with a Python float to float32 (its default float type), where NumPy and
numba give float64; and the Metal GPU has no float64, so float64 fields are computed in
float32 there (MLX's CPU device keeps float64).
"""

from __future__ import annotations

import ast
import atexit
import sys
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

import numpy as np

from pdc.ring.engine import Engine, EngineOptions, Waker, join_worker
from pdc.ring.handlers import MATH_FUNCTIONS, HandlerSpec, MlxMath
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
    S_TERMINATED,
    S_TERMINATING,
    SKIP,
    STATE,
    TAIL,
    TERMINATE,
    Rings,
    host_fence,
)
from pdc.ring.subset import constant_int

__all__ = ["MetalEngine", "mlx_math"]

DEFAULT_BATCH = 4096
STATE_BATCH = 256  # most messages of a stateful kernel chained in one lazy MLX graph

# Most operations (loop iterations times operations per iteration) a handler may trace for
# ``mx.compile``: MLX 0.32.4 compiles a graph recursively, and a graph of 30,000 chained
# additions overflowed a thread's stack (SIGSEGV; 10,000 compiled). Larger handlers run
# uncompiled: MLX evaluates any graph size.
COMPILE_MAX_OPS = 4096

CHECK_TRIPS = 4096  # a handler's loop checks for a stop request this often (see _range)


class _Stopped(Exception):
    """Raised inside a handler's loop when the kernel was asked to stop (see _range)."""


# Workers still running: the interpreter must not finalize under one (see _finish_workers).
_RUNNING: weakref.WeakSet[MetalEngine] = weakref.WeakSet()


@atexit.register
def _finish_workers() -> None:
    """At exit, ask every MLX worker to leave and wait until it has, however long.

    An MLX evaluation cannot be interrupted, and a worker thread still inside one when the
    interpreter finalizes ends the process with SIGSEGV (measured with MLX 0.32.4: a batch
    of a handler looping 2**20 times, exited or terminated mid-batch). A worker checks
    ``TERMINATE`` between batches, and a batch is bounded (handler loops are bounded at
    definition), so this wait ends. Registered when this module is first imported, after
    ``pdc.ring.runtime``'s hook, so it runs before it (atexit runs last-registered first).
    """
    engines = list(_RUNNING)
    for engine in engines:
        engine.rings.ctrl[TERMINATE] = 1  # what RingHost.request_terminate writes
        engine.wake()
    t0 = time.monotonic()
    told = False
    for engine in engines:
        while not engine.join(1.0):
            if not told:
                told = True
                print(
                    f"[ring metal] waiting for kernel {engine.handler.name!r} to finish its "
                    "MLX batch before the interpreter exits (an MLX evaluation cannot be "
                    "interrupted)",
                    file=sys.stderr,
                )
    if told:
        print(f"[ring metal] stopped after {time.monotonic() - t0:.1f} s", file=sys.stderr)


def mlx_math() -> Any:
    """The ``math`` namespace for handlers on MLX: ``math.<name>`` -> ``mlx.core`` function.

    Raises:
        TypeError: naming the metal backend and the function, for a ``math`` function with
            no MLX equivalent (the handler validator refuses those earlier).
    """
    return _StrictMath(MlxMath())


class _StrictMath:
    def __init__(self, impl: Any) -> None:
        self._impl = impl

    def __getattr__(self, name: str) -> Any:
        if name in MATH_FUNCTIONS:
            return getattr(self._impl, name)
        raise TypeError(
            f"[ring metal] math.{name} has no MLX equivalent on the metal backend (supported: "
            f"{', '.join(sorted(MATH_FUNCTIONS))})"
        )


class _State:
    """The state record of one message: ``state["f"]`` reads and writes (see localize)."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def __setitem__(self, name: str, value: Any) -> None:
        self.values[name] = value


class _Reply:
    """Collects the fields a handler assigns (``rep.y = ...``); unassigned ones read as 0."""

    def __init__(self, names: tuple[str, ...]) -> None:
        object.__setattr__(self, "_names", names)
        object.__setattr__(self, "values", {})

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._names:
            raise AttributeError(f"[ring metal] the reply has no field {name!r}")
        self.values[name] = value

    def __getattr__(self, name: str) -> Any:
        if name in self._names:
            return self.values.get(name, 0)
        raise AttributeError(f"[ring metal] the reply has no field {name!r}")


_LOCAL = threading.local()


def _own_stream(mx: Any) -> Any:
    """``mx.stream(...)`` of this thread's own stream on the default device.

    MLX streams belong to the thread that made them (a new thread has no default stream),
    so the worker, and any thread that allocates rings, makes its own.
    """
    stream = getattr(_LOCAL, "stream", None)
    if stream is None:
        stream = _LOCAL.stream = mx.new_stream(mx.default_device())
    return mx.stream(stream)


def _mx_dtype(mx: Any, dt: np.dtype, gpu: bool = False) -> Any:
    """The MLX dtype a field is computed in (float32 for float64 on the Metal GPU)."""
    if gpu and dt == np.float64:
        return mx.float32
    return {"b": mx.bool_}.get(dt.kind) or getattr(mx, dt.name)


def _traced_ops(handler: HandlerSpec) -> int:
    """About how many MLX operations one call of the handler traces (loops unrolled)."""

    def ops(nodes: list[ast.stmt], trips: int) -> int:
        total = 0
        for node in nodes:
            if isinstance(node, ast.For):
                bounds = [constant_int(a, handler.constants) or 0 for a in node.iter.args]  # type: ignore[attr-defined]
                total += ops(node.body, trips * max(len(range(*bounds)), 1))
                continue
            exprs = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Call, ast.BoolOp)
            total += trips * sum(isinstance(n, exprs) for n in ast.walk(node))
        return total

    return 0 if handler.tree is None else ops(handler.tree.body, 1)


class MetalEngine(Engine):
    """The ring loop as a host worker thread running the handler on batches with MLX.

    Args:
        rings: Rings allocated with ``MetalEngine.allocator(options)`` (MLX memory); plain
            NumPy rings work too, with copies.
        handler: A validated handler (pure-Python handlers run on the cpu backend only).
        options: ``max_sleep`` and ``extra`` (``batch``: messages per batch, default 4096;
            ``compile``: use ``mx.compile``, default True) are used.

    Attributes:
        batches: Batches handled so far.
        zero_copy_fields: Request fields read in place from the ring (no copy).
        failure: The exception that ended the worker, if any.
    """

    backend = "metal"

    def __init__(self, rings: Rings, handler: HandlerSpec, options: EngineOptions):
        if handler.python:
            raise TypeError("[ring metal] pure-Python handlers run on the cpu backend only")
        super().__init__(rings, handler, options)
        import mlx.core as mx

        self._mx = mx
        self._gpu = mx.default_device() != mx.cpu
        self.batch = max(1, int(options.extra.get("batch", DEFAULT_BATCH)))
        self.batches = 0
        self.failure: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._wake = Waker()
        self._fence = host_fence()
        # Ring dtypes are structured (the protocol checks), so names is never None.
        self._req_names: tuple[str, ...] = handler.request.names or ()
        self._rep_names: tuple[str, ...] = handler.reply.names or ()
        self._state_names: tuple[str, ...] = (
            () if handler.state is None else handler.state.names or ()
        )
        self._mx_state: list[Any] | None = None  # the worker's state; None: load state_buf
        if self._state_names:
            self.batch = min(self.batch, STATE_BATCH)
        self._columns = self._column_readers()
        self.zero_copy_fields = [n for n, (zc, _) in self._columns.items() if zc]
        self.traced_ops = _traced_ops(handler)
        self.compiled = bool(options.extra.get("compile", True)) and (
            self.traced_ops <= COMPILE_MAX_OPS
        )
        self._batch_fn = self._batch_function()
        self._fn: Callable | None = None  # the worker's (compiled) batch function

    # -- memory ---------------------------------------------------------------------------
    @classmethod
    def allocator(cls, options: EngineOptions) -> Callable[[tuple[int, ...], Any], np.ndarray]:
        """``alloc(shape, dtype)``: zeroed MLX-owned memory, returned as a writable NumPy view."""
        import mlx.core as mx

        def alloc(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
            dt = np.dtype(dtype)
            nbytes = int(np.prod(shape)) * dt.itemsize
            with _own_stream(mx):
                buf = mx.zeros((max(nbytes, 1),), dtype=mx.uint8)
                mx.eval(buf)
            # The view keeps ``buf`` alive (view -> memoryview -> buf).
            # mx.array exports the C buffer protocol, but its stubs declare no __buffer__.
            view = memoryview(buf)  # type: ignore[arg-type]
            return np.asarray(view)[:nbytes].view(dt).reshape(shape)

        return alloc

    @staticmethod
    def _mlx_buffer(arr: np.ndarray) -> Any:
        """The MLX array whose memory ``arr`` views, or None for ordinary NumPy memory."""
        base: Any = arr
        while base is not None and not isinstance(base, memoryview):
            base = getattr(base, "base", None)
        obj = getattr(base, "obj", None)
        return obj if type(obj).__module__.startswith("mlx") else None

    def _column_readers(self) -> dict[str, tuple[bool, Callable[[int, int, int], Any]]]:
        """Per request field: (zero_copy, read(lane, start, n) -> mx.array of n values)."""
        mx, slots = self._mx, self.rings.req_slots
        buf = self._mlx_buffer(slots)
        rows = slots.shape[0] * slots.shape[1]
        cap = slots.shape[1]
        size = slots.dtype.itemsize
        out: dict[str, tuple[bool, Callable[[int, int, int], Any]]] = {}
        fields: Mapping[str, Any] = slots.dtype.fields or {}  # structured: never None
        for name in self._req_names:
            fdt, offset = fields[name][:2]
            mdt = _mx_dtype(mx, fdt, self._gpu)
            cast = mdt != _mx_dtype(mx, fdt)  # float64 on the Metal GPU, which has none
            aligned = offset % fdt.itemsize == 0 and size % fdt.itemsize == 0
            if buf is not None and aligned and not cast:
                words = size // fdt.itemsize
                col = offset // fdt.itemsize

                def read_view(lane, start, n, mdt=mdt, words=words, col=col):
                    r0 = lane * cap + start
                    return buf.view(mdt).reshape(rows, words)[r0 : r0 + n, col]

                out[name] = (True, read_view)
            else:
                field = slots[name]

                def read_copy(lane, start, n, field=field, mdt=mdt):
                    v = np.ascontiguousarray(field[lane, start : start + n])
                    return mx.array(v, dtype=mdt)  # (float64 would become float32 by default)

                out[name] = (False, read_copy)
        return out

    def _batch_function(self) -> Callable:
        mx = self._mx
        fn = self.handler.build(select_impl=mx.where, math_impl=mlx_math(), range_impl=self._range)
        req_names = self._req_names
        self.assigned = self._assigned_fields(fn)
        assigned = self.assigned
        nreq = len(req_names)
        st_names = self._state_names
        st_types = [self._state_type(n) for n in st_names]

        def batch(*args):
            # args: one column per request field, then (with state) one array per field.
            req = SimpleNamespace(**dict(zip(req_names, args[:nreq], strict=True)))
            rep = _Reply(self._rep_names)
            if st_names:
                state = _State(dict(zip(st_names, args[nreq:], strict=True)))
                code = fn(req, rep, state)
                new = [
                    mx.broadcast_to(mx.array(state[n], dtype=t), (1,))
                    for n, t in zip(st_names, st_types, strict=True)
                ]
            else:
                code = fn(req, rep)
                new = []
            outs = [rep.values[n] for n in assigned]
            res = tuple(v if isinstance(v, mx.array) else mx.array(v) for v in (*outs, code))
            return (*res, *new)

        return batch

    def _range(self, *bounds: int) -> Any:
        """``range`` for the handler's loops: a long one stops when ``TERMINATE`` is set.

        Graph building is Python, so a loop of a million trips takes seconds per batch; it
        checks the flag every ``CHECK_TRIPS`` trips and abandons the batch (its messages
        stay waiting: ``undelivered`` in the terminate report).
        """
        r = range(*bounds)
        return r if len(r) <= CHECK_TRIPS else self._checked(r)

    def _checked(self, r: range) -> Any:
        ctrl = self.rings.ctrl
        for n, i in enumerate(r):
            if n % CHECK_TRIPS == 0 and ctrl[TERMINATE] != 0:
                raise _Stopped
            yield i

    def _state_type(self, name: str) -> Any:
        fields: Mapping[str, Any] = (self.handler.state or np.dtype([])).fields or {}
        return _mx_dtype(self._mx, fields[name][0], self._gpu)

    def write_state(self, values: np.ndarray) -> None:
        """Replace the state (the worker reloads its MLX arrays before the next message)."""
        super().write_state(values)
        self._mx_state = None  # the loop does not serve now (see RingKernel.reset_state)

    def _assigned_fields(self, fn: Callable) -> tuple[str, ...]:
        """The reply fields the handler assigns, read from its normalized source.

        Handlers have no ``if`` on this backend, so every call assigns the same fields;
        the handler is never run just to find them (a long loop would run once more).
        """
        tree = self.handler.tree
        if tree is None:  # pragma: no cover - pure-Python handlers never reach this engine
            return self._rep_names
        rep = tree.args.args[1].arg
        names = {
            t.attr
            for node in ast.walk(tree)
            if isinstance(node, (ast.Assign, ast.AugAssign))
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == rep
        }
        return tuple(n for n in self._rep_names if n in names)

    @property
    def simulated(self) -> bool:
        return not self._gpu

    @property
    def device(self) -> str:
        where = "Metal GPU" if self._gpu else "MLX CPU device"
        return f"host dispatcher thread running MLX batches on the {where}"

    # -- the loop -------------------------------------------------------------------------
    def _start(self) -> None:
        self._thread = threading.Thread(
            target=self._run, name=f"pdc-ring-metal-{self.handler.name}", daemon=True
        )
        _RUNNING.add(self)
        self._thread.start()

    def _run(self) -> None:
        mx = self._mx
        sleep = 20e-6
        try:
            with _own_stream(mx):
                # Compiled here and released below, by this thread: a compiled function that
                # outlives the thread that ran it can abort the interpreter at exit.
                self._fn = mx.compile(self._batch_fn, shapeless=True) if self.compiled else None
                while True:
                    work = self._pass()
                    if work < 0:
                        break
                    if work:
                        sleep = 20e-6
                        continue
                    if self.rings.ctrl[TERMINATE] == 0:
                        self._wake.wait(sleep)  # takes the wake-up: none is lost
                    nap = max(self.options.max_sleep, self.options.idle_nap)
                    sleep = min(sleep * 2, nap)
        except _Stopped:  # asked to stop in the middle of a batch: it stays unhandled
            self.rings.ctrl[STATE] = S_TERMINATING
        except BaseException as exc:  # reported by the runtime
            self.failure = exc
        finally:
            self._fn = None
            self.rings.ctrl[STATE] = S_TERMINATED
            _RUNNING.discard(self)

    def _pass(self) -> int:
        """One pass of the protocol; returns messages handled or dropped, -1 on terminate."""
        c = self.rings.ctrl
        if c[TERMINATE] != 0:
            c[STATE] = S_TERMINATING
            return -1
        active = c[ACTIVE] != 0
        want = S_ACTIVE if active else S_DEACTIVATED
        if c[STATE] != want:
            c[STATE] = want
        c[HEARTBEAT] += 1
        work = self._drop()
        if active:
            for lane in range(LANES):  # the high lane first
                if c[HEAD + lane * LINE] > c[TAIL + lane * LINE]:
                    work += self._handle(lane)
                    break
        return work

    def _drop(self) -> int:
        """Mark waiting messages below the drop floor as dropped (even while paused)."""
        c, meta = self.rings.ctrl, self.rings.req_meta
        cap = meta.shape[1]
        total = 0
        for lane in range(LANES):
            t = int(c[TAIL + lane * LINE])
            floor = int(c[SKIP + lane * LINE])
            if floor <= t:
                continue
            end = min(floor, int(c[HEAD + lane * LINE]))
            if end <= t:
                continue
            meta[lane, np.arange(t, end) % cap, 1] = DISP_DROPPED
            self._fence()
            c[DROPPED] += end - t
            c[TAIL + lane * LINE] = end
            total += end - t
        return total

    def _handle(self, lane: int) -> int:
        """Handle one batch of ``lane``; returns its size (0 when the reply ring is full)."""
        r, c = self.rings, self.rings.ctrl
        cap, rcap = r.capacity, r.reply_capacity
        t, rh = int(c[TAIL + lane * LINE]), int(c[REP_HEAD])
        i, j = t % cap, rh % rcap
        n = min(
            int(c[HEAD + lane * LINE]) - t,
            rcap - (rh - int(c[REP_TAIL])),
            cap - i,  # contiguous in the request ring
            rcap - j,  # and in the reply ring
            self.batch,
        )
        if n <= 0:
            return 0
        mx = self._mx
        cols = [self._columns[name][1](lane, i, n) for name in self._req_names]
        if self._state_names:
            outs, code = self._sequential(cols, n)
        else:
            results = (self._fn or self._batch_fn)(*cols)
            mx.eval(results)
            *outs, code = results
        for name, out in zip(self.assigned, outs, strict=True):
            r.rep_slots[name][j : j + n] = np.asarray(memoryview(out))  # broadcasts a scalar
        codes = np.broadcast_to(np.asarray(memoryview(code)), (n,)).astype(np.int64)
        r.rep_meta[j : j + n, 0] = r.req_meta[lane, i : i + n, 0]
        r.rep_meta[j : j + n, 1] = codes
        r.req_meta[lane, i : i + n, 1] = DISP_PROCESSED
        bad = np.flatnonzero(codes)
        if bad.size:  # counted before the replies are published
            c[ERR_CODE] = codes[bad[-1]]
            c[ERR_COUNT] += bad.size
        self._fence()
        c[REP_HEAD] = rh + n
        c[TAIL + lane * LINE] = t + n
        c[PROCESSED] += n
        self.batches += 1
        return n

    def _sequential(self, cols: list[Any], n: int) -> tuple[list[Any], Any]:
        """A stateful batch: the handler once per message, in order, the state chained."""
        mx, buf = self._mx, self.state_buf
        if self._mx_state is None and buf is not None:
            self._mx_state = [
                mx.array(buf[name][:1], dtype=self._state_type(name)) for name in self._state_names
            ]
        state = list(self._mx_state or [])
        fn = self._fn or self._batch_fn
        per: list[list[Any]] = [[] for _ in range(len(self.assigned) + 1)]
        for k in range(n):
            res = fn(*[c[k : k + 1] for c in cols], *state)
            for acc, v in zip(per, res[: len(per)], strict=True):
                acc.append(mx.broadcast_to(v, (1,)))
            state = list(res[len(per) :])  # a failed message's handler kept the old values
        *outs, code = [mx.concatenate(acc) for acc in per]
        mx.eval(outs, code, state)
        self._mx_state = state
        if buf is not None:  # the mirror read_state copies (the loop serves no message then)
            for name, v in zip(self._state_names, state, strict=True):
                buf[name][0] = np.asarray(memoryview(v))[0]
        return outs, code

    def wake(self) -> None:
        """Wake the worker if it sleeps (a send calls this)."""
        self._wake.set()

    def _join(self, timeout: float | None) -> bool:
        return join_worker(self._thread, self._wake, timeout)

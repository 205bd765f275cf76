"""Metal engine (MLX): a host-driven persistent dispatcher that handles messages in batches.

What this is, exactly: Metal has no equivalent of a CUDA kernel that polls host memory for
minutes, and MLX exposes none. So the "device loop" here is a host worker thread that stays
alive for the kernel's whole life (launched once), drains the request rings in batches and
runs the handler over each batch as MLX array operations on the default MLX device: the
Metal GPU on Apple Silicon, MLX's CPU device elsewhere (``mlx[cpu]`` on Linux, where the
tests run it). It keeps the protocol's counters exactly like the other engines.

Per batch (up to ``extra["batch"]`` messages of one lane, high lane first, contiguous in
both the request and the reply ring):

* ``req`` is a namespace whose fields are ``mx.array`` columns, one element per message,
  read in place from the rings in MLX memory where the field is aligned
  (``pdc.ring.engines.mlx_memory``).
* ``rep`` collects the fields the handler assigns; unassigned ones stay 0.
* ``select`` is ``mx.where`` and ``math.*`` the ``mlx.core`` function of the same meaning
  (``pdc.ring.handlers.MATH_FUNCTIONS``); the validator refuses ``if``, ``and``/``or`` and
  ternaries, which are not elementwise.
* The handler's return value may be an array: one error code per message.
* The batch function is compiled with ``mx.compile(shapeless=True)`` (one fused graph for
  any batch size; ``extra={"compile": False}`` turns that off, and so does a handler too
  large to compile: ``pdc.ring.engines.mlx_batch.COMPILE_MAX_OPS``). The worker thread compiles it
  and drops it before it ends: with MLX 0.32.4, a compiled function that outlived the
  thread that ran it made the interpreter abort at exit in about one run in two here.
* A handler's loop checks for a stop request every ``CHECK_TRIPS`` trips, and the
  interpreter waits at exit for a worker still inside a batch (``pdc.ring.engines.exit_wait``).
* Results are evaluated, then copied into the reply ring from NumPy views of the MLX
  results (one copy per reply field), and only then published.

A kernel with state (``pdc.ring.handlers.state``) cannot take a batch as one array
computation: message k must see the state left by message k-1. The worker keeps the state
as MLX arrays of its own (one 1-element array per field, loaded from ``state_buf`` at the
start and after ``reset_state``) and runs the handler once per message, in order, chaining
the state lazily from one message to the next; each batch (at most ``STATE_BATCH``
messages) is evaluated once and the state is then mirrored into ``state_buf`` (MLX memory)
for ``read_state``. The cost: one call of the (compiled) handler graph per message instead
of one per batch: measured on MLX's CPU device here (2 cores, batches of 1024 messages),
about 77 us per message with state against about 1 us without, nearly all of it Python and
graph building per message.

Differences from the other engines: a high-priority message overtakes the normal ones not
yet taken into a batch (not those in the batch being handled); MLX promotes an integer
field combined with a Python float to float32 (its default float type), where NumPy and
numba give float64; and the Metal GPU has no float64, so float64 fields are computed in
float32 there (MLX's CPU device keeps float64).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

import numpy as np

from pdc.ring.engines import exit_wait
from pdc.ring.engines.base import Engine, EngineOptions, Waker, join_worker
from pdc.ring.engines.mlx_batch import (
    COMPILE_MAX_OPS,
    MlxReply,
    State,
    assigned_fields,
    mlx_dtype,
    mlx_math,
    own_stream,
    traced_ops,
)
from pdc.ring.engines.mlx_memory import column_readers, mlx_alloc
from pdc.ring.handlers import HandlerSpec
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

__all__ = ["MetalEngine", "mlx_math"]

DEFAULT_BATCH = 4096
STATE_BATCH = 256  # most messages of a stateful kernel chained in one lazy MLX graph

CHECK_TRIPS = 4096  # a handler's loop checks for a stop request this often (see _range)


class _Stopped(Exception):
    """Raised inside a handler's loop when the kernel was asked to stop (see _range)."""


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
        self.traced_ops = traced_ops(handler)
        self.compiled = bool(options.extra.get("compile", True)) and (
            self.traced_ops <= COMPILE_MAX_OPS
        )
        self._batch_fn = self._batch_function()
        self._fn: Callable | None = None  # the worker's (compiled) batch function

    # -- memory ---------------------------------------------------------------------------
    @classmethod
    def allocator(cls, options: EngineOptions) -> Callable[[tuple[int, ...], Any], np.ndarray]:
        """``alloc(shape, dtype)``: zeroed MLX-owned memory, returned as a writable NumPy view."""
        return mlx_alloc

    def _column_readers(self) -> dict[str, tuple[bool, Callable[[int, int, int], Any]]]:
        return column_readers(self._mx, self.rings.req_slots, self._req_names, self._gpu)

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
            rep = MlxReply(self._rep_names)
            if st_names:
                state = State(dict(zip(st_names, args[nreq:], strict=True)))
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
        return mlx_dtype(self._mx, fields[name][0], self._gpu)

    def write_state(self, values: np.ndarray) -> None:
        """Replace the state (the worker reloads its MLX arrays before the next message)."""
        super().write_state(values)
        self._mx_state = None  # the loop does not serve now (see RingKernel.reset_state)

    def _assigned_fields(self, fn: Callable) -> tuple[str, ...]:
        tree = self.handler.tree
        if tree is None:  # pragma: no cover - pure-Python handlers never reach this engine
            return self._rep_names
        return assigned_fields(tree, self._rep_names)

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
        exit_wait.hold(self)
        self._thread.start()

    def _run(self) -> None:
        mx = self._mx
        sleep = 20e-6
        try:
            with own_stream(mx):
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
            exit_wait.release(self)

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

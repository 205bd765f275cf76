"""The asyncio side of a ring kernel: send_async, receive_async, call_async.

Per event loop and kernel, one ``Port``: a single poller task reads the reply ring for
every awaiting call and resolves their futures, and async senders take turns (an
``asyncio.Lock``), so a thousand tasks awaiting one kernel cost one poll at a time, backing
off to 1 ms, and never starve the threads that run a simulated device. A kernel may be
used from several event loops and threads at once (each loop has its own port).
"""

from __future__ import annotations

import asyncio
import collections
from typing import TYPE_CHECKING, Any

from pdc.ring.protocol import BLOCKED, D_SENDING, NORMAL, REJECTED, RingStateError
from pdc.ring.replies import Reply
from pdc.ring.waiting import Waiter, async_delay

if TYPE_CHECKING:
    from pdc.ring.kernel import RingKernel

__all__ = ["Port", "call_async", "receive_async", "send_async"]


class Port:
    """The awaiting calls of one kernel on one event loop."""

    def __init__(self, kernel: RingKernel):
        self.kernel = kernel
        self.by_id: dict[int, asyncio.Future] = {}
        self.any: collections.deque[asyncio.Future] = collections.deque()
        self.task: asyncio.Task | None = None
        self.send_turn = asyncio.Lock()
        self.seen = -1  # the stash version last scanned for awaited ids

    def start(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._poll())

    def _deliver(self) -> int:
        """Resolve what can be resolved now (consumer lock held by the caller)."""
        k, n = self.kernel, 0
        for corr in [c for c, f in self.by_id.items() if f.done()]:  # timed out, cancelled
            del self.by_id[corr]
        while self.any and self.any[0].done():
            self.any.popleft()
        stash = k._stash
        if self.by_id and stash.count and stash.version != self.seen:
            for item in stash.take_matching(self.by_id):
                self.by_id.pop(item[0]).set_result(k._reply(item))
                n += 1
            self.seen = stash.version
        while self.any and stash.count:
            reply = k._take_next()  # None when the stash holds only replies calls await
            if reply is None:
                break
            self.any.popleft().set_result(reply)
            n += 1
        pop = k.host.pop
        while self.by_id or self.any:
            r = pop()
            if r is None:
                break
            if r[0] in self.by_id:  # awaited by id first, then by whoever awaits any reply
                self.by_id.pop(r[0]).set_result(k._popped(r))
                n += 1
            elif self.any and r[0] not in k._awaited:
                self.any.popleft().set_result(k._popped(r))
                n += 1
            else:  # another caller's: kept for it
                k._stash_values(*r)
        return n

    def _drop_check(self) -> None:
        k = self.kernel
        k._harvest_drops()
        for corr in [c for c in self.by_id if c in k._dropped_set]:
            fut = self.by_id.pop(corr)
            if not fut.done():
                try:
                    k._gone(corr, "call_async")
                except Exception as exc:
                    fut.set_exception(exc)

    async def _poll(self) -> None:
        k, delay = self.kernel, 0.0
        while self.by_id or self.any:
            with k._recv_lock:
                n = self._deliver()
            if n:
                delay = 0.0
                await asyncio.sleep(0)
                continue
            if k.backpressure == "drop_oldest" and self.by_id:
                self._drop_check()
            if k._nothing_left():
                with k._recv_lock:
                    self._deliver()
                self._fail_all()
                return
            delay = async_delay(delay)
            await asyncio.sleep(delay)

    def _fail_all(self) -> None:
        k = self.kernel
        waiting = [*self.by_id.items(), *((None, f) for f in self.any)]
        self.by_id.clear()
        self.any.clear()
        for corr, fut in waiting:
            if not fut.done():
                what = "a reply" if corr is None else f"the reply to message {corr}"
                fut.set_exception(k._timeout("receive_async", None, what))


def _port(kernel: RingKernel) -> Port:
    loop = asyncio.get_running_loop()
    port = kernel._ports.get(loop)
    if port is None:
        port = kernel._ports[loop] = Port(kernel)
    return port


async def _await(kernel: RingKernel, fut: asyncio.Future, timeout: float | None, what: str):
    try:
        return await asyncio.wait_for(fut, timeout)
    except asyncio.TimeoutError:
        raise kernel._timeout("receive_async", timeout, what) from None


async def send_async(
    kernel: RingKernel, message: Any = None, /, *, priority: Any = NORMAL, **fields: Any
) -> int:
    """``send`` that awaits (instead of blocking the thread) while the queue is full."""
    lane, values = kernel._parse(message, priority, fields)
    return await _send(kernel, values, lane, None)


async def _send(kernel: RingKernel, values: tuple, lane: int, reserve: list[int] | None) -> int:
    """Push one message, awaiting room; ``reserve``: its reply is kept for ``call_async``."""
    if kernel.backpressure != "block":
        return kernel._send_one(lane, values, reserve)
    port = _port(kernel)
    async with port.send_turn:
        waiter = Waiter(kernel.block_timeout, 0)
        delay, counted = 0.0, False
        while True:
            if kernel._send_lock.acquire(blocking=False):
                kernel._words[D_SENDING] = 1  # the compiled call keeps off the rings
                try:
                    kernel._alive_check("send_async")
                    corr = kernel._next
                    kernel._next = corr + 1
                    if reserve is not None:  # before it is published
                        reserve[0] = corr
                        kernel._awaited.add(corr)
                    if kernel.host.push(lane, corr, values):
                        kernel.engine.wake()
                        return corr
                    kernel._awaited.discard(corr)
                    kernel._next = corr
                    if not counted:
                        kernel.host.add(BLOCKED)
                        counted = True
                    waiter.progress(kernel.host.tail(lane))
                    if waiter.expired():
                        kernel.host.add(REJECTED)
                        raise kernel._full_error(lane, "send_async", kernel.block_timeout)
                except RingStateError:
                    kernel.host.add(REJECTED)
                    raise
                finally:
                    kernel._words[D_SENDING] = 0
                    kernel._send_lock.release()
            kernel._drain()
            kernel.engine.wake()
            delay = async_delay(delay)
            await asyncio.sleep(delay)


async def receive_async(kernel: RingKernel, timeout: float | None = None) -> Reply:
    """``receive`` that awaits, letting other tasks run while no reply is ready."""
    with kernel._recv_lock:
        r = kernel._take_next()
    if r is not None:
        return r
    port = _port(kernel)
    fut = asyncio.get_running_loop().create_future()
    port.any.append(fut)
    port.start()
    return await _await(kernel, fut, timeout, "a reply")


async def call_async(
    kernel: RingKernel,
    message: Any = None,
    /,
    *,
    timeout: float | None = None,
    check: bool = True,
    priority: Any = NORMAL,
    **fields: Any,
) -> Reply:
    """``call`` for asyncio code."""
    reserved = [0]
    try:
        lane, values = kernel._parse(message, priority, fields)
        corr = await _send(kernel, values, lane, reserved)
        kernel._gone(corr, "call_async")
        port = _port(kernel)
        fut = asyncio.get_running_loop().create_future()
        port.by_id[corr] = fut
        port.start()
        r = await _await(kernel, fut, timeout, f"the reply to message {corr}")
    finally:
        if reserved[0]:  # however it ended, receive() may have it from now on
            kernel._awaited.discard(reserved[0])
    return r.raise_for_status() if check else r

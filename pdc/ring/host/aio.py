"""The asyncio side of a ring kernel: send_async, receive_async, call_async.

Per event loop and kernel, one ``Port``: a single poller task reads the reply ring for
every awaiting call and resolves their futures, and async senders take turns (an
``asyncio.Lock``), so a thousand tasks awaiting one kernel cost one poll at a time, backing
off to 1 ms, and never starve the threads that run a simulated device. A kernel may be
used from several event loops and threads at once (each loop has its own port). The
internal steps wait without coroutines of their own, so Ctrl-C landing between creating
and awaiting one cannot leave it "never awaited"; what is left is asyncio's ``Lock`` (see
``pdc.ring.host.aio_steps``).
"""

from __future__ import annotations

import asyncio
import collections
from typing import TYPE_CHECKING, Any, Protocol

from pdc.ring.host.aio_steps import first_done, steps
from pdc.ring.host.replies import Reply
from pdc.ring.host.waiting import Waiter, async_delay
from pdc.ring.protocol import BLOCKED, D_SENDING, NORMAL, REJECTED, RingStateError
from pdc.ring.protocol.args import seconds_arg

if TYPE_CHECKING:
    from pdc.ring.host.consumer import Consumer
    from pdc.ring.host.producer import Producer

__all__ = ["Kernel", "Port", "call_async", "receive_async", "send_async"]


class Kernel(Protocol):
    """What the asyncio side uses of a kernel (a ``RingKernel``): its id and its two sides."""

    kernel_id: str
    producer: Producer
    consumer: Consumer


class Port:
    """The awaiting calls of one kernel on one event loop."""

    def __init__(self, consumer: Consumer):
        self.consumer = consumer
        self.by_id: dict[int, asyncio.Future] = {}
        self.any: collections.deque[asyncio.Future] = collections.deque()
        self.task: asyncio.Task | None = None
        self.send_turn = asyncio.Lock()
        self.seen = -1  # the stash version last scanned for awaited ids

    def start(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._poll())

    def _deliver(self) -> int:
        """Resolve what can be resolved now (consumer lock held by the caller).

        A future that is done already (timed out, cancelled) is never resolved and its
        reply stays in the stash; a reply leaves the stash for a future only in the same
        step that resolves it (``_hand``).
        """
        k, n = self.consumer, 0
        for corr in [c for c, f in self.by_id.items() if f.done()]:
            del self.by_id[corr]
        self.any = collections.deque(f for f in self.any if not f.done())
        stash = k.stash
        stash.settle(k.host)
        box: list = [None]  # a reply claimed and not yet resolved: put back if interrupted
        try:
            if stash.fill(k.host, 1 << 30) or (self.by_id and stash.version != self.seen):
                for corr in list(self.by_id):
                    if k.claim_id(box, corr):
                        n += self._hand(box, self.by_id[corr])
                        del self.by_id[corr]  # resolved (a later turn drops it if not)
                self.seen = stash.version
            while self.any and stash.count:
                if not k.claim_next(box):  # the stash holds only replies calls await
                    break
                n += self._hand(box, self.any[0])
                self.any.popleft()
        except BaseException:
            found = box[0]
            if found is not None:  # the lock is held: put back directly
                k.received -= stash.unclaim(*found)
                box[0] = None
            raise
        return n

    def _hand(self, box: list, fut: asyncio.Future) -> int:
        """Resolve ``fut`` with the reply claimed in ``box`` (put back if it cannot be)."""
        k = self.consumer
        reply = k.reply_of(box[0])
        errors = k.errors
        if errors and reply.corr_id in errors:
            del errors[reply.corr_id]
        if fut.done():  # its awaiter went away: the reply stays for another
            k.received -= k.stash.unclaim(*box[0])
            box[0] = None
            return 0
        box[0] = None  # the future takes it in the next (C) call
        fut.set_result(reply)
        return 1

    def _drop_check(self) -> None:
        drops = self.consumer.drops
        drops.harvest()
        for corr in [c for c in self.by_id if c in drops.seen]:
            fut = self.by_id.pop(corr)
            if not fut.done():
                try:
                    drops.check(corr, "call_async", True)
                except Exception as exc:
                    fut.set_exception(exc)

    @steps
    def _poll(self):
        try:
            yield from self._polling()
        finally:
            # A finished poller holds its event loop: let the port (kept per loop, weakly)
            # go with the loop once it is closed.
            if self.task is asyncio.current_task():
                self.task = None

    def _polling(self):
        k, delay = self.consumer, 0.0
        while self._waiting():
            with k.lock:
                n = self._deliver()
            if n:
                delay = 0.0
                yield  # asyncio.sleep(0): one turn of the loop, with no coroutine to drop
                continue
            if k.dropping and self.by_id:
                self._drop_check()
            if k.nothing_left():
                with k.lock:
                    self._deliver()
                self._fail_all()
                return
            delay = async_delay(delay)
            yield from first_done((), delay)  # asyncio.sleep without its coroutine

    def _waiting(self) -> bool:
        """True while a future waits (done ones are dropped here)."""
        return any(not f.done() for f in self.by_id.values()) or any(not f.done() for f in self.any)

    def _fail_all(self) -> None:
        k = self.consumer
        waiting = [*self.by_id.items(), *((None, f) for f in self.any)]
        self.by_id.clear()
        self.any.clear()
        for corr, fut in waiting:
            if not fut.done():
                what = "a reply" if corr is None else f"the reply to message {corr}"
                fut.set_exception(k.timeout_error("receive_async", None, what))


def _port(consumer: Consumer) -> Port:
    loop = asyncio.get_running_loop()
    port = consumer.ports.get(loop)
    if port is None:
        port = consumer.ports[loop] = Port(consumer)
    return port


@steps
def _await(consumer: Consumer, fut: asyncio.Future, timeout: float | None, what: str):
    """The reply ``fut`` resolves to; a reply it got but its awaiter never took goes back.

    A poller that stopped (an exception, Ctrl-C in its task) is started again.
    """
    port = _port(consumer)
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    try:
        while not fut.done():
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                raise asyncio.TimeoutError
            port.start()
            poller = port.task
            assert poller is not None
            yield from first_done((fut, poller), left)
            if poller.done() and not poller.cancelled():
                poller.exception()  # seen here: the next turn starts a new poller
        reply = fut.result()
        return reply
    except asyncio.TimeoutError:
        _give_back(consumer, fut)
        raise consumer.timeout_error("receive_async", timeout, what) from None
    except BaseException:
        _give_back(consumer, fut)
        raise


def _give_back(consumer: Consumer, fut: asyncio.Future) -> None:
    """Put the reply of a resolved future whose awaiter went away back in the stash."""
    if fut.done() and not fut.cancelled() and fut.exception() is None:
        consumer.restore(fut.result())
    elif not fut.done():
        fut.cancel()


async def send_async(
    kernel: Kernel, message: Any = None, /, *, priority: Any = NORMAL, **fields: Any
) -> int:
    """``send`` that awaits (instead of blocking the thread) while the queue is full."""
    lane, values = kernel.producer.parse(message, priority, fields, "send_async")
    return await _send(kernel, values, lane, None)


@steps
def _send(kernel: Kernel, values: tuple, lane: int, reserve: list[int] | None):
    """Push one message, awaiting room; ``reserve``: its reply is kept for ``call_async``.

    The producer lock is taken by ``with`` when it looks free (an interrupt never leaves
    it held); while a thread holds it, this task awaits instead of blocking its loop.
    """
    op = "send_async" if reserve is None else "call_async"
    producer = kernel.producer
    if producer.backpressure != "block":
        return producer.send_one(lane, values, reserve, op)
    port = _port(kernel.consumer)
    turn = port.send_turn
    held = False
    try:
        yield from turn.acquire().__await__()
        held = True  # no signal check between the acquire's end and this store
        waiter = Waiter(producer.block_timeout, 0)
        delay, counted = 0.0, False
        while True:
            if not producer.lock.locked():
                with producer.lock:
                    corr = _try_push(producer, lane, values, reserve, op)
                    if corr:
                        return corr
                    if not counted:
                        producer.host.add(BLOCKED)
                        counted = True
                    waiter.progress(producer.host.tail(lane))
                    if waiter.expired():
                        producer.host.add(REJECTED)
                        raise producer.full_error(lane, op, producer.block_timeout)
            kernel.consumer.drain()
            producer.engine.wake()
            delay = async_delay(delay)
            yield from first_done((), delay)  # asyncio.sleep without its coroutine
    finally:
        if held:
            turn.release()


def _try_push(
    producer: Producer, lane: int, values: tuple, reserve: list[int] | None, op: str
) -> int:
    """One try to push (producer lock held): the id, or 0 when the lane is full."""
    words = producer.words
    words[D_SENDING] = 1  # the compiled call keeps off the rings
    try:
        try:
            producer.life.check(op)
        except RingStateError:
            producer.host.add(REJECTED)
            raise
        corr = producer.next_id
        if producer.host.free(lane) <= 0:
            return 0
        producer.format.check_values(values, op)
        producer.next_id = corr + 1
        if reserve is not None:  # before it is published
            reserve[0] = corr
            producer.awaited.add(corr)
        if producer.host.push(lane, corr, values):
            producer.engine.wake()
            return corr
        producer.awaited.discard(corr)
        producer.next_id = corr
        return 0
    finally:
        words[D_SENDING] = 0


async def receive_async(kernel: Kernel, timeout: float | None = None) -> Reply:
    """``receive`` that awaits, letting other tasks run while no reply is ready."""
    timeout = seconds_arg("receive_async", kernel.kernel_id, "timeout", timeout)
    consumer = kernel.consumer
    box: list = [None]
    try:
        with consumer.lock:
            ready = consumer.claim_next(box)
        if ready:
            reply = consumer.reply_of(box[0])
            errors = consumer.errors
            if errors and reply.corr_id in errors:
                del errors[reply.corr_id]
            box[0] = None  # handed out: no signal check between here and the return
            return reply
    except BaseException:
        consumer.unclaim(box)
        raise
    port = _port(consumer)
    fut = asyncio.get_running_loop().create_future()
    port.any.append(fut)
    port.start()
    return await _await(consumer, fut, timeout, "a reply")


async def call_async(
    kernel: Kernel,
    message: Any = None,
    /,
    *,
    timeout: float | None = None,
    check: bool = True,
    priority: Any = NORMAL,
    **fields: Any,
) -> Reply:
    """``call`` for asyncio code (one poller per event loop serves every awaiting call)."""
    consumer = kernel.consumer
    reserved = [0]
    r: Reply | None = None
    try:
        timeout = seconds_arg("call_async", kernel.kernel_id, "timeout", timeout)
        lane, values = kernel.producer.parse(message, priority, fields, "call_async")
        corr = await _send(kernel, values, lane, reserved)
        consumer.drops.check(corr, "call_async", consumer.dropping)
        port = _port(consumer)
        fut = asyncio.get_running_loop().create_future()
        port.by_id[corr] = fut
        port.start()
        r = await _await(consumer, fut, timeout, f"the reply to message {corr}")
        failure = r.failure() if check else None
        consumer.awaited.discard(corr)
        reply, r = r, None  # handed out: no signal check between here and the return
    except BaseException:
        if r is not None:  # received, but this call ends with an error: keep the reply
            consumer.restore(r)
        if reserved[0]:  # however it ended, receive() may have it from now on
            consumer.awaited.discard(reserved[0])
        raise
    if failure is not None:
        raise failure
    return reply

"""Awaitables for the asyncio side that an interrupt can never leave "never awaited".

A coroutine object that is created and then dropped before its first step makes Python
warn ("RuntimeWarning: coroutine ... was never awaited"). Ctrl-C can land exactly there:
CPython checks for signals right after a call returns, before its result is stored or
awaited. So the internal steps of ``pdc.ring.aio`` are plain generators wrapped in
``Steps`` (a ``collections.abc.Coroutine``, so a task can run one and ``await`` takes one),
and they wait on futures only (``sleep``, ``first_done``, ``Turns``) instead of
``asyncio.sleep``, ``asyncio.wait`` or ``asyncio.Lock``, whose coroutines would warn. A
generator dropped before it started says nothing. The public ``*_async`` functions stay
ordinary coroutines: a caller who forgets ``await`` is still warned.
"""

from __future__ import annotations

import asyncio
import collections
import functools
from collections.abc import Callable, Coroutine, Generator, Iterable
from typing import Any

__all__ = ["Steps", "Turns", "first_done", "sleep", "steps"]


class Steps(Coroutine):
    """A generator of asyncio steps, awaitable and runnable as a task, that never warns."""

    __slots__ = ("_gen",)

    def __init__(self, gen: Generator[Any, Any, Any]):
        self._gen = gen

    def __await__(self) -> Generator[Any, Any, Any]:
        return self._gen

    __iter__ = __await__

    def send(self, value: Any) -> Any:
        return self._gen.send(value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        if val is None and tb is None:
            return self._gen.throw(typ)
        return self._gen.throw(typ, val, tb)  # the three-argument form some callers use

    def close(self) -> None:
        self._gen.close()


def steps(genfunc: Callable[..., Generator[Any, Any, Any]]) -> Callable[..., Steps]:
    """Decorate a generator function: calling it returns a ``Steps`` (await it)."""

    @functools.wraps(genfunc)
    def make(*args: Any, **kwargs: Any) -> Steps:
        return Steps(genfunc(*args, **kwargs))

    return make


def _resolve(fut: asyncio.Future, *_: Any) -> None:
    if not fut.done():
        fut.set_result(None)


@steps
def sleep(delay: float) -> Generator[Any, Any, None]:
    """``asyncio.sleep(delay)`` on a future (``delay <= 0``: one turn of the loop)."""
    if delay <= 0:
        yield  # a bare yield: the task runs again on the loop's next turn
        return
    loop = asyncio.get_running_loop()
    fut = loop.create_future()
    handle = loop.call_later(delay, _resolve, fut)
    try:
        yield from fut
    finally:
        handle.cancel()


@steps
def first_done(futures: Iterable[asyncio.Future], timeout: float | None) -> Generator:
    """Wait until one of ``futures`` is done or ``timeout`` s passed (``asyncio.wait``'s
    ``FIRST_COMPLETED``, on a future of its own)."""
    loop = asyncio.get_running_loop()
    waiter = loop.create_future()
    wake = functools.partial(_resolve, waiter)
    watched = list(futures)
    handle = None if timeout is None else loop.call_later(timeout, wake)
    try:
        for f in watched:
            f.add_done_callback(wake)
        yield from waiter
    finally:
        if handle is not None:
            handle.cancel()
        for f in watched:
            f.remove_done_callback(wake)


class Turns:
    """Tasks take turns, first come first served (``asyncio.Lock``, on futures only).

    ``acquire(held)`` sets ``held[0]`` in the same step that the turn becomes the caller's,
    so that ``finally: if held[0]: turns.release()`` never loses a turn to an interrupt.
    """

    def __init__(self) -> None:
        self.busy = False
        self.waiting: collections.deque[asyncio.Future] = collections.deque()

    @steps
    def acquire(self, held: list) -> Generator[Any, Any, None]:
        if not self.busy and not self.waiting:
            held[0] = self.busy = True
            return
        fut = asyncio.get_running_loop().create_future()
        self.waiting.append(fut)
        try:
            yield from fut
        except BaseException:
            if fut.done() and not fut.cancelled():  # handed the turn, then left: pass it on
                self.release()
            elif fut in self.waiting:
                self.waiting.remove(fut)
            raise
        held[0] = True  # release() handed the turn over (busy stayed True)

    def release(self) -> None:
        """End the caller's turn: hand it to the first task still waiting, if any."""
        while self.waiting:
            fut = self.waiting.popleft()
            if not fut.done():
                fut.set_result(None)
                return
        self.busy = False

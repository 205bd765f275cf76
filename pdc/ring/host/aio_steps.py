"""Awaitables for the asyncio side that an interrupt can never leave "never awaited".

A coroutine object that is created and then dropped before its first step makes Python
warn ("RuntimeWarning: coroutine ... was never awaited"). Ctrl-C can land exactly there:
CPython checks for signals right after a call returns, before its result is stored or
awaited. So the internal steps of ``pdc.ring.host.aio`` are plain generators wrapped in
``Steps`` (a ``collections.abc.Coroutine``, so a task can run one and ``await`` takes one):
a generator dropped before it started says nothing. The public ``*_async`` functions stay
ordinary coroutines: a caller who forgets ``await`` is still warned.

``first_done`` replaces ``asyncio.wait``, and with no futures ``asyncio.sleep``. What is
left: async senders take turns with asyncio's own ``Lock``, whose ``acquire`` coroutine is
created in a step's frame and can be dropped there (Python then warns, nothing is lost).
Waiting on futures with callbacks of our own instead made an interrupt inside such a
callback (run by the event loop) lose its wake-up and hang the loop, so asyncio keeps it.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine, Generator
from typing import Any

__all__ = ["Steps", "first_done", "steps"]


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


_WOKEN = "pdc.ring: woken"  # the cancel message of a waiter ended by first_done itself


@steps
def first_done(futures: tuple[Any, ...], timeout: float | None) -> Generator[Any, Any, None]:
    """Wait until one of ``futures`` is done or ``timeout`` s passed (``asyncio.wait`` with
    ``FIRST_COMPLETED``, without its coroutine).

    The wake-ups are C methods, never Python callbacks of ours (an interrupt inside one,
    run by the event loop, would lose it): each future's done callback and the timer
    cancel a waiter future with a message of their own, and that cancellation ends the
    wait; a cancellation of the task (no such message) goes on as usual, and so does one
    that lands after a wake-up was delivered, which the task's count of cancel requests
    shows (Python 3.11 and later, which the course's environment runs; on 3.10, which has no
    such count, a cancellation that lands in that instant is lost).
    """
    loop = asyncio.get_running_loop()
    waiter = loop.create_future()
    handle = None
    # A cancellation of the task that lands while a wake-up is already delivered reaches the
    # generator as that wake-up (Task.cancel finds the waiter cancelled and the task passes
    # the waiter's error on): the task's count of cancel requests tells them apart.
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)  # Python 3.11 and later
    before = cancelling() if cancelling is not None else 0
    try:
        for f in futures:
            f.add_done_callback(waiter.cancel)  # called as cancel(f): f is the message
        if timeout is not None:
            handle = loop.call_later(timeout, waiter.cancel, _WOKEN)
        yield from waiter
    except asyncio.CancelledError as exc:
        woken = (
            waiter.cancelled()
            and exc.args
            and (exc.args[0] is _WOKEN or any(exc.args[0] is f for f in futures))
        )
        if not woken or (cancelling is not None and cancelling() > before):
            raise
    finally:
        if handle is not None:
            handle.cancel()
        for f in futures:
            f.remove_done_callback(waiter.cancel)

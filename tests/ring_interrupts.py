"""A harness that interrupts ring operations at every point where Python checks for signals.

CPython 3.11 runs a pending signal handler (Ctrl-C's ``KeyboardInterrupt``) only at a few
points of the bytecode: the entry of a function (``RESUME``), right after a ``CALL``
returns (before its result is stored) and at a backward jump (a loop). ``Injector``
traces the frames of ``pdc.ring`` opcode by opcode and raises ``KeyboardInterrupt`` at
the first such point not interrupted before, so that running an operation again and again
delivers an interrupt at each of them in turn. It is stricter than the interpreter in one way: it also
counts the return of a Python callee as a check point (3.11 does not check there; a later
version may).

``cancel_at_each_await`` does the same for asyncio: it cancels the operation's task after
its ``n``-th step, for ``n = 0, 1, 2...``, until the operation finishes first.
"""

from __future__ import annotations

import asyncio
import dis
import os
import sys
from collections.abc import Callable
from typing import Any

import pdc.ring

_RING = os.path.dirname(pdc.ring.__file__) + os.sep
_CALLS = {dis.opmap[n] for n in ("CALL", "CALL_FUNCTION_EX") if n in dis.opmap}
_BACK = {dis.opmap[n] for n in ("JUMP_BACKWARD",) if n in dis.opmap}
_RESUME = dis.opmap.get("RESUME", -1)


# Finalizers the garbage collector may run in the middle of any operation: Python ignores
# an exception raised in one ("Exception ignored in ..."), so it never reaches the
# operation, and an interrupt injected there only tests the collector's timing.
_FINALIZERS = {"_collect"}


def _ring_code(code: Any) -> bool:
    name = code.co_filename
    ours = name.startswith(_RING) or name.startswith("<pdc.ring")
    return ours and code.co_name not in _FINALIZERS


class Injector:
    """Raise ``KeyboardInterrupt`` at the first signal check point not in ``done``.

    A point is a place in the code (file, function, bytecode offset) and how many times
    this run passed it before (0, 1, or "2 or more"): a wait loop's thousandth turn is
    the same point as its third, so every operation has finitely many points.

    Attributes:
        points: Check points passed so far.
        fired: The point where it raised, or None.
    """

    def __init__(self, done: set):
        self.done = done
        self.points = 0
        self.fired: tuple[str, str, int, int] | None = None
        self._seen: dict[tuple[Any, int], int] = {}
        self._after_call: dict[int, bool] = {}

    def _point(self, frame: Any) -> None:
        self.points += 1
        code = frame.f_code
        place = (code, frame.f_lasti)
        times = self._seen.get(place, 0)
        self._seen[place] = times + 1
        key = (code.co_filename, code.co_name, frame.f_lasti, min(times, 2))
        if key not in self.done:
            self.done.add(key)
            self.fired = key
            raise KeyboardInterrupt(f"injected at {key}")

    def __call__(self, frame: Any, event: str, arg: Any) -> Any:
        if event != "call" or self.fired is not None or not _ring_code(frame.f_code):
            return None
        frame.f_trace_opcodes = True
        self._after_call[id(frame)] = False
        co = frame.f_code.co_code
        i = frame.f_lasti
        if 0 <= i < len(co) and co[i] == _RESUME and co[i + 1] < 2:
            self._point(frame)  # a function's entry (not a coroutine resumed after await)
        return self._local

    def _local(self, frame: Any, event: str, arg: Any) -> Any:
        if self.fired is not None:
            return None
        key = id(frame)
        if event == "opcode":
            op = frame.f_code.co_code[frame.f_lasti]
            after_call = self._after_call.get(key, False)
            self._after_call[key] = op in _CALLS
            if after_call or op in _BACK:
                self._point(frame)
        elif event == "return":
            self._after_call.pop(key, None)
        return self._local


def interrupt_each_point(
    op: Callable[[], Any], prepare: Callable[[], Any] | None = None, limit: int = 5000
) -> dict[str, Any]:
    """Run ``op()`` with an interrupt at each of its check points in turn until it completes.

    ``op`` is called once per trial (a fresh operation each time), after ``prepare()``
    (not traced). Returns counts:
    ``injected`` (trials interrupted), ``points`` (check points of the run that
    completed), ``results`` (what each completed or interrupted trial returned: the
    value, or the exception), and ``where`` (the distinct points hit).
    """
    results: list[Any] = []
    where: set[tuple[str, str, int, int]] = set()
    injected = 0
    for _ in range(limit):
        if prepare is not None:
            prepare()
        inj = Injector(where)
        sys.settrace(inj)
        try:
            value = op()
        except KeyboardInterrupt as exc:
            results.append(exc)
        except Exception as exc:  # an error the operation raises by design (timeouts...)
            results.append(exc)
        else:
            results.append(value)
        finally:
            sys.settrace(None)
        if inj.fired is None:
            return {"injected": injected, "points": inj.points, "results": results, "where": where}
        injected += 1
    raise AssertionError(
        f"[interrupt_each_point] expected the operation to finish within {limit} points"
    )


async def cancel_at_each_await(op: Callable[[], Any], limit: int = 2000) -> dict[str, Any]:
    """Run ``op()`` (a coroutine function) as a task cancelled after step 0, 1, 2...

    Returns ``cancelled`` (trials cancelled before they finished) and ``results``.
    """
    results: list[Any] = []
    cancelled = 0
    for n in range(limit):
        task = asyncio.ensure_future(op())
        for _ in range(n):
            if task.done():
                break
            await asyncio.sleep(0)
        done_first = task.done()
        task.cancel()
        try:
            results.append(await task)
        except BaseException as exc:  # noqa: BLE001 - the trial's outcome, kept
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            results.append(exc)
        if done_first:
            return {"cancelled": cancelled, "results": results}
        cancelled += 1
    raise AssertionError(
        f"[cancel_at_each_await] expected the operation to finish within {limit} steps"
    )


def run_to_end(coro: Any) -> Any:
    """Run ``coro`` on a new event loop; a Ctrl-C in another task does not end it.

    A program that catches ``KeyboardInterrupt`` and runs its loop on sees the operation
    finish: when the interrupt landed in another task (the kernel's poller), the loop is
    run again until the operation's own task is done.
    """
    loop = asyncio.new_event_loop()
    try:
        task = loop.create_task(coro)
        while True:
            try:
                return loop.run_until_complete(task)
            except KeyboardInterrupt:
                sys.settrace(None)
                if task.done():  # the operation's own outcome (it may have ended well)
                    return task.result()
    finally:
        left = asyncio.all_tasks(loop)
        for t in left:
            t.cancel()
        if left:
            loop.run_until_complete(asyncio.wait(left))
        loop.close()

"""``call`` specialised for one cpu kernel: the field names as keywords, one compiled call.

``RingKernel.call(message=None, /, *, timeout, check, priority, **fields)`` is general: it
takes a record or keywords, any priority form, numpy scalars, every backpressure mode. On
the cpu backend with a compiled handler most calls are the simplest case, every field by
keyword as a plain ``int`` or ``float``, and the general path's Python (the ``**fields``
dict, its parsing, the dispatcher's type resolution) costs more than the ring round trip.
For such kernels ``make_call`` generates, once per kernel, a function with the request's
field names as keyword-only parameters:

    ``call(message=None, /, *, x=<missing>, timeout=None, check=True, priority="normal",
    **extra)``

When every field came as a plain Python number of its field's kind, it takes the kernel's
consumer lock and calls the compiled entry point of ``pdc.ring.host.fast`` directly (numba's
native wrapper for the exact argument types, without the dispatcher's type resolution);
the compiled call keeps off the rings while a producer of the general path works on them
(its flag ``D_SENDING``), so the producer lock is not needed. Anything else (a record, a
missing or extra field, a numpy scalar, a float for an int field, a bad priority, a full
lane, a producer at work, a terminated kernel, ``drop_oldest``) goes to the general
``call``, which parses, raises or waits by the kernel's rules: the two paths give the same
results and errors.

It is generated source (``exec``) because Python has no other way to make a function whose
keyword parameters are names known only at run time without a ``**kwargs`` dict per call.
"""

from __future__ import annotations

import keyword
import linecache
from typing import TYPE_CHECKING, Any

import numpy as np

from pdc.ring.host.replies import Reply
from pdc.ring.protocol import HIGH, NORMAL, PY_EXCEPTION

if TYPE_CHECKING:
    from pdc.ring.host.consumer import Consumer
    from pdc.ring.host.fast import FastCall

__all__ = ["make_call"]


class _Required:
    """The default of a field parameter: the caller must give the field."""

    def __repr__(self) -> str:
        return "<required>"


_MISSING = _Required()

_SOURCE = """\
def call(message=None, /, *, {params}, timeout=None, check=True, priority=_q_NORMAL, **_q_extra):
    if priority is _q_NORMAL:  # the default, the same object: no lookup
        _q_arg = _q_NORMAL_ARG
    elif _q_type(priority) is _q_str or _q_type(priority) is _q_int:
        _q_arg = _q_LANES.get(priority)
    else:
        _q_arg = None
    _q_code = -1 if (
        message is not None or _q_extra or _q_arg is None or {not_plain}
        or not (timeout is None or (_q_type(timeout) is _q_int and timeout >= 0)
                or (_q_type(timeout) is _q_float and 0.0 <= timeout < _q_INF))
    ) else 0
    _q_held = _q_mine = 0
    _q_box = _q_res = None  # made on the slow paths only
    try:
        if _q_code == 0:
            with _q_recv_lock:  # the consumer lock (see _entered)
                if _q_stash.inflight is not None:  # a move an interrupt cut short
                    _q_stash.settle(_q_host)
                if _q_life.terminated:
                    _q_code = -2
                else:
                    try:
                        _q_code, _q_corr, _q_status, _q_vals = _q_entry(_q_arg, {args})
                        if _q_code == 2:  # replied: off the ring, held until handed out
                            # Reply's fields stored here: no __init__ frame (a tenth of a call).
                            _q_reply = _q_new(_q_Reply)
{reply_stores}
                            # One statement: the hold released, the reply this call's.
                            _q_words[_q_HELD], _q_c.received, _q_mine = 0, _q_c.received + 1, 1
                        elif _q_code == 1:  # sent; its reply was not next: reserved, wait below
                            _q_held = _q_corr
                            _q_awaited.add(_q_held)
                    except _q_refused:
                        _q_code = -1
                    except _q_BaseException:  # interrupted after the reply was taken: keep it
                        _q_unhold(_q_c, _q_fast)
                        raise
            if _q_code == 2:
                if check and _q_status:
                    _q_failure = _q_reply.failure()
                    if _q_errors and _q_corr in _q_errors:
                        del _q_errors[_q_corr]
                    _q_mine = 0
                    raise _q_failure
                _q_mine = 0  # handed out: no signal check between here and the return
                return _q_reply
        _q_box = [None]
        if _q_code == 1:
            _q_c.engine.wake()
            _q_c.wait_claim(_q_box, _q_held, timeout, "call")
            _q_got = _q_c.reply_of(_q_box[0])
            _q_failure = _q_got.failure() if check else None
        else:  # the general path parses, sends, waits, drops or raises by the kernel's rules
            _q_res = [0]
            _q_got, _q_failure = _q_c.call_claim(
                _q_box, _q_res, message, timeout, check, priority,
                _q_present(_q_extra, {pairs}),
            )
            _q_held = _q_res[0]
            _q_res[0] = 0
        _q_awaited.discard(_q_held)
        if _q_errors and _q_got.corr_id in _q_errors:
            del _q_errors[_q_got.corr_id]
        _q_held = 0
        _q_box[0] = None  # handed out: no signal check between here and the return
        if _q_failure is not None:
            raise _q_failure
        return _q_got
    except _q_BaseException:
        if _q_mine:  # the reply was this call's, and it was not handed out: keep it
            _q_c.restore(_q_reply)
        if _q_box is not None:
            _q_c.unclaim(_q_box)
        if _q_held:
            _q_awaited.discard(_q_held)
        if _q_res is not None and _q_res[0]:
            _q_awaited.discard(_q_res[0])
        raise
"""


# Every field of a Reply, and how the quick call computes it (checked against its slots).
_REPLY_FIELDS = {
    "kernel_id": "_q_kid",
    "corr_id": "_q_corr",
    "status": "_q_status",
    "_names": "_q_names",
    "_vals": "_q_vals",
    "error": "_q_errors.get(_q_corr) if _q_errors and _q_status == _q_PY_EXC else None",
}
if set(_REPLY_FIELDS) != set(Reply.__slots__):
    raise ImportError(
        f"[pdc.ring.host.quick] expected Reply fields {sorted(_REPLY_FIELDS)}, "
        f"got {sorted(Reply.__slots__)}"
    )


def _present(extra: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """The fields the caller gave (a parameter left at its default was not given)."""
    return {**{n: v for n, v in fields.items() if v is not _MISSING}, **extra}


def _unhold(consumer: Consumer, fast: FastCall) -> None:
    """Put a reply the compiled call took, and nobody was handed, back in the stash."""
    held = fast.held()
    if held is not None:
        corr, status, rec = held
        out = np.zeros(1, consumer.reply_dtype)
        out[0] = tuple(rec[n] for n in consumer.rep_names)
        consumer.stash.restore(corr, status, out)


def _entered(lock: Any) -> Any:
    """``lock`` as a context manager whose ``__enter__`` and ``__exit__`` are the lock's own.

    ``with lock`` looks up ``__enter__`` and ``__exit__`` on the lock's type and binds each
    to the lock: two method objects per call (measured: about 0.13 us of a 2.1 us quick
    call). Stored already bound on a class of their own, they are found and called as
    they are. The same C functions run at the same points (``with`` has no signal check
    between the acquire and the block), so an interrupt finds the lock as ``with lock``
    would. An explicit ``acquire()`` would be cheaper still, but a signal can land right
    after that call returns, before any ``try`` could release the lock.
    """
    cls = type(
        "_Entered", (), {"__slots__": (), "__enter__": lock.acquire, "__exit__": lock.__exit__}
    )
    return cls()


def make_call(consumer: Consumer, fast: FastCall) -> Any:
    """The specialised ``call`` of one cpu kernel, or None where it does not apply.

    It applies when every request field name is a Python identifier (not a keyword) and
    numba gives the compiled call a native entry point for plain ints and floats.
    """
    names = fast.names
    if not names or any(
        not n.isidentifier() or keyword.iskeyword(n) or n.startswith("_q_") or n == "MISSING"
        for n in names
    ):
        return None
    entry = fast.entry()
    if entry is None:
        return None
    kinds = [fast.rings.request_dtype[n].kind for n in names]
    plain = {"f": "_q_float", "b": "_q_bool"}
    checks = [
        f"_q_type({n}) is not {plain.get(kind, '_q_int')}"
        for n, kind in zip(names, kinds, strict=True)
    ]
    src = _SOURCE.format(
        params=", ".join(f"{n}=MISSING" for n in names),
        not_plain=" or ".join(checks),
        pairs=", ".join(f"{n}={n}" for n in names),
        args=", ".join(names),
        reply_stores="\n".join(
            f"{' ' * 28}_q_reply.{slot} = {expr}" for slot, expr in _REPLY_FIELDS.items()
        ),
    )
    lanes = {"high": HIGH, "normal": NORMAL, HIGH: HIGH, NORMAL: NORMAL}
    ns: dict[str, Any] = {
        "MISSING": _MISSING,
        # The compiled call's first argument for each lane (``FastCall.arg``).
        "_q_LANES": {p: fast.arg(lane) for p, lane in lanes.items()},
        "_q_NORMAL": "normal",
        "_q_NORMAL_ARG": fast.arg(NORMAL),
        "_q_type": type,
        "_q_str": str,
        "_q_int": int,
        "_q_float": float,
        "_q_bool": bool,
        "_q_INF": float("inf"),
        "_q_stash": consumer.stash,
        "_q_host": consumer.host,
        "_q_errors": consumer.errors,
        "_q_BaseException": BaseException,
        "_q_present": _present,
        "_q_recv_lock": _entered(consumer.lock),
        "_q_c": consumer,
        "_q_life": consumer.life,
        "_q_unhold": _unhold,
        "_q_entry": entry,
        "_q_Reply": Reply,
        "_q_new": object.__new__,
        "_q_kid": consumer.kernel_id,
        "_q_names": consumer.host.reply_fields,
        "_q_PY_EXC": PY_EXCEPTION,
        "_q_words": fast.words,
        "_q_HELD": fast.HELD,
        "_q_awaited": consumer.awaited,
        "_q_refused": fast.refused,
        "_q_fast": fast,
    }
    filename = f"<pdc.ring.host.quick {consumer.kernel_id}>"
    # The source goes where tracebacks, debuggers and tracers look for it.
    linecache.cache[filename] = (len(src), None, src.splitlines(keepends=True), filename)
    exec(compile(src, filename, "exec"), ns)
    call = ns["call"]
    call.__doc__ = consumer.call.__doc__
    call.__qualname__ = "RingKernel.call"
    return call

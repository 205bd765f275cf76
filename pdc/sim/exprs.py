"""Expressions of numba-cuda's typed IR as closures of the frame: arithmetic, calls,
attributes, indexing, tuples and iterators.

Each returns ``(value, undefined mask)`` for the threads the frame runs; the program builder
(pdc.sim.program) calls ``compile_expr`` once per IR expression.
"""

from __future__ import annotations

import operator

import numpy as np

from pdc.sim import arith, calls, iters, machine, memops, reloads, views
from pdc.sim.frontend import Unsupported, dtype_of, is_scalar


def compile_expr(bld, e, t, site, line, tgt):
    op = e.op
    if op in ("binop", "inplace_binop"):
        return _binop(bld, e, site)
    if op == "unary":
        f = arith.unary(e.fn, bld.ct[e])
        get = bld.getter(e.value)

        def un(fr):
            v, u = get(fr)
            return f(v), u

        return un
    if op == "call":
        return calls.compile_call(bld, e, t, site, line, tgt)
    if op == "getattr":
        return calls.compile_getattr(bld, e, t, site)
    if op in ("getitem", "static_getitem", "typed_getitem"):
        return _getitem(bld, e, t, site, line)
    if op == "build_tuple":
        gets = [bld.getter(v) for v in e.items]

        def tup(fr):
            vals = [g(fr) for g in gets]
            return tuple(v for v, _ in vals), _or_und([u for _, u in vals])

        return tup
    if op == "exhaust_iter":
        get = bld.getter(e.value)
        return get
    if op == "getiter":
        get = bld.getter(e.value)

        def it(fr):
            r, u = get(fr)
            return iters.make(r, site, line), u

        return it
    if op == "iternext":
        get = bld.getter(e.value)
        return lambda fr: get(fr)[0].next(fr)
    if op in ("pair_first", "pair_second"):
        get = bld.getter(e.value)
        k = 0 if op == "pair_first" else 1
        return lambda fr: (get(fr)[0][k], get(fr)[1])
    if op == "cast":
        get = bld.getter(e.value)
        rt = bld.tir.return_type
        if is_scalar(rt):
            dt = dtype_of(rt)
            return lambda fr: (arith.cast(get(fr)[0], dt), get(fr)[1])
        return get
    if op == "null":
        # numba's placeholder for a variable that some paths reach unassigned (an array
        # declared inside a loop, used after it): undefined until assigned.
        if not is_scalar(t):
            return lambda fr: (None, None)
        zero = dtype_of(t).type(0)

        def unassigned(fr):
            fr.S.undef_from.add("unassigned")
            return zero, np.ones(fr.S.N, dtype=bool)

        return unassigned
    raise Unsupported(f"the simulator does not support the operation {op!r} yet ({site})")


def _binop(bld, e, site):
    lhs, rhs = bld.getter(e.lhs), bld.getter(e.rhs)
    fn = e.fn
    if fn is operator.contains:
        return _contains(lhs, rhs, site)
    if fn in (operator.is_, operator.is_not):
        raise Unsupported(f"the simulator does not support {fn.__name__} yet ({site})")
    f = arith.binop(fn, bld.ct[e])
    intdiv = getattr(f, "int_division", False)
    absorbing = fn in _ABSORBED_BY_ZERO
    checked = getattr(f, "checked", None)
    if checked is not None:
        return _raising_binop(lhs, rhs, checked, site)

    def run(fr):
        a, ua = lhs(fr)
        b, ub = rhs(fr)
        if intdiv:
            zero = np.asarray(b) == 0
            if zero.ndim and zero[fr.lanes].any():
                k = fr.lanes[int(np.argmax(zero[fr.lanes]))]
                fr.S.finding(
                    "error",
                    "integer division by zero (a GPU gives an undefined result)",
                    k,
                    site,
                    count=int(zero[fr.lanes].sum()),
                )
            elif not zero.ndim and zero:
                fr.S.finding("error", "integer division by zero", fr.lanes[0], site)
        with np.errstate(all="ignore"):
            out = f(a, b)
        u = _or_und((ua, ub))
        if absorbing and u is not None:
            u = _absorbed(out, a, ua, b, ub, u)
        return out, u

    return run


#: Integer operators whose result a defined zero operand decides alone: ``x * 0`` and
#: ``x & 0`` are 0 whatever bits an undefined ``x`` holds, on a GPU as here (floats are not:
#: an undefined float may be NaN or infinite, and ``nan * 0`` is NaN).
_ABSORBED_BY_ZERO = frozenset({operator.mul, operator.imul, operator.and_, operator.iand})


def _absorbed(out, a, ua, b, ub, u):
    """The undefined mask of an integer ``a * b`` or ``a & b``: defined where either operand
    is a defined zero."""
    if np.asarray(out).dtype.kind not in "iub":
        return u
    zero = np.zeros(u.shape, dtype=bool)
    for v, uv in ((a, ua), (b, ub)):
        z = np.asarray(v) == 0
        zero |= z if uv is None else z & ~uv
    u = u & ~zero
    return u if u.any() else None


def _contains(seq, item, site):
    """``item in seq`` for a range (``i in range(n)``, as numba computes it from start, stop
    and step) or a tuple of numbers."""

    def run(fr):
        s, us = seq(fr)
        v, uv = item(fr)
        v = np.asarray(v)
        if isinstance(s, iters.RangeIt):
            start, stop, step = s.cur, s.stop, s.step
            inside = np.where(
                np.asarray(step) > 0, (start <= v) & (v < stop), (stop < v) & (v <= start)
            )
            with np.errstate(all="ignore"):
                return inside & ((v - start) % step == 0), _or_und((us, uv))
        if isinstance(s, tuple):
            out = np.zeros(v.shape, dtype=bool)
            for x in s:
                out = out | (v == x)
            return out, _or_und((us, uv))
        raise Unsupported(f"the simulator does not support `in` on {type(s).__name__} yet ({site})")

    return run


def _raising_binop(lhs, rhs, checked, site):
    """An operator whose numba lowering can raise in some threads (``0.0 ** -1``): those
    threads stop there, as numba-cuda's kernels return on an exception without debug."""

    def run(fr):
        a, ua = lhs(fr)
        b, ub = rhs(fr)
        with np.errstate(all="ignore"):
            val, raises = checked(a, b)
        code = machine.vec(raises, fr.S.N)
        for c, what in arith.POW_RAISES.items():
            hit = fr.lanes[code[fr.lanes] == c]
            if hit.size:
                fr.S.finding(
                    "error",
                    f"the kernel raised {what}: on a GPU the thread stops silently "
                    "(numba-cuda without debug=True)",
                    int(hit[0]),
                    site,
                    count=int(hit.size),
                )
                fr.S.alive[hit] = False
                fr.S.exited[hit] = True
        if not fr.S.alive[fr.lanes].all():
            fr.restrict()
        return val, _or_und((ua, ub))

    return run


def _getitem(bld, e, t, site, line):
    from numba.core import types as nt

    base_t = bld.tm.get(e.value.name)
    get_a = bld.getter(e.value)
    if isinstance(base_t, nt.BaseTuple):
        if e.op == "static_getitem" and isinstance(e.index, int | slice):
            k = e.index

            def st(fr):
                v, u = get_a(fr)
                return v[k], u

            return st
        get_k = bld.getter(e.index if e.op != "static_getitem" else e.index_var)

        def dyn(fr):
            v, u = get_a(fr)
            k, ku = get_k(fr)
            stacked = np.stack([machine.vec(x, fr.S.N) for x in v])
            kk = np.clip(machine.vec(k, fr.S.N).astype(np.int64), -len(v), len(v) - 1)
            kk = np.where(kk < 0, kk + len(v), kk)
            return stacked[kk, np.arange(fr.S.N)], _or_und((u, ku))

        return dyn
    if not isinstance(base_t, nt.Array):
        raise Unsupported(f"the simulator does not support indexing {base_t} yet ({site})")
    if e.op == "static_getitem" and e.index_var is None:
        get_i = bld.index_getter(None, e.index)
    else:
        get_i = bld.index_getter(e.index_var if e.op == "static_getitem" else e.index)
    if not is_scalar(t):
        if not isinstance(t, nt.Array):
            raise Unsupported(f"the simulator does not support indexing to {t} yet ({site})")

        def view(fr):  # A[i], A[i, a:b], x[lo:hi]: a view of the same memory
            arr, _ = get_a(fr)
            index, iu = get_i(fr)
            return views.make_view(arr, index, site), None

        return view

    same = reloads.expression(bld, e)

    def ld(fr):
        arr, _ = get_a(fr)
        index, iu = get_i(fr)
        return memops.load(fr, arr, index, iu, site, line, same)

    return ld


def _or_und(us):
    out = None
    for u in us:
        if u is None:
            continue
        if isinstance(u, tuple):
            u = _or_und(u)
            if u is None:
                continue
        out = u if out is None else (out | u)
    return out

"""Calls and attributes: builtins, math, NumPy, numba types, device functions and ``cuda.*``.

A call's target is always known when numba compiles the kernel (a module's function, a
numba type used as a conversion, a device function), so it is resolved here once, with
numba's signature for the call; pdc.sim.cudaops models the ``cuda`` intrinsics.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from pdc.sim import arith, cudaops, machine
from pdc.sim.frontend import Unsupported, callee_ir, dtype_of, is_scalar
from pdc.sim.iters import Enumerate, RangeIt
from pdc.sim.machine import Dim3V

_BUILTINS = {abs, min, max, sum, int, float, bool, complex, round, pow, divmod}


def _name(obj) -> str:
    mod = getattr(obj, "__module__", None) or ""
    return f"{mod}.{getattr(obj, '__name__', repr(obj))}".lstrip(".")


def compile_call(b, e, t, site, line, tgt):
    """A closure computing call expression ``e`` (typed ``t``) for the active threads."""
    from numba.core import types as nt

    fname = e.func.name
    fnty = b.tm.get(fname)
    sig = b.ct.get(e)
    gets = [b.getter(a) for a in e.args]
    kws = {k: b.getter(v) for k, v in e.kws}
    if e.vararg is not None:
        raise Unsupported(f"the simulator does not support *args calls yet ({site})")
    if isinstance(fnty, nt.BoundFunction) and isinstance(fnty.this, nt.Array) and not e.args:
        from pdc.sim import reductions  # x.sum(), x.prod(), x.mean()

        get_b = b.getter(e.func)
        method = str(fnty.typing_key).rsplit(".", 1)[-1]
        return reductions.compile_reduction(
            method, lambda fr: (get_b(fr)[0].arr, None), sig, site, line
        )
    if fname not in b.statics:
        raise Unsupported(f"the simulator does not support calling {fnty} yet ({site})")
    fn = b.statics[fname]

    def args_of(fr):
        vals = [g(fr) for g in gets]
        return [v for v, _ in vals], [u for _, u in vals]

    # A device function (@cuda.jit(device=True) or @njit): its own typed IR, run inline.
    if isinstance(fnty, nt.Dispatcher):
        from pdc.sim import program

        prog = program.build(callee_ir(fnty, sig))

        # numba's signature lists every parameter in order: those after the positional
        # arguments are passed by keyword, or left out (types.Omitted: their defaults).
        import inspect

        params = list(inspect.signature(prog.ir.pyfunc).parameters)
        rest = []
        for k, pt in enumerate(sig.args[len(e.args) :], start=len(e.args)):
            if params[k] in kws:
                rest.append(kws[params[k]])
            else:
                c = getattr(pt, "value", None)
                rest.append(lambda fr, c=c: (c, None))
        gets_all = gets + rest

        def dev(fr):
            vals = [g(fr) for g in gets_all]
            out, u = machine.run_function(
                fr.S, prog, [v for v, _ in vals], [u for _, u in vals], fr.m
            )
            if not fr.S.alive[fr.lanes].all():
                fr.restrict()
            return out, u

        return dev
    # numba or NumPy types used as conversions: float32(x), np.int32(x), numba.uint8(x).
    if isinstance(fnty, nt.NumberClass) or (isinstance(fn, type) and issubclass(fn, np.generic)):
        dt = dtype_of(sig.return_type)
        g0 = gets[0] if gets else None

        def conv(fr):
            if g0 is None:
                return dt.type(0), None
            v, u = g0(fr)
            return arith.cast(v, dt), u

        return conv
    if isinstance(fn, type) and issubclass(fn, BaseException):
        return lambda fr: (fn, None)  # an exception to raise: only its class matters here
    if fn is builtins.range:
        return _range(gets)
    if fn is builtins.slice:
        from pdc.sim.views import SliceVal

        def slc(fr):
            vals = [g(fr)[0] for g in gets]
            return SliceVal(*vals), None

        return slc
    if fn is builtins.enumerate:
        if len(gets) != 1:
            raise Unsupported(f"the simulator does not support enumerate(x, start) yet ({site})")
        g0 = gets[0]
        return lambda fr: (Enumerate(g0(fr)[0]), None)
    if fn is builtins.len:
        g0 = gets[0]

        def ln(fr):
            v, u = g0(fr)
            n = v.shape[0] if hasattr(v, "shape") and not isinstance(v, np.ndarray) else len(v)
            return _i64(n), None

        return ln
    if fn in _BUILTINS:
        f = arith.builtin(fn, sig)
        return _pure(f, args_of)
    mod = getattr(fn, "__module__", "") or ""
    name = getattr(fn, "__name__", "")
    if (
        mod.startswith("numpy")
        and len(e.args) == 1
        and isinstance(b.tm.get(e.args[0].name), nt.Array)
        and is_scalar(sig.return_type)
    ):
        from pdc.sim import reductions

        return reductions.compile_reduction(name, gets[0], sig, site, line)
    if fn is getattr(math, name, None) or mod == "numba.cuda.libdevice":
        return _pure(arith.math_function(name, sig), args_of)
    if isinstance(fn, np.ufunc) or (mod.startswith("numpy") and is_scalar(sig.return_type)):
        return _pure(arith.math_function(name, sig), args_of)
    impl = cudaops.lookup(fn)
    if impl is not None:
        return impl(b, e, sig, gets, kws, site, line, tgt)
    raise Unsupported(f"the simulator does not support {_name(fn)}() yet ({site})")


def _i64(n):
    """An extent as int64: a number, or a vector over threads (a view's per-thread length)."""
    return np.asarray(n, dtype=np.int64) if np.ndim(n) else np.int64(n)


def _pure(f, args_of):
    """A call whose result depends only on its arguments, elementwise."""

    def run(fr):
        vals, us = args_of(fr)
        with np.errstate(all="ignore"):
            out = f(*vals)
        u = None
        for x in us:
            if x is not None:
                u = x if u is None else (u | x)
        if isinstance(out, tuple):
            return out, u
        return out, u

    return run


def _range(gets):
    def rng(fr):
        vals = [g(fr)[0] for g in gets]
        if len(vals) == 1:
            start, stop, step = np.int64(0), vals[0], np.int64(1)
        elif len(vals) == 2:
            (start, stop), step = vals, np.int64(1)
        else:
            start, stop, step = vals
        dt = np.result_type(np.asarray(start), np.asarray(stop), np.asarray(step), np.int64)
        # Uniform bounds stay scalars: a loop every thread runs alike costs no vectors.
        return RangeIt(_as(start, dt), _as(stop, dt), _as(step, dt)), None

    return rng


def _as(v, dt):
    a = np.asarray(v)
    return a.astype(dt) if a.ndim else dt.type(a)


def compile_getattr(b, e, t, site):
    """``value.attr`` for run-time values: array shapes, thread coordinates, lane ids."""
    from numba.core import types as nt

    vname, attr = e.value.name, e.attr
    if vname in b.statics:
        obj = b.statics[vname]
        if is_scalar(t) and not hasattr(obj, "threadIdx"):
            c = dtype_of(t).type(getattr(obj, attr))  # math.pi, math.inf, a module's constant
            return lambda fr: (c, None)
        return cudaops.module_attr(obj, attr, site)
    vt = b.tm.get(vname)
    get = b.getter(e.value)
    if isinstance(vt, nt.Array):
        if attr == "shape":
            return lambda fr: (tuple(_i64(s) for s in get(fr)[0].shape), None)
        if attr == "size":
            return lambda fr: (_i64(get(fr)[0].size), None)
        if attr == "ndim":
            return lambda fr: (np.int64(len(get(fr)[0].shape)), None)
        if attr == "T":
            from pdc.sim import views

            return lambda fr: (views.transpose(get(fr)[0]), None)
        from pdc.sim import reductions

        if attr in reductions.NAMES:  # the method itself; the call reduces (compile_call)
            return lambda fr: (reductions.Bound(get(fr)[0]), None)
        raise Unsupported(f"the simulator does not support array.{attr} yet ({site})")
    if attr in ("x", "y", "z"):
        k = "xyz".index(attr)

        def xyz(fr):
            v, u = get(fr)
            return (v[k] if isinstance(v, Dim3V) else v[k]), u

        return xyz
    if attr in ("real", "imag") and isinstance(vt, nt.Complex | nt.Float | nt.Integer):
        f = np.real if attr == "real" else np.imag
        return lambda fr: (f(get(fr)[0]), get(fr)[1])
    raise Unsupported(f"the simulator does not support .{attr} on {vt} yet ({site})")

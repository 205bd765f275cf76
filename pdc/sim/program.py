"""numba-cuda's typed IR turned into closures the SIMT machine runs block by block.

Each statement of the IR becomes one Python closure over its variables' names, its
operation (with numba's signature resolved once, here) and its source line; each basic
block ends in a terminator that returns the rank of the next block for every active thread.
Values that numba resolves at compile time (modules, functions, numba types, global
constants) are resolved here too and never exist at run time.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from pdc.sim import arith, exprs, machine, memops, views, work
from pdc.sim.frontend import TypedIR, Unsupported, dtype_of, is_scalar
from pdc.sim.machine import BIG, Frame, check_defined
from pdc.sim.memory import CONST, SimArray
from pdc.sim.order import loop_order

_PROGRAMS: dict = {}


@dataclass
class Block:
    body: list
    term: object
    line: int


@dataclass
class Program:
    name: str
    filename: str
    first_line: int
    blocks: list
    arg_names: list
    ir: TypedIR
    statics: dict = field(default_factory=dict)


def build(tir: TypedIR) -> Program:
    """The program of one typed function (built once per function and signature)."""
    key = id(tir)
    hit = _PROGRAMS.get(key)
    if hit is not None and hit.ir is tir:
        return hit
    prog = _Builder(tir).build()
    _PROGRAMS[key] = prog
    return prog


class _Builder:
    def __init__(self, tir: TypedIR):
        from numba.cuda.core import ir
        from numba.cuda.core.analysis import compute_cfg_from_blocks

        self.ir = ir
        self.tir = tir
        self.tm = tir.typemap
        self.ct = tir.calltypes
        cfg = compute_cfg_from_blocks(tir.blocks)
        exits = frozenset(lb for lb, blk in tir.blocks.items() if self._only_returns(blk))
        order = [lb for lb in loop_order(cfg, exits) if lb in tir.blocks]
        self.rank = {lb: i for i, lb in enumerate(order)}
        self.order = order
        self.statics: dict = {}
        self.local = self._block_locals()
        self.prog = Program(tir.name, tir.filename, tir.first_line, [], [], tir, self.statics)

    def _block_locals(self) -> frozenset:
        """Variables assigned once, and read only after that, in the same block: numba's
        temporaries mostly. Such a variable needs no merge under a partial mask (its
        inactive threads' values are never read: a later pass of the block assigns it again
        before it reads it), which spares a serial loop most of its per-statement cost."""
        ir = self.ir
        blocks = self.tir.blocks.values()
        times = Counter(
            st.target.name for b in blocks for st in b.body if isinstance(st, ir.Assign)
        )
        once = {name for name, n in times.items() if n == 1}
        for blk in blocks:
            seen: set = set()
            for st in blk.body:
                if isinstance(st, ir.Assign):
                    v = st.value
                    used = v.list_vars() if isinstance(v, ir.Expr) else [v]
                else:
                    used = st.list_vars()
                for var in used:
                    if isinstance(var, ir.Var) and var.name not in seen:
                        once.discard(var.name)
                if isinstance(st, ir.Assign):
                    seen.add(st.target.name)
        return frozenset(once)

    def _only_returns(self, blk) -> bool:
        """Whether a block does nothing but return (a constant, a variable, or a cast)."""
        ir = self.ir
        if not isinstance(blk.body[-1], ir.Return):
            return False
        simple = ir.Const | ir.Global | ir.FreeVar | ir.Var
        for st in blk.body[:-1]:
            if isinstance(st, ir.Del):
                continue
            v = getattr(st, "value", None)
            if not isinstance(st, ir.Assign) or not (
                isinstance(v, simple) or (isinstance(v, ir.Expr) and v.op == "cast")
            ):
                return False
        return True

    def line(self, loc) -> int:
        return (getattr(loc, "line", None) or self.tir.first_line) - self.tir.first_line + 1

    def site(self, loc) -> str:
        return f"{self.tir.name} line {self.line(loc)}"

    def build(self) -> Program:
        ir = self.ir
        nargs = len(self.tir.argtypes)
        self.prog.arg_names = [None] * nargs
        self._find_statics()
        for lb in self.order:
            blk = self.tir.blocks[lb]
            body = []
            ops = 0  # operations since the last counting statement (pdc.sim.work)
            last = isinstance(blk.body[-1], ir.Assign | ir.SetItem | ir.StaticSetItem)
            for st in blk.body if last else blk.body[:-1]:
                if work.is_barrier(ir, st, self.statics) and ops:
                    body.append(work.counter(ops))
                    ops = 0
                ops += work.weight(ir, st, self.statics)
                fn = self.stmt(st)
                if fn is not None:
                    body.append(fn)
            if ops:
                body.append(work.counter(ops))
            term = self.terminator(blk.body[-1])
            line = self.line(blk.body[-1].loc) if blk.body else 0
            self.prog.blocks.append(Block(body, term, line))
        return self.prog

    # -- compile-time values ---------------------------------------------------------------
    def _static_type(self, t) -> bool:
        from numba.core import types as nt

        return isinstance(
            t,
            nt.Module
            | nt.Function
            | nt.Dispatcher
            | nt.NumberClass
            | nt.NoneType
            | nt.Omitted
            | nt.StringLiteral
            | nt.UnicodeType
            | nt.DType
            | nt.Dummy,
        ) or type(t).__name__ in ("DTypeSpec", "CPointer")

    def _find_statics(self) -> None:
        ir = self.ir
        for lb in self.order:
            for st in self.tir.blocks[lb].body:
                if not isinstance(st, ir.Assign):
                    continue
                name, v = st.target.name, st.value
                t = self.tm.get(name)
                if isinstance(v, ir.Arg) and type(t).__name__ == "Omitted":
                    self.statics[name] = getattr(t, "value", None)  # a default the launch left out
                elif isinstance(v, ir.Global | ir.FreeVar):
                    if isinstance(v.value, np.ndarray) or not is_scalar(t):
                        self.statics[name] = v.value
                elif isinstance(v, ir.Const) and not is_scalar(t):
                    self.statics[name] = v.value
                elif isinstance(v, ir.Var) and v.name in self.statics:
                    self.statics[name] = self.statics[v.name]
                elif (
                    isinstance(v, ir.Expr)
                    and v.op == "getattr"
                    and v.value.name in self.statics
                    and self._static_type(t)
                ):
                    self.statics[name] = getattr(self.statics[v.value.name], v.attr, None)

    def getter(self, var):
        """A function of the frame returning (value, undefined mask) of ``var``."""
        name = var.name
        if name in self.statics:
            v = self.statics[name]
            return lambda fr: (v, None)
        return lambda fr: (fr.env[name], fr.und.get(name))

    # -- statements ------------------------------------------------------------------------
    def stmt(self, st):
        ir = self.ir
        site, line = self.site(st.loc), self.line(st.loc)
        if isinstance(st, ir.Del):
            return None
        if isinstance(st, ir.Assign):
            return self.assign(st, site, line)
        if isinstance(st, ir.SetItem | ir.StaticSetItem):
            return self.setitem(st, site, line)
        if isinstance(st, ir.Print):
            return None  # printing from a kernel: allowed, and silent here
        if isinstance(st, ir.StaticTryRaise | ir.TryRaise):
            return None
        raise Unsupported(f"the simulator does not support {type(st).__name__} yet ({site})")

    def assign(self, st, site, line):
        ir = self.ir
        tgt, v = st.target.name, st.value
        if tgt in self.statics:
            if isinstance(v, ir.Global | ir.FreeVar) and isinstance(v.value, np.ndarray):
                return self._const_array(tgt, v.value)
            return None
        t = self.tm.get(tgt)
        if isinstance(v, ir.Arg):
            idx = v.index
            self.prog.arg_names[idx] = tgt
            return lambda fr: fr.put(tgt, fr.args[idx], fr.und.get(tgt))
        if isinstance(v, ir.Const | ir.Global | ir.FreeVar):
            c = dtype_of(t).type(v.value) if is_scalar(t) else v.value
            return lambda fr: fr.put(tgt, c)
        # A scalar variable holds numba's type for it: the copies that join two paths (a
        # float on one, the literal 0 on the other) are converted as numba converts them.
        dt = dtype_of(t) if is_scalar(t) else None
        put = Frame.set if tgt in self.local else Frame.put
        if isinstance(v, ir.Var):
            get = self.getter(v)

            def copy(fr):
                val, u = get(fr)
                put(fr, tgt, val if dt is None else arith.cast(val, dt), u)

            return copy
        if isinstance(v, ir.Expr):
            fn = self.expr(v, t, site, line, tgt)
            if dt is None:
                return lambda fr: put(fr, tgt, *fn(fr))

            def typed(fr):
                val, u = fn(fr)
                put(fr, tgt, arith.cast(val, dt), u)

            return typed
        raise Unsupported(f"the simulator does not support {type(v).__name__} yet ({site})")

    def _const_array(self, tgt, value):
        key = (id(self.prog), tgt)

        def make(fr):
            a = fr.S.sites.get(key)
            if a is None:
                a = SimArray(tgt, CONST, value.shape, value.dtype, data=np.ascontiguousarray(value))
                fr.S.sites[key] = a
            fr.env[tgt] = a

        self.statics.pop(tgt, None)
        return make

    def setitem(self, st, site, line):
        ir = self.ir
        get_a = self.getter(st.target)
        idx_var = st.index_var if isinstance(st, ir.StaticSetItem) else st.index
        get_i = self.index_getter(idx_var, st.index if isinstance(st, ir.StaticSetItem) else None)
        get_v = self.getter(st.value)

        def run(fr):
            arr, _ = get_a(fr)
            index, iu = get_i(fr)
            val, vu = get_v(fr)
            if not isinstance(arr, SimArray | views.View):
                raise Unsupported(f"the simulator does not support item assignment here ({site})")
            memops.store(fr, arr, index, iu, val, vu, site, line)

        return run

    def index_getter(self, var, static_index=None):
        """Index as a tuple of vectors and their undefined masks."""
        if var is None:
            idx = static_index if isinstance(static_index, tuple) else (static_index,)
            consts = tuple(views.as_slice(i) if isinstance(i, slice) else np.int64(i) for i in idx)
            return lambda fr: (consts, (None,) * len(consts))
        get = self.getter(var)

        def run(fr):
            v, u = get(fr)
            if isinstance(v, tuple):
                return v, (u,) * len(v)
            return (v,), (u,)

        return run

    def expr(self, e, t, site, line, tgt):
        return exprs.compile_expr(self, e, t, site, line, tgt)

    # -- terminators -----------------------------------------------------------------------
    def terminator(self, st):
        ir = self.ir
        site = self.site(st.loc)
        if isinstance(st, ir.Jump):
            r = self.rank[st.target]
            return lambda fr: r
        if isinstance(st, ir.Branch):
            get = self.getter(st.cond)
            rt, rf = self.rank[st.truebr], self.rank[st.falsebr]

            def br(fr):
                c, u = get(fr)
                check_defined(fr, u, "a branch condition", site)
                c = np.asarray(c)
                if c.ndim == 0:
                    return rt if c else rf
                return np.where(c, rt, rf).astype(np.int32)

            return br
        if isinstance(st, ir.Return):
            get = self.getter(st.value)

            def ret(fr: Frame):
                v, u = get(fr)
                if fr.ret is None:
                    fr.ret, fr.ret_und = v, u
                else:
                    fr.ret = machine.merge(fr.ret, v, fr.m)
                    if u is not None or fr.ret_und is not None:
                        fr.ret_und = np.where(fr.m, _full(u, fr.S.N), _full(fr.ret_und, fr.S.N))
                return BIG

            return ret
        if isinstance(st, ir.Raise | ir.StaticRaise):
            exc = getattr(st, "exc_class", None)
            what = getattr(exc, "__name__", "an exception")
            args = getattr(st, "exc_args", None)
            text = f"{what}{'(' + repr(args[0]) + ')' if args else ''}"

            def rse(fr: Frame):
                S = fr.S
                # A raise or assert the kernel states: numba-cuda's kernel returns there
                # without debug=True, so the thread stops and the launch goes on ("stopped",
                # a note); the outputs show what it did not store. With debug=True the
                # thread sets numba-cuda's exception flag, which the host raises once the
                # launch ends (before any array is copied back): the launch fails.
                if S.debug:
                    S.finding(
                        "error",
                        f"the kernel raised {text}: with debug=True numba-cuda raises it on "
                        "the host when the launch ends",
                        fr.lanes[0],
                        site,
                        count=int(fr.lanes.size),
                    )
                else:
                    S.finding(
                        "stopped",
                        f"the kernel raised {text}: on a GPU the thread stops there silently "
                        "(numba-cuda without debug=True)",
                        fr.lanes[0],
                        site,
                        count=int(fr.lanes.size),
                    )
                S.alive[fr.lanes] = False
                S.exited[fr.lanes] = True
                return BIG

            return rse
        # Not a terminator: the block falls through to... nothing; numba always ends blocks.
        raise Unsupported(f"the simulator does not support the block end {st} yet ({site})")


def _full(u, n):
    return np.zeros(n, dtype=bool) if u is None else u

"""numba-cuda's typed IR turned into closures the SIMT machine runs block by block.

Each statement of the IR becomes one Python closure over its variables' names, its
operation (with numba's signature resolved once, here) and its source line; each basic
block ends in a terminator that returns the rank of the next block for every active thread.
Values that numba resolves at compile time (modules, functions, numba types, global
constants) are resolved here too and never exist at run time.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import numpy as np

from pdc.sim import arith, calls, iters, machine, memops, views
from pdc.sim.frontend import TypedIR, Unsupported, dtype_of, is_scalar
from pdc.sim.machine import BIG, Frame, check_defined
from pdc.sim.memory import CONST, SimArray

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


def loop_order(cfg) -> list:
    """A topological order (back edges left out) in which every loop's body comes before
    the blocks its exits lead to.

    The machine always runs the lowest-ranked block any thread is at, so this order makes
    threads that leave a loop early wait at its exit for the others. A plain reverse
    postorder does not promise it: the code after a loop may come before the loop's body.
    Successors that stay deeper in loops are visited last, so they come first.
    """
    depth: dict = {}
    for loop in cfg.loops().values():
        for node in loop.body:
            depth[node] = depth.get(node, 0) + 1
    back = set(cfg._back_edges)
    post: list = []
    seen: set = set()
    stack: list = [(cfg.entry_point(), None)]
    # An iterative DFS (kernels can have thousands of blocks once numba inlines calls).
    while stack:
        node, it = stack.pop()
        if it is None:
            if node in seen:
                continue
            seen.add(node)
            succs = [d for d, _ in cfg.successors(node) if (node, d) not in back]
            succs.sort(key=lambda d: depth.get(d, 0))
            it = iter(succs)
        for d in it:
            if d not in seen:
                stack.append((node, it))
                stack.append((d, None))
                break
        else:
            post.append(node)
    post.reverse()
    return post


class _Builder:
    def __init__(self, tir: TypedIR):
        from numba.cuda.core import ir
        from numba.cuda.core.analysis import compute_cfg_from_blocks

        self.ir = ir
        self.tir = tir
        self.tm = tir.typemap
        self.ct = tir.calltypes
        cfg = compute_cfg_from_blocks(tir.blocks)
        order = [lb for lb in loop_order(cfg) if lb in tir.blocks]
        self.rank = {lb: i for i, lb in enumerate(order)}
        self.order = order
        self.statics: dict = {}
        self.prog = Program(tir.name, tir.filename, tir.first_line, [], [], tir, self.statics)

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
            for st in blk.body[:-1]:
                fn = self.stmt(st)
                if fn is not None:
                    body.append(fn)
            term = self.terminator(blk.body[-1])
            line = self.line(blk.body[-1].loc) if blk.body else 0
            if isinstance(blk.body[-1], ir.Assign | ir.SetItem | ir.StaticSetItem):
                body.append(self.stmt(blk.body[-1]))
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
        if isinstance(v, ir.Var):
            get = self.getter(v)

            def copy(fr):
                val, u = get(fr)
                fr.put(tgt, val if dt is None else arith.cast(val, dt), u)

            return copy
        if isinstance(v, ir.Expr):
            fn = self.expr(v, t, site, line, tgt)
            if dt is None:
                return lambda fr: fr.put(tgt, *fn(fr))

            def typed(fr):
                val, u = fn(fr)
                fr.put(tgt, arith.cast(val, dt), u)

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

    # -- expressions -----------------------------------------------------------------------
    def expr(self, e, t, site, line, tgt):
        op = e.op
        if op in ("binop", "inplace_binop"):
            return self._binop(e, site)
        if op == "unary":
            f = arith.unary(e.fn, self.ct[e])
            get = self.getter(e.value)

            def un(fr):
                v, u = get(fr)
                return f(v), u

            return un
        if op == "call":
            return calls.compile_call(self, e, t, site, line, tgt)
        if op == "getattr":
            return calls.compile_getattr(self, e, t, site)
        if op in ("getitem", "static_getitem", "typed_getitem"):
            return self._getitem(e, t, site, line)
        if op == "build_tuple":
            gets = [self.getter(v) for v in e.items]

            def tup(fr):
                vals = [g(fr) for g in gets]
                return tuple(v for v, _ in vals), _or_und([u for _, u in vals])

            return tup
        if op == "exhaust_iter":
            get = self.getter(e.value)
            return get
        if op == "getiter":
            get = self.getter(e.value)

            def it(fr):
                r, u = get(fr)
                return iters.make(r, site, line), u

            return it
        if op == "iternext":
            get = self.getter(e.value)
            return lambda fr: get(fr)[0].next(fr)
        if op in ("pair_first", "pair_second"):
            get = self.getter(e.value)
            k = 0 if op == "pair_first" else 1
            return lambda fr: (get(fr)[0][k], get(fr)[1])
        if op == "cast":
            get = self.getter(e.value)
            rt = self.tir.return_type
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
            return lambda fr: (zero, np.ones(fr.S.N, dtype=bool))
        raise Unsupported(f"the simulator does not support the operation {op!r} yet ({site})")

    def _binop(self, e, site):
        lhs, rhs = self.getter(e.lhs), self.getter(e.rhs)
        fn = e.fn
        if fn in (operator.is_, operator.is_not) or fn is operator.contains:
            raise Unsupported(f"the simulator does not support {fn.__name__} yet ({site})")
        f = arith.binop(fn, self.ct[e])
        intdiv = getattr(f, "int_division", False)

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
                return f(a, b), _or_und((ua, ub))

        return run

    def _getitem(self, e, t, site, line):
        from numba.core import types as nt

        base_t = self.tm.get(e.value.name)
        get_a = self.getter(e.value)
        if isinstance(base_t, nt.BaseTuple):
            if e.op == "static_getitem" and isinstance(e.index, int | slice):
                k = e.index

                def st(fr):
                    v, u = get_a(fr)
                    return v[k], u

                return st
            get_k = self.getter(e.index if e.op != "static_getitem" else e.index_var)

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
            get_i = self.index_getter(None, e.index)
        else:
            get_i = self.index_getter(e.index_var if e.op == "static_getitem" else e.index)
        if not is_scalar(t):
            if not isinstance(t, nt.Array):
                raise Unsupported(f"the simulator does not support indexing to {t} yet ({site})")

            def view(fr):  # A[i], A[i, a:b], x[lo:hi]: a view of the same memory
                arr, _ = get_a(fr)
                index, iu = get_i(fr)
                return views.make_view(arr, index, site), None

            return view

        def ld(fr):
            arr, _ = get_a(fr)
            index, iu = get_i(fr)
            return memops.load(fr, arr, index, iu, site, line)

        return ld

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
                S.finding(
                    "error",
                    f"the kernel raised {text}: on a GPU the thread stops silently "
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

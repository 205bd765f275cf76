"""Find the graded kernels in a notebook, with what they need to compile, without running it.

The grader never executes a submission's notebook. It parses the code cells (nbformat + ast)
and takes the kernel functions it grades, the device functions they call, the imports of the
modules kernel code may use and the numeric constants they use (literals, or arithmetic and
``math`` functions on other constants, and NumPy arrays of such literals). Together they form
a module that numba-cuda compiles (pdc.grade.gate) and pdc.sim runs from numba's typed IR:
what numba-cuda refuses, the grader refuses, with numba's own words; kernel code never runs as
Python.

What this module still checks is only what runs when that module is defined, and what it
could not give numba from the syntax alone: decorators (jit decorators with constant or type
arguments, pdc.grade.imports), default argument values (constants), and global names whose
value only a run of the notebook would compute, or that come from a module kernels cannot
use: those get a specific reason instead of numba's "name is not defined".
"""

from __future__ import annotations

import ast
import builtins
import functools
import math
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from pdc import pyast
from pdc.grade import flow, literals
from pdc.grade import imports as jitkinds


@dataclass
class Extracted:
    """Kernel sources found in a notebook, ready for numba-cuda to compile."""

    written: dict = field(default_factory=dict)  # name -> source as written, with decorators
    constants: dict = field(default_factory=dict)  # name -> number, NumPy scalar or tuple
    device: dict = field(default_factory=dict)  # name -> jit kind (pdc.grade.imports.jit_kind)
    aliases: dict = field(default_factory=dict)  # name -> (function, jit kind): f = cuda.jit(g)
    alias_src: dict = field(default_factory=dict)  # name -> the aliasing statement as written
    imports: dict = field(default_factory=dict)  # name -> full path the notebook imported
    problems: dict = field(default_factory=dict)  # kernel name -> why it cannot be graded
    order: list = field(default_factory=list)  # written and aliases, callees before callers


def read_notebook(path):
    """Read a notebook as nbformat v4 (see pdc.grade.notebook.read_notebook)."""
    from pdc.grade import notebook

    return notebook.read_notebook(path)


def notebook_cells(path) -> list[str]:
    """The Python a top-to-bottom run of a notebook executes (pdc.grade.notebook)."""
    from pdc.grade import notebook

    return notebook.notebook_cells(path)


#: The arithmetic a constant may be computed with (the Triton heuristics' lambdas share it).
BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
    ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b,
    ast.BitAnd: lambda a, b: a & b,
    ast.BitOr: lambda a, b: a | b,
    ast.BitXor: lambda a, b: a ^ b,
}
#: Longest tuple of numbers taken as a constant (a shape, or unrolled offsets like (16, 8, 4)).
MAX_TUPLE = 64
_CALLS: dict[str, Callable] = {
    "int": int,
    "float": float,
    "min": min,
    "max": max,
    "abs": abs,
    "round": round,
    "pow": pow,
    "len": len,
    "sum": sum,
}
_NUMBER = literals.NUMBER
_TABLE = (np.ndarray, *_NUMBER)  # an operand of an array constant's arithmetic
#: math functions of numbers a constant may be computed with (``int(math.log2(TPB))``).
_MATH = frozenset(
    "ceil floor trunc sqrt isqrt exp exp2 expm1 log log2 log10 log1p pow fabs gcd lcm "
    "comb perm factorial sin cos tan asin acos atan atan2 sinh cosh tanh hypot copysign "
    "fmod ldexp radians degrees prod".split()
)
#: NumPy's functions of one or two numbers, as a constant may use them instead of math's
#: (``int(np.log2(TPB))``, ``int(np.ceil(N / TPB))``): called as NumPy, they give the value,
#: and the type, that a run of the notebook binds.
_NUMPY = frozenset(
    "abs absolute sqrt cbrt square exp exp2 expm1 log log2 log10 log1p power float_power "
    "floor ceil trunc rint round around fix fabs sign minimum maximum fmin fmax sin cos tan "
    "arcsin arccos arctan arctan2 sinh cosh tanh hypot copysign fmod mod remainder "
    "left_shift right_shift bitwise_and bitwise_or bitwise_xor gcd lcm deg2rad rad2deg "
    "degrees radians prod sum".split()
)
#: Calls whose cost grows with an argument's value, and the largest argument computed.
_COSTLY: dict[Callable, int] = {pow: 64, math.factorial: 1000, math.comb: 1000, math.perm: 1000}
#: Calls that take a tuple (or array) constant: N = math.prod(SHAPE), LAST = max(OFFSETS).
_OF_TUPLE = (len, sum, min, max, math.prod, np.prod, np.sum)
_MATH_CONSTANTS = frozenset({"pi", "e", "tau", "inf", "nan"})


def _path(node, imports: dict) -> str | None:
    return jitkinds.resolve(node, imports) if imports else None


def _callee(node, imports: dict) -> Callable | None:
    """The function a constant expression may call: a builtin of ``_CALLS``, a function of
    ``math`` or of NumPy on numbers, or a NumPy/numba scalar type (``np.float32(0.5)``)."""
    if isinstance(node, ast.Name) and node.id in _CALLS and node.id not in imports:
        return _CALLS[node.id]
    path = _path(node, imports)
    if path is None:
        return None
    mod, _, attr = path.rpartition(".")
    if mod == "math" and attr in _MATH:
        return getattr(math, attr)
    if mod == "numpy" and attr in _NUMPY:
        return getattr(np, attr)
    if mod.split(".")[0] in ("numpy", "numba") and attr in jitkinds.DTYPE_NAMES:
        return getattr(np, "bool_" if attr == "boolean" else attr, None)
    return None


def _number(env: dict, imports: dict) -> Callable[[ast.AST], Any]:
    """The value of a constant expression where it is a number, else None."""

    def number(node: ast.AST) -> Any:
        v = _evaluate(node, env, imports)
        return v if isinstance(v, _NUMBER) else None

    return number


def constant_number(node: ast.AST, imports: dict) -> Any:
    """The number a constant expression stands for (``1.0 / math.log(2)``, ``float("-inf")``),
    computed from its syntax with the notebook's ``imports`` (name -> full path), else None."""
    return _number({}, imports)(node)


def _evaluate(node, env: dict, imports: dict | None = None):
    """The value of a constant expression over numbers and known constants, else None.

    Numbers, names of known constants, arithmetic, tuples, the builtins of ``_CALLS``, the
    functions and constants of ``math``, NumPy's functions of numbers and its scalar types,
    as the notebook imported them (``imports``: name -> full path), ``np.finfo``/``np.iinfo``
    limits, and ``np.array`` of nested lists of such values (pdc.grade.literals). Nothing
    else is computed: the grader evaluates this syntax itself and runs none of the notebook's code.
    """
    imports = imports or {}
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, _NUMBER) else None
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call):
        return literals.type_limit(node, lambda n: _path(n, imports))
    if isinstance(node, ast.Attribute | ast.Name):  # math.pi, np.inf; inf from math import inf
        path = _path(node, imports) or ""
        mod, _, attr = path.rpartition(".")
        if mod in ("math", "numpy") and attr in _MATH_CONSTANTS:
            return float(getattr(math, attr))
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert)):
        v: Any = _evaluate(node.operand, env, imports)
        if isinstance(v, np.ndarray):  # -TABLE, ~MASKS: a table of the same size
            unary = {ast.USub: np.negative, ast.UAdd: np.positive, ast.Invert: np.invert}
            return _array_op(lambda a, _: unary[type(node.op)](a), v, 0)
        if not isinstance(v, _NUMBER):
            return None
        if isinstance(node.op, ast.Invert):
            return ~v if isinstance(v, int | np.integer) else None
        w: Any = v  # a number (NumPy scalars included)
        return -w if isinstance(node.op, ast.USub) else +w
    if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
        a: Any = _evaluate(node.left, env, imports)
        b: Any = _evaluate(node.right, env, imports)
        if isinstance(a, tuple) or isinstance(b, tuple):
            return _tuple_op(node.op, a, b)  # (TILE,) * 2, SHAPE + (4,)
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):  # TABLE * 2, W / W.sum()
            return _array_op(BINOPS[type(node.op)], a, b)
        if not isinstance(a, _NUMBER) or not isinstance(b, _NUMBER):
            return None
        if isinstance(node.op, (ast.Pow, ast.LShift)) and abs(cast(Any, b)) > 64:
            return None  # a constant this large is no launch size; refuse to compute it
        try:
            with np.errstate(all="raise"):
                return BINOPS[type(node.op)](a, b)
        except (ArithmeticError, ValueError, TypeError, FloatingPointError):
            return None
    if isinstance(node, ast.Tuple) and len(node.elts) <= MAX_TUPLE:
        vals = [_evaluate(e, env, imports) for e in node.elts]
        return tuple(vals) if all(isinstance(v, _NUMBER) for v in vals) else None
    if isinstance(node, ast.Call):  # np.arange(HALO), np.full(...), TABLE.astype(np.int32)
        arr = literals.array_call(
            node, lambda n: _path(n, imports), lambda n: _evaluate(n, env, imports)
        )
        if arr is not None:
            return arr
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        # The grader answers for a run on a GPU, where numba.cuda.is_available() is True.
        return True if _path(node.func, imports) == "numba.cuda.is_available" else None
    if isinstance(node, ast.Call):
        arr = literals.array_literal(node, lambda n: _path(n, imports), _number(env, imports))
        if arr is not None:
            return arr
    if isinstance(node, ast.Call) and not node.keywords and len(node.args) in (1, 2):
        f = _callee(node.func, imports)
        if f is None:
            return None
        text = node.args[0].value if isinstance(node.args[0], ast.Constant) else None
        if (
            isinstance(text, str)
            and len(node.args) == 1
            and (f in (int, float) or isinstance(f, type))
        ):
            try:  # float("-inf"), np.float32("1e-3"): a number written as text
                out = f(text) if len(text) <= 64 else None
            except (TypeError, ValueError, OverflowError):
                return None
            return out if isinstance(out, _NUMBER) else None
        vals = [_evaluate(a, env, imports) for a in node.args]
        if len(vals) == 1 and isinstance(vals[0], tuple | np.ndarray) and f in _OF_TUPLE:
            try:  # len(SHAPE), math.prod(SHAPE), max(OFFSETS): tuples hold only numbers
                out = f(vals[0])
            except (TypeError, ValueError):
                return None
            return out if isinstance(out, _NUMBER) else None
        tables = any(isinstance(v, np.ndarray) for v in vals)
        if tables and isinstance(f, np.ufunc) and all(isinstance(v, _TABLE) for v in vals):
            if len(vals) == 2:  # np.minimum(TABLE, 3), np.exp(-TABLE): a table
                return _array_op(f, vals[0], vals[1])
            return _array_op(lambda a, _: f(a), vals[0], 0)
        if all(isinstance(v, _NUMBER) for v in vals):
            sizes = vals[1:] if f is pow else vals  # pow's cost grows with its exponent
            if f in _COSTLY and max(abs(cast(Any, v)) for v in sizes) > _COSTLY[f]:
                return None  # math.factorial(10**9) would stop the grader, not a notebook
            try:
                with np.errstate(all="ignore"):  # np.log2(0) is -inf in the notebook too
                    out = f(*vals)
            except (TypeError, ValueError, OverflowError, ArithmeticError):
                return None
            return out if isinstance(out, _NUMBER) else None
    return None


def _array_op(f: Callable, a: Any, b: Any) -> np.ndarray | None:
    """``f(a, b)`` where one is an array constant and the other a number or an array: a
    read-only array of finite numbers no larger than ``literals.MAX_ARRAY``, else None."""
    if not isinstance(a, _TABLE) or not isinstance(b, _TABLE):
        return None
    try:
        if math.prod(np.broadcast_shapes(np.shape(a), np.shape(b))) > literals.MAX_ARRAY:
            return None
        with np.errstate(all="raise"):
            out = f(a, b)
    except (ArithmeticError, ValueError, TypeError, FloatingPointError):
        return None
    if not isinstance(out, np.ndarray) or not 0 < out.size <= literals.MAX_ARRAY:
        return None
    if out.dtype.kind not in "biuf" or not np.isfinite(out).all():
        return None
    out.flags.writeable = False
    return out


def _jumps(node: ast.AST) -> bool:
    """True where ``node`` holds a ``break``, ``continue`` or ``return`` of the loop around it
    (not those inside the functions it defines)."""
    if isinstance(node, ast.Break | ast.Continue | ast.Return):
        return True
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
        return False
    return any(_jumps(child) for child in ast.iter_child_nodes(node))


def _tuple_op(op: ast.operator, a: Any, b: Any) -> tuple | None:
    """``(TILE,) * 2`` or ``(TILE,) + (R,)``: a tuple of numbers, as Python makes it, else None."""
    if isinstance(op, ast.Add) and isinstance(a, tuple) and isinstance(b, tuple):
        out = a + b
    elif isinstance(op, ast.Mult) and isinstance(a, tuple) != isinstance(b, tuple):
        times = b if isinstance(a, tuple) else a
        items = a if isinstance(a, tuple) else b
        if type(times) is not int or not 0 <= times * len(items) <= MAX_TUPLE:
            return None
        out = items * times
    else:
        return None
    return out if len(out) <= MAX_TUPLE else None


def _first_line(fn: ast.FunctionDef) -> int:
    return min([fn.lineno, *(d.lineno for d in fn.decorator_list)])


def _alias(node, imports: dict) -> tuple[str, str, str] | None:
    """(name, function, kind) for ``name = cuda.jit(device=True)(function)`` or ``name = g``.

    A plain ``name = function`` gives the kind "same": ``name`` is the function as it is.
    """
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return None
    t, v = node.targets[0], node.value
    if isinstance(t, ast.Name) and isinstance(v, ast.Name):
        return t.id, v.id, "same"
    if not (isinstance(t, ast.Name) and isinstance(v, ast.Call) and len(v.args) == 1):
        return None
    arg = v.args[0]
    if not isinstance(arg, ast.Name) or v.keywords:
        return None
    kind, problem = jitkinds.jit_kind([v.func], imports)
    if problem or kind == "python":
        return None
    return t.id, arg.id, kind


def _bindings(node) -> list[tuple[str, ast.expr | None]]:
    """(name, value) bound by ``N = 4``, ``N: int = 4``, ``A = B = 4`` or ``TM, TN = 16, 8``.

    A name bound to something this cannot pair up (``a, b = f()``) gets None.
    """
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    out: list[tuple[str, ast.expr | None]] = []
    for t in targets:
        if isinstance(t, ast.Name):
            out.append((t.id, node.value))
        elif isinstance(t, ast.Tuple):
            v = node.value
            paired = isinstance(v, ast.Tuple) and len(v.elts) == len(t.elts)
            values: list[ast.expr | None] = list(v.elts) if paired else [None] * len(t.elts)
            for e, value in zip(t.elts, values):
                if isinstance(e, ast.Name):
                    out.append((e.id, value))
    return out


def _stored_names(body: list) -> set[str]:
    """The names statements bind in the scope they run in: assignment, loop and ``with``
    targets, walrus, ``case`` captures; not the locals of a function, lambda or comprehension
    inside them."""
    found: set[str] = set()
    todo = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            found.add(n.id)
        elif isinstance(n, ast.MatchAs | ast.MatchStar) and n.name:  # case [TILE, *rest]:
            found.add(n.name)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        elif isinstance(n, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            continue
        todo.extend(ast.iter_child_nodes(n))
    return found


def _signature_text(node) -> Any:
    """A string, or a list or tuple of strings, written as literals (what ``cuda.jit`` takes as
    signatures), else None. Only a decorator may use it (pdc.grade.imports.jit_kind)."""
    if not isinstance(node, ast.Constant | ast.List | ast.Tuple):
        return None
    items = node.elts if isinstance(node, ast.List | ast.Tuple) else [node]
    if len(items) > 16 or not all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) and len(e.value) <= 500
        for e in items
    ):
        return None
    values = [cast(ast.Constant, e).value for e in items]
    if isinstance(node, ast.Constant):
        return values[0]
    return tuple(values) if isinstance(node, ast.Tuple) else values


def _names_function(alias: tuple[str, str, str], defs: dict, aliases: dict) -> bool:
    """Whether an alias refers to a function (``f = g`` may also copy a constant)."""
    return alias[2] != "same" or alias[1] in defs or alias[1] in aliases


@functools.lru_cache(maxsize=4096)
def parse_cell(src: str) -> ast.Module | None:
    """A cell's syntax tree, or None for a syntax error; parsed once, then shared.

    Every kernel of a notebook is extracted from the same cells, and no reader changes a
    tree (the simulator's respelled copy is parsed anew), so one parse serves them all.
    """
    try:
        return pyast.parse(src)
    except SyntaxError:
        return None


def _binds(node: ast.AST) -> set[str]:
    """Every name ``node`` may bind: assigned, defined, imported (inner scopes too: erring
    towards "bound" only keeps a NameError's wording out of a message)."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(n.name)
        elif isinstance(n, ast.Import | ast.ImportFrom):
            out |= {(a.asname or a.name).partition(".")[0] for a in n.names}
        elif isinstance(n, ast.MatchAs | ast.MatchStar) and n.name:
            out.add(n.name)
    return out


class _Notebook:
    """The names a top-to-bottom run of the cells leaves bound: functions, constants, imports."""

    def __init__(self, cells: list[str], constants: dict):
        self.defs: dict[str, ast.FunctionDef] = {}
        self.srcs: dict[str, str] = {}
        self.aliases: dict[str, tuple[str, str]] = {}
        self.alias_src: dict[str, str] = {}
        self.consts: dict = dict(constants)
        self.constants = constants  # the exercise's: its values win over the notebook's
        self.imports: dict[str, str | None] = {}
        # name -> the statement that bound it to something only a run computes
        self.opaque: dict[str, str] = {}
        # name -> a signature written as text, or a list of them: SIG = "void(float32[:])"
        self.texts: dict[str, Any] = {}
        # name -> why a run may leave it unbound: "del k", a block a run may skip
        self.unbound: dict[str, str] = {}
        self.runs: list[str] = []  # %run / %load lines: files the grader does not read
        self.seen: set[str] = set()  # every name a statement so far may have bound
        # name -> a name its value reads that nothing above binds (a NameError in a run)
        self.early: dict[str, str] = {}
        # function jitted with a signature -> (names its body reads that nothing above binds,
        # the constants as they stood): numba-cuda compiles it where it is defined
        self.eager: dict[str, tuple[set, dict]] = {}
        for src in cells:
            tree = parse_cell(src)
            if tree is None:  # the cell would stop at its syntax error and define nothing
                self._unparsed(src)
                continue
            self._block(flow.runnable(src, tree), src, constants)

    def _unparsed(self, src: str) -> None:
        """Name the functions a cell Python cannot parse would define, for _not_defined."""
        for name in flow.defined_names(src):
            if name not in self.defs and name not in self.aliases:
                self.unbound[name] = (
                    f"defined in a cell Python cannot run ({flow.syntax_error(src)}): fix that cell"
                )

    def _block(self, body: list, src: str, constants: dict) -> bool:
        """Top-level statements in order, until one that always raises (pdc.grade.flow); the
        bodies of ``with`` and ``try`` run with them (``with warnings.catch_warnings():``
        around a kernel), an ``if`` with a constant test runs its branch; other branches, an
        ``except`` and loops run only sometimes, and are not followed. True: the cell stopped.
        """
        for node in body:
            if flow.always_raises(node):
                return True
            if isinstance(node, ast.With | ast.AsyncWith):
                if self._block(node.body, src, constants):
                    return True
            elif isinstance(node, ast.Try):
                if not self._block(node.body, src, constants):  # a raise goes to a handler
                    self._block(node.orelse, src, constants)
                self._skipped(node.handlers, "`except`")
                if self._block(node.finalbody, src, constants):
                    return True
            elif isinstance(node, ast.If):
                taken = flow.truth(node.test, self._test_value)
                if taken is not None:
                    if self._block(node.body if taken else node.orelse, src, constants):
                        return True
                header = f"`if {ast.unparse(node.test)[:60]}:`"
                if taken is None:
                    self._sometimes([node], header)
                else:
                    where = f"the `else:` of {header}" if taken else header
                    self._skipped(node.orelse if taken else node.body, where)
            elif isinstance(node, ast.For | ast.AsyncFor | ast.While | ast.Match):
                self._sometimes([node], f"`{ast.unparse(node).partition(chr(10))[0][:60]}`")
                if isinstance(node, ast.For) and self._runs_once_at_least(node):
                    # for _ in range(1): its functions are defined (the same def each time)
                    for stmt in node.body:
                        if isinstance(stmt, ast.FunctionDef):
                            self._statement(stmt, src, constants)
            else:
                self._statement(node, src, constants)
            self.seen |= _binds(node)
        return False

    def _runs_once_at_least(self, node: ast.For) -> bool:
        """True for ``for NAME in range(...)`` whose count the syntax gives and is at least 1,
        with no ``break``, ``continue`` or ``return`` in its body: the body surely runs, so
        its functions are defined (constants it rebinds stay values only a run knows, as in
        any loop)."""
        if node.orelse:
            return False
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)):
            return False
        if it.func.id != "range" or "range" in self.seen or it.keywords:
            return False
        bounds = [self._test_value(a) for a in it.args]
        if not 1 <= len(bounds) <= 3 or not all(isinstance(b, int) for b in bounds):
            return False
        if any(_jumps(stmt) for stmt in node.body):
            return False
        try:
            return len(range(*bounds)) >= 1
        except ValueError:  # a step of 0
            return False

    def _test_value(self, node: ast.expr) -> Any:
        """A number, or a string (``MODE = "gpu"``), an ``if`` test may compare."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name) and isinstance(self.texts.get(node.id), str):
            return self.texts[node.id]
        return _number(self.consts, self.imports)(node)

    def _skipped(self, body: list, header: str) -> None:
        """Name the functions defined in a block a run may not take, for :func:`_not_defined`."""
        for n in [x for stmt in body for x in ast.walk(stmt)]:
            if isinstance(n, ast.FunctionDef) and n.name not in self.defs:
                self.unbound.setdefault(
                    n.name,
                    f"defined only inside {header}, which the grader does not run: "
                    "define it at the top level of a cell",
                )

    def _sometimes(self, body: list, header: str) -> None:
        """A block a run takes some number of times (a loop, an ``if`` on a value only a run
        knows): its functions are not defined (:meth:`_skipped`), and a constant it may
        rebind (``S = 0``, then ``S += 1`` in a loop) has a value only a run knows. The
        exercise's own constants keep their values; functions and imports are left as bound.
        """
        self._skipped(body, header)
        for name in sorted(_stored_names(body)):
            if name in self.constants or name in self.defs or name in self.aliases:
                continue
            if name in self.imports or name.startswith("__"):
                continue
            self._forget(name)
            self.opaque[name] = f"rebound inside {header}"[:80]

    def _forget(self, name: str) -> None:
        self.unbound.pop(name, None)
        self.early.pop(name, None)
        for table in (self.defs, self.aliases, self.consts, self.imports, self.opaque, self.texts):
            table.pop(name, None)

    def _statement(self, node, src: str, constants: dict) -> None:
        if isinstance(node, ast.Delete):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id not in constants:  # the exercise's wins
                    self._forget(t.id)
                    why = f"deleted by `{ast.unparse(node)[:60]}`: define it again after that line"
                    self.unbound[t.id] = why
            return
        if magic := flow.magic_file(node):
            self.runs.append(magic)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for name, path in jitkinds.bindings(node).items():
                self._forget(name)  # an import rebinds the name, as when the cell runs
                self.imports[name] = path
            return
        if isinstance(node, ast.FunctionDef):
            self._forget(node.name)
            self.eager.pop(node.name, None)
            if not node.name.startswith("__"):
                self.defs[node.name] = node
                self.srcs[node.name] = src
                if any(_signature_decorator(d, self.texts) for d in node.decorator_list):
                    reads = {
                        n.id
                        for n in ast.walk(node)
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                    }
                    known = self.seen | set(self.consts) | set(self.imports) | {node.name}
                    local = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
                    local |= {
                        n.id
                        for n in ast.walk(node)
                        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
                    }
                    self.eager[node.name] = (reads - known - local, dict(self.consts))
            return
        bound = jitkinds.course_binding(node, self.imports)
        if (bound := bound or jitkinds.attribute_binding(node, self.imports)) is not None:
            self._forget(bound[0])
            self.imports[bound[0]] = bound[1]
            return
        al = _alias(node, self.imports)
        if al is not None and _names_function(al, self.defs, self.aliases):
            name, target, kind = al
            self._forget(name)
            if not name.startswith("__") and name != target:
                if kind == "same" and target in self.aliases:  # an alias of an alias
                    target, kind = self.aliases[target]
                self.aliases[name] = (target, kind)
                self.alias_src[name] = ast.unparse(node)
            return
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            name = node.target.id  # HALO = TILE; HALO += 2 * R
            if name.startswith("__") or name in constants:
                return
            v = None
            if type(node.op) in BINOPS and name in self.consts:
                expr = ast.BinOp(ast.Name(name, ast.Load()), node.op, node.value)
                v = _evaluate(expr, self.consts, self.imports)
            self._forget(name)
            if v is not None:
                self.consts[name] = v
            else:
                self.opaque[name] = ast.unparse(node)[:80]
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for name, value in _bindings(node):
                if name.startswith("__") or name in constants:
                    continue  # the exercise's value wins
                self._forget(name)
                v = None if value is None else _evaluate(value, self.consts, self.imports)
                if v is not None:
                    self.consts[name] = v
                elif (text := _signature_text(value)) is not None:
                    self.texts[name] = text
                else:
                    self.opaque[name] = ast.unparse(node)[:80]
                    if value is not None and (missing := self._unbound_in(value)):
                        self.early[name] = missing

    def _unbound_in(self, value: ast.expr) -> str:
        """The first name ``value`` reads that no statement above binds ("": none)."""
        for n in ast.walk(value):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                known = n.id in self.seen or n.id in self.consts or hasattr(builtins, n.id)
                if not known:
                    return n.id
        return ""

    def kind(self, name: str) -> tuple[str, str]:
        """(jit kind, problem) of a function or alias name (see pdc.grade.imports.jit_kind)."""
        if name in self.aliases:
            target, kind = self.aliases[name]
            if kind == "same":
                return self.kind(target)
            inner, problem = self.kind(target)
            if inner != "python":
                return inner, f"{kind}-jitting {target}, which is already jitted"
            return kind, problem
        return jitkinds.jit_kind(self.defs[name].decorator_list, self.imports, self.texts)


def bound_names(cells: list[str], constants: dict) -> Any:
    """What a top-to-bottom run of the cells binds, worked out once per submission: every part of
    an exercise is extracted from the same cells and constants (callers only read it).

    Returns a private record of the names (functions, constants, imports) the run binds.
    """
    try:
        key = (tuple(cells), tuple(sorted(constants.items())))
        hash(key)
    except TypeError:  # a constant that is not hashable: no cache
        return _Notebook(cells, constants)
    return _bound_names(*key)


@functools.lru_cache(maxsize=32)
def _bound_names(cells: tuple, constants: tuple) -> _Notebook:
    return _Notebook(list(cells), dict(constants))


def definitions(cells: list[str]) -> dict[str, ast.FunctionDef]:
    """The functions a top-to-bottom run of the cells leaves defined, by name."""
    return dict(bound_names(cells, {}).defs)


def extract(cells: list[str], kernels: list[str], constants: dict) -> Extracted:
    """Take the named kernels, the device functions they call and the constants they use.

    The cells are the Python a top-to-bottom run executes (pdc.grade.notebook): later
    definitions win, imports bind only what they import (nothing is supplied), and the
    decorators are the notebook's own, so a graded name that is not a launchable CUDA kernel
    (``@njit``, ``@cuda.jit(device=True)``, no decorator) is a problem. Constants the
    exercise defines (``constants``) override the notebook's; a constant computed from
    others (``HALO = TILE + 2 * R``) uses the values known at that point.

    Args:
        cells: Code cell sources, in notebook order.
        kernels: Names of the kernel functions to take.
        constants: The exercise's constants (e.g. {"TPB": 256}).

    Returns:
        An Extracted with sources, constants and, per kernel, any reason it cannot be graded.
    """
    nb = bound_names(cells, constants)
    defs, aliases, consts = nb.defs, nb.aliases, nb.consts
    aliases = {a: v for a, v in aliases.items() if v[0] in defs and a not in consts}
    out = Extracted(constants=dict(consts))
    out.imports = {n: p for n, p in nb.imports.items() if jitkinds.importable(p)}
    for k in kernels:
        if k not in defs and k not in aliases:
            out.problems[k] = _not_defined(k, nb)
            continue
        kind, problem = nb.kind(k)
        if problem:
            out.problems[k] = f"{k}: {problem} cannot be graded"
            continue
        if kind != "kernel":
            out.problems[k] = f"{k} {jitkinds.WHY_NOT_KERNEL[kind]}"
            continue
        todo, seen, problems, calls = [k], [], [], {}
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.append(name)
            if name in aliases:
                todo.append(aliases[name][0])
                calls[name] = [aliases[name][0]]
                continue
            fn = defs[name]
            called = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
            called = (called & (set(defs) | set(aliases))) - {name}
            calls[name] = sorted(called)
            if why := _defined_too_late(name, calls[name], nb):
                problems.append(why)
            if name != k and (why := nb.kind(name)[1]):
                problems.append(f"{name}: {why} cannot be graded")
            problems += [f"{name}: {p}" for p in _definition_problems(fn, nb)]
            todo += sorted(called)
        if problems:
            out.problems[k] = "; ".join(problems[:5])
            continue
        root = aliases[k][0] if k in aliases else k
        if root in nb.eager:  # compiled where defined: the constants as they stood there
            frozen = nb.eager[root][1]
            read = {
                n.id
                for f in seen
                if f in defs
                for n in ast.walk(defs[f])
                if isinstance(n, ast.Name)
            }
            for name in sorted(read & set(frozen)):
                out.constants[name] = frozen[name]
        for name in _callees_first(k, calls):
            if name not in out.order:
                out.order.append(name)
            if name in aliases:
                out.aliases[name] = aliases[name]
                out.alias_src[name] = nb.alias_src[name]
                continue
            fn, lines = defs[name], nb.srcs[name].splitlines()
            for d in [n for dec in fn.decorator_list for n in ast.walk(dec)]:
                if isinstance(d, ast.Name) and d.id in nb.texts:  # @cuda.jit(SIG)
                    out.constants[d.id] = nb.texts[d.id]
            text = "\n".join(lines[_first_line(fn) - 1 : fn.end_lineno]) + "\n"
            out.written[name] = textwrap.dedent(text)  # a def inside a with block is indented
            out.device[name] = nb.kind(name)[0]
    return out


def _signature_decorator(dec: ast.expr, texts: dict) -> bool:
    """``@cuda.jit("void(float32[:])")``, ``@cuda.jit([...])``, ``@cuda.jit(SIG)``: a
    decorator given a signature, with which numba-cuda compiles where the function is defined."""
    if not (isinstance(dec, ast.Call) and dec.args):
        return False
    first = dec.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return True
    return isinstance(first, ast.List | ast.Tuple) or (
        isinstance(first, ast.Name) and first.id in texts
    )


def _defined_too_late(name: str, calls: list, nb: _Notebook) -> str:
    """Why a function jitted with a signature fails where it is defined ("" if it does not):
    it calls a function, or reads a constant, that the notebook binds only below it."""
    if name not in nb.eager:
        return ""
    missing, _ = nb.eager[name]
    late = [c for c in calls if c in missing]
    late += sorted(n for n in missing if n in nb.consts and n not in late)
    if not late:
        return ""
    return (
        f"{name} is jitted with a signature, so numba-cuda compiles it where it is defined, "
        f"before {late[0]} (bound below it) exists: a run of the notebook stops there with a "
        f"NameError. Define {late[0]} above {name}"
    )


def _callees_first(root: str, calls: dict) -> list[str]:
    """The functions ``root`` reaches, each after every function it calls (cycles cut): the
    order a module must define them in when ``cuda.jit(signature)`` compiles each one as it is
    defined, as the notebook did."""
    order: list[str] = []
    stack = [(root, iter(calls.get(root, ())))]
    entered = {root}
    while stack:
        name, it = stack[-1]
        nxt = next((c for c in it if c not in entered), None)
        if nxt is None:
            stack.pop()
            order.append(name)
        else:
            entered.add(nxt)
            stack.append((nxt, iter(calls.get(nxt, ()))))
    return order


def _not_defined(k: str, nb: _Notebook) -> str:
    """Why no kernel is bound to ``k``, naming what the notebook bound to it instead."""
    fix = f"define {k} in a code cell of this notebook with def, decorated @cuda.jit"
    if k in nb.imports:
        where = nb.imports[k] or "a relative module"
        return f"{k} is imported from {where}, which the grader does not read: {fix}"
    if k in nb.opaque:
        return f"{k} is bound by `{nb.opaque[k]}`, not defined as a function: {fix}"
    if k in nb.consts:
        return f"{k} is bound to the number {nb.consts[k]!r}, not to a function: {fix}"
    if k in nb.unbound:
        return f"no function named {k!r} in the notebook: {k} is {nb.unbound[k]}"
    if nb.runs:
        return (
            f"no function named {k!r} in the notebook (the grader does not read the files of "
            f"{', '.join(nb.runs[:3])}): {fix}"
        )
    return f"no function named {k!r} in the notebook"


def _definition_problems(fn: ast.FunctionDef, nb: _Notebook) -> list[str]:
    """What keeps ``fn`` from being defined for numba without running the notebook.

    Default values are evaluated when a function is defined, so they must be constants.
    A global the function reads must be one the grader can supply: a constant, a function,
    a name imported from math, numpy, numba or numba.cuda, or a builtin; a global computed at
    run time (``W = np.ones(8)``) or imported from another module gets its own reason here,
    where numba would only say that the name is not defined.
    """
    problems = []
    a = fn.args
    for d in [*a.defaults, *(d for d in a.kw_defaults if d is not None)]:
        if _evaluate(d, nb.consts, nb.imports) is None:
            problems.append(f"the default argument {ast.unparse(d)} (only a constant number)")
    local = {x.arg for x in ast.walk(fn) if isinstance(x, ast.arg)}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            local.add(n.id)
        elif isinstance(n, ast.FunctionDef | ast.Lambda) and n is not fn:
            if isinstance(n, ast.FunctionDef):
                local.add(n.name)
    for n in ast.walk(fn):
        if not isinstance(n, ast.Name) or not isinstance(n.ctx, ast.Load) or n.id in local:
            continue
        line = n.lineno - fn.lineno + 1
        if n.id in nb.early:
            problems.append(
                f"line {line}: the global {n.id} ({nb.opaque[n.id]}) reads {nb.early[n.id]} "
                "before the notebook defines it: run from the top, the notebook stops there "
                "with a NameError"
            )
        elif n.id in nb.opaque:
            problems.append(
                f"line {line}: the global {n.id} ({nb.opaque[n.id]}): only constants computed "
                "from numbers (with math or NumPy functions) reach a kernel without running the "
                "notebook"
            )
        elif n.id in nb.imports and not jitkinds.importable(nb.imports[n.id]):
            what = nb.imports[n.id] or "an import the grader does not follow"
            problems.append(
                f"line {line}: {n.id} (from {what}): kernels may use math, numpy, numba and "
                "numba.cuda only"
            )
    return list(dict.fromkeys(problems))

"""Find the graded kernels in a notebook and check that they are plain CUDA kernel code.

The grader never executes a submission's notebook. It parses the code cells (nbformat + ast),
takes the kernel functions it grades, the device functions they call and the numeric
constants they use (literals, or arithmetic on other constants), and checks each function
against the subset of Python that ``numba.cuda`` compiles for a GPU: arithmetic, loops,
branches, indexing, ``cuda.*`` and ``math.*``. Imports, attribute assignment, dunder names
and attributes starting with an underscore, builtins other than a short list, and rebinding
a module name (``cuda``, ``math``, ``np``, ``numpy``, ``numba``) cannot appear, which leaves
kernel code no way to reach the process it runs in. Whether the code really compiles for a
GPU is decided by numba itself (pdc.grade.gate), not here.
"""

from __future__ import annotations

import ast
import math
import types
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from pdc import pyast
from pdc.grade import spelling

ALLOWED_BUILTINS = (
    "range",
    "min",
    "max",
    "abs",
    "int",
    "float",
    "bool",
    "len",
    "round",
    "print",
    "enumerate",
    "zip",
    "pow",
    "divmod",
    "complex",
)
MODULE_ROOTS = ("cuda", "math", "numba", "np", "numpy")
ARRAY_ATTRS = ("shape", "size", "ndim", "x", "y", "z", "dtype", "real", "imag")
DTYPE_NAMES = (
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "boolean",
    "bool_",
    "complex64",
    "complex128",
)

_ALLOWED_NODES = (
    ast.FunctionDef,
    ast.arguments,
    ast.arg,
    ast.Return,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.For,
    ast.While,
    ast.If,
    ast.Break,
    ast.Continue,
    ast.Pass,
    ast.Expr,
    ast.BoolOp,
    ast.BinOp,
    ast.UnaryOp,
    ast.Compare,
    ast.IfExp,
    ast.Call,
    ast.Constant,
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.Tuple,
    ast.keyword,
    ast.Load,
    ast.Store,
    ast.operator,
    ast.unaryop,
    ast.cmpop,
    ast.boolop,
    ast.expr_context,
)


@dataclass
class Extracted:
    """Kernel sources found in a notebook, ready to run in a child process."""

    functions: dict = field(default_factory=dict)  # name -> source (decorators removed)
    constants: dict = field(default_factory=dict)  # name -> literal value
    device: dict = field(default_factory=dict)  # name -> how the notebook jits it (see _jit_kind)
    aliases: dict = field(default_factory=dict)  # name -> (function, jit kind): f = cuda.jit(g)
    problems: dict = field(default_factory=dict)  # kernel name -> why it cannot be graded


def read_notebook(path):
    """Read a notebook as nbformat v4 (see pdc.grade.notebook.read_notebook)."""
    from pdc.grade import notebook

    return notebook.read_notebook(path)


def notebook_cells(path) -> list[str]:
    """The Python a top-to-bottom run of a notebook executes (pdc.grade.notebook)."""
    from pdc.grade import notebook

    return notebook.notebook_cells(path)


class _Checker(ast.NodeVisitor):
    def __init__(self, fn: ast.FunctionDef, known: set):
        self.fn = fn
        self.known = known
        self.problems: list[str] = []
        self.locals = {a.arg for a in fn.args.args}
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.locals.add(node.id)
        for name in sorted(self.locals & set(MODULE_ROOTS)):
            # A local named like a module would be trusted as that module below.
            self.problems.append(f"rebinding the module name {name!r} cannot be used in a kernel")

    def bad(self, node, what):
        line = getattr(node, "lineno", self.fn.lineno) - self.fn.lineno + 1
        self.problems.append(f"line {line}: {what} cannot be used in a CUDA kernel")

    def generic_visit(self, node):
        if not isinstance(node, _ALLOWED_NODES):
            self.bad(node, type(node).__name__.lower().replace("def", " def"))
            return
        super().generic_visit(node)

    def visit_FunctionDef(self, node):  # noqa: N802 - ast visitor API
        if node is not self.fn:
            self.bad(node, "a nested function")
            return
        a = node.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            self.bad(node, "*args, **kwargs or keyword-only arguments")
        for d in a.defaults:  # numba compiles defaults that are constants: start=0
            if _evaluate(d, {}) is None and not (isinstance(d, ast.Name) and d.id in self.known):
                self.bad(d, "a default argument other than a number or a constant")
        for stmt in node.body:
            self.visit(stmt)

    def visit_Expr(self, node):  # noqa: N802
        if not isinstance(node.value, (ast.Call, ast.Constant)):
            self.bad(node, "an expression statement other than a call")
        self.generic_visit(node)

    def visit_Name(self, node):  # noqa: N802
        name = node.id
        if name.startswith("__"):
            self.bad(node, f"the name {name!r}")
        elif isinstance(node.ctx, ast.Load) and name not in self.locals | self.known:
            self.bad(
                node,
                f"the name {name!r} (not a kernel argument, local, constant or device function)",
            )

    def visit_Attribute(self, node):  # noqa: N802
        if not isinstance(node.ctx, ast.Load):
            self.bad(node, f"assigning to the attribute .{node.attr}")
            return
        if node.attr.startswith("_"):
            self.bad(node, f"the attribute .{node.attr}")
            return
        root = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        rooted = isinstance(root, ast.Name) and root.id in MODULE_ROOTS
        if rooted and root.id == "numba" and self._under_numba_cuda(node):
            return  # numba.cuda.grid(1) is cuda.grid(1)
        if rooted and root.id in ("np", "numpy", "numba") and node.attr not in DTYPE_NAMES:
            self.bad(node, f"{root.id}.{node.attr} (only dtypes such as {root.id}.float32)")
            return
        if not rooted and node.attr not in ARRAY_ATTRS:
            self.bad(node, f"the attribute .{node.attr}")
            return
        self.visit(node.value)

    @staticmethod
    def _under_numba_cuda(node) -> bool:
        chain = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        return len(chain) >= 1 and chain[-1] == "cuda"

    def visit_Call(self, node):  # noqa: N802
        if isinstance(node.func, ast.Name) and node.func.id not in self.known:
            if node.func.id not in ALLOWED_BUILTINS:
                self.bad(node, f"calling {node.func.id}()")
        self.generic_visit(node)

    def visit_Subscript(self, node):  # noqa: N802
        if isinstance(node.slice, ast.Slice):
            self.bad(node, "slicing")
            return
        self.generic_visit(node)


def check_function(fn: ast.FunctionDef, known: set) -> list[str]:
    """Problems that keep ``fn`` from being a CUDA kernel or device function ([] if none)."""
    c = _Checker(fn, known)
    c.visit(fn)
    return c.problems


_BINOPS = {
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
_CALLS: dict[str, Callable] = {"int": int, "float": float, "min": min, "max": max, "abs": abs}
_NUMBER = (int, float, bool)


def _evaluate(node, env: dict):
    """The value of a constant expression over numbers and known constants, else None."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, _NUMBER) else None
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert)):
        v = _evaluate(node.operand, env)
        if not isinstance(v, _NUMBER):
            return None
        if isinstance(node.op, ast.Invert):
            return ~v if isinstance(v, int) else None
        return -v if isinstance(node.op, ast.USub) else +v
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a, b = _evaluate(node.left, env), _evaluate(node.right, env)
        if not isinstance(a, _NUMBER) or not isinstance(b, _NUMBER):
            return None
        if isinstance(node.op, (ast.Pow, ast.LShift)) and abs(b) > 64:
            return None  # a constant this large is no launch size; refuse to compute it
        try:
            return _BINOPS[type(node.op)](a, b)
        except (ArithmeticError, ValueError):
            return None
    if isinstance(node, ast.Tuple) and len(node.elts) <= MAX_TUPLE:
        vals = [_evaluate(e, env) for e in node.elts]
        return tuple(vals) if all(isinstance(v, _NUMBER) for v in vals) else None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _CALLS
        and not node.keywords
        and node.args
    ):
        vals = [_evaluate(a, env) for a in node.args]
        if all(isinstance(v, _NUMBER) for v in vals):
            try:
                return _CALLS[node.func.id](*vals)
            except (TypeError, ValueError, OverflowError):
                return None
    return None


_RESERVED = frozenset(MODULE_ROOTS) | frozenset(DTYPE_NAMES) | frozenset(ALLOWED_BUILTINS)


def _jit_call(node) -> str | None:
    """Whether ``node`` is cuda.jit, cuda.jit(...) or numba.cuda.jit(...): "device", "kernel"."""
    call = node if isinstance(node, ast.Call) else None
    f = call.func if call is not None else node
    dotted = []
    while isinstance(f, ast.Attribute):
        dotted.append(f.attr)
        f = f.value
    if not isinstance(f, ast.Name):
        return None
    dotted.append(f.id)
    if ".".join(reversed(dotted)) not in ("cuda.jit", "numba.cuda.jit"):
        return None
    device = call is not None and any(
        k.arg == "device" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in call.keywords
    )
    return "device" if device else "kernel"


def _jit_kind(fn: ast.FunctionDef) -> str:
    """How a def is jitted in the notebook: "device", "kernel" or "python" (not at all)."""
    for d in fn.decorator_list:
        kind = _jit_call(d)
        if kind:
            return kind
    return "python"


def _alias(node) -> tuple[str, str, str] | None:
    """(name, function, jit kind) for ``name = cuda.jit(device=True)(function)``.

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
    kind = _jit_call(v.func)  # cuda.jit(device=True)(g), or cuda.jit(g) for a kernel
    return (t.id, arg.id, kind) if kind else None


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


def _names_function(alias: tuple[str, str, str], defs: dict, aliases: dict) -> bool:
    """Whether an alias refers to a function (``f = g`` may also copy a constant)."""
    return alias[2] != "same" or alias[1] in defs or alias[1] in aliases


def extract(cells: list[str], kernels: list[str], constants: dict) -> Extracted:
    """Take the named kernels, the device functions they call and the constants they use.

    Later definitions win, as when the notebook runs top to bottom. Constants the exercise
    defines (``constants``) override the notebook's; a constant computed from others
    (``HALO = TILE + 2 * R``) uses the values known at that point.

    Args:
        cells: Code cell sources, in notebook order.
        kernels: Names of the kernel functions to take.
        constants: The exercise's constants (e.g. {"TPB": 256}).

    Returns:
        An Extracted with sources, constants and, per kernel, any reason it cannot be graded.
    """
    defs: dict[str, ast.FunctionDef] = {}
    srcs: dict[str, str] = {}
    aliases: dict[str, tuple[str, str]] = {}
    consts: dict = dict(constants)
    imports: dict[str, str] = {}  # name -> module path, from the notebook's own imports
    for src in cells:
        try:
            tree = pyast.parse(src)
        except SyntaxError:
            continue
        for node in tree.body:
            if bound := spelling.import_bindings(node, _RESERVED):
                imports.update(bound)
                for name in bound:  # an import rebinds the name, as when the cell runs
                    defs.pop(name, None)
                    aliases.pop(name, None)
                    consts.pop(name, None)
                continue
            bound_here = {node.name} if isinstance(node, ast.FunctionDef) else set()
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                bound_here |= {name for name, _ in _bindings(node)}
            for name in bound_here:
                imports.pop(name, None)
            if isinstance(node, ast.FunctionDef) and node.name not in _RESERVED:
                if not node.name.startswith("__"):
                    defs[node.name] = node
                    srcs[node.name] = src
                    aliases.pop(node.name, None)
                    consts.pop(node.name, None)
            elif (al := _alias(node)) is not None and _names_function(al, defs, aliases):
                if al[0] not in _RESERVED and not al[0].startswith("__") and al[0] != al[1]:
                    name, target, kind = al
                    if kind == "same" and target in aliases:  # an alias of an alias
                        target, kind = aliases[target]
                    aliases[name] = (target, kind)
                    defs.pop(name, None)
                    consts.pop(name, None)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                for name, value in _bindings(node):
                    if name.startswith("__") or name in _RESERVED or name in constants:
                        continue  # the exercise's value wins
                    v = None if value is None else _evaluate(value, consts)
                    if v is not None:
                        consts[name] = v
                    else:
                        consts.pop(name, None)  # rebound to something that is no constant
    for name, fn in list(defs.items()):
        if (spelled := spelling.respell(fn, imports)) is not None:
            srcs[name] = spelled
            defs[name] = pyast.parse(spelled).body[0]  # type: ignore[assignment]
    aliases = {a: v for a, v in aliases.items() if v[0] in defs and a not in consts}
    known = set(MODULE_ROOTS) | set(DTYPE_NAMES) | set(consts) | set(ALLOWED_BUILTINS)
    known |= set(defs) | set(aliases)
    out = Extracted(constants=consts)
    for k in kernels:
        if k not in defs and k not in aliases:
            out.problems[k] = f"no function named {k!r} in the notebook"
            continue
        todo, seen, problems = [k], [], []
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.append(name)
            if name in aliases:
                todo.append(aliases[name][0])
                continue
            fn = defs[name]
            called = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
            called = (called & (set(defs) | set(aliases))) - {name}
            problems += [f"{name}: {p}" for p in check_function(fn, known)]
            todo += sorted(called)
        if problems:
            out.problems[k] = "; ".join(problems[:5])
            continue
        for name in seen:
            if name in aliases:
                out.aliases[name] = aliases[name]
                continue
            fn, src = defs[name], srcs[name]
            lines = src.splitlines()[fn.lineno - 1 : fn.end_lineno]
            out.functions[name] = "\n".join(lines) + "\n"
            out.device[name] = _jit_kind(fn)
    return out


def sandbox_globals(constants: dict) -> dict:
    """Globals for kernel code: allowed builtins, math, dtype names, constants, a ``cuda`` slot."""
    import builtins

    dtypes = {n: getattr(np, n) for n in DTYPE_NAMES if hasattr(np, n)}
    dtypes["boolean"] = np.bool_
    ns = types.SimpleNamespace(**dtypes)
    g: dict[str, object] = {"__builtins__": {n: getattr(builtins, n) for n in ALLOWED_BUILTINS}}
    g.update(dtypes)
    numba_ns = types.SimpleNamespace(**dtypes, cuda=types.ModuleType("cuda"))
    g.update(math=math, np=ns, numpy=ns, numba=numba_ns, cuda=types.ModuleType("cuda"))
    g.update(constants)
    return g


def build(functions: dict, constants: dict, aliases: dict | None = None) -> dict:
    """Define the checked functions in a fresh sandbox namespace and return it."""
    g = sandbox_globals(constants)
    import linecache

    for name, src in functions.items():
        filename = f"<kernel {name}>"
        # The simulator rewrites kernels with barriers from their source (pdc.grade.simgen).
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        code = compile(src, filename, "exec")
        exec(code, g)  # noqa: S102 - source passed check_function
    for name, (target, _kind) in (aliases or {}).items():
        g[name] = g[target]
    return g

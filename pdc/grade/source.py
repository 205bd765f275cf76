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
import copy
import functools
import math
import types
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from pdc import pyast
from pdc.grade import imports as jitkinds
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

    # name -> source the simulator runs (decorators removed; imported names spelled as
    # module paths, pdc.grade.spelling)
    functions: dict = field(default_factory=dict)
    written: dict = field(default_factory=dict)  # name -> source as written, with decorators
    constants: dict = field(default_factory=dict)  # name -> literal value
    device: dict = field(default_factory=dict)  # name -> jit kind (pdc.grade.imports.jit_kind)
    aliases: dict = field(default_factory=dict)  # name -> (function, jit kind): f = cuda.jit(g)
    alias_src: dict = field(default_factory=dict)  # name -> the aliasing statement as written
    imports: dict = field(default_factory=dict)  # name -> full path the notebook imported
    problems: dict = field(default_factory=dict)  # kernel name -> why it cannot be graded


def read_notebook(path):
    """Read a notebook as nbformat v4 (see pdc.grade.notebook.read_notebook)."""
    from pdc.grade import notebook

    return notebook.read_notebook(path)


def notebook_cells(path) -> list[str]:
    """The Python a top-to-bottom run of a notebook executes (pdc.grade.notebook)."""
    from pdc.grade import notebook

    return notebook.notebook_cells(path)


#: How a notebook that imported the usual way names the modules (``import numpy as np``).
USUAL_MODULES = {
    "cuda": "numba.cuda",
    "math": "math",
    "numba": "numba",
    "np": "numpy",
    "numpy": "numpy",
}


class _Checker(ast.NodeVisitor):
    def __init__(self, fn: ast.FunctionDef, known: set, modules: dict):
        self.fn = fn
        self.known = known
        self.modules = modules
        self.problems: list[str] = []
        self.locals = {a.arg for a in fn.args.args}
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.locals.add(node.id)
        for name in sorted(self.locals & (set(modules) | set(MODULE_ROOTS))):
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
        names = set(self.modules) | self.locals | self.known
        if isinstance(root, ast.Name) and root.id not in names:
            self.visit(root)  # a module the notebook never imported: say so by name
            return
        rooted = isinstance(root, ast.Name) and root.id in self.modules
        module = self.modules.get(root.id) if isinstance(root, ast.Name) else None
        if module == "numba" and self._under_numba_cuda(node):
            return  # numba.cuda.grid(1) is cuda.grid(1)
        if module in ("numpy", "numba") and node.attr not in DTYPE_NAMES:
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


def check_function(fn: ast.FunctionDef, known: set, modules: dict | None = None) -> list[str]:
    """Problems that keep ``fn`` from being a CUDA kernel or device function ([] if none).

    Args:
        fn: The function's syntax tree.
        known: Names it may use besides its own locals (constants, device functions, ...).
        modules: Name -> module (``{"np": "numpy"}``) for the module names it may use
            (default: ``cuda``, ``math``, ``numba``, ``np``, ``numpy`` as usually imported).
    """
    c = _Checker(fn, known, USUAL_MODULES if modules is None else modules)
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


def _names_function(alias: tuple[str, str, str], defs: dict, aliases: dict) -> bool:
    """Whether an alias refers to a function (``f = g`` may also copy a constant)."""
    return alias[2] != "same" or alias[1] in defs or alias[1] in aliases


@functools.lru_cache(maxsize=4096)
def _parse_cell(src: str) -> ast.Module | None:
    """A cell's syntax tree, or None for a syntax error; parsed once, then shared.

    Every kernel of a notebook is extracted from the same cells, and nothing here changes a
    tree (the simulator's respelled copy is parsed anew), so one parse serves them all.
    """
    try:
        return pyast.parse(src)
    except SyntaxError:
        return None


class _Notebook:
    """The names a top-to-bottom run of the cells leaves bound: functions, constants, imports."""

    def __init__(self, cells: list[str], constants: dict):
        self.defs: dict[str, ast.FunctionDef] = {}
        self.srcs: dict[str, str] = {}
        self.aliases: dict[str, tuple[str, str]] = {}
        self.alias_src: dict[str, str] = {}
        self.consts: dict = dict(constants)
        self.imports: dict[str, str | None] = {}
        for src in cells:
            tree = _parse_cell(src)
            if tree is None:
                continue  # the cell would stop at its syntax error and define nothing
            for node in tree.body:
                self._statement(node, src, constants)

    def _forget(self, name: str) -> None:
        for table in (self.defs, self.aliases, self.consts, self.imports):
            table.pop(name, None)

    def _statement(self, node, src: str, constants: dict) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for name, path in jitkinds.bindings(node).items():
                self._forget(name)  # an import rebinds the name, as when the cell runs
                self.imports[name] = path
            return
        if isinstance(node, ast.FunctionDef):
            self._forget(node.name)
            if node.name not in ALLOWED_BUILTINS and not node.name.startswith("__"):
                self.defs[node.name] = node
                self.srcs[node.name] = src
            return
        if (bound := jitkinds.course_binding(node, self.imports)) is not None:
            self._forget(bound[0])
            self.imports[bound[0]] = bound[1]
            return
        al = _alias(node, self.imports)
        if al is not None and _names_function(al, self.defs, self.aliases):
            name, target, kind = al
            self._forget(name)
            if name not in ALLOWED_BUILTINS and not name.startswith("__") and name != target:
                if kind == "same" and target in self.aliases:  # an alias of an alias
                    target, kind = self.aliases[target]
                self.aliases[name] = (target, kind)
                self.alias_src[name] = ast.unparse(node)
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for name, value in _bindings(node):
                if name.startswith("__") or name in constants:
                    continue  # the exercise's value wins
                self._forget(name)
                v = None if value is None else _evaluate(value, self.consts)
                if v is not None and name not in ALLOWED_BUILTINS:
                    self.consts[name] = v

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
        return jitkinds.jit_kind(self.defs[name].decorator_list, self.imports)


def definitions(cells: list[str]) -> dict[str, ast.FunctionDef]:
    """The functions a top-to-bottom run of the cells leaves defined, by name."""
    return _Notebook(cells, {}).defs


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
    nb = _Notebook(cells, constants)
    defs, aliases, consts = nb.defs, nb.aliases, nb.consts
    aliases = {a: v for a, v in aliases.items() if v[0] in defs and a not in consts}
    modules = {n: p for n, p in nb.imports.items() if jitkinds.is_namespace(p)}
    usable = {n for n, p in nb.imports.items() if jitkinds.usable(p)}
    known = usable | set(consts) | set(ALLOWED_BUILTINS) | set(defs) | set(aliases)
    out = Extracted(constants=consts)
    out.imports = {n: p for n, p in nb.imports.items() if jitkinds.importable(p)}
    spell = {n: jitkinds.spelled(p) for n, p in out.imports.items() if n in usable}
    spell = {n: p for n, p in spell.items() if p != n}
    for k in kernels:
        if k not in defs and k not in aliases:
            out.problems[k] = f"no function named {k!r} in the notebook"
            continue
        kind, problem = nb.kind(k)
        if problem:
            out.problems[k] = f"{k}: {problem} cannot be graded"
            continue
        if kind != "kernel":
            out.problems[k] = f"{k} {jitkinds.WHY_NOT_KERNEL[kind]}"
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
            if name != k and (why := nb.kind(name)[1]):
                problems.append(f"{name}: {why} cannot be graded")
            problems += [f"{name}: {p}" for p in check_function(fn, known, modules)]
            todo += sorted(called)
        if problems:
            out.problems[k] = "; ".join(problems[:5])
            continue
        for name in seen:
            if name in aliases:
                out.aliases[name] = aliases[name]
                out.alias_src[name] = nb.alias_src[name]
                continue
            fn, lines = defs[name], nb.srcs[name].splitlines()
            out.written[name] = "\n".join(lines[_first_line(fn) - 1 : fn.end_lineno]) + "\n"
            bare = copy.copy(fn)
            bare.decorator_list = []  # the simulator runs the function itself
            spelled = spelling.respell(bare, spell) if spell else None
            out.functions[name] = spelled or "\n".join(lines[fn.lineno - 1 : fn.end_lineno]) + "\n"
            out.device[name] = nb.kind(name)[0]
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

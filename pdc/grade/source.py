"""Find the graded kernels in a notebook and check that they are plain CUDA kernel code.

The grader never executes a submission's notebook. It parses the code cells (nbformat + ast),
takes the kernel functions it grades, the device functions they call and literal constants,
and checks each function against the subset of Python that ``numba.cuda`` compiles for a GPU:
arithmetic, loops, branches, indexing, ``cuda.*`` and ``math.*``. Imports, attribute
assignment, names starting with an underscore, and builtins other than a short list cannot
appear in a CUDA kernel, so rejecting them costs a correct kernel nothing and leaves kernel code
no way to reach the process it runs in.
"""

from __future__ import annotations

import ast
import math
import types
from dataclasses import dataclass, field

import numpy as np

ALLOWED_BUILTINS = ("range", "min", "max", "abs", "int", "float", "bool", "len", "round", "print")
MODULE_ROOTS = ("cuda", "math", "numba", "np", "numpy")
ARRAY_ATTRS = ("shape", "size", "ndim", "x", "y", "z", "dtype", "real", "imag")
DTYPE_NAMES = (
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
    "uint32", "uint64", "boolean", "bool_", "complex64", "complex128",
)  # fmt: skip

_ALLOWED_NODES = (
    ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.Assign, ast.AugAssign,
    ast.AnnAssign, ast.For, ast.While, ast.If, ast.Break, ast.Continue, ast.Pass, ast.Expr,
    ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Call, ast.Constant,
    ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.keyword, ast.Load, ast.Store,
    ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.expr_context,
)  # fmt: skip


@dataclass
class Extracted:
    """Kernel sources found in a notebook, ready to run in a child process."""

    functions: dict = field(default_factory=dict)  # name -> source (decorators removed)
    constants: dict = field(default_factory=dict)  # name -> literal value
    problems: dict = field(default_factory=dict)  # kernel name -> why it cannot be graded


def read_notebook(path):
    """Read a notebook as nbformat v4 without schema validation (slow on big outputs)."""
    import nbformat
    from nbformat import reader

    with open(path, encoding="utf-8") as f:
        nb = reader.reads(f.read())
    return nbformat.convert(nb, 4)


def notebook_cells(path) -> list[str]:
    """The code cells of a notebook, IPython magics and shell lines blanked out."""
    nb = read_notebook(path)
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        lines = [
            "" if ln.lstrip().startswith(("%", "!")) else ln for ln in cell.source.splitlines()
        ]
        cells.append("\n".join(lines))
    return cells


class _Checker(ast.NodeVisitor):
    def __init__(self, fn: ast.FunctionDef, known: set):
        self.fn = fn
        self.known = known
        self.problems: list[str] = []
        self.locals = {a.arg for a in fn.args.args}
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.locals.add(node.id)

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
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
            self.bad(node, "*args, **kwargs, keyword-only or default arguments")
        for stmt in node.body:
            self.visit(stmt)

    def visit_Expr(self, node):  # noqa: N802
        if not isinstance(node.value, (ast.Call, ast.Constant)):
            self.bad(node, "an expression statement other than a call")
        self.generic_visit(node)

    def visit_Name(self, node):  # noqa: N802
        name = node.id
        if name.startswith("_"):
            self.bad(node, f"the name {name!r}")
        elif isinstance(node.ctx, ast.Load) and name not in self.locals | self.known:
            self.bad(node, f"the name {name!r} (not a kernel argument, local, constant or "
                     "device function)")  # fmt: skip

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
        if rooted and root.id in ("np", "numpy", "numba") and node.attr not in DTYPE_NAMES:
            self.bad(node, f"{root.id}.{node.attr} (only dtypes such as {root.id}.float32)")
            return
        if not rooted and node.attr not in ARRAY_ATTRS:
            self.bad(node, f"the attribute .{node.attr}")
            return
        self.visit(node.value)

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


def _literal(node):
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    ok = (int, float, bool)
    if isinstance(value, ok) or (
        isinstance(value, tuple) and all(isinstance(v, ok) for v in value) and len(value) <= 3
    ):
        return value
    return None


def extract(cells: list[str], kernels: list[str], constants: dict) -> Extracted:
    """Take the named kernels, the device functions they call and literal constants.

    Later definitions win, as when the notebook runs top to bottom. Constants the exercise
    defines (``constants``) override the notebook's.

    Args:
        cells: Code cell sources, in notebook order.
        kernels: Names of the kernel functions to take.
        constants: The exercise's constants (e.g. {"TPB": 256}).

    Returns:
        An Extracted with sources, constants and, per kernel, any reason it cannot be graded.
    """
    defs: dict[str, ast.FunctionDef] = {}
    srcs: dict[str, str] = {}
    consts: dict = {}
    for src in cells:
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                defs[node.name] = node
                srcs[node.name] = src
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                t = node.targets[0]
                if isinstance(t, ast.Name) and not t.id.startswith("_"):
                    v = _literal(node.value)
                    if v is not None:
                        consts[t.id] = v
    consts.update(constants)
    known = set(MODULE_ROOTS) | set(DTYPE_NAMES) | set(consts) | set(ALLOWED_BUILTINS)
    out = Extracted(constants=consts)
    for k in kernels:
        if k not in defs:
            out.problems[k] = f"no function named {k!r} in the notebook"
            continue
        todo, seen, problems = [k], [], []
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.append(name)
            fn = defs[name]
            called = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id in defs} - {
                name
            }
            problems += [f"{name}: {p}" for p in check_function(fn, known | called | set(defs))]
            todo += sorted(called)
        if problems:
            out.problems[k] = "; ".join(problems[:5])
            continue
        for name in seen:
            fn, src = defs[name], srcs[name]
            lines = src.splitlines()[fn.lineno - 1 : fn.end_lineno]
            out.functions[name] = "\n".join(lines) + "\n"
    return out


def sandbox_globals(constants: dict) -> dict:
    """Globals for kernel code: allowed builtins, math, dtype names, constants, a ``cuda`` slot."""
    import builtins

    dtypes = {n: getattr(np, n) for n in DTYPE_NAMES if hasattr(np, n)}
    dtypes["boolean"] = np.bool_
    ns = types.SimpleNamespace(**dtypes)
    g: dict[str, object] = {"__builtins__": {n: getattr(builtins, n) for n in ALLOWED_BUILTINS}}
    g.update(dtypes)
    g.update(math=math, np=ns, numpy=ns, numba=ns, cuda=types.ModuleType("cuda"))
    g.update(constants)
    return g


def build(functions: dict, constants: dict) -> dict:
    """Define the checked functions in a fresh sandbox namespace and return it."""
    g = sandbox_globals(constants)
    for name, src in functions.items():
        code = compile(src, f"<kernel {name}>", "exec")
        exec(code, g)  # noqa: S102 - source passed check_function
    return g

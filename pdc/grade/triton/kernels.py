"""Find a Triton kernel in a notebook's cells, and refuse what a Triton kernel cannot be.

The grader never runs a notebook: it parses the code cells, takes the last ``def`` of the
kernel decorated with ``triton.jit`` (and the other ``triton.jit`` functions of the
notebook, which a kernel may call), and checks them before anything runs. A Triton kernel
is compiled for a GPU, so inside it only ``tl`` operations, its parameters, its locals,
the other kernels and a few builtins have a meaning: ``torch``, ``numpy``, imports,
dunder names and private attributes are refused with the line that uses them; libdevice,
imported as Triton documents it, is kept (pdc.grade.triton.libdevice runs it). A global a
kernel reads must be a constexpr, as Triton's compiler requires: a cell's
``LOG2E = tl.constexpr(1.4426950408889634)`` (a number literal) is kept; a plain float
global is refused, as the compiler refuses it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from pdc import pyast
from pdc.ptx.triton_kernels import is_triton_kernel, module_for

ALLOWED = frozenset({"tl", "triton", "range", "min", "max", "abs", "float", "int", "len"})
# What a kernel may take from ``triton`` itself (decorators above it, helpers inside it).
TRITON_NAMES = frozenset({"jit", "autotune", "heuristics", "Config", "cdiv", "next_power_of_2"})
REFUSED_NODES = (
    ast.Import,
    ast.ImportFrom,
    ast.Lambda,
    ast.ClassDef,
    ast.Global,
    ast.Nonlocal,
    ast.AsyncFunctionDef,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
)


@dataclass
class Found:
    """A kernel's module text (imports, constants, the notebook's Triton functions), or why
    there is none."""

    text: str = ""
    problem: str = ""


def _statements(cells: list[str]):
    """The top-level statements of the cells that parse, in order."""
    for src in cells:
        try:
            tree = pyast.parse(src)
        except SyntaxError:
            continue
        yield from tree.body


def _defs(cells: list[str]) -> dict[str, ast.FunctionDef]:
    """Every ``triton.jit`` function of the cells, the last definition of each name winning."""
    defs: dict[str, ast.FunctionDef] = {}
    for node in _statements(cells):
        if isinstance(node, ast.FunctionDef) and is_triton_kernel(node):
            defs.pop(node.name, None)
            defs[node.name] = node
    return defs


def _is_constexpr_call(node: ast.expr) -> bool:
    """``tl.constexpr(<number>)`` or ``triton.language.constexpr(<number>)``."""
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords):
        return False
    f, arg = node.func, node.args[0]
    if not (
        isinstance(f, ast.Attribute)
        and f.attr == "constexpr"
        and ast.unparse(f.value) in ("tl", "triton.language")
    ):
        return False
    if isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub):
        arg = arg.operand
    return isinstance(arg, ast.Constant) and isinstance(arg.value, (int, float))


def _constexprs(cells: list[str]) -> dict[str, ast.Assign]:
    """The cells' top-level ``NAME = tl.constexpr(<number>)``, a later assignment of the
    name winning (a plain one drops it: Triton would refuse that global)."""
    found: dict[str, ast.Assign] = {}
    for node in _statements(cells):
        if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            if isinstance(t, ast.Name):
                found.pop(t.id, None)
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and _is_constexpr_call(node.value)
        ):
            found[node.targets[0].id] = node
    return found


LIBDEVICE = ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice")


def _libdevice(cells: list[str]) -> dict[str, str]:
    """The names the cells bind to libdevice (``from triton.language.extra import libdevice``,
    its ``cuda`` twin, ``import ... as``): name -> the import statement that binds it."""
    found: dict[str, str] = {}
    for node in _statements(cells):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            for a in node.names:
                name = a.asname or a.name
                if f"{node.module}.{a.name}" in LIBDEVICE:
                    found[name] = f"from {node.module} import {a.name} as {name}"
                else:
                    found.pop(name, None)
        elif isinstance(node, ast.Import):
            for a in node.names:
                name = a.asname or a.name.partition(".")[0]
                if a.asname and a.name in LIBDEVICE:
                    found[name] = f"import {a.name} as {name}"
                else:
                    found.pop(name, None)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.FunctionDef)):
            targets = getattr(node, "targets", None) or [getattr(node, "target", node)]
            for t in targets:
                found.pop(getattr(t, "id", getattr(t, "name", "")), None)
    return found


def _problem(fn: ast.FunctionDef, known: set[str]) -> str:
    """Why this kernel cannot be graded, or ""."""
    locals_ = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    for node in ast.walk(fn):
        for target in _stored(node):
            locals_.add(target)
    for node in ast.walk(fn):
        line = f"{fn.name}, line {getattr(node, 'lineno', fn.lineno) - fn.lineno + 1}"
        if isinstance(node, REFUSED_NODES) or (
            isinstance(node, ast.FunctionDef) and node is not fn
        ):
            return f"{line}: {type(node).__name__} is not allowed in a Triton kernel"
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            return f"{line}: the private attribute .{node.attr} is not allowed"
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            return f"{line}: assigning to .{node.attr} is not allowed in a Triton kernel"
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "triton"
            and node.attr not in TRITON_NAMES
        ):
            return f"{line}: triton.{node.attr} is not allowed inside a kernel (tl.* is)"
        if isinstance(node, ast.Name):
            name = node.id
            if name.startswith("__"):
                return f"{line}: {name} is not allowed"
            if isinstance(node.ctx, ast.Load) and name not in locals_ | known | ALLOWED:
                return (
                    f"{line}: {name} is not a tl operation, a parameter or a local: a Triton "
                    f"kernel runs on the GPU, where {name} does not exist"
                )
    return ""


def _stored(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    return []


def extract(cells: list[str], name: str, params: tuple, constants: dict) -> Found:
    """The module text that defines kernel ``name`` from the notebook's cells, checked.

    Args:
        cells: The notebook's code cells.
        name: The kernel's name.
        params: The parameter names the exercise launches it with, in order.
        constants: The exercise's constants (they win over the notebook's).
    """
    defs = _defs(cells)
    if name not in defs:
        return Found(problem=f"no function named {name!r} decorated with @triton.jit")
    fn = defs[name]
    got = tuple(a.arg for a in fn.args.args)
    if got != tuple(params) or fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs:
        return Found(problem=f"{name} must take ({', '.join(params)}), got ({', '.join(got)})")
    globals_ = {k: v for k, v in _constexprs(cells).items() if k not in constants}
    modules = {k: v for k, v in _libdevice(cells).items() if k not in constants}
    known = set(defs) | set(constants) | set(globals_) | set(modules)
    for node in defs.values():
        why = _problem(node, known)
        if why:
            return Found(problem=why)
    consts = [pyast.parse(f"{k} = {v!r}").body[0] for k, v in constants.items()]
    consts += list(globals_.values())
    consts = [pyast.parse(line).body[0] for line in modules.values()] + consts
    return Found(text=module_for(list(defs.values()), consts))

"""Find a Triton kernel in a notebook's cells, and refuse what a Triton kernel cannot be.

The grader never runs a notebook: it parses the code cells, takes the last ``def`` of the
kernel decorated with ``triton.jit`` (and the other ``triton.jit`` functions of the
notebook, which a kernel may call), and checks them before anything runs. A Triton kernel
is compiled for a GPU, so inside it only ``tl`` operations, its parameters, its locals,
the other kernels and a few builtins have a meaning: ``torch``, ``numpy``, imports,
dunder names and private attributes are refused with the line that uses them; libdevice,
imported as Triton documents it, is kept (pdc.grade.triton.libdevice runs it). A global a
kernel reads must be a constexpr, as Triton's compiler requires: a cell's
``LOG2E = tl.constexpr(1.0 / math.log(2))`` (a number the grader computes from the syntax,
annotated or not) is kept as that number; a plain float global is refused, as the compiler
refuses it. The compiler also reads a module's attribute as a constant, so ``-math.inf`` and
``np.pi`` are kept where the notebook imported math or numpy (no other attribute of them),
and ``print`` is Triton's ``tl.device_print``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from pdc import pyast
from pdc.grade import imports
from pdc.grade.gate import literal
from pdc.grade.source import constant_number
from pdc.ptx.triton_kernels import is_triton_kernel, module_for

from . import heuristics

ALLOWED = frozenset({"tl", "triton", "range", "min", "max", "abs", "float", "int", "len", "print"})
#: Modules whose float constants a kernel may read, and those constants.
CONSTANT_MODULES = ("math", "numpy")
MODULE_CONSTANTS = frozenset({"pi", "e", "tau", "inf", "nan"})
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
    #: The kernel's ``@triton.heuristics``, computed per launch by the grader.
    heuristics: tuple[heuristics.Heuristic, ...] = ()
    #: Those of the heuristics' parameters annotated ``tl.constexpr``.
    constexpr: frozenset[str] = frozenset()


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


def _constexpr_value(node: ast.expr | None, bound: dict):
    """The number in ``tl.constexpr(<constant expression>)`` (or ``triton.language.``), else
    None."""
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords):
        return None
    f = node.func
    if not (
        isinstance(f, ast.Attribute)
        and f.attr == "constexpr"
        and ast.unparse(f.value) in ("tl", "triton.language")
    ):
        return None
    v = constant_number(node.args[0], bound)
    return v if isinstance(v, (int, float)) else None


def _constexprs(cells: list[str]) -> dict[str, ast.stmt]:
    """The cells' top-level ``NAME = tl.constexpr(<number>)`` (``NAME: ... =`` too), as
    ``NAME = tl.constexpr(<literal>)``, a later assignment of the name winning (a plain one
    drops it: Triton would refuse that global)."""
    found: dict[str, ast.stmt] = {}
    bound: dict = {}  # the imports so far, for math.log(2) in a constant
    for node in _statements(cells):
        bound.update(imports.bindings(node))
        if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            if isinstance(t, ast.Name):
                found.pop(t.id, None)
                bound.pop(t.id, None)
        value = _constexpr_value(node.value, bound)
        if len(targets) == 1 and isinstance(targets[0], ast.Name) and value is not None:
            name = targets[0].id
            found[name] = pyast.parse(f"{name} = tl.constexpr({literal(value)})").body[0]
    return found


LIBDEVICE = ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice")


def _modules(cells: list[str], paths: tuple[str, ...]) -> dict[str, str]:
    """The names the cells bind to one of the modules ``paths`` (libdevice as Triton documents
    it: ``from triton.language.extra import libdevice``, its ``cuda`` twin, ``import ... as``;
    ``import math``, ``import numpy as np``): name -> the import statement that binds it."""
    found: dict[str, str] = {}
    for node in _statements(cells):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            for a in node.names:
                name = a.asname or a.name
                if f"{node.module}.{a.name}" in paths:
                    found[name] = f"from {node.module} import {a.name} as {name}"
                else:
                    found.pop(name, None)
        elif isinstance(node, ast.Import):
            for a in node.names:
                name = a.asname or a.name.partition(".")[0]
                if (a.asname or "." not in a.name) and a.name in paths:
                    found[name] = f"import {a.name} as {name}"
                else:
                    found.pop(name, None)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.FunctionDef)):
            targets = getattr(node, "targets", None) or [getattr(node, "target", node)]
            for t in targets:
                found.pop(getattr(t, "id", getattr(t, "name", "")), None)
    return found


def _problem(
    fn: ast.FunctionDef,
    known: set[str],
    constant_modules: frozenset = frozenset(),
    assigned: frozenset = frozenset(),
) -> str:
    """Why this kernel cannot be graded, or "". ``assigned``: the names the cells' top-level
    statements assign (a global that is not a constexpr gets its own reason)."""
    locals_ = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    constants = set()  # the module names of ``math.inf``, ``np.pi``: read as numbers
    for node in ast.walk(fn):
        for target in _stored(node):
            locals_.add(target)
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in constant_modules
            and node.attr in MODULE_CONSTANTS
        ):
            constants.add(id(node.value))
    # The decorators run on the host, and the grader drops them (``module_for`` keeps a bare
    # ``triton.jit``): a heuristic's ``lambda args: ...`` never runs, so only the signature
    # and the body are checked.
    for node in (n for part in (fn.args, *fn.body) for n in ast.walk(part)):
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
        if isinstance(node, ast.Name) and id(node) not in constants:
            name = node.id
            if name.startswith("__"):
                return f"{line}: {name} is not allowed"
            if isinstance(node.ctx, ast.Load) and name not in locals_ | known | ALLOWED:
                if name in assigned:
                    return (
                        f"{line}: the global {name} is not a constexpr the grader can compute: "
                        f"a Triton kernel reads only globals bound to tl.constexpr(<number>), "
                        f"the number computed from literals and from math or numpy imported "
                        f"above it (Triton's compiler refuses any other global)"
                    )
                return (
                    f"{line}: {name} is not a tl operation, a parameter or a local: a Triton "
                    f"kernel runs on the GPU, where {name} does not exist"
                )
    return ""


def _stored(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    return []


def extract(
    cells: list[str],
    name: str,
    params: tuple,
    constants: dict,
    tensors: frozenset[str] = frozenset(),
) -> Found:
    """The module text that defines kernel ``name`` from the notebook's cells, checked.

    Args:
        cells: The notebook's code cells.
        name: The kernel's name.
        params: The parameter names the exercise launches it with, in order: those not in
            ``constants`` by position, the constants by name.
        constants: The exercise's constants (they win over the notebook's).
        tensors: The parameters that are tensors (a heuristic may not read them).
    """
    defs = _defs(cells)
    if name not in defs:
        return Found(problem=f"no function named {name!r} decorated with @triton.jit")
    fn = defs[name]
    try:
        heurs = heuristics.parse(fn)
    except heuristics.Refused as exc:
        return Found(problem=str(exc))
    added = {h.name for h in heurs}
    got = tuple(a.arg for a in fn.args.args)
    odd = fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs
    if tuple(a for a in got if a not in added) != tuple(params) or odd:
        why = f"{name} must take ({', '.join(params)}), got ({', '.join(got)})"
        if added:
            why += f" besides {', '.join(sorted(added))} from @triton.heuristics"
        return Found(problem=why)
    why = heuristics.placement(name, got, added, params, constants)
    if why:
        return Found(problem=why)
    try:
        heuristics.check(heurs, {p for p in params if p not in tensors} | set(constants), tensors)
    except heuristics.Refused as exc:
        return Found(problem=f"{name}: {exc}")
    globals_ = {k: v for k, v in _constexprs(cells).items() if k not in constants}
    modules = {k: v for k, v in _modules(cells, LIBDEVICE).items() if k not in constants}
    numeric = {k: v for k, v in _modules(cells, CONSTANT_MODULES).items() if k not in constants}
    known = set(defs) | set(constants) | set(globals_) | set(modules)
    assigned = frozenset(
        t.id
        for node in _statements(cells)
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        for t in ast.walk(target)
        if isinstance(t, ast.Name)
    )
    for node in defs.values():
        why = _problem(node, known, frozenset(numeric) - known, assigned)
        if why:
            return Found(problem=why)
    modules.update(numeric)
    consts = [pyast.parse(f"{k} = {v!r}").body[0] for k, v in constants.items()]
    consts += list(globals_.values())
    consts = [pyast.parse(line).body[0] for line in modules.values()] + consts
    annotated = frozenset(
        a.arg
        for a in fn.args.args
        if a.arg in added
        and a.annotation is not None
        and ast.unparse(a.annotation) in ("tl.constexpr", "triton.language.constexpr")
    )
    text = module_for(list(defs.values()), consts)
    return Found(text=text, heuristics=tuple(heurs), constexpr=annotated)

"""Kernel code that uses names a notebook imported, spelled out as the grader checks it.

A notebook may write ``from math import sqrt`` or ``import numba.cuda as nc`` and then call
``sqrt(x)`` or ``nc.grid(1)`` in a kernel; numba compiles both. The grader never runs the
notebook's imports, so before checking a kernel it rewrites such names to the module paths
kernel code may use (``math.sqrt``, ``cuda.grid``). Only imports from the modules kernels may
use are followed (math, numba, numba.cuda, numpy); any other imported name stays unknown and
the kernel is refused as before. The rewrite works on the syntax tree, so no notebook code
runs.
"""

from __future__ import annotations

import ast
import math

from pdc import pyast

# An imported module, and how kernel code names it.
MODULES = {"math": "math", "numba.cuda": "cuda", "numba": "numba", "numpy": "np"}


def import_bindings(node: ast.stmt, reserved: frozenset[str]) -> dict[str, str]:
    """Names bound by an import statement, each with the path kernel code spells it by.

    Args:
        node: A top-level statement of a notebook cell.
        reserved: Names the grader provides itself (module roots, dtypes, builtins).

    Returns:
        ``{name: "math.sqrt"}`` for ``from math import sqrt``, ``{"nc": "cuda"}`` for
        ``import numba.cuda as nc``; empty for anything else.
    """
    out: dict[str, str] = {}
    if isinstance(node, ast.Import):
        for a in node.names:
            if a.asname and a.name in MODULES:
                out[a.asname] = MODULES[a.name]
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        for a in node.names:
            name = a.asname or a.name
            full = f"{node.module}.{a.name}"
            if full in MODULES:  # from numba import cuda as nc
                out[name] = MODULES[full]
            elif node.module == "math" and hasattr(math, a.name):
                out[name] = f"math.{a.name}"
            elif node.module in MODULES and node.module != "math" and a.name != "*":
                out[name] = f"{MODULES[node.module]}.{a.name}"
    return {k: v for k, v in out.items() if k not in reserved and not k.startswith("__")}


def _local_names(fn: ast.FunctionDef) -> set[str]:
    """Parameters and names the function assigns: these shadow imported names."""
    names = {a.arg for a in fn.args.args + fn.args.posonlyargs + fn.args.kwonlyargs}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


class _Spell(ast.NodeTransformer):
    def __init__(self, paths: dict[str, str]):
        self.paths = paths
        self.changed = False

    def visit_Name(self, node: ast.Name) -> ast.AST:
        path = self.paths.get(node.id)
        if path is None or not isinstance(node.ctx, ast.Load):
            return node
        self.changed = True
        return ast.copy_location(pyast.parse_expr(path), node)


def respell(fn: ast.FunctionDef, imports: dict[str, str]) -> str | None:
    """The function's source with imported names spelled as module paths, or None if unchanged."""
    paths = {k: v for k, v in imports.items() if k not in _local_names(fn)}
    if not paths:
        return None
    spell = _Spell(paths)
    new = spell.visit(pyast.parse(ast.unparse(fn)).body[0])
    if not spell.changed:
        return None
    return ast.unparse(ast.fix_missing_locations(new)) + "\n"

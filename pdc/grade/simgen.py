"""Kernels with barriers as generators: every simulated thread of a block in one OS thread.

A barrier or warp collective needs every thread of the block (or warp) to stop at it. With one
OS thread per simulated thread that costs two context switches per thread and barrier. Here
the kernel's source is rewritten instead: each collective call becomes a ``yield`` of what it
asks for, and each call of a device function that (transitively) contains one becomes a
``yield from``. The scheduler in pdc.grade.sim then steps the generators of a block in turn.
Functions whose source is not available stay as they are (the simulator falls back to threads).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
import weakref

from pdc import pyast
from pdc.grade.simcuda import FULL_MASK

#: cuda.<name> -> (scope, kind, number of positional arguments)
COLLECTIVES = {
    "syncthreads": ("block", "sync", 0),
    "syncthreads_count": ("block", "count", 1),
    "syncthreads_and": ("block", "and", 1),
    "syncthreads_or": ("block", "or", 1),
    "syncwarp": ("warp", "syncwarp", 1),
    "activemask": ("warp", "activemask", 0),
    "shfl_sync": ("warp", "shfl", 3),
    "shfl_up_sync": ("warp", "up", 3),
    "shfl_down_sync": ("warp", "down", 3),
    "shfl_xor_sync": ("warp", "xor", 3),
    "all_sync": ("warp", "all", 2),
    "any_sync": ("warp", "any", 2),
    "ballot_sync": ("warp", "ballot", 2),
    "eq_sync": ("warp", "eq", 2),
}


#: Rewritten code -> the first line of the function it came from (decorators included), so
#: that lines are counted alike whether a kernel ran as written or as a generator.
_FIRST_LINES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def line_in(code, lineno: int) -> int:
    """Line ``lineno`` of a file counted from the first line of its function (1-based)."""
    return lineno - _FIRST_LINES.get(code, code.co_firstlineno) + 1


class NoSource(Exception):
    """The function's source cannot be rewritten: use threads."""


def _collective(node) -> str | None:
    """The collective a call makes (``cuda.syncthreads()``, ``numba.cuda.shfl_sync(...)``)."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    name, v = node.func.attr, node.func.value
    if name not in COLLECTIVES:
        return None
    if isinstance(v, ast.Name) and v.id == "cuda":
        return name
    if isinstance(v, ast.Attribute) and v.attr == "cuda" and isinstance(v.value, ast.Name):
        return name if v.value.id == "numba" else None
    return None


def _parse(fn) -> ast.FunctionDef:
    try:
        src = textwrap.dedent(inspect.getsource(fn))
        first = fn.__code__.co_firstlineno
    except (OSError, TypeError) as e:
        raise NoSource(str(e)) from None
    tree = pyast.parse(src)
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef) or node.name != fn.__name__:
        raise NoSource(f"no def {fn.__name__} in its source")
    ast.increment_lineno(tree, first - 1)
    node.decorator_list = []
    return node


class _Rewrite(ast.NodeTransformer):
    def __init__(self, gen_callees: set):
        self.gen_callees = gen_callees

    def visit_Call(self, node):  # noqa: N802 - ast visitor API
        self.generic_visit(node)
        name = _collective(node)
        if name is not None:
            scope, kind, nargs = COLLECTIVES[name]
            if node.keywords or len(node.args) > nargs:
                raise NoSource(f"cuda.{name} with keyword or extra arguments")
            args = list(node.args)
            if name == "syncwarp" and not args:
                args = [ast.Constant(FULL_MASK)]
            if name == "activemask":
                args = [ast.Constant(FULL_MASK)]
            if scope == "block":
                payload = [ast.Constant(0), args[0] if args else ast.Constant(None)]
                payload.append(ast.Constant(None))
            else:
                payload = args + [ast.Constant(None)] * (3 - len(args))
            tup = ast.Tuple([ast.Constant(scope), ast.Constant(kind), *payload], ast.Load())
            return ast.copy_location(ast.Yield(tup), node)
        if isinstance(node.func, ast.Name) and node.func.id in self.gen_callees:
            return ast.copy_location(ast.YieldFrom(node), node)
        return node


def _callees(node: ast.FunctionDef, g: dict) -> dict:
    out = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            v = g.get(n.func.id)
            v = getattr(v, "py_func", v)
            if isinstance(v, types.FunctionType):
                out[n.func.id] = v
    return out


def has_collective(fn, memo: dict | None = None) -> bool:
    """Whether ``fn`` or a device function it calls uses a barrier or warp collective."""
    memo = {} if memo is None else memo
    if fn in memo:
        return memo[fn]
    memo[fn] = False  # recursion cannot be compiled for a GPU; stop here if it happens
    node = _parse(fn)
    direct = any(_collective(n) for n in ast.walk(node))
    callees = _callees(node, fn.__globals__).values()
    memo[fn] = direct or any(has_collective(c, memo) for c in callees)
    return memo[fn]


def rewrite(fn, g: dict, memo: dict):
    """``fn`` as a generator function defined in globals ``g`` (names already rebound)."""
    node = _parse(fn)
    gen_callees = {
        name for name, c in _callees(node, fn.__globals__).items() if has_collective(c, memo)
    }
    node = _Rewrite(gen_callees).visit(node)
    module = ast.fix_missing_locations(ast.Module([node], []))
    code = pyast.compile_tree(module, fn.__code__.co_filename)
    ns: dict = {}
    exec(code, g, ns)  # noqa: S102 - the kernel's own source, rewritten
    new = ns[fn.__name__]
    _FIRST_LINES[new.__code__] = fn.__code__.co_firstlineno
    return new


def innermost_site(gen):
    """(code, line) where a generator chain is suspended."""
    while isinstance(getattr(gen, "gi_yieldfrom", None), types.GeneratorType):
        gen = gen.gi_yieldfrom
    f = gen.gi_frame
    return None if f is None else (f.f_code, f.f_lineno)

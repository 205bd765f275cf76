"""Find every CUDA kernel a file defines, and the source that compiles it alone.

A kernel is a function decorated with ``cuda.jit`` (not ``device=True``) or ``pdc.kernel``,
the argument of a ``cuda.jit(f)`` call, or a ring handler (decorated with, or passed to,
``ring_kernel``). Notebooks are read as their code cells joined in order.
"""

from __future__ import annotations

import ast
import copy
import json
from dataclasses import dataclass
from pathlib import Path

from pdc import pyast

from .gather import kernel_slice


@dataclass(frozen=True)
class Found:
    """A kernel found in a file."""

    path: str  # relative to the project root
    name: str
    line: int
    kind: str  # "kernel" or "handler"
    source: str  # module text that defines it (and everything it uses) at top level


def file_text(path: Path) -> str:
    """A Python file's text, or a notebook's code cells joined (magics dropped)."""
    if path.suffix != ".ipynb":
        return path.read_text()
    cells = json.loads(path.read_text())["cells"]
    out = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        lines = [ln for ln in src.splitlines() if not ln.lstrip().startswith(("%", "!"))]
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def _callee(node: ast.expr) -> str:
    f = node.func if isinstance(node, ast.Call) else node
    while isinstance(f, ast.Call):
        f = f.func
    return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")


def _is_device(node: ast.expr) -> bool:
    """True for ``jit(device=True)`` and ``jit(device=True)(f)``."""
    while isinstance(node, ast.Call):
        if any(
            k.arg == "device" and isinstance(k.value, ast.Constant) and k.value.value
            for k in node.keywords
        ):
            return True
        node = node.func
    return False


def _kernel_decorator(dec: ast.expr) -> str | None:
    name = _callee(dec)
    base = dec.func if isinstance(dec, ast.Call) else dec
    if isinstance(base, ast.Attribute) and getattr(base.value, "id", "") == "triton":
        return None  # a Triton kernel: pdc.ptx.triton_kernels compiles it
    if name == "ring_kernel":
        return "handler"
    if name in {"jit", "_jit"} and not _is_device(dec):
        return "kernel"
    if name == "kernel" and isinstance(dec, (ast.Call, ast.Attribute)):  # @pdc.kernel(...)
        return "kernel"
    return None


def _hoisted(node: ast.FunctionDef) -> str:
    """The def without its decorators, at top level."""
    bare = copy.copy(node)
    bare.decorator_list = []
    bare.returns = None
    return ast.unparse(bare)


def discover(path: Path, root: Path) -> list[Found]:
    """Every kernel and ring handler ``path`` defines, each with source to compile it."""
    text = file_text(path)
    try:
        tree = pyast.parse(text)
    except SyntaxError:
        return []
    rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    base = kernel_slice(text)
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    found: dict[str, Found] = {}

    def add(name: str, line: int, kind: str, extra: str) -> None:
        if name not in found:
            found[name] = Found(rel, name, line, kind, f"{base}\n\n{extra}\n")

    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                kind = _kernel_decorator(dec)
                if kind:
                    add(node.name, node.lineno, kind, _hoisted(node))
        elif isinstance(node, ast.Call) and node.args:
            name = _callee(node)
            arg = node.args[0]
            if name == "ring_kernel" or not (name == "jit" and not _is_device(node)):
                continue
            if isinstance(arg, ast.Name) and arg.id in defs:  # cuda.jit(f)
                add(arg.id, node.lineno, "kernel", _hoisted(defs[arg.id]))
    # Kernels made by a factory: ``probe = cuda.jit(make_tiled(16))``.
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            call = node.value
            if _callee(call) != "jit" or _is_device(call) or not call.args:
                continue
            target = node.targets[0]
            if isinstance(call.args[0], ast.Call) and isinstance(target, ast.Name):
                add(target.id, node.lineno, "kernel", f"{target.id} = {ast.unparse(call.args[0])}")
    # Handlers passed to ring_kernel(...)(handler) rather than decorated.
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Call):
            if _callee(node.func) == "ring_kernel" and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Name) and arg.id in defs:
                    add(arg.id, node.lineno, "handler", _hoisted(defs[arg.id]))
    return sorted(found.values(), key=lambda f: f.line)

"""Tier 1: every CuPy and torch GPU use in the notebooks is guarded by what the library can reach.

A GPU machine may have a CPU-only torch or no CuPy: ``pdc.has_gpu()`` is then true but
``.cuda()`` raises and ``import cupy`` fails. So in every chapter, solution and exercise:

- CuPy comes from ``pdc.reach("cupy")``, or ``import cupy`` sits in a ``try`` whose handler
  catches ``Exception`` (a CUDA error, not only a missing module);
- ``.cuda()`` and ``torch.cuda.*`` (other than asking ``is_available``) sit under a test that
  asks torch itself: ``torch.cuda.is_available()``, ``pdc.reach("torch")``, or a name the
  notebook derived from one of them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(
    p
    for folder in ("notebooks", "solutions", "exercises")
    for p in (ROOT / folder).rglob("*.ipynb")
    if ".ipynb_checkpoints" not in p.parts
)
# What asks the library itself; a tensor already on the GPU proves torch reached it.
ASKS = ("is_available", "reach(", "is_cuda", 'device.type == "cuda"', "device.type == 'cuda'")
TORCH_CUDA_FREE = {"is_available", "is_initialized", "device_count"}


def _code(nb) -> list[tuple[str, str]]:
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            # IPython magics and shell lines are not Python
            lines = ["" if re.match(r"\s*[%!]", ln) else ln for ln in cell.source.splitlines()]
            cells.append((cell.get("id", "?"), "\n".join(lines)))
    return cells


def gate_names(trees: list[ast.AST]) -> set[str]:
    """Names assigned from an answer of torch or pdc.reach, followed through assignments."""
    # Functions that ask (pick_torch_device() -> DEVICE) make gates of what they return.
    names: set[str] = {
        node.name
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and any(a in ast.unparse(node) for a in ASKS)
    }
    for _ in range(3):  # DEVICE from is_available, then ON_GPU from DEVICE...
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                    text = ast.unparse(node.value)
                    if any(a in text for a in ASKS) or _mentions(node.value, names):
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        for t in targets:
                            names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _asks(test: ast.AST, gates: set[str]) -> bool:
    text = ast.unparse(test)
    return any(a in text for a in ASKS) or _mentions(test, gates)


def _guarded(path: list[ast.AST], gates: set[str]) -> bool:
    """True when an enclosing if, conditional expression or `and` asks the library."""
    for parent, child in zip(path, path[1:]):
        if isinstance(parent, (ast.If, ast.IfExp, ast.While)) and child is not parent.test:
            if _asks(parent.test, gates):
                return True
        if isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.And):
            before = parent.values[: parent.values.index(child)] if child in parent.values else []
            if any(_asks(v, gates) for v in before):
                return True
        if isinstance(parent, ast.FunctionDef) and _mentions(parent.args, gates):
            return True
    return False


def _catches_everything(path: list[ast.AST]) -> bool:
    for parent, child in zip(path, path[1:]):
        if isinstance(parent, ast.Try) and child in parent.body:
            for h in parent.handlers:
                if h.type is None or "Exception" in ast.unparse(h.type):
                    return True
    return False


def _walk(node: ast.AST, path: list[ast.AST]):
    path = [*path, node]
    yield node, path
    for child in ast.iter_child_nodes(node):
        yield from _walk(child, path)


def unguarded(source_cells: list[tuple[str, str]]) -> list[str]:
    """``cell id: code`` of every unguarded CuPy import and torch GPU use."""
    trees = []
    for cid, src in source_cells:
        try:
            trees.append((cid, ast.parse(src)))
        except SyntaxError:  # a student stub may not parse yet
            continue
    gates = gate_names([t for _, t in trees])
    found = []
    for cid, tree in trees:
        for node, path in _walk(tree, []):
            what = None
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and node.module:
                    mods.append(node.module)
                if any(m.split(".")[0] == "cupy" for m in mods):
                    if not _catches_everything(path):
                        what = ast.unparse(node)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "cuda" and not node.args:
                    what = ast.unparse(node)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
                inner = node.value
                if (
                    isinstance(inner.value, ast.Name)
                    and inner.value.id == "torch"
                    and inner.attr == "cuda"
                    and node.attr not in TORCH_CUDA_FREE
                ):
                    what = ast.unparse(node)
            if what and not _guarded(path, gates):
                found.append(f"{cid}: {what}")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_cupy_and_torch_gpu_code_asks_the_library_first(path):
    nb = nbformat.read(path, as_version=4)
    assert unguarded(_code(nb)) == []


def test_the_scan_finds_what_breaks_on_a_gpu_with_a_cpu_only_torch():
    bad = [
        ("a", "if gpu:\n    import cupy as cp\n    import torch\n    t = torch.ones(3).cuda()"),
        ("b", "if pdc.has_gpu():\n    torch.cuda.synchronize()"),
        ("c", "try:\n    import cupy\nexcept ImportError:\n    pass"),
    ]
    assert unguarded(bad) == [
        "a: import cupy as cp",
        "a: torch.ones(3).cuda()",
        "b: torch.cuda.synchronize",
        "c: import cupy",
    ]
    good = [
        ("d", "USE_CUDA = torch.cuda.is_available()\nDEVICE = 'cuda' if USE_CUDA else 'cpu'"),
        ("e", "if DEVICE == 'cuda':\n    torch.cuda.synchronize()"),
        ("f", "torch = pdc.reach('torch')\nif torch is not None:\n    x = torch.ones(2).cuda()"),
        ("g", "try:\n    import cupy as cp\nexcept Exception as err:\n    print(err)"),
        ("h", "ok = torch.cuda.is_available() and torch.cuda.get_device_name(0)"),
    ]
    assert unguarded(good) == []

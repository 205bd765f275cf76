"""The layout of ``pdc.ring``: small modules, no import cycle, lower layers never look up.

The imports are read from the source with ``ast`` (through ``pdc.pyast``), not by importing
the modules: every ``import`` and ``from ... import`` anywhere in a module counts (a lazy
import inside a function too), except those under ``if TYPE_CHECKING:``, which only the
type checker runs. Importing ``pdc.ring.a.b`` also runs the packages above it; those implicit
edges are left out, as import linters do (every module would otherwise "import" the
package facade ``pdc.ring`` and its whole API).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pdc.ring
from pdc import pyast

RING = Path(pdc.ring.__file__).parent
MAX_LINES = 420

# Lowest first: a module may import its own layer and the layers below it, never above.
LAYERS = {
    "protocol": 0,  # record layouts, control words and states, errors, argument checks
    "handlers": 1,  # the handler subset, its checks and its compilation
    "engines": 2,  # the device side: one engine per backend and the loop they run
    "host": 3,  # the host side: producer, consumer, stash, asyncio, the kernel handle
    "": 4,  # the API: pdc.ring, runtime, definition
    "tools": 5,  # bench and stress
}


def module_name(path: Path, root: Path) -> str:
    """The dotted name of the module at ``path`` (``root`` is the ``pdc/ring`` folder)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["pdc", "ring", *parts])


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, name: str, package: bool) -> list[tuple[str, str | None]]:
    """What ``tree`` (module ``name``) imports at run time: ``(module, name in it or None)``."""
    out: list[tuple[str, str | None]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.extend((a.name, None) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if package else name.split(".")[:-1]
                up = here[: len(here) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            out.extend((base, a.name) for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def ring_graph(root: Path = RING) -> tuple[dict[str, int], dict[str, set[str]]]:
    """Lines per module, and the ``pdc.ring`` modules each module imports."""
    paths = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    lines: dict[str, int] = {}
    edges: dict[str, set[str]] = {}
    for name, path in paths.items():
        src = path.read_text()
        lines[name] = len(src.splitlines())
        tree = pyast.parse(src, str(path))
        targets = set()
        for module, attr in _imports(tree, name, path.name == "__init__.py"):
            # ``from pdc.ring.x import y``: the module pdc.ring.x.y if there is one
            if attr is not None and f"{module}.{attr}" in paths:
                targets.add(f"{module}.{attr}")
            elif module in paths:
                targets.add(module)
        edges[name] = targets - {name}
    return lines, edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            strong(v)
    return out


def layer(name: str) -> int:
    """The layer of a ``pdc.ring`` module (see ``LAYERS``)."""
    parts = name.split(".")
    sub = parts[2] if len(parts) > 3 or (len(parts) == 3 and parts[2] in LAYERS) else ""
    return LAYERS.get(sub, LAYERS[""])


def test_the_graph_reader_sees_lazy_relative_and_typing_imports():
    src = (
        "from typing import TYPE_CHECKING\n"
        "from pdc.ring.protocol import HIGH\n"
        "from . import stash\n"
        "if TYPE_CHECKING:\n"
        "    from pdc.ring.kernel import RingKernel\n"
        "def f():\n"
        "    import pdc.ring.engines.cpu\n"
    )
    got = _imports(ast.parse(src), "pdc.ring.host.consumer", False)
    assert ("pdc.ring.protocol", "HIGH") in got and ("pdc.ring.host", "stash") in got
    assert ("pdc.ring.engines.cpu", None) in got
    assert all(module != "pdc.ring.kernel" for module, _ in got)
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert [layer(n) for n in ("pdc.ring.protocol", "pdc.ring.protocol.words")] == [0, 0]
    assert [layer(n) for n in ("pdc.ring.engines.cpu", "pdc.ring.host.kernel")] == [2, 3]
    assert [layer(n) for n in ("pdc.ring", "pdc.ring.runtime", "pdc.ring.tools.bench")] == [4, 4, 5]


def test_every_ring_module_is_small():
    lines, _ = ring_graph()
    big = {name: n for name, n in lines.items() if n > MAX_LINES}
    assert not big, f"expected every pdc.ring module <= {MAX_LINES} lines, got {big}"


def test_no_import_cycle_among_ring_modules():
    _, edges = ring_graph()
    assert sum(map(len, edges.values())) > 50  # the reader found the imports
    found = cycles(edges)
    assert not found, f"expected no import cycle in pdc.ring, got {found}"


def test_lower_layers_never_import_higher_ones():
    _, edges = ring_graph()
    assert set(LAYERS) - {""} <= {n.split(".")[2] for n in edges if n.count(".") >= 3}
    upward = sorted(
        f"{a} (layer {layer(a)}) imports {b} (layer {layer(b)})"
        for a, targets in edges.items()
        for b in targets
        if layer(b) > layer(a)
    )
    assert not upward, "expected imports from the same or a lower layer only, got:\n" + "\n".join(
        upward
    )

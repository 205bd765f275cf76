"""Every Triton kernel of the course, found in its files, with the types it is compiled for.

A Triton kernel is a function decorated with ``triton.jit`` (under ``triton.autotune`` or
``triton.heuristics`` too). ``find`` reads a file (a notebook: its code cells in order) and
returns, per kernel, a module text that defines it: Triton's imports, the file's numeric
constants and every ``triton.jit`` function of the file (a kernel may call helpers). Each
found kernel must be listed in ``TRITON`` below, or ``pdc ptx`` fails it as unlisted.
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path
from typing import Any

from pdc import pyast

from .build import Build
from .discover import file_text
from .triton_build import PRELUDE, TRITON_CCS, compile_in_child, installed

SCAN = ("pdc/**/*.py", "solutions/*.ipynb", "notebooks/*.ipynb", "notebooks/**/*.py", "tests/*.py")


def spec(signature: dict[str, str], num_warps: int = 4, **constexprs: Any) -> dict:
    """How a kernel is compiled: parameter types, constexpr values and warps per program."""
    return {"signature": signature, "constexprs": constexprs, "num_warps": num_warps}


_P, _I = "*fp32", "i32"
_SOFTMAX = {"x_ptr": _P, "y_ptr": _P, "n_cols": _I, "x_stride": _I, "y_stride": _I}
_MATMUL = {
    "a_ptr": _P,
    "b_ptr": _P,
    "c_ptr": _P,
    "M": _I,
    "N": _I,
    "K": _I,
    "stride_am": _I,
    "stride_ak": _I,
    "stride_bk": _I,
    "stride_bn": _I,
    "stride_cm": _I,
    "stride_cn": _I,
}
_ADD = {"x_ptr": _P, "y_ptr": _P, "out_ptr": _P, "n": _I}

TRITON: dict[str, dict[str, Any]] = {
    "notebooks/11_triton.ipynb": {
        "add_kernel": spec(_ADD, BLOCK=1024),
        "softmax_kernel": spec(_SOFTMAX, BLOCK=1024),
        "matmul_kernel": spec(_MATMUL, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8),
    },
    # The exercises' kernels, as the grader compiles them (its first public case's types and
    # the exercise's constants: tests/test_grade_layout.py checks they agree).
    "solutions/12_triton_softmax.ipynb": {"softmax_kernel": spec(_SOFTMAX, BLOCK=128)},
    "solutions/13_triton_matmul.ipynb": {
        "matmul_kernel": spec(_MATMUL, BLOCK_M=32, BLOCK_N=32, BLOCK_K=16, GROUP_M=4)
    },
}


def _is_triton(dec: ast.expr) -> bool:
    """``@triton.jit``, ``@triton.autotune(...)``, ``@triton.heuristics(...)``."""
    node = dec.func if isinstance(dec, ast.Call) else dec
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "triton"
        and node.attr in ("jit", "autotune", "heuristics")
    )


def is_triton_kernel(node: ast.FunctionDef) -> bool:
    """True when a def is decorated as a Triton kernel."""
    return any(_is_triton(d) for d in node.decorator_list)


def _constant(node: ast.stmt) -> bool:
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return False
    t = node.targets[0]
    return (
        isinstance(t, ast.Name)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, (int, float))
        and not isinstance(node.value.value, bool)
    )


def module_for(defs: list[ast.FunctionDef], constants: list[ast.stmt]) -> str:
    """Module text that defines ``defs`` as plain ``triton.jit`` functions."""
    parts = [PRELUDE] + [ast.unparse(c) for c in constants]
    for node in defs:
        bare = copy.copy(node)
        bare.decorator_list = [pyast.parse_expr("triton.jit")]
        parts.append(ast.unparse(bare))
    return "\n\n".join(parts) + "\n"


def find(path: Path) -> dict[str, tuple[int, str]]:
    """Kernel name -> (line, module text) for every Triton kernel ``path`` defines."""
    try:
        tree = pyast.parse(file_text(path))
    except SyntaxError:
        return {}
    defs: dict[str, ast.FunctionDef] = {}
    for node in tree.body:  # a later definition of a name replaces an earlier one
        if isinstance(node, ast.FunctionDef) and is_triton_kernel(node):
            defs.pop(node.name, None)
            defs[node.name] = node
    constants = [n for n in tree.body if _constant(n)]
    text = module_for(list(defs.values()), constants)
    return {name: (node.lineno, text) for name, node in defs.items()}


def jobs(root: Path, ccs: list[tuple[int, int]]) -> tuple[list[dict], list[dict]]:
    """Compile jobs for every Triton kernel of the course, and rows for those not compiled."""
    rows: list[dict] = []
    out: list[dict] = []
    targets = [cc for cc in ccs if cc in TRITON_CCS]
    seen: set[tuple[str, str]] = set()
    files = sorted({p for pattern in SCAN for p in root.glob(pattern)})
    for path in files:
        rel = path.relative_to(root).as_posix()
        if path.suffix == ".py" and "triton.jit" not in path.read_text():
            continue
        for name, (line, text) in find(path).items():
            seen.add((rel, name))
            entry = TRITON.get(rel, {}).get(name)
            if entry is None:
                rows.append(_row(name, f"{rel}:{line}", "unlisted", "add it to TRITON"))
                continue
            if targets:
                out.append(
                    {
                        **entry,
                        "source": text,
                        "name": name,
                        "ccs": targets,
                        "where": f"{rel}:{line}",
                    }
                )
    for rel, names in TRITON.items():
        for name in names:
            if (rel, name) not in seen:
                rows.append(_row(name, rel, "missing", "listed in TRITON, not found"))
    return out, rows


def _row(name: str, where: str, status: str, note: str) -> dict:
    return {"name": name, "where": where, "status": status, "note": note, "kind": "triton"}


def builds(root: Path, ccs: list[tuple[int, int]]) -> tuple[list[Build], list[dict]]:
    """Compile every Triton kernel of the course for ``ccs`` that Triton targets here."""
    todo, rows = jobs(root, ccs)
    if not installed():
        return [], [_row("(Triton kernels)", "-", "skip", "Triton is not installed")]
    if not todo:
        return [], rows
    return [b for b, _ in compile_in_child(todo)], rows

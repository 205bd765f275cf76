"""What a notebook's imports bind, and what its decorators make of a function.

The grader never runs a notebook, so it reads these from the syntax tree. Only imports from
the modules kernel code may use are followed (``math``, ``numpy``, ``numba``, ``numba.cuda``);
a name bound by any other import is unknown, and a kernel that uses it is refused. Nothing is
supplied: a kernel that calls ``math.sqrt`` in a notebook that never imported ``math`` fails
as it would when the notebook runs.

A decorator is classified by what its name resolves to through those imports: ``cuda.jit``
(launchable kernel, or a device function with ``device=True``), ``njit``/``numba.jit`` (a
CPU function), or nothing (plain Python). Decorator arguments are restricted to constants
and numba/NumPy type expressions (``"void(float32[:])"``, ``void(float32[:])``), since the
compile gate evaluates them.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import json
import math
import os
import subprocess
import sys
import types

from pdc import pyast

#: Modules kernel code may use, by their full dotted name.
MODULES = ("math", "numpy", "numba", "numba.cuda")
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


def bindings(node: ast.stmt) -> dict[str, str | None]:
    """Names bound by an import statement, each with the full path it names.

    ``import numpy as np`` -> ``{"np": "numpy"}``; ``from numba.cuda import shared`` ->
    ``{"shared": "numba.cuda.shared"}``; ``import os`` -> ``{"os": "os"}`` (bound, to nothing
    kernel code may use: see :func:`usable`); a relative import maps to None.
    """
    out: dict[str, str | None] = {}
    if isinstance(node, ast.Import):
        for a in node.names:
            if a.asname:
                out[a.asname] = a.name
            else:
                out[a.name.split(".")[0]] = a.name.split(".")[0]
    elif isinstance(node, ast.ImportFrom):
        mod = node.module or ""
        for a in node.names:
            if a.name == "*":
                if node.level == 0 and mod in MODULES:
                    out.update(star_names(mod))
                continue  # from any other module: names unknown to the grader stay unknown
            out[a.asname or a.name] = f"{mod}.{a.name}" if node.level == 0 else None
    return out


@functools.lru_cache(maxsize=len(MODULES))
def star_names(mod: str) -> dict[str, str]:
    """What ``from mod import *`` binds, for a module kernels may use: its ``__all__``, or its
    public names, as Python's import does (``from math import *`` binds ``exp`` and ``inf``).

    math and NumPy are asked here. numba is asked in a fresh process (once per grading
    process, and only for a notebook that star-imports it): where a notebook has switched on
    numba's CUDA simulator, ``numba.cuda`` here is the simulator's, whose names differ from
    those of the numba-cuda that compiles the kernel. Where that process fails, the names stay
    unknown, and numba names what the kernel lacks.
    """
    if mod in ("math", "numpy"):
        return _public_names(importlib.import_module(mod), MODULES)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    code = (
        "import importlib, json, types\n"
        + inspect.getsource(_public_names)
        + f"print(json.dumps(_public_names(importlib.import_module({mod!r}), {MODULES!r})))\n"
    )
    try:
        run = subprocess.run(
            [sys.executable, "-I", "-c", code],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        out = json.loads(run.stdout) if run.returncode == 0 else {}
    except (OSError, ValueError, subprocess.TimeoutExpired):
        out = {}
    return {str(k): str(v) for k, v in out.items()} if isinstance(out, dict) else {}


def _public_names(module, modules) -> dict:
    """Name -> full path of what ``from module import *`` binds (run here, or by itself in a
    fresh process): a module it re-exports maps to that module where kernels may use it."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    out = {}
    for n in names:
        value = getattr(module, n, None) if isinstance(n, str) else None
        if isinstance(value, types.ModuleType):  # numba.cuda's np is numpy; its os is none
            if value.__name__ in modules:
                out[n] = value.__name__
        elif isinstance(n, str):
            out[n] = f"{module.__name__}.{n}"
    return out


def course_binding(node: ast.stmt, imports: dict) -> tuple[str, str] | None:
    """``cuda = pdc.numba_cuda()`` (the course's way to get numba.cuda) -> ("cuda", path)."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return None
    t, v = node.targets[0], node.value
    if not isinstance(t, ast.Name) or not isinstance(v, ast.Call) or v.args or v.keywords:
        return None
    return (t.id, "numba.cuda") if resolve(v.func, imports) == "pdc.numba_cuda" else None


def attribute_binding(node: ast.stmt, imports: dict) -> tuple[str, str] | None:
    """A second name for something kernels may use, which the compile gate imports under that
    name -> ("sync", path): a function of numba.cuda or math (``sync = cuda.syncthreads``,
    ``exp = math.exp``), a module (``gpu = numba.cuda``, ``nc = cuda``) or a type
    (``COUNT = np.int32``, ``f32 = numba.float32``)."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return None
    t, v = node.targets[0], node.value
    if not isinstance(t, ast.Name) or not isinstance(v, ast.Attribute | ast.Name):
        return None
    path = resolve(v, imports)
    mod, _, attr = (path or "").rpartition(".")
    if mod == "math" and callable(getattr(math, attr, None)):  # math.pi stays a constant
        return t.id, str(path)
    if mod == "numba.cuda" and usable(path):
        return t.id, str(path)
    if path in MODULES or (usable(path) and attr in DTYPE_NAMES):
        return t.id, str(path)
    return None


def importable(path: str | None) -> bool:
    """Whether the compile gate writes this import: it comes from math, numpy or numba."""
    return path is not None and path.split(".")[0] in ("math", "numpy", "numba")


def usable(path: str | None) -> bool:
    """Whether kernel code may use a name bound to ``path``."""
    if path is None:
        return False
    if path in MODULES:
        return True
    mod, _, attr = path.rpartition(".")
    if mod == "math":
        return hasattr(math, attr)
    if mod == "numba.cuda":
        return not attr.startswith("_")
    # A dtype, from numpy, numba or one of their submodules (numba.types.float32).
    return mod.split(".")[0] in ("numpy", "numba") and attr in DTYPE_NAMES


def is_namespace(path: str | None) -> bool:
    """Whether kernel code takes attributes of a name bound to ``path`` (``cuda.grid``)."""
    return path is not None and (path in MODULES or path.startswith("numba.cuda."))


def statement(name: str, path: str) -> str:
    """An import statement that binds ``name`` to ``path`` as the notebook's did."""
    if path in MODULES:
        if name == path:
            return f"import {path}"
        if "." not in path or name != path.split(".")[0]:
            return f"import {path} as {name}"
        return f"import {path}"
    mod, _, attr = path.rpartition(".")
    if not mod:
        return f"import {path} as {name}"
    return f"from {mod} import {attr}" + ("" if attr == name else f" as {name}")


def dotted(node) -> list[str] | None:
    """``a.b.c`` -> ["a", "b", "c"]; None for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def resolve(node, imports: dict) -> str | None:
    """The full path an expression like ``nc.jit`` names through the imports, or None."""
    parts = dotted(node)
    if not parts or imports.get(parts[0]) is None:
        return None
    return ".".join([imports[parts[0]], *parts[1:]])


_JITS = {"numba.cuda.jit": "cuda", "numba.njit": "cpu", "numba.jit": "cpu"}
#: Decorator options that change how a function compiles, and nothing outside it (no
#: ``link=`` files): the compile gate and the simulator evaluate them. ``cache=True`` is
#: accepted and does nothing there (``eager_signatures_recorded`` in pdc.ptx.worker): the
#: code is the same, and no cache file is written.
OPTIONS = {
    "cuda": frozenset(
        "device fastmath debug opt lineinfo inline forceinline max_registers boundscheck "
        "nopython cache".split()
    ),
    "cpu": frozenset("fastmath inline nopython nogil boundscheck error_model cache".split()),
}


def _is_type(path: str | None) -> bool:
    """Whether ``path`` names a numba or NumPy scalar type (``numba.void``, ``numpy.int32``)."""
    if path is None:
        return False
    mod, _, attr = path.rpartition(".")
    return mod.split(".")[0] in ("numba", "numpy") and attr in (*DTYPE_NAMES, "void", "none")


def signature_text(text: str) -> bool:
    """Whether a signature written as text is only types: numba evaluates it as Python
    (``eval`` with builtins, in its types' namespace), so ``"__import__('os')..."`` would run.

    Allowed: names of numba types (``float32``, ``f4``, ``void``), calls of types, subscripts,
    slices, tuples and small integers (``"void(float32[:, ::1])"``); syntax errors are left to
    numba, which refuses them in its own words.
    """
    try:
        tree = pyast.parse_expr(text.strip())
    except SyntaxError:
        return True
    from numba.cuda.core import sigutils  # the namespace cuda.jit evaluates signatures in

    allowed = (ast.Expression, ast.Call, ast.Subscript, ast.Slice, ast.Tuple, ast.Load)
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            value = getattr(sigutils.types, n.id, None)
            if n.id.startswith("_") or not isinstance(value, sigutils.types.Type):
                return False
        elif isinstance(n, ast.Constant):
            if n.value is not None and not (type(n.value) is int and abs(n.value) <= 64):
                return False
        elif not isinstance(n, allowed):
            return False
    return True


def _safe_argument(node, imports: dict, texts: dict | None = None) -> bool:
    """Constants and numba/NumPy type expressions: what a decorator may be given (``texts``:
    names the notebook bound to a signature written as text, ``SIG = "void(float32[:])"``).
    A signature written as text must hold only types (:func:`signature_text`)."""
    texts = texts or {}
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            if not signature_text(n.value):
                return False
        if isinstance(n, ast.Name) and n.id in texts:
            value = texts[n.id]
            if not all(signature_text(t) for t in ([value] if isinstance(value, str) else value)):
                return False
            continue
        if isinstance(n, ast.Name) and not usable(imports.get(n.id)):
            if not (imports.get(n.id) or "").startswith("numba."):
                return False
        elif isinstance(n, ast.Attribute) and n.attr.startswith("_"):
            return False
        elif isinstance(n, ast.Call) and not _is_type(resolve(n.func, imports)):
            return False  # only a type is called in a signature: void(float32[:])
        elif not isinstance(
            n,
            (
                ast.Constant,
                ast.Name,
                ast.Attribute,
                ast.Subscript,
                ast.Slice,
                ast.Tuple,
                ast.List,
                ast.Call,
                ast.Load,
                ast.keyword,
            ),
        ):
            return False
    return True


def jit_kind(decorators: list, imports: dict, texts: dict | None = None) -> tuple[str, str]:
    """What the decorators make of a function: (kind, problem).

    kind is "kernel" (``@cuda.jit``, with or without a signature), "device"
    (``@cuda.jit(device=True)``), "cpu" (``@njit``, ``@numba.jit``) or "python" (none);
    problem is "" or why the decorators cannot be graded. ``texts``: name -> a signature
    written as text (or a list of them) the notebook bound, which a decorator may be given
    (``@cuda.jit(SIG)``).
    """
    if not decorators:
        return "python", ""
    if len(decorators) > 1:
        return "python", "more than one decorator"
    d = decorators[0]
    call = d if isinstance(d, ast.Call) else None
    path = resolve(call.func if call else d, imports)
    kind = _JITS.get(path or "")
    if kind is None:
        return "python", f"the decorator @{ast.unparse(d)} (only cuda.jit, as imported)"
    if call is not None:
        bad = [a for a in call.args if not _safe_argument(a, imports, texts)]
        bad += [k.value for k in call.keywords if not isinstance(k.value, ast.Constant)]
        if bad or any(k.arg is None for k in call.keywords):
            first = (bad or [call])[0]
            texts_in = [n for n in ast.walk(first) if isinstance(n, ast.Constant | ast.Name)]
            if any(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in texts_in) or (
                any(isinstance(n, ast.Name) and n.id in (texts or {}) for n in texts_in)
            ):
                return "python", (
                    f"the decorator argument {ast.unparse(first)[:120]} (a signature names "
                    'numba types only, as "void(float32[:], float32[:])")'
                )
            return "python", f"the decorator argument {ast.unparse(first)}"
        other = [k.arg for k in call.keywords if k.arg not in OPTIONS[kind]]
        if other:
            return "python", (
                f"the decorator option {other[0]}= (only {', '.join(sorted(OPTIONS[kind]))})"
            )
    if kind == "cpu":
        return "cpu", ""
    device = call is not None and any(
        k.arg == "device" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in call.keywords
    )
    return ("device" if device else "kernel"), ""


WHY_NOT_KERNEL = {
    "device": "is a device function (@cuda.jit(device=True)): a launch cannot start it; "
    "a kernel is decorated @cuda.jit",
    "cpu": "is compiled for the CPU (@njit or @numba.jit), not a CUDA kernel: decorate it "
    "@cuda.jit",
    "python": "is a plain Python function, not a CUDA kernel: decorate it @cuda.jit "
    "(with `from numba import cuda`)",
}

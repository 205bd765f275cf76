"""Source text to compile: a live kernel's own, or the kernel-defining part of a file.

A kernel typed in a notebook lives in a namespace full of arrays and results; only its
source, the device functions it calls, the constants it reads and the modules it names
are needed to compile it, and those are what ``function_source`` writes out.
"""

from __future__ import annotations

import ast
import dis
import inspect
import textwrap
import types
from typing import Any

import numpy as np

from pdc import pyast

# Calls allowed in a constant kept from a file: type and dtype constructors, not work.
_CONSTANT_CALLS = {
    "dtype",
    "array",
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
    "int",
    "float",
    "bool",
    "tuple",
    "len",
    "jit",
    "min",
    "max",
    "range",
}


def python_function(obj: Any) -> Any:
    """The Python function behind a ``cuda.jit`` kernel (simulated or real) or a function."""
    for attr in ("py_func", "fn"):
        inner = getattr(obj, attr, None)
        if isinstance(inner, types.FunctionType):
            return inner
    if isinstance(obj, types.FunctionType):
        return obj
    raise TypeError(f"[pdc ptx] expected a kernel or a function, got {type(obj).__name__}")


def _is_device(obj: Any) -> bool:
    if getattr(obj, "_device", False):  # the simulator's FakeCUDAKernel
        return True
    return bool(getattr(obj, "targetoptions", {}).get("device"))


def _def_source(fn: Any) -> str:
    """The ``def`` of ``fn`` without its decorators (they are rewritten by the caller)."""
    try:
        text = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as exc:
        raise ValueError(f"[pdc ptx] cannot find the source of {fn.__name__}: {exc}") from exc
    tree = pyast.parse(text)
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise ValueError(f"[pdc ptx] expected a def for {fn.__name__}, got {type(node).__name__}")
    lines = text.splitlines()
    return "\n".join(lines[node.lineno - 1 :]) + "\n"


def _names(code: types.CodeType) -> set[str]:
    """Global names the code reads (not attribute names such as ``.x``)."""
    names = {
        str(ins.argval)
        for ins in dis.get_instructions(code)
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME")
    }
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _value_line(name: str, value: Any) -> str | None:
    if isinstance(value, (bool, int, float, complex, str)) or value is None:
        return f"{name} = {value!r}"
    if isinstance(value, tuple) and all(isinstance(v, (bool, int, float)) for v in value):
        return f"{name} = {value!r}"
    if isinstance(value, np.generic):
        return f"{name} = np.{value.dtype.name}({value.item()!r})"
    if isinstance(value, np.dtype):
        return f"{name} = {dtype_literal(value)}"
    if isinstance(value, np.ndarray) and value.size <= 4096:
        return f"{name} = np.array({value.tolist()!r}, dtype=np.{value.dtype.name})"
    return None


def dtype_literal(dt: np.dtype) -> str:
    """Python text that rebuilds ``dt`` exactly (field offsets and padding included)."""
    fields = dt.fields
    if dt.names is None or fields is None:
        return f"np.dtype({dt.str!r})"
    spec = {
        "names": list(dt.names),
        "formats": [fields[n][0].str for n in dt.names],
        "offsets": [fields[n][1] for n in dt.names],
        "itemsize": dt.itemsize,
        "aligned": dt.isalignedstruct,
    }
    return f"np.dtype({spec!r})"


def _import_line(name: str, value: Any) -> str | None:
    if isinstance(value, types.ModuleType):
        if value.__name__.startswith("numba.cuda"):  # the simulator stands in for numba.cuda here
            return f"from numba import cuda as {name}"
        return f"import {value.__name__} as {name}"
    tmod = type(value).__module__
    if tmod.startswith("numba.core.types"):  # float32, int64 ...: numba type instances
        return f"from numba import {value} as {name}"
    mod = getattr(value, "__module__", None)
    qual = getattr(value, "__name__", None)
    if mod and qual and not mod.startswith(("__main__", "_pdc_ptx")):
        if mod.startswith("numba.cuda"):
            return None  # gathered as source or unreachable: leave the name unbound
        return f"from {mod} import {qual} as {name}"
    return None


def function_source(fn: Any) -> tuple[str, str]:
    """Module text for ``fn`` and everything it references; returns ``(source, name)``.

    Raises:
        ValueError: If a function's source cannot be found.
    """
    kernel = python_function(fn)
    header = ["import math", "import numpy as np", "from numba import cuda"]
    values: list[str] = []
    defs: list[str] = []
    seen: set[int] = set()

    def visit(func: Any, jit_as: str | None) -> None:
        if id(func) in seen:
            return
        seen.add(id(func))
        g = func.__globals__
        for name in sorted(_names(func.__code__)):
            if name not in g:
                continue
            value = g[name]
            if (
                isinstance(value, types.FunctionType)
                or hasattr(value, "py_func")
                or (
                    hasattr(value, "fn")
                    and isinstance(getattr(value, "fn", None), types.FunctionType)
                )
            ):
                inner = python_function(value)
                if inner.__module__ in ("__main__",) or inner.__globals__ is g:
                    visit(inner, name if _is_device(value) else None)
                    continue
            line = _value_line(name, value) or _import_line(name, value)
            if line and line not in values and line.replace(" as cuda", "") not in header:
                values.append(line)
        text = _def_source(func)
        if jit_as is not None:  # a device function: compiled as one, under its name
            text += f"{jit_as} = cuda.jit(device=True)({func.__name__})\n"
        defs.append(text)

    visit(kernel, None)
    source = "\n".join(header + values) + "\n\n\n" + "\n\n".join(defs)
    return source, kernel.__name__


def kernel_slice(text: str) -> str:
    """The part of a module (or a notebook's joined cells) that defines kernels.

    Keeps imports, function definitions, and assignments of constants and dtypes (calls only
    to type constructors and ``cuda.jit``); drops everything that runs or allocates.
    """
    try:
        tree = pyast.parse(text)
    except SyntaxError:
        return ""
    keep: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue  # the slice is not the file's start; these change nothing numba sees
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            keep.append(_guarded(node))
        elif isinstance(node, ast.FunctionDef):
            # Kernels and handlers become plain functions; device functions stay compiled.
            node.decorator_list = [d for d in node.decorator_list if _device_jit(d)]
            node.returns = None  # annotations and defaults may name run-time values
            for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
                a.annotation = None
            keep.append(_guarded(node))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and _constant(node):
            keep.append(_guarded(node))
    return ast.unparse(ast.Module(body=keep, type_ignores=[]))


def _device_jit(dec: ast.expr) -> bool:
    return isinstance(dec, ast.Call) and any(
        k.arg == "device" and isinstance(k.value, ast.Constant) and k.value.value
        for k in dec.keywords
    )


def _guarded(node: ast.stmt) -> ast.stmt:
    # A missing optional library (cupy, torch) or an undefined name must not stop the file
    # from compiling; a kernel that needs it then fails with numba's "untyped global".
    catch = ast.Name("Exception", ast.Load())
    handler = ast.ExceptHandler(type=catch, name=None, body=[ast.Pass()])
    guarded = ast.Try(body=[node], handlers=[handler], orelse=[], finalbody=[])
    return ast.fix_missing_locations(guarded)


def _constant(node: ast.Assign | ast.AnnAssign) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if not all(isinstance(t, (ast.Name, ast.Tuple)) for t in targets) or node.value is None:
        return False
    for sub in ast.walk(node.value):
        if isinstance(sub, ast.Call):
            f = sub.func
            while isinstance(f, ast.Call):  # cuda.jit(device=True)(g)
                f = f.func
            called = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if called not in _CONSTANT_CALLS:
                return False
        if isinstance(sub, (ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.Await)):
            return False
    return True

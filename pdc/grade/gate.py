"""The compile gate: a graded kernel must compile for a real GPU before it is simulated.

The simulator runs Python, which accepts much that numba-cuda refuses: a shared array sized
at run time, a helper without ``@cuda.jit(device=True)``, ``@`` on local arrays. So each
graded kernel, with the device functions and constants the grader extracted, is written out
as a module and compiled by numba-cuda for sm_80 with the argument types of the exercise's
public cases (pdc.ptx, in a separate process, no GPU needed). One process compiles every
kernel of a submission. Only code that already passed pdc.grade.source reaches the module,
and the module's imports and decorators are written here, not copied from the notebook.
"""

from __future__ import annotations

import hashlib

from pdc.grade.source import DTYPE_NAMES, Extracted

CC = (8, 0)
COMPILE_TIMEOUT_S = 300.0

_HEADER = (
    "import math\n"
    "import numpy\n"
    "import numpy as np\n"
    "import numba\n"
    "from numba import cuda\n"
    "from numba import {dtypes}\n"
)
_DECORATORS = {"device": "@cuda.jit(device=True)\n", "kernel": "@cuda.jit\n", "python": ""}
_CACHE: dict[str, tuple[bool, str]] = {}  # module text + types -> (ok, error), this process


def module_text(ext: Extracted, kernel: str) -> str:
    """A module defining ``kernel`` as numba would see it in the submission's notebook."""
    import numba

    dtypes = ", ".join(n for n in DTYPE_NAMES if hasattr(numba, n))
    lines = [_HEADER.format(dtypes=dtypes)]
    lines += [f"{k} = {v!r}" for k, v in ext.constants.items()]
    lines.append("")
    target, how = ext.aliases.get(kernel, (kernel, "same"))
    graded = target if how == "same" else kernel  # `kernel = other` grades other as a kernel
    for name, src in ext.functions.items():
        kind = "kernel" if name in (kernel, graded) else ext.device.get(name, "python")
        lines.append(_DECORATORS[kind] + src)
    for name, (target, kind) in ext.aliases.items():
        if kind == "same":
            lines.append(f"{name} = {target}")
            continue
        jit = "cuda.jit(device=True)" if kind == "device" else "cuda.jit"
        lines.append(f"{name} = {jit}({target})")
    return "\n".join(lines) + "\n"


def check_compiles(jobs: list[tuple[str, str, str, list]]) -> dict[str, str | None]:
    """Compile ``(key, module text, kernel, example args)`` jobs in one process.

    Returns:
        key -> None when the kernel compiles for sm_80, else numba's error in one line.
        When NVIDIA's compiler is not installed, every key maps to None (no gate).
    """
    from pdc.ptx import CompilerMissing, compile_many, describe

    out: dict[str, str | None] = {}
    todo, memo = [], {}
    for key, text, kernel, args in jobs:
        sig = repr([describe(a)[:3] if not isinstance(a, str) else a for a in args])
        h = hashlib.sha256(f"{text}\0{kernel}\0{sig}".encode()).hexdigest()
        memo[key] = h
        if h not in _CACHE:
            todo.append((h, text, kernel, args))
    if todo:
        try:
            builds = compile_many(todo, ccs=(CC,), timeout=COMPILE_TIMEOUT_S)
        except CompilerMissing:
            return {key: None for key, *_ in jobs}
        for (h, *_), b in zip(todo, builds):
            _CACHE[h] = (bool(b.ok), b.error or "numba could not compile it")
    for key, h in memo.items():
        ok, error = _CACHE[h]
        out[key] = None if ok else error
    return out

"""The simulator's front end: numba-cuda's own typed IR of a kernel, for the argument types.

numba-cuda parses, checks and types a kernel before it generates PTX. Its answer is all the
simulator needs: ``numba.cuda.compiler.compile_cuda(pyfunc, None, argtypes, cc=(8, 0))``
returns the typed IR (blocks of statements, a type for every variable, a signature for
every call), and it does so without a GPU; pdc.sim.typeonly runs the same pipeline and
stops once the kernel is typed, before lowering. So the simulator accepts exactly what numba-cuda
compiles and refuses the rest with numba's own error; it has no whitelist of its own.

This module only asks numba; pdc.sim.program turns the answer into something to run.
Compiling needs numba-cuda's real target: in a process where numba's CUDA simulator is on
(``NUMBA_ENABLE_CUDASIM=1``), pdc.sim.remote runs the simulator in a worker process.
"""

from __future__ import annotations

import sys
import threading
import types
from dataclasses import dataclass
from typing import Any

import numpy as np

#: The compute capability kernels are typed for: the compile gate's target.
CC = (8, 0)
_LOCK = threading.Lock()
_CACHE: dict = {}


class CompileError(Exception):
    """numba-cuda could not compile the kernel: its message, on one line."""


class Unsupported(Exception):
    """The kernel compiles, but uses something the simulator does not model yet."""


def real_cuda_available() -> bool:
    """Whether numba-cuda's real target (not numba's CUDA simulator) is loaded here.

    False while ``numba.cuda`` is not imported: importing it here would fix this process in
    the real mode, and pdc.numba_cuda() could no longer switch numba's simulator on later.
    """
    mod = sys.modules.get("numba.cuda")
    if mod is None:
        return False
    return "simulator" not in getattr(getattr(mod, "jit", None), "__module__", "simulator")


def _may_import_real() -> bool:
    import os

    return "numba.cuda" not in sys.modules and os.environ.get("NUMBA_ENABLE_CUDASIM", "0") in (
        "",
        "0",
    )


def _patch_device() -> None:
    # Device functions are compiled for "the current device"; there is none without a GPU.
    import numba.cuda.dispatcher as dispatcher

    target = types.SimpleNamespace(compute_capability=CC)
    dispatcher.get_current_device = lambda: target


@dataclass
class TypedIR:
    """What numba-cuda knows about one function for one signature."""

    pyfunc: Any
    blocks: dict
    typemap: dict
    calltypes: dict
    argtypes: tuple
    return_type: Any
    name: str
    first_line: int
    filename: str


def python_function(kernel) -> Any:
    """The plain Python function behind a numba kernel, device function or njit function."""
    return getattr(kernel, "py_func", kernel)


def numba_type(arg) -> Any:
    """numba's type for an example argument (arrays are typed C-contiguous or as they are)."""
    import numba

    if isinstance(arg, np.ndarray):
        return numba.typeof(arg)
    if isinstance(arg, (bool, np.bool_)):
        return numba.types.boolean
    if isinstance(arg, (int, float, complex, np.generic)):
        return numba.typeof(arg)
    if type(type(arg)).__module__.startswith("numba"):
        return arg
    raise TypeError(
        "[sim] expected a kernel argument that is a NumPy array or a scalar, "
        f"got {type(arg).__name__}"
    )


def typed_ir(pyfunc, argtypes: tuple) -> TypedIR:
    """numba-cuda's typed IR of ``pyfunc`` for ``argtypes`` (cached per function and types).

    Raises:
        CompileError: numba-cuda refuses the function.
        Unsupported: a recursive device function (typing alone cannot link it).
        RuntimeError: numba's CUDA simulator is on in this process.
    """
    pyfunc = python_function(pyfunc)
    key = (pyfunc, tuple(argtypes))
    try:
        hit = _CACHE.get(key)
    except TypeError:
        hit = None
    if hit is not None:
        return hit
    if not real_cuda_available() and not _may_import_real():
        raise RuntimeError(
            "[sim] numba's CUDA simulator is on in this process; "
            "run the kernel through pdc.sim (it uses a worker process)"
        )
    from pdc.sim.typeonly import compile_types

    cres, error = _compiled(compile_types, pyfunc, tuple(argtypes), CC)
    if _recursive(error):
        # A device function that calls itself: numba-cuda compiles it, but typing alone
        # (pdc.sim.typeonly) stops where numba links the recursive call.
        raise Unsupported("the simulator does not support recursive device functions yet")
    if error is not None:
        raise CompileError(error)
    ta = cres.type_annotation
    code = pyfunc.__code__
    out = TypedIR(
        pyfunc=pyfunc,
        blocks=ta.blocks,
        typemap=ta.typemap,
        calltypes=ta.calltypes,
        argtypes=tuple(argtypes),
        return_type=cres.signature.return_type,
        name=pyfunc.__name__,
        first_line=def_line(code),
        filename=code.co_filename,
    )
    try:
        _CACHE[key] = out
    except TypeError:
        pass
    return out


def lowering_error(pyfunc, argtypes: tuple) -> str | None:
    """numba-cuda's whole compile of ``pyfunc``, lowering included: its error in one line, or
    None when it compiles.

    ``typed_ir`` stops before lowering, and a few constructs pass typing but not lowering
    (``(1).__class__``). The simulator asks this only when it stops on something it does not
    model, so that what numba-cuda refuses is reported as numba's refusal.
    """
    from numba.cuda.compiler import compile_cuda

    error = _compiled(compile_cuda, python_function(pyfunc), None, tuple(argtypes), cc=CC)[1]
    if _recursive(error):
        return None  # a recursive call this process cannot link; the compile gate compiles it
    return error


def _recursive(error: str | None) -> bool:
    """Whether numba stopped where it links a recursive call (its error names the step)."""
    return error is not None and "insert_unresolved_ref" in error


def _compiled(compile_fn, *args, **kwargs) -> tuple[Any, str | None]:
    """``compile_fn(*args, **kwargs)`` with numba-cuda's target set up for no device and its
    warnings silenced: (result, None), or (None, the error in one line)."""
    import warnings

    with _LOCK:
        _patch_device()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return compile_fn(*args, **kwargs), None
        except Exception as e:  # numba's errors come in many classes; one line each
            return None, _one_line(e)


def def_line(code) -> int:
    """The line of a function's ``def``: kernel lines count from it (line 1), whatever
    decorators stand above it (``co_firstlineno`` is the first decorator's line)."""
    import linecache
    import re

    first = code.co_firstlineno
    pattern = re.compile(rf"\s*def\s+{re.escape(code.co_name)}\b")
    for k in range(first, first + 50):
        text = linecache.getline(code.co_filename, k)
        if not text:
            break
        if pattern.match(text):
            return k
    return first


def _one_line(e: BaseException) -> str:
    text = str(e).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    # numba's messages open with the cause and end with the location; keep both, short.
    keep = [ln for ln in lines if not ln.startswith(("During:", "File ", "^"))]
    msg = " ".join(keep[:3]) if keep else type(e).__name__
    return f"{type(e).__name__}: {msg}"[:600]


def dtype_of(t) -> np.dtype:
    """The NumPy dtype of a numba scalar type (literals by their underlying type)."""
    from numba.core import types as nt

    if isinstance(t, nt.Literal):
        t = t.literal_type if not isinstance(t, nt.BooleanLiteral) else nt.boolean
    if isinstance(t, nt.Boolean):
        return np.dtype(np.bool_)
    if isinstance(t, (nt.Integer, nt.Float, nt.Complex)):
        return np.dtype(str(t))
    if isinstance(t, nt.NPDatetime | nt.NPTimedelta):
        raise Unsupported(f"the simulator does not support {t} yet")
    raise Unsupported(f"the simulator does not support values of type {t} yet")


def is_scalar(t) -> bool:
    from numba.core import types as nt

    if isinstance(t, nt.Literal):
        return isinstance(t, (nt.IntegerLiteral, nt.BooleanLiteral)) or isinstance(
            getattr(t, "literal_type", None), (nt.Integer, nt.Float, nt.Boolean)
        )
    return isinstance(t, (nt.Boolean, nt.Integer, nt.Float, nt.Complex))


def callee_ir(fnty, sig) -> TypedIR | None:
    """The typed IR of a device function (``@cuda.jit(device=True)`` or ``@njit``) at ``sig``."""
    disp = getattr(fnty, "dispatcher", None)
    if disp is None:
        return None
    return typed_ir(disp.py_func, tuple(sig.args))

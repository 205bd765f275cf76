"""The names students gave their arrays, recovered from the kernel's own bytecode.

A shared array is allocated by a call, ``sA = cuda.shared.array((TILE, TILE), float32)``; the
instruction that stores the call's result names the variable. Feedback then says ``sA[0, 3]``
where it would otherwise have to invent a name.
"""

from __future__ import annotations

import dis
import types

_STORES = {"STORE_FAST", "STORE_NAME", "STORE_DEREF", "STORE_GLOBAL"}
_cache: dict = {}


def assigned_name(code: types.CodeType, offset: int) -> str | None:
    """The variable that the call at instruction ``offset`` of ``code`` is assigned to.

    Args:
        code: The calling frame's code object.
        offset: The calling frame's ``f_lasti`` (the call instruction).

    Returns:
        The name, when the next instruction after the call stores its result in a plain
        variable; None otherwise (tuple unpacking, a subscript, an argument of another call).
    """
    key = (code, offset)
    if key not in _cache:
        name = None
        for ins in dis.get_instructions(code):
            if ins.offset <= offset or ins.opname in ("PRECALL", "CACHE", "EXTENDED_ARG"):
                continue
            name = ins.argval if ins.opname in _STORES else None
            break
        _cache[key] = name
    return _cache[key]

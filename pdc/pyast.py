"""``ast.parse`` and ``compile(tree)`` that are safe to call from several threads at once.

CPython before 3.13 keeps the depth counter of its conversion between C syntax trees and
Python ``ast`` objects in interpreter-wide state. The conversion can let another thread run
(a garbage collection calling a finaliser is enough), and when that thread converts too, the
first one fails with ``SystemError: AST constructor recursion depth mismatch``. The grader
parses notebooks in a thread pool, the ring runtime parses handlers from any thread, so
every conversion in ``pdc`` goes through the one lock here. Parsing is fast (about 1 ms
for a notebook cell), so the lock costs nothing anyone can see.
"""

from __future__ import annotations

import ast
import threading
from types import CodeType

LOCK = threading.RLock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)`` under the process-wide AST lock."""
    with LOCK:
        return ast.parse(source, filename)


def parse_expr(source: str) -> ast.expr:
    """The expression ``ast.parse(source, mode="eval")`` holds, under the same lock."""
    with LOCK:
        return ast.parse(source, mode="eval").body


def compile_tree(tree: ast.mod, filename: str, mode: str = "exec", flags: int = 0) -> CodeType:
    """``compile(tree, filename, mode, flags)`` of an ``ast`` tree, under the same lock."""
    with LOCK:
        return compile(tree, filename, mode, flags=flags)  # type: ignore[call-overload]

"""The ring's generated numba code kept on disk, keyed by what it is generated from.

The cpu backend compiles the same pieces in every new process: the shared loop for a pair
of message types (about 1.3 s of CPU on a quiet machine), the host's compiled ``call`` for
them (0.4 s), the doorbell's probe. A notebook's first ring kernel pays all of it; with
this cache, only the first run on a machine does, and a later process loads the machine
code (tens of milliseconds).

Why not numba's ``cache=True``: numba keys a cached function by its source file's time
stamp and its bytecode, and pickles the values its closure holds. These pieces are
generated (the loop is a closure over its handler caller and back-off, the host's call is
source text compiled with ``exec``), and a closure holding a numba function pickles with a
random id, so every new process would miss. And numba does not look at the functions the
cached one calls: an edit to the loop's primitives would keep running the old build. So
``keep`` gives a dispatcher numba's own cache (its index and data files, its serialised
machine code) under a key of ours: a digest of every module of ``pdc.ring`` (all that the
pieces are generated from), numba's and llvmlite's versions, and the caller's description
of the piece (its generated source, its message types and options). numba adds the
signature and the CPU it compiled for to each entry.

Files live in ``$XDG_CACHE_HOME/pdc/ring`` (``~/.cache/pdc/ring``), tens of kilobytes per
piece. A missing, stale, corrupted or unwritable file only costs a compile: the piece is
compiled again (and saved over it when the folder is writable). Files not written for
``MAX_AGE_DAYS`` are removed when a process first saves a piece (an edited runtime, a class
of handlers graded once: they would only pile up). ``PDC_RING_CACHE=0`` turns the cache off.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from numba.core.caching import CompileResultCacheImpl, FunctionCache, _CacheLocator

__all__ = ["MAX_AGE_DAYS", "cache_dir", "keep", "prune", "ring_digest"]

_KEY_ATTR = "_pdc_ring_cache_key"


def cache_dir() -> Path:
    """Where the kept machine code lives."""
    from pdc.cachedir import cache_dir as kind_dir

    return kind_dir("ring")


_DIGEST: list[str] = []
MAX_AGE_DAYS = 30
_PRUNED: list[bool] = []


def prune(now: float | None = None) -> int:
    """Remove the kept files not written for ``MAX_AGE_DAYS``; how many were removed."""
    import time

    limit = (time.time() if now is None else now) - MAX_AGE_DAYS * 86400
    removed = 0
    for path in cache_dir().glob("*.nb[ic]"):
        try:
            if path.stat().st_mtime < limit:
                path.unlink()
                removed += 1
        except OSError:
            continue  # another process removed or replaced it
    return removed


def ring_digest() -> str:
    """A digest of every module of ``pdc.ring``, of the compiler's versions and of numba's
    settings that change the code it makes (once per process): any edit to the runtime makes
    every kept piece stale."""
    if not _DIGEST:
        import llvmlite
        import numba
        from numba.core import config

        # The compiler, and the settings that change its code but not numba's own key (which
        # holds the CPU's name and features).
        settings = [getattr(config, k, None) for k in ("OPT", "BOUNDSCHECK", "DEBUGINFO_DEFAULT")]
        h = hashlib.sha256(
            f"numba {numba.__version__} llvmlite {llvmlite.__version__} {settings}".encode()
        )
        root = Path(__file__).parents[1]  # pdc/ring
        for path in sorted(root.rglob("*.py")):
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
        _DIGEST.append(h.hexdigest())
    return _DIGEST[0]


def _describe(part: Any) -> str:
    if isinstance(part, np.dtype):
        return f"dtype({part.descr!r}, {part.itemsize}, {part.isalignedstruct})"
    if isinstance(part, (tuple, list)):
        return "(" + ", ".join(_describe(p) for p in part) + ")"
    if part is None or isinstance(part, (str, int, float, bool)):
        return repr(part)
    raise TypeError(
        f"[pdc.ring.protocol.jitcache] expected key parts of str, int, float, bool, None, "
        f"np.dtype or tuples of them, got {type(part).__name__}"
    )


class _Locator(_CacheLocator):
    """Our folder, and our key as the 'source stamp' numba compares before it loads."""

    def __init__(self, py_func: Any, key: str):
        self._py_file = getattr(py_func.__code__, "co_filename", "<generated>")
        self._key = key

    def get_cache_path(self) -> str:
        return str(cache_dir())

    def get_source_stamp(self) -> str:
        return self._key

    def get_disambiguator(self) -> str:
        return self._key[:24]

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _Locator | None:
        key = getattr(py_func, _KEY_ATTR, None)
        return None if key is None else cls(py_func, key)


class _Impl(CompileResultCacheImpl):
    _locator_classes = [_Locator]

    def get_filename_base(self, fullname: str, abiflags: str) -> str:
        # The qualified name of a generated function can be long and hold any character.
        name = re.sub(r"[^A-Za-z0-9_]+", "_", fullname.rsplit(".", 1)[-1])[:40]
        major, minor = sys.version_info[:2]
        return f"{name}-{self.locator.get_disambiguator()}.py{major}{minor}{abiflags}"


class _Cache(FunctionCache):
    """numba's function cache, with our key and a miss for whatever cannot be read."""

    _impl_class = _Impl

    def _index_key(self, sig: Any, codegen: Any) -> tuple:
        return (sig, codegen.magic_tuple(), getattr(self._py_func, _KEY_ATTR))

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        try:
            return super().load_overload(sig, target_context)
        except Exception:  # noqa: BLE001 - a corrupted or foreign file: compile again
            return None

    def save_overload(self, sig: Any, data: Any) -> None:
        if not _PRUNED:
            _PRUNED.append(True)
            prune()
        for attempt in (1, 2):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")  # a piece numba cannot cache: say so
                    super().save_overload(sig, data)
                return
            except OSError:
                return  # a read-only or full disk only costs the next process a compile
            except Exception as exc:  # noqa: BLE001 - never fail the compile that just worked
                if attempt == 1 and self._forget():
                    continue  # an index numba could not read: start it again
                warnings.warn(
                    f"[pdc.ring.protocol.jitcache] could not keep {self._py_func.__qualname__} on "
                    f"disk: {exc}",
                    RuntimeWarning,
                    stacklevel=2,
                )
                return

    def _forget(self) -> bool:
        """Remove this piece's index (its data files are then overwritten in turn)."""
        try:
            os.remove(self._cache_file._index_path)
        except OSError:
            return False
        return True


def keep(dispatcher: Any, *parts: Any) -> Any:
    """Give a numba dispatcher a disk cache keyed by ``parts`` and the runtime's digest.

    Args:
        dispatcher: A ``numba.njit`` dispatcher that has not compiled yet.
        parts: What the piece is generated from besides ``pdc.ring``'s modules: its
            generated source, message dtypes, options (str, numbers, dtypes, tuples).

    Returns:
        The dispatcher (its compiles now look in the cache first and save after).
    """
    if os.environ.get("PDC_RING_CACHE", "1") == "0":
        return dispatcher
    py_func = dispatcher.py_func
    text = f"{py_func.__module__}.{py_func.__qualname__}|{ring_digest()}|{_describe(parts)}"
    setattr(py_func, _KEY_ATTR, hashlib.sha256(text.encode()).hexdigest())
    dispatcher._cache = _Cache(py_func)
    return dispatcher

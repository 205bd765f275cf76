"""numba's CUDA simulator's results, kept: the oracle of the differential tests.

numba's simulator runs a Python thread per GPU thread. Over the differential tests' couple of
hundred kernels that is minutes of CPU, nearly all of their time, spent recomputing the same
answers on every run. A launch of a kernel that has no race is a function of what goes in:
its text, its launch geometry, its arguments and the versions of numba, numba-cuda and
NumPy. So each result is kept under a digest of exactly those, in one ``.npz`` per test
module under ``tests/data/oracle/``: the arrays the launch changed, or the error numba's
simulator raised. A launch whose key is not kept (a new kernel, new inputs, another numba)
runs on numba's simulator as before; nothing stale can be read back, because anything a
result depends on is in its key.

``make oracle`` runs the differential modules with ``PDC_ORACLE=write``, which runs every
launch afresh on numba's simulator and rewrites the stores with exactly the launches of that
run. ``PDC_ORACLE=live`` runs every launch afresh without writing. A hand-written store
format, not a cache library: the values are NumPy arrays that must round-trip bit for bit
without pickle, which ``np.savez`` does.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "tests" / "data" / "oracle"
#: Bumped when what a launch's key covers changes.
FORMAT = 1


def _versions() -> str:
    from importlib.metadata import version

    return "|".join(f"{p}={version(p)}" for p in ("numba", "numba-cuda", "numpy"))


def launch_key(text: str, name: str, grid, block, args) -> str:
    """The digest of everything a launch's result depends on."""
    h = hashlib.sha256()
    h.update(f"{FORMAT}|{_versions()}|{name}|{grid!r}|{block!r}\n{text}".encode())
    for a in args:
        if isinstance(a, np.ndarray):
            a = np.ascontiguousarray(a)
            h.update(f"|array {a.dtype.str} {a.shape}|".encode())
            h.update(a.tobytes())
        else:
            h.update(f"|scalar {type(a).__name__} {a!r}|".encode())
    return h.hexdigest()[:32]


class Oracle:
    """The kept results of one test module's launches on numba's simulator."""

    def __init__(self, module: str, folder: Path = STORE):
        self.path = folder / f"{module}.npz"
        self.mode = os.environ.get("PDC_ORACLE", "read")
        if self.mode not in ("read", "live", "write"):
            raise ValueError(f"[oracle] expected PDC_ORACLE read, live or write, got {self.mode!r}")
        self.kept: dict = {}
        self.problem = ""
        if self.mode == "read" and self.path.is_file():
            try:
                with np.load(self.path, allow_pickle=False) as z:
                    self.kept = {k: z[k] for k in z.files}
            except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:  # run it all live
                self.kept, self.problem = {}, f"{self.path.name} unreadable ({e}): ran live"
        self.used: dict = {}
        self.hits = self.live = 0

    def launch(self, run, text: str, name: str, grid, block, args: list) -> None:
        """``run(args)`` (a launch on numba's simulator that updates ``args`` in place), or
        its kept result for these inputs. An exception of the launch is raised again, with
        its type and message, when read back."""
        key = launch_key(text, name, grid, block, args)
        if f"{key}.error" in self.kept or f"{key}.done" in self.kept:
            self.hits += 1
            self._restore(key, args)
            return
        self.live += 1
        before = [a.copy() if isinstance(a, np.ndarray) else None for a in args]
        try:
            run(args)
        except Exception as e:
            self.used[f"{key}.error"] = np.array(f"{type(e).__name__}:{e}")
            raise
        self.used[f"{key}.done"] = np.zeros(0, np.int8)
        for i, (a, b) in enumerate(zip(args, before)):
            if b is not None and not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
                self.used[f"{key}.{i}"] = a.copy()

    def _restore(self, key: str, args: list) -> None:
        for k in (f"{key}.error", f"{key}.done"):
            if k in self.kept:
                self.used[k] = self.kept[k]
        if f"{key}.error" in self.kept:
            kind, _, text = str(self.kept[f"{key}.error"]).partition(":")
            kinds = (AttributeError, OverflowError, AssertionError, TypeError)
            raise {k.__name__: k for k in kinds}.get(kind, RuntimeError)(text)
        for i, a in enumerate(args):
            v = self.kept.get(f"{key}.{i}")
            if v is not None:
                self.used[f"{key}.{i}"] = v
                a[...] = v

    def summary(self) -> dict:
        return {"kept": self.hits, "run": self.live, "problem": self.problem}

    def save(self) -> None:
        """With ``PDC_ORACLE=write``: the store becomes exactly this run's launches."""
        if self.mode != "write":
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, **dict(sorted(self.used.items())))
        os.replace(tmp, self.path)

"""Triton grading children started ahead of their job, and compile verdicts kept by source.

A Triton part runs two sandboxed children (pdc.grade.triton.child): one compiles the kernel
for sm_80, one runs the cases on Triton's interpreter. Each would import torch and Triton
first, seconds on a busy machine, and the compile would hash Triton's own files for its
cache key (half a second) before lowering a line. A notebook's ``check`` should answer
at once, so once a notebook asks for warm children (``warm_soon``) one child per stage is
started in the background, under the same limits, with those imports done (``prepare``),
waiting for its job on standard input; each check takes them and starts the next pair once
it has its answer. A child started for another time limit is not used.

The compile gate's verdict depends only on the module text and the compile spec: it is kept
per process by their hash, and a kernel checked again unchanged is not compiled again.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import subprocess
import tempfile
import threading
from pathlib import Path

STAGES = ("run", "gate")  # the run child first: it has the longer start (torch)
#: The time limit of a waiting child (a job with another limit starts its own child).
LIMIT_S = 90.0
_LOCK = threading.Lock()
_READY: dict[str, tuple[subprocess.Popen, float]] = {}  # stage -> (waiting child, its limit)
_GATE: dict[str, str] = {}  # hash of (module text, spec) -> the gate's verdict ("" passes)
_STATE = {"enabled": False}


def prepare(stage: str) -> None:
    """Run in a child before it reads its job: the imports (and hashing) its stage needs."""
    import os

    if stage == "run":
        os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported
        import torch  # noqa: F401
        import triton.runtime.interpreter  # noqa: F401

        from pdc.grade.triton import interp  # noqa: F401
        from pdc.ptx import triton_build  # noqa: F401
    else:
        import triton.compiler.compiler  # noqa: F401
        from triton.runtime.cache import triton_key

        from pdc.ptx import triton_build  # noqa: F401

        triton_key()  # hashes Triton's files once; every compile's cache key starts with it


def _start(stage: str, limit: float, cwd: Path | None = None) -> subprocess.Popen:
    from pdc.grade import sandbox

    line = f"from pdc.grade.triton.warm import prepare; prepare({stage!r})"
    return sandbox.start_child(cwd or Path(tempfile.gettempdir()), limit, prepare=line)


def take(stage: str, limit: float, cwd: Path | None = None) -> subprocess.Popen:
    """A child for ``stage`` under ``limit``: a waiting one if there is one, else a new one
    started in ``cwd`` (a waiting one moves to its job's folder when it gets the job)."""
    with _LOCK:
        ready = _READY.pop(stage, None)
    if ready is not None:
        proc, lim = ready
        if proc.poll() is None and lim == limit:
            return proc
        _stop(proc)
    return _start(stage, limit, cwd)


def run(job: dict, limit: float) -> str:
    """Run ``job`` (its ``stage`` says which) in a child; returns "" or why it stopped."""
    from pdc.grade import sandbox

    proc = take(job["stage"], limit, Path(job["inputs"]).parent)
    return sandbox.finish_child(proc, job, limit)


def warm_soon(limit: float) -> None:
    """From now on keep one waiting child per stage; start the missing ones in the background."""
    _STATE["enabled"] = True

    def fill() -> None:
        for stage in STAGES:
            with _LOCK:
                if stage in _READY and _READY[stage][0].poll() is None:
                    continue
            try:
                proc = _start(stage, limit)
            except OSError:
                return  # the next check starts its own children and reports what fails
            with _LOCK:
                old = _READY.pop(stage, None)
                _READY[stage] = (proc, limit)
            if old is not None:
                _stop(old[0])

    threading.Thread(target=fill, name="pdc-triton-warm", daemon=True).start()


def enable() -> None:
    """Keep waiting children from the next check on (``refill``)."""
    _STATE["enabled"] = True


def refill(limit: float) -> None:
    """After a check: start the next waiting children, if a notebook asked for them."""
    if _STATE["enabled"]:
        warm_soon(limit)


def gate_key(text: str, spec: dict) -> str:
    """The hash the gate's verdict is kept under."""
    return hashlib.sha256(json.dumps([text, spec], sort_keys=True).encode()).hexdigest()


def gate_known(key: str) -> str | None:
    """The kept verdict of the gate for ``key`` ("" passes), or None when not kept."""
    with _LOCK:
        return _GATE.get(key)


def gate_keep(key: str, verdict: str) -> None:
    with _LOCK:
        _GATE[key] = verdict


def _stop(proc: subprocess.Popen) -> None:
    from pdc.grade import sandbox

    if proc.poll() is None:
        sandbox.stop_child(proc)


@atexit.register
def _stop_all() -> None:
    with _LOCK:
        ready = list(_READY.values())
        _READY.clear()
    for proc, _ in ready:
        _stop(proc)

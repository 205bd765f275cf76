"""Triton grading children forked warm, and compile verdicts kept by source.

A Triton part runs two sandboxed children (pdc.grade.triton.child): one compiles the kernel
for sm_80, one runs the cases on Triton's interpreter. One process cannot do both (once the
interpreter has patched ``triton.language``, Triton no longer compiles), and each would
import torch and Triton first, seconds on a busy machine, and the compile would hash
Triton's own files for its cache key (half a second) before lowering a line. So each stage
has a zygote (pdc.grade.zygote) that has done those imports (``prepare``) and forks one
child per job: a class pays the imports once, and a notebook's ``check`` once it has asked
for them (``warm_soon``, when the exercise's checks are imported).

The compile gate's verdict depends only on the module text, the compile spec and Triton's
version: it is kept by their hash, in the process and on disk beside pdc.ptx's builds, and a
kernel checked again unchanged is not compiled again.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import tempfile
import threading
from pathlib import Path

STAGES = ("run", "gate")  # the run zygote first: it has the longer start (torch)
#: The time limit of one Triton job (a longer --timeout is kept).
LIMIT_S = 90.0
_LOCK = threading.Lock()
_GATE: dict[str, str] = {}  # hash of (module text, spec) -> the gate's verdict ("" passes)


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


def _prepare_line(stage: str) -> str:
    return f"from pdc.grade.triton.warm import prepare; prepare({stage!r})"


def _start(stage: str, limit: float, cwd: Path | None = None) -> subprocess.Popen:
    from pdc.grade import sandbox

    return sandbox.start_child(
        cwd or Path(tempfile.gettempdir()), limit, prepare=_prepare_line(stage)
    )


def run(job: dict, limit: float) -> str:
    """Run ``job`` (its ``stage`` says which) in a child; returns "" or why it stopped.

    The child is a fork of the stage's zygote; when there is none (``PDC_GRADE_ZYGOTE=0``)
    or it cannot fork, a fresh child.
    """
    from pdc.grade import sandbox, zygote

    cwd = Path(job["inputs"]).parent
    if zygote.enabled():
        try:
            return zygote.get(f"triton-{job['stage']}", _prepare_line(job["stage"])).run(
                job, cwd, limit
            )
        except zygote.ZygoteError:
            pass
    return sandbox.finish_child(_start(job["stage"], limit, cwd), job, limit)


def warm_soon() -> None:
    """Start both stages' zygotes now (in the background), so the first check finds them warm."""
    from pdc.grade import zygote

    if not zygote.enabled():
        return
    for stage in STAGES:
        try:
            zygote.get(f"triton-{stage}", _prepare_line(stage))
        except OSError:
            return  # the check starts its own children and reports what fails


#: Bump when what the Triton gate accepts or says changes: verdicts kept on disk by an
#: earlier version are then not read.
GATE_VERSION = "1"


def gate_key(text: str, specs: list[dict]) -> str:
    """The hash the gate's verdict is kept under: the module text, the compile specs, and
    the versions of Triton and of this gate."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        triton = version("triton")
    except PackageNotFoundError:
        triton = "none"
    data = json.dumps([text, specs, triton, GATE_VERSION], sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()


def _disk(key: str) -> Path:
    from pdc.cachedir import cache_dir

    return cache_dir("ptx") / f"triton-gate-{key}.json"


def gate_known(key: str) -> str | None:
    """The kept verdict of the gate for ``key`` ("" passes), or None when not kept: in this
    process, else on disk (a notebook run again in a new kernel compiles nothing new)."""
    with _LOCK:
        if key in _GATE:
            return _GATE[key]
    try:
        verdict = json.loads(_disk(key).read_text())["verdict"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(verdict, str):
        return None  # a corrupted entry: compiled again, and written anew
    with _LOCK:
        _GATE[key] = verdict
    return verdict


def gate_keep(key: str, verdict: str) -> None:
    """Keep the gate's verdict for ``key`` in this process and on disk (best effort)."""
    from pdc.ptx.compile import keep_json

    with _LOCK:
        _GATE[key] = verdict
    keep_json(_disk(key), {"verdict": verdict})

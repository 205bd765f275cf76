"""Compile numba.cuda kernels for a real GPU on a machine without one.

numba compiles in a child process (``pdc.ptx.worker``) with the simulator off, so this
works from a notebook that runs the simulator; ``ptxas`` then turns each PTX into SASS in
parallel and reports the kernel's registers, shared memory, local memory and spills.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from pdc.cachedir import cache_dir

from .build import Build, CompilerMissing, assemble, find_ptxas

Job = tuple  # (name, source, kernel, args) or a dict (see ``compile_many``)


def describe(arg: Any) -> tuple:
    """An example argument reduced to what decides its numba type.

    Arrays keep dtype, ndim and layout; Python scalars become int64, float64, boolean or
    complex128 as numba types them; NumPy scalars keep their dtype; a string is a numba type
    ("float32[:, ::1]") and a numba type is used as it is.

    Raises:
        TypeError: For anything else.
    """
    if isinstance(arg, np.ndarray):
        layout = "C" if arg.flags.c_contiguous else "F" if arg.flags.f_contiguous else "A"
        return ("array", arg.dtype, arg.ndim, layout)
    if hasattr(arg, "__cuda_array_interface__") or type(arg).__name__ == "FakeCUDAArray":
        host = np.empty((0,) * len(arg.shape), dtype=arg.dtype)
        return ("array", host.dtype, len(arg.shape), "C")
    if isinstance(arg, np.generic):
        return ("scalar", arg.dtype)
    if isinstance(arg, bool):
        return ("scalar", np.dtype(np.bool_))
    if isinstance(arg, int):
        return ("scalar", np.dtype(np.int64))
    if isinstance(arg, float):
        return ("scalar", np.dtype(np.float64))
    if isinstance(arg, complex):
        return ("scalar", np.dtype(np.complex128))
    if isinstance(arg, str) or type(type(arg)).__module__.startswith("numba"):
        return ("type", arg)
    raise TypeError(
        f"[pdc ptx] expected an example argument (a NumPy array, a scalar or a numba type), "
        f"got {type(arg).__name__}"
    )


def _key_part(desc: tuple) -> str:
    parts = []
    for item in desc:
        if isinstance(item, np.dtype):
            parts.append(f"{item.descr}/{item.itemsize}/{item.isalignedstruct}")
        else:
            parts.append(str(item))
    return "|".join(parts)


def keep_json(path: Path, data: Any) -> None:
    """Write ``data`` as JSON to a cache file, through a temporary file renamed over it (a
    reader never sees half of it); best effort: a cache that cannot be written only costs
    time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, path)
    except OSError:
        pass


def cache_key(source: str, kernel: str, descs: Sequence[tuple], cc: tuple[int, int]) -> str:
    """A hash of everything a build depends on, numba's version included."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        tool = version("numba-cuda")
    except PackageNotFoundError:
        tool = "?"
    text = "\n".join([source, kernel, *(_key_part(d) for d in descs), str(cc), tool])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _worker_env() -> dict[str, str]:
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    root = str(Path(__file__).resolve().parents[2])  # so the child imports this very pdc
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def _normalise(jobs: Iterable[Job | dict], ccs: Sequence[tuple[int, int]]) -> list[dict]:
    out = []
    for i, job in enumerate(jobs):
        if isinstance(job, dict):
            d = dict(job)
        else:
            name, source, kernel, args = job
            d = {"kind": "source", "name": name, "source": source, "kernel": kernel}
            d["args"] = [describe(a) for a in args]
        d.setdefault("kind", "source")
        d["id"] = i
        d["ccs"] = [tuple(cc) for cc in d.get("ccs", ccs)]
        out.append(d)
    return out


def compile_many(
    jobs: Iterable[Job | dict],
    ccs: Sequence[tuple[int, int]] = ((8, 0), (9, 0)),
    timeout: float | None = None,
    progress: Callable[[Build], None] | None = None,
    workers: int | None = None,
) -> list[Build]:
    """Compile many kernels in a few child processes; ``ptxas`` runs in parallel beside them.

    Each child imports numba once (about a second) and compiles its share of the jobs, so a
    batch costs far less than one process per kernel.

    Args:
        jobs: ``(name, source, kernel, args)`` tuples (see :func:`compile_source`), or dicts
            ``{"kind": "call", "name", "target": "module:function", "params": {...}}`` whose
            function returns ``(py_func, numba argument types)``; a dict may add ``"where"``
            (shown in reports) and its own ``"ccs"``.
        ccs: Compute capabilities to build for.
        timeout: Seconds for the whole batch (None: no limit); builds not done by then fail.
        progress: Called with each finished :class:`Build`.
        workers: Compiling processes (default: two, or one on a one-core machine).

    Returns:
        One :class:`Build` per job and capability, in job order.

    Raises:
        CompilerMissing: If NVIDIA's compiler wheels are not installed.
    """
    specs = _normalise(jobs, ccs)
    ptxas = find_ptxas()
    if not specs:
        return []
    builds: dict[tuple[int, tuple], Build] = {}
    futures: list[Future] = []
    lock = threading.Lock()

    def finish(b: Build, t0: float) -> Build:
        b.seconds += time.perf_counter() - t0
        if progress is not None:
            with lock:
                progress(b)
        return b

    count = max(1, min(workers or min(2, os.cpu_count() or 1), len(specs)))
    procs = [_start_worker(specs[i::count]) for i in range(count)]

    def kill_all() -> None:
        for p, _ in procs:
            p.kill()

    timer = threading.Timer(timeout, kill_all) if timeout else None
    if timer:
        timer.start()
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:

        def read(proc: subprocess.Popen) -> None:
            assert proc.stdout is not None
            for raw in proc.stdout:
                r = json.loads(raw)
                b = _build_of(specs[r["id"]], r)
                with lock:
                    builds[(r["id"], b.cc)] = b
                t0 = time.perf_counter()
                if b.ptx:
                    futures.append(pool.submit(_assemble_and_finish, finish, b, ptxas, t0))
                else:
                    finish(b, t0)
            proc.wait()

        readers = [threading.Thread(target=read, args=(p,)) for p, _ in procs]
        for t in readers:
            t.start()
        for t in readers:
            t.join()
        for f in list(futures):
            f.result()
    if timer:
        timer.cancel()
    stderr = ""
    for _, errfile in procs:
        errfile.seek(0)
        stderr += errfile.read().decode(errors="replace")
        errfile.close()
    killed = any(p.returncode for p, _ in procs)
    out = []
    for spec in specs:
        for cc in spec["ccs"]:
            done = builds.get((spec["id"], cc))
            if done is None:  # the worker died or was stopped before reaching this one
                why = f"timed out after {timeout:.0f} s" if timeout and killed else ""
                last = stderr.strip().splitlines()[-1:] or ["no output"]
                done = Build(spec["name"], cc, where=spec.get("where", ""))
                done.error = why or f"the compiling process failed: {last[0][:300]}"
                done.error_full = stderr[-20_000:]
            out.append(done)
    return out


def _start_worker(specs: list[dict]) -> tuple[subprocess.Popen, Any]:
    # numba's warnings go to a file: a pipe nobody reads could fill and stall the worker.
    errfile = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pdc.ptx.worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errfile,
        env=_worker_env(),
    )
    assert proc.stdin is not None
    proc.stdin.write(pickle.dumps(specs))
    proc.stdin.close()
    return proc, errfile


def job_specs(jobs: Iterable[Job | dict], ccs: Sequence[tuple[int, int]]) -> list[dict]:
    """The worker's job dicts for ``jobs`` (as :func:`compile_many` takes them), ids 0, 1..."""
    return _normalise(jobs, ccs)


def builds_from(specs: list[dict], results: Iterable[dict], failure: str) -> list[Build]:
    """One :class:`Build` per spec and capability from a worker's result lines
    (pdc.ptx.worker), ``ptxas`` run on each PTX; a build with no line fails with ``failure``.

    Raises:
        CompilerMissing: If NVIDIA's compiler wheels are not installed.
    """
    ptxas = find_ptxas()
    found: dict[tuple[int, tuple], dict] = {}
    for r in results:
        found[(r["id"], tuple(r["cc"]))] = r
    out = []
    for spec in specs:
        for cc in spec["ccs"]:
            got = found.get((spec["id"], cc))
            if got is None:
                b = Build(spec["name"], cc, where=spec.get("where", ""))
                b.error = failure
            else:
                b = assemble(_build_of(spec, got), ptxas)
            out.append(b)
    return out


def _build_of(spec: dict, r: dict) -> Build:
    """The :class:`Build` a worker's result line ``r`` (pdc.ptx.worker) describes, before ptxas."""
    b = Build(spec["name"], tuple(r["cc"]), where=spec.get("where", ""))
    b.ptx, b.seconds = r.get("ptx", ""), r.get("seconds", 0.0)
    b.error, b.error_full = r.get("error", ""), r.get("full", "")
    return b


def _assemble_and_finish(finish: Callable, b: Build, ptxas: str, t0: float) -> Build:
    return finish(assemble(b, ptxas), t0)


def compile_source(
    source: str,
    kernel: str,
    args: Sequence[Any],
    cc: tuple[int, int] = (8, 0),
    timeout: float = 120,
    name: str | None = None,
    cache: bool = False,
) -> Build:
    """Compile one kernel of a Python module's text for compute capability ``cc``.

    Args:
        source: Module text defining the kernel (a plain function or ``@cuda.jit``), the
            device functions it calls, its constants and its imports.
        kernel: The kernel's name in ``source``.
        args: Example arguments: NumPy arrays, scalars, or numba type strings.
        cc: Target compute capability.
        timeout: Seconds before the compile is abandoned (a failed :class:`Build`).
        name: The name to report (default: ``kernel``).
        cache: Reuse an earlier identical build from the on-disk cache.

    Returns:
        The :class:`Build`; ``ok`` is False with ``error`` set when it does not compile.

    Raises:
        CompilerMissing: If NVIDIA's compiler wheels are not installed.
        TypeError: If an example argument has no numba type.
    """
    (build,) = compile_cached(source, kernel, args, [cc], timeout, name, cache)
    return build


def compile_cached(
    source: str,
    kernel: str,
    args: Sequence[Any],
    ccs: Sequence[tuple[int, int]],
    timeout: float = 120,
    name: str | None = None,
    cache: bool = True,
    compiler: Callable[..., list[Build]] | None = None,
) -> list[Build]:
    """:func:`compile_source` for several capabilities in one child process, cached on disk.

    ``compiler`` runs the jobs not found on disk, as :func:`compile_many` (the default) does:
    e.g. in a fork of a process that has imported numba-cuda already
    (``pdc.grade.gate.compile_many_warm``).
    """
    descs = [describe(a) for a in args]
    paths = {cc: cache_dir("ptx") / f"{cache_key(source, kernel, descs, cc)}.json" for cc in ccs}
    found: dict[tuple[int, int], Build] = {}
    for cc, path in paths.items():
        if cache and path.is_file():
            try:
                found[cc] = Build.from_dict(json.loads(path.read_text()))
            except (ValueError, TypeError, KeyError):
                pass  # an unreadable entry is rebuilt
    todo = [cc for cc in ccs if cc not in found]
    if todo:
        job = {"name": name or kernel, "source": source, "kernel": kernel, "args": descs}
        for build in (compiler or compile_many)([job], ccs=todo, timeout=timeout):
            found[build.cc] = build
            # Keep successes and compile errors; a timeout or a crash is worth retrying.
            if cache and (build.ok or build.error.startswith("TypingError")):
                path = paths[build.cc]
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(json.dumps(build.to_dict(ptx=True)))
                tmp.replace(path)
    return [found[cc] for cc in ccs]


def compile_function(fn: Any, *args: Any, cc: tuple[int, int] = (9, 0)) -> Build:
    """Compile a kernel defined in this process (a notebook cell, a module) for a real GPU.

    Its source is gathered with that of the device functions and constants it uses, then
    compiled as :func:`compile_source` does; results are cached on disk, so checking the
    same kernel again is instant.

    Args:
        fn: The ``@cuda.jit`` kernel (simulated or real) or its Python function.
        *args: Example arguments, as for :func:`compile_source`.
        cc: Target compute capability.

    Returns:
        The :class:`Build`.

    Raises:
        CompilerMissing: If NVIDIA's compiler wheels are not installed.
        ValueError: If the kernel's source cannot be found.
    """
    (build,) = compile_function_for(fn, args, [cc])
    return build


def compile_function_for(
    fn: Any,
    args: Sequence[Any],
    ccs: Sequence[tuple[int, int]],
    compiler: Callable[..., list[Build]] | None = None,
) -> list[Build]:
    """:func:`compile_function` for several capabilities in one child process (``compiler``:
    as for :func:`compile_cached`)."""
    from .gather import function_source

    find_ptxas()  # say that the compiler is missing before looking for the source
    source, kernel = function_source(fn)
    return compile_cached(source, kernel, args, ccs, cache=True, compiler=compiler)


__all__ = [
    "Build",
    "CompilerMissing",
    "compile_function",
    "compile_many",
    "compile_source",
    "describe",
]

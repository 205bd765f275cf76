"""The compiling process: numba.cuda for a real GPU, in a process with no GPU and no simulator.

Run as ``python -m pdc.ptx.worker``: reads a pickled list of jobs on stdin and writes one
JSON line per (job, compute capability) as each is compiled, so the parent can run
``ptxas`` on the first PTX while numba compiles the next. numba asks the current device
for its compute capability when it compiles a device function; with no device that lookup
is pointed at the capability being compiled for.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import linecache
import os
import pickle
import sys
import time
import types
from typing import Any

from pdc.ptx.build import shorten_error


def _patch(cc: tuple[int, int]) -> None:
    import numba.cuda.cudadrv.nvrtc as nvrtc
    import numba.cuda.dispatcher as dispatcher

    nvrtc.get_arch_option = lambda major, minor: f"compute_{major}{minor}"  # type: ignore[attr-defined]
    target = types.SimpleNamespace(compute_capability=tuple(cc))
    dispatcher.get_current_device = lambda: target


def numba_type(desc: tuple) -> Any:
    """The numba type of an argument descriptor made by ``pdc.ptx.compile.describe``."""
    from numba import types as nt
    from numba.cuda.np.numpy_support import from_dtype

    kind = desc[0]
    if kind == "array":
        _, dtype, ndim, layout = desc
        return nt.Array(from_dtype(dtype), ndim, layout)
    if kind == "scalar":
        return from_dtype(desc[1])
    if kind == "type":
        if not isinstance(desc[1], str):
            return desc[1]  # already a numba type
        return eval(desc[1], dict(vars(nt)))  # a numba type string: "float32[:, ::1]"
    raise TypeError(f"[pdc ptx] expected an array, scalar or type descriptor, got {desc!r}")


def _load(job: dict) -> tuple[Any, tuple]:
    if job["kind"] == "call":  # a factory building the kernel (the ring kernels)
        module, _, attr = job["target"].partition(":")
        return getattr(importlib.import_module(module), attr)(**job.get("params", {}))
    filename = job.get("filename") or f"<pdc-ptx {job['name']}>"
    modname = f"_pdc_ptx_{job['id']}"
    mod = types.ModuleType(modname)
    mod.__file__ = filename
    sys.modules[modname] = mod
    # numba quotes the kernel's source lines in its errors: let linecache find them.
    text = job["source"]
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    with eager_signatures_recorded():
        exec(compile(text, filename, "exec"), mod.__dict__)
    if job["kernel"] not in mod.__dict__:
        raise NameError(f"[pdc ptx] the source defines no {job['kernel']!r}")
    obj = mod.__dict__[job["kernel"]]
    fn = getattr(obj, "py_func", obj)
    argtypes = tuple(numba_type(d) for d in job["args"])
    return fn, _eager_match(obj, argtypes)


@contextlib.contextmanager
def eager_signatures_recorded():
    """Kernels jitted with a signature (``@cuda.jit("void(float64[:])")``) compile at once,
    which needs a GPU; while the source runs, record their signatures instead.

    ``cache=True`` asks for an on-disk cache next to the notebook, which a module defined
    from text has no place for (numba: "no locator available"); it changes nothing in the
    code, so while the source runs it is ignored.
    """
    from numba.core.dispatcher import Dispatcher
    from numba.cuda.dispatcher import CUDADispatcher

    real, real_disable = CUDADispatcher.compile, CUDADispatcher.disable_compile
    real_caching = CUDADispatcher.enable_caching, Dispatcher.enable_caching

    def record(self, sig):
        self.__dict__.setdefault("_pdc_eager", []).append(tuple(sig))

    def keep_compiling(self, val=True):
        pass  # nothing was compiled yet: leave the dispatcher able to compile

    def no_cache(self):
        pass

    CUDADispatcher.compile = record  # type: ignore[method-assign]
    CUDADispatcher.disable_compile = keep_compiling  # type: ignore[method-assign]
    CUDADispatcher.enable_caching = no_cache  # type: ignore[method-assign]
    Dispatcher.enable_caching = no_cache  # type: ignore[method-assign]
    try:
        yield
    finally:
        CUDADispatcher.compile = real  # type: ignore[method-assign]
        CUDADispatcher.disable_compile = real_disable  # type: ignore[method-assign]
        CUDADispatcher.enable_caching, Dispatcher.enable_caching = real_caching  # type: ignore[method-assign]


def _eager_match(obj: Any, argtypes: tuple) -> tuple:
    """The argument types to compile for: the kernel's own signature when it was given one.

    A launch with arguments a list of signatures does not accept fails on a GPU as it does
    here: "No matching definition for argument type(s) ...". A kernel given one signature
    (a string, not a list) is launched by numba-cuda without that check: its scalars are
    converted, but an array of another type is read as the signature's type, byte for byte.
    The run would be wrong on a GPU too; the error says what happens instead.
    """
    sigs = getattr(obj, "__dict__", {}).get("_pdc_eager")
    if not sigs:
        return argtypes
    ctx = obj.typingctx
    for sig in sigs:
        if len(sig) == len(argtypes) and all(
            ctx.can_convert(a, f) is not None for a, f in zip(argtypes, sig)
        ):
            return sig
    got = ", ".join(str(a) for a in argtypes)
    want = " or ".join("(" + ", ".join(str(t) for t in s) + ")" for s in sigs)
    if len(sigs) == 1 and getattr(obj, "_specialized", False):
        raise TypeError(
            "numba-cuda launches a kernel jitted with one signature without checking its "
            "arguments: it reads each array's bytes as the signature's type (wrong values, "
            "and reads past the array's end); make the signature match the arrays, or leave "
            f"it out. The launch passes ({got}); the signature is {want}"
        )
    raise TypeError(
        f"No matching definition for argument type(s) {got}: the kernel's signature accepts {want}"
    )


def _failure(exc: BaseException, source: str = "") -> tuple[str, str]:
    full = f"{type(exc).__name__}: {exc}"
    loc = getattr(exc, "loc", None)
    line = getattr(loc, "line", None) if loc is not None else None
    if line is None and isinstance(exc, SyntaxError):
        line = exc.lineno
    return shorten_error(type(exc).__name__, str(exc), source, line), full[:20_000]


def _compile(fn: Any, argtypes: tuple, ccs: list, source: str) -> Any:
    """Yield one result dict per capability: PTX, or the error that stopped it.

    numba's lowering to LLVM IR depends on the capability only below 7.5 (math and atomic
    fallbacks), so for targets at or above it the kernel is typed and lowered once and
    NVVM then generates PTX for each target: the same PTX per-target compiles would give,
    at half the cost.
    """
    from numba import cuda

    try:
        from numba.cuda.compiler import (  # type: ignore[attr-defined]
            _compile_pyfunc_with_fixup as lower,
        )
    except ImportError:  # another numba-cuda: compile each target the public way
        lower = None
    if lower is None or min(ccs) < (7, 5):
        for cc in ccs:
            _patch(cc)
            t0 = time.perf_counter()
            result: dict[str, Any] = {"cc": cc}
            try:
                result["ptx"] = cuda.compile_ptx(fn, argtypes, cc=cc)[0]
            except Exception as exc:
                result["error"], result["full"] = _failure(exc, source)
            result["seconds"] = time.perf_counter() - t0
            yield result
        return
    first = min(ccs)
    _patch(first)
    t0 = time.perf_counter()
    try:
        lib, _ = lower(fn, argtypes, device=False, abi="numba", cc=first)
    except Exception as exc:
        error, full = _failure(exc, source)
        for i, cc in enumerate(ccs):
            spent = time.perf_counter() - t0 if i == 0 else 0.0
            yield {"cc": cc, "error": error, "full": full, "seconds": spent}
        return
    shared = time.perf_counter() - t0
    for cc in ccs:
        _patch(cc)
        t0 = time.perf_counter()
        result = {"cc": cc}
        try:
            codes = lib.get_asm_strs(cc=cc)
            if len(codes) != 1:
                raise RuntimeError(f"[pdc ptx] expected one PTX module, got {len(codes)}")
            result["ptx"] = codes[0]
        except Exception as exc:
            result["error"], result["full"] = _failure(exc, source)
        result["seconds"] = time.perf_counter() - t0 + shared
        shared = 0.0
        yield result


def results(jobs: list[dict]) -> Any:
    """One result dict per job and capability (its ``id``, ``cc``, then ``ptx`` or ``error``
    and ``full``, and ``seconds``), each as soon as it is compiled."""
    for job in jobs:
        ccs = [tuple(cc) for cc in job["ccs"]]
        _patch(ccs[0])
        t0 = time.perf_counter()
        try:
            fn, argtypes = _load(job)
        except Exception as exc:  # the source itself fails: every capability fails alike
            error, full = _failure(exc, job.get("source", ""))
            for cc in ccs:
                yield {"id": job["id"], "cc": cc, "error": error, "full": full}
            continue
        load_s = time.perf_counter() - t0
        for result in _compile(fn, argtypes, ccs, job.get("source", "")):
            result["id"] = job["id"]
            result["seconds"] += load_s
            load_s = 0.0
            yield result


def main() -> int:
    """Compile every job read from stdin; one JSON result line per job and capability."""
    jobs = pickle.load(sys.stdin.buffer)
    for result in results(jobs):
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()
    return 0


# A kernel as a gate's job compiles it: the warm-up of pdc.grade.gate's zygote.
_WARM_UP = """from numba import cuda


@cuda.jit
def warm_up(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1.0
"""


def warm() -> None:
    """Run once in a process that will fork compiling children (pdc.grade.gate's zygote):
    numba-cuda imported and NVVM loaded by one small compile, so each fork only compiles."""
    os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
    job: dict[str, Any] = {"kind": "source", "id": "warm", "name": "warm_up"}
    job.update(source=_WARM_UP, kernel="warm_up", args=[("type", "float32[::1]")])
    fn, argtypes = _load(job)
    for _ in _compile(fn, argtypes, [(8, 0)], _WARM_UP):
        pass


def fork_main(job: dict, out: Any) -> None:
    """In a fork of a warm process (pdc.grade.zygote): compile the jobs of
    ``inputs/jobs.pkl`` as ``main`` does, one JSON line per job and capability in
    ``out/builds.jsonl``, each with the job's nonce."""
    from pathlib import Path

    nonce = job["nonce"]
    jobs = pickle.loads((Path(job["inputs"]) / "jobs.pkl").read_bytes())
    with open(Path(out) / "builds.jsonl", "w") as f:
        for result in results(jobs):
            f.write(json.dumps({**result, "nonce": nonce}) + "\n")
            f.flush()


if __name__ == "__main__":
    os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
    sys.exit(main())

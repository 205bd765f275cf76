"""Run the simulator in a worker process where numba-cuda's real compiler is loaded.

Chapters and tests often run with numba's own CUDA simulator switched on
(``NUMBA_ENABLE_CUDASIM=1``, pdc.numba_cuda() does it when there is no GPU). numba-cuda's
typed IR, which pdc's simulator runs, is only available with the real target, so in such a
process ``pdc.sim.launch`` sends the kernel to one persistent worker process (started on
first use, ``python -m pdc.sim.worker``) and waits for the result.

The kernel travels by value with cloudpickle (so a function defined in a notebook goes
too), together with the constants and device functions it uses and, for a cell's
functions, the source lines only this process's linecache holds; a kernel decorated by
numba's CUDA simulator is sent as its Python function and re-decorated by the worker with
the real ``cuda.jit``. The worker is this process's own child: it runs code this process
already trusts, so plain pickle is the wire format. The grader never uses this path: its
sandboxed child runs the simulator itself.
"""

from __future__ import annotations

import atexit
import io
import os
import pickle
import struct
import subprocess
import sys
import threading
from pathlib import Path

_LOCK = threading.Lock()
_WORKER: subprocess.Popen | None = None
_KEEP = ("numpy", "numba", "math", "builtins", "pdc.")


def _rejit(py_func, device: bool, debug: bool = False):
    from numba import cuda

    if device:
        return cuda.jit(device=True)(py_func)
    # debug=True changes what a failed assert does (pdc.sim.run.debug_of); opt=False as
    # numba-cuda asks of a debug kernel.
    return cuda.jit(debug=True, opt=False)(py_func) if debug else cuda.jit(py_func)


def _renjit(py_func):
    import numba

    return numba.njit(py_func)


def dumps(obj) -> bytes:
    """Pickle ``obj`` with every user function by value and numba decorators re-applied."""
    import cloudpickle

    class Pickler(cloudpickle.Pickler):
        def reducer_override(self, o):
            name = type(o).__name__
            if name == "FakeCUDAKernel":
                return _rejit, (o.fn, bool(o._device), bool(getattr(o, "_debug", False)))
            if name == "CUDADispatcher":
                options = o.targetoptions
                return _rejit, (
                    o.py_func,
                    bool(options.get("device", False)),
                    bool(options.get("debug", False)),
                )
            if name == "CPUDispatcher":
                return _renjit, (o.py_func,)
            return super().reducer_override(o)

    buf = io.BytesIO()
    registered = []
    for mname in _user_modules(obj):
        mod = sys.modules.get(mname)
        if mod is not None:
            try:
                cloudpickle.register_pickle_by_value(mod)
                registered.append(mod)
            except ValueError:
                pass
    try:
        Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    finally:
        for mod in registered:
            cloudpickle.unregister_pickle_by_value(mod)
    return buf.getvalue()


def _reached(obj) -> list:
    """The kernel's Python function and those it reaches through its globals."""
    out: list = []
    seen: set = set()

    def walk(fn):
        fn = getattr(fn, "py_func", None) or getattr(fn, "fn", None) or fn
        if id(fn) in seen or not hasattr(fn, "__code__"):
            return
        seen.add(id(fn))
        out.append(fn)
        g = getattr(fn, "__globals__", {})
        for name in fn.__code__.co_names:
            v = g.get(name)
            if v is not None and (hasattr(v, "__code__") or hasattr(v, "py_func")):
                walk(v)

    walk(obj)
    return out


def _user_modules(obj) -> set:
    """Modules of the kernel and of the functions it reaches (sent by value)."""
    out: set = set()
    for fn in _reached(obj):
        mod = getattr(fn, "__module__", "") or ""
        if mod and mod != "__main__" and not mod.startswith(_KEEP):
            out.add(mod)
    return out


def _sources(obj) -> dict:
    """Source lines of the kernel's files that exist only in this process's linecache (a
    notebook cell's): the worker needs them to count lines from the ``def`` and quote them."""
    import linecache

    out = {}
    for fn in _reached(obj):
        name = fn.__code__.co_filename
        if name not in out and not os.path.exists(name):
            lines = linecache.getlines(name)
            if lines:
                out[name] = lines
    return out


def _send(f, obj) -> None:
    data = obj if isinstance(obj, bytes) else pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    f.write(struct.pack("<Q", len(data)))
    f.write(data)
    f.flush()


def _recv(f):
    head = f.read(8)
    if len(head) < 8:
        raise EOFError("the simulator's worker process ended")
    (n,) = struct.unpack("<Q", head)
    return pickle.loads(f.read(n))


def _start() -> subprocess.Popen:
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    # A session of its own: an interrupt sent to the notebook kernel's process group (the
    # Interrupt button) must not kill the worker between jobs, nor print its traceback;
    # a job that is interrupted is ended by the caller (see launch). It exits when its
    # stdin closes, however the caller ends.
    return subprocess.Popen(
        [sys.executable, "-m", "pdc.sim.worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )


def _stop() -> None:
    global _WORKER
    w, _WORKER = _WORKER, None
    if w is not None and w.poll() is None:
        try:
            if w.stdin is not None:
                w.stdin.close()
            w.wait(timeout=5)
        except Exception:
            w.kill()


atexit.register(_stop)


def warm_soon() -> None:
    """Start the worker and set up numba's CUDA target in it, in the background.

    A notebook that will check kernels calls this when it imports the checks: the worker's
    start (numba's import and its first compile, about two seconds) then overlaps with the
    student's reading, and the first ``check()`` answers as fast as the later ones.
    """

    def run() -> None:
        global _WORKER
        with _LOCK:
            if _WORKER is not None and _WORKER.poll() is None:
                return
            try:
                _WORKER = _start()
                _send(_WORKER.stdin, {"warm": True})
                _recv(_WORKER.stdout)
            except Exception:  # the first launch starts it again and reports what fails
                w, _WORKER = _WORKER, None
                if w is not None:
                    w.kill()

    threading.Thread(target=run, name="pdc-sim-warm", daemon=True).start()


def launch(kernel, grid, block, args, names=None, *, record: bool = False):
    """``pdc.sim.launch`` through the worker process; arrays are updated in place."""
    global _WORKER
    import numpy as np

    from pdc.sim.frontend import python_function
    from pdc.sim.run import debug_of

    fn = python_function(kernel)
    if names is None:
        code = fn.__code__
        names = list(code.co_varnames[: code.co_argcount])
    job = {
        "kernel": dumps(fn),
        "grid": grid,
        "block": block,
        "args": list(args),
        "names": list(names),
        "record": record,
        "debug": debug_of(kernel),
        "sources": _sources(fn),
    }
    with _LOCK:
        for attempt in (0, 1):
            if _WORKER is None or _WORKER.poll() is not None:
                _WORKER = _start()
            try:
                _send(_WORKER.stdin, job)
                reply = _recv(_WORKER.stdout)
                break
            except (BrokenPipeError, EOFError):
                _WORKER = None
                if attempt:
                    raise RuntimeError("[sim.launch] the simulator's worker process died") from None
            except BaseException:
                # An interrupt mid-conversation leaves the pipe out of step: start afresh.
                w, _WORKER = _WORKER, None
                if w is not None:
                    w.kill()
                raise
    if "raise" in reply:
        raise reply["raise"]
    for a, new in zip(args, reply["arrays"]):
        if isinstance(a, np.ndarray) and new is not None:
            a[...] = new
    return reply["report"]

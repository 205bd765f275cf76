"""Which step of preparing CUDA work waits while a ring kernel is resident? (needs a GPU)

    python book/reference/loading_next_to_a_ring.py               # every step, in parallel
    python book/reference/loading_next_to_a_ring.py STEP [--control]   # one step

Each step runs in its own process: a ring kernel is launched and answers (``--control``:
none is), then the step runs on a thread that is given 15 s; one JSON line per step, and
the Python stacks of a step still waiting. ``load_unparked`` loads a cubin with numba's own
``create_module_image`` (no parking); ``load`` and ``jit_launch`` go through pdc's parking.
"""

import faulthandler
import json
import math
import os
import subprocess
import sys
import threading
import time

STEPS = [
    "alloc_device",
    "alloc_mapped",
    "alloc_pinned",
    "ptx",
    "cubin",
    "load_unparked",
    "load",
    "jit_launch",
    "launch_preloaded",
    "ring_b",
]
LIMIT = 15.0
os.environ.setdefault("CUDA_MODULE_LOADING", "EAGER")
from numba import cuda  # noqa: E402  (no driver call until a kernel or array is made)


def f(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * 3.0


def g(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + 7.0


def h(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] - 1.0


def one(step: str, control: bool) -> None:
    os.environ.setdefault("CUDA_MODULE_LOADING", "EAGER")
    import numpy as np

    import pdc
    from pdc.ring import RingKernelRuntime, ring_kernel, select

    REQ = np.dtype([("x", np.float64), ("k", np.int64)])
    REP = np.dtype([("y", np.float64), ("k", np.int64)])

    def scale(req, rep):
        rep.y = req.x * 2.0
        rep.k = req.k
        return select(req.x < 0.0, 7, 0)

    def roots(req, rep):
        rep.y = math.sqrt(req.x)
        rep.k = req.k
        return 0

    assert pdc.numba_cuda() is not None
    from numba.cuda.cudadrv import driver as drv

    sig = "void(float64[:], float64[:])"
    pre = cuda.jit(sig)(f)  # compiled and loaded before any ring
    x = cuda.to_device(np.arange(64.0))
    o = cuda.device_array(64)
    pre[2, 32](x, o)
    cuda.default_stream().synchronize()
    cc = cuda.get_current_device().compute_capability
    ptx_ready, _ = cuda.compile_ptx(f, sig, cc=cc)
    lk = drv._Linker(cc=cc)
    lk.add_ptx(ptx_ready.encode())
    cubin_ready = lk.complete()

    def run():
        if step == "alloc_device":
            cuda.device_array(1 << 22)
        elif step == "alloc_mapped":
            cuda.mapped_array(4096, dtype=np.float64)
        elif step == "alloc_pinned":
            cuda.pinned_array(4096, dtype=np.float64)
        elif step == "ptx":
            cuda.compile_ptx(g, sig, cc=cc)
        elif step == "cubin":
            l2 = drv._Linker(cc=cc)
            l2.add_ptx(ptx_ready.encode())
            l2.complete()
        elif step == "load_unparked":
            ctx = cuda.current_context()
            load = type(ctx).create_module_image
            getattr(load, "__wrapped__", load)(ctx, cubin_ready)
        elif step == "load":
            ctx = cuda.current_context()
            ctx.create_module_image(cubin_ready)
        elif step == "jit_launch":
            k = cuda.jit(h)
            s = cuda.stream()
            k[2, 32, s](x, o)
            s.synchronize()
        elif step == "launch_preloaded":
            s = cuda.stream()
            pre[2, 32, s](x, o)
            s.synchronize()
        elif step == "ring_b":
            b = rt.launch(ring_kernel("b", request=REQ, reply=REP, queue_size=8)(roots))
            assert b.call(x=9.0, k=1, timeout=10).y == 3.0

    out = {"step": step, "control": control}
    with RingKernelRuntime(backend="cuda") as rt:
        if not control:
            a = rt.launch(ring_kernel("a", request=REQ, reply=REP, queue_size=8)(scale))
            assert a.call(x=5.0, k=1, timeout=30).y == 10.0
        box = []

        def target():
            try:
                run()
                box.append(None)
            except BaseException as exc:
                box.append(f"{type(exc).__name__}: {exc}"[:400])

        t0 = time.perf_counter()
        th = threading.Thread(target=target, daemon=True)
        th.start()
        th.join(LIMIT)
        out["seconds"] = round(time.perf_counter() - t0, 3)
        if th.is_alive():
            out["result"] = f"still waiting after {LIMIT} s"
            print(json.dumps(out), flush=True)
            faulthandler.dump_traceback(all_threads=True)
            sys.stderr.flush()
            os._exit(3)
        out["result"] = "ok" if box[0] is None else box[0]
        if not control:
            out["ring_a_after"] = a.call(x=2.0, k=1, timeout=10).y
    print(json.dumps(out), flush=True)


def main() -> None:
    if len(sys.argv) > 1:
        one(sys.argv[1], "--control" in sys.argv)
        return
    procs = []
    for step in STEPS:
        for control in (False, True):
            cmd = [sys.executable, __file__, step] + (["--control"] if control else [])
            procs.append(
                (
                    step,
                    control,
                    subprocess.Popen(
                        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                    ),
                )
            )
    deadline = time.monotonic() + 80
    for step, control, p in procs:
        try:
            out, err = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            out += json.dumps(
                {"step": step, "control": control, "result": "killed at the 80 s deadline"}
            )
        print(out.strip() or json.dumps({"step": step, "control": control, "rc": p.returncode}))
        if p.returncode != 0 or "still" in out:
            tail = "\n".join(ln for ln in err.splitlines() if "File" in ln or "Thread" in ln)
            print("   stderr:", err.strip()[-300:].replace("\n", "\n   "))
            print("   stacks:\n   " + tail[-2500:].replace("\n", "\n   "))


if __name__ == "__main__":
    main()

"""The simulator's worker process (see pdc.sim.remote): jobs on stdin, results on stdout."""

from __future__ import annotations

import linecache
import os
import pickle
import sys


def main() -> int:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
    import numba.cuda  # noqa: F401 - the real target, before anything else imports it

    from pdc.sim import remote
    from pdc.sim.run import launch_here

    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a print in user code must not corrupt the pipe
    kernels: dict = {}  # pickled kernel -> the function: the same bytes reuse numba's typing
    while True:
        try:
            job = remote._recv(inp)
        except EOFError:
            return 0
        if job.get("warm"):
            remote._send(out, _warm())
            continue
        for name, lines in job.get("sources", {}).items():  # notebook cells' source
            linecache.cache[name] = (sum(map(len, lines)), None, lines, name)
        try:
            kernel = kernels.get(job["kernel"])
            if kernel is None:
                kernel = kernels[job["kernel"]] = pickle.loads(job["kernel"])
            args = job["args"]
            rep = launch_here(
                kernel,
                job["grid"],
                job["block"],
                args,
                job["names"],
                job["record"],
                debug=job.get("debug", False),
            )
            arrays = [a if hasattr(a, "shape") and hasattr(a, "dtype") else None for a in args]
            reply = {"arrays": arrays, "report": rep}
        except Exception as e:  # the caller re-raises it
            reply = {"raise": e}
        try:
            remote._send(out, reply)
        except Exception as e:
            remote._send(out, {"raise": RuntimeError(f"[sim.launch] {type(e).__name__}: {e}")})


def _warm() -> dict:
    """Type and run one tiny kernel: numba's CUDA target is then set up for the first job."""
    import numpy as np

    from pdc.sim.run import launch_here

    def warm_up(a):
        a[0] = a[0] + 1

    try:
        launch_here(warm_up, 1, 1, [np.zeros(1, np.float32)])
    except Exception as e:  # warming is an optimisation: the real job reports errors
        return {"warm": repr(e)}
    return {"warm": "ok"}


if __name__ == "__main__":
    sys.exit(main())

"""The simulator's worker survives an interrupt of the notebook's process group."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Run in a process group of its own (start_new_session below): the SIGINT it sends to its
# group, as Jupyter's Interrupt button does to a kernel's, reaches nothing outside the test.
CHILD = textwrap.dedent(
    """
    import os, signal, time
    import numpy as np
    from pdc.sim import remote

    def add_one(a):
        a[0] = a[0] + 1

    remote.launch(add_one, 1, 1, [np.zeros(1, np.float32)])  # the worker is up
    worker = remote._WORKER
    assert os.getpgid(worker.pid) != os.getpgid(0), "the worker shares the caller's group"
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller itself ignores it here
    os.killpg(os.getpgid(0), signal.SIGINT)
    time.sleep(0.5)
    assert worker.poll() is None and remote._WORKER is worker, "the worker was interrupted"
    a = np.zeros(1, np.float32)
    remote.launch(add_one, 1, 1, [a])
    assert a[0] == 1.0
    print("ok")
    """
)


def test_an_interrupt_of_the_callers_group_leaves_the_worker_serving():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    out = subprocess.run(
        [sys.executable, "-c", CHILD],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        start_new_session=True,
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
    assert "KeyboardInterrupt" not in out.stderr  # the worker printed no traceback

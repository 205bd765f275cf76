"""A process forked after a launch holds a copy of the kernel's rings but not its loop: its
copy refuses to send, says why, and never waits; the parent's kernel goes on."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

import pdc.ring as ring

REQ = np.dtype([("x", np.float64)])
REP = np.dtype([("y", np.float64)])


def doubled(req, rep):
    rep.y = req.x * 2


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_a_forked_copy_refuses_and_the_parent_goes_on():
    kdef = ring.ring_kernel(kernel_id="forked", request=REQ, reply=REP, queue_size=8)(doubled)
    with ring.RingKernelRuntime(backend="cpu") as rt:
        k = rt.launch(kdef)
        assert k.call(x=1.0, timeout=30).y == 2.0
        pid = os.fork()
        if pid == 0:  # the child: report by exit code, never return into pytest
            code = 0
            try:
                try:
                    k.call(x=2.0)  # no timeout: it must not wait for a loop that is not here
                    code = 10
                except ring.RingStateError as exc:
                    code = 0 if "launched before a fork" in str(exc) else 11
                try:
                    k.receive(timeout=None)
                    code = code or 12
                except ring.RingTimeoutError as exc:
                    code = code or (0 if "forked after the launch" in str(exc) else 13)
            finally:
                os._exit(code)
        deadline = time.monotonic() + 60
        while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        if done[0] == 0:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the forked child waited for a loop that runs in the parent only")
        assert os.waitstatus_to_exitcode(done[1]) == 0
        assert k.call(x=3.0, timeout=30).y == 6.0

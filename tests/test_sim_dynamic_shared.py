"""A shared array of size 0 on pdc.sim: numba-cuda's dynamic shared memory, which a launch
without a shared-memory size gives no bytes. Every access is out of bounds, as
compute-sanitizer's memcheck reports it, and the simulator goes on to report it."""

import numpy as np
from numba import cuda

import pdc.sim as sim


def reverse_through_dynamic_shared(a, out):
    buf = cuda.shared.array(0, np.float32)
    t = cuda.threadIdx.x
    buf[t] = a[t]
    cuda.syncthreads()
    out[t] = buf[31 - t]
    cuda.atomic.add(buf, t, 1.0)


def test_dynamic_shared_memory_without_bytes_is_out_of_bounds():
    a, out = np.arange(32, dtype=np.float32), np.zeros(32, np.float32)
    rep = sim.launch(reverse_through_dynamic_shared, 1, 32, [a, out])
    oob = rep.findings["oob"]
    assert oob["count"] == 3 * 32  # the store, the load and the atomic of every thread
    assert "write buf[0] outside shape (0,) (dynamic shared memory" in oob["examples"][0]
    assert "read buf[31] outside shape (0,)" in oob["examples"][1]
    # What the load read is undefined, and found as such where it reaches global memory.
    assert "a read outside buf" in rep.findings["uninitialized"]["examples"][0]

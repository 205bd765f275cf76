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
    # What the load read is garbage; it reaches global memory, but the read that made it is
    # the finding (as memcheck reports it), not a second one of another kind.
    assert "uninitialized" not in rep.findings


def halo_past_the_end(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + x[i + 1]  # the last thread reads x[n]


def halo_past_the_end_and_unwritten_shared(x, out):
    s = cuda.shared.array(64, np.float32)
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + x[i + 1] + s[63 - cuda.threadIdx.x]  # no thread wrote s


def test_a_value_read_out_of_range_is_one_finding_where_it_was_read():
    x, out = np.ones(40, np.float32), np.zeros(40, np.float32)
    rep = sim.launch(halo_past_the_end, 2, 32, [x, out])
    assert rep.findings["oob"]["count"] == 1 and "read x[40]" in rep.findings["oob"]["examples"][0]
    assert "uninitialized" not in rep.findings
    # With another source of undefined values in the launch, their use is still reported.
    rep = sim.launch(halo_past_the_end_and_unwritten_shared, 2, 32, [x, out])
    assert rep.findings["oob"]["count"] == 1
    assert rep.findings["uninitialized"]["count"] == 40

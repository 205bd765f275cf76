"""The ring protocol itself, with no engine: layout, host side and the consumer loop.

The consumer loop (``make_serve``) runs here as plain Python in the test's own thread, one
pass at a time, so each step of the protocol can be checked deterministically.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from pdc.ring import protocol as p
from pdc.ring.engines import loop
from pdc.ring.host import rings as ring_host

REQ = np.dtype([("x", np.float32), ("k", np.int64)])  # padding between the fields
REP = np.dtype([("y", np.float64), ("flag", np.bool_)])


def handler(req, rep):
    rep.y = req.x + 0.5
    rep.flag = req.k % 2 == 1
    return 5 if req.k == 13 else 0


def load(ctrl, i):
    return int(ctrl[i])


def store(ctrl, i, v):
    ctrl[i] = v


def pause(ctrl, idle):
    return 0


def nothing():
    pass


PRIMS = loop.Primitives(load, store, load, nothing, store, pause)
SERVE = loop.make_serve(loop.ignore_state(handler), PRIMS, burst=3)


def serve_once(rings):
    """One pass (or a few) of the loop over recarray views; returns the loop's code."""
    arrays = (
        rings.ctrl,
        rings.req_meta,
        rings.req_slots.view(np.recarray),
        rings.rep_meta,
        rings.rep_slots.view(np.recarray),
    )
    return SERVE(*arrays, 1, np.zeros(1))


def test_control_words_sit_on_their_own_cache_lines():
    words = [getattr(p, n) for n in ("STATE", "ACTIVE", "TERMINATE", "ERR_CODE", "ERR_COUNT")]
    words += [p.PROCESSED, p.DROPPED, p.REJECTED, p.BLOCKED, p.SUBMITTED, p.REP_HEAD]
    words += [p.REP_TAIL, p.HEARTBEAT]
    words += [base + lane * p.LINE for base in (p.HEAD, p.TAIL, p.SKIP) for lane in range(2)]
    byte_offsets = [8 * w for w in words]
    assert len(set(byte_offsets)) == len(byte_offsets)
    assert all(off % 64 == 0 for off in byte_offsets)
    assert max(words) < p.CONTROL_WORDS


def test_allocate_uses_the_allocator_and_zeroes_its_memory():
    calls = []

    def alloc(shape, dtype):
        calls.append((shape, np.dtype(dtype)))
        return np.full(shape, 7, dtype) if np.dtype(dtype).names is None else np.empty(shape, dtype)

    rings = p.Rings.allocate(REQ, REP, 4, alloc=alloc)
    assert [c[0] for c in calls] == [(p.CONTROL_WORDS,), (2, 4, 2), (2, 4), (8, 2), (8,)]
    assert all(not a.view(np.uint8).any() for a in rings.arrays())
    assert (rings.capacity, rings.reply_capacity) == (4, 8)
    with pytest.raises(ValueError, match="capacity >= 1, got 0"):
        p.Rings.allocate(REQ, REP, 0)


def test_struct_packing_matches_numpy_layout():
    st = ring_host.record_struct(REQ)
    assert st.size == REQ.itemsize
    buf = np.zeros(1, REQ)
    st.pack_into(memoryview(buf.view(np.uint8)), 0, 1.5, 42)
    assert buf[0]["x"] == 1.5 and buf[0]["k"] == 42


def test_one_message_round_trip_through_the_python_loop():
    rings = p.Rings.allocate(REQ, REP, 4)
    host = ring_host.RingHost(rings)
    assert host.push(p.NORMAL, 1, (2.0, 3))
    assert serve_once(rings) == 0  # paused: nothing handled
    assert rings.state() == p.S_DEACTIVATED and host.replies_ready() == 0
    rings.ctrl[p.ACTIVE] = 1
    assert serve_once(rings) == 2
    assert rings.state() == p.S_ACTIVE
    corr, status, values = host.pop()
    assert (corr, status) == (1, 0)
    assert dict(zip(host.reply_fields, values, strict=True)) == {"y": 2.5, "flag": True}
    assert not rings.rep_slots.view(np.uint8).any()  # consumed slots are zeroed
    assert host.pop() is None
    assert rings.ctrl[p.PROCESSED] == 1 and rings.req_meta[1, 0, 1] == p.DISP_PROCESSED


def test_full_lane_is_refused_and_the_high_lane_goes_first():
    rings = p.Rings.allocate(REQ, REP, 2)
    host = ring_host.RingHost(rings)
    assert host.push(p.NORMAL, 1, (0.0, 0)) and host.push(p.NORMAL, 2, (0.0, 0))
    assert not host.push(p.NORMAL, 3, (0.0, 0))  # full
    assert host.push(p.HIGH, 4, (0.0, 0))
    rings.ctrl[p.ACTIVE] = 1
    serve_once(rings)
    corr, status, recs = host.pop_batch(10)
    assert corr.tolist() == [4, 1, 2]
    assert host.free(p.NORMAL) == 2


def test_burst_limit_and_error_codes_are_counted():
    rings = p.Rings.allocate(REQ, REP, 8)
    host = ring_host.RingHost(rings)
    ids = np.arange(1, 7)
    batch = np.zeros(6, REQ)
    batch["k"] = [10, 11, 12, 13, 14, 13]
    assert host.push_batch(p.NORMAL, ids, batch) == 6
    rings.ctrl[p.ACTIVE] = 1
    serve_once(rings)
    corr, status, recs = host.pop_batch(10)
    assert corr.tolist() == [1, 2, 3, 4, 5, 6] and status.tolist() == [0, 0, 0, 5, 0, 5]
    assert recs["flag"].tolist() == [False, True, False, True, False, True]
    assert (rings.ctrl[p.ERR_COUNT], rings.ctrl[p.ERR_CODE]) == (2, 5)


def test_a_full_reply_ring_stalls_the_device_without_losing_messages():
    rings = p.Rings.allocate(REQ, REP, 4, reply_capacity=2)
    host = ring_host.RingHost(rings)
    host.push_batch(p.NORMAL, np.arange(1, 5), np.zeros(4, REQ))
    rings.ctrl[p.ACTIVE] = 1
    serve_once(rings)
    assert host.replies_ready() == 2 and host.pending(p.NORMAL) == 2
    assert host.pop_batch(10)[0].tolist() == [1, 2]
    serve_once(rings)
    assert host.pop_batch(10)[0].tolist() == [3, 4]


def test_drop_floor_is_served_while_paused():
    rings = p.Rings.allocate(REQ, REP, 4)
    host = ring_host.RingHost(rings)
    host.push_batch(p.NORMAL, np.arange(1, 5), np.zeros(4, REQ))
    floor = host.request_drop(p.NORMAL, 3)
    assert floor == 3
    serve_once(rings)  # paused, yet the drop happens
    assert rings.ctrl[p.DROPPED] == 3 and host.pending(p.NORMAL) == 1
    assert host.dropped_ids(p.NORMAL, 0, floor) == [1, 2, 3]
    assert host.waiting_ids(p.NORMAL) == [4]
    assert rings.ctrl[p.PROCESSED] == 0


def test_asking_again_for_the_same_room_drops_nothing_more():
    # A producer saw the ring full, asked for room for 2; the device dropped one; the
    # producer, seeing it full again before its next write, asks again: the floor, counted
    # from the head, stays where it was (counted from the tail it rose, and a third message
    # was dropped for nothing).
    rings = p.Rings.allocate(REQ, REP, 4)
    host = ring_host.RingHost(rings)
    host.push_batch(p.NORMAL, np.arange(1, 5), np.zeros(4, REQ))
    assert host.request_room(p.NORMAL, 2) == 2
    rings.ctrl[p.SKIP + p.NORMAL * p.LINE] = 1  # as if the device had seen only part of it
    serve_once(rings)
    rings.ctrl[p.SKIP + p.NORMAL * p.LINE] = 2
    assert host.tail(p.NORMAL) == 1
    assert host.request_room(p.NORMAL, 2) == 2  # not 1 + 2
    serve_once(rings)
    assert host.dropped_ids(p.NORMAL, 0, 4) == [1, 2] and host.waiting_ids(p.NORMAL) == [3, 4]
    assert host.request_room(p.NORMAL, 0) == 2 and host.request_room(p.NORMAL, 9) == 4


def test_terminate_leaves_the_loop():
    rings = p.Rings.allocate(REQ, REP, 4)
    rings.ctrl[p.TERMINATE] = 1
    assert serve_once(rings) == 1 and rings.state() == p.S_TERMINATING


def test_import_pdc_ring_imports_no_gpu_library():
    heavy = ["cupy", "numba", "numba.cuda", "numba_cuda", "mlx", "torch"]
    code = (
        "import sys, pdc.ring, pdc; pdc.RingKernelRuntime; pdc.ring_kernel; "
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr

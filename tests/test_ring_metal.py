"""The Metal ring engine: a persistent host dispatcher running handlers on MLX batches.

On Linux MLX runs on its CPU device (``mlx[cpu]``); on a Mac the same tests run on the Metal
GPU. Skipped, with the reason, where MLX is not installed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pdc.ring import RingKernelRuntime, ring_kernel, select
from pdc.ring.engines.base import EngineOptions, engine_class
from pdc.ring.handlers import HandlerSpec
from pdc.ring.protocol import Rings

REQ = np.dtype([("x", np.float64), ("k", np.int64)])
REP = np.dtype([("y", np.float64), ("k", np.int64), ("z", np.float64)])
PACKED = np.dtype([("tag", np.int8), ("x", np.float64), ("k", np.int64)])  # x at offset 1


def scale(req, rep):
    rep.y = req.x * 2.0
    rep.k = req.k
    return 0


def maths(req, rep):
    rep.y = math.sqrt(math.fabs(req.x)) + math.atan2(req.x, 2.0) + math.exp(-math.fabs(req.x))
    rep.z = select(req.x > 1.5, math.floor(req.x), math.pi)
    rep.k = 3  # a constant: broadcast to every message
    return select(req.k % 3 == 0, req.k, 0)  # an error code per message


def packed(req, rep):
    rep.y = req.x + req.tag
    rep.k = req.k
    return 0


@pytest.fixture(scope="module")
def metal_engine():
    try:
        return engine_class("metal")
    except ImportError as exc:
        pytest.skip(f"the metal ring engine does not import here: {exc}")


def requests(n, dtype=REQ):
    b = np.zeros(n, dtype)
    b["x"] = np.linspace(-3.0, 3.0, n)
    b["k"] = np.arange(n)
    return b


def run(definition, batch, extra=None):
    with RingKernelRuntime(backend="metal", options=EngineOptions(extra=extra or {})) as rt:
        k = rt.launch(definition)
        k.send_batch(batch)
        r = k.receive_batch(len(batch), timeout=60)
        return k, r


def test_messages_are_handled_in_batches_in_place(metal_engine):
    n = 3_000
    k, r = run(ring_kernel(request=REQ, reply=REP, queue_size=n)(scale), requests(n))
    order = np.argsort(r.records["k"])
    assert np.array_equal(r.records["y"][order], requests(n)["x"] * 2.0)
    assert (r.records["z"] == 0).all()  # not assigned: stays 0
    engine = k.engine
    assert engine.launches == 1
    assert 1 <= engine.batches < n / 10  # batches, not one dispatch per message
    assert engine.zero_copy_fields == ["x", "k"]  # read straight from the ring's memory
    t = k.telemetry()
    assert (t.processed, t.errors) == (n, 0)


def test_math_select_and_per_message_error_codes_match_numpy(metal_engine):
    n = 64
    req = requests(n)
    k, r = run(ring_kernel(request=REQ, reply=REP, queue_size=n)(maths), req)
    order = np.argsort(r.records["k"])
    got, status = r.records[order], r.status[order]
    x, kk = req["x"], req["k"]
    y = np.sqrt(np.abs(x)) + np.arctan2(x, 2.0) + np.exp(-np.abs(x))
    np.testing.assert_allclose(got["y"], y, rtol=1e-6)
    np.testing.assert_allclose(got["z"], np.where(x > 1.5, np.floor(x), math.pi), rtol=1e-6)
    assert (got["k"] == 3).all()
    expected = np.where(kk % 3 == 0, kk, 0)
    assert status.tolist() == expected.tolist()
    t = k.telemetry()
    assert t.errors == np.count_nonzero(expected)
    assert t.last_error in set(expected[expected != 0].tolist())


def test_packed_records_are_aligned_in_the_rings_and_still_right(metal_engine):
    n = 100
    req = requests(n, PACKED)
    req["tag"] = 1
    k, r = run(ring_kernel(request=PACKED, reply=REP, queue_size=n)(packed), req)
    assert k.spec.request.fields["x"][1] == 8  # aligned: x at byte 8, not byte 1
    assert set(k.engine.zero_copy_fields) == {"tag", "x", "k"}
    order = np.argsort(r.records["k"])
    assert np.array_equal(r.records["y"][order], req["x"] + 1)


@pytest.mark.parametrize("compiled", [True, False])
def test_compiled_and_plain_batches_agree(metal_engine, compiled):
    n = 500
    extra = {"compile": compiled, "batch": 64}
    k, r = run(ring_kernel(request=REQ, reply=REP, queue_size=n)(maths), requests(n), extra)
    assert k.engine.compiled is compiled
    assert k.engine.batches >= n // 64
    order = np.argsort(r.records["k"])
    x = requests(n)["x"]
    np.testing.assert_allclose(r.records["z"][order], np.where(x > 1.5, np.floor(x), math.pi))


def test_math_without_an_mlx_equivalent_names_the_backend(metal_engine):
    from pdc.ring.engines.metal import mlx_math

    m = mlx_math()
    assert m.sqrt is not None
    with pytest.raises(TypeError, match=r"\[ring metal\] math\.gamma .*metal backend"):
        m.gamma  # noqa: B018 - the attribute access is the test


def test_pure_python_handlers_are_refused(metal_engine):
    spec = HandlerSpec.create(scale, REQ, REP, python=True)
    options = EngineOptions(queue_size=4)
    rings = Rings.allocate(REQ, REP, 4, alloc=metal_engine.allocator(options))
    with pytest.raises(TypeError, match=r"\[ring metal\] pure-Python handlers"):
        metal_engine(rings, spec, options)


def test_rings_live_in_mlx_memory(metal_engine):
    from pdc.ring.engines.mlx_memory import mlx_buffer

    options = EngineOptions(queue_size=8)
    rings = Rings.allocate(REQ, REP, 8, alloc=metal_engine.allocator(options))
    buf = mlx_buffer(rings.req_slots)
    assert type(buf).__module__.startswith("mlx")
    rings.req_slots["x"][0, 3] = 2.5  # a host store is seen by MLX, no copy
    import mlx.core as mx

    col = buf.view(mx.float64).reshape(16, 2)[:, 0]
    assert col[3].item() == 2.5

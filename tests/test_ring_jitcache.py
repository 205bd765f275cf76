"""pdc.ring.protocol.jitcache: the cpu ring's generated numba code kept on disk.

Each case runs fresh processes on one cache folder: the first compiles the shared loop, the
host's compiled ``call`` and the doorbell's probe and keeps them; a later one must load all
three (no compile) and still answer right; other message types or loop options must not
load them; corrupted or unwritable files must only cost a compile.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pdc.ring.protocol import jitcache

ROOT = Path(__file__).resolve().parents[1]

_RUN = r"""
import builtins, json, sys
builtins.input = lambda prompt="": ""  # as a Jupyter kernel does: nothing may pickle builtins
import numpy as np
from pdc.ring import EngineOptions, RingKernelRuntime, ring_kernel
from pdc.ring.engines import cpu, doorbell, shared_loop
from pdc.ring.host import fast

kind, spin, mode, SCALE = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
f = "f4" if kind == "f4" else "f8"
REQ = np.dtype([("x", f)])
REP = np.dtype([("y", f), ("n", "f8" if kind == "nf8" else "i8")])
STATE = np.dtype([("total", "f8")])


@ring_kernel(request=REQ, reply=REP, state=STATE, queue_size=16)
def running(req, rep, state):
    state.total = state.total + req.x
    rep.y = req.x * SCALE
    rep.n = state.total


opts = EngineOptions(shared_loop=mode == "shared", spin=spin)
with RingKernelRuntime(backend="cpu", options=opts) as rt:
    k = rt.launch(running)
    got = [k.call(x=float(v), timeout=30) for v in (1, 2, 3)]
    k.deactivate()
loops = list(shared_loop._LOOPS.values()) + list(cpu._LOOPS.values())
calls = list(fast._CACHE.values())
handlers = [e.dispatcher for e in shared_loop._ENTRIES.values()]
pieces = loops + calls + [doorbell._napping] + handlers
print(json.dumps({
    "y": [float(r.y) for r in got],
    "n": [int(r.n) for r in got],
    "misses": sum(sum(d._cache_misses.values()) for d in pieces),
    "hits": sum(sum(d._cache_hits.values()) for d in pieces),
    "pieces": len(pieces),
}))
"""


def _run(
    cache: Path,
    kind: str = "f8",
    spin: int = 64,
    mode: str = "shared",
    scale: float = 2.0,
    **env_extra: str,
) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(cache), **env_extra)
    script = cache / "run_ring.py"  # a file: the ring reads its handlers' source
    script.write_text(_RUN)
    out = subprocess.run(
        [sys.executable, str(script), kind, str(spin), mode, repr(scale)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "jitcache" not in out.stderr, out.stderr[-3000:]  # no piece it could not keep
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["y"] == [scale, 2 * scale, 3 * scale] and got["n"] == [1, 3, 6], got
    return got


def _files(cache: Path) -> list[Path]:
    return sorted((cache / "pdc" / "ring").glob("*.nb[ic]"))


def test_a_second_process_loads_what_the_first_compiled(tmp_path):
    first = _run(tmp_path)
    assert first["pieces"] == 4 and first["misses"] == 4 and first["hits"] == 0, first
    assert len(_files(tmp_path)) == 8  # an index and a data file per piece, the handler too
    again = _run(tmp_path)
    assert again["misses"] == 0 and again["hits"] == 4, again
    # Other message types and other loop options are other pieces: nothing to load for
    # the loop and the call (the doorbell's probe does not depend on them).
    other = _run(tmp_path, kind="f4")
    assert other["misses"] == 3 and other["hits"] == 1, other
    # The same layout with another field type: the host's generated call has the same
    # source text, and must not be loaded (it would read n's bits as the wrong type).
    layout = _run(tmp_path, kind="nf8")
    assert layout["misses"] == 3 and layout["hits"] == 1, layout
    spin = _run(tmp_path, spin=8)
    assert spin["misses"] == 1 and spin["hits"] == 3, spin  # only the loop depends on spin


def test_a_handler_is_kept_by_its_source_and_constants(tmp_path):
    """The loop that inlines its handler: kept per handler. Another value of a constant the
    handler reads is another handler (a stale build would reply with the old scale)."""
    first = _run(tmp_path, mode="inlined")
    assert first["misses"] == 3 and first["hits"] == 0, first
    again = _run(tmp_path, mode="inlined")
    assert again["misses"] == 0 and again["hits"] == 3, again
    other = _run(tmp_path, mode="inlined", scale=3.0)  # the replies are checked: x * 3
    assert other["misses"] == 1 and other["hits"] == 2, other


def test_corrupted_files_cost_a_compile_and_are_replaced(tmp_path):
    _run(tmp_path)
    files = _files(tmp_path)
    for k, path in enumerate(files):
        data = path.read_bytes()
        # Garbage, a truncated file and an empty one, in turn.
        path.write_bytes([b"\x80\x05garbage" * 7, data[: len(data) // 2], b""][k % 3])
    broken = _run(tmp_path)
    assert broken["misses"] == 4 and broken["hits"] == 0, broken
    assert _run(tmp_path)["hits"] == 4  # written again, whole


def test_a_folder_that_cannot_be_made_only_costs_compiles(tmp_path):
    (tmp_path / "pdc").mkdir()
    (tmp_path / "pdc" / "ring").write_text("a file where the folder should be")
    got = _run(tmp_path)  # neither raises nor warns: each process compiles
    assert got["misses"] == 4 and got["hits"] == 0, got


def test_the_cache_can_be_turned_off(tmp_path):
    _run(tmp_path, PDC_RING_CACHE="0")
    assert not (tmp_path / "pdc" / "ring").exists()


def test_every_runtime_module_is_in_the_digest(tmp_path, monkeypatch):
    """An edit anywhere in pdc.ring (a loop primitive the cached loop calls, say) makes
    every kept piece stale: numba alone would look at the cached function's own file."""
    base = jitcache.ring_digest()
    ring = Path(jitcache.__file__).parents[1]
    sources = sorted(ring.rglob("*.py"))
    assert any("cpu_prims" in p.name for p in sources) and len(sources) > 30
    copy = tmp_path / "ring"
    for path in sources:
        dest = copy / path.relative_to(ring)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(path.read_bytes())
    monkeypatch.setattr(jitcache, "__file__", str(copy / "protocol" / "jitcache.py"))
    monkeypatch.setattr(jitcache, "_DIGEST", [])
    assert jitcache.ring_digest() == base  # the same text, the same digest
    prims = copy / "engines" / "cpu_prims.py"
    prims.write_text(prims.read_text() + "\n# an edit\n")
    monkeypatch.setattr(jitcache, "_DIGEST", [])
    assert jitcache.ring_digest() != base


def test_key_parts_must_be_plain_values():
    import numba

    @numba.njit
    def f(x):
        return x

    with pytest.raises(
        TypeError, match=r"\[pdc.ring.protocol.jitcache\] expected key parts .* got object"
    ):
        jitcache.keep(f, "piece", object())
    jitcache.keep(f, "piece", np.dtype("f4"), (1, 2.0, None))  # accepted


def test_numbas_code_settings_are_in_the_digest(monkeypatch):
    """Bounds checks or another optimisation level make other machine code: not loaded."""
    from numba.core import config

    monkeypatch.setattr(jitcache, "_DIGEST", [])
    base = jitcache.ring_digest()
    monkeypatch.setattr(config, "BOUNDSCHECK", 1)
    monkeypatch.setattr(jitcache, "_DIGEST", [])
    assert jitcache.ring_digest() != base


def test_files_not_written_for_a_month_are_removed_at_the_first_save(tmp_path, monkeypatch):
    import time

    import numba

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(jitcache, "_PRUNED", [])
    folder = tmp_path / "pdc" / "ring"
    folder.mkdir(parents=True)
    old, recent = folder / "old-abc.py311.nbi", folder / "recent-abc.py311.nbi"
    for path in (old, recent):
        path.write_bytes(b"x")
    month = time.time() - (jitcache.MAX_AGE_DAYS + 1) * 86400
    os.utime(old, (month, month))

    @numba.njit
    def piece(x):
        return x + 1

    jitcache.keep(piece, "a piece of this test", str(tmp_path))
    assert piece(1) == 2  # compiled and saved: the first save prunes
    assert not old.exists() and recent.exists()
    assert len(_files(tmp_path)) == 3  # the recent file, and the new piece's two

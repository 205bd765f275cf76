"""The compile gate gives the same verdicts forked from its warm zygote as in a fresh worker."""

from __future__ import annotations

import re
import secrets

import numpy as np
import pytest

from pdc.grade import gate, zygote
from pdc.ptx import CompilerMissing, compile_many
from pdc.ptx.build import find_ptxas

try:
    find_ptxas()
except CompilerMissing:  # pragma: no cover - the course's environment installs it
    pytest.skip("NVIDIA's compiler wheels are not installed", allow_module_level=True)

GOOD = """from numba import cuda


@cuda.jit
def k(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1.0
"""
UNTYPED = GOOD.replace("a[i] += 1.0", "a[i] += 'x'")
UNDEFINED = GOOD.replace("a[i] += 1.0", "a[i] += missing_name")
TOO_MUCH_SHARED = """from numba import cuda, float32


@cuda.jit
def k(a):
    s = cuda.shared.array(60000, float32)
    i = cuda.grid(1)
    s[i] = 1.0
    cuda.syncthreads()
    if i < a.size:
        a[i] = s[(i + 1) % 60000]
"""
MODULE_FAILS = "import numpy_that_is_not_there\n" + GOOD


def _jobs():
    tag = f"\n# {secrets.token_hex(8)}\n"  # no verdict kept on disk answers these
    a = np.zeros(8, np.float32)
    return [
        (name, text + tag, "k", [a])
        for name, text in [
            ("good", GOOD),
            ("untyped", UNTYPED),
            ("undefined", UNDEFINED),
            ("shared", TOO_MUCH_SHARED),
            ("module", MODULE_FAILS),
        ]
    ]


@pytest.mark.skipif(not zygote.enabled(), reason="zygotes are used on Linux only")
def test_warm_gate_gives_a_fresh_workers_verdicts():
    jobs = _jobs()
    warm = gate._compile_warm(jobs, (gate.CC,), gate.COMPILE_TIMEOUT_S)
    fresh = compile_many(jobs, ccs=(gate.CC,), workers=1)
    assert warm is not None
    got = {b.name: (b.ok, b.error) for b in warm}
    want = {b.name: (b.ok, b.error) for b in fresh}
    assert got == want
    assert got["good"] == (True, "")
    assert not any(got[n][0] for n in ("untyped", "undefined", "shared", "module"))
    # Refused by the assembler, after numba compiled it, in the words a student can read.
    assert got["shared"][1] == (
        "ptxas: Entry function 'shared' uses too much shared data (240000 bytes, at most 49152)"
    )
    assert not re.search(r"_Z\w{8}|0x[0-9a-f]", got["shared"][1])
    assert "missing_name" in got["undefined"][1]


def test_without_zygotes_the_gate_uses_a_fresh_worker(monkeypatch):
    monkeypatch.setenv("PDC_GRADE_ZYGOTE", "0")
    assert gate._compile_warm(_jobs(), (gate.CC,), 60.0) is None
    out = gate.check_compiles(_jobs()[:2])
    assert out["good"] is None and out["untyped"]

"""Every Triton kernel of the course compiles for a real GPU (sm_80, sm_90), checked without one.

Triton lowers a kernel for any NVIDIA target with no GPU and ships its own ``ptxas``; these
tests need the ``triton`` package only (Linux).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from pdc.ptx import triton_kernels
from pdc.ptx.triton_build import TRITON_CCS, installed

ROOT = Path(__file__).resolve().parents[1]
needs_triton = pytest.mark.skipif(not installed(), reason="Triton is not installed (Linux only)")

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=mask), mask=mask)
"""


@needs_triton
@pytest.mark.timeout(600)
def test_every_course_triton_kernel_compiles_for_sm80_and_sm90_without_spills():
    builds, rows = triton_kernels.builds(ROOT, list(TRITON_CCS))
    assert not rows, rows  # nothing unlisted, nothing listed and missing
    bad = [f"{b.name} {b.where} sm_{b.cc[0]}{b.cc[1]}: {b.error}" for b in builds if not b.ok]
    assert not bad, "\n".join(bad)
    assert not [b.name for b in builds if b.spills]
    built = {(b.where.split(":")[0], b.name, b.cc) for b in builds}
    listed = {(path, name) for path, names in triton_kernels.TRITON.items() for name in names}
    assert {(p, n, cc) for p, n in listed for cc in TRITON_CCS} == built
    for b in builds:
        assert b.registers > 0 and b.shared_bytes >= 0, b
    # The matmul stages its tiles through shared memory; the softmax only exchanges per warp.
    by = {(b.where.split(":")[0], b.name, b.cc): b for b in builds}
    assert by["notebooks/11_triton.ipynb", "matmul_kernel", (9, 0)].shared_bytes >= 16 * 1024


def test_unlisted_and_missing_triton_kernels_are_reported(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "extra.py").write_text(KERNEL)
    jobs, rows = triton_kernels.jobs(tmp_path, [(8, 0)])
    assert jobs == []
    status = {(r["name"], r["status"]) for r in rows}
    assert ("scale_kernel", "unlisted") in status
    assert ("softmax_kernel", "missing") in status


def test_triton_kernels_are_not_taken_for_numba_kernels(tmp_path):
    from pdc.ptx.discover import discover

    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    assert discover(path, tmp_path) == []
    assert set(triton_kernels.find(path)) == {"scale_kernel"}


def _load(tmp_path):
    path = tmp_path / "scale_mod.py"
    path.write_text(KERNEL)
    spec = importlib.util.spec_from_file_location("scale_mod", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["scale_mod"] = module
    spec.loader.exec_module(module)
    return module.scale_kernel


@needs_triton
def test_resources_accepts_a_triton_kernel(tmp_path):
    import pdc

    kernel = _load(tmp_path)
    x = np.zeros(4096, np.float32)
    r = pdc.resources(kernel, x, x, 4096, BLOCK=1024, num_warps=4)
    assert r.ok and r.sm90.cc == (9, 0) and r.sm80.cc == (8, 0)
    assert r.sm90.registers > 0 and r.block == 128 and r.occupancy is not None
    assert "scale_kernel:" in str(r) and "occupancy on an H100" in str(r)
    with pytest.raises(ValueError, match="expected 3 arguments"):
        pdc.resources(kernel, x, x, BLOCK=1024)


@needs_triton
def test_divisibility_hints_give_vector_loads(tmp_path):
    from pdc.ptx.triton_build import triton_builds

    kernel = _load(tmp_path)
    x = np.zeros(4096, np.float32)
    ((plain, p),) = triton_builds(kernel, (x, x, 4096), {"BLOCK": 1024}, [(9, 0)], keep=("ptx",))
    ((hinted, h),) = triton_builds(
        kernel,
        (x, x, 4096),
        {"BLOCK": 1024},
        [(9, 0)],
        keep=("ptx",),
        divisible=("x_ptr", "out_ptr", "n"),
    )
    assert plain.ok and hinted.ok
    assert "ld.global.v4" not in p["ptx"] and "ld.global.v4" in h["ptx"]


COMPILE_ERROR_SCRIPT = """
from pdc.ptx.triton_build import run_jobs

src = '''
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(x_ptr + r[:, None] * BLOCK + r[None, :]).to(tl.float64)
    acc = tl.dot(a, a, tl.zeros((BLOCK, BLOCK), tl.float64))
    tl.store(x_ptr + r[:, None] * BLOCK + r[None, :], acc.to(tl.float32))
'''
job = {"signature": {"x_ptr": "*fp32"}, "constexprs": {"BLOCK": 16}, "num_warps": 4,
       "source": src, "name": "k", "ccs": [(8, 0)]}
print(run_jobs([job])[0]["build"]["error"])
"""


@needs_triton
def test_a_compile_error_names_the_kernel_line_not_the_caret_under_it():
    import subprocess

    run = subprocess.run(
        [sys.executable, "-c", COMPILE_ERROR_SCRIPT],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode == 0, run.stderr[-2000:]
    error = run.stdout.strip().splitlines()[-1]
    # Triton's message ends with a line holding a caret only: the line it points to is kept
    assert error.startswith("kernel line 4: acc = tl.dot(a, a"), error

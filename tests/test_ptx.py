"""Every kernel of the course compiles for a real GPU (sm_80, sm_90), checked without one.

These need NVIDIA's compiler wheels (``nvidia-cuda-nvcc-cu12``, ``nvidia-cuda-nvrtc-cu12``,
in the ``dev`` extra), not a GPU.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pdc.ptx import CompilerMissing, compile_many, find_ptxas
from pdc.ptx.build import parse_ptxas
from pdc.ptx.cli import DEFAULT_CCS
from pdc.ptx.manifest import KERNELS, find_all

ROOT = Path(__file__).resolve().parents[1]

try:
    find_ptxas()
    MISSING = ""
except CompilerMissing as exc:
    MISSING = str(exc)
needs_compiler = pytest.mark.skipif(bool(MISSING), reason=MISSING or "compiler present")


@pytest.fixture
def course():
    """``pdc ptx --json`` over the whole course (minutes: one test reads it)."""
    out = subprocess.run(
        [sys.executable, "-m", "pdc", "ptx", "--json"],
        capture_output=True,
        text=True,
        timeout=1200,
        cwd=ROOT,
    )
    assert out.stdout, out.stderr[-3000:]
    return out.returncode, json.loads(out.stdout)


# Ten targets for the course, two for the suite's own kernels: about 95 s alone on 2 cores,
# two to three minutes beside the rest of the suite.
@needs_compiler
@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_every_course_kernel_compiles_for_every_target_and_every_found_kernel_is_listed(course):
    code, report = course
    bad = [r for r in report["rows"] if r["status"] not in ("ok", "skip", "known")]
    assert not bad, "\n".join(f"{r['name']} {r['where']}: {r['status']} {r['note']}" for r in bad)
    assert code == 0
    assert report["summary"]["failed"] == 0 and report["summary"]["spills"] == 0
    built = {(r["name"], r["arch"]) for r in report["rows"] if r["status"] == "ok"}
    archs = {f"sm_{a}{b}" for a, b in DEFAULT_CCS}
    for name in ("matmul_tiled", "blur2d_tiled", "block_sum", "ring detect", "launch_per_message"):
        assert {(name, arch) for arch in archs} <= built
    # The Triton kernels (chapter 11, exercises 12-13), for the targets Triton is tuned for.
    for name in ("add_kernel", "softmax_kernel", "matmul_kernel"):
        assert {(name, "sm_80"), (name, "sm_90")} <= built
    # The suite's own kernels: for the targets its GPU runs use, and those only.
    suite = {r["arch"] for r in report["rows"] if r["where"].startswith("tests/") and "arch" in r}
    assert suite == {"sm_80", "sm_90"}
    # Chapter 5's float atomics: the one known failure, on Blackwell only, with its reason.
    known = {(r["name"], r["arch"]) for r in report["rows"] if r["status"] == "known"}
    blackwell = {a for a in archs if int(a[3:]) >= 100}
    assert known == {(n, a) for n in ("total_per_element", "total_per_thread") for a in blackwell}
    assert {("total_per_element", "sm_90"), ("total_per_thread", "sm_75")} <= built
    # Every listed kernel is found, and every found kernel has a row: built, or skipped with
    # its reason (checked here, on the one report: a second test would build it again on a
    # worker of its own).
    found = {(f.path, f.name) for f in find_all(ROOT)}
    listed = {(path, name) for path, names in KERNELS.items() for name in names}
    assert listed <= found
    rows = {(r["where"].split(":")[0], r["name"].removeprefix("ring ")) for r in report["rows"]}
    assert found <= rows


@needs_compiler
def test_default_targets_cover_every_target_newer_than_hopper_the_toolchain_knows():
    code = (
        "import os; os.environ['NUMBA_ENABLE_CUDASIM'] = '0'\n"
        "from numba.cuda.cudadrv import nvrtc\n"
        "print([list(cc) for cc in nvrtc.get_supported_ccs()])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    known = {tuple(cc) for cc in json.loads(out.stdout.strip().splitlines()[-1])}
    assert {cc for cc in known if cc > (9, 0)} <= set(DEFAULT_CCS)
    assert {(7, 5), (8, 0), (8, 6), (8, 9), (9, 0)} <= set(DEFAULT_CCS) <= known


def test_discovery_flags_a_kernel_missing_from_the_manifest(tmp_path):
    from pdc.ptx.manifest import jobs_for

    path = tmp_path / "new.py"
    path.write_text("from numba import cuda\n\n@cuda.jit\ndef fresh(x):\n    x[0] = 1\n")
    from pdc.ptx.discover import discover

    jobs, rows = jobs_for(discover(path, tmp_path), [(9, 0)])
    assert [(r["name"], r["status"]) for r in rows if r["where"].startswith("new.py")] == [
        ("fresh", "unlisted")
    ]


WRONG = """
import numpy as np
from numba import cuda, float32

TILE = 16
HALO = TILE + 2 * 1


def helper(v):
    return v * 2


@cuda.jit
def runtime_shared(x, n):
    s = cuda.shared.array(n, float32)
    s[0] = x[0]
    x[0] = s[0]


@cuda.jit
def calls_plain_function(x):
    i = cuda.grid(1)
    x[i] = helper(x[i])


@cuda.jit
def local_matmul(x):
    a = cuda.local.array((2, 2), float32)
    b = cuda.local.array((2, 2), float32)
    c = a @ b
    x[0] = c[0, 0]


@cuda.jit
def tiled(a, out):
    tile = cuda.shared.array((HALO, HALO), float32)  # 18 * 18 * 4 = 1296 bytes
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = tile[tx, ty]
"""


@needs_compiler
def test_what_only_a_real_compile_rejects_fails_with_a_short_error():
    x1 = np.zeros(8, np.float32)
    x2 = np.zeros((4, 4), np.float32)
    jobs = [
        ("runtime_shared", WRONG, "runtime_shared", [x1, 4]),
        ("calls_plain_function", WRONG, "calls_plain_function", [x1]),
        ("local_matmul", WRONG, "local_matmul", [x1]),
        ("tiled", WRONG, "tiled", [x2, x2]),
    ]
    shared, plain, matmul, tiled = compile_many(jobs, ccs=[(9, 0)])
    for b in (shared, plain, matmul):
        assert not b.ok and b.error.startswith("TypingError") and len(b.error) < 400
        assert "\n" not in b.error
    assert "shared.array" in shared.error and "cuda.shared.array(n, float32)" in shared.error
    assert "helper" in plain.error and "helper(x[i])" in plain.error
    assert "matmul" in matmul.error and "a @ b" in matmul.error
    # A constant-shaped tile: real figures from ptxas.
    assert tiled.ok, tiled.error
    assert tiled.shared_bytes == 18 * 18 * 4
    assert 0 < tiled.registers <= 255 and tiled.spills == 0
    assert tiled.summary().startswith("tiled: ") and "1.3 KiB shared, 0 spills" in tiled.summary()
    assert tiled.occupancy(256).occupancy == 1.0


def test_ptxas_report_is_parsed_for_the_entry_function():
    text = (
        "ptxas info    : Function properties for helper\n"
        "    16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
        "ptxas info    : Compiling entry function '_Z6kernel' for 'sm_90'\n"
        "ptxas info    : Function properties for _Z6kernel\n"
        "    32 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
        "ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem\n"
    )
    assert parse_ptxas(text) == {
        "registers": 40,
        "shared_bytes": 2048,
        "local_bytes": 32,
        "spill_stores": 12,  # spills anywhere count against the kernel
        "spill_loads": 12,
    }


@needs_compiler
def test_pdc_ptx_on_one_notebook_uses_the_exercise_cases(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "pdc", "ptx", "--cc", "90", "solutions/03_matmul.ipynb"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    tiled = [ln for ln in out.stdout.splitlines() if ln.startswith("matmul_tiled ")]
    assert len(tiled) == 1 and "sm_90" in tiled[0] and " 2048 " in tiled[0]
    assert "sm_80" not in out.stdout


LIVE = """
import numpy as np
import pdc

cuda = pdc.numba_cuda()
from numba import float32

TILE = 16
R = 1
HALO = TILE + 2 * R


@cuda.jit(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


def twice_py(v):
    return v * float32(2.0)


twice = cuda.jit(device=True)(twice_py)


@cuda.jit
def halo_blur(img, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    tile[ty, tx] = img[clamp(ty, 0, img.shape[0] - 1), clamp(tx, 0, img.shape[1] - 1)]
    cuda.syncthreads()
    out[ty, tx] = twice(tile[ty, tx])
"""


@needs_compiler
def test_resources_of_a_kernel_defined_in_this_process(tmp_path, monkeypatch):
    import importlib.util

    import pdc

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "live_kernels.py"
    path.write_text(LIVE)
    spec = importlib.util.spec_from_file_location("live_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    img = np.zeros((16, 16), np.float32)
    r = pdc.resources(mod.halo_blur, img, img, block=(16, 16))
    assert r.ok and r.sm90.cc == (9, 0) and r.sm80.cc == (8, 0)
    assert r.sm90.shared_bytes == 18 * 18 * 4 and r.sm90.registers > 0
    assert str(r).startswith("halo_blur: ") and "on an H100 (block 16 x 16)" in str(r)
    assert r.occupancy is not None and r.occupancy.blocks_per_sm >= 1
    cached = list((tmp_path / "cache" / "pdc" / "ptx").glob("*.json"))
    assert len(cached) == 2  # one per architecture: asking again compiles nothing
    again = pdc.resources(mod.halo_blur, img, img, block=(16, 16))
    assert again.sm90.registers == r.sm90.registers
    assert pytest.raises(ValueError, pdc.resources, mod.halo_blur, img, img, block=2048)


def _not_compiled(a, b, out):
    out[0] = a[0] * b[0]


def test_missing_compiler_wheels_are_named_with_the_install_command(monkeypatch):
    import pdc.ptx.build as build
    from pdc.ptx import compile_source
    from pdc.ptx.resources import check_line

    monkeypatch.setattr(build, "_site_dirs", lambda: [])
    monkeypatch.setattr(build.shutil, "which", lambda name: None)
    with pytest.raises(CompilerMissing, match=r"pip install nvidia-cuda-nvcc-cu12==12\.9\.86"):
        compile_source(WRONG, "tiled", [np.zeros((4, 4), np.float32)] * 2)
    line = check_line(_not_compiled, [np.zeros(8, np.float32)] * 3, (256,))
    assert line.startswith("Real-GPU resources: not shown") and "nvidia-cuda-nvrtc-cu12" in line

"""Build the wrong submissions graded by tests/test_grade_submissions.py.

Each case takes the student notebook of one exercise (exercises/), puts a buggy or cheating
kernel where the stub was, optionally adds top-level cells, and writes
``tests/submissions/<case>/<exercise>.ipynb`` plus ``expect.json``: the criteria that must
fail, those that must still pass, and a phrase the feedback must contain.

Run ``.venv/bin/python tests/submissions/build.py [EXERCISE_OR_CASE ...]`` after changing a case
or an exercise (no arguments: every case).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from review_cases import CASES as REVIEW_CASES  # noqa: E402 - a sibling file, not a package
from strict_cases import CASES as STRICT_CASES  # noqa: E402


def _exercise_cases() -> dict:
    """Cases of the later exercises: one sibling file ``cases_<exercise>.py`` each."""
    import importlib

    found: dict = {}
    for path in sorted(HERE.glob("cases_*.py")):
        found.update(importlib.import_module(path.stem).CASES)
    return found


CASES = {
    # -- bugs the checker must catch ----------------------------------------------------------
    "no_bounds_guard": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden", "bounds"],  # out of range fails the case, as on a GPU
        passes=[],
        reason="outside shape",
        kernel="""
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    out[i] = a[i] * b[i]  # no guard: threads past the end read and write out of bounds
""",
    ),
    "serial_saxpy": dict(
        exercise="01_elementwise",
        part="saxpy",
        fail=["parallel"],
        passes=["public", "hidden", "bounds"],
        reason="one thread stored",
        kernel="""
@cuda.jit
def saxpy(alpha, x, y, out):
    if cuda.grid(1) == 0:  # thread 0 does everything, the others idle
        for i in range(out.size):
            out[i] = alpha * x[i] + y[i]
""",
    ),
    "conv1d_negative_index": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["public", "bounds"],
        passes=[],
        reason="differs at",  # numba wraps x[-1] to the last element: a wrong value
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = 0.0
        for j in range(w.size):
            if i + r - j < x.size:  # right border only: negative indices wrap in NumPy
                acc += w[j] * x[i + r - j]
        out[i] = acc
""",
    ),
    "conv1d_off_by_one": dict(
        exercise="02_conv1d",
        part="conv1d",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def conv1d(x, w, out):
    i = cuda.grid(1)
    if i < out.size:
        r = w.size // 2
        acc = 0.0
        for j in range(w.size):
            src = i + r - j
            if 0 < src < x.size:  # off by one: skips x[0]
                acc += w[j] * x[src]
        out[i] = acc
""",
    ),
    "blur_zero_border": dict(
        exercise="04_conv2d",
        part="blur2d",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        kernel="""
@cuda.jit
def blur2d(img, w, out):
    col, row = cuda.grid(2)
    h, wd = img.shape
    if row < h and col < wd:
        r = w.shape[0] // 2
        acc = 0.0
        for dy in range(w.shape[0]):
            for dx in range(w.shape[1]):
                y, x = row + dy - r, col + dx - r
                if 0 <= y < h and 0 <= x < wd:  # zero padding, not replicated edges
                    acc += w[dy, dx] * img[y, x]
        out[row, col] = acc
""",
    ),
    "blur_tiled_no_sync": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        fail=["sync"],
        passes=[],
        reason="no barrier in between",
        kernel="""
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((HALO, HALO), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col0 = cuda.blockIdx.x * TILE - R
    row0 = cuda.blockIdx.y * TILE - R
    h, wd = img.shape
    for ly in range(ty, TILE + 2 * R, TILE):
        y = min(max(row0 + ly, 0), h - 1)
        for lx in range(tx, TILE + 2 * R, TILE):
            x = min(max(col0 + lx, 0), wd - 1)
            tile[ly, lx] = img[y, x]
    # missing cuda.syncthreads(): neighbours may not have loaded their part yet
    row, col = row0 + R + ty, col0 + R + tx
    if row < h and col < wd:
        acc = 0.0
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                acc += w[dy, dx] * tile[ty + dy, tx + dx]
        out[row, col] = acc
""",
    ),
    "blur_tiled_global_reads": dict(
        exercise="04_conv2d",
        part="blur2d_tiled",
        fail=["memory"],
        passes=["public", "hidden", "bounds", "sync"],
        reason="global loads per output",
        kernel="""
@cuda.jit
def blur2d_tiled(img, w, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    col, row = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    h, wd = img.shape
    if row < h and col < wd:
        acc = 0.0
        for dy in range(2 * R + 1):  # every tap still comes from global memory
            y = min(max(row + dy - R, 0), h - 1)
            for dx in range(2 * R + 1):
                x = min(max(col + dx - R, 0), wd - 1)
                acc += w[dy, dx] * img[y, x]
        tile[ty, tx] = acc  # shared memory used only as a detour
        out[row, col] = tile[ty, tx]
""",
    ),
    "matmul_tiled_no_shared": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["memory"],
        passes=["public", "hidden", "bounds"],
        reason="no shared memory",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    col, row = cuda.grid(2)  # the naive kernel under the tiled name
    if row < C.shape[0] and col < C.shape[1]:
        acc = 0.0
        for k in range(A.shape[1]):
            acc += A[row, k] * B[k, col]
        C[row, col] = acc
""",
    ),
    "matmul_tiled_missing_sync": dict(
        exercise="03_matmul",
        part="matmul_tiled",
        fail=["sync"],
        passes=[],
        reason="no barrier in between",
        kernel="""
@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    m, kk = A.shape
    n = B.shape[1]
    acc = 0.0
    for t in range((kk + TILE - 1) // TILE):
        k = t * TILE + tx
        sA[ty, tx] = A[row, k] if row < m and k < kk else 0.0
        k = t * TILE + ty
        sB[ty, tx] = B[k, col] if k < kk and col < n else 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[ty, j] * sB[j, tx]
        # missing second syncthreads(): the next tile overwrites values still being read
    if row < m and col < n:
        C[row, col] = acc
""",
    ),
    "reduction_divergent_sync": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["sync"],
        passes=["public", "hidden"],
        reason="is not reached by every thread of the block",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
            cuda.syncthreads()  # inside the branch: half the block never gets here
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "reduction_no_sync": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["sync"],
        passes=[],
        reason="no barrier in between",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        stride //= 2  # no barrier between the steps of the tree
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "reduction_serial": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["parallel"],
        passes=["public", "hidden", "sync"],
        reason="one thread made",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    if t == 0:  # thread 0 adds all TPB values by itself
        acc = 0.0
        for j in range(TPB):
            acc += s[j]
        partial[cuda.blockIdx.x] = acc
""",
    ),
    "reduction_wrong_tail": dict(
        exercise="05_reduction",
        part="block_sum",
        fail=["public"],
        passes=[],
        reason="read of uninitialised memory",
        kernel="""
@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.size:
        s[t] = x[i]  # the last block's tail is never zeroed
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
""",
    ),
    "infinite_loop": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="timed out",
        kernel="""
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    while True:
        i += 0
""",
    ),
    # -- attacks: none may gain a point ------------------------------------------------------
    "attack_allclose": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden", "bounds", "parallel"],
        passes=[],
        reason="differs at",
        extra_cells=[
            """
import numpy
numpy.allclose = lambda *a, **k: True
numpy.isclose = lambda a, b, *args, **kw: numpy.ones(numpy.shape(b), dtype=bool)
numpy.testing.assert_allclose = lambda *a, **k: None
"""
        ],
    ),
    "attack_patch_grader": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="differs at",
        extra_cells=[
            """
import pdc.grade.judge as judge
import pdc.grade.grader as grader
judge.case_problem = lambda *a, **k: None
grader.judge = lambda part, results, expected: []
import pickle
pickle.dump = lambda *a, **k: None
"""
        ],
    ),
    "attack_kernel_import": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="IMPORT_NAME",
        kernel="""
@cuda.jit
def multiply(a, b, out):
    import numpy
    numpy.isclose = lambda *args, **kw: True
""",
    ),
    "attack_dunder_escape": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="Unknown attribute '__globals__'",
        kernel="""
@cuda.jit
def multiply(a, b, out):
    g = multiply.__globals__
    os = g["__builtins__"]["__import__"]("os")
    os._exit(0)
""",
    ),
    "attack_exit": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="Untyped global name 'exit'",
        extra_cells=[
            """
import sys, os
sys.exit(0)
os._exit(0)
"""
        ],
        kernel="""
@cuda.jit
def multiply(a, b, out):
    exit(0)
""",
    ),
    "attack_fake_results": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="Untyped global name 'open'",
        extra_cells=[
            """
import glob, json, os, tempfile
import numpy as np
# Try to plant result files where a grader might look for them.
for d in glob.glob(os.path.join(tempfile.gettempdir(), "pdc-grade-*", "out-*")):
    for k in range(10):
        np.savez(os.path.join(d, f"c{k}.npz"), out_out=np.zeros(1000, np.float32))
        open(os.path.join(d, f"c{k}.json"), "w").write(json.dumps({"case": f"c{k}"}))
open("results.json", "w").write(json.dumps({"score": 100, "max_score": 100}))
"""
        ],
        kernel="""
@cuda.jit
def multiply(a, b, out):
    f = open("results.json", "w")
    f.write("full marks")
""",
    ),
    # numba-cuda's kernel returns at a raise without debug=True: an assert used as the
    # guard is a guard on a GPU (hol13_normalize_assert_as_guard earns full marks), and one
    # that stops a thread before its store loses that output.
    "assert_stops_a_thread_before_its_store": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["public", "hidden"],
        passes=[],
        reason="the thread stops there silently",
        kernel="""
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        assert i < out.size - 1, "the last element is not mine"
        out[i] = a[i] * b[i]
""",
    ),
    "attack_hidden_leak": dict(
        exercise="01_elementwise",
        part="multiply",
        fail=["hidden"],
        passes=["public"],
        reason="hidden case",
        kernel="""
@cuda.jit
def multiply(a, b, out):
    i = cuda.grid(1)
    if out.size != 1000 and out.size != 256 and out.size != 1:  # not a public size
        q = i // (out.size - out.size)  # raises here, and the message names the size
    if i < out.size:
        out[i] = a[i] * b[i]
""",
    ),
}

RING_OK_HEAD = """@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    count = state.count
    n = count + 1.0
    delta = req.x - state.mean
    mean = state.mean + delta / n
"""

RING_OK_TAIL = """    std = math.sqrt(var)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    state.m2 = state.m2 + delta * (req.x - mean)
    state.mean = mean
    state.count = n
    rep.count = n
    rep.mean = mean
    rep.z = z
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
"""

RING_SAMPLE_VAR = """    var = state.m2 / select(count > 1.0, count - 1.0, 1.0)
"""

CASES.update(
    {
        "ring_population_variance": dict(
            exercise="06_ring",
            part="detect",
            fail=["public", "hidden"],
            passes=[],
            reason="(z) differs: expected",
            kernel=RING_OK_HEAD
            + """    var = state.m2 / select(count > 0.0, count, 1.0)  # population, not sample
"""
            + RING_OK_TAIL,
        ),
        "ring_state_reset_each_message": dict(
            exercise="06_ring",
            part="detect",
            fail=["public", "hidden"],
            passes=[],
            reason="reply 2 (count) differs: expected 2, got 1; the state after 1 reading",
            kernel="""@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    state.count = 0.0  # starts over at every message: the actor forgets
    state.mean = 0.0
    state.m2 = 0.0
    n = state.count + 1.0
    delta = req.x - state.mean
    mean = state.mean + delta / n
    state.m2 = state.m2 + delta * (req.x - mean)
    state.mean = mean
    state.count = n
    rep.count = n
    rep.mean = mean
    rep.z = 0.0
    rep.flag = 0
""",
        ),
        "ring_state_not_updated": dict(
            exercise="06_ring",
            part="detect",
            fail=["public", "hidden"],
            passes=[],
            reason="reply 2 (count) differs",
            kernel=RING_OK_HEAD
            + RING_SAMPLE_VAR
            + """    std = math.sqrt(var)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    rep.count = n  # replies as if it had updated the state, but never stores it
    rep.mean = mean
    rep.z = z
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
""",
        ),
        "ring_mean_updated_before_delta": dict(
            exercise="06_ring",
            part="detect",
            fail=["public", "hidden"],
            passes=[],
            reason="differs: expected",
            kernel="""@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep, state):
    count = state.count
    n = count + 1.0
    state.mean = state.mean + (req.x - state.mean) / n  # the new mean first...
    delta = req.x - state.mean  # ...so delta is measured from the new mean
    mean = state.mean
    var = state.m2 / select(count > 1.0, count - 1.0, 1.0)
    std = math.sqrt(var)
    z = select(std > 0.0, delta / select(std > 0.0, std, 1.0), 0.0)
    state.m2 = state.m2 + delta * (req.x - mean)
    state.count = n
    rep.count = n
    rep.mean = mean
    rep.z = z
    rep.flag = select(count >= MIN_COUNT, select(abs(z) > THRESHOLD, 1, 0), 0)
""",
        ),
        "ring_error_code": dict(
            exercise="06_ring",
            part="detect",
            fail=["public", "hidden", "telemetry"],
            passes=[],
            reason="error code 3",
            kernel=RING_OK_HEAD
            + """    rep.z = 0.0
    return 3
""",
        ),
        "ring_if_statement": dict(
            exercise="06_ring",
            part="detect",
            fail=["public", "hidden"],
            passes=[],
            reason="rejected",
            kernel=RING_OK_HEAD
            + """    if count > 1.0:
        rep.z = delta
""",
        ),
        "ring_stateless_signature": dict(
            exercise="06_ring",
            part="detect",
            fail=["public", "hidden"],
            passes=[],
            reason="rejected",
            kernel="""@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req, rep):
    rep.count = 1.0
""",
        ),
        "attack_ring_import": dict(
            exercise="06_ring",
            part="detect",
            fail=["public", "hidden"],
            passes=[],
            reason="not allowed in a ring handler",
            kernel=RING_OK_HEAD
            + """    import os
    os._exit(0)
""",
        ),
        "attack_ring_annotation": dict(
            exercise="06_ring",
            part="detect",
            fail=["public", "hidden"],
            passes=[],
            reason="must be declared",
            kernel="""@ring_kernel(request=REQUEST, reply=REPLY, state=STATE, queue_size=1024)
def detect(req: print("runs when defined"), rep, state):
    rep.z = 0.0
""",
        ),
    }
)


def stub_notebook(exercise: str):
    return nbformat.read(str(ROOT / "exercises" / f"{exercise}.ipynb"), as_version=4)


def _with_kernel(exercise: str, part: str, kernel: str | None, extra_cells=(), extra_after=()):
    nb = stub_notebook(exercise)
    at = 2  # without a kernel: after the setup cell
    if kernel is not None:
        pattern = re.compile(rf"^def {part}\(", re.M)
        cells = [c for c in nb.cells if c.cell_type == "code" and pattern.search(c.source)]
        cells[0].source = kernel.strip()
        at = nb.cells.index(cells[0])  # a student's own cells go just above the kernel's
    # Deliberately wrong code, built from the stubs: keep the linter out of it.
    nb.cells[1].source = "# ruff: noqa\n" + nb.cells[1].source
    for src in reversed(extra_cells):
        nb.cells.insert(at, nbformat.v4.new_code_cell(src.strip()))
    for src in extra_after:
        nb.cells.append(nbformat.v4.new_code_cell(src.strip()))
    for k, c in enumerate(nb.cells):  # stable cell ids keep the files reproducible
        c.id = f"cell-{k}"
    return nb


def build(only: list[str] | None = None) -> None:
    """Write every case's folder, or only the cases whose exercise or name is in ``only``."""
    for name, case in {**CASES, **STRICT_CASES, **REVIEW_CASES, **_exercise_cases()}.items():
        if only and name not in only and case["exercise"] not in only:
            continue
        folder = HERE / name
        folder.mkdir(exist_ok=True)
        files = case.get("files") or {f"{case['exercise']}.ipynb": case.get("kernel")}
        for fname, kernel in files.items():
            extra = case.get("extra_cells", []), case.get("extra_after", [])
            nb = _with_kernel(case["exercise"], case["part"], kernel, *extra)
            nbformat.write(nb, str(folder / fname))
        keys = ("exercise", "part", "fail", "passes", "reason", "full", "warning", "timeout")
        keys += ("gaming",)  # the measure a gaming attempt tries to fool
        expect = {k: case[k] for k in keys if k in case}
        (folder / "expect.json").write_text(json.dumps(expect, indent=2) + "\n")


if __name__ == "__main__":
    build(sys.argv[1:])

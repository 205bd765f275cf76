"""In-chapter practice: each check passes with its model answer, fails with the stub, and
fails with the wrong answers students really write (``WRONG_ANSWERS``, each keeping the
stub's comments, so a check that searched the source text would be fooled by them).

The stub is taken from the committed notebook: the code cell tagged ``practice`` holds it and
the next code cell calls ``check("chNN.name", function)``. A stub cell may use ``np``,
``math``, ``pdc`` and ``cuda`` (numba's CUDA module, the simulator without a GPU) and
anything it imports or defines itself.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import pdc
from pdc.course import practice

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

CHAPTERS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
CHECK_CALL = re.compile(r"""check\(\s*["']([\w.]+)["']\s*,\s*(\w+)\s*\)""")


def _code_cells(path: Path) -> list[dict]:
    cells = json.loads(path.read_text())["cells"]
    return [c for c in cells if c["cell_type"] == "code"]


def practice_pairs(path: Path) -> list[tuple[str, str, str]]:
    """(exercise name, stub cell source, function name) for each practice cell of a notebook."""
    cells = _code_cells(path)
    pairs = []
    for cell, nxt in zip(cells, cells[1:], strict=False):
        if "practice" not in cell.get("metadata", {}).get("tags", []):
            continue
        match = CHECK_CALL.search("".join(nxt["source"]))
        assert match, f"{path.name}: the cell after a practice cell must call check(name, fn)"
        pairs.append((match.group(1), "".join(cell["source"]), match.group(2)))
    return pairs


ALL_PAIRS = [(p.name, *pair) for p in CHAPTERS for pair in practice_pairs(p)]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_every_chapter_has_two_practice_cells(path):
    names = [name for name, _, _ in practice_pairs(path)]
    assert len(names) >= 2, f"{path.name} has {len(names)} practice cells, expected at least 2"
    assert len(set(names)) == len(names), f"{path.name} checks one exercise twice: {names}"
    chapter = "ch" + path.name[:2]
    assert all(n.startswith(chapter + ".") for n in names), (
        f"{path.name}: exercise names must start with {chapter}., got {names}"
    )


@pytest.mark.parametrize(
    ("notebook", "name", "source", "function"),
    ALL_PAIRS,
    ids=[f"{nb}:{name}" for nb, name, _, _ in ALL_PAIRS],
)
def test_stub_fails_and_answer_passes(notebook, name, source, function):
    namespace = _namespace()
    exec(compile(source, f"<{notebook} practice cell>", "exec"), namespace)
    stub = namespace[function]
    passed, feedback = practice.run(name, stub)
    assert not passed, f"{name}: the untouched stub passes its check ({feedback})"
    assert feedback, f"{name}: a failing check must say why"
    passed, feedback = practice.run(name, practice.get(name).answer)
    assert passed, f"{name}: the model answer fails its own check: {feedback}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_every_registered_exercise_is_in_its_chapter(path):
    chapter = "ch" + path.name[:2]
    if not (Path(practice.__file__).parent / f"{chapter}.py").exists():
        pytest.skip(f"no pdc/course/practice/{chapter}.py")
    in_notebook = {name for name, _, _ in practice_pairs(path)}
    missing = set(practice.registered(chapter)) - in_notebook
    assert not missing, f"{path.name} has no practice cell for {sorted(missing)}"


def test_check_prints_feedback_and_never_raises(capsys):
    practice.check("ch01.saxpy", lambda a, x, y: 1 / 0)
    practice.check("ch01.saxpy", "not a function")
    practice.check("ch99.nothing", print)
    out = capsys.readouterr().out
    assert "your code raised ZeroDivisionError" in out
    assert "expected a function, got str" in out
    assert "no module pdc.course.practice.ch99" in out


def test_check_names_the_mistake(capsys):
    practice.check("ch01.bandwidth", lambda n, s: 2 * 4 * n / s / 1e9)
    practice.check("ch02.blocks", lambda n, b: n // b)
    practice.check("ch01.saxpy", lambda a, x, y: a * x + y)
    out = capsys.readouterr().out
    assert "y is read AND written" in out
    assert "floor division leaves the last" in out
    assert "[ch01.saxpy] correct" in out


def test_reveal_prints_the_answer_source(capsys):
    practice.reveal("ch05.sign_counts")
    out = capsys.readouterr().out
    assert out.startswith("@cuda.jit\ndef sign_counts(x, counts):")
    assert "cuda.atomic.add" in out


# For every practice cell, answers students really write that must fail: each keeps the
# stub's own comment (a check that searched the text would find its words there) and each is
# right on the values a quick test would try, or nearly so.
WRONG_ANSWERS = {
    "ch01.saxpy": [
        "def saxpy_numpy(a, x, y):\n"
        "    # TODO: return a * x + y as a new float32 array\n"
        "    y *= a\n"
        "    y += x\n"
        "    return y\n",
        "def saxpy_numpy(a, x, y):\n"
        "    # TODO: return a * x + y as a new float32 array\n"
        "    return np.float64(a) * x + y\n",
    ],
    "ch01.bandwidth": [
        "def saxpy_gbs(n, seconds):\n"
        "    # TODO: bytes moved per second, in GB/s\n"
        "    return 2 * 4 * n / seconds / 1e9\n",
    ],
    "ch02.blocks": [
        "def blocks_for(n, block):\n"
        "    # TODO: the ceiling of n / block, in integer arithmetic\n"
        "    return n // block + 1\n",
        "def blocks_for(n, block):\n"
        "    # TODO: the ceiling of n / block, in integer arithmetic\n"
        "    return math.ceil(n / block) * 1.0\n",
    ],
    "ch02.grid2d": [
        "def grid_2d(width, height, block_x, block_y):\n"
        "    # TODO: return (blocks along x, blocks along y)\n"
        "    return (height + block_y - 1) // block_y, (width + block_x - 1) // block_x\n",
        "def grid_2d(width, height, block_x, block_y):\n"
        "    # TODO: return (blocks along x, blocks along y)\n"
        "    return width // block_x, height // block_y\n",
    ],
    "ch03.copy_time": [
        "def copy_time(nbytes, pieces, bandwidth, overhead_s):\n"
        "    # TODO: fixed costs plus the time on the wire\n"
        "    return overhead_s + nbytes / bandwidth\n",
    ],
    "ch03.sectors": [
        "def sectors_for_stride(stride):\n"
        "    # TODO: count distinct byte_address // 32 over the 32 threads\n"
        "    return 4 * stride  # no cap: 32 loads touch at most 32 sectors\n",
    ],
    "ch04.relu": [  # right values, no guard: a GPU writes past the end of out silently
        "@cuda.jit\n"
        "def relu_kernel(x, out):\n"
        "    # TODO: take i = cuda.grid(1), guard it, then write max(x[i], np.float32(0.0)) to out[i]\n"
        "    # (a bare 0.0 is a float64, and max would compute in float64: chapter 5 shows why it matters)\n"
        "    i = cuda.grid(1)\n"
        "    out[i] = max(x[i], np.float32(0.0))\n",
        "@cuda.jit\n"
        "def relu_kernel(x, out):\n"
        "    # TODO: take i = cuda.grid(1), guard it, then write max(x[i], np.float32(0.0)) to out[i]\n"
        "    # (a bare 0.0 is a float64, and max would compute in float64: chapter 5 shows why it matters)\n"
        "    i = cuda.grid(1)\n"
        "    if i <= x.size:  # off by one\n"
        "        out[i] = max(x[i], np.float32(0.0))\n",
    ],
    "ch04.scale_rows": [
        "@cuda.jit\n"
        "def scale_rows(a, factors, out):\n"
        "    col, row = cuda.grid(2)\n"
        "    # TODO: guard row and col against a.shape, then scale the element by its row's factor\n"
        "    out[row, col] = a[row, col] * factors[row]\n",
        "@cuda.jit\n"
        "def scale_rows(a, factors, out):\n"
        "    col, row = cuda.grid(2)\n"
        "    # TODO: guard row and col against a.shape, then scale the element by its row's factor\n"
        "    if row < a.shape[0]:  # the columns are not guarded\n"
        "        out[row, col] = a[row, col] * factors[row]\n",
    ],
    "ch04.softmax_xp": [
        "def softmax_rows(xp, x):\n"
        "    # TODO: subtract each row's maximum, take xp.exp, divide by each row's sum.\n"
        "    e = np.exp(x - x.max(axis=1, keepdims=True))  # NumPy's exp: not on the GPU\n"
        "    return e / e.sum(axis=1, keepdims=True)\n",
        "def softmax_rows(xp, x):\n"
        "    # TODO: subtract each row's maximum, take xp.exp, divide by each row's sum.\n"
        "    e = xp.exp(x)  # no subtraction: exp(1000) overflows\n"
        "    return e / e.sum(axis=1, keepdims=True)\n",
        "def softmax_rows(xp, x):\n"
        "    # TODO: subtract each row's maximum, take xp.exp, divide by each row's sum.\n"
        "    e = xp.exp(x - x.max())  # one maximum for the whole array\n"
        "    return e / e.sum(axis=1, keepdims=True)\n",
    ],
    "ch05.reverse_blocks": [  # no barrier: the simulator reports the race
        "@cuda.jit\n"
        "def reverse_blocks(x, out):\n"
        "    # TODO: load x[cuda.grid(1)] into a shared array of BLOCK floats at slot threadIdx.x,\n"
        "    # wait for the block, then write slot BLOCK - 1 - threadIdx.x to out[cuda.grid(1)].\n"
        "    tile = cuda.shared.array(BLOCK, float32)\n"
        "    t = cuda.threadIdx.x\n"
        "    i = cuda.grid(1)\n"
        "    tile[t] = x[i]\n"
        "    out[i] = tile[BLOCK - 1 - t]\n",
        "@cuda.jit\n"
        "def reverse_blocks(x, out):\n"
        "    # TODO: load x[cuda.grid(1)] into a shared array of BLOCK floats at slot threadIdx.x,\n"
        "    # wait for the block, then write slot BLOCK - 1 - threadIdx.x to out[cuda.grid(1)].\n"
        "    tile = cuda.shared.array(BLOCK, float32)\n"
        "    t = cuda.threadIdx.x\n"
        "    i = cuda.grid(1)\n"
        "    tile[t] = x[i]\n"
        "    if t < 32:  # a barrier only half the block reaches\n"
        "        cuda.syncthreads()\n"
        "    out[i] = tile[BLOCK - 1 - t]\n",
    ],
    "ch05.sign_counts": [  # races, too many atomics, too few threads, zeros as positives
        "@cuda.jit\n"
        "def sign_counts(x, counts):\n"
        "    # TODO: a grid-stride loop that counts this thread's negatives, zeros and positives in\n"
        "    # three registers; then add them to counts[0], counts[1] and counts[2] atomically.\n"
        "    negative = 0\n"
        "    zero = 0\n"
        "    positive = 0\n"
        "    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):\n"
        "        if x[i] < 0:\n"
        "            negative += 1\n"
        "        elif x[i] > 0:\n"
        "            positive += 1\n"
        "        else:\n"
        "            zero += 1\n"
        "    counts[0] += negative  # not atomic: the threads race\n"
        "    counts[1] += zero\n"
        "    counts[2] += positive\n",
        "@cuda.jit\n"
        "def sign_counts(x, counts):\n"
        "    # TODO: a grid-stride loop that counts this thread's negatives, zeros and positives in\n"
        "    # three registers; then add them to counts[0], counts[1] and counts[2] atomically.\n"
        "    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):\n"
        "        if x[i] < 0:\n"
        "            cuda.atomic.add(counts, 0, 1)  # 1000 atomics on 3 addresses\n"
        "        elif x[i] > 0:\n"
        "            cuda.atomic.add(counts, 2, 1)\n"
        "        else:\n"
        "            cuda.atomic.add(counts, 1, 1)\n",
        "@cuda.jit\n"
        "def sign_counts(x, counts):\n"
        "    # TODO: a grid-stride loop that counts this thread's negatives, zeros and positives in\n"
        "    # three registers; then add them to counts[0], counts[1] and counts[2] atomically.\n"
        "    i = cuda.grid(1)\n"
        "    if i < x.size:  # one value per thread: 64 of 1000\n"
        "        if x[i] < 0:\n"
        "            cuda.atomic.add(counts, 0, 1)\n"
        "        elif x[i] > 0:\n"
        "            cuda.atomic.add(counts, 2, 1)\n"
        "        else:\n"
        "            cuda.atomic.add(counts, 1, 1)\n",
        "@cuda.jit\n"
        "def sign_counts(x, counts):\n"
        "    # TODO: a grid-stride loop that counts this thread's negatives, zeros and positives in\n"
        "    # three registers; then add them to counts[0], counts[1] and counts[2] atomically.\n"
        "    negative = 0\n"
        "    positive = 0\n"
        "    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):\n"
        "        if x[i] < 0:\n"
        "            negative += 1\n"
        "        else:  # zeros land among the positives\n"
        "            positive += 1\n"
        "    cuda.atomic.add(counts, 0, negative)\n"
        "    cuda.atomic.add(counts, 2, positive)\n",
    ],
    "ch05.may_overlap": [
        "def may_overlap(first: str, second: str) -> bool:\n"
        '    """Whether pending work on stream `second` may run while the work on `first` runs."""\n'
        "    # FILL ME IN: the legacy default stream is special\n"
        "    return first != second and 'default' not in (first, second)  # forgets the exemption\n",
        "def may_overlap(first: str, second: str) -> bool:\n"
        '    """Whether pending work on stream `second` may run while the work on `first` runs."""\n'
        "    # FILL ME IN: the legacy default stream is special\n"
        "    return first != second and first != 'default'  # only earlier default work blocks\n",
    ],
    "ch05.warp_max": [
        "@cuda.jit\n"
        "def warp_max(x, out):\n"
        "    # TODO: v = x[cuda.grid(1)]; for offset 16, 8, 4, 2, 1 take the max of v and\n"
        "    # cuda.shfl_down_sync(FULL_MASK, v, offset); lane 0 writes out[cuda.grid(1) // 32].\n"
        "    v = x[cuda.grid(1)]\n"
        "    lane = cuda.threadIdx.x % 32\n"
        "    offset = 16\n"
        "    while offset > 0:\n"
        "        if lane < offset:  # only the lanes that keep a result: the others skip it\n"
        "            v = max(v, cuda.shfl_down_sync(FULL_MASK, v, offset))\n"
        "        offset //= 2\n"
        "    if lane == 0:\n"
        "        out[cuda.grid(1) // 32] = v\n",
        "@cuda.jit\n"
        "def warp_max(x, out):\n"
        "    # TODO: v = x[cuda.grid(1)]; for offset 16, 8, 4, 2, 1 take the max of v and\n"
        "    # cuda.shfl_down_sync(FULL_MASK, v, offset); lane 0 writes out[cuda.grid(1) // 32].\n"
        "    v = x[cuda.grid(1)]\n"
        "    offset = 16\n"
        "    while offset > 0:\n"
        "        v = max(v, cuda.shfl_down_sync(FULL_MASK, v, offset))\n"
        "        offset //= 2\n"
        "    out[cuda.grid(1) // 32] = v  # every lane writes: a race\n",
        "@cuda.jit\n"
        "def warp_max(x, out):\n"
        "    # TODO: v = x[cuda.grid(1)]; for offset 16, 8, 4, 2, 1 take the max of v and\n"
        "    # cuda.shfl_down_sync(FULL_MASK, v, offset); lane 0 writes out[cuda.grid(1) // 32].\n"
        "    v = x[cuda.grid(1)]\n"
        "    offset = 16\n"
        "    while offset > 1:  # stops one step early\n"
        "        v = max(v, cuda.shfl_down_sync(FULL_MASK, v, offset))\n"
        "        offset //= 2\n"
        "    if cuda.threadIdx.x % 32 == 0:\n"
        "        out[cuda.grid(1) // 32] = v\n",
    ],
    "ch05.shift_left": [
        "@cuda.jit\n"
        "def shift_left(x, out):\n"
        "    # TODO: fix the findings the check reports (there are several).\n"
        "    tile = cuda.shared.array(65, float32)\n"
        "    t = cuda.threadIdx.x\n"
        "    i = cuda.grid(1)\n"
        "    if i < x.size:  # guarded, but no barrier\n"
        "        tile[t] = x[i]\n"
        "    if t == 63 and i + 1 < x.size:\n"
        "        tile[64] = x[i + 1]\n"
        "    if i < x.size:\n"
        "        out[i] = tile[t + 1]\n",
        "@cuda.jit\n"
        "def shift_left(x, out):\n"
        "    # TODO: fix the findings the check reports (there are several).\n"
        "    tile = cuda.shared.array(65, float32)\n"
        "    t = cuda.threadIdx.x\n"
        "    i = cuda.grid(1)\n"
        "    if i < x.size:\n"
        "        tile[t] = x[i]\n"
        "        if t == 63 and i + 1 < x.size:\n"
        "            tile[64] = x[i + 1]\n"
        "        cuda.syncthreads()  # inside the guard: the overhanging threads skip it\n"
        "        out[i] = tile[t + 1]\n",
        "@cuda.jit\n"
        "def shift_left(x, out):\n"
        "    # TODO: fix the findings the check reports (there are several).\n"
        "    tile = cuda.shared.array(65, float32)\n"
        "    t = cuda.threadIdx.x\n"
        "    i = cuda.grid(1)\n"
        "    if i < x.size:\n"
        "        tile[t] = x[i]\n"
        "    if t == 63 and i + 1 < x.size:\n"
        "        tile[64] = x[i + 1]\n"
        "    cuda.syncthreads()\n"
        "    if i < x.size:\n"
        "        out[i] = tile[t + 1]  # out[199] reads a slot nobody wrote\n",
    ],
    "ch06.sync_points": [
        "def sync_lines():\n"
        '    """Numbers of the lines that make the host wait for the device."""\n'
        "    return {2, 3, 4, 5, 6, 7, 8}  # FILL ME IN\n",
    ],
    "ch06.crossover": [
        "def crossover_at(sizes, t_a, t_b):\n"
        '    """Size from which ``t_b`` beats ``t_a`` for good (log-log interpolation), or None."""\n'
        "    for i in range(1, len(sizes)):\n"
        "        if t_b[i] < t_a[i] and t_b[i - 1] >= t_a[i - 1]:  # the first crossing\n"
        "            # FILL ME IN: interpolate, and make sure b keeps winning\n"
        "            r0, r1 = math.log(t_b[i - 1] / t_a[i - 1]), math.log(t_b[i] / t_a[i])\n"
        "            x0, x1 = math.log(sizes[i - 1]), math.log(sizes[i])\n"
        "            return math.exp(x0 + r0 / (r0 - r1) * (x1 - x0))\n"
        "    return None\n",
    ],
    "ch07.loader": [
        "from torch.utils.data import DataLoader\n\n\n"
        "def make_pipeline(dataset, device_type: str):\n"
        '    """A loader of 256-sample batches for ``device_type``, and the kwargs for ``.to()``."""\n'
        "    # pinned on every device  # FILL ME IN\n"
        "    loader = DataLoader(dataset, batch_size=256, shuffle=True, pin_memory=True)\n"
        "    return loader, {'non_blocking': True}  # FILL ME IN\n",
    ],
    "ch07.mlp_flops": [
        "def mlp_flops(batch: int, d_in: int, d_hidden: int, d_out: int) -> int:\n"
        '    """FLOPs of the matmuls of one forward + backward step of the two-layer MLP."""\n'
        "    forward = 2 * batch * (d_in * d_hidden + d_hidden * d_out)\n"
        "    return 2 * forward  # FILL ME IN: which gradient is never computed?\n",
    ],
    "ch08.roofline": [
        "def attainable(intensity, peak: float, bandwidth: float):\n"
        '    """Attainable FLOP/s under the roofline, elementwise over ``intensity`` (FLOP/B)."""\n'
        "    # FILL ME IN: the flat roof is missing\n"
        "    return np.maximum(peak, np.asarray(intensity) * bandwidth)\n",
    ],
    "ch08.to_bf16": [
        "def to_bf16(x: np.ndarray) -> np.ndarray:\n"
        '    """Round float32 ``x`` to the nearest bfloat16 (ties to even); return float32."""\n'
        "    bits = x.astype(np.float32).view(np.uint32)\n"
        "    # FILL ME IN: this truncates instead of rounding\n"
        "    kept = (bits + np.uint32(0x8000)) & np.uint32(0xFFFF0000)  # ties away from zero\n"
        "    return kept.view(np.float32)\n",
    ],
    "ch09.breakeven": [
        "def breakeven(t_launch: float, t_sync: float, t_poll: float) -> float:\n"
        '    """Messages after which the persistent kernel is ahead (math.inf if never)."""\n'
        "    return t_launch / (t_launch + t_sync - t_poll)  # FILL ME IN (never: no inf)\n",
    ],
    "ch09.clamp01": [
        "import pdc.ring as ring\n\n\n"
        "def clamp01(req, rep):\n"
        '    """Reply with req.x clamped to [0, 1]."""\n'
        "    rep.dist = max(req.x, 0.0)  # FILL ME IN\n",
    ],
    "ch10.matvec_loads": [
        "def tiled_matvec_loads(rows: int, cols: int, tile: int) -> int:\n"
        '    """Global loads counted by matvec_tiled for an A of shape (rows, cols)."""\n'
        "    return rows * cols + (rows // tile) * cols  # FILL ME IN\n",
    ],
    "ch10.ring_allreduce": [
        "def ring_allreduce(buffers, send):\n"
        "    # TODO: reduce-scatter (P - 1 steps: send a segment right, add what arrives), then\n"
        "    # all-gather (P - 1 steps: pass the finished segments on); return P arrays, each the sum.\n"
        "    p = len(buffers)\n"
        "    total = [np.array(b, dtype=np.float64) for b in buffers]\n"
        "    moving = [np.array(b, dtype=np.float64) for b in buffers]\n"
        "    for _ in range(p - 1):  # whole vectors around the ring: right sums, p - 1 times the traffic\n"
        "        arrived = [send(i, moving[i]) for i in range(p)]\n"
        "        for i in range(p):\n"
        "            moving[i] = arrived[(i - 1) % p]\n"
        "            total[i] = total[i] + moving[i]\n"
        "    return total\n",
        "def ring_allreduce(buffers, send):\n"
        "    # TODO: reduce-scatter (P - 1 steps: send a segment right, add what arrives), then\n"
        "    # all-gather (P - 1 steps: pass the finished segments on); return P arrays, each the sum.\n"
        "    p = len(buffers)\n"
        "    seg = [np.array_split(np.array(b, dtype=np.float64), p) for b in buffers]\n"
        "    for s in range(p - 1):  # the reduce-scatter only: no all-gather\n"
        "        arrived = [send(i, seg[i][(i - s) % p]) for i in range(p)]\n"
        "        for i in range(p):\n"
        "            left = (i - 1) % p\n"
        "            seg[i][(left - s) % p] = seg[i][(left - s) % p] + arrived[left]\n"
        "    return [np.concatenate(parts) for parts in seg]\n",
        "def ring_allreduce(buffers, send):\n"
        "    # TODO: reduce-scatter (P - 1 steps: send a segment right, add what arrives), then\n"
        "    # all-gather (P - 1 steps: pass the finished segments on); return P arrays, each the sum.\n"
        "    total = np.sum(buffers, axis=0)  # shared memory the workers do not have\n"
        "    return [total.copy() for _ in buffers]\n",
    ],
    "ch10.sectors": [
        "def sectors_per_warp(stride: int, itemsize: int = 4) -> int:\n"
        '    """Distinct 32-byte sectors read by a warp where thread t reads element t * stride."""\n'
        "    return min(32, stride * itemsize)  # FILL ME IN\n",
    ],
    "ch11.launch": [
        "def launch_shape(n: int, block: int) -> tuple[int, int]:\n"
        '    """Programs launched for n elements in blocks of ``block``, and lanes masked off."""\n'
        "    return n // block + 1, block - n % block  # FILL ME IN\n",  # one too many at n % block == 0
        "def launch_shape(n: int, block: int) -> tuple[int, int]:\n"
        '    """Programs launched for n elements in blocks of ``block``, and lanes masked off."""\n'
        "    return -(-n // block), n % block  # FILL ME IN\n",
    ],
    "ch11.traffic": [
        "def softmax_bytes(rows: int, cols: int, fused: bool) -> int:\n"
        '    """Bytes of global memory a float32 row softmax moves: three kernels, or one fused."""\n'
        "    return rows * cols * (8 if fused else 16)  # FILL ME IN\n",  # e is never read back
        "def softmax_bytes(rows: int, cols: int, fused: bool) -> int:\n"
        '    """Bytes of global memory a float32 row softmax moves: three kernels, or one fused."""\n'
        "    return rows * cols * (2 if fused else 5)  # FILL ME IN\n",  # elements, not bytes
    ],
    "ch11.grouped": [
        "def grouped_tile(pid: int, num_pid_m: int, num_pid_n: int, group_m: int) -> tuple[int, int]:\n"
        '    """The tile (pid_m, pid_n) of C that program ``pid`` computes in the grouped order."""\n'
        "    g = group_m * num_pid_n\n"
        "    return pid // g * group_m + pid % g % group_m, pid % g // group_m  # FILL ME IN\n",  # a short last group
        "def grouped_tile(pid: int, num_pid_m: int, num_pid_n: int, group_m: int) -> tuple[int, int]:\n"
        '    """The tile (pid_m, pid_n) of C that program ``pid`` computes in the grouped order."""\n'
        "    return divmod(pid, num_pid_n)  # FILL ME IN\n",
    ],
}


def _namespace() -> dict:
    return {
        "np": np,
        "math": math,
        "pdc": pdc,
        "cuda": pdc.numba_cuda(),
        "BLOCK": 64,  # chapter 5 defines these before its practice cells
        "float32": np.float32,
        "FULL_MASK": 0xFFFFFFFF,
    }


def test_every_practice_cell_has_wrong_answers():
    names = {name for _, name, _, _ in ALL_PAIRS}
    assert names == set(WRONG_ANSWERS), (
        f"practice cells without wrong answers: {sorted(names - set(WRONG_ANSWERS))}; "
        f"wrong answers without a cell: {sorted(set(WRONG_ANSWERS) - names)}"
    )


@pytest.mark.parametrize(
    ("notebook", "name", "stub", "function"),
    ALL_PAIRS,
    ids=[f"{nb}:{name}" for nb, name, _, _ in ALL_PAIRS],
)
def test_typical_wrong_answers_fail(notebook, name, stub, function):
    comments = [line[line.index("#") :] for line in stub.splitlines() if "# TODO" in line]
    comments += [line[line.index("#") :] for line in stub.splitlines() if "# FILL" in line]
    for k, source in enumerate(WRONG_ANSWERS[name]):
        dropped = [c for c in comments if c not in source]
        assert not dropped, f"{name} wrong answer {k} drops the stub's comment {dropped}"
        namespace = _namespace()
        exec(compile(source, f"<{name} wrong answer {k}>", "exec"), namespace)
        passed, feedback = practice.run(name, namespace[function])
        assert not passed, f"{name}: wrong answer {k} passes its check ({feedback})"
        assert feedback, f"{name}: a failing check must say why"


@pytest.mark.parametrize(
    ("kernel", "finding"),
    [("relu_kernel", "indexed outside an array"), ("reverse_blocks", "has a race")],
)
def test_a_kernel_finding_is_named_even_when_the_values_are_right(kernel, finding):
    name = {"relu_kernel": "ch04.relu", "reverse_blocks": "ch05.reverse_blocks"}[kernel]
    namespace = _namespace()
    exec(WRONG_ANSWERS[name][0], namespace)
    passed, feedback = practice.run(name, namespace[kernel])
    assert not passed
    assert finding in feedback and "The simulator saw:" in feedback


@pytest.mark.parametrize(
    ("k", "mistake"),
    [(0, "has a race"), (1, "1000 atomics"), (2, "64 values counted"), (3, "counts[1] = 0")],
)
def test_sign_counts_names_each_mistake(k, mistake):
    namespace = _namespace()
    exec(WRONG_ANSWERS["ch05.sign_counts"][k], namespace)
    passed, feedback = practice.run("ch05.sign_counts", namespace["sign_counts"])
    assert not passed
    assert mistake in feedback, feedback

"""The simulator is at least as strict as a GPU, and its bookkeeping is out of kernels' reach."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pdc
import pdc.sim as sim
from pdc.grade import gate, source
from pdc.grade.grader import find_notebooks

cuda = pdc.numba_cuda()  # kernels are typed by numba-cuda (pdc.sim)
FULL = 0xFFFFFFFF


def warp_sum(x, out):
    t = cuda.threadIdx.x
    v = x[t]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[t // 32] = v


def shfl_outside_mask(x, out):
    t = cuda.threadIdx.x
    out[t] = cuda.shfl_sync(0x0000FFFF, x[t], 31 - t) if t < 16 else x[t]


def via_shared(x, out, sync_lanes):
    s = cuda.shared.array(64, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    if sync_lanes:
        cuda.syncwarp()
    out[t] = s[t ^ 1]  # the neighbour lane, in the same warp


def across_warps(x, out):
    s = cuda.shared.array(64, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncwarp()  # orders lanes of one warp only
    out[t] = s[63 - t]


def votes(x, out):
    t = cuda.threadIdx.x
    pred = x[t] > 0
    out[t, 0] = cuda.ballot_sync(FULL, pred)
    out[t, 1] = cuda.all_sync(FULL, pred)
    out[t, 2] = cuda.any_sync(FULL, pred)
    out[t, 3] = cuda.syncthreads_count(np.int32(pred))  # numba types it for an int32
    out[t, 4] = cuda.activemask()


def intrinsics(x, out):
    out[0] = cuda.popc(x[0])
    out[1] = cuda.brev(x[1])
    out[2] = cuda.clz(x[2])
    out[3] = cuda.ffs(x[3])
    out[4] = cuda.selp(x[0] > 1, 7, 9)
    out[5] = cuda.fma(x[0], x[1], x[2])
    cuda.nanosleep(100)  # timing only
    out[6] = cuda.lanemask_lt()


def cube_root(x, out):
    out[0] = cuda.cbrt(x[0])


def atomic_then_read(x, out):
    t = cuda.threadIdx.x
    cuda.atomic.add(out, 0, x[t])
    if t == 31:
        out[1] = out[0]  # no barrier: other threads' atomics are not ordered before this


def accumulate_in_output(x, out):
    i = cuda.threadIdx.x
    out[i] = 0.0
    for j in range(3):
        out[i] += x[j]


def shared_declared_in_loop(x, out):
    t = cuda.threadIdx.x
    for k in range(2):
        s = cuda.shared.array(2, np.float32)  # one allocation per call site, as on a GPU
        if k == 0:
            s[t] = x[t]
        cuda.syncthreads()
    out[t] = s[t]  # written at the first iteration, read from the same memory after the loop


def order_dependent(x, out):
    out[0] = x[cuda.grid(1)]  # every thread writes out[0]: which one wins is undefined


def reads_local_and_past_end(x, out):
    acc = cuda.local.array(2, np.float32)
    out[0] = acc[0]
    out[1] = x[x.size]


def local_written_in_part(x, out):
    acc = cuda.local.array(2, np.float32)
    acc[0] = x[0]
    out[0] = acc[0]
    out[1] = acc[1]  # never written: garbage on a GPU, whatever the simulator fills it with


def endless(x, out):
    k = 0
    while k >= 0:
        out[0] = x[0]
        k += 1


def peek(x, out):
    out[0] = x.loads[0]


def param_named_np(x, np):
    np[0] = x[0]  # a parameter may shadow a module: kernel code never runs as Python


def declared_in_loop(x, out):
    for k in range(2):
        v = x[k]
    out[0] = v  # numba types v as possibly unassigned (its "null" placeholder)


def _launch(fn, block, *args, **kw):
    return sim.launch(fn, 1, block, args, **kw)


def test_warp_shuffle_reduction():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(2, np.float32)
    rep = _launch(warp_sum, 64, x, out)
    assert rep.findings == {}
    np.testing.assert_array_equal(out, [x[:32].sum(), x[32:].sum()])


def test_shuffle_from_a_lane_outside_the_mask_is_a_finding():
    x = np.arange(32, dtype=np.float32)
    rep = _launch(shfl_outside_mask, 32, x, np.zeros(32, np.float32))
    # What lanes 0-15 read is undefined; it is reported when it reaches memory, with where
    # it came from: the lane's own shuffle.
    assert rep.count("uninitialized") == 16 and "warp" not in rep.findings
    text = rep.findings["uninitialized"]["examples"][0]
    assert "shfl_sync() by lane 0 from lane 31, which is not in its mask 0xffff" in text
    assert text.endswith("shfl_outside_mask line 3)")


def half_mask_everywhere(x, out):
    t = cuda.threadIdx.x
    v = x[t]
    v += cuda.shfl_down_sync(0x0000FFFF, v, 1)  # every lane calls; the mask names 16
    out[t] = v


def test_a_lane_its_own_mask_leaves_out_is_reported_at_its_shuffle_line():
    x = np.arange(32, dtype=np.float32)
    rep = _launch(half_mask_everywhere, 32, x, np.zeros(32, np.float32))
    assert rep.count("warp") == 16  # lanes 16-31, each left out by its own mask
    examples = rep.findings["warp"]["examples"]
    left_out = [e for e in examples if "not in its own mask 0xffff" in e]
    assert left_out and all(e.endswith("half_mask_everywhere line 4)") for e in left_out)


def test_syncwarp_orders_lanes_of_a_warp():
    x = np.arange(64, dtype=np.float32)
    racy = _launch(via_shared, 64, x, np.zeros(64, np.float32), False)
    synced = _launch(via_shared, 64, x, np.zeros(64, np.float32), True)
    assert racy.count("race") > 0 and synced.findings == {}


def test_syncwarp_is_no_block_barrier():
    x = np.arange(64, dtype=np.float32)
    rep = _launch(across_warps, 64, x, np.zeros(64, np.float32))
    assert rep.count("race") > 0 and rep.count("divergence") == 0


def test_votes_and_block_counts():
    x = np.where(np.arange(64) % 4 == 0, 1.0, -1.0).astype(np.float32)
    out = np.zeros((64, 5), np.int64)
    rep = _launch(votes, 64, x, out)
    assert rep.findings == {}
    ballot = sum(1 << i for i in range(0, 32, 4))
    assert (out[:, 0] == ballot).all() and (out[:, 1] == 0).all() and (out[:, 2] == 1).all()
    assert (out[:, 3] == 16).all() and (out[:, 4] == FULL).all()


def test_bit_and_math_intrinsics():
    x = np.array([0b1011, 1, 1 << 20, 0b1000], np.uint32)
    out = np.zeros(7, np.int64)
    _launch(intrinsics, 1, x, out)
    assert out.tolist() == [3, 1 << 31, 11, 4, 7, 11 * 1 + (1 << 20), 0]  # lane 0: no lower lane
    root = np.zeros(1)
    assert _launch(cube_root, 1, np.array([-27.0]), root).findings == {}
    assert math.isclose(root[0], -3.0)


def test_atomics_are_loads_and_stores_and_a_plain_read_of_them_may_be_stale():
    x = np.ones(32, np.float32)
    out = np.zeros(2, np.float32)
    rep = _launch(atomic_then_read, 32, x, out)
    assert rep.atomics.sum() == 32
    assert rep.loads["out"].sum() == 33 and rep.stores["out"].sum() == 33
    # Unordered with the other lanes' atomics, the read sees the value before them: the
    # output shows the bug (pdc.sim.races: a read racing only with atomics is no race, a
    # note that costs nothing and that feedback on wrong outputs names).
    assert out.tolist() == [32.0, 0.0] and set(rep.findings) == {"stale"}


def test_written_counts_distinct_elements_not_store_operations():
    out = np.zeros(4, np.float32)
    rep = _launch(accumulate_in_output, 4, np.ones(3, np.float32), out)
    assert rep.stores["out"].tolist() == [4] * 4 and rep.written["out"].tolist() == [1] * 4
    assert out.tolist() == [3.0] * 4


def test_a_shared_array_is_one_allocation_per_call_site():
    out = np.zeros(2, np.float32)
    rep = _launch(shared_declared_in_loop, 2, np.array([3.0, 4.0], np.float32), out)
    assert out.tolist() == [3.0, 4.0] and rep.shared_arrays == 1 and not rep.findings


def test_a_variable_assigned_in_a_loop_is_read_after_it():
    out = np.zeros(1, np.float32)
    rep = _launch(declared_in_loop, 1, np.array([3.0, 4.0], np.float32), out)
    assert out[0] == 4.0 and not rep.findings


def test_threads_writing_one_element_race():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(1, np.float32)
    rep = sim.launch(order_dependent, 2, 32, (x, out))
    assert rep.count("race") == 63  # every write after the first one races with it
    assert "write out[0] by several threads" in rep.findings["race"]["examples"][0]
    assert out[0] in x  # one thread's value, as on a GPU


def test_memory_starts_as_garbage_and_out_of_range_reads_are_findings():
    out = np.zeros(2, np.float32)
    rep = _launch(reads_local_and_past_end, 1, np.ones(4, np.float32), out)
    assert np.isnan(out).all()
    assert "read x[4] outside shape (4,)" in rep.findings["oob"]["examples"][0]


def test_reading_unwritten_local_memory_is_a_finding():
    out = np.zeros(2, np.float32)
    rep = _launch(local_written_in_part, 1, np.ones(1, np.float32), out)
    assert rep.count("uninitialized") == 1 and out[0] == 1.0
    text = rep.findings["uninitialized"]["examples"][0]
    assert "acc[1] read before any write, local_written_in_part line 5" in text


def test_operation_budget_stops_an_endless_loop():
    rep = _launch(endless, 1, np.ones(1, np.float32), np.zeros(1, np.float32))
    assert "memory operations per thread" in rep.findings["error"]["examples"][0]


def test_kernels_see_no_counters():
    rep = _launch(peek, 1, np.ones(1, np.float32), np.zeros(1, np.float32))
    assert "Unknown attribute 'loads' of type array(float32" in rep.findings["error"]["examples"][0]


def test_a_parameter_named_like_a_module_is_a_parameter():
    out = np.zeros(1, np.float32)
    rep = _launch(param_named_np, 1, np.full(1, 2.0, np.float32), out)
    assert out[0] == 2.0 and not rep.findings


#: What a notebook imports before its kernels: the grader supplies none of it.
IMPORTS = "import math\nimport numpy as np\nimport numba\nfrom numba import cuda, float32\n"


def _problems(body: str, consts=None) -> list[str]:
    src = "@cuda.jit\ndef k(x, out):\n" + "\n".join("    " + ln for ln in body.splitlines()) + "\n"
    return source.extract([IMPORTS, src], ["k"], consts or {}).problems.get("k", "").split("; ")


def _define(ext, name: str):
    """The kernel the compile gate's module defines (as the grader's child defines it; here
    numba's CUDA simulator decorates it, and pdc.sim types it in its worker)."""
    ns: dict = {"__name__": "submission"}
    exec(compile(gate.module_text(ext, name), "<submission>", "exec"), ns)  # noqa: S102
    return ns[name]


@pytest.mark.parametrize(
    "body",
    [
        "np = x\nout[0] = np.loads[0]",
        "for cuda in (x,):\n    pass",
        "math = 1",
        "numba, y = x, x",
    ],
)
def test_module_names_rebound_in_a_kernel_are_for_numba_to_judge(body):
    # Kernel code never runs as Python: a rebound name is a local variable to numba, which
    # compiles it or refuses it; the grader's extraction has nothing to refuse.
    assert _problems(body) == [""]


def test_a_module_name_rebound_to_an_array_gets_numbas_refusal():
    ext = source.extract(
        [IMPORTS, "@cuda.jit\ndef k(x, out):\n    np = x\n    out[0] = np.loads[0]\n"], ["k"], {}
    )
    out = np.zeros(1, np.float32)
    rep = sim.launch(_define(ext, "k"), 1, 1, (np.ones(1, np.float32), out))
    assert "Unknown attribute 'loads'" in rep.findings["error"]["examples"][0]


@pytest.mark.parametrize(
    "body",
    [
        "for _ in range(2):\n    out[0] = x[0]",
        "for j, v in enumerate(x):\n    out[j] = v",
        "for a, b in zip(x, out):\n    pass",
        "i = numba.cuda.grid(1)",
        "out[0] = cuda.fma(x[0], x[1], x[2])",
    ],
)
def test_legal_kernel_code_is_accepted(body):
    assert _problems(body) == [""]


def test_derived_constants_and_functional_jit():
    cells = [
        "TILE = 16\nR = 2\nHALO = TILE + 2 * R\nAREA = HALO * HALO\n",
        "def _clamp(v, hi):\n    return min(max(v, 0), hi)\n\nclamp = cuda.jit(device=True)(_clamp)\n",
        "@cuda.jit\ndef k(x, out):\n    out[0] = x[clamp(AREA, 3)]\n",
    ]
    ext = source.extract([IMPORTS, *cells], ["k"], {"TILE": 16})
    assert ext.problems == {}
    assert ext.constants["HALO"] == 20 and ext.constants["AREA"] == 400
    assert ext.aliases == {"clamp": ("_clamp", "device")}
    out = np.zeros(1, np.float32)
    sim.launch(_define(ext, "k"), 1, 1, (np.arange(4, dtype=np.float32), out))
    assert out[0] == 3


def test_device_function_with_constant_defaults():
    cells = [
        "@cuda.jit(device=True)\ndef scaled(v, k=2, off=-1.5):\n    return v * k + off\n",
        "@cuda.jit\ndef k(x, out):\n    out[0] = scaled(x[0])\n    out[1] = scaled(x[0], k=3)\n",
    ]
    ext = source.extract([IMPORTS, *cells], ["k"], {})
    assert ext.problems == {}
    out = np.zeros(2, np.float32)
    sim.launch(_define(ext, "k"), 1, 1, (np.full(1, 2.0, np.float32), out))
    assert out.tolist() == [2.5, 4.5]
    not_constant = "def h(v, f=open):\n    return v\n\n\n@cuda.jit\ndef k(x):\n    x[0] = h(1)\n"
    bad = source.extract([IMPORTS, not_constant], ["k"], {})
    assert "the default argument open (only a constant number)" in bad.problems["k"]


def test_long_tuple_constants_are_constants():
    cells = [
        "STRIDES = (64, 32, 16, 8, 4, 2, 1)\n",
        "@cuda.jit\ndef k(x):\n    for s in STRIDES:\n        x[0] += s\n",
    ]
    ext = source.extract([IMPORTS, *cells], ["k"], {})
    assert ext.problems == {} and ext.constants["STRIDES"] == (64, 32, 16, 8, 4, 2, 1)


def test_annotated_chained_and_unpacked_constants():
    cells = ["TM, TN = 16, 8\nSIDE: int = TM + 4\nA = B = 3\nP, Q = divmod(7, 2)\n"]
    consts = source.extract(cells, [], {"TN": 32}).constants
    assert consts["TM"] == 16 and consts["TN"] == 32  # the exercise's value wins
    assert consts["SIDE"] == 20 and consts["A"] == consts["B"] == 3
    assert "P" not in consts and "Q" not in consts  # a call it does not evaluate


def test_kernel_bound_to_another_name_is_graded_as_that_kernel():
    cells = [
        "@cuda.jit\ndef k(x, out):\n    pass\n",  # the stub
        "@cuda.jit\ndef k_v2(x, out):\n    out[0] = x[0] + N\n",
        "TPB = 4\nN = TPB\nk = k_v2\n",  # the name now means the new kernel, as in Python
    ]
    ext = source.extract([IMPORTS, *cells], ["k"], {})
    assert ext.problems == {} and ext.constants["N"] == 4
    assert ext.aliases == {"k": ("k_v2", "same")}
    text = gate.module_text(ext, "k")
    assert "@cuda.jit\ndef k_v2" in text and "\nk = k_v2\n" in text
    out = np.zeros(1, np.float32)
    sim.launch(_define(ext, "k"), 1, 1, (np.ones(1, np.float32), out))
    assert out[0] == 5.0
    later = source.extract(
        [IMPORTS, *cells, "@cuda.jit\ndef k(x, out):\n    out[0] = 7.0\n"], ["k"], {}
    )
    assert later.aliases == {} and "7.0" in later.written["k"]  # a later def wins again


def test_exact_notebook_name_wins(tmp_path):
    for name in ("01_elementwise (copy).ipynb", "01_elementwise.ipynb", "02_conv1d_v2.ipynb"):
        (tmp_path / name).write_text("{}")
    warnings: list = []
    found = find_notebooks(tmp_path, warnings)
    assert found["01_elementwise"].name == "01_elementwise.ipynb"
    assert found["02_conv1d"].name == "02_conv1d_v2.ipynb"
    assert warnings == [
        "01_elementwise: graded 01_elementwise.ipynb (the exact name); "
        "ignored 01_elementwise (copy).ipynb"
    ]


def test_kernel_without_source_falls_back_to_threads():
    ns = {"cuda": cuda, "np": np}
    body = (
        "def k(x, out):\n    s = cuda.shared.array(4, np.float32)\n    t = cuda.threadIdx.x\n"
        "    s[t] = x[t]\n    cuda.syncthreads()\n    out[t] = s[3 - t]\n"
    )
    exec(compile(body, "<no source>", "exec"), ns)  # noqa: S102 - a test kernel
    out = np.zeros(4, np.float32)
    rep = sim.launch(ns["k"], 1, 4, (np.arange(4, dtype=np.float32), out))
    assert rep.findings == {} and out.tolist() == [3, 2, 1, 0]


def test_a_part_that_timed_out_beside_others_is_retried_alone(monkeypatch):
    from pathlib import Path

    from pdc.grade import grader

    calls: list = []

    def run_parts(tasks, **kwargs):
        out = []
        for ex, part, _cells in tasks:
            calls.append(part.name)
            first_saxpy = part.name == "saxpy" and calls.count("saxpy") == 1
            note = "timed out" if first_saxpy else ""
            out.append(grader.PartResult(ex.key, part.name, [], 0.0, note))
        return out

    def run_part(ex, part, cells, **kwargs):
        return run_parts([(ex, part, cells)], **kwargs)[0]

    # Kernels share a child (run_parts); one that timed out is graded again alone (run_part).
    monkeypatch.setattr(grader, "run_parts", run_parts)
    monkeypatch.setattr(grader, "run_part", run_part)
    monkeypatch.setattr(grader, "compile_gate", lambda tasks: {})
    root = Path(__file__).resolve().parents[1]
    sub = grader.grade(root / "solutions", only=["01_elementwise"], seed=0)
    assert sorted(calls) == ["multiply", "saxpy", "saxpy"]
    assert [p.note for p in sub.parts] == ["", ""]

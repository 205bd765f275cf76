"""Exercises 12 and 13 (Triton): the grader's source checks, its tracing of the interpreter's
loads and stores, and the launch-order measure. (tests/test_grade_seeds.py grades the
solutions under 10 seeds, tests/test_grade_submissions.py the wrong ones.)"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from pdc.grade import exercises as exs
from pdc.grade.triton import criteria, kernels
from pdc.ptx.triton_build import installed

ROOT = Path(__file__).resolve().parents[1]
needs_triton = pytest.mark.skipif(not installed(), reason="Triton is not installed (Linux only)")
PARAMS = ("x_ptr", "n", "BLOCK")
HEAD = "@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n"


def _extract(body: str, *extra: str):
    return kernels.extract(
        [*extra, HEAD + textwrap.indent(body, "    ")], "k", PARAMS, {"BLOCK": 8}
    )


def test_extract_keeps_the_kernel_its_helpers_and_the_constants():
    helper = "@triton.jit\ndef twice(v):\n    return 2 * v\n"
    found = _extract("tl.store(x_ptr, twice(tl.load(x_ptr)))\n", helper)
    assert not found.problem
    assert (
        "def twice(v)" in found.text and "def k(x_ptr" in found.text and "BLOCK = 8" in found.text
    )
    assert found.text.count("@triton.jit") == 2


@pytest.mark.parametrize(
    "body, why",
    [
        ("tl.store(x_ptr, torch.exp(tl.load(x_ptr)))\n", "torch is not a tl operation"),
        ("import os\n", "Import is not allowed"),
        ("v = tl.load(x_ptr).__class__\n", "private attribute"),
        ("np.save('x', 1)\n", "np is not a tl operation"),
        ("f = lambda v: v\n", "Lambda is not allowed"),
        ("triton.runtime.driver = None\n", "assigning to .driver is not allowed"),
        ("v = triton.runtime\n", "triton.runtime is not allowed inside a kernel"),
        ("tl.load = tl.store\n", "assigning to .load"),
    ],
)
def test_extract_refuses_what_a_gpu_kernel_cannot_be(body, why):
    assert why in _extract(body).problem


def test_extract_keeps_host_decorators_and_drops_them():
    """A heuristic's lambda runs on the host, before the launch, and the grader never runs it:
    it is no part of the kernel, and the body is still checked."""
    deco = '@triton.heuristics({"num_warps": lambda args: 8 if args["n"] > 4096 else 4})\n'
    found = kernels.extract([deco + HEAD + "    tl.store(x_ptr, 1.0)\n"], "k", PARAMS, {})
    assert not found.problem
    assert "lambda" not in found.text and "heuristics" not in found.text
    refused = kernels.extract([deco + HEAD + "    f = lambda v: v\n"], "k", PARAMS, {})
    assert "k, line 2: Lambda is not allowed" in refused.problem


def test_extract_keeps_constexpr_globals_and_refuses_plain_ones():
    body = "tl.store(x_ptr, tl.load(x_ptr) * SCALE)\n"
    found = _extract(body, "SCALE = tl.constexpr(-2.5)")
    assert not found.problem and "SCALE = tl.constexpr(-2.5)" in found.text
    # Triton's compiler refuses a global that is not a constexpr, and so does the grader
    plain = "the global SCALE is not a constexpr the grader can compute"
    assert plain in _extract(body, "SCALE = -2.5").problem
    rebound = _extract(body, "SCALE = tl.constexpr(2.0)", "SCALE = 3.0")
    assert plain in rebound.problem
    # math used but never imported: a run stops at that line with a NameError
    assert plain in _extract(body, "SCALE = tl.constexpr(1 / math.log(2))").problem
    ok = _extract(body, "import math", "SCALE = tl.constexpr(1 / math.log(2))")
    assert not ok.problem
    # Triton compiles a constexpr of any number, computed or not (float('nan') included)
    nan = _extract(body, "SCALE = tl.constexpr(float('nan'))")
    assert not nan.problem and "SCALE = tl.constexpr(float('nan'))" in nan.text
    assert plain in _extract(body, "SCALE = tl.constexpr(x)").problem
    # the exercise's constants win over the notebook's
    assert (
        "BLOCK = tl.constexpr"
        not in _extract(body, "BLOCK = tl.constexpr(4)", "SCALE = tl.constexpr(1)").text
    )


@pytest.mark.parametrize(
    "cell, text",
    [
        ("LOG2E = tl.constexpr(1.0 / 0.6931471805599453)", "LOG2E = tl.constexpr(1.4426950"),
        ("LOG2E = tl.constexpr(1 / math.log(2))", "LOG2E = tl.constexpr(1.4426950"),
        ("LOG2E: tl.constexpr = tl.constexpr(2 ** 0.5)", "LOG2E = tl.constexpr(1.41421356"),
        ("LOG2E = tl.constexpr(-float('inf'))", "LOG2E = tl.constexpr(float('-inf'))"),
    ],
)
def test_extract_keeps_constexprs_computed_from_numbers(cell, text):
    """Triton's compiler takes any constexpr global; the grader computes the number itself."""
    found = _extract("tl.store(x_ptr, tl.load(x_ptr) * LOG2E)\n", "import math", cell)
    assert not found.problem and text in found.text


def test_extract_keeps_module_constants_and_print():
    """``-np.inf``, ``math.pi`` and ``print`` compile in a Triton kernel (a module's float
    attribute is a constant; print is tl.device_print); other uses of the modules do not."""
    body = "v = tl.load(x_ptr, mask=n > 0, other=-np.inf)\nprint('v', v)\n"
    found = _extract(body + "tl.store(x_ptr, v * m.pi)\n", "import numpy as np", "import math as m")
    assert not found.problem
    assert "import numpy as np" in found.text and "import math as m" in found.text
    assert "np is not a tl operation" in _extract("v = np.exp(1.0)\n", "import numpy as np").problem
    assert "np is not a tl operation" in _extract("v = np\n", "import numpy as np").problem
    assert "np is not a tl operation" in _extract("v = -np.inf\n").problem  # never imported
    rebound = _extract("v = -np.inf\n", "import numpy as np", "np = 3")
    assert "the global np is not a constexpr" in rebound.problem


def test_extract_keeps_libdevice_imported_as_triton_documents_it():
    body = "tl.store(x_ptr, ld.exp(tl.load(x_ptr)))\n"
    found = _extract(body, "from triton.language.extra import libdevice as ld")
    assert not found.problem and "from triton.language.extra import libdevice as ld" in found.text
    cuda = _extract(body, "import triton.language.extra.cuda.libdevice as ld")
    assert "import triton.language.extra.cuda.libdevice as ld" in cuda.text
    assert "ld is not a tl operation" in _extract(body, "import numpy as ld").problem
    gone = _extract(body, "from triton.language.extra import libdevice as ld", "ld = 2")
    assert "the global ld is not a constexpr" in gone.problem


LIBDEVICE_SCRIPT = """
import os
os.environ["TRITON_INTERPRET"] = "1"
import numpy as np, torch, triton, triton.language as tl
from pdc.grade.triton import libdevice as shim
shim.install()
from triton.language.extra import libdevice

@triton.jit
def k(x_ptr, y_ptr):
    r = tl.arange(0, 8)
    x = tl.load(x_ptr + r)
    tl.store(y_ptr + r, libdevice.tanh(x))
    tl.store(y_ptr + 8 + r, libdevice.pow(tl.abs(x) + 1.0, 1.5))
    tl.store(y_ptr + 16 + r, libdevice.log10(tl.abs(x) + 1.0) + libdevice.exp10(x))
    tl.store(y_ptr + 24 + r, libdevice.trunc(x) + tl.extra.cuda.libdevice.expm1(x))

x = torch.tensor([-30.0, -2.5, -0.5, 0.0, 0.25, 1.5, 3.0, 30.0])
y = torch.zeros(32)
k[(1,)](x, y)
v = x.double().numpy()
want = np.concatenate([np.tanh(v), (abs(v) + 1) ** 1.5, np.log10(abs(v) + 1) + 10.0**v,
                       np.trunc(v) + np.expm1(v)])
print(np.allclose(y.numpy(), want, rtol=1e-5, atol=1e-6), float(np.abs(y.numpy() - want).max()))
"""


@needs_triton
def test_libdevice_runs_on_the_interpreter_as_tl_operations():
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    run = subprocess.run(
        [sys.executable, "-c", LIBDEVICE_SCRIPT],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("True"), run.stdout


MEMBER_SCRIPT = """
import os
os.environ["TRITON_INTERPRET"] = "1"
import numpy as np, torch, triton, triton.language as tl
from pdc.grade.triton import interp

@triton.jit
def k(x_ptr, y_ptr):
    r = tl.arange(0, 8)
    x = tl.load(x_ptr + r)
    tl.store(y_ptr + r, x.exp() + x.sqrt() + x.log2().floor() + x.cos() + (x - x.max(0)).exp2())

x = torch.linspace(0.5, 4.0, 8)
y = torch.zeros(8)
trace = interp.Trace()
trace.watch("x", x)
trace.watch("y", y)
with interp.tracing(trace):
    k[(1,)](x, y)
v = x.double().numpy()
want = np.exp(v) + np.sqrt(v) + np.floor(np.log2(v)) + np.cos(v) + np.exp2(v - v.max())
print(np.allclose(y.numpy(), want, rtol=1e-5), trace.out_of_range)
"""


@needs_triton
def test_tensor_methods_run_on_the_interpreter_as_the_compiler_takes_them():
    """``x.exp()`` compiles (a method forwarding to tl.exp); Triton's interpreter alone
    leaves it unpatched: the grader's tracing patches it as the function it forwards to."""
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    run = subprocess.run(
        [sys.executable, "-c", MEMBER_SCRIPT], capture_output=True, text=True, timeout=120, env=env
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["True", "0"], run.stdout


BUILTIN_MINMAX_SCRIPT = """
import os
os.environ["TRITON_INTERPRET"] = "1"
import pathlib, sys
import numpy as np, torch
from pdc.grade.triton import interp
from pdc.ptx.triton_build import load_module

TEXT = (
    "import triton\\n"
    "import triton.language as tl\\n"
    "@triton.jit\\n"
    "def k(x_ptr, y_ptr, n):\\n"
    "    r = tl.arange(0, 8)\\n"
    "    x = tl.load(x_ptr + r)\\n"
    "    v = min(x, 2.0) + max(x, 1.0, x * 0.5) + min(r, n - 1) + max(3, 5)\\n"
    "    tl.store(y_ptr + r, v)\\n"
)
module = load_module(TEXT, pathlib.Path(sys.argv[1]), "minmax_kernels")
interp.compiled_builtins(vars(module))
x = torch.linspace(0.0, 3.5, 8)
y = torch.zeros(8)
trace = interp.Trace()
trace.watch("x", x)
trace.watch("y", y)
with interp.tracing(trace):
    module.k[(1,)](x, y, 5)
v = x.numpy()
want = np.minimum(v, 2) + np.maximum(np.maximum(v, 1), v * 0.5) + np.minimum(np.arange(8), 4) + 5
print(np.allclose(y.numpy(), want, rtol=1e-6))
"""


@needs_triton
def test_builtin_min_and_max_of_tensors_run_as_the_compiler_reads_them(tmp_path):
    """Triton compiles ``min(rm, M - 1)`` as tl.minimum element by element; the interpreter
    would run Python's min, which compares whole tensors and returns one of them."""
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    run = subprocess.run(
        [sys.executable, "-c", BUILTIN_MINMAX_SCRIPT, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "True", run.stdout


def test_tf32_keeps_ten_bits_of_mantissa_rounded_to_nearest():
    from pdc.grade.triton.interp import tf32

    x = np.array(
        [1 + 2.0**-12, 1 + 2.0**-11, 1 + 3 * 2.0**-12, -(1 + 2.0**-11), np.inf], np.float32
    )
    want = [1.0, 1 + 2.0**-10, 1 + 2.0**-10, -(1 + 2.0**-10), np.inf]
    assert tf32(x).tolist() == want
    assert tf32(x).dtype == np.float32


def test_extract_names_the_expected_parameters():
    found = kernels.extract(
        [HEAD.replace("n, BLOCK", "n, m, BLOCK") + "    pass\n"], "k", PARAMS, {}
    )
    assert "must take (x_ptr, n, BLOCK)" in found.problem
    assert (
        "no function named 'k'"
        in kernels.extract(["def k(x_ptr, n, BLOCK):\n    pass\n"], "k", PARAMS, {}).problem
    )


def test_grouped_order_needs_fewer_panels_than_row_major():
    tiles = criteria.grouped_tiles(9 * 32, 9 * 32, 32, 32, 4)
    assert sorted(tiles) == [(m, n) for m in range(9) for n in range(9)]  # each tile once
    row_major = [divmod(p, 9) for p in range(81)]
    assert criteria.wave_panels(tiles) < criteria.wave_panels(row_major)
    assert criteria.wave_panels(tiles[:8]) == 6  # 4 rows of A-tiles, 2 columns of B-tiles


def _launch_order_run(tiles, extra_first: int | None = None):
    """A run of a 9 x 9 tile matmul whose program p stores tile ``tiles[p]``, and also the
    element ``extra_first`` of C when it is given."""
    from pdc.grade.triton.exercises import MATMUL, make_matmul

    case = make_matmul(np.random.default_rng(0), (9 * 32, 8, 9 * 32))
    run = criteria.Run()
    for p, (r, c) in enumerate(tiles):
        first, last = r * 32 * 288 + c * 32, (r * 32 + 31) * 288 + c * 32 + 31
        if extra_first is not None:
            first = min(first, extra_first)
        run.programs.append(((p,), "c_ptr", first, last, 32 * 32 + 1))
    return criteria.grouped_order(MATMUL.parts[0], [(case, run)])


def test_launch_order_counts_every_tile_a_program_stores_into():
    grouped = criteria.grouped_tiles(9 * 32, 9 * 32, 32, 32, 4)
    row_major = [divmod(p, 9) for p in range(81)]
    assert _launch_order_run(grouped)[0] == 1.0
    assert _launch_order_run(row_major)[0] == 0.0
    # one more store (an atomic add of 0.0) into C[0, 0] by every program: the first element
    # each one stores is then in tile (0, 0), and the order looks grouped at that end only
    assert _launch_order_run(row_major, extra_first=0)[0] == 0.0
    assert criteria.wave_panels([(range(0, 2), range(0, 3))] * 8) == 5


TRACE_SCRIPT = """
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from pdc.grade.triton.interp import Trace, tracing

@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)  # masked: nothing outside x
    tl.store(y_ptr + offs, v + tl.load(x_ptr + offs))  # unmasked: reads and writes past n

x, y = torch.ones(10), torch.zeros(10)
t = Trace()
t.watch("x", x)
t.watch("y", y)
with tracing(t):
    k[(2,)](x, y, 10, BLOCK=8)
print(t.tensors["x"].loads.tolist(), t.tensors["y"].stores.tolist(), t.out_of_range)
print(sorted((p, n, lo, hi) for (p, n), (lo, hi, _) in t.programs.items()))
print(t.examples[0])
print(y.tolist())
"""


@needs_triton
def test_tracing_counts_accesses_and_stops_those_outside_every_tensor():
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TRITON_DEFAULT_FP_FUSION": "1"}
    run = subprocess.run(
        [sys.executable, "-c", TRACE_SCRIPT], capture_output=True, text=True, timeout=120, env=env
    )
    assert run.returncode == 0, run.stderr[-2000:]
    loads, programs, example, y = run.stdout.strip().splitlines()
    # Each element of x loaded twice; the second program's 6 lanes past n go nowhere.
    assert loads == f"{[2] * 10} {[1] * 10} 12"
    assert programs == "[((0, 0, 0), 'y', 0, 7), ((1, 0, 0), 'y', 8, 9)]"
    assert "program (1, 0, 0) load" in example and "without a mask" in example
    assert y == str([2.0] * 10)


ATOMIC_DOT_SCRIPT = """
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from pdc.grade.triton.interp import Trace, tracing

@triton.jit
def k(x_ptr, y_ptr, a_ptr, c_ptr):
    offs = tl.arange(0, 16)
    old = tl.atomic_add(x_ptr + offs, tl.zeros([16], tl.float32))  # 6 lanes past x's 10
    tl.atomic_xchg(y_ptr + offs, old.to(tl.int32) + 1, mask=offs < 10)
    cas = tl.atomic_cas(y_ptr + offs, tl.full([16], 2, tl.int32), tl.zeros([16], tl.int32))
    tl.store(y_ptr + 10 + offs, cas, mask=offs < 2)
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, a))
    tl.store(c_ptr + 256 + r[:, None] * 16 + r[None, :], tl.dot(a, a, input_precision="ieee"))

x, y = torch.ones(10), torch.zeros(12, dtype=torch.int32)
a, c = torch.eye(16) * (1 + 2.0**-12), torch.zeros(512)
t = Trace()
for name, v in (("x", x), ("y", y), ("a", a), ("c", c)):
    t.watch(name, v)
with tracing(t):
    k[(1,)](x, y, a, c)
print(t.tensors["x"].loads.tolist(), t.tensors["x"].stores.tolist(), t.out_of_range)
print(t.tensors["y"].loads.tolist(), t.tensors["y"].stores.tolist(), y.tolist())
print(sorted((n, lo, hi, count) for (p, n), (lo, hi, count) in t.programs.items()))
print(t.examples[0])
print(c[0].item(), c[256].item())
"""


@needs_triton
def test_tracing_counts_atomics_as_loads_and_stores_and_rounds_default_dots():
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TRITON_DEFAULT_FP_FUSION": "1"}
    run = subprocess.run(
        [sys.executable, "-c", ATOMIC_DOT_SCRIPT],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    x, y, programs, example, dots = run.stdout.strip().splitlines()
    # the atomic add read and wrote each element of x once; its 6 lanes past x and the
    # atomic_cas's 4 past y went nowhere
    assert x == f"{[1] * 10} {[1] * 10} 10"
    # y: an exchange (mask < 10) sets 2, a compare-and-swap on its 12 elements swaps those
    # 2s for 0s and returns the 2s, stored after them
    assert y == f"{[2] * 10 + [1, 1]} {[2] * 10 + [2, 2]} {[0] * 10 + [2, 2]}"
    assert "('x', 0, 9, 10)" in programs and "('y', 0, 11, 24)" in programs
    assert "program (0, 0, 0) atomic 6 element(s) outside every tensor" in example
    assert "an atomic without a mask" in example
    # tl.dot's default rounds float32 inputs to TF32 (1 + 2**-12 -> 1); "ieee" does not
    assert dots == f"1.0 {1 + 2.0**-11}"  # (1 + 2**-12)**2 in float32


def test_the_exercises_are_registered_as_plug_ins():
    for key in ("12_triton_softmax", "13_triton_matmul"):
        (part,) = exs.exercise(key).parts
        assert part.runner is not None and part.checker is not None
        assert exs.find_part(part.name, plugins=True)[0].key == key
        cases = exs.hidden_cases(part, np.random.default_rng(0))
        assert all(c.args[next(iter(c.args))].dtype == np.float32 for c in cases)


RACE_SCRIPT = """
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from pdc.grade.triton.interp import Trace, tracing

@triton.jit
def k(y_ptr, CLEAR: tl.constexpr):
    p = tl.program_id(0)
    offs = tl.arange(0, 4)
    if CLEAR:  # program p clears the row of program p + 1 first: the order decides the result
        tl.store(y_ptr + (p + 1) * 4 + offs, tl.zeros([4], tl.float32), mask=p + 1 < 3)
    tl.store(y_ptr + p * 4 + offs, offs.to(tl.float32) + 1.0)
    tl.store(y_ptr + p * 4 + offs, offs.to(tl.float32) + 2.0)  # its own element again
    tl.store(y_ptr + 4 * 3 + offs * 0, 7.0)  # the same value from every program

for clear in (False, True):
    y = torch.zeros(13)
    t = Trace()
    t.watch("y", y)
    with tracing(t):
        k[(3,)](y, CLEAR=clear)
    print(t.races)
"""


@needs_triton
def test_tracing_finds_programs_that_store_different_values_into_one_element():
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TRITON_DEFAULT_FP_FUSION": "1"}
    run = subprocess.run(
        [sys.executable, "-c", RACE_SCRIPT], capture_output=True, text=True, timeout=120, env=env
    )
    assert run.returncode == 0, run.stderr[-2000:]
    alone, clearing = run.stdout.strip().splitlines()
    assert alone == "[]"  # a program overwriting its own store, or equal values, is no race
    assert "program (1, 0, 0) stores y[4], which program (0, 0, 0) stored" in clearing


def _rows_run(rows_of_programs):
    """A softmax run of 3 rows of 10 where program p stores the rows ``rows_of_programs[p]``."""
    from pdc.grade.triton.exercises import SOFTMAX, make_softmax

    case = make_softmax(np.random.default_rng(0), (3, 10, 2.0, 0))
    stride = int(case.args["y_stride"])
    run = criteria.Run()
    for p, rows in enumerate(rows_of_programs):
        if rows:
            run.programs.append(((p,), "y_ptr", rows[0] * stride, rows[-1] * stride + 9, 10))
    return criteria.one_program_per_row(SOFTMAX.parts[0], [(case, run)])


def test_one_program_per_row_lets_the_kernel_choose_which_row():
    assert _rows_run([[0], [1], [2]])[0] == 1.0
    assert _rows_run([[2], [1], [0]])[0] == 1.0  # row = num_programs - 1 - program_id
    assert "program 0 stored into rows 0 to 1" in _rows_run([[0, 1], [], [2]])[1]
    assert "programs 0 and 2 both stored row 1" in _rows_run([[1], [0], [1]])[1]
    # a row nobody stored is a wrong output, for the public and hidden criteria only
    assert _rows_run([[0], [1], []])[0] == 1.0


def _heur(lam: str, where: str = "end", body: str = "    tl.store(x_ptr, 1.0)\n", **kw):
    deco = f'@triton.heuristics({{"EVEN": {lam}}})\n'
    if where == "end":
        head = HEAD.replace("):", ", EVEN: tl.constexpr):", 1)
    elif where == "runtime":
        head = HEAD.replace("):", ", EVEN):", 1)
    elif where == "first":
        head = HEAD.replace("(x_ptr", "(EVEN: tl.constexpr, x_ptr", 1)
    else:
        head = HEAD
    return kernels.extract([deco + head + body], "k", PARAMS, {"BLOCK": 8}, **kw)


def test_a_parameter_added_by_heuristics_is_computed_per_launch():
    from pdc.grade.triton import heuristics

    found = _heur('lambda args: args["n"] % args["BLOCK"] == 0')
    assert not found.problem, found.problem
    assert [h.name for h in found.heuristics] == ["EVEN"] and found.constexpr == {"EVEN"}
    hs = list(found.heuristics)
    assert heuristics.values(hs, {"n": 16, "BLOCK": 8}) == {"EVEN": True}
    assert heuristics.values(hs, {"n": 17, "BLOCK": 8}) == {"EVEN": False}
    assert not _heur('lambda a: a["n"] > 0', where="runtime").constexpr  # a runtime i1
    named = kernels.extract(
        [
            '@triton.heuristics(values={"E": lambda a: a["n"] > 4, "F": lambda a: a["E"] and 3})\n'
            + HEAD.replace("):", ", E: tl.constexpr, F: tl.constexpr):", 1)
            + "    pass\n"
        ],
        "k",
        PARAMS,
        {"BLOCK": 8},
    )
    assert not named.problem, named.problem
    # a later heuristic sees the earlier ones, and Python's and returns its operand
    assert heuristics.values(list(named.heuristics), {"n": 9, "BLOCK": 8}) == {"E": True, "F": 3}
    assert heuristics.values(list(named.heuristics), {"n": 2, "BLOCK": 8}) == {
        "E": False,
        "F": False,
    }
    calls = _heur("lambda a: triton.next_power_of_2(a['n']) // max(1, triton.cdiv(a['n'], 4))")
    assert not calls.problem, calls.problem
    assert heuristics.values(list(calls.heuristics), {"n": 9, "BLOCK": 8}) == {"EVEN": 5}


@pytest.mark.parametrize(
    "lam, where, why",
    [
        ('lambda args: args["n"] % 4 == 0', "none", "which is not a parameter of the kernel"),
        ('lambda args: args["n"] % 4 == 0', "first", "comes before n, which the launch passes"),
        ('lambda args: args["x_ptr"].numel() > 4', "end", "reads the tensor x_ptr"),
        ('lambda args: args["m"] > 4', "end", "args['m'], which is not an argument"),
        ("lambda args: __import__('os').system('true')", "end", "calls __import__"),
        ("lambda args: open('/etc/passwd')", "end", "calls open"),
        ("lambda args: args['n'].bit_length()", "end", "calls args['n'].bit_length"),
        ("lambda args: args['n'].real", "end", "reads args['n'].real"),
        ("lambda args: [args['n']]", "end", "uses List"),
        ("lambda args: 'a' * 3", "end", "uses 'a'"),
        ("lambda args: args['n'] in (1, 2)", "end", "uses args['n'] in (1, 2)"),
        ("lambda args: GLOBAL", "end", "reads GLOBAL"),
        ("lambda args: args", "end", 'must read args["NAME"]'),
        ("lambda: 1", "end", "must be a lambda of the launch's arguments"),
        ("pick", "end", "must be a lambda of the launch's arguments"),
    ],
)
def test_a_heuristic_the_grader_cannot_compute_is_refused_with_its_reason(lam, where, why):
    found = _heur(lam, where, tensors=frozenset({"x_ptr"}))
    assert why in found.problem, found.problem


def test_a_heuristic_that_raises_on_the_host_names_the_launch():
    from pdc.grade.triton import heuristics

    found = _heur("lambda a: a['BLOCK'] // (a['n'] - 4) > 0 or 2 ** 100")
    assert not found.problem, found.problem
    with pytest.raises(heuristics.Refused, match="raised ZeroDivisionError on the host for n=4"):
        heuristics.values(list(found.heuristics), {"n": 4, "BLOCK": 8})
    with pytest.raises(heuristics.Refused, match="exponent too large|not a flag or a number"):
        heuristics.values(list(found.heuristics), {"n": 100, "BLOCK": 8})

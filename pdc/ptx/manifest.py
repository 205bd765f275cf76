"""Every kernel of the course, with the argument types it is launched with.

``pdc ptx`` compiles what ``discover`` finds in pdc/, solutions/, notebooks/ and tests/;
each found kernel must be listed here (an unlisted one fails the run, so none slips by).
Argument types come from the tables below: ``EXERCISE_KERNELS`` for the exercises' kernels
(the types of each exercise's first public case, which a test checks against the grader's
exercises; this package does not import the grader) and ``KERNELS`` for the rest. Student
stubs (exercises/) and the wrong submissions the grader is tested with (tests/submissions/)
are not course kernels.

The course's kernels build for every target asked for; the test suite's own kernels (tests/)
only for those of ``SUITE_CCS`` among them, the GPUs its runs on a GPU use: they are the
suite's scaffolding, not code a student runs on the GPU they have.
"""

from __future__ import annotations

import linecache
import types
from pathlib import Path
from typing import Any

from .discover import Found, discover

SCAN = (
    "pdc/**/*.py",
    "solutions/*.ipynb",
    "notebooks/*.ipynb",
    "notebooks/**/*.py",
    "tests/*.py",
)
PRELUDE = "import math\nimport numpy as np\nimport numba\nfrom numba import cuda, float32\n"

F1, F2, I32, I64 = "float32[::1]", "float32[:, ::1]", "int32[::1]", "int64[::1]"
U8 = "uint8[::1]"
#: The targets the test suite's own kernels build for (when asked for): the grader's (A100)
#: and the lent H100s that run the suite with a GPU.
SUITE_CCS = ((8, 0), (9, 0))
RING = "ring"  # a ring handler: compiled inside the ring kernel (request REQ, reply REP[, state])


def skip(reason: str) -> tuple[str, str]:
    """A found kernel that is deliberately not compiled, and why."""
    return ("skip", reason)


def ring(request: str = "REQ", reply: str = "REP", state: str | None = None) -> tuple:
    """A ring handler whose dtypes are the file's ``request``, ``reply`` (and ``state``)."""
    return (RING, request, reply) if state is None else (RING, request, reply, state)


def with_constants(args: tuple, **constants: int) -> tuple[str, tuple, dict]:
    """Argument types for a kernel that reads names its enclosing function defines."""
    return ("constants", args, constants)


# Builds that fail with the pinned toolchain, and why: (path, kernel) -> (first capability,
# text of the error, reason). A known failure that starts to compile is reported as FIXED.
_FLOAT_ATOMICS = (
    "numba-cuda 0.30 lowers a float cuda.atomic.add to llvm.nvvm.atomic.load.add.f32/f64, "
    "an intrinsic the NVVM of Blackwell targets (sm_100 and newer) rejects"
)
KNOWN_FAILURES: dict[tuple[str, str], tuple[tuple[int, int], str, str]] = {
    ("notebooks/05_shared_memory_atomics.ipynb", name): (
        (10, 0),
        "ERROR_INVALID_IR",
        _FLOAT_ATOMICS,
    )
    for name in ("total_per_element", "total_per_thread")
}


def known_failure(name: str, where: str, cc: tuple[int, int]) -> tuple[str, str] | None:
    """``(error text, reason)`` when building ``name`` at ``where`` for ``cc`` fails, known."""
    entry = KNOWN_FAILURES.get((where.split(":")[0], name))
    if entry is None or tuple(cc) < entry[0]:
        return None
    return entry[1], entry[2]


#: Exercise key -> kernel -> argument types: the solutions' kernels and any student's copy of
#: them (``pdc ptx my/03_matmul.ipynb``).
EXERCISE_KERNELS: dict[str, dict[str, tuple]] = {
    "01_elementwise": {"multiply": (F1, F1, F1), "saxpy": ("float32", F1, F1, F1)},
    "02_conv1d": {"conv1d": (F1, F1, F1)},
    "03_matmul": {"matmul_naive": (F2, F2, F2), "matmul_tiled": (F2, F2, F2)},
    "04_conv2d": {"blur2d": (F2, F2, F2), "blur2d_tiled": (F2, F2, F2)},
    "05_reduction": {"block_sum": (F1, F1)},
    "07_histogram": {"histogram_global": (U8, I32), "histogram_shared": (U8, I32)},
    "08_scan": {"block_scan": (F1, F1, F1), "add_block_offsets": (F1, F1)},
    "09_transpose": {
        "transpose_naive": (F2, F2),
        "transpose_tiled": (F2, F2),
        "transpose_padded": (F2, F2),
    },
    "10_warp_reduce": {"block_sum_warp": (F1, F1)},
    "11_softmax": {
        "row_max": (F2, F1),
        "exp_sum": (F2, F1, F2, F1),
        "normalize": (F2, F1, F2),
        "softmax_fused": (F2, F2),
    },
}
_EXERCISE_ARGS = {name: args for ks in EXERCISE_KERNELS.values() for name, args in ks.items()}

KERNELS: dict[str, dict[str, Any]] = {
    "pdc/ring/engines/cuda_kernel.py": {
        "ring_kernel": skip("built around each handler: see the ring rows"),
    },
    "pdc/ring/tools/launch_each.py": {
        "handle_once": skip("built around a handler: see the launch-per-message row"),
    },
    "pdc/grade/exercises/ring_spec.py": {"warm_handler": ring("REQUEST", "REPLY", "STATE")},
    "pdc/ring/tools/bench.py": {"double": ring()},
    "pdc/ring/tools/stress.py": {"stress_handler": ring("REQUEST", "REPLY")},
    **{f"solutions/{key}.ipynb": dict(kernels) for key, kernels in EXERCISE_KERNELS.items()},
    "solutions/06_ring.ipynb": {"detect": ring("REQUEST", "REPLY", "STATE")},
    "notebooks/01_why_gpus.ipynb": {"saxpy_kernel": ("float32", F1, F1)},
    "notebooks/02_gpu_architecture.ipynb": {
        "who_did_it": ("int32[:, ::1]", "int32[:, ::1]"),
        "polynomial": (F1, F1, F1),
    },
    "notebooks/03_memory.ipynb": {
        "strided_read": (F1, "int64", F1),
        "add": (F1, F1, F1),
        "increment": (F1,),
    },
    "notebooks/04_cuda_from_python.ipynb": {
        "scale": (F1, "float32", F1),
        "scale_unguarded": (F1, "float32", F1),
        "add": (F1, F1, F1),
        "count_racy": (I64,),
        "count_atomic": (I64,),
        "relu_kernel": (F1, F1),
        "scale_rows": (F2, F1, F2),
    },
    "notebooks/05_shared_memory_atomics.ipynb": {
        "scale_grid_stride": (F1, "float32", F1, I32),
        "shifted_clamped": (F1, "int64", F1),
        "moving_average_shared": (F1, F1),
        "reverse_blocks": (F1, F1),
        "smooth5": (F1, F1),
        "total_per_element": (F1, F1),
        "total_per_thread": (F1, F1),
        "sign_counts": (F1, I32),
        "warp_tour": (F1, F1, I64, F1),
        "count_positive": (F1, I64),
        "count_positive_aggregated": (F1, I64),
        "warp_max": (F1, F1),
        "copy_unguarded": (F1, F1),
        "rotate_no_barrier": (F1, F1),
        "mirror_half_written": (F1, F1),
        "barrier_in_branch": (F1, F1),
        "shift_left": (F1, F1),
        "blur_debug": (F1, F1),
    },
    "pdc/course/practice/ch04.py": {"relu_kernel": (F1, F1), "scale_rows": (F2, F1, F2)},
    "pdc/course/practice/ch05.py": {
        "reverse_blocks": (F1, F1),
        "sign_counts": (F1, I32),
        "warp_max": (F1, F1),
        "shift_left": (F1, F1),
    },
    # A copy of chapter 10's kernel inside a checker, closing over its tile size.
    "pdc/course/practice/ch10.py": {"matvec_tiled": with_constants((F2, F1, F1, I64), tile=32)},
    "notebooks/06_performance_pitfalls.ipynb": {"add_one": (F1,)},
    "notebooks/09_persistent_ring_kernels.ipynb": {
        "hypot": ring(),
        "empty_kernel": (F1,),
        "bad_abs": skip("rejected on purpose: the chapter shows the handler error"),
        "safe_sqrt": ring(),
        "running_mean": ring("REQ", "MEAN", "COUNT"),
    },
    "notebooks/10_optimisation.ipynb": {"heavy": (F1, F1)},
    "tests/kernels_for_tests.py": {"add": (F1, F1, F1), "scale2d": (F2, F2, "float32")},
    "tests/test_sim_launcher.py": dict.fromkeys(
        ("widen", "copy_unguarded", "add_one", "nothing"),
        skip(
            "made inside a test by the simulator's jit after pdc.sim.install: pdc.sim "
            "compiles it with numba-cuda at each launch"
        ),
    ),
    "pdc/backends/cuda.py": {"_self_test_kernel": (I32,)},
    "tests/test_ring_cpu.py": {
        "root": ring(),
        "anything": skip("a pure-Python handler: CPU only"),
        "bad_types": skip("rejected on purpose by the test"),
    },
    "tests/test_ring_cuda.py": {
        "scale": ring(),
        "roots": ring(),
        "tagged": ring("PACKED", "REP"),
    },
    "tests/test_ring_faults.py": {"risky": ring()},
    "tests/test_ring_parking.py": {
        "scale": ring(),
        "roots": ring(),
        "add_one": ("float64[:]",),
    },
    "tests/test_ring_handlers.py": {
        "anything": skip("a pure-Python handler: CPU only"),
        "good": ring(),
        "handler": skip("refused on purpose: its dtypes use reserved field names"),
    },
    "tests/test_ring_metal.py": {
        "scale": ring(),
        "maths": ring(),
        "packed": ring("PACKED", "REP"),
    },
    "tests/test_ring_fast.py": {"work": ring(), "by_names": ring("NAMES_REQ", "NAMES_REP")},
    "tests/test_ring_reserved.py": {"echo": ring()},
    "tests/test_ring_bad_input.py": {
        "work": ring(),
        "_flagged": ring(),
        "ret_float": skip("refused on purpose: a handler that returns a float status"),
        "halved": skip("a pure-Python handler: CPU only"),
        "_wrapping": skip("refused on purpose: a status literal beyond int64"),
        "_lowest": ring(),
        "coded": skip("a pure-Python handler: CPU only"),
        "half": skip("defined inside its test with a float16 request (the cpu loop refuses it)"),
    },
    "tests/test_ring_async_cancel.py": {"echo": ring()},
    "tests/test_ring_fork.py": {"doubled": ring()},
    "pdc/grade/triton/libdevice.py": dict.fromkeys(
        (
            "exp fast_expf exp2 exp10 expm1 log fast_logf log2 fast_log2f log10 log1p sqrt "
            "rsqrt pow fast_dividef div_rn fma fmax fmin fabs floor ceil trunc sin cos tanh "
            "erf isnan isinf"
        ).split(),
        skip("libdevice's stand-in on Triton's interpreter: a GPU build uses the real one"),
    ),
    "tests/test_ring_crashes.py": dict.fromkeys(
        ("long_sum", "wide", "nothing", "first", "double", "triple", "broken"),
        skip("defined inside its test with the test's own dtypes (metal, launch bounds)"),
    ),
    "tests/test_ring_interrupts.py": {"work": ring()},
    "tests/test_ring_state_races.py": {"pair": ring("REQ", "REP", "PAIR")},
    "tests/test_ring_semantics.py": {"work": ring()},
    "tests/test_ring_state.py": {
        **dict.fromkeys(("counter", "tally", "grow"), ring("REQ", "REP", "STATE")),
        "running": ring("REQ", "REP", "WELFORD"),
        "flaky": skip("a pure-Python handler: CPU only"),
        "plain": ring(),
    },
    "tests/test_ring_stress.py": {
        "twice": ring(),
        "picky": skip("a pure-Python handler: CPU only"),
    },
}
# Kernels no decorator marks: plain functions a test passes to cuda.jit or pdc.kernel.
UNDECORATED = {
    "tests/kernels_for_tests.py": ("add", "scale2d"),
    "pdc/backends/cuda.py": ("_self_test_kernel",),
}


def find_all(root: Path) -> list[Found]:
    """Every kernel and handler of the course under ``root``."""
    found: list[Found] = []
    for pattern in SCAN:
        for path in sorted(root.glob(pattern)):
            found += discover(path, root)
    for rel, names in UNDECORATED.items():
        path = root / rel
        if path.is_file():
            from .discover import file_text
            from .gather import kernel_slice

            base = kernel_slice(file_text(path))
            found += [Found(rel, n, 0, "kernel", base) for n in names]
    return found


def _exercise_entry(f: Found) -> tuple | None:
    """A student's copy of an exercise kernel (``pdc ptx my/03_matmul.ipynb``)."""
    if f.kind != "kernel" or f.path in KERNELS:
        return None
    return _EXERCISE_ARGS.get(f.name)


def jobs_for(found: list[Found], ccs: list[tuple[int, int]]) -> tuple[list[dict], list[dict]]:
    """Compile jobs for the found kernels, and rows for those that are not compiled.

    Returns:
        ``(jobs, rows)``: jobs for ``compile_many``; rows (dicts with name, where, status,
        note) for skipped kernels, unlisted kernels and listed kernels no longer found.
    """
    from .compile import describe

    jobs: list[dict] = []
    rows: list[dict] = []
    seen: set[tuple[str, str]] = set()
    suite = [cc for cc in ccs if cc in SUITE_CCS] or list(ccs)
    for f in found:
        where = f"{f.path}:{f.line}" if f.line else f.path
        targets = {"ccs": suite} if f.path.startswith("tests/") else {}
        entry = KERNELS.get(f.path, {}).get(f.name) or _exercise_entry(f)
        seen.add((f.path, f.name))
        source = PRELUDE + f.source
        if entry is None:
            how = 'ring("REQ", "REP") (its dtypes)' if f.kind == "handler" else "its argument types"
            note = f'not in pdc/ptx/manifest.py: add "{f.name}": {how} under "{f.path}"'
            rows.append({"name": f.name, "where": where, "status": "unlisted", "note": note})
        elif entry[0] == "skip":
            rows.append({"name": f.name, "where": where, "status": "skip", "note": entry[1]})
        elif entry[0] == RING:
            params = {"source": source, "handler": f.name, "request": entry[1]}
            params |= {"reply": entry[2], "filename": f.path}
            if len(entry) > 3:
                params["state"] = entry[3]
            jobs.append(_call(f"ring {f.name}", where, "ring_unit", params) | targets)
        else:
            if entry[0] == "constants":  # bind what the kernel closed over, then compile
                constants: dict = dict(entry[2])  # type: ignore[arg-type]
                source += "".join(f"\n{k} = {v!r}" for k, v in constants.items()) + "\n"
                entry = entry[1]
            args = list(entry)
            job = {"name": f.name, "where": where, "source": source, "kernel": f.name}
            jobs.append(job | {"args": [describe(a) for a in args], "filename": f.path} | targets)
    for path, names in KERNELS.items():
        for name in names:
            if (path, name) not in seen:
                note = "listed in pdc/ptx/manifest.py but not found: remove or fix the entry"
                rows.append({"name": name, "where": path, "status": "missing", "note": note})
    jobs.append(_call("launch_per_message", "pdc/ring/tools/launch_each.py", "baseline_unit", {}))
    return jobs, rows


def _call(name: str, where: str, target: str, params: dict) -> dict:
    return {
        "kind": "call",
        "name": name,
        "where": where,
        "target": f"pdc.ptx.manifest:{target}",
        "params": params,
    }


# -- run in the compiling process (pdc.ptx.worker) -------------------------------------------
def _exec(source: str, filename: str) -> dict:
    mod = types.ModuleType(f"_pdc_ptx_{abs(hash(filename))}")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), mod.__dict__)
    return mod.__dict__


def ring_unit(
    source: str, handler: str, request: str, reply: str, filename: str, state: str | None = None
) -> tuple:
    """The real-GPU ring kernel around a handler defined in ``source`` (with state: ``state``)."""
    from pdc.ring.engines import cuda_kernel as ck
    from pdc.ring.handlers import HandlerSpec

    ns = _exec(source, filename)
    st = None if state is None else ns[state]
    spec = HandlerSpec.create(ns[handler], ns[request], ns[reply], state=st)
    return ck.compile_unit(spec)


def baseline_unit() -> tuple:
    """The launch-per-message kernel of ``pdc bench ring`` (one handler call per launch)."""
    import math

    from numba import cuda
    from numba import types as nt
    from numba.cuda.np.numpy_support import from_dtype

    from pdc.ring.engines import cuda_kernel as ck
    from pdc.ring.handlers import HandlerSpec
    from pdc.ring.tools import bench, launch_each

    spec = HandlerSpec.create(bench.double, bench.REQ, bench.REP)
    built = spec.build(select_impl=ck.select_device(False), math_impl=math)
    kernel = launch_each.build_single(cuda.jit(device=True)(built))
    argtypes = (from_dtype(spec.request)[::1], from_dtype(spec.reply)[::1], nt.int64[::1])
    return kernel.py_func, argtypes

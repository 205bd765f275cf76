"""One simulated launch in this process: arguments in, arrays updated, a LaunchReport out."""

from __future__ import annotations

import math

import numpy as np

from pdc.sim import machine, memops, program
from pdc.sim.frontend import (
    CompileError,
    Unsupported,
    lowering_error,
    numba_type,
    python_function,
    typed_ir,
)
from pdc.sim.memory import GLOBAL, SimArray


def dim3(v, what: str = "grid") -> tuple:
    """``v`` (an int or 1-3 ints) as three positive ints."""
    t: tuple
    if isinstance(v, int | np.integer):
        t = (int(v),)
    else:
        t = tuple(int(x) for x in v)
    if not 1 <= len(t) <= 3 or min(t) < 1:
        raise ValueError(f"[sim.launch] expected 1-3 positive {what} dimensions, got {v!r}")
    return (t + (1, 1))[:3]


def debug_of(kernel) -> bool:
    """Whether ``kernel`` was jitted with ``debug=True`` (numba-cuda's dispatcher, or numba's
    own simulator's kernel)."""
    options = getattr(kernel, "targetoptions", None)
    if isinstance(options, dict):
        return bool(options.get("debug", False))
    return bool(getattr(kernel, "_debug", False))


def launch_here(
    kernel, grid, block, args, names=None, record: bool = False, ops_limit=None, debug=None
):
    """Run ``kernel[grid, block](*args)`` on the SIMT machine; arrays are updated in place.

    ``ops_limit``: (memory operations, why) one thread may make before the launch counts as
    an endless loop, when fewer than pdc.sim.machine.OPS_PER_THREAD (the grader's, from what
    the whole launch is expected to make: pdc.grade.grader).
    ``debug``: the kernel was jitted with ``debug=True`` (None: ask ``kernel``, which the
    worker's plain function cannot answer).

    Returns:
        A pdc.grade.simreport.LaunchReport.

    Raises:
        ValueError: bad geometry (over 1024 threads per block).
    """
    from pdc.grade.simreport import Dim3, LaunchReport

    fn = python_function(kernel)
    grid, block = dim3(grid, "grid"), dim3(block, "block")
    if math.prod(block) > 1024:
        raise ValueError(f"[sim.launch] expected at most 1024 threads per block, got {block}")
    if names is None:
        code = fn.__code__
        names = list(code.co_varnames[: code.co_argcount])
    S = machine.Launch(grid, block, fn.__name__, record, ops_limit)
    S.debug = debug_of(kernel) if debug is None else bool(debug)
    host = [np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a for a in args]
    sim_args = []
    for name, a in zip(names, host):
        if isinstance(a, np.ndarray):
            arr = SimArray(name, GLOBAL, a.shape, a.dtype, data=a.copy())
            arr.loads = machine.Counts(S.N)
            arr.stores = machine.Counts(S.N)
            arr.written = np.zeros(S.N, np.int64)
            if record:
                from pdc.sim.cudaops import _access_dict

                arr.access = _access_dict(arr)
            S.arrays.append(arr)
            S.by_arg.append(arr)
            sim_args.append(arr)
        else:
            t = numba_type(a)
            from pdc.sim.frontend import dtype_of

            sim_args.append(dtype_of(t).type(a))
            S.by_arg.append(None)
    prog = None
    argtypes: tuple = ()
    try:
        argtypes = tuple(numba_type(a) for a in host)
        tir = typed_ir(fn, argtypes)
        prog = program.build(tir)
        with np.errstate(all="ignore"):
            machine.run_function(S, prog, sim_args, [None] * len(sim_args), S.alive.copy(), True)
    except CompileError as e:
        S.finding("error", f"numba-cuda cannot compile the kernel: {e}")
    except Unsupported as e:
        refused = lowering_error(fn, argtypes)  # typed, but numba-cuda cannot lower it
        if refused is None:
            S.finding("error", str(e))
        else:
            S.finding("error", f"numba-cuda cannot compile the kernel: {refused}")
    except machine.KernelError as e:
        S.finding("error", str(e))
    memops.mixed_at_end(S)
    for a, arr in zip(args, S.by_arg):
        if arr is not None:
            a[...] = arr.flat.reshape(arr.shape)
    return _report(S, prog, Dim3(*grid), Dim3(*block), LaunchReport)


def _report(S, prog, grid, block, LaunchReport):
    real = S.real
    rep = LaunchReport(grid=grid, block=block)
    for arr in S.by_arg:
        if arr is None:
            continue
        rep.loads[arr.name] = arr.loads.value()[real]
        rep.stores[arr.name] = arr.stores.value()[real]
        rep.written[arr.name] = arr.written[real]
        rep.atomic_counts[arr.name] = arr.atomic_counts.reshape(arr.shape)
    rep.shared_loads = S.sl.value()[real]
    rep.shared_stores = S.ss.value()[real]
    rep.atomics = S.at[real]
    total = S.operations()
    rep.ops = total[real]
    rep.span = S.spans.final(total)[real]
    rep.shuffles = S.shuffles.value()[real]
    rep.findings = S.findings
    rep.barriers = int(S.bep.max()) if S.bep.size else 0
    rep.shared_arrays = S.shared_arrays
    rep.bank_conflicts = S.an.bank_report(prog)
    rep.sectors = {}
    for arr in S.by_arg:
        if arr is None:
            continue
        for kind in ("load", "store"):
            acc, sec, ideal = S.an.sector.get(f"{arr.name}:{kind}", (0, 0, 0))
            rep.sectors[f"{arr.name}:{kind}"] = {"accesses": acc, "sectors": sec, "ideal": ideal}
    rep.requests = {}
    for (name, kind, line), (acc, sec, ideal, over, worst) in sorted(S.an.by_line.items()):
        rep.requests[f"{name}:{kind}:{line}"] = {
            "requests": acc,
            "sectors": sec,
            "ideal": ideal,
            "over": over,
            "worst": worst,
        }
    rep.shared_atomics = S.an.shared_atomics
    rep.shared_contention = S.an.shared_contention
    if S.record:
        rep.access = {}
        for arr in S.by_arg:
            if arr is not None:
                rep.access[arr.name] = _shaped(arr.access, arr.shape)
        k = 0
        for arr in S.arrays:
            if arr.kind == "shared":
                # titled with the student's variable name (pdc.grade.plots.access_map)
                rep.access[f"shared:{k}"] = {**_shaped(arr.access, arr.shape), "name": arr.name}
                k += 1
    return rep


def _shaped(acc, shape):
    return {
        "shape": tuple(shape),
        "thread": acc["thread"].reshape(shape),
        "reads": acc["reads"].reshape(shape),
        "writes": acc["writes"].reshape(shape),
        "oob": list(acc["oob"]),
    }

"""Run generated kernels (tests/sim_fuzz_gen.py) on pdc.sim and on numba.njit; compare.

The oracle is numba's CPU lowering of the same loop body with ``error_model="numpy"``, the
error model numba-cuda compiles with when not debugging (numba_cuda's compiler.py): float
division by zero gives inf or nan, integer division or remainder by zero gives 0. pdc.sim
reports the latter as a finding; its value must still be numba's 0.

Integers and bools compare bit for bit. Floats compare bit for bit too (NaNs as NaN, the
sign of a zero counted), except in an expression using a function that NumPy, the CPU's
libm and CUDA's libdevice each round in their own way (exp, log, sin, pow with a float
exponent...): there within ``ULPS`` units in the last place of the narrowest float type
involved; a difference past that (a last bit amplified by a comparison, a truncation or a
cancellation) is reported as ``approx`` and not counted, since libdevice's rounding of
those functions is a third one. numba raising in a thread (``0.0 ** -1``) must be a thread
that stops in pdc.sim too.

Signed integer ``+ - * **`` carry LLVM's ``nsw`` flag in numba and numba-cuda alike (numba's
``_int_arith_flags``): an overflow is undefined, and LLVM's optimizer uses that (it folds
``x * x != 0`` to ``x != 0``, ``min(x * x, 0)`` to 0). pdc.sim wraps, as the hardware does
where the optimizer has not used the overflow; so the oracle runs with ``NUMBA_OPT=0``
(the same lowering, unoptimized), and ``main`` refuses to run without it.

As a script, a long run: ``NUMBA_OPT=0 python -m tests.sim_fuzz SEED0 COUNT`` prints each
mismatch as a JSON line, progress every 100 kernels, and a summary at the end.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass

import numpy as np

from tests import sim_fuzz_gen as G

ULPS = 64  # for approximate functions, in the output's dtype (libdevice's pow is 2 ulp)


@dataclass
class Mismatch:
    seed: int
    expr: str
    kind: str  # "value", "sim-error", "finding"
    detail: str


def return_types(case: G.Case):
    """numba's (CPU) type for each expression, or None where numba cannot type the case."""
    import numba
    from numba.core.errors import NumbaError
    from numba.np.numpy_support import as_dtype

    probe = G.compile_source(G.typing_probe(case), "probe", f"probe-{case.seed}")
    disp = numba.njit(error_model="numpy")(probe)
    try:
        disp.compile(tuple(numba.typeof(a) for a in case.args))
    except NumbaError:
        return None
    rt = disp.nopython_signatures[0].return_type
    return [np.dtype(as_dtype(t)) for t in rt]


def _equal(m: np.ndarray, t: np.ndarray, approx: np.dtype | None) -> np.ndarray:
    """Elementwise: do the simulator's ``m`` and the oracle's ``t`` agree?"""
    if m.dtype.kind != "f":
        return m == t
    same = (m == t) & (np.signbit(m) == np.signbit(t))
    same |= np.isnan(m) & np.isnan(t)
    if approx is not None:
        # ulps of the narrowest float the expression computes in: sinf's last bit, in a
        # float64 result, is many float64 ulps
        with np.errstate(all="ignore"):
            big = np.maximum(np.abs(m), np.abs(t)).astype(approx)
            ulp = np.abs(np.spacing(big)).astype(m.dtype)
            same |= np.isfinite(m) & np.isfinite(t) & (np.abs(m - t) <= ULPS * ulp)
    return same


def run_case(case: G.Case) -> tuple[str, list[Mismatch]]:
    """``("typed", mismatches)``, or ``("untyped", [])`` where numba refuses the case."""
    import numba

    import pdc.sim as sim

    dtypes = return_types(case)
    if dtypes is None:
        return "untyped", []
    mine = [np.zeros(G.N, dt) for dt in dtypes]
    theirs = [np.zeros(G.N, dt) for dt in dtypes]
    oracle = numba.njit(error_model="numpy")(
        G.compile_source(case.oracle_src, "orac", f"orac-{case.seed}")
    )
    raised = _run_oracle(oracle, case, theirs)
    kern = G.compile_source(case.kernel_src, "kern", f"kern-{case.seed}")
    names = G.input_names(case) + [f"o{k}" for k in range(len(dtypes))]
    rep = sim.launch(kern, 2, 32, [*case.args, *mine], names)
    out = []
    sim_raised = False  # the outputs show which threads stopped; this, that one did
    for kind, v in rep.findings.items():
        for text in v["examples"]:
            if "numba-cuda cannot compile" in text:
                # numba-cuda types some calls unlike numba on a CPU: not the simulator's
                return "cuda-untyped", [Mismatch(case.seed, "", "cuda-typing", text[:300])]
            if "the kernel raised" in text:
                sim_raised = True
            elif "division by zero" not in text and "modulo by zero" not in text:
                out.append(Mismatch(case.seed, "", "finding", f"{kind}: {text}"))
    if sim_raised != bool(raised):
        detail = f"numba raised in threads {sorted(raised)[:8]}; pdc.sim: {sim_raised}"
        out.append(Mismatch(case.seed, "", "raise", detail))
    arrays = [a for a in case.args if isinstance(a, np.ndarray | np.generic)]
    for k, (m, t) in enumerate(zip(mine, theirs)):
        narrow = "float32" in str([a.dtype for a in arrays]) or "float32(" in case.exprs[k]
        tol = np.dtype(np.float32 if narrow else np.float64) if case.approx[k] else None
        bad = ~_equal(m, t, tol)
        if bad.any():
            # past the tolerance, an approximate function's last bit was amplified: by a
            # comparison, a truncation, a cancellation (1 + tanh(-19)) or a % of exp(72):
            # reported, not counted (libdevice rounds those functions its own way again)
            kind = "approx" if case.approx[k] else "value"
            j = int(np.argmax(bad))
            inputs = {
                n: _show(a[j] if isinstance(a, np.ndarray) else a)
                for n, a in zip(G.input_names(case), case.args)
            }
            detail = (
                f"{int(bad.sum())}/{G.N} differ; at {j}: sim {_show(m[j])} numba "
                f"{_show(t[j])} ({m.dtype}); inputs {inputs}"
            )
            out.append(Mismatch(case.seed, case.exprs[k], kind, detail))
    return "typed", out


def _run_oracle(oracle, case: G.Case, outs: list) -> set[int]:
    """Run the oracle over every element; the elements where numba raised.

    numba-cuda compiles its internal helpers (the ``1.0 / r`` of ``x ** -n``) with the
    Python error model even when the kernel has NumPy's, as numba does on a CPU: where one
    raises, a GPU thread returns at once (no exception without ``debug=True``), its later
    stores undone, which is what running the oracle element by element shows.
    """
    with np.errstate(all="ignore"):
        try:
            oracle(0, G.N, *case.args, *outs)
            return set()
        except (ZeroDivisionError, OverflowError):
            pass
        raised = set()
        for o in outs:
            o[:] = 0
        for i in range(G.N):
            try:
                oracle(i, i + 1, *case.args, *outs)
            except (ZeroDivisionError, OverflowError):
                raised.add(i)
    return raised


def _show(v) -> str:
    return f"{type(v).__name__}({v!r})" if isinstance(v, np.generic) else repr(v)


def main(argv: list[str]) -> int:
    import numba

    opt = getattr(numba.config, "OPT", None)  # set from NUMBA_OPT at import
    if opt != 0:
        print("[sim_fuzz] expected NUMBA_OPT=0 (see the module docstring), got", opt)
        return 2
    seed0, count = int(argv[0]), int(argv[1])
    t0, typed, untyped, bad = time.time(), 0, 0, 0
    cuda_untyped = 0
    for seed in range(seed0, seed0 + count):
        case = G.make_case(seed)
        try:
            status, mism = run_case(case)
        except Exception as e:  # noqa: BLE001 - a long run reports and goes on
            print(json.dumps({"seed": seed, "kind": "crash", "detail": repr(e)[:500]}), flush=True)
            bad += 1
            continue
        if (seed - seed0) % 100 == 99:
            print(json.dumps({"progress": seed - seed0 + 1, "s": time.time() - t0}), flush=True)
        typed += status == "typed"
        untyped += status == "untyped"
        cuda_untyped += status == "cuda-untyped"
        for m in mism:
            bad += m.kind not in ("cuda-typing", "approx")
            print(json.dumps(m.__dict__), flush=True)
    summary = {
        "kernels": typed,
        "untyped": untyped,
        "cuda_untyped": cuda_untyped,
        "mismatches": bad,
        "s": time.time() - t0,
    }
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

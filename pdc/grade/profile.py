"""Operations per thread against the model answer's (the ``parallel`` criterion).

pdc.sim counts each thread's operations (arithmetic, loop steps, shuffles and votes, memory
accesses: pdc.sim.work) and its *span*, the most of them between two ``syncthreads``. A
kernel that spreads its work does about what the model answer's busiest thread does; one
lane adding its warp's 32 values by 31 shuffles, or walking 16 values alone between two
barriers, makes several times as many, even where its memory accesses stay few (values
travel in registers). A part records the model's numbers (``Part.model_ops``,
``Part.model_span``); a thread may make ``MARGIN`` times as many plus ``SLACK``: room for a
different but parallel style (a shared-memory tree instead of shuffles, a grid-stride loop,
an early return), not for a loop over a warp's worth of values.
"""

from __future__ import annotations

#: A thread may make this many times the model answer's operations (and span) ...
MARGIN = 2
#: ... plus this many: a guard, a loop's step or an index computed another way.
SLACK = 8


def budget(model: int) -> int:
    """The most operations one thread may make where the model's busiest thread makes ``model``."""
    return MARGIN * model + SLACK


def too_busy(part, r) -> str | None:
    """Why a case's busiest thread does more than the model answer allows (None: it does not).

    Args:
        part: The pdc.grade.spec.Part, with ``model_ops`` and/or ``model_span`` set.
        r: A pdc.grade.judge.CaseResult that came back with a report.

    Returns:
        The feedback line, or None.
    """
    if part.model_ops is None and part.model_span is None:
        return None
    rep = r.report
    checks = (
        (part.model_ops, rep.ops, "operations"),
        (part.model_span, rep.span, "operations between two barriers"),
    )
    for model, per_thread, what in checks:
        if model is None or per_thread is None or not per_thread.size:
            continue
        worst, bound = int(per_thread.max()), budget(model)
        if worst <= bound or _spread_evenly(part, per_thread, rep.work() > 0, worst):
            continue
        if r.case.hidden:  # the numbers could reveal the hidden sizes
            return f"{r.case.label}: one thread does the work of many"
        why = (
            "the block waits at each barrier for its slowest thread: does one lane walk "
            "many values alone?"
            if what.endswith("barriers")
            else "is one thread (or one lane per warp) doing the work of many?"
        )
        return (
            f"case {r.case.label}: one thread made {worst} {what}, at most {bound} expected "
            f"({MARGIN} x the model answer's busiest thread, {model}, + {SLACK}): {why}"
        )
    return None


def _spread_evenly(part, per_thread, working, worst: int) -> bool:
    """True where the part judges balance (``Part.imbalance``) and the busiest thread makes
    at most that many times the mean of the threads that touched memory (a thread that only
    found itself outside the matrix is not one the work could have gone to)."""
    if part.imbalance is None:
        return False
    busy = per_thread[working] if working.shape == per_thread.shape else per_thread
    busy = busy[busy > 0]
    return bool(busy.size) and worst <= part.imbalance * float(busy.mean())


def measure(seed: int = 11) -> dict[str, tuple[int | None, int | None]]:
    """The model answers' busiest thread: part name -> (operations, span).

    Every solution kernel of a part that records a profile, and those of its
    ``Part.model_peers``, runs on pdc.sim over the part's public cases and the hidden cases
    drawn with ``seed``. A number the part leaves None is None here too. Run
    ``python -m pdc.grade.profile`` to see the numbers the parts should record.

    Raises:
        RuntimeError: A model answer has findings on a case (it would not be a model).
    """
    import numpy as np

    import pdc.sim as sim
    from pdc.grade import spec
    from pdc.sim import bench_solutions

    texts = {part.name: text for _, part, text in bench_solutions.kernels()}
    out: dict[str, tuple[int | None, int | None]] = {}
    for _, part, _ in bench_solutions.kernels():
        if part.model_ops is None and part.model_span is None:
            continue
        ops = span = 0
        for name in (part.name, *part.model_peers):
            fn = bench_solutions._define(texts[name], name)
            cases = spec.public_cases(part) + spec.hidden_cases(part, np.random.default_rng(seed))
            for case in cases:
                args = [a.copy() if isinstance(a, np.ndarray) else a for a in case.args.values()]
                rep = sim.launch_here(fn, case.grid, case.block, args, list(case.args))
                if rep.findings or rep.ops is None or rep.span is None:
                    raise RuntimeError(
                        f"[profile] expected a clean run of {name}'s model answer on "
                        f"{part.name}'s case {case.label}, got findings {sorted(rep.findings)}"
                    )
                ops, span = max(ops, int(rep.ops.max())), max(span, int(rep.span.max()))
        out[part.name] = (
            ops if part.model_ops is not None else None,
            span if part.model_span is not None else None,
        )
    return out


if __name__ == "__main__":
    import json

    print(json.dumps(measure()))

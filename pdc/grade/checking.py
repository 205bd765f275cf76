"""Instant feedback in a notebook: run a kernel on its exercise's public cases and explain.

The check runs in the notebook's own process on pdc's instrumented simulator (pdc.grade.sim),
so it is for learning, not for grading: ``pdc grade`` runs the kernel in a separate process,
adds hidden cases and scores there.
"""

from __future__ import annotations

import ast
import inspect
import textwrap

import numpy as np

from pdc.grade import exercises as exs
from pdc.grade import sim, source
from pdc.grade.judge import CaseResult, judge, summary


def _static_problems(fn, ex) -> list[str]:
    try:
        src = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(src)
    except (OSError, TypeError, SyntaxError):
        return []  # no source to check (e.g. defined by exec): the grader will still check it
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    if node is None:
        return []
    g = fn.__globals__
    known = set(source.MODULE_ROOTS) | set(source.DTYPE_NAMES) | set(source.ALLOWED_BUILTINS)
    known |= set(ex.constants)
    known |= {k for k, v in g.items() if isinstance(v, (int, float, tuple)) or callable(v)}
    return source.check_function(node, known)


def run_public(kernel, name: str | None = None) -> tuple:
    """Run a kernel on its public cases; returns (part, verdicts)."""
    fn = sim.kernel_function(kernel)
    name = name or fn.__name__
    ex, part = exs.find_part(name)
    problems = _static_problems(fn, ex)
    cases = exs.public_cases(part)
    expected = [part.reference(c.args) for c in cases]
    results = []
    for c in cases:
        if problems:
            results.append(CaseResult(c, failure="rejected: " + "; ".join(problems[:3])))
            continue
        args = [v.copy() if isinstance(v, np.ndarray) else v for v in c.args.values()]
        rep = sim.launch(fn, c.grid, c.block, args, list(c.args), schedules=2)
        outputs = {o: args[list(c.args).index(o)] for o in c.outputs}
        results.append(CaseResult(c, outputs=outputs, report=rep))
    import dataclasses

    public_part = dataclasses.replace(
        part, points={k: v for k, v in part.points.items() if k != "hidden"}
    )
    return public_part, judge(public_part, results, expected)


def check(kernel, name: str | None = None) -> None:
    """Check a kernel against its exercise's public cases and print specific feedback.

    Args:
        kernel: The ``@cuda.jit`` kernel (or its Python function).
        name: The exercise kernel it answers (default: the function's name).

    The feedback names each failing case, the first mismatching index and the expected and
    actual values, and any out-of-bounds access, race or divergent barrier with the thread
    and kernel line where it happened.
    """
    fn = sim.kernel_function(kernel)
    name = name or getattr(kernel, "kernel_id", None) or fn.__name__
    _, plugin = exs.find_part(name, plugins=True)
    if plugin.checker is not None:  # a part that checks itself (the ring handler)
        plugin.checker(kernel)
        from pdc.ptx.resources import ring_check_line

        print(ring_check_line(kernel))
        return
    part, verdicts = run_public(kernel, name)
    print(summary(part, verdicts))
    from pdc.ptx.resources import check_line

    print(check_line(kernel, part.name))

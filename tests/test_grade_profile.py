"""The model answers' operations per thread, as the parts record them (pdc.grade.profile).

``Part.model_ops`` and ``Part.model_span`` are measured, not chosen: this test runs every
solution kernel that has them on pdc.sim, over the public cases and one draw of hidden
ones, and checks the recorded numbers are the busiest thread's, and that the model answer
keeps its margin.
"""

import numpy as np
import pytest

import pdc.sim as sim
from pdc.grade import profile, spec
from pdc.sim import bench_solutions

PROFILED = [
    (key, part, text) for key, part, text in bench_solutions.kernels() if part.model_ops is not None
]


def test_the_parts_that_need_it_are_profiled():
    names = {part.name for _, part, _ in PROFILED}
    assert {"multiply", "saxpy", "block_scan", "block_sum_warp"} <= names


@pytest.mark.parametrize("key, part, text", PROFILED, ids=[p.name for _, p, _ in PROFILED])
def test_recorded_profile_is_the_model_answers(key, part, text):
    fn = bench_solutions._define(text, part.name)
    cases = spec.public_cases(part) + spec.hidden_cases(part, np.random.default_rng(11))
    ops = span = 0
    for case in cases:
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in case.args.values()]
        rep = sim.launch_here(fn, case.grid, case.block, args, list(case.args))
        assert not rep.findings, (case.label, rep.findings)
        ops, span = max(ops, int(rep.ops.max())), max(span, int(rep.span.max()))
    assert (ops, span) == (part.model_ops, part.model_span)
    assert profile.budget(ops) > ops and profile.budget(span) > span

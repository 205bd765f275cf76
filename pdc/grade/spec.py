"""What an exercise is: its parts (kernels), cases, criteria and points, and how cases are drawn.

Each exercise is one module of pdc.grade.exercises that builds its ``Exercise`` from these
classes; nothing here names an exercise. This belongs to the trusted side of grading: it
generates inputs, computes expected values and judges the raw results a kernel run sends back.
Public cases are fixed and shown in feedback; hidden cases are drawn at grading time from a
seed the grader picks and are never described to the student beyond "hidden case k".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

# Quality criteria are only awarded to a kernel that already passes its public cases.
QUALITY = ("bounds", "sync", "parallel", "memory")

CRITERION_TITLES = {
    "public": "public cases",
    "hidden": "hidden cases",
    "bounds": "bounds guard (no out-of-bounds access)",
    "sync": "barriers (no races, no divergent barriers, no uninitialised shared reads, "
    "no reads of inactive lanes)",
    "parallel": "work spread over threads",
    "memory": "memory optimisation (shared memory cuts global loads)",
}


@dataclass
class Case:
    """One launch of a kernel: arguments, geometry, and which arguments are outputs."""

    label: str
    args: dict  # name -> ndarray or scalar, in kernel parameter order
    outputs: tuple
    grid: tuple
    block: tuple
    hidden: bool = False
    dims: dict = field(default_factory=dict)  # sizes used by criteria (n, m, k, ...)


@dataclass
class Part:
    """One kernel of an exercise."""

    name: str  # the kernel's function name in the notebook
    title: str
    params: tuple  # kernel parameter names, in order
    public: list  # size tuples
    hidden: Callable  # rng -> list of size tuples
    make: Callable  # (rng, sizes) -> Case
    reference: Callable  # case.args -> {output name: expected array}
    points: dict  # criterion -> points
    max_work: Callable | None = None  # case -> largest allowed memory ops for one thread
    work_what: str = "expected"  # how feedback names max_work ("expected for a tree ...")
    # Largest number of global atomics one element may receive in a launch, judged under
    # "parallel" (atomics on one address are served one after another): None, not judged.
    max_contention: int | None = None
    max_stores: int | None = None  # largest allowed output stores for one thread
    # case -> most shuffles one thread may make, judged under "parallel": a tree of shuffles
    # brings a warp's values to one lane in log2(32) = 5 steps, one lane pulling them one at a
    # time in 31 (values in registers: neither memory accesses nor a barrier show it).
    max_shuffles: Callable | None = None
    # The model answer's busiest thread, measured on pdc.sim over the public and hidden cases
    # (tests/test_grade_profile.py re-measures it): operations, and operations between two
    # barriers. Judged under "parallel" with pdc.grade.profile's margin; None, not judged.
    model_ops: int | None = None
    model_span: int | None = None
    # Where set, a thread over that budget fails "parallel" only when it also makes more than
    # this many times the mean of the launch's busy threads: work every thread repeats alike
    # (a loop over the whole tile with a guard) is slow, not one thread doing many's work.
    imbalance: float | None = None
    # Parts of other exercises whose model answers compute this part's outputs from the same
    # arguments and launch (exercise 10's warp-shuffle block sum is exercise 5's block sum):
    # the busiest thread of any of them is a model's, so a style they use stays in budget.
    model_peers: tuple = ()
    global_loads: Callable | None = None  # (case, report loads) -> (per-output, bound)
    rtol: float = 1e-4
    atol: float = 1e-4
    # A plug-in part grades itself: runner(ex, part, cells, *, seed, timeout, hidden,
    # extra_seeds) -> PartResult, checker(kernel) prints in-notebook feedback, and titles
    # names the criteria it adds to CRITERION_TITLES.
    runner: Callable | None = None
    checker: Callable | None = None
    # resources(kernel) -> the line check() prints about the kernel's real-GPU build, for a
    # part whose kernel is not launched with the arguments of its first public case.
    resources: Callable | None = None
    titles: dict = field(default_factory=dict)
    # warm() does once, in a grading zygote before it forks (pdc.grade.zygote), what every
    # run of this part would repeat (a compiled loop shared by every submission).
    warm: Callable | None = None
    # A module (a runtime of pdc) whose import in the cell that imports the checks says this
    # part's in-notebook check runs in the notebook's process: importing the checks there
    # then starts ``warm`` in a background thread instead of pdc.sim's worker (pdc.grade).
    warm_with: str | None = None
    # Criteria of the exercise's own: criterion -> judge(part, results) -> (fraction, text),
    # where results are the judge module's CaseResults of the cases that ran (public first
    # is not guaranteed; hidden ones must not reveal sizes). Each needs a title in titles.
    judges: dict = field(default_factory=dict)
    # The spec's stated domain, in words, and the boundaries of that domain that every draw
    # of hidden cases must reach: name -> predicate(Case) -> bool (tests check every seed).
    domain: str = ""
    boundaries: dict = field(default_factory=dict)
    # What check() runs, for the instructor guide, where the part's runner draws its own
    # public cases (a plug-in's own streams); other parts' come from ``public``.
    public_labels: tuple = ()
    # A plug-in part that makes its own hidden cases: rng -> list of Cases.
    draw: Callable | None = None
    # Hints where a general one would mislead: "nonfinite" explains outputs that are inf or
    # nan where the expected ones are finite (default: judge.NONFINITE_HINT).
    hints: dict = field(default_factory=dict)

    def criterion_title(self, criterion: str) -> str:
        """What a criterion checks, in words."""
        return self.titles.get(criterion) or CRITERION_TITLES[criterion]

    @property
    def max_points(self) -> float:
        return float(sum(self.points.values()))


@dataclass
class Exercise:
    """A notebook: its parts, and the constants the notebook defines for its kernels."""

    key: str
    title: str
    parts: list
    constants: dict


def public_only(part: Part) -> Part:
    """``part`` without its hidden-case points: what a check on the public cases can score."""
    return replace(part, points={k: v for k, v in part.points.items() if k != "hidden"})


def public_cases(part: Part, seed: int = 0) -> list[Case]:
    """The fixed public cases of a part (same inputs every time)."""
    rng = np.random.default_rng(seed)
    return [part.make(rng, s) for s in part.public]


def hidden_cases(part: Part, rng: np.random.Generator) -> list[Case]:
    """Hidden cases, drawn from ``rng`` (the grader seeds it at grading time)."""
    if part.draw is not None:
        cases = part.draw(rng)
    else:
        cases = [part.make(rng, s) for s in part.hidden(rng)]
    for k, c in enumerate(cases, 1):
        c.hidden = True
        c.label = f"hidden case {k}"
    return cases

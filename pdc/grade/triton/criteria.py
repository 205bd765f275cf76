"""How a Triton kernel's runs are judged: values, masks, programs, traffic and launch order.

``judge`` turns the raw results of the cases (outputs, and the loads, stores and programs
``pdc.grade.triton.interp`` counted) into one Verdict per criterion. Quality criteria are
awarded only to a kernel that passes its public cases, as for every exercise. Hidden cases
are named "hidden case k" and never described.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pdc.grade.judge import Verdict

TITLES = {
    "bounds": "masks (no load or store outside a tensor)",
    "parallel": "one program per row (each program stores its own row only)",
    "memory": "global traffic (loads of the inputs per output element)",
    "l2": "grouped launch order (programs running together share tiles of A and B)",
}
PAD = -7.0  # what outputs hold before a launch (pdc.grade.triton.exercises.PAD)
WAVE = 8  # programs taken as running at the same time for the launch-order criterion


@dataclass
class Run:
    """What one case's run sent back."""

    outputs: dict = field(default_factory=dict)
    loads: dict = field(default_factory=dict)  # tensor -> loads per element
    stores: dict = field(default_factory=dict)
    programs: list = field(default_factory=list)  # (program, tensor, first, last, stores)
    out_of_range: int = 0
    examples: list = field(default_factory=list)
    error: str = ""


def _difference(case, name, want, got, part) -> str:
    if got.shape != want.shape:
        return f"{name} has shape {got.shape}, expected {want.shape}"
    ok = np.isclose(got, want, rtol=part.rtol, atol=part.atol)
    if ok.all():
        return ""
    bad = np.argwhere(~ok)
    at = tuple(int(i) for i in bad[0])
    where = ", ".join(map(str, at))
    text = f"{name} differs at {len(bad)} of {want.size} elements; first at [{where}]: "
    text += f"expected {want[at]:.6g}, got {got[at]:.6g}"
    if want[at] == PAD:
        text += " (the padding after a row: a store past n_cols?)"
    elif got[at] == PAD:
        text += f" (the output holds {PAD:g} before the launch: nothing was stored there)"
    elif name == "c_ptr" and np.allclose(got, want, rtol=1e-2, atol=1e-2):
        text += (
            " (all close to 1%: tl.dot rounds float32 inputs to TF32 by default on a GPU; "
            'input_precision="ieee" keeps float32)'
        )
    return text


def _problem(case, run: Run | None, expected: dict, part) -> str:
    if run is None:
        return "no result"
    if run.error:
        return run.error
    if run.out_of_range:  # as on a GPU, an access outside the tensors fails its case
        return run.examples[0] if run.examples else "a load or store outside every tensor"
    for name, want in expected.items():
        why = _difference(case, name, want, run.outputs[name], part)
        if why:
            return why
    return ""


def _kind(run: Run | None) -> str:
    """What kind of failure a failed case's ``run`` shows, for a hidden case's line."""
    if run is None:
        return "no result"
    if run.error:
        return "the kernel failed"
    if run.out_of_range:
        return "out-of-bounds access"
    return "wrong values"


def judge(part, cases, runs, expected, rejected: str = "") -> list[Verdict]:
    """One Verdict per criterion of ``part``."""
    verdicts: list[Verdict] = []

    def add(criterion, fraction, text):
        pts = float(part.points[criterion])
        title = f"{part.name}: {part.criterion_title(criterion)}"
        verdicts.append(Verdict(title, criterion, round(pts * fraction, 2), pts, text))

    problems = [rejected or _problem(c, r, e, part) for c, r, e in zip(cases, runs, expected)]
    pub = [(c, p) for c, p in zip(cases, problems) if not c.hidden]
    public_ok = all(not p for _, p in pub)
    lines = [rejected] if rejected else [f"case {c.label}: {p}" for c, p in pub if p]
    add("public", float(public_ok), "\n".join(lines) or f"all {len(pub)} public cases pass")
    if "hidden" in part.points:
        hid = [(c, r, p) for c, r, p in zip(cases, runs, problems) if c.hidden]
        good = sum(not p for _, _, p in hid)
        text = [f"{good} of {len(hid)} hidden cases pass"]
        # the kind of failure only, as for CUDA kernels: details could reveal hidden sizes
        text += [
            f"{c.label} failed: {'rejected' if rejected else _kind(r)}" for c, r, p in hid if p
        ]
        add("hidden", good / len(hid) if hid else 0.0, "\n".join(text))
    done = [(c, r) for c, r in zip(cases, runs) if r is not None and not r.error]
    gate = "" if public_ok and not rejected else "not awarded until the public cases pass"
    if "bounds" in part.points:
        bad = [(c, r) for c, r in done if r.out_of_range]
        found = "\n".join(f"{_label(c)}: {r.examples[0]}" for c, r in bad[:3] if r.examples)
        add(
            "bounds",
            float(not gate and not bad),
            found or gate or "every load and store inside its tensor",
        )
    for criterion, fn in part.judges.items():
        if gate:
            add(criterion, 0.0, gate)
        else:
            fraction, text = fn(part, done)
            add(criterion, fraction, text)
    return verdicts


def _label(case) -> str:
    return case.label if case.hidden else f"case {case.label}"


def one_program_per_row(part, done) -> tuple[float, str]:
    """Each program stores into one row of y, and no two programs into the same row. Which
    program takes which row is the kernel's choice (a GPU runs them in no set order):
    ``row = tl.num_programs(0) - 1 - tl.program_id(0)`` is as parallel as
    ``row = tl.program_id(0)``. A row no program stored is a wrong output (the public and
    hidden criteria), not a matter of parallelism: a kernel that stores nothing for rows of
    one column loses those cases, not this point too."""
    for case, run in done:
        stride = int(case.args["y_stride"])
        owner: dict = {}
        for program, name, first, last, _ in run.programs:
            if name != "y_ptr":
                continue
            p, row = program[0], first // stride
            if row != last // stride:
                return 0.0, (
                    f"{_label(case)}: program {p} stored into rows {row} to {last // stride}; "
                    "each program should store one row only"
                )
            if owner.setdefault(row, p) != p:
                return 0.0, f"{_label(case)}: programs {owner[row]} and {p} both stored row {row}"
    return 1.0, "each program stores its own row"


def _global_loads(run: Run) -> int:
    """Loads of every tensor: a kernel that copies its input into an output and reads the
    copy back makes the same global traffic as reading the input again."""
    return int(sum(v.sum() for v in run.loads.values()))


def softmax_loads(part, done) -> tuple[float, str]:
    """At most two loads of each element of x: an online (max, sum) pass, then one to write."""
    worst, where, back = 0.0, None, ""
    for case, run in done:
        per = _global_loads(run) / (case.dims["rows"] * case.dims["n"])
        if per > worst:
            worst, where = per, case
            back = " (y read back included)" if run.loads["y_ptr"].any() else ""
    if where is not None and worst > 2.0 + 1e-9:
        return 0.0, (
            f"{_label(where)}: {worst:.2f} loads of each element of x{back}; two passes are "
            "enough (a running max with a rescaled running sum, then the normalised write)"
        )
    return 1.0, f"at most {worst:.2f} loads of each element of x"


def _tiled_bound(case, bm: int, bn: int, bk: int) -> float:
    m, n, k = case.dims["m"], case.dims["n"], case.dims["k"]
    tiles = math.ceil(m / bm) * math.ceil(n / bn)
    per_tile = math.ceil(k / bk) * bk * (bm + bn)  # a K loop loads a tile of A and one of B
    return tiles * per_tile / (m * n)


def matmul_loads(part, done) -> tuple[float, str]:
    """Loads of A and B per element of C, against a K loop over tiles (each loaded once)."""
    from .exercises import MM

    for case, run in done:
        m, n = case.dims["m"], case.dims["n"]
        per = _global_loads(run) / (m * n)  # C read back counts as much as A or B
        bound = _tiled_bound(case, MM["BLOCK_M"], MM["BLOCK_N"], MM["BLOCK_K"])
        if per > bound + 1e-9:
            back = " (C read back included)" if run.loads["c_ptr"].any() else ""
            return 0.0, (
                f"{_label(case)}: {per:.1f} loads of A and B per element of C{back}, where "
                f"loading each tile of A and B once per program costs at most {bound:.1f}"
            )
    return 1.0, "each program loads each tile of A and B once"


def wave_panels(tiles: list) -> float:
    """Mean count of distinct rows of A-tiles and columns of B-tiles per WAVE programs.

    A program's tile is ``(row, column)``, or ``(rows, columns)`` (ranges) for a program that
    stored into several tiles: it needs every panel of those.
    """

    def panels(index):
        return set(index) if isinstance(index, range) else {index}

    waves = [tiles[i : i + WAVE] for i in range(0, len(tiles) - WAVE + 1, WAVE)]
    counts = [
        len(set().union(*(panels(t[0]) for t in w))) + len(set().union(*(panels(t[1]) for t in w)))
        for w in waves
    ]
    return float(np.mean(counts))


def grouped_tiles(m: int, n: int, bm: int, bn: int, group: int) -> list:
    """The tile (row, column) of C each program takes in the grouped order of Triton's tutorial."""
    pm, pn = math.ceil(m / bm), math.ceil(n / bn)
    out = []
    for pid in range(pm * pn):
        first = pid // (group * pn) * group
        size = min(pm - first, group)
        out.append((first + pid % (group * pn) % size, pid % (group * pn) // size))
    return out


def grouped_order(part, done) -> tuple[float, str]:
    """Programs that run together share A rows and B columns as the grouped order does."""
    from .exercises import MM

    bm, bn, group = MM["BLOCK_M"], MM["BLOCK_N"], MM["GROUP_M"]
    judged = 0
    for case, run in done:
        m, n = case.dims["m"], case.dims["n"]
        if math.ceil(m / bm) < 2 * group or math.ceil(n / bn) < 2 * group:
            continue
        judged += 1
        stride = int(case.args["stride_cm"])
        tile = {}
        for program, name, first, last, _ in run.programs:
            if name == "c_ptr":  # the tiles of its first and last store, and those between
                (r0, c0), (r1, c1) = ((e // stride // bm, e % stride // bn) for e in (first, last))
                rows, cols = range(r0, r1 + 1), range(min(c0, c1), max(c0, c1) + 1)
                tile[program[0]] = (r0, c0) if len(rows) == len(cols) == 1 else (rows, cols)
        tiles = [tile.get(p, (-1 - p, -1 - p)) for p in range(case.grid[0])]
        got, best = wave_panels(tiles), wave_panels(grouped_tiles(m, n, bm, bn, group))
        if got > best + 1e-9:
            return 0.0, (
                f"{_label(case)}: each {WAVE} consecutive programs need {got:.1f} row panels "
                f"of A and column panels of B on average; GROUP_M = {group} needs {best:.1f}"
            )
    if not judged:
        return 0.0, "no case had a grid large enough to judge the launch order"
    return 1.0, f"consecutive programs share panels of A and B (groups of {group} rows)"

"""Turn the raw results of kernel runs into criteria, scores and feedback.

Used by the grader (in its own process, on results a child process sent back) and by the
in-notebook checks (public cases only). Feedback on a public case names the case, the first
mismatching index and expected vs actual values; feedback on a hidden case says only
"hidden case k failed: <category>".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from pdc.grade import profile
from pdc.grade.simreport import LaunchReport
from pdc.grade.spec import QUALITY, Case, Part

#: What usually makes a value inf or nan; a part with a likelier cause says so in its hints.
NONFINITE_HINT = "a division by zero, or a value read that was never defined"


@dataclass
class CaseResult:
    """What came back from running one case: outputs and a report, or why there are none."""

    case: Case
    outputs: dict | None = None
    report: LaunchReport | None = None
    failure: str | None = None  # "kernel raised an exception: ...", "timed out", ...


@dataclass
class Verdict:
    """One graded criterion of one kernel."""

    test: str  # "<kernel>: <criterion title>"
    criterion: str
    score: float
    max_score: float
    output: str

    @property
    def passed(self) -> bool:
        return self.score >= self.max_score


def _mismatch(case: Case, name: str, expected, got, part: Part) -> str | None:
    if got.shape != expected.shape:
        return f"{name} has shape {got.shape}, expected {expected.shape}"
    ok = np.isclose(got, expected, rtol=part.rtol, atol=part.atol)
    if ok.all():
        return None
    bad = np.argwhere(~ok)
    first = tuple(int(i) for i in bad[0])
    idx = ", ".join(str(i) for i in first)
    text = (
        f"{name} differs at {len(bad)} of {expected.size} elements; first at {name}[{idx}]: "
        f"expected {expected[first]:.6g}, got {got[first]:.6g}"
    )
    if got.dtype.kind == "f" and expected.dtype.kind == "f":
        lost = int(np.count_nonzero(~np.isfinite(got) & np.isfinite(expected)))
        if lost:
            verb = "is" if lost == 1 else "are"
            hint = part.hints.get("nonfinite", NONFINITE_HINT)
            text += f"; {lost} {verb} inf or nan where the expected values are finite: {hint}"
    return text


def case_problem(part: Part, r: CaseResult, expected: dict) -> str | None:
    """Why a case failed (None if it passed)."""
    if r.failure:
        return r.failure
    if r.report is not None and r.report.count("error"):
        return "kernel raised an exception: " + r.report.findings["error"]["examples"][0]
    if r.report is not None and r.report.count("oob"):
        # On a GPU an out-of-range access reads garbage or faults: the case has failed.
        return "out-of-bounds access: " + r.report.findings["oob"]["examples"][0]
    if r.report is not None and r.report.count("uninitialized"):
        # Memory nobody wrote holds whatever was there before, a race leaves either value:
        # the result is undefined.
        example = r.report.findings["uninitialized"]["examples"][0]
        return f"{undefined_title(example)}: {example}"
    for name, exp in expected.items():
        if r.outputs is None:  # a result without a failure always carries its outputs
            raise TypeError(f"[judge] expected outputs for case {r.case.label}, got None")
        msg = _mismatch(r.case, name, exp, r.outputs[name], part)
        if msg:
            seen = [
                counted(r.report.count(k), k)
                for k in ("race", "divergence", "uninitialized", "warp")
                if r.report is not None and r.report.count(k)
            ]
            if seen:
                msg += f" (the simulator also saw findings: {', '.join(seen)})"
            if r.report is not None and r.report.count("stale"):
                ex = r.report.findings["stale"]["examples"][0]
                msg += f"; maybe why: {ex} (a barrier before the read waits for the updates)"
            if r.report is not None and r.report.count("stopped"):
                ex = r.report.findings["stopped"]["examples"][0]
                msg += f"; maybe why: {ex}"
            return msg
    return None


def undefined_title(example: str) -> str:
    """What an undefined-value finding is, by where its first undefined value came from.

    pdc.sim names that origin in the example ("s[3] read before any write, line 9"): memory
    never written is uninitialised; a race, a read out of range or a shuffle from an inactive
    lane leave a value as undefined, but the memory was written.
    """
    if "before any write" in example:
        return "read of uninitialised memory"
    return "use of an undefined value"


def _category(problem: str) -> str:
    if problem.startswith("kernel raised"):
        return "kernel raised an exception"
    prefixes = (
        "timed out",
        "no result",
        "rejected",
        "out-of-bounds access",
        "does not compile",
        "read of uninitialised memory",
        "use of an undefined value",
    )
    if problem.startswith(prefixes):
        return problem.split(":")[0]
    return "wrong values"


FINDING_TITLES = {
    "oob": "out-of-bounds access",
    "race": "data race",
    "divergence": "divergent syncthreads()",
    "uninitialized": "read of uninitialised shared or local memory, or another undefined value "
    "(a race, a read out of range, a shuffle from an inactive lane)",
    "warp": "warp collective reads an inactive lane",
}

#: How many of a kind of finding: (one, many).
_COUNTED = {
    "oob": ("out-of-bounds access", "out-of-bounds accesses"),
    "race": ("data race", "data races"),
    "divergence": ("divergent barrier", "divergent barriers"),
    "uninitialized": (
        "read of uninitialised memory or other undefined value",
        "reads of uninitialised memory or other undefined values",
    ),
    "warp": (
        "warp collective that reads an inactive lane",
        "warp collectives that read an inactive lane",
    ),
}


def plural(n: int, one: str, many: str | None = None) -> str:
    """``n`` and a noun that agrees with it: "1 case", "2 cases"."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def counted(n: int, kind: str) -> str:
    """A number of findings of one kind in words: "1 data race", "3 out-of-bounds accesses"."""
    one, many = _COUNTED.get(kind, (f"{kind} finding", f"{kind} findings"))
    return plural(n, one, many)


def where(labels: list[str], hidden: bool) -> str:
    """The cases a line is about: "case n=5", "cases n=5, n=9", "hidden cases 1, 3"."""
    if hidden:
        nums = [label.removeprefix("hidden case ") for label in labels]
        return ("hidden case " if len(nums) == 1 else "hidden cases ") + ", ".join(nums)
    return ("case " if len(labels) == 1 else "cases ") + ", ".join(labels)


_DIGITS = re.compile(r"(?<!line )\d+")


def finding_lines(results, kinds, hidden_text: dict | None = None) -> list[str]:
    """One line per distinct finding: the same mistake seen in several cases is one line.

    Findings of one kind whose examples differ only in numbers (indices, thread and block
    coordinates), not in the kernel line, are one problem; the line names every case it was
    seen in and the total count. Hidden cases say only what went wrong (counts and
    coordinates could reveal their sizes).

    Args:
        results: CaseResults that ran.
        kinds: Finding kinds to report, in order.
        hidden_text: kind -> what a hidden case's line says (default: FINDING_TITLES).

    Returns:
        The lines, public cases first.
    """
    groups: dict = {}
    for r in sorted(results, key=lambda r: r.case.hidden):
        if r.report is None:
            continue
        for kind in kinds:
            n = r.report.count(kind)
            if not n:
                continue
            if r.case.hidden:
                key = (True, kind, "")
            else:
                ex = r.report.findings[kind]["examples"][0]
                key = (False, kind, _DIGITS.sub("#", ex))
            g = groups.setdefault(key, {"labels": [], "n": 0, "ex": None})
            g["labels"].append(r.case.label)
            g["n"] += n
            if not r.case.hidden and g["ex"] is None:
                g["ex"] = r.report.findings[kind]["examples"][0]
    lines = []
    for (hidden, kind, _), g in groups.items():
        at = where(g["labels"], hidden)
        if hidden:
            lines.append(f"{at}: {(hidden_text or FINDING_TITLES).get(kind, kind)}")
        else:
            lines.append(f"{at}: {counted(g['n'], kind)}, e.g. {g['ex']}")
    return lines


def _grouped(items: list[tuple[str, str]], hidden: bool, verb: str = "") -> list[str]:
    """(label, problem) pairs as one line per distinct problem, naming every case it hit."""
    groups: dict = {}
    for label, problem in items:
        groups.setdefault(problem, []).append(label)
    return [f"{where(labels, hidden)}{verb}: {problem}" for problem, labels in groups.items()]


def distinct(text: str) -> str:
    """The lines of ``text`` without repeats, first occurrence kept, order unchanged."""
    return "\n".join(dict.fromkeys(text.splitlines()))


def judge(part: Part, results: list[CaseResult], expected: list[dict]) -> list[Verdict]:
    """Score one kernel from its case results.

    Args:
        part: The exercise part (kernel) being graded.
        results: One CaseResult per case, public cases first.
        expected: The expected outputs of each case, computed by the caller.

    Returns:
        One Verdict per criterion in ``part.points``.
    """
    verdicts = []
    problems = [case_problem(part, r, e) for r, e in zip(results, expected)]
    public = [(r, p) for r, p in zip(results, problems) if not r.case.hidden]
    hidden = [(r, p) for r, p in zip(results, problems) if r.case.hidden]
    public_ok = all(p is None for _, p in public) and bool(public)
    ran = [r for r in results if r.report is not None and not r.failure]

    def add(criterion, frac, output):
        pts = float(part.points[criterion])
        score = round(pts * frac, 2)
        title = f"{part.name}: {part.criterion_title(criterion)}"
        verdicts.append(Verdict(title, criterion, score, pts, distinct(output)))

    for criterion in part.points:
        if criterion == "public":
            bad = _grouped([(r.case.label, p) for r, p in public if p], hidden=False)
            msg = "\n".join(bad) if bad else f"all {len(public)} public cases pass"
            add("public", 1.0 if public_ok else 0.0, msg)
        elif criterion == "hidden":
            failed = [(r.case.label, _category(p)) for r, p in hidden if p]
            bad = _grouped(failed, hidden=True, verb=" failed")
            good = len(hidden) - len(failed)
            msg = f"{good} of {len(hidden)} hidden cases pass"
            add("hidden", good / len(hidden) if hidden else 0.0, "\n".join([msg, *bad]))
        else:
            frac, msg = _quality(criterion, part, ran)
            if not public_ok:  # say what is wrong, but award nothing until the kernel works
                msg = "not awarded until the public cases pass" + (
                    "" if frac >= 1.0 else f"; also: {msg}"
                )
                frac = 0.0
            add(criterion, frac, msg)
    return verdicts


def _quality(criterion, part, ran):
    if criterion in part.judges:
        frac, msg = part.judges[criterion](part, ran)
        return min(1.0, max(0.0, float(frac))), msg
    if criterion == "bounds":
        lines = finding_lines(ran, ("oob",))
        return (0.0 if lines else 1.0), "\n".join(lines) or "no out-of-bounds access"
    if criterion == "sync":
        lines = finding_lines(ran, ("race", "divergence", "uninitialized", "warp"))
        return (0.0 if lines else 1.0), "\n".join(lines) or "no races, barriers agree"
    if criterion == "parallel":
        return _parallel(part, ran)
    if criterion == "memory":
        return _memory(part, ran)
    raise ValueError(f"[judge] expected a criterion in {QUALITY}, got {criterion!r}")


def _parallel(part: Part, ran: list[CaseResult]):
    for r in sorted(ran, key=lambda r: r.case.hidden):  # public cases first: they can explain
        rep = r.report
        assert rep is not None  # `ran` holds only cases that came back with a report
        worst: int | None = None
        bound = 0  # only read once `worst` is set
        if part.max_stores is not None:
            # Distinct elements, not store operations: out[i] = 0; out[i] += v writes one.
            stores = sum(rep.written.values()) if rep.written else sum(rep.stores.values())
            worst, bound = (int(stores.max()) if stores.size else 0), part.max_stores
            what = "stored {worst} outputs, at most {bound} expected"
        if (worst is None or worst <= bound) and part.max_work is not None:
            worst, bound = int(rep.work().max()), part.max_work(r.case)
            what = "made {worst} memory accesses, at most {bound} " + part.work_what
        if (worst is None or worst <= bound) and (busy := profile.too_busy(part, r)):
            return 0.0, busy
        if worst is not None and worst > bound:
            if r.case.hidden:  # the numbers could reveal the hidden sizes
                return 0.0, f"{r.case.label}: one thread does the work of many"
            return 0.0, (
                f"case {r.case.label}: one thread "
                + what.format(worst=worst, bound=bound)
                + ": is one thread doing the work of many?"
            )
        if (why := _shuffled(part, r)) is not None:
            return 0.0, why
        if part.max_contention is not None and (found := _contended(rep)) is not None:
            name, most = found
            if most > part.max_contention:
                if r.case.hidden:
                    return 0.0, f"{r.case.label}: many atomics on one element, one after another"
                return 0.0, (
                    f"case {r.case.label}: one element of {name} received {most} atomic "
                    f"operations, at most {part.max_contention} expected: atomics on one "
                    "address run one after another; add the block's values in a tree first"
                )
    return 1.0, "work is spread over the threads"


def _shuffled(part: Part, r: CaseResult) -> str | None:
    """Why a thread of ``r`` made more shuffles than ``part.max_shuffles`` allows (None: not)."""
    rep = r.report
    if part.max_shuffles is None or rep is None or rep.shuffles is None or not rep.shuffles.size:
        return None
    most, bound = int(rep.shuffles.max()), part.max_shuffles(r.case)
    if most <= bound:
        return None
    if r.case.hidden:  # the numbers could reveal the hidden sizes
        return f"{r.case.label}: one lane pulls its warp's values one shuffle at a time"
    return (
        f"case {r.case.label}: one thread made {most} shuffles, at most {bound} expected: a "
        "tree of shuffles brings a warp's values to one lane in log2(32) = 5 steps; is one "
        "lane pulling its neighbours' values one at a time?"
    )


def _contended(rep: LaunchReport) -> tuple[str, int] | None:
    """The array with the most atomics on one element, and that number (None: none).

    Shared memory counts too: atomics on one shared word serialise as on a global one, so a
    block that adds every value into one shared word is as serial as one global element.
    """
    most = [(name, int(v.max())) for name, v in rep.atomic_counts.items() if v.size]
    if rep.shared_contention:
        most.append(("a shared array", rep.shared_contention))
    return max(most, key=lambda m: m[1]) if most else None


def _memory(part: Part, ran: list[CaseResult]):
    for r in sorted(ran, key=lambda r: r.case.hidden):
        rep = r.report
        assert rep is not None  # `ran` holds only cases that came back with a report
        assert rep.shared_stores is not None and rep.shared_loads is not None
        if part.global_loads is None:
            raise TypeError(f"[judge] expected global_loads for {part.name}'s memory, got None")
        stored, loaded = int(rep.shared_stores.sum()), int(rep.shared_loads.sum())
        no_shared = stored == 0 or loaded == 0
        unused = (
            "no shared memory is used" if not stored else "shared memory is written, never read"
        )
        per_output, bound = part.global_loads(r.case, rep.loads)
        if r.case.hidden and (no_shared or per_output > bound):
            return 0.0, f"{r.case.label}: " + (
                unused if no_shared else "too many global loads per output"
            )
        if no_shared:
            return 0.0, (
                f"case {r.case.label}: {unused}: {per_output:.2f} global loads per output, "
                f"at most {bound:.2f} expected"
            )
        if per_output > bound:
            return 0.0, (
                f"case {r.case.label}: {per_output:.2f} global loads per output, at most "
                f"{bound:.2f} expected: does each value come from shared memory once loaded?"
            )
    return 1.0, "shared memory cuts global loads as expected"


_GATE = "not awarded until the public cases pass"


def unrepeated(verdicts: list[Verdict]) -> list[str]:
    """Each verdict's output without the lines that an earlier one already shows.

    One mistake can fail several criteria (a shuffle mask breaks "barriers" and "masks"); read
    in one place, each problem is said once, and a criterion with nothing new says where.

    Returns:
        One text per verdict, in order.
    """
    seen: dict[str, str] = {}  # line -> the criterion that showed it first
    out = []
    gated = _GATE + "; also: "
    for v in verdicts:
        lines = v.output.splitlines()
        gate = bool(lines) and lines[0].startswith(gated)
        if gate:  # "not awarded ...; also: <problem>": the problem is what may repeat
            lines[0] = lines[0].removeprefix(gated)
        fresh = [line for line in lines if line not in seen or line == _GATE]
        again = [seen[line] for line in lines if line in seen and line != _GATE]
        if again and not fresh:
            fresh = [f"(the same problem as under {again[0]})"]
        if gate:
            fresh[0] = gated + fresh[0]
        out.append("\n".join(fresh))
        for line in lines:
            seen.setdefault(line, v.criterion)
    return out


def summary(part: Part, verdicts: list[Verdict]) -> str:
    """Readable feedback: one line per criterion with a mark, details indented, said once."""
    lines = []
    total = sum(v.score for v in verdicts)
    lines.append(f"{part.name}: {total:g} / {part.max_points:g} points")
    for v, output in zip(verdicts, unrepeated(verdicts)):
        mark = "PASS" if v.passed else "FAIL"
        score = f"({v.score:g}/{v.max_score:g})"
        lines.append(f"  [{mark}] {part.criterion_title(v.criterion)} {score}")
        for line in output.splitlines():
            lines.append(f"         {line}")
    return "\n".join(lines)

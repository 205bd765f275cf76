"""Judging exercise 6's results: the replies' values against the reference (a wrong reply
names the state the kernel should have held before it), the state left after each stream,
the replies' order and the kernel's telemetry. ``ring_run`` gathers the results (in the
sandboxed child, or in the notebook for a check) and calls ``_judge``.
"""

from __future__ import annotations

import numpy as np

from pdc.grade.judge import Verdict
from pdc.ring.handlers.guards import FAULT

from .ring_spec import REPLY, STATE, stream_expected


def _judge(part, cases, results, rejected) -> list[Verdict]:
    verdicts = []

    def add(criterion, ok, msg):
        pts = float(part.points[criterion])
        score = round(pts * ok, 2)
        title = f"{part.name}: {part.criterion_title(criterion)}"
        verdicts.append(Verdict(title, criterion, score, pts, msg))

    problems, order_bad, tel_bad = [], [], []
    sent_total = 0
    for case, res in zip(cases, results):
        where = "" if case.hidden else f" (case {case.label})"
        if rejected:
            problems.append(rejected)
            continue
        if res is None or res["error"]:
            err = "no result" if res is None else res["error"]
            problems.append(err)
            continue
        exp = case.args["requests"].size
        sent_total += exp
        sent, corr, status, rec = res["sent"], res["corr"], res["status"], res["records"]
        if not np.array_equal(sent, corr):
            order_bad.append(f"replies not in the order sent{where}")
        pos = {int(c): i for i, c in enumerate(corr)}
        if len(pos) != exp or set(pos) != {int(s) for s in sent}:
            order_bad.append(f"not exactly one reply per request{where}")
            problems.append("missing or duplicate replies")
            continue
        got = rec[[pos[int(s)] for s in sent]]  # match replies to requests by correlation id
        want, states = stream_expected(case.args["requests"]["x"])
        problem = None
        if (status != 0).any():
            code = int(status[status != 0][0])
            problem = f"handler returned error code {code}"
            if code == FAULT:
                problem += (
                    " (a fault: it divided by zero, or stored a NaN or an overflow; a `select` "
                    "computes both of its sides)"
                )
        else:
            problem = _first_difference(got, want, states) or _state_difference(
                res["state"], states[-1]
            )
        problems.append(problem)
        tel = res["telemetry"]
        if tel["errors"] or tel["dropped"] or tel["in_flight"] or tel["processed"] != sent_total:
            tel_bad.append(
                f"{case.label}: telemetry shows errors, drops or unprocessed messages"
                if case.hidden  # exact counts would reveal the hidden stream lengths
                else f"telemetry{where}: processed {tel['processed']} of {sent_total} sent, "
                f"errors {tel['errors']}, dropped {tel['dropped']}, in flight {tel['in_flight']}"
            )
    pub = [(c, p) for c, p in zip(cases, problems) if not c.hidden]
    hid = [(c, p) for c, p in zip(cases, problems) if c.hidden]
    public_ok = all(p is None for _, p in pub)
    add(
        "public",
        public_ok,
        "\n".join(f"case {c.label}: {p}" for c, p in pub if p)
        or f"all {len(pub)} public cases pass",
    )
    if "hidden" in part.points:
        good = sum(p is None for _, p in hid)
        lines = [f"{good} of {len(hid)} hidden cases pass"]
        lines += [f"{c.label} failed: {_kind(p)}" for c, p in hid if p]
        add("hidden", good / len(hid) if hid else 0.0, "\n".join(lines))
    gate = "" if public_ok else "not awarded until the public cases pass"
    add(
        "ordering",
        bool(public_ok and not order_bad),
        gate or "\n".join(order_bad) or "one reply per request, in order",
    )
    add(
        "telemetry",
        bool(public_ok and not tel_bad),
        gate or "\n".join(tel_bad) or "processed every message, no errors, no drops",
    )
    return verdicts


def _close(a, b) -> np.ndarray:
    return np.isclose(a, b, rtol=1e-9, atol=1e-9)


def _first_difference(got: np.ndarray, want: np.ndarray, states: np.ndarray) -> str | None:
    """The first reply (in stream order) with a wrong field, and the state it should have seen."""
    bad = np.zeros(want.size, bool)
    for f in REPLY.names or ():  # a structured dtype: names is never None
        bad |= ~_close(got[f], want[f])
    if not bad.any():
        return None
    t = int(np.argmax(bad))
    f = next(f for f in REPLY.names or () if not _close(got[f][t], want[f][t]))
    before = states[t]
    return (
        f"reply {t + 1} ({f}) differs: expected {want[f][t]:.6g}, got {got[f][t]:.6g}; "
        f"the state after {t} reading{'s' if t != 1 else ''} should hold count "
        f"{before['count']:g}, mean {before['mean']:.6g}, m2 {before['m2']:.6g}"
    )


def _state_difference(got: np.ndarray, want: np.ndarray) -> str | None:
    """Why the state left after a stream is wrong, or None."""
    for f in STATE.names or ():
        if not _close(got[f], want[f]):
            return (
                f"the state after the stream differs: {f} should be {float(want[f]):.6g}, "
                f"got {float(got[f]):.6g}"
            )
    return None


def _kind(problem: str) -> str:
    """The kind of a hidden case's failure, without what could reveal the stream."""
    if problem.startswith(("reply", "the state")):
        return "wrong values"
    if problem.startswith("handler returned error code"):
        head = problem.partition(" (")[0]
        # What a fault is reveals nothing of the stream: say it, as for a public case.
        fault = " (a fault: a division by zero, a NaN or an overflow)"
        return head + fault if head.endswith(f" {FAULT}") else head
    if problem == "missing or duplicate replies":
        return problem
    return "no result"

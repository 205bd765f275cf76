"""``pdc stress``: traffic from several threads, then a check that nothing was lost.

For each backpressure mode (block, reject, drop_oldest) one kernel with a tiny queue gets
messages from two producer threads (single sends and batches, random priorities, about
1 % of them asking the handler for an error code) and, except under "drop_oldest", a
thread that ``call``s one message at a time, while two consumer threads receive and
another thread deactivates and reactivates the kernel. Then the kernel is terminated and
every message is reconciled: each accepted correlation id ends as exactly one of replied,
errored, dropped (reported in ``dropped_ids``) or undelivered (reported by terminate), each
refused message was raised to its sender, payloads match, and the telemetry equals those
counts. ``pdc stress`` prints the counts and exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pdc.ring.definition import BACKPRESSURE, ring_kernel
from pdc.ring.handlers import select
from pdc.ring.protocol import RingFullError, RingTimeoutError

__all__ = ["REPLY", "REQUEST", "StressResult", "main", "run_mode", "stress"]

REQUEST = np.dtype([("x", np.float64), ("token", np.int64), ("fail", np.int64)])
REPLY = np.dtype([("y", np.float64), ("token", np.int64)])


def stress_handler(req, rep):
    rep.y = req.x * 2.0 + 1.0
    rep.token = req.token
    return select(req.fail != 0, req.fail, 0)


@dataclass
class StressResult:
    """Counts of one run (one backpressure mode) and the violations found."""

    backend: str
    mode: str
    seconds: float = 0.0
    counts: Counter = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)

    def line(self) -> str:
        c = self.counts
        keys = (
            "accepted",
            "refused",
            "replied",
            "errored",
            "dropped",
            "undelivered",
            "calls",
            "toggles",
        )
        return (
            f"{self.backend:<6} {self.mode:<12} {self.seconds:7.1f} s  "
            + "  ".join(f"{k} {c[k]:,}" for k in keys)
            + ("  OK" if not self.violations else f"  {len(self.violations)} VIOLATION(S)")
        )


class _Book:
    """What the producers were told (under one lock: the threads share it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sent: dict[int, tuple[int, float, int]] = {}  # corr id -> (token, x, fail)
        self.refused = 0
        self.duplicates: list[int] = []

    def accept(self, ids: Any, tokens: np.ndarray, xs: np.ndarray, fails: np.ndarray) -> None:
        with self.lock:
            for cid, t, x, f in zip(ids, tokens.tolist(), xs.tolist(), fails.tolist()):
                cid = int(cid)
                if cid in self.sent:
                    self.duplicates.append(cid)
                self.sent[cid] = (t, x, f)


def run_mode(
    backend: str,
    mode: str,
    messages: int,
    seconds: float | None = None,
    *,
    seed: int = 0,
    queue_size: int = 8,
    fault_rate: float = 0.01,
) -> StressResult:
    """Run one backpressure mode; see the module docstring.

    Args:
        backend: "cpu", "cuda" or "metal".
        mode: A backpressure mode ("block", "reject", "drop_oldest").
        messages: Messages to offer (accepted plus refused).
        seconds: Stop offering after this long, even before ``messages``.
        seed: Random seed of the traffic.
        queue_size: Slots per request lane (tiny on purpose).
        fault_rate: Share of messages whose handler returns an error code.

    Returns:
        The counts and violations.
    """
    from pdc.ring.runtime import RingKernelRuntime

    if mode not in BACKPRESSURE:
        raise ValueError(f"[stress] expected a mode in {BACKPRESSURE}, got {mode!r}")
    res = StressResult(backend, mode)
    kdef = ring_kernel(
        kernel_id=f"stress-{mode}",
        request=REQUEST,
        reply=REPLY,
        queue_size=queue_size,
        backpressure=mode,
        block_timeout=30.0,
    )(stress_handler)
    book = _Book()
    got: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    got_lock = threading.Lock()
    offered = [0]
    stop_offering = threading.Event()
    stop_consuming = threading.Event()
    errors: list[str] = []
    t0 = time.perf_counter()
    deadline = None if seconds is None else t0 + seconds

    def offer(n: int) -> int:
        with book.lock:
            n = min(n, messages - offered[0])
            offered[0] += n
        return n

    def producer(pid: int) -> None:
        rng = random.Random(seed * 1000 + pid)
        token = pid << 40
        try:
            while not stop_offering.is_set():
                if deadline is not None and time.perf_counter() > deadline:
                    break
                n = offer(1 if rng.random() < 0.5 else rng.randint(1, 3 * queue_size))
                if n <= 0:
                    break
                b = np.zeros(n, REQUEST)
                b["token"] = np.arange(token, token + n)
                token += n
                b["x"] = rng.random()
                b["fail"] = [
                    rng.randint(1, 9) if rng.random() < fault_rate else 0 for _ in range(n)
                ]
                prio = rng.choice(("high", "normal"))
                try:
                    if n == 1 and rng.random() < 0.7:
                        cid = k.send(b[0], priority=prio)
                        book.accept([cid], b["token"], b["x"], b["fail"])
                    else:
                        ids = k.send_batch(b, priority=prio)
                        book.accept(ids, b["token"], b["x"], b["fail"])
                except RingFullError as exc:
                    a = len(exc.accepted)
                    book.accept(exc.accepted, b["token"][:a], b["x"][:a], b["fail"][:a])
                    with book.lock:
                        book.refused += n - a
                    time.sleep(rng.uniform(0.0, 2e-4))  # let the device catch up
        except BaseException as exc:  # reported as a violation
            errors.append(f"producer {pid}: {exc!r}")

    def caller() -> None:
        """One message at a time by ``call`` (on cpu the quick compiled call), its reply kept.

        Not under "drop_oldest", where a call's own message may be dropped before its reply.
        """
        rng = random.Random(seed * 1000 + 50)
        token = 7 << 40
        try:
            while not stop_offering.is_set():
                if deadline is not None and time.perf_counter() > deadline:
                    break
                if offer(1) <= 0:
                    break
                x = rng.random()
                fail = rng.randint(1, 9) if rng.random() < fault_rate else 0
                try:
                    r = k.call(
                        x=x, token=token, fail=fail, priority=rng.choice((0, "normal")), check=False
                    )
                except RingFullError:
                    with book.lock:
                        book.refused += 1
                    time.sleep(rng.uniform(0.0, 2e-4))
                else:
                    res.counts["calls"] += 1
                    book.accept([r.corr_id], np.array([token]), np.array([x]), np.array([fail]))
                    with got_lock:
                        got.append(
                            (
                                np.array([r.corr_id]),
                                np.array([r.status]),
                                np.array([(r.y, r.token)], REPLY),
                            )
                        )
                token += 1
        except BaseException as exc:  # reported as a violation
            errors.append(f"caller: {exc!r}")

    def consumer(cid: int) -> None:
        rng = random.Random(seed * 1000 + 100 + cid)
        try:
            while True:
                try:
                    if rng.random() < 0.5:
                        r = k.receive(timeout=0.02)
                        part = (
                            np.array([r.corr_id]),
                            np.array([r.status]),
                            np.array([(r.y, r.token)], REPLY),
                        )
                    else:
                        rr = k.receive_batch(rng.randint(1, 2 * queue_size), timeout=0.02)
                        part = (rr.corr_ids, rr.status, rr.records)
                except RingTimeoutError as exc:
                    partial = getattr(exc, "partial", None)
                    if partial is not None and len(partial):
                        with got_lock:
                            got.append((partial.corr_ids, partial.status, partial.records))
                    if stop_consuming.is_set():
                        return
                    continue
                with got_lock:
                    got.append(part)
        except BaseException as exc:  # reported as a violation
            errors.append(f"consumer {cid}: {exc!r}")

    def toggler() -> None:
        rng = random.Random(seed * 1000 + 999)
        try:
            while not stop_offering.wait(rng.uniform(0.005, 0.03)):
                k.deactivate(timeout=30)
                time.sleep(rng.uniform(0.0005, 0.005))
                k.activate(timeout=30)
                res.counts["toggles"] += 1
        except BaseException as exc:  # reported as a violation
            errors.append(f"toggler: {exc!r}")

    with RingKernelRuntime(backend=backend) as rt:
        k = rt.launch(kdef)
        producers = [threading.Thread(target=producer, args=(i,)) for i in range(2)]
        if mode != "drop_oldest":
            producers.append(threading.Thread(target=caller))
        consumers = [threading.Thread(target=consumer, args=(i,)) for i in range(2)]
        tog = threading.Thread(target=toggler)
        for t in (*producers, *consumers, tog):
            t.start()
        for t in producers:
            t.join()
        stop_offering.set()
        tog.join()
        k.activate(timeout=30)
        settle = time.perf_counter() + 30
        while k.telemetry().waiting and time.perf_counter() < settle:
            time.sleep(0.005)
        report = k.terminate(timeout=30)
        stop_consuming.set()
        for t in consumers:
            t.join()
        while (r := k.try_receive()) is not None:
            got.append(
                (np.array([r.corr_id]), np.array([r.status]), np.array([(r.y, r.token)], REPLY))
            )
        tel = k.telemetry()
        dropped = list(k.dropped_ids)
    res.seconds = time.perf_counter() - t0
    res.violations = errors + _reconcile(book, got, dropped, report, tel, res.counts)
    return res


def _reconcile(book: _Book, got: list, dropped: list, report: Any, tel: Any, counts: Counter):
    bad: list[str] = []
    if book.duplicates:
        bad.append(
            f"{len(book.duplicates)} correlation id(s) handed out twice: {book.duplicates[:5]}"
        )
    corr = np.concatenate([g[0] for g in got]) if got else np.zeros(0, np.int64)
    status = np.concatenate([g[1] for g in got]) if got else np.zeros(0, np.int64)
    recs = np.concatenate([g[2] for g in got]) if got else np.zeros(0, REPLY)
    seen: Counter = Counter(corr.tolist())
    twice = [c for c, n in seen.items() if n > 1]
    if twice:
        bad.append(f"{len(twice)} repl(ies) received twice: {twice[:5]}")
    ends: Counter = Counter()
    for c in [*seen, *dropped, *report.undelivered]:
        ends[c] += 1
    for name, ids in (("dropped", dropped), ("undelivered", report.undelivered)):
        if len(set(ids)) != len(ids):
            bad.append(f"{name} ids listed twice")
    lost = [c for c in book.sent if ends[c] == 0]
    many = [c for c in book.sent if ends[c] > 1]
    ghosts = [c for c in ends if c not in book.sent]
    if lost:
        bad.append(f"{len(lost)} accepted message(s) with no end: {lost[:5]}")
    if many:
        bad.append(
            f"{len(many)} message(s) with two ends (replied/dropped/undelivered): {many[:5]}"
        )
    if ghosts:
        bad.append(f"{len(ghosts)} id(s) nobody was given: {ghosts[:5]}")
    wrong, errored = 0, 0
    for c, s, rec in zip(corr.tolist(), status.tolist(), recs.tolist(), strict=True):
        sent = book.sent.get(c)
        if sent is None:
            continue
        token, x, fail = sent
        if s != fail or rec[1] != token or rec[0] != x * 2.0 + 1.0:
            wrong += 1
        errored += s != 0
    if wrong:
        bad.append(f"{wrong} repl(ies) whose payload or status is not their message's")
    counts.update(
        accepted=len(book.sent),
        refused=book.refused,
        replied=len(seen) - errored,
        errored=errored,
        dropped=len(dropped),
        undelivered=len(report.undelivered),
    )
    expect = {
        "submitted": len(book.sent),
        "processed": len(seen),
        "received": len(corr),
        "dropped": len(dropped),
        "rejected": book.refused,
        "errors": errored,
        "in_flight": len(report.undelivered),
        "replies_ready": 0,
    }
    for name, want in expect.items():
        if getattr(tel, name) != want:
            bad.append(f"telemetry {name} = {getattr(tel, name)}, expected {want}")
    return bad


def stress(
    backend: str, messages: int, seconds: float | None = None, **kw: Any
) -> list[StressResult]:
    """``run_mode`` for every backpressure mode, ``messages`` (and ``seconds``) split evenly."""
    share = seconds / len(BACKPRESSURE) if seconds else None
    return [
        run_mode(backend, mode, messages // len(BACKPRESSURE), share, **kw) for mode in BACKPRESSURE
    ]


def main(argv: list[str] | None = None) -> int:
    """``pdc stress --backend B --messages N [--seconds S]``: exit 1 on any violation."""
    p = argparse.ArgumentParser(prog="pdc stress", description=__doc__.splitlines()[0])
    p.add_argument("--backend", default="cpu", help="cpu, cuda or metal (default cpu)")
    p.add_argument("--messages", type=int, default=30_000, help="messages offered in all")
    p.add_argument("--seconds", type=float, default=None, help="stop offering after this")
    p.add_argument("--queue-size", type=int, default=8, help="slots per lane (default 8)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    failed = False
    for res in stress(
        args.backend, args.messages, args.seconds, seed=args.seed, queue_size=args.queue_size
    ):
        print(res.line(), flush=True)
        for v in res.violations:
            print(f"    violation: {v}")
        failed |= bool(res.violations)
    return 1 if failed else 0

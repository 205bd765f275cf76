"""Grading a class: many submissions at once, files for each, and shards merged back.

``grade_all`` grades submission folders in parallel (each student's kernels run in child
processes, so threads here only wait), with a progress bar. Whatever a submission holds,
it comes back as a :class:`~pdc.grade.grader.Submission`: a folder that does not exist or a
notebook that cannot be read scores 0 for what it should have answered, with the reason,
and the batch goes on.

``write_outputs`` gives every student ``NAME/results.json`` (Gradescope's format, with the
hidden-case seed), ``NAME/junit.xml`` and ``NAME/submission.json`` (everything graded, which
``pdc grade merge`` reads back to combine shards into one CSV and one class report).
"""

from __future__ import annotations

import json
import os
import secrets
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pdc.grade.grader import DEFAULT_TIMEOUT_S, PartResult, Submission, grade
from pdc.grade.judge import Verdict

SUBMISSION_FILE = "submission.json"


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a batch; ``graded`` holds the submissions finished before it."""

    def __init__(self, graded: list[Submission], total: int) -> None:
        super().__init__(f"{len(graded)} of {total} submissions graded")
        self.graded, self.total = graded, total


def parse_shard(text: str) -> tuple[int, int]:
    """``"i/n"`` -> (i, n) with 1 <= i <= n.

    Raises:
        ValueError: ``text`` is not of that form.
    """
    i_s, sep, n_s = text.partition("/")
    try:
        i, n = int(i_s), int(n_s)
    except ValueError:
        i = n = 0
    if not sep or n < 1 or not 1 <= i <= n:
        raise ValueError(f"[grade --shard] expected i/n with 1 <= i <= n (e.g. 2/8), got {text!r}")
    return i, n


def class_folders(root: Path) -> list[Path]:
    """The submission folders of a class folder: its sub-folders, hidden ones left out."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"[grade --class] expected a folder of student folders, got {root}")
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


def shard(paths: Sequence[Path], i: int, n: int) -> list[Path]:
    """The ``i``-th of ``n`` shards (1-based) of the submissions, by their sorted order."""
    ordered = sorted(paths, key=str)
    return [p for k, p in enumerate(ordered) if k % n == i - 1]


def unreadable_submission(path: Path, why: str, only=None, kernels=None) -> Submission:
    """A submission that could not be graded at all: 0 for every kernel, with the reason."""
    from pdc.grade import exercises as exs
    from pdc.grade.grader import _missing

    sub = Submission(path.stem if path.suffix else path.name, str(path))
    sub.warnings.append(why)
    sub.unreadable.append(str(path))
    for key in only or exs.ALL_KEYS:
        ex = exs.exercise(key)
        for part in ex.parts:
            if not kernels or part.name in kernels:
                sub.parts.append(_missing(ex, part, why))
    return sub


def grade_one(path: Path, **kwargs) -> Submission:
    """Grade one submission; never raises for what the submission holds."""
    path = Path(path)
    try:
        return grade(path, **kwargs)
    except FileNotFoundError:
        return unreadable_submission(
            path, f"{path}: no such notebook or folder", kwargs.get("only"), kwargs.get("kernels")
        )
    except Exception as e:  # the grader failed on this submission: say so, go on
        why = f"{path}: could not be graded ({type(e).__name__}: {e})"[:500]
        return unreadable_submission(path, why, kwargs.get("only"), kwargs.get("kernels"))


def grade_all(
    paths: Sequence[Path],
    *,
    jobs: int | None = None,
    progress: bool = True,
    on_done: Callable[[Submission], None] | None = None,
    **kwargs,
) -> list[Submission]:
    """Grade many submissions, ``jobs`` at a time; results in the order of ``paths``.

    Args:
        paths: Submission notebooks or folders.
        jobs: Kernels graded at once (default: the CPU count). With one submission its
            kernels run in parallel; with several, submissions do, one kernel each.
        progress: Show a progress bar on a terminal (tqdm, on standard error).
        on_done: Called with each finished submission (from the calling thread, in order
            of completion).
        **kwargs: Passed to :func:`pdc.grade.grader.grade` (only, seed, timeout, hidden, ...).

    Returns:
        One Submission per path.
    """
    from tqdm import tqdm

    jobs = max(1, jobs or os.cpu_count() or 1)
    kwargs.setdefault("timeout", DEFAULT_TIMEOUT_S)
    if kwargs.get("hidden", True) and kwargs.get("seed") is None and len(paths) > 1:
        # One seed for the class: every student meets the same hidden cases.
        kwargs["seed"] = secrets.randbits(63)
    if len(paths) == 1:
        sub = grade_one(paths[0], jobs=jobs, **kwargs)
        if on_done is not None:
            on_done(sub)
        return [sub]
    from pdc.grade import sandbox

    sandbox.resume()
    out: list[Submission | None] = [None] * len(paths)
    lock = threading.Lock()
    stop = threading.Event()
    bar = tqdm(total=len(paths), unit="student", disable=None if progress else True)

    def work(k: int) -> None:
        if stop.is_set():
            return
        sub = grade_one(paths[k], jobs=1, **kwargs)
        with lock:
            if stop.is_set():  # graded while its children were being stopped: not a result
                return
            out[k] = sub
            bar.update(1)
            if on_done is not None:
                bar.clear()
                on_done(sub)
                bar.refresh()

    with bar, ThreadPoolExecutor(max_workers=min(jobs, len(paths))) as pool:
        try:
            for f in [pool.submit(work, k) for k in range(len(paths))]:
                f.result()
        except KeyboardInterrupt:
            # Students not started are not graded; those running lose their children at
            # once (instead of the pool waiting for each to finish), and their results
            # are not kept: only the ones finished before Ctrl-C count.
            with lock:
                stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            sandbox.stop_all()
            raise Interrupted([s for s in out if s is not None], len(paths)) from None
    return [s for s in out if s is not None]


def one_line(sub: Submission) -> str:
    """One line per student for ``-q``: name, score, time, and whether something was wrong."""
    note = ""
    if sub.unreadable:
        note = f"  unreadable: {', '.join(Path(u).name for u in sub.unreadable)}"
    elif sub.warnings:
        note = f"  ({len(sub.warnings)} warning{'s' if len(sub.warnings) != 1 else ''})"
    return f"{sub.name:24s} {sub.score:7.2f} / {sub.max_score:g}  {sub.seconds:5.1f} s{note}"


def to_dict(sub: Submission) -> dict:
    """Everything graded for a submission, as JSON-ready data (see :func:`from_dict`)."""
    return {
        "name": sub.name,
        "path": sub.path,
        "seed": sub.seed,
        "seconds": round(sub.seconds, 3),
        "warnings": list(sub.warnings),
        "unreadable": list(sub.unreadable),
        "parts": [
            {
                "exercise": p.exercise,
                "part": p.part,
                "seconds": round(p.seconds, 3),
                "note": p.note,
                "verdicts": [
                    {
                        "test": v.test,
                        "criterion": v.criterion,
                        "score": v.score,
                        "max_score": v.max_score,
                        "output": v.output,
                    }
                    for v in p.verdicts
                ],
            }
            for p in sub.parts
        ],
    }


def from_dict(d: dict) -> Submission:
    """A Submission read back from :func:`to_dict`'s data."""
    sub = Submission(d["name"], d["path"], seconds=float(d.get("seconds", 0.0)))
    sub.seed = d.get("seed")
    sub.warnings = list(d.get("warnings", []))
    sub.unreadable = list(d.get("unreadable", []))
    for p in d["parts"]:
        verdicts = [Verdict(**v) for v in p["verdicts"]]
        sub.parts.append(
            PartResult(p["exercise"], p["part"], verdicts, float(p["seconds"]), p["note"])
        )
    return sub


def results_json(sub: Submission) -> dict:
    """Gradescope's results.json, with the hidden-case seed for an exact re-grade."""
    from pdc.grade import report

    data = report.gradescope(sub)
    if sub.seed is not None:
        data["output"] += f"\nhidden-case seed {sub.seed} (pdc grade --seed {sub.seed})"
    data["extra_data"] = {"seed": sub.seed, "unreadable": list(sub.unreadable)}
    return data


def write_outputs(sub: Submission, folder: Path) -> None:
    """Write ``results.json``, ``junit.xml`` and ``submission.json`` into ``folder``."""
    from pdc.grade import report

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(results_json(sub), indent=2))
    (folder / "junit.xml").write_text(report.junit(sub))
    (folder / SUBMISSION_FILE).write_text(json.dumps(to_dict(sub), indent=1))


def read_outputs(folders: Sequence[Path]) -> list[Submission]:
    """Every ``submission.json`` under the given output folders (shards), by name.

    Raises:
        FileNotFoundError: A folder holds no submission.json at all.
        ValueError: Two shards graded the same submission name.
    """
    subs: dict[str, Submission] = {}
    for folder in folders:
        files = sorted(Path(folder).glob(f"*/{SUBMISSION_FILE}"))
        if not files:
            raise FileNotFoundError(
                f"[grade merge] expected DIR/NAME/{SUBMISSION_FILE} from `pdc grade --out-dir "
                f"DIR`, got none in {folder}"
            )
        for f in files:
            sub = from_dict(json.loads(f.read_text()))
            if sub.name in subs:
                raise ValueError(
                    f"[grade merge] expected each submission in one shard, got {sub.name!r} "
                    f"in {subs[sub.name].path} and {sub.path}"
                )
            subs[sub.name] = sub
    return [subs[k] for k in sorted(subs)]


def scores_csv(subs: Sequence[Submission]) -> str:
    """The class CSV: pdc.grade.report's columns, then the seed and unreadable files."""
    import csv
    import io

    from pdc.grade import report

    rows = list(csv.reader(io.StringIO(report.scores_csv(subs))))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*rows[0], "seed", "unreadable"])
    for row, sub in zip(rows[1:], subs):
        names = "; ".join(Path(u).name for u in sub.unreadable)
        w.writerow([*row, "" if sub.seed is None else sub.seed, names])
    return buf.getvalue()

"""A class in one command: parallel grading, one line per student, shards merged, and the
class report (static HTML, offline)."""

from __future__ import annotations

import csv
import re
import threading
import time
from pathlib import Path

from pdc.grade import batch, classreport, cli
from pdc.grade.grader import PartResult, Submission
from pdc.grade.judge import Verdict


def _sub(name: str, score: float, oob_line: int | None, hidden_fail: bool, seed=7) -> Submission:
    verdicts = [
        Verdict("conv1d: public cases", "public", 2.0, 2.0, "all 3 public cases pass"),
        Verdict(
            "conv1d: hidden cases",
            "hidden",
            1.0 if hidden_fail else 2.0,
            2.0,
            "1 of 2 hidden cases pass\nhidden case 2 failed: wrong values"
            if hidden_fail
            else "2 of 2 hidden cases pass",
        ),
        Verdict(
            "conv1d: bounds",
            "bounds",
            0.0 if oob_line else 1.0,
            1.0,
            f"case n=1000: read x[{1000 + score:g}] outside shape (1000,) at line {oob_line}"
            if oob_line
            else "no out-of-bounds access",
        ),
    ]
    sub = Submission(name, f"class/{name}", [PartResult("02_conv1d", "conv1d", verdicts, 1.0)])
    sub.seed = seed
    return sub


def test_class_report_is_one_offline_page():
    subs = [_sub("a", 5, 6, True), _sub("b", 4, 6, True), _sub("c", 5, None, False)]
    subs.append(batch.unreadable_submission(Path("class/d"), "02_conv1d.ipynb: empty"))
    page = classreport.html_page(subs)
    assert page.count("<svg") >= 2  # the total and each exercise, embedded
    assert not re.search(r"(src|href)=[\"']https?:", page)  # nothing fetched: works offline
    assert "<script" not in page
    (top, *_) = classreport.findings(subs).most_common(1)
    assert top[1] == 2 and "line 6" in top[0][2] and "#" in top[0][2]  # values blanked
    hidden = classreport.hidden_failures(subs)
    assert hidden[("02_conv1d", "conv1d", "hidden case 2: wrong values")] == 2
    assert "hidden case 2: wrong values" in page and "02_conv1d.ipynb: empty" in page


def test_merge_combines_shards(tmp_path, capsys):
    d1, d2 = tmp_path / "s1", tmp_path / "s2"
    for d, subs in ((d1, [_sub("a", 5, 6, True)]), (d2, [_sub("b", 4, None, False)])):
        for s in subs:
            batch.write_outputs(s, d / s.name)
    scores, report = tmp_path / "all.csv", tmp_path / "class.html"
    argv = ["merge", str(d1), str(d2), "--csv", str(scores), "--report", str(report)]
    assert cli.main(argv) == 0
    rows = {r["submission"]: r for r in csv.DictReader(scores.open())}
    assert set(rows) == {"a", "b"} and rows["a"]["seed"] == "7"
    assert float(rows["b"]["total"]) == 5.0 and report.read_text().startswith("<!DOCTYPE html>")
    assert cli.main(["merge", str(d1), str(d1)]) == 2  # the same student in two shards
    assert "in one shard" in capsys.readouterr().err


def test_students_are_graded_in_parallel_in_order(monkeypatch, tmp_path):
    running, peak, lock = [0], [0], threading.Lock()

    def fake(path, **kwargs):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.2)
        with lock:
            running[0] -= 1
        return Submission(Path(path).name, str(path))

    monkeypatch.setattr(batch, "grade_one", fake)
    paths = [tmp_path / f"s{k}" for k in range(6)]
    done: list = []
    subs = batch.grade_all(paths, jobs=3, progress=False, on_done=done.append)
    assert [s.name for s in subs] == [p.name for p in paths] and len(done) == 6
    assert peak[0] == 3


def test_class_folder_and_shard_select_students(tmp_path, monkeypatch, capsys):
    for name in ("ann", "bob", "cy", ".git"):
        (tmp_path / "class" / name).mkdir(parents=True)
    graded: list = []
    monkeypatch.setattr(
        batch, "grade_one", lambda p, **kw: graded.append(p.name) or Submission(p.name, str(p))
    )
    assert cli.main(["--class", str(tmp_path / "class"), "--shard", "2/2", "-q"]) == 0
    assert graded == ["bob"]
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("bob ") and len(out) == 1


def test_bench_builds_a_synthetic_class(tmp_path):
    from pdc.grade import bench

    kinds = bench.build_class(tmp_path, 20)
    assert len(kinds) == 20 and len(list(tmp_path.iterdir())) == 20
    holds = list(kinds.values())
    assert sum("cut short" in h for h in holds) == 2 and sum("empty" in h for h in holds) == 2
    assert sum(h.startswith("wrong: ") for h in holds) >= 10
    assert any(h == "every solution" for h in holds)
    empty = next(n for n, h in kinds.items() if "empty" in h)
    assert any(p.stat().st_size == 0 for p in (tmp_path / empty).iterdir())


def test_distinct_students_differ_in_every_function_and_still_parse(tmp_path):
    from pdc.grade import bench, notebook

    kinds = bench.build_class(tmp_path, 3)
    for name in kinds:
        bench.make_distinct(tmp_path / name, name)
    cells = {
        name: notebook.notebook_cells(tmp_path / name / "01_elementwise.ipynb") for name in kinds
    }
    a, b = cells["student000"], cells["student001"]
    assert a != b and "# student000" in "\n".join(a) and "# student001" not in "\n".join(a)
    for code in a:
        compile(code, "<cell>", "exec")  # the comment keeps each cell valid Python

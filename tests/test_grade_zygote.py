"""Grading jobs forked from a warm zygote behave like fresh children, and no job can break it.

Each job here is a simulator job as the grader writes it, with a module whose top level does
what a test needs (write its pid, loop forever, print to the zygote's pipe, exit); the
kernel itself is a plain one.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from pdc.grade import sandbox, zygote

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="zygotes are used on Linux only (fork)"
)

KERNEL = """
from numba import cuda


@cuda.jit
def k(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 2.0 * i
"""


def _job(ws: sandbox.Workspace, top: str = "") -> dict:
    np.save(ws.inputs / "c0_a.npy", np.zeros(40, np.float32), allow_pickle=False)
    case = {
        "id": "c0",
        "names": ["a"],
        "args": [{"kind": "array", "file": "c0_a.npy"}],
        "grid": [2],
        "block": [32],
        "outputs": ["a"],
    }
    module = f"import os\nOUT = {str(ws.out)!r}\n{top}\n{KERNEL}"
    part = {"id": "p0", "kernel": "k", "module": module, "cases": [case]}
    return {
        "nonce": ws.nonce,
        "inputs": str(ws.inputs),
        "outdir": str(ws.out),
        "parts": [part],
        "gpu": False,
    }


def _output(ws: sandbox.Workspace) -> np.ndarray:
    with np.load(ws.out / "c0.npz", allow_pickle=False) as z:
        return z["out_a"]


def _gone(pid: int, within: float = 10.0) -> bool:
    t0 = time.monotonic()
    while time.monotonic() - t0 < within:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True  # dead, waiting to be reaped
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture(scope="module")
def warm():
    z = zygote.Zygote("test-sim", sandbox.SIM_PREPARE)
    yield z
    z.close()


def test_jobs_fork_from_one_zygote_and_give_what_a_fresh_child_gives(warm):
    got, pids = [], []
    for _ in range(2):
        with sandbox.workspace() as ws:
            assert (
                warm.run(_job(ws, "open(OUT + '/pid', 'w').write(str(os.getpid()))"), ws.root, 30)
                == ""
            )
            got.append(_output(ws))
            pids.append(int((ws.out / "pid").read_text()))
    with sandbox.workspace() as ws:
        proc = sandbox.start_child(ws.root, 30)
        assert sandbox.finish_child(proc, _job(ws), 30) == ""
        fresh = _output(ws)
    np.testing.assert_array_equal(got[0], np.arange(40, dtype=np.float32) * 2)
    np.testing.assert_array_equal(got[0], fresh)
    np.testing.assert_array_equal(got[1], fresh)
    assert warm.alive() and len(set(pids)) == 2 and warm.proc.pid not in pids


def test_a_job_gets_its_own_limits_and_a_cpu_count_from_zero(warm):
    top = (
        "import resource\n"
        "u = resource.getrusage(resource.RUSAGE_SELF)\n"
        "cpu = ','.join(map(str, resource.getrlimit(resource.RLIMIT_CPU)))\n"
        "mem = resource.getrlimit(resource.RLIMIT_AS)[0]\n"
        "open(OUT + '/limits', 'w').write(f'{u.ru_utime + u.ru_stime} {cpu} {mem} {os.getsid(0)}')"
    )
    with sandbox.workspace() as ws:
        assert warm.run(_job(ws, top), ws.root, 12) == ""
        used, cpu, mem, sid = (ws.out / "limits").read_text().split()
    assert float(used) < 1.0  # the zygote's own imports took longer than that
    assert cpu == f"{12},{12 + 5}" and int(mem) == sandbox.MEMORY_LIMIT_BYTES
    assert int(sid) not in (os.getsid(0), os.getsid(warm.proc.pid))


def test_an_endless_job_and_what_it_started_are_killed_at_the_limit(warm):
    top = (
        "import subprocess\n"
        "p = subprocess.Popen(['sleep', '300'])\n"
        "open(OUT + '/pids', 'w').write(f'{os.getpid()} {p.pid}')\n"
        "while True:\n    pass"
    )
    with sandbox.workspace() as ws:
        t0 = time.monotonic()
        note = warm.run(_job(ws, top), ws.root, 3)
        took = time.monotonic() - t0
        pids = [int(p) for p in (ws.out / "pids").read_text().split()]
    assert note == "timed out after 3 s of CPU time (an endless loop?)", note
    assert took < 30
    assert all(_gone(p) for p in pids), pids
    with sandbox.workspace() as ws:  # the zygote goes on
        assert warm.run(_job(ws), ws.root, 30) == ""


_BUSY = "import time\nt = time.process_time()\nwhile time.process_time() - t < 2.0:\n    pass"


def _hogs(n: int) -> list:
    """``n`` processes that keep the CPUs busy (a loaded grading machine); each in a session
    of its own, as the job is, so that the scheduler shares the CPUs among them all."""
    import subprocess

    return [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
        for _ in range(n)
    ]


def test_a_busy_machine_does_not_make_a_job_run_out_of_time(warm):
    """The limit is CPU time: a job needing 2 of its 3 CPU seconds ends well, though with
    every core shared it takes longer than 3 s of wall-clock time."""
    hogs = _hogs(3 * (os.cpu_count() or 1))
    try:
        with sandbox.workspace() as ws:
            t0 = time.monotonic()
            note = warm.run(_job(ws, _BUSY), ws.root, 3)
            took = time.monotonic() - t0
            out = _output(ws)
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    assert note == "", note
    np.testing.assert_array_equal(out, np.arange(40, dtype=np.float32) * 2)
    assert took > 3.0  # else the machine was not busy and this tells nothing


def test_a_fresh_child_that_loops_is_stopped_at_its_cpu_limit(monkeypatch):
    monkeypatch.setenv("PDC_GRADE_ZYGOTE", "0")
    with sandbox.workspace() as ws:
        t0 = time.monotonic()
        note = sandbox.run_child(_job(ws, "while True:\n    pass"), ws.root, 3)
        took = time.monotonic() - t0
    assert note == "timed out after 3 s of CPU time (an endless loop?)", note
    assert took < 30


@pytest.mark.parametrize("fresh", [False, True], ids=["fork", "fresh"])
def test_a_job_that_waits_is_stopped_by_the_wall_clock(monkeypatch, fresh):
    if fresh:
        monkeypatch.setenv("PDC_GRADE_ZYGOTE", "0")
    monkeypatch.setattr(sandbox, "WALL_FACTOR", 1.0)
    monkeypatch.setattr(sandbox, "WALL_SLACK_S", 1.0)
    top = "import time\ntime.sleep(300)"
    with sandbox.workspace() as ws:
        t0 = time.monotonic()
        note = sandbox.run_child(_job(ws, top), ws.root, 4)
        took = time.monotonic() - t0
    assert note.startswith("timed out after 5 s of wall-clock time (the run waited"), note
    assert took < 30


def test_a_job_cannot_write_to_the_zygotes_answers(warm):
    fake = '{"exit": 1, "code": 0}\\n{"id": 0, "pid": 1}\\n'
    top = f"import sys\nprint({fake!r})\nos.write(1, {fake!r}.encode())\nsys.stdout.flush()"
    for _ in range(2):
        with sandbox.workspace() as ws:
            assert warm.run(_job(ws, top), ws.root, 30) == ""
            np.testing.assert_array_equal(_output(ws), np.arange(40, dtype=np.float32) * 2)
    assert warm.alive()


def test_a_job_that_exits_is_reported_with_its_last_words(warm):
    top = "import sys\nprint('about to leave', file=sys.stderr)\nos._exit(3)"
    with sandbox.workspace() as ws:
        note = warm.run(_job(ws, top), ws.root, 30)
    assert note == "the kernel run stopped (exit status 3): about to leave", note


def test_a_dead_zygote_fails_its_jobs_and_the_sandbox_runs_them_fresh(monkeypatch):
    z = zygote.Zygote("test-dies")
    top = "open(OUT + '/pid', 'w').write(str(os.getpid()))\nimport time\ntime.sleep(300)"
    with sandbox.workspace() as ws:
        errors: list = []

        def run() -> None:
            try:
                z.run(_job(ws, top), ws.root, 120)
            except zygote.ZygoteError as e:
                errors.append(e)

        t = threading.Thread(target=run)
        t.start()
        for _ in range(600):
            if (ws.out / "pid").is_file() and (ws.out / "pid").read_text():
                break
            time.sleep(0.1)
        job_pid = int((ws.out / "pid").read_text())
        os.kill(z.proc.pid, signal.SIGKILL)
        t.join(60)
        assert not t.is_alive() and errors and "stopped" in str(errors[0])
        assert _gone(job_pid)  # the grader kills a job its dead zygote left running
    with pytest.raises(zygote.ZygoteError):
        with sandbox.workspace() as ws:
            z.run(_job(ws), ws.root, 30)
    # The pool replaces a dead zygote; run_child goes on either way.
    monkeypatch.setattr(zygote, "_POOL", {"sim": z})
    with sandbox.workspace() as ws:
        assert sandbox.run_child(_job(ws), ws.root, 60) == ""
        np.testing.assert_array_equal(_output(ws), np.arange(40, dtype=np.float32) * 2)
    assert zygote._POOL["sim"] is not z
    zygote._POOL["sim"].close()


def test_closing_a_zygote_stops_the_jobs_it_runs():
    z = zygote.Zygote("test-close")
    top = "open(OUT + '/pid', 'w').write(str(os.getpid()))\nimport time\ntime.sleep(300)"
    with sandbox.workspace() as ws:
        notes: list = []
        t = threading.Thread(target=lambda: notes.append(_try(z, _job(ws, top), ws.root)))
        t.start()
        for _ in range(600):
            if (ws.out / "pid").is_file() and (ws.out / "pid").read_text():
                break
            time.sleep(0.1)
        job_pid = int((ws.out / "pid").read_text())
        z.close()
        t.join(60)
        assert _gone(job_pid)
    assert not z.alive() and notes


def test_a_fork_answered_just_before_the_zygote_stopped_does_not_wait_for_its_exit():
    # Ctrl-C on a class: the zygote answered a fork, then was closed before the grader asked
    # for that fork's exit. No exit will ever be read: the wait must end at once.
    z = zygote.Zygote("test-stopped")
    z.close()
    for _ in range(600):
        if z._dead:
            break
        time.sleep(0.01)
    fut = z._exit_future(999_999)
    assert fut.done()
    with pytest.raises(zygote.ZygoteError, match="stopped"):
        fut.result(timeout=0)


def _try(z: zygote.Zygote, job: dict, cwd: Path) -> str:
    try:
        return z.run(job, cwd, 120)
    except zygote.ZygoteError as e:
        return str(e)


def test_without_zygotes_jobs_run_in_fresh_children(monkeypatch):
    monkeypatch.setenv("PDC_GRADE_ZYGOTE", "0")
    monkeypatch.setattr(zygote, "_POOL", {})
    with sandbox.workspace() as ws:
        assert sandbox.run_child(_job(ws), ws.root, 60) == ""
        np.testing.assert_array_equal(_output(ws), np.arange(40, dtype=np.float32) * 2)
    assert zygote._POOL == {}


def test_the_simulators_zygote_runs_every_parts_warm_hook(monkeypatch):
    import types

    from pdc.grade import child
    from pdc.grade import exercises as exs

    calls: list[str] = []
    parts = {
        "a": [
            types.SimpleNamespace(warm=lambda: calls.append("a1")),
            types.SimpleNamespace(warm=None),
        ],
        "b": [types.SimpleNamespace(warm=lambda: calls.append("b1"))],
    }
    monkeypatch.setattr(exs, "ALL_KEYS", ("a", "b"))
    monkeypatch.setattr(exs, "exercise", lambda key: types.SimpleNamespace(parts=parts[key]))
    child.prepare()
    assert calls == ["a1", "b1"]
    # The real one: the ring part's hook compiles the shared loop for its messages.
    from pdc.grade.exercises import ex06_ring

    assert ex06_ring.RING.parts[0].warm is not None

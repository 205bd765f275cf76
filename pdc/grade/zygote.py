"""Sandboxed children forked from a warm parent: imports paid once, not once per kernel.

Every graded kernel runs in a process of its own (pdc.grade.sandbox). Started fresh, such a
process spends most of its life importing: numba and its CUDA target (about a second), torch
and Triton (about two), before it runs a case. A class of 300 students would spend most of
its time on imports. A *zygote* is a process started once, under the sandbox's bare
environment, that does those imports (``prepare``) and then only forks: each job runs in a
fresh fork, with its own session, its own limits (CPU time, memory, file size) set after the
fork, standard input and output on ``/dev/null`` and standard error in a file of the job's
folder. The zygote itself never runs submitted code, so every fork starts from the same
clean state, as a fresh process would; a fork's CPU-time count starts at zero.

Why by hand: ``multiprocessing``'s forkserver pickles functions and results through the
server and gives no control over sessions, resource limits or where standard error goes;
grading needs a child it can kill as a whole group at its wall-clock limit and whose output
it reads from files it validates, never from the child's pipes.

The protocol is one JSON object per line. The grader writes ``{"id", "job", "cwd",
"timeout", "gpu", "stderr"}``; the zygote answers ``{"id", "pid"}`` once it has forked, and
``{"exit": pid, "code": status}`` when that child ends (it reaps children on ``SIGCHLD``).
When the grader goes away (end of file on standard input), the zygote kills every child
still running and exits. A fork touches CUDA only in the child, and only when the job asks
for the GPU; a zygote never initialises CUDA itself.
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

#: Seconds to wait for a zygote to fork (it may still be importing when the first job comes).
FORK_WAIT_S = 120.0


class ZygoteError(RuntimeError):
    """The zygote could not run a job (it died or never answered); use a fresh child."""


# -- the zygote process --------------------------------------------------------------------------
def serve(prepare: str = "") -> None:
    """Main loop of a zygote: run ``prepare`` once, then fork one child per job line."""
    import selectors

    if prepare:
        exec(prepare, {"__name__": "pdc_zygote_prepare"})  # noqa: S102 - our own import lines
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    sel = selectors.DefaultSelector()
    sel.register(0, selectors.EVENT_READ)
    sel.register(wake_r, selectors.EVENT_READ)
    live: set[int] = set()
    buf = b""

    def say(msg: dict) -> None:
        os.write(1, (json.dumps(msg) + "\n").encode())

    def reap() -> None:
        while live:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            live.discard(pid)
            say({"exit": pid, "code": os.waitstatus_to_exitcode(status)})

    private = (wake_r, wake_w, sel.fileno())
    while True:
        for key, _ in sel.select():
            if key.fd == wake_r:
                try:
                    while os.read(wake_r, 512):
                        pass
                except BlockingIOError:
                    pass
                reap()
                continue
            data = os.read(0, 1 << 20)
            if not data:  # the grader is gone: so is every job
                for pid in live:
                    _killpg(pid)
                os._exit(0)
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                req = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    _child(req, private)  # never returns
                live.add(pid)
                say({"id": req["id"], "pid": pid})
        reap()


def _child(req: dict, private: tuple[int, ...]) -> None:
    """In a fresh fork: a session of its own, the job's limits and files, then the job."""
    code = 1
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in private:
            os.close(fd)
        null = os.open(os.devnull, os.O_RDWR)
        err = os.open(req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(null, 0)
        os.dup2(null, 1)  # the zygote's answers to the grader: not the job's to write
        os.dup2(err, 2)
        os.close(null)
        os.close(err)
        os.chdir(req["cwd"])
        from pdc.grade.child import run
        from pdc.grade.sandbox import limits

        limits(float(req["timeout"]), bool(req["gpu"]))()
        run(req["job"])  # ends the process itself
        code = 0
    except BaseException:  # the job's failure: its standard error says why
        import traceback

        try:
            traceback.print_exc()
            sys.stderr.flush()
        finally:
            os._exit(code)
    os._exit(code)


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# -- the grader's side ---------------------------------------------------------------------------
class Zygote:
    """A zygote process and the jobs forked from it (thread-safe)."""

    def __init__(self, name: str, prepare: str = "") -> None:
        from pdc.grade import sandbox

        self.name = name
        boot = (
            f"import sys; sys.path.insert(0, {sandbox.PDC_ROOT!r}); "
            f"from pdc.grade.zygote import serve; serve({prepare!r})"
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-c", boot],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=tempfile.gettempdir(),
            env=sandbox.child_env(False),
            start_new_session=True,
        )
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._forks: dict[int, Future] = {}  # request id -> pid
        self._exits: dict[int, Future] = {}  # pid -> exit status
        self._dead = False
        threading.Thread(target=self._read, name=f"pdc-zygote-{name}", daemon=True).start()

    def alive(self) -> bool:
        return not self._dead and self.proc.poll() is None

    def _exit_future(self, pid: int) -> Future:
        """The future of fork ``pid``'s exit status; failed at once when the zygote is gone
        (stopped between answering the fork and this call: no exit will ever be read)."""
        with self._lock:
            fut = self._exits.get(pid)
            if fut is None:
                fut = self._exits[pid] = Future()
                if self._dead:
                    fut.set_exception(ZygoteError(f"the {self.name} zygote stopped"))
            return fut

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                break
            if "pid" in msg:
                with self._lock:
                    fut = self._forks.pop(msg["id"], None)
                if fut is not None:
                    fut.set_result(int(msg["pid"]))
            elif "exit" in msg:
                fut = self._exit_future(int(msg["exit"]))
                if not fut.done():
                    fut.set_result(int(msg["code"]))
        with self._lock:
            self._dead = True
            pending = [*self._forks.values(), *self._exits.values()]
            self._forks.clear()
        for fut in pending:
            if not fut.done():
                fut.set_exception(ZygoteError(f"the {self.name} zygote stopped"))

    def run(self, job: dict, cwd: Path, timeout: float, gpu: bool = False) -> str:
        """Run ``job`` in a fork with ``timeout`` CPU seconds; "" or why it stopped early
        (as :func:`pdc.grade.sandbox.finish_child` words it).

        Raises:
            ZygoteError: The zygote is gone or did not fork (nothing of the job ran).
        """
        from pdc.grade import sandbox

        stderr = Path(cwd) / f"stderr-{secrets.token_hex(6)}.txt"
        forked: Future = Future()
        with self._lock:
            if self._dead:
                raise ZygoteError(f"the {self.name} zygote stopped")
            rid = next(self._ids)
            self._forks[rid] = forked
            req = {"id": rid, "job": job, "cwd": str(cwd), "timeout": float(timeout)}
            req.update(gpu=bool(gpu), stderr=str(stderr))
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write((json.dumps(req) + "\n").encode())
                self.proc.stdin.flush()
            except (OSError, ValueError) as e:
                self._forks.pop(rid, None)
                raise ZygoteError(f"the {self.name} zygote stopped ({e})") from None
        try:
            pid = forked.result(timeout=FORK_WAIT_S)
        except FutureTimeout:
            self.close()
            raise ZygoteError(f"the {self.name} zygote did not fork in {FORK_WAIT_S:g} s") from None
        done = self._exit_future(pid)
        try:
            code = done.result(timeout=sandbox.wall_limit(timeout))
        except FutureTimeout:
            _killpg(pid)
            try:
                done.result(timeout=30)
            except (FutureTimeout, ZygoteError):
                pass
            return sandbox.stopped_note(timeout, None)
        except ZygoteError:
            _killpg(pid)
            raise
        finally:
            with self._lock:
                self._exits.pop(pid, None)
        _killpg(pid)  # what the job started, when its CPU limit (SIGXCPU) ended the job
        lines: list = []
        if code != 0:
            try:
                lines = stderr.read_text(errors="replace").strip().splitlines()
            except OSError:
                pass
        return sandbox.stopped_note(timeout, code, (lines[-1:] or [""])[0])

    def close(self) -> None:
        """Stop the zygote; it kills the jobs still running."""
        with self._lock:
            self._dead = True
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _killpg(self.proc.pid)
            self.proc.wait()


_POOL: dict[str, Zygote] = {}
_POOL_LOCK = threading.Lock()


def get(name: str, prepare: str) -> Zygote:
    """The running zygote ``name`` (started with ``prepare`` when there is none)."""
    from pdc.grade import sandbox

    if sandbox._STOPPING.is_set():
        raise ZygoteError("grading was interrupted")
    with _POOL_LOCK:
        z = _POOL.get(name)
        if z is None or not z.alive():
            z = _POOL[name] = Zygote(name, prepare)
        return z


def enabled() -> bool:
    """Whether jobs go through zygotes: on Linux, unless ``PDC_GRADE_ZYGOTE=0``.

    Not on macOS, where forking a process that has loaded Apple's frameworks (as NumPy's
    Accelerate build and torch do) is unsafe, nor on Windows, which has no fork: there each
    job starts a fresh child, as everywhere with ``PDC_GRADE_ZYGOTE=0``.
    """
    return os.environ.get("PDC_GRADE_ZYGOTE", "1") != "0" and sys.platform.startswith("linux")


@atexit.register
def close_all() -> None:
    """Stop every zygote of this process."""
    with _POOL_LOCK:
        pool = list(_POOL.values())
        _POOL.clear()
    for z in pool:
        z.close()

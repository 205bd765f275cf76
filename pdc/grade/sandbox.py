"""Where untrusted kernel code runs: a fresh folder, a nonce, and a limited child process.

Every part of ``pdc grade`` that runs submitted code goes through here: ``workspace`` makes a
private temporary folder with an input folder, an unguessable output folder and a nonce, and
removes it afterwards; ``run_child`` runs pdc.grade.child (``python -I``) on a job under a
CPU-time limit, a wall-clock limit (the whole process group is killed), address-space and
file-size limits, with an environment that keeps only what Python needs.

A run's time limit is CPU seconds: a machine busy with other work slows a child's wall
clock, not its CPU time, so a kernel that ends in time on an idle machine ends in time on a
busy one and keeps its score. The wall clock (``wall_limit``: three times as long, and half
a minute more) only stops a child that waits instead of working.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

MEMORY_LIMIT_BYTES = 3 * 1024**3
WALL_FACTOR = 3.0
WALL_SLACK_S = 30.0
_LIVE: weakref.WeakSet = weakref.WeakSet()  # fresh children that may still run
_STOPPING = threading.Event()


class Stopped(RuntimeError):
    """Grading was interrupted (``stop_all``): no child starts."""


def stop_all() -> None:
    """Stop every grading child of this process and start no new one (Ctrl-C on a batch).

    Fresh children are killed with their process groups, and the zygotes are closed, which
    kills their forks; a grader thread waiting on one then gets its "stopped" answer at once
    instead of the kernel's. ``resume`` lets grading start again.
    """
    from pdc.grade import zygote

    _STOPPING.set()
    for proc in list(_LIVE):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    zygote.close_all()


def resume() -> None:
    """Allow children again after ``stop_all``."""
    _STOPPING.clear()


#: The folder that holds the pdc package (put on a child's ``sys.path``).
PDC_ROOT = str(Path(__file__).resolve().parents[2])


@dataclass
class Workspace:
    """A private folder for one run: inputs written by the grader, outputs by the child."""

    root: Path
    inputs: Path
    out: Path
    nonce: str


@contextmanager
def workspace() -> Iterator[Workspace]:
    """A fresh Workspace, removed with everything in it on exit."""
    root = Path(tempfile.mkdtemp(prefix="pdc-grade-"))
    try:
        ws = Workspace(
            root, root / "in", root / f"out-{secrets.token_hex(8)}", secrets.token_hex(16)
        )
        ws.inputs.mkdir(mode=0o700)
        ws.out.mkdir(mode=0o700)
        yield ws
    finally:
        shutil.rmtree(root, ignore_errors=True)


def wall_limit(cpu_s: float) -> float:
    """Wall-clock seconds a child with ``cpu_s`` seconds of CPU time may run."""
    return cpu_s * WALL_FACTOR + WALL_SLACK_S


def stopped_note(cpu_s: float, exit_code: int | None, err: str = "") -> str:
    """Why a child stopped early ("" when it ended well): ``exit_code`` None when its wall
    clock ran out, else its exit status (negative: the signal that ended it)."""
    if exit_code is None:
        return (
            f"timed out after {wall_limit(cpu_s):g} s of wall-clock time (the run waited "
            f"instead of working: an endless wait?)"
        )
    if exit_code == -signal.SIGXCPU:
        return f"timed out after {cpu_s:g} s of CPU time (an endless loop?)"
    if exit_code != 0:
        return f"the kernel run stopped (exit status {exit_code}): {err[:200]}"
    return ""


def limits(timeout: float, gpu: bool = False):
    """The function that sets the child's resource limits: ``timeout`` CPU seconds (then
    SIGXCPU; SIGKILL five seconds later), no core files, files up to 256 MiB, and 3 GiB of
    address space without a GPU.

    The child calls it first thing, before it reads its job (``run_child``'s boot line): a
    ``preexec_fn`` would make the grader fork while its other threads may be inside
    OpenBLAS, whose fork handler stops its worker threads under a running matrix product
    and leaves that thread spinning forever.
    """

    def apply():
        import resource

        cpu = max(1, math.ceil(timeout))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024**2, 256 * 1024**2))
        if not gpu:  # a CUDA context reserves far more address space than it uses
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))

    return apply


# Where NVIDIA's compiler is (a conda environment, a system toolkit): needed to type kernels.
_TOOLKIT = ("CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX")
# What a GPU run needs besides: the driver's library path (Colab finds libcuda through
# LD_LIBRARY_PATH), the GPU chosen (CUDA_VISIBLE_DEVICES, a MIG slice), module loading.
_GPU_PREFIXES = ("CUDA_", "NVIDIA_", "NUMBA_CUDA_")


def child_env(gpu: bool) -> dict:
    """The child's environment: no variables of the grader's beyond what Python needs.

    With ``gpu`` the CUDA, NVIDIA and numba-CUDA settings and ``LD_LIBRARY_PATH`` go along,
    so that the child starts CUDA on the same GPU the grader would.
    """
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT", *_TOOLKIT)
    env = {k: os.environ[k] for k in keep if k in os.environ}
    if gpu:
        env.update(
            {
                k: v
                for k, v in os.environ.items()
                if k.startswith(_GPU_PREFIXES) or k == "LD_LIBRARY_PATH"
            }
        )
        env["PDC_GRADE_GPU"] = "1"
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


#: What the simulator's zygote imports and runs before its first fork.
SIM_PREPARE = "from pdc.grade.child import prepare; prepare()"


def run_child(job: dict, cwd: Path, timeout: float, gpu: bool = False) -> str:
    """Run pdc.grade.child on ``job`` under limits; returns "" or why it stopped early.

    Without the GPU the job runs in a fork of the simulator's zygote (pdc.grade.zygote:
    numba and pdc.sim already imported and warm); with it, or when the zygote cannot fork,
    in a fresh child.
    """
    from pdc.grade import zygote

    if not gpu and zygote.enabled():
        try:
            return zygote.get("sim", SIM_PREPARE).run(job, cwd, timeout)
        except zygote.ZygoteError:
            pass  # a fresh child runs it and reports what fails
    return finish_child(start_child(cwd, timeout, gpu), job, timeout)


def start_child(
    cwd: Path, timeout: float, gpu: bool = False, prepare: str = ""
) -> subprocess.Popen:
    """Start pdc.grade.child under limits; it waits for its job on standard input.

    Args:
        cwd: The folder the child starts in.
        timeout: Seconds of CPU time the child may use (a job's wall-clock limit is
            ``finish_child``'s).
        gpu: Whether the child may use the GPU.
        prepare: A Python statement the child runs after its limits are set and before it
            reads its job (imports a job will need: a child started ahead of its job).
    """
    if _STOPPING.is_set():
        raise Stopped("[grade] grading was interrupted: no kernel is run")
    boot = (
        f"import sys; sys.path.insert(0, {PDC_ROOT!r}); "
        f"from pdc.grade.sandbox import limits; limits({float(timeout)!r}, {bool(gpu)!r})(); "
        f"{prepare + '; ' if prepare else ''}from pdc.grade.child import main; main()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-I", "-c", boot],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=child_env(gpu),
        start_new_session=True,
    )
    _LIVE.add(proc)
    return proc


def finish_child(proc: subprocess.Popen, job: dict, timeout: float) -> str:
    """Send ``job`` to a child of ``start_child`` (``timeout``: its CPU seconds) and wait for
    it, at most ``wall_limit(timeout)`` seconds; returns "" or why it stopped early."""
    try:
        _, err = proc.communicate(json.dumps(job).encode(), timeout=wall_limit(timeout))
    except subprocess.TimeoutExpired:
        _kill(proc)
        return stopped_note(timeout, None)
    _kill(proc)  # what the child started, when its CPU limit (SIGXCPU) ended the child
    tail = err.decode(errors="replace").strip().splitlines()[-1:] or [""]
    return stopped_note(timeout, proc.returncode, tail[0])


def stop_child(proc: subprocess.Popen) -> None:
    """Stop a child of ``start_child`` that has not been given a job (its whole group)."""
    _kill(proc)


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()

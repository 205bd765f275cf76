"""Instant feedback in a notebook: run a kernel on its exercise's public cases and explain.

The check runs the kernel on pdc.sim (numba-cuda's typed IR of it, with a GPU's sanitizers),
from the notebook: it is for learning, not for grading: ``pdc grade`` runs the kernel in a
separate process, adds hidden cases and scores there.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import textwrap
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import numpy as np

import pdc.sim as sim
from pdc import pyast
from pdc.grade import exercises as exs
from pdc.grade import pending, source
from pdc.grade.judge import CaseResult, judge, summary
from pdc.sim.frontend import python_function


def notebook_session() -> tuple[list[str] | None, Path | None]:
    """The cells this IPython session ran, in order, and the notebook file it belongs to.

    (None, None) outside IPython. The cells are IPython's own record of what it executed
    (``In``, already converted to Python), the same view ``pdc grade`` takes of a saved
    notebook.
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return None, None
    ip = get_ipython()
    if ip is None:
        return None, None
    cells = [c for c in ip.user_ns.get("In", [])[1:] if isinstance(c, str)]
    path = ip.user_ns.get("__session__") or ip.user_ns.get("__vsc_ipynb_file__")
    path = path or os.environ.get("JPY_SESSION_NAME")
    nb = Path(path) if path and str(path).endswith(".ipynb") else None
    return cells, nb if nb is not None and nb.is_file() else None


def gate_problem(ex, part, cells: list[str]) -> str | None:
    """What ``pdc grade`` says before simulating: rejected, or does not compile for a GPU."""
    from pdc.grade import gate

    ext = source.extract(cells, [part.name], ex.constants)
    if part.name in ext.problems:
        return f"rejected: {ext.problems[part.name]}"
    args = list(exs.public_cases(part)[0].args.values())
    error = gate.check_compiles([(part.name, gate.module_text(ext, part.name), part.name, args)])
    why = error.get(part.name)
    return f"does not compile for a GPU: {why}" if why else None


def unsaved_warning(fn, name: str, path: Path | None) -> str | None:
    """A warning when the saved notebook does not hold the kernel just checked."""
    if path is None:
        return None
    from pdc.grade import notebook

    node: ast.FunctionDef | None = None
    live: ast.FunctionDef | None = None
    try:
        src = textwrap.dedent(inspect.getsource(fn))
        live = next(n for n in pyast.parse(src).body if isinstance(n, ast.FunctionDef))
        node = source.definitions(notebook.notebook_cells(path)).get(name)
    except (OSError, TypeError, SyntaxError, StopIteration, ValueError):
        pass
    if live is None or (node is not None and ast.dump(node) == ast.dump(live)):
        return None  # the same kernel (or no source here to compare)
    return (
        f"warning: {path.name} on disk does not hold this version of {name} (unsaved edits?): "
        "pdc grade reads the saved file, so save (Ctrl+S) before you submit"
    )


def live_gate_problem(kernel, part) -> str | None:
    """numba's verdict on the kernel object itself, when the session kept no history.

    (A kernel run without history, as by a test runner, has no cells to rebuild it from.)
    """
    from pdc.ptx.build import CompilerMissing
    from pdc.ptx.resources import resources

    case = exs.public_cases(part)[0]
    try:
        r = resources(kernel, *case.args.values(), block=tuple(case.block))
    except (CompilerMissing, ValueError, TypeError, OSError):
        return None
    return None if r.sm80.ok else f"does not compile for a GPU: {r.sm80.error}"


def run_public(
    kernel, name: str | None = None, cells: list[str] | None = None, gate_why: str | None = None
) -> tuple:
    """Run a kernel on its public cases; returns (part, verdicts).

    Args:
        kernel: The kernel (or its Python function).
        name: The exercise kernel it answers (default: the function's name).
        cells: The notebook's code as run so far; with it, the kernel first goes through the
            same check and compile gate as in ``pdc grade``.
        gate_why: Without cells, why the kernel does not compile (None: it does).
    """
    fn = python_function(kernel)
    name = name or fn.__name__
    ex, part = exs.find_part(name)
    # The gate compiles in a process of its own while the simulator runs the cases in
    # another: the check waits for the slower, not for both. Its verdict decides.
    gate = background(gate_problem, ex, part, cells) if cells is not None else None
    cases = exs.public_cases(part)
    expected = [part.reference(c.args) for c in cases]
    ran: list = []
    error: Exception | None = None
    if not gate_why:
        try:
            for c in cases:
                args = [v.copy() if isinstance(v, np.ndarray) else v for v in c.args.values()]
                rep = sim.launch(kernel, c.grid, c.block, args, list(c.args))
                outputs = {o: args[list(c.args).index(o)] for o in c.outputs}
                ran.append(CaseResult(c, outputs=outputs, report=rep))
        except Exception as exc:  # a kernel the gate refuses fails to type here too
            error = exc
    if gate is not None:
        gate_why = gate.result()
    if gate_why:
        results = [CaseResult(c, failure=gate_why) for c in cases]
    elif error is not None:
        raise error
    else:
        results = ran
    public_part = exs.public_only(part)
    return public_part, judge(public_part, results, expected)


def background(fn, *args) -> Future:
    """``fn(*args)`` on a daemon thread: its result (or exception) in the returned future.

    What runs there waits on a child process (the compile gate, a real-GPU build), so it
    overlaps with this thread's work. A daemon thread: an interrupted check returns at once
    and the child's answer is dropped, and the interpreter never waits for it at exit.
    """
    future: Future = Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(fn(*args))
        except BaseException as exc:  # handed to whoever asks for the result
            future.set_exception(exc)

    threading.Thread(target=run, name=f"pdc-check-{fn.__name__}", daemon=True).start()
    return future


PUBLIC_ONLY = "public cases only: the grader also runs hidden cases (pdc grade)"
#: The resources line while its real-GPU build still runs (pdc.grade.pending).
BUILDING = (
    "Real-GPU resources: compiling for an H100 (sm_90) and an A100 (sm_80); "
    "this line fills in when the build ends."
)
_SHOWS = ("access", "banks")
#: Findings about positions, by a phrase of their feedback, and the pictures that show them.
_PICTURED = (
    ("out-of-bounds access", ("access",)),
    ("not coalesced", ("access",)),
    ("bank conflicts", ("access", "banks")),
)


def pictures_for(verdicts) -> tuple:
    """The pictures that explain a kernel's failing criteria: an access map where a finding
    is about positions (out of range, not coalesced), and the bank table for conflicts."""
    text = "\n".join(v.output for v in verdicts if not v.passed)
    return tuple(s for s in _SHOWS if any(p in text and s in ss for p, ss in _PICTURED))


def _shows(show) -> tuple:
    if show is None:
        return ()
    shows = (show,) if isinstance(show, str) else tuple(show)
    bad = [s for s in shows if s not in _SHOWS]
    if bad:
        raise ValueError(f"[check] expected show in {_SHOWS} (or a tuple of them), got {show!r}")
    return shows


def pictured_case(part, verdicts) -> int:
    """The public case that the failing feedback names first (0 if it names none)."""
    text = "\n".join(v.output for v in verdicts if not v.passed)
    for k, case in enumerate(exs.public_cases(part)):
        if re.search(rf"(?:case|cases|,) {re.escape(case.label)}[,:]", text):
            return k
    return 0


def show_first_case(kernel, part, shows: tuple, index: int = 0) -> None:
    """Run a public case again (the first by default) and show its access maps and/or bank
    table."""
    case = exs.public_cases(part)[index]
    args = [v.copy() if isinstance(v, np.ndarray) else v for v in case.args.values()]
    rep = sim.launch(kernel, case.grid, case.block, args, list(case.args), record="access" in shows)
    from pdc.grade import plots

    if "banks" in shows:
        print(f"shared-memory banks, case {case.label}:")
        print(plots.bank_table(rep))
    if "access" in shows:
        assert rep.access is not None  # recorded above
        names = [o for o in case.outputs if o in rep.access]
        names += [k for k in rep.access if k.startswith("shared:")]
        if not names:
            return
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(len(names), 1, figsize=(8, 3 * len(names)), squeeze=False)
        for ax, name in zip(axes[:, 0], names):
            label = rep.access[name].get("name", name)  # a shared array: the student's name
            plots.access_map(rep, name, ax=ax, title=f"case {case.label}: {label}")
        fig.tight_layout()
        plt.show()


def resources_line(kernel, part) -> str:
    """What check() says of the kernel's real-GPU build (pdc.ptx): the part's own line, or
    the kernel compiled for its first public case's arguments and block."""
    if part.resources is not None:
        return part.resources(kernel)
    from pdc.grade.gate import compile_many_warm
    from pdc.ptx.resources import check_line

    case = exs.public_cases(part)[0]
    args = list(case.args.values())
    return check_line(kernel, args, tuple(case.block), compiler=compile_many_warm)


def check(kernel, name: str | None = None, *, show="auto") -> None:
    """Check a kernel against its exercise's public cases and print specific feedback.

    The feedback names each failing case, the first mismatching index and the expected and
    actual values, and any out-of-bounds access, race or divergent barrier with the thread
    and kernel line where it happened.

    Args:
        kernel: The ``@cuda.jit`` kernel (or its Python function).
        name: The exercise kernel it answers (default: the function's name).
        show: Also show the first public case: ``"access"`` plots the access maps of its
            output arrays and shared arrays (who touched which element), ``"banks"`` prints
            its shared-memory bank conflicts per line; a tuple shows both. The default,
            ``"auto"``, shows what explains the feedback: the access maps where a finding is
            about positions (out of range, not coalesced, bank conflicts), and the bank table
            for bank conflicts. ``None`` shows nothing.

    Raises:
        ValueError: ``show`` names something else.
    """
    auto = isinstance(show, str) and show == "auto"
    shows = () if auto else _shows(show)
    fn = python_function(kernel)
    name = name or getattr(kernel, "kernel_id", None) or fn.__name__
    _, plugin = exs.find_part(name, plugins=True)
    if plugin.checker is not None:  # a part that checks itself
        # Its real-GPU build compiles in a child process meanwhile, on another core.
        start = time.perf_counter()
        built = background(plugin.resources, kernel) if plugin.resources is not None else None
        plugin.checker(kernel)
        print(PUBLIC_ONLY)
        if built is not None:
            pending.show(built, BUILDING, start)
        return
    cells, path = notebook_session()
    gate_why = None
    if cells is not None and name not in source.definitions(cells):
        cells = None  # no history of the cells that defined it: ask numba about the object
    if cells is None:
        gate_why = live_gate_problem(kernel, exs.find_part(name)[1])
    # The real-GPU build for the resources line compiles meanwhile, in a process of its own.
    start = time.perf_counter()
    line = background(resources_line, kernel, exs.find_part(name)[1])
    part, verdicts = run_public(kernel, name, cells, gate_why)
    print(summary(part, verdicts))
    print(PUBLIC_ONLY)
    if (warning := unsaved_warning(fn, part.name, path)) is not None:
        print(warning)
    pending.show(line, BUILDING, start)
    index = 0
    if auto:
        shows = pictures_for(verdicts)
        if shows:
            index = pictured_case(part, verdicts)
            label = exs.public_cases(part)[index].label
            print(f"case {label}, pictured (check(..., show=None) leaves pictures out):")
    if shows:
        show_first_case(kernel, part, shows, index)

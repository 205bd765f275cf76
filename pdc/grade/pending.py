"""A check's last line while its work still runs: shown at once, filled in when it ends.

A check's verdict comes from the simulator in well under a second; its real-GPU line comes
from a compiler in a child process, which can take seconds more (a ring kernel built around
a handler the machine has not seen). In a Jupyter kernel the line is a display with an id
(IPython's ``display(..., display_id=True)``): it says what is still being built, the cell
ends, and the front end (JupyterLab, Notebook, VS Code, Colab) replaces the text in place
when the build ends. Elsewhere (a script, a terminal) there is nothing to update, so the
check waits and prints the line.

The line is the same kind of output either way (a ``text/plain`` display in a kernel,
printed text elsewhere), so a notebook's saved outputs do not depend on how fast the
build was.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, wait

#: How long a check waits for its line before it shows the placeholder (seconds).
GRACE_S = 0.3

_lock = threading.Lock()
#: (start, landed) of the lines shown so far (perf_counter seconds; landed is None while
#: the line is still being built); ``pdc bench check`` reads it through ``wait_last``.
_shown: list[list[float | None]] = []


def line_text(future: Future) -> str:
    """The finished future's line, or what stopped it (the check goes on either way)."""
    try:
        return str(future.result())
    except Exception as exc:  # the line is extra: its failure is told, not raised
        return f"Real-GPU resources: not available ({type(exc).__name__}: {exc})."


def _kernel_display() -> bool:
    """True inside a Jupyter kernel, whose front end can replace a display in place."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    ip = get_ipython()
    return ip is not None and getattr(ip, "kernel", None) is not None


def show(future: Future, placeholder: str, start: float | None = None) -> None:
    """Show the line ``future`` will hold: at once if it is ready within ``GRACE_S``,
    else ``placeholder`` now and the line in its place when the future ends.

    Args:
        future: The line's work (a ``Future`` of a ``str``), already running.
        placeholder: What the line says while the work runs.
        start: When the work started (``time.perf_counter()``; default now), for
            ``wait_last``.
    """
    record: list[float | None] = [time.perf_counter() if start is None else start, None]
    with _lock:
        _shown.append(record)
        del _shown[:-16]

    def landed() -> None:
        record[1] = time.perf_counter()

    if not _kernel_display():
        text = line_text(future)
        landed()
        print(text)
        return
    from IPython.display import display

    wait([future], timeout=GRACE_S)
    if future.done():
        landed()
        display({"text/plain": line_text(future)}, raw=True)
        return
    handle = display({"text/plain": placeholder}, raw=True, display_id=True)

    def fill(done: Future) -> None:
        handle.update({"text/plain": line_text(done)}, raw=True)
        landed()  # after the update is sent: whoever waits for it sees it

    future.add_done_callback(fill)


def wait_last(timeout: float = 600.0) -> float | None:
    """Wait for every line shown so far to land; the seconds from the last one's start
    until it did (None when no line was shown, or one did not land within ``timeout``)."""
    with _lock:
        records = list(_shown)
    if not records:
        return None
    end = time.perf_counter() + timeout
    while any(r[1] is None for r in records) and time.perf_counter() < end:
        time.sleep(0.02)
    start, landed = records[-1]
    return None if start is None or landed is None else landed - start

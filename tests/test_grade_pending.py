"""pdc.grade.pending: a check's resources line shown at once, filled in when its build ends."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future

import pytest

from pdc.grade import pending


def _later(value=None, error: BaseException | None = None, after: float = 0.0) -> Future:
    future: Future = Future()

    def run() -> None:
        time.sleep(after)
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    threading.Thread(target=run, daemon=True).start()
    return future


def test_outside_a_kernel_the_line_is_waited_for_and_printed(capsys):
    start = time.perf_counter()  # before the work starts, as a check gives it (else a busy
    # machine may start the work's clock a few milliseconds before show's)
    work = _later("On a real GPU (sm_90): k: 8 registers", after=0.5)
    pending.show(work, "building", start=start)
    out = capsys.readouterr().out
    assert out == "On a real GPU (sm_90): k: 8 registers\n"  # no placeholder: nothing updates
    landed = pending.wait_last(timeout=0)
    assert landed is not None and landed >= 0.5
    assert time.perf_counter() - start >= 0.5


def test_a_failed_build_is_told_in_the_line_and_the_check_goes_on(capsys):
    pending.show(_later(error=RuntimeError("the compiler died")), "building")
    out = capsys.readouterr().out
    assert out == "Real-GPU resources: not available (RuntimeError: the compiler died).\n"


def test_a_future_failing_with_timeout_error_is_not_taken_for_the_grace_running_out(capsys):
    pending.show(_later(error=TimeoutError("compile took over 300 s")), "building")
    assert "TimeoutError: compile took over 300 s" in capsys.readouterr().out


_CELL = """
import threading, time
from concurrent.futures import Future
from pdc.grade import pending

release = threading.Event()

def later(value, error=None, wait=True):
    f = Future()
    def run():
        if wait:
            release.wait()
        f.set_exception(error) if error else f.set_result(value)
    threading.Thread(target=run, daemon=True).start()
    return f

print("verdict")
pending.show(later("ready line", wait=False), "placeholder A")
slow = later("slow line")
pending.show(slow, "placeholder B")
pending.show(later(None, ValueError("no source")), "placeholder C")
print("after", slow.done())
"""


@pytest.mark.timeout(120)
def test_in_a_kernel_the_placeholder_is_replaced_in_place_when_the_build_ends():
    """What a notebook front end receives: the ready line at once, the slow ones as
    placeholders updated by their display ids (nbclient applies updates as JupyterLab
    does), and the cell ends before the slow builds do."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(_CELL),
        nbformat.v4.new_code_cell(
            "release.set(); print(pending.wait_last(timeout=30) is not None)"
        ),
    ]
    client = NotebookClient(nb, timeout=60, kernel_name="python3")
    client.execute()
    outputs = nb.cells[0].outputs
    texts = [o.get("text") or o["data"]["text/plain"] for o in outputs]
    # The cell ended while two builds still ran ("after False"); their placeholders were
    # replaced when the next cell let them end.
    assert texts == [
        "verdict\n",
        "ready line",
        "slow line",
        "Real-GPU resources: not available (ValueError: no source).",
        "after False\n",
    ]
    assert [o.output_type for o in outputs][1:4] == ["display_data"] * 3
    assert nb.cells[1].outputs[0]["text"] == "True\n"

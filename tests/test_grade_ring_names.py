"""Exercise 6's grader defines the handler with the names the notebook gave it: a handler
written with ``from math import sqrt`` (or ``import math as m``) runs in the notebook, so the
grader must run it too; names the notebook never bound stay unknown."""

from __future__ import annotations

import numpy as np
import pytest

from pdc.grade.exercises import ring_run
from pdc.ring.handlers.subset import HandlerError

HANDLER = """
def stats(req, rep, state):
    n = state.count + 1.0
    rep.count = n
    rep.mean = root(fabs(req.x)) + m.floor(0.5)
    rep.z = 0.0
    rep.flag = 0
    state.count = n
"""


def test_math_names_follow_the_notebook_imports():
    cells = [
        "import numpy as np\nfrom math import fabs, sqrt as root\nimport math as m",
        "from math import pi\npi = 3",  # rebound: a constant now, not math's
    ]
    assert ring_run.math_names(cells) == {"fabs": "fabs", "root": "sqrt", "m": ""}


def test_a_handler_using_names_imported_from_math_runs():
    names = ring_run.math_names(["from math import fabs, sqrt as root\nimport math as m"])
    kdef = ring_run.handler_from_source(HANDLER, "stats", {}, names)
    x = np.array([4.0, -9.0])
    (res,) = ring_run.run_cases(kdef, [np.array(x, "f8").view(ring_run.REQUEST)])
    assert res["error"] is None, res["error"]
    assert res["records"]["mean"].tolist() == [2.0, 3.0]


def test_names_the_notebook_did_not_import_stay_unknown():
    with pytest.raises(HandlerError, match="root"):
        ring_run.handler_from_source(HANDLER, "stats", {}, {"fabs": "fabs", "m": ""})


def _constants_seen_by(cells: list[str]) -> dict:
    from pdc.grade.exercises.ex06_ring import RING

    return ring_run._constants(RING, ring_run.cells_run_at_definition(cells, "detect"))


def test_constants_are_those_bound_when_the_handler_was_defined():
    """@ring_kernel keeps the globals' values of the moment its def runs: a later cell that
    assigns the name again does not change the notebook's kernel, nor the graded one."""
    handler = "@ring_kernel(request=REQUEST, reply=REPLY, state=STATE)\ndef detect(req, rep, state):\n    rep.z = SCALE\n"
    cells = ["SCALE = 1.0", handler, "SCALE = 100.0"]
    assert _constants_seen_by(cells)["SCALE"] == 1.0
    # in the handler's own cell, the lines above the def have run, those below have not
    assert _constants_seen_by(["SCALE = 1.0\n" + handler + "SCALE = 3.0"])["SCALE"] == 1.0
    assert _constants_seen_by(["SCALE = 2.0\n" + handler])["SCALE"] == 2.0
    # a handler defined again after the new value sees the new value
    assert _constants_seen_by([*cells, handler])["SCALE"] == 100.0
    # detect = other: the constants of other's definition
    other = handler.replace("def detect", "def detect_v2")
    assert _constants_seen_by(["SCALE = 5.0", other, "SCALE = 6.0", "detect = detect_v2"]) == {
        **_constants_seen_by(["SCALE = 5.0", handler]),
    }
    # the exercise's own constants still win
    assert _constants_seen_by(["THRESHOLD = 1.0", handler])["THRESHOLD"] == 4.0


def test_numpy_constants_reach_the_child_as_the_validator_reads_them():
    """The job carrying the constants to the child is JSON: an ``np.float32`` constant is
    its float (what the ring's validator makes of it), an array (no handler may read one)
    stays out, instead of failing the whole part."""
    import json

    handler = "@ring_kernel(request=REQUEST, reply=REPLY, state=STATE)\ndef detect(req, rep, state):\n    rep.z = SCALE\n"
    cells = [
        "import numpy as np\nSCALE = np.float32(0.1)\nLIMIT = np.int32(7)\nW = np.array([1.0, 2.0])"
    ]
    consts = _constants_seen_by([*cells, handler])
    assert json.loads(json.dumps(consts)) == consts
    assert consts["SCALE"] == float(np.float32(0.1)) and type(consts["SCALE"]) is float
    assert consts["LIMIT"] == 7 and type(consts["LIMIT"]) is int
    assert "W" not in consts


def test_a_handler_given_to_ring_kernel_by_a_call_is_found():
    """``detect = ring_kernel(...)(step)`` is the decorator called by hand: the graded
    handler is ``step``, with the constants of the moment ring_kernel took it."""
    step = "def step(req, rep, state):\n    rep.z = SCALE\n"
    call = "detect = ring_kernel(request=REQUEST, reply=REPLY, state=STATE)(step)"
    cells = ["SCALE = 1.0", step, "SCALE = 2.0", call, "SCALE = 3.0"]
    src, why = ring_run.precheck(cells, "detect")
    assert why == "" and src is not None and src.startswith("def detect(req, rep, state):")
    assert _constants_seen_by(cells)["SCALE"] == 2.0
    dotted = call.replace("ring_kernel(", "pdc.ring.ring_kernel(")
    assert ring_run.precheck([step, dotted], "detect")[1] == ""
    # another function's call is not the decorator
    assert ring_run.precheck([step, "detect = print(1)(step)"], "detect")[0] is None

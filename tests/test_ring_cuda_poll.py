"""Waiting for a GPU ring kernel to end polls its event quietly: no ERROR log per poll."""

from __future__ import annotations

import logging

import pytest

cu = pytest.importorskip("cuda.bindings.driver", reason="needs cuda-bindings (numba-cuda's)")


class FakeEvent:
    handle = object()
    queried = 0

    def query(self):  # numba's own query: only for errors other than "not ready"
        self.queried += 1
        raise RuntimeError("[fake] CUDA_ERROR_LAUNCH_FAILED")


def test_not_ready_is_false_without_an_error_log_and_success_is_true(monkeypatch, caplog):
    from pdc.ring.engines.cuda import event_done

    answers = iter([cu.CUresult.CUDA_ERROR_NOT_READY] * 3 + [cu.CUresult.CUDA_SUCCESS])
    monkeypatch.setattr(cu, "cuEventQuery", lambda handle: (next(answers),))
    ev = FakeEvent()
    with caplog.at_level(logging.DEBUG):
        seen = [event_done(ev) for _ in range(4)]
    assert seen == [False, False, False, True]
    assert ev.queried == 0 and not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_another_error_is_raised_by_numbas_query_with_its_message(monkeypatch):
    from pdc.ring.engines.cuda import event_done

    monkeypatch.setattr(cu, "cuEventQuery", lambda h: (cu.CUresult.CUDA_ERROR_LAUNCH_FAILED,))
    ev = FakeEvent()
    with pytest.raises(RuntimeError, match="LAUNCH_FAILED"):
        event_done(ev)
    assert ev.queried == 1

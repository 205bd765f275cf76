"""The differential tests' kept results of numba's simulator (tests/numba_oracle.py): a
result is read back only for exactly the launch that made it."""

from __future__ import annotations

import numpy as np
import pytest

from tests.numba_oracle import Oracle, launch_key

TEXT = "def k(a, out):\n    out[0] = a[0]\n"


def _args():
    return [np.arange(4, dtype=np.float32), np.zeros(4, np.float32), np.int32(3)]


def _double(args):
    args[1][...] = 2 * args[0]


def _never(args):
    raise AssertionError("ran on numba's simulator, but the result was kept")


def test_every_input_of_a_launch_is_in_its_key():
    base = launch_key(TEXT, "k", (2,), (32,), _args())
    changed = []
    a = _args()
    a[0][3] = np.nextafter(a[0][3], np.float32(9))  # one bit of one input
    changed.append(launch_key(TEXT, "k", (2,), (32,), a))
    a = _args()
    a[0] = a[0].astype(np.float64)  # the same values in another dtype
    changed.append(launch_key(TEXT, "k", (2,), (32,), a))
    a = _args()
    a[2] = np.int64(3)  # a scalar's type
    changed.append(launch_key(TEXT, "k", (2,), (32,), a))
    changed.append(
        launch_key(
            TEXT,
            "k",
            (2,),
            (32,),
            [x.reshape(2, 2) if getattr(x, "ndim", 0) else x for x in _args()],
        )
    )
    changed.append(launch_key(TEXT + "\n", "k", (2,), (32,), _args()))
    changed.append(launch_key(TEXT, "k2", (2,), (32,), _args()))
    changed.append(launch_key(TEXT, "k", (3,), (32,), _args()))
    changed.append(launch_key(TEXT, "k", (2,), (64,), _args()))
    assert len({base, *changed}) == 1 + len(changed)
    assert launch_key(TEXT, "k", (2,), (32,), _args()) == base


def test_a_kept_result_is_read_back_bit_for_bit(tmp_path, monkeypatch):
    monkeypatch.setenv("PDC_ORACLE", "write")
    w = Oracle("m", tmp_path)
    args = _args()
    w.launch(_double, TEXT, "k", (2,), (32,), args)
    w.save()
    monkeypatch.setenv("PDC_ORACLE", "read")
    r = Oracle("m", tmp_path)
    again = _args()
    r.launch(_never, TEXT, "k", (2,), (32,), again)
    assert np.array_equal(again[1], args[1]) and np.array_equal(again[0], _args()[0])
    assert r.summary() == {"kept": 1, "run": 0, "problem": ""}
    other = _args()
    other[0][0] = 7.0  # other inputs: run afresh
    r.launch(_double, TEXT, "k", (2,), (32,), other)
    assert other[1][0] == 14.0 and r.summary()["run"] == 1


def test_an_error_of_numbas_simulator_is_raised_again(tmp_path, monkeypatch):
    def fails(args):
        raise OverflowError("Python integer -1 out of bounds for uint32")

    monkeypatch.setenv("PDC_ORACLE", "write")
    w = Oracle("m", tmp_path)
    with pytest.raises(OverflowError):
        w.launch(fails, TEXT, "k", (2,), (32,), _args())
    w.save()
    monkeypatch.setenv("PDC_ORACLE", "read")
    with pytest.raises(OverflowError, match="out of bounds for uint32"):
        Oracle("m", tmp_path).launch(_never, TEXT, "k", (2,), (32,), _args())


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 not a zip", b"\x93NUMPY garbage"])
def test_an_unreadable_store_runs_everything_live(tmp_path, monkeypatch, content):
    monkeypatch.setenv("PDC_ORACLE", "read")
    (tmp_path / "m.npz").write_bytes(content)
    r = Oracle("m", tmp_path)
    args = _args()
    r.launch(_double, TEXT, "k", (2,), (32,), args)
    assert np.array_equal(args[1], 2 * _args()[0])
    assert "unreadable" in r.summary()["problem"]


def test_live_never_reads_and_a_bad_mode_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("PDC_ORACLE", "write")
    w = Oracle("m", tmp_path)
    w.launch(_double, TEXT, "k", (2,), (32,), _args())
    w.save()
    monkeypatch.setenv("PDC_ORACLE", "live")
    args = _args()
    Oracle("m", tmp_path).launch(_double, TEXT, "k", (2,), (32,), args)
    assert args[1][1] == 2.0
    monkeypatch.setenv("PDC_ORACLE", "keep")
    with pytest.raises(ValueError, match="expected PDC_ORACLE read, live or write, got 'keep'"):
        Oracle("m", tmp_path)

"""The grading child keeps what locating the compiler and starting CUDA need, and no more."""

from __future__ import annotations

from pdc.grade.sandbox import child_env


def test_a_gpu_child_keeps_the_cuda_settings_and_library_path(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "MIG-1234")
    monkeypatch.setenv("CUDA_MODULE_LOADING", "EAGER")
    monkeypatch.setenv("LD_LIBRARY_PATH", "/usr/lib64-nvidia")
    monkeypatch.setenv("NUMBA_CUDA_DRIVER", "/usr/lib64-nvidia/libcuda.so")
    monkeypatch.setenv("GRADER_SECRET", "not for students")
    env = child_env(gpu=True)
    assert env["CUDA_VISIBLE_DEVICES"] == "MIG-1234" and env["CUDA_MODULE_LOADING"] == "EAGER"
    assert env["LD_LIBRARY_PATH"] == "/usr/lib64-nvidia"
    assert env["NUMBA_CUDA_DRIVER"].endswith("libcuda.so") and env["PDC_GRADE_GPU"] == "1"
    assert "GRADER_SECRET" not in env


def test_a_cpu_child_gets_the_toolkit_location_but_no_gpu_settings(monkeypatch):
    monkeypatch.setenv("CUDA_HOME", "/opt/cuda")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    monkeypatch.setenv("LD_LIBRARY_PATH", "/somewhere")
    env = child_env(gpu=False)
    assert env["CUDA_HOME"] == "/opt/cuda"
    assert "CUDA_VISIBLE_DEVICES" not in env and "LD_LIBRARY_PATH" not in env
    assert "PDC_GRADE_GPU" not in env and env["OMP_NUM_THREADS"] == "1"

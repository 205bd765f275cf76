"""Tier 1 and 2: the backend answers every device question; nothing above it names a backend.

pinned memory (``pinned_host``), which kernels a backend runs (``cuda_kernels``), where a
ring's handler runs (``host_ring_loop``), compiling (``compile``) and whether a backend may be
missing (``required``) are attributes of ``pdc.backends``' classes. A module above them that
compared ``backend.name == "cuda"`` would grow a second list of backends beside the registry.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import pdc
from pdc.backends import NAMES, backend_class, get_backend

ROOT = Path(__file__).resolve().parents[1]

# Comparisons with the strings "cpu", "cuda" or "metal" that are not about pdc's backends.
NOT_BACKENDS = {
    # measure(device=...) takes the frameworks' device names (torch's "cuda" and "mps").
    ("pdc/timing.py", "device not in ('cpu', 'cuda', 'mps', 'mlx')"),
    ("pdc/timing.py", "device == 'cuda'"),
    # ... as an evidence record keeps them: "cpu" is work the host timed.
    ("pdc/gpu_report/run.py", "record['device'] != 'cpu'"),
    # torch's device types, in the practice check of chapter 7's data loader.
    ("pdc/course/practice/ch07.py", "device_type == 'cuda'"),
    # The grader's names of numba's ``cuda`` module and of a kernel decorator's target.
    ("pdc/grade/imports.py", "kind == 'cpu'"),
    ("pdc/grade/sim.py", "name == 'cuda'"),
    ("pdc/grade/simgen.py", "v.id == 'cuda'"),
    ("pdc/grade/simgen.py", "v.attr == 'cuda'"),
    ("pdc/grade/source.py", "chain[-1] == 'cuda'"),
}


def _names_a_backend(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_backend(e) for e in node.elts)
    return False


def test_no_module_above_the_backends_compares_backend_names():
    found = set()
    for path in sorted((ROOT / "pdc").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("pdc/backends/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), rel)):
            if isinstance(node, ast.Compare) and any(
                _names_a_backend(n) for n in (node.left, *node.comparators)
            ):
                found.add((rel, ast.unparse(node)))
    assert found - NOT_BACKENDS == set(), "ask the backend (pdc/backends/base.py) instead"


def test_the_lint_sees_a_backend_comparison():
    tree = ast.parse('if backend.name == "cuda" or name in ("cpu", "x"):\n    pass')
    compares = [n for n in ast.walk(tree) if isinstance(n, ast.Compare)]
    assert len(compares) == 2
    assert all(any(_names_a_backend(x) for x in (c.left, *c.comparators)) for c in compares)


def test_backend_classes_answer_without_starting_a_device():
    cpu, cuda, metal = (backend_class(n) for n in ("cpu", "cuda", "metal"))
    assert cpu.required and not cuda.required and not metal.required
    assert cpu.cuda_kernels and cuda.cuda_kernels and not metal.cuda_kernels
    assert cpu.host_ring_loop and not cuda.host_ring_loop and not metal.host_ring_loop
    assert not cpu.pinned_host and not metal.pinned_host
    with pytest.raises(ValueError, match=r"\[backend_class\] expected one of .*got 'opencl'"):
        backend_class("opencl")


def test_a_pinned_buffer_is_pinned_where_the_backend_pins(any_backend):
    backend = get_backend(any_backend)
    buf = pdc.UnifiedBuffer(8, np.float32, pinned=True, backend=any_backend)
    assert buf.pinned == backend.pinned_host
    if any_backend == "cuda":
        assert backend.pinned_host == (not backend.simulated)


def test_cuda_compiles_a_function_once(monkeypatch):
    if "cuda" not in pdc.available_backends():
        pytest.skip("numba-cuda is not installed here")
    from tests import kernels_for_tests as k

    backend = get_backend("cuda")
    jit_calls = []
    real_jit = backend.cuda.jit
    monkeypatch.setattr(backend.cuda, "jit", lambda fn: jit_calls.append(fn) or real_jit(fn))
    first = backend.compile(k.add)
    assert backend.compile(k.add) is first and backend.compile(first) is first
    x = np.arange(40, dtype=np.float32)
    for _ in range(2):
        out = np.zeros_like(x)
        backend.launch(k.add, (1,), (64,), (x, x, out))
        np.testing.assert_array_equal(out, 2 * x)
    assert jit_calls.count(k.add) <= 1  # compiled by the first compile(), never again


def test_a_metal_kernel_is_refused_by_what_the_backend_runs(monkeypatch):
    from tests import kernels_for_tests as k

    class NoCudaKernels(backend_class("cpu")):
        name = "metal"
        cuda_kernels = False

    kern = pdc.kernel(block=32, backend=NoCudaKernels())(k.add)
    with pytest.raises(ValueError, match=r"\[kernel\] expected backend 'cuda' or 'cpu'.*'metal'"):
        kern.backend

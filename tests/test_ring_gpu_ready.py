"""The CUDA ring kernel on a real GPU: what can be checked without one, and GPU tests for the rest.

Tier 1: the device checks with fake devices; the compiled kernel's PTX (aligned record access).
GPU tier: a fresh numba kernel, a CuPy kernel and a first torch op while a ring is resident,
each in its own process with a hard timeout (lazy module loading would hang them).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import numpy as np
import pytest

from pdc.ring.engines.cuda import check_device
from pdc.ring.protocol import aligned

T4 = SimpleNamespace(name=b"Tesla T4", compute_capability=(7, 5), KERNEL_EXEC_TIMEOUT=0)
P100 = SimpleNamespace(name=b"Tesla P100-PCIE-16GB", compute_capability=(6, 0))
EAGER = ("EAGER", "pdc")


def test_a_gpu_below_sm70_is_refused_with_the_reason():
    with pytest.raises(RuntimeError) as err:
        check_device(P100, EAGER)
    text = str(err.value)
    assert text.startswith("[ring cuda] expected a GPU of compute capability 7.0 or newer")
    assert "Tesla P100-PCIE-16GB with 6.0" in text and "backend='cpu'" in text


def test_lazy_module_loading_is_refused_naming_who_chose_it():
    check_device(T4, EAGER)
    with pytest.raises(
        RuntimeError, match=r"expected CUDA_MODULE_LOADING=EAGER, got LAZY \(chosen"
    ):
        check_device(T4, ("LAZY", "a library that started CUDA before pdc"))


def test_a_display_gpu_with_a_watchdog_is_refused():
    laptop = SimpleNamespace(
        name="RTX 4060 Laptop", compute_capability=(8, 9), KERNEL_EXEC_TIMEOUT=1
    )
    with pytest.raises(RuntimeError, match=r"kernel watchdog"):
        check_device(laptop, EAGER)


@pytest.mark.parametrize(
    "fields",
    [
        [("x", np.float64), ("k", np.int64)],
        [("a", np.float32), ("n", np.int32), ("x", np.float64)],
        [("t", np.int8), ("x", np.float64)],  # packed by NumPy: realigned
    ],
)
def test_ring_records_are_flagged_aligned_with_the_same_layout_when_already_aligned(fields):
    dt = np.dtype(fields)
    out = aligned(dt)
    assert out.isalignedstruct
    assert out.names == dt.names
    if all(dt.fields[n][1] % dt.fields[n][0].alignment == 0 for n in dt.names):
        assert out.itemsize == dt.itemsize
        assert [out.fields[n][1] for n in out.names] == [dt.fields[n][1] for n in dt.names]


# -- PTX: every 4- and 8-byte record field is loaded and stored whole ----------------------------
_PTX_SCRIPT = textwrap.dedent(
    """
    import json, os, sys, types
    os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
    import numpy as np
    import pdc
    if not pdc.has_gpu():  # compile without a device
        import numba.cuda.cudadrv.nvrtc as nvrtc
        import numba.cuda.dispatcher as dispatcher
        nvrtc.get_arch_option = lambda major, minor: f"compute_{major}{minor}"
        dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=(7, 5))
    from numba import cuda
    from pdc.ring.engines import cuda_kernel as ck
    from pdc.ring.handlers import HandlerSpec

    REQ = np.dtype([("a", np.float32), ("n", np.int32), ("x", np.float64)])
    REP = np.dtype([("y", np.float64), ("n", np.int32), ("b", np.float32)])

    def mix(req, rep):
        rep.y = req.x * req.a
        rep.n = req.n + 1
        rep.b = req.a
        return 0

    out = {}
    for cc in [(7, 5), (9, 0)]:
        fn, sig = ck.compile_unit(HandlerSpec.create(mix, REQ, REP), burst=64, spin=1000,
                                  max_sleep_ns=1_000_000)
        out[f"{cc[0]}{cc[1]}"] = cuda.compile_ptx(fn, sig, cc=cc)[0]
    print(json.dumps(out))
    """
)


def _missing_nvvm() -> str | None:
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib

        for lib in ("nvvm", "nvrtc"):
            load_nvidia_dynamic_lib(lib)
    except Exception as exc:  # not found, or no cuda-pathfinder
        return f"{type(exc).__name__}: {exc}"[:300]
    return None


@pytest.fixture(scope="module")
def ring_ptx(tmp_path_factory) -> dict[str, str]:
    missing = _missing_nvvm()
    if missing:
        pytest.skip(f"needs libNVVM and NVRTC to compile the kernel to PTX: {missing}")
    script = tmp_path_factory.mktemp("ring-ptx") / "ring_ptx.py"  # handlers need a source file
    script.write_text(_PTX_SCRIPT)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("cc", ["75", "90"])
def test_record_fields_are_never_moved_byte_by_byte(ring_ptx, cc):
    lines = [ln.strip() for ln in ring_ptx[cc].splitlines()]
    # Every field of these records is 4 or 8 bytes: any 8-bit access is a field read in
    # pieces (an unaligned record), which over PCIe costs a round trip per byte.
    byte_moves = [ln for ln in lines if re.match(r"(ld|st)\.\S*\.[usb]8\s", ln)]
    assert byte_moves == [], byte_moves[:5]
    assert any(ln.startswith("ld.") and ".f64" in ln for ln in lines)
    assert any(ln.startswith("st.") and ".f64" in ln for ln in lines)
    assert any(ln.startswith("ld.") and ".f32" in ln for ln in lines)


# -- GPU: other kernels start while a ring is resident ------------------------------------------
_RESIDENT = textwrap.dedent(
    """
    import faulthandler, sys
    faulthandler.dump_traceback_later({timeout} - 5, exit=True)
    import numpy as np
    import pdc
    from pdc.ring import RingKernelRuntime, ring_kernel
    REQ = np.dtype([("x", np.float64)])
    REP = np.dtype([("y", np.float64)])

    def double(req, rep):
        rep.y = req.x * 2.0
        return 0

    with RingKernelRuntime(backend="cuda") as rt:
        k = rt.launch(ring_kernel(request=REQ, reply=REP, queue_size=8)(double))
        assert not k.engine.simulated
        {body}
        assert k.call(x=2.0, timeout=30).y == 4.0
    print("ok")
    """
)
_BODIES = {
    "numba": (
        "from numba import cuda\n"
        "@cuda.jit\n"
        "def add(a):\n"
        "    a[cuda.grid(1)] += 1\n"
        "d = cuda.to_device(np.zeros(32))\n"
        "add[1, 32](d)\n"
        "assert d.copy_to_host().sum() == 32"
    ),
    # Code that CuPy and PyTorch load is invisible to pdc: such first uses go in parked().
    "cupy": (
        "import cupy as cp\n"
        "with pdc.ring.parked():\n"
        "    f = cp.ElementwiseKernel('float32 x', 'float32 y', 'y = x * 3', 'triple_pdc_test')\n"
        "    y = f(cp.arange(8, dtype=cp.float32))\n"
        "    assert float(y.sum().get()) == 84.0"
    ),
    "torch": (
        "import torch\n"
        "with pdc.ring.parked():  # is_available() itself waited 55 s next to a ring (H100)\n"
        "    assert torch.cuda.is_available(), 'torch cannot reach the GPU'\n"
        "    t = torch.arange(8.0, device='cuda') * 3\n"
        "    assert float(t.sum().cpu()) == 84.0"
    ),
}


def _resident_program(library: str, timeout: int) -> str:
    """The child program: a resident ring, then ``library``'s first kernel, then a call."""
    body = textwrap.indent(_BODIES[library], " " * 4).lstrip()  # inside the `with` block
    return _RESIDENT.format(timeout=timeout, body=body)


@pytest.mark.parametrize("library", sorted(_BODIES))
def test_the_resident_ring_programs_are_valid_python(library):
    # Written on a machine without a GPU, run only on one: a syntax slip shows here first.
    code = _resident_program(library, 60)
    compile(code, f"<resident {library}>", "exec")
    assert "\n    " + _BODIES[library].splitlines()[0] in code


@pytest.mark.gpu
@pytest.mark.parametrize("library", sorted(_BODIES))
def test_a_first_kernel_of_another_library_runs_while_a_ring_is_resident(library, tmp_path):
    pytest.importorskip({"numba": "numba", "cupy": "cupy", "torch": "torch"}[library])
    timeout = 60
    program = tmp_path / f"resident_{library}.py"  # a file: the handler's source is read
    program.write_text(_resident_program(library, timeout))
    env = {k: v for k, v in os.environ.items() if k != "CUDA_MODULE_LOADING"}
    try:
        out = subprocess.run(
            [sys.executable, str(program)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{library}: a first launch hung for {timeout} s while a ring was resident")
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]

"""`import pdc` must not import any GPU library (checked in a fresh interpreter)."""

import subprocess
import sys

HEAVY = ["cupy", "mlx", "torch", "numba.cuda", "numba_cuda"]


def test_import_pdc_imports_no_gpu_library():
    code = (
        "import sys, pdc; pdc.available_backends(); pdc.default_backend(); "
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_creating_cpu_buffers_imports_no_gpu_library():
    code = (
        "import sys, numpy as np, pdc; b = pdc.UnifiedBuffer.from_array(np.ones(3), backend='cpu');"
        " b.device; b.host; pdc.MemoryPool(backend='cpu').acquire(4);"
        f" print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr

"""The simulator's typing-only pipeline types as numba-cuda's own compile does.

Run in a fresh process: an earlier test may have switched this one to numba's CUDA
simulator, which has neither numba-cuda's compiler nor its flags.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHECKS = r"""
import numpy as np
from numba import cuda, types
from numba.cuda.flags import CUDAFlags

from pdc.sim import typeonly

# The flags' values() in one merge: equal, and hashed alike, to numba-cuda's own.
ours, theirs = typeonly._flags_class()(), CUDAFlags()
for flags in (ours, theirs):
    flags.no_compile = True
    flags.inline = "never"
    flags.error_model = "numpy"
    flags.compute_capability = (8, 0)
assert ours.values() == theirs.values()
assert ours == theirs and theirs == ours and hash(ours) == hash(theirs)
assert type(ours.copy()) is type(ours)  # the pipeline's copy keeps the quick values()
theirs.fastmath = True
assert ours != theirs and ours.values() != theirs.values()
ours.fastmath = True
assert ours.values() == theirs.values()


def kernel(out, x, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = np.float32(x[i] * 2) + np.uint8(3)


# The typed IR stops before lowering, with the types a full compile gives.
sig = (types.float32[:], types.uint8[:], types.int32)
typed = typeonly.compile_types(kernel, sig, (8, 0))
full = cuda.compiler.compile_cuda(kernel, None, sig, cc=(8, 0))
got = {k: str(v) for k, v in typed.type_annotation.typemap.items()}
want = {k: str(v) for k, v in full.type_annotation.typemap.items()}
assert got == want, (got, want)
assert typed.signature.return_type == full.signature.return_type
print("ok", len(got))
"""


def test_typing_only_matches_numba_cuda_and_its_flags():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run(
        [sys.executable, "-c", CHECKS], capture_output=True, text=True, env=env, timeout=300
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.startswith("ok ")

"""The simulator's typing-only pipeline types as numba-cuda's own compile does."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba.cuda")

from numba import cuda, types  # noqa: E402

from pdc.sim import typeonly  # noqa: E402


def test_typing_flags_compare_and_hash_as_numba_cudas():
    from numba.cuda.flags import CUDAFlags

    ours, theirs = typeonly._flags_class()(), CUDAFlags()
    for flags in (ours, theirs):
        flags.no_compile = True
        flags.inline = "never"
        flags.error_model = "numpy"
        flags.compute_capability = (8, 0)
    assert ours.values() == theirs.values()
    assert ours == theirs and theirs == ours and hash(ours) == hash(theirs)
    assert type(ours.copy()) is type(ours)  # the pipeline's copy keeps the fast values()
    theirs.fastmath = True
    assert ours != theirs and ours.values() != theirs.values()
    ours.fastmath = True
    assert ours.values() == theirs.values()


def test_types_match_a_full_compile():
    def kernel(out, x, n):
        i = cuda.grid(1)
        if i < n:
            out[i] = np.float32(x[i] * 2) + np.uint8(3)

    sig = (types.float32[:], types.uint8[:], types.int32)
    typed = typeonly.compile_types(kernel, sig, (8, 0))
    full = cuda.compiler.compile_cuda(kernel, None, sig, cc=(8, 0))
    ours, theirs = typed.type_annotation.typemap, full.type_annotation.typemap
    assert {k: str(v) for k, v in ours.items()} == {k: str(v) for k, v in theirs.items()}
    assert typed.signature.return_type == full.signature.return_type

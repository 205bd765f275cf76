"""libdevice on Triton's interpreter: the functions a kernel calls through
``triton.language.extra.libdevice``, written with ``tl`` operations.

On a GPU, ``from triton.language.extra import libdevice`` gives CUDA's libdevice
(``libdevice.exp(x)``, ``libdevice.fast_dividef(a, b)``...); the interpreter has no
implementation of them (each call returns nothing). The grader's run stage puts this module
in libdevice's place (``install``) before the kernel's module is loaded, so a kernel written
with libdevice runs for its values; the compile gate still compiles the real one. The
approximate functions (``fast_expf``...) are computed exactly here: within the exercises'
tolerances of what the GPU computes. A function not listed here fails the case with its name.

Imported by the run stage only, after ``TRITON_INTERPRET=1`` is set.
"""

from __future__ import annotations

import triton.language as tl
from triton import jit

LOG2_10 = tl.constexpr(3.321928094887362)
LOG10_2 = tl.constexpr(0.3010299956639812)


def install() -> None:
    """Make ``triton.language.extra.libdevice`` (and its ``cuda`` twin) this module."""
    import sys

    import triton.language.extra as extra
    import triton.language.extra.cuda as cuda_extra

    me = sys.modules[__name__]
    extra.libdevice = me  # type: ignore[attr-defined]
    cuda_extra.libdevice = me  # type: ignore[attr-defined]
    sys.modules["triton.language.extra.libdevice"] = me
    sys.modules["triton.language.extra.cuda.libdevice"] = me


@jit
def exp(x):
    return tl.exp(x)


@jit
def fast_expf(x):
    return tl.exp(x)


@jit
def exp2(x):
    return tl.exp2(x)


@jit
def exp10(x):
    return tl.exp2(x * LOG2_10)


@jit
def expm1(x):
    return tl.exp(x) - 1.0


@jit
def log(x):
    return tl.log(x)


@jit
def fast_logf(x):
    return tl.log(x)


@jit
def log2(x):
    return tl.log2(x)


@jit
def fast_log2f(x):
    return tl.log2(x)


@jit
def log10(x):
    return tl.log2(x) * LOG10_2


@jit
def log1p(x):
    return tl.log(1.0 + x)


@jit
def sqrt(x):
    return tl.sqrt(x)


@jit
def rsqrt(x):
    return tl.rsqrt(x)


@jit
def pow(x, y):
    return tl.exp2(y * tl.log2(x))


@jit
def fast_dividef(x, y):
    return x / y


@jit
def div_rn(x, y):
    return tl.div_rn(x, y)


@jit
def fma(x, y, z):
    return tl.fma(x, y, z)


@jit
def fmax(x, y):
    return tl.maximum(x, y)


@jit
def fmin(x, y):
    return tl.minimum(x, y)


@jit
def fabs(x):
    return tl.abs(x)


@jit
def floor(x):
    return tl.floor(x)


@jit
def ceil(x):
    return tl.ceil(x)


@jit
def trunc(x):
    return tl.where(x < 0, tl.ceil(x), tl.floor(x))


@jit
def sin(x):
    return tl.sin(x)


@jit
def cos(x):
    return tl.cos(x)


@jit
def tanh(x):
    return 1.0 - 2.0 / (tl.exp(2.0 * x) + 1.0)


@jit
def erf(x):
    return tl.erf(x)


@jit
def isnan(x):
    return x != x


@jit
def isinf(x):
    return tl.abs(x) == float("inf")

"""Exercise 02: a 1-D convolution with zeros outside the signal, any odd filter length."""

from __future__ import annotations

import numpy as np

from pdc.grade.sizes import edges_1d, grid1, near_multiple, past_public, rand
from pdc.grade.spec import Case, Exercise, Part

TPB_CONV = 128


def conv1d_spec(x, w):
    """Reference: 'same'-size convolution with zeros outside the signal.

    ``out[i] = sum_j w[j] * x[i + r - j]`` for ``r = len(w) // 2``: ``np.convolve(x, w,
    "same")`` where the signal is at least as long as the filter, and still ``len(x)``
    outputs where it is shorter (NumPy's "same" would then return ``len(w)``).
    """
    r = len(w) // 2
    return np.convolve(x, w, mode="full")[r : r + len(x)].astype(np.float32)


def _make_conv1d(rng, sizes):
    n, k = sizes
    args = {"x": rand(rng, n), "w": rand(rng, k), "out": np.zeros(n, np.float32)}
    dims = {"n": n, "k": k}
    return Case(f"n={n}, K={k}", args, ("out",), grid1(n, TPB_CONV), (TPB_CONV,), dims=dims)


#: Odd filter lengths of the hidden cases; a kernel that assumes K <= 7 fails on every draw.
CONV_K_MAX = 17
_ODD_K = tuple(range(3, CONV_K_MAX + 1, 2))
_PUBLIC = [(1000, 5), (128, 3), (9, 7)]


def _hidden_conv1d(rng):
    # Signals ending just before and after a block, one shorter than a long filter, a filter
    # of one tap, and the longest filter of the domain over a signal of more blocks than any
    # public one: a kernel that stages the taps in a local array of 15 meets 17 every draw.
    def odd():
        return int(rng.choice(_ODD_K))

    long_k = int(rng.choice([15, CONV_K_MAX]))
    return [
        (near_multiple(rng, TPB_CONV, 1500, -1), odd()),
        (near_multiple(rng, TPB_CONV, 1500, +1), odd()),
        (int(rng.integers(1, long_k)), long_k),
        (int(rng.integers(20, 1500)), 1),
        (int(rng.integers(past_public(TPB_CONV, [n for n, _ in _PUBLIC]), 1500)), CONV_K_MAX),
    ]


_CONV1D_BOUNDARIES = {
    **{k: v for k, v in edges_1d(TPB_CONV, what="TPB").items() if "exact" not in k},
    "K = 1 (a single tap)": lambda c: c.dims["k"] == 1,
    "K >= 15": lambda c: c.dims["k"] >= 15,
    "K > n (the filter is longer than the signal)": lambda c: c.dims["k"] > c.dims["n"],
    "K >= 15 over several blocks": lambda c: c.dims["k"] >= 15 and c.dims["n"] > TPB_CONV,
}


def _conv1d_work(case) -> int:
    """Memory operations one thread may make for its output: per tap a read of x and of w,
    and a read and write of an accumulator kept in memory (4 K), plus a few; a thread that
    fetches the block's whole window for the others makes TPB + K - 1 loads and stores."""
    return 5 * case.dims["k"] + 8


CONV1D = Exercise(
    "02_conv1d",
    "1-D convolution",
    [
        Part(
            "conv1d",
            "out = np.convolve(x, w, 'same')",
            ("x", "w", "out"),
            public=_PUBLIC,
            hidden=_hidden_conv1d,
            domain=f"signal n >= 1, any odd filter length K (hidden: 1 to {CONV_K_MAX}); "
            f"TPB = {TPB_CONV}",
            boundaries=_CONV1D_BOUNDARIES,
            make=_make_conv1d,
            reference=lambda a: {"out": conv1d_spec(a["x"], a["w"])},
            points={"public": 2, "hidden": 2, "bounds": 1, "parallel": 1},
            max_stores=1,
            max_work=_conv1d_work,
            work_what="expected for one output (K taps)",
        )
    ],
    {"TPB": TPB_CONV},
)

EXERCISE = CONV1D

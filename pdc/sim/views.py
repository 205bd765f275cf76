"""Array views in kernels: ``row = A[i]``, ``A[i, 1:3]``, ``x[lo:hi:2]``, ``A.T``, views of
views.

numba-cuda compiles slicing and partial indexing as views into the same memory, so a view
holds no data: it is its base array and, for every dimension of the base, either a fixed
index (``A[i]``) or a slice (start, step, length), each a vector over the threads, and the
order of the sliced dimensions (reversed by ``.T``, as numba swaps shape and strides). An access
through a view is an access to its base (``resolve``), so bounds, races, definedness and
counts are the base array's: a view read past its own end but inside the base array reads
the base's memory, as on a GPU (compute-sanitizer reports only what leaves the allocation).
"""

from __future__ import annotations

import numpy as np

from pdc.sim.frontend import Unsupported


class SliceVal:
    """A ``slice(start, stop, step)`` value; each part None, a number or a vector."""

    __slots__ = ("start", "stop", "step")

    def __init__(self, start=None, stop=None, step=None):
        self.start, self.stop, self.step = start, stop, step


def as_slice(v):
    """A Python ``slice`` (from a constant index) as a SliceVal; anything else unchanged."""
    if isinstance(v, slice):
        return SliceVal(v.start, v.stop, v.step)
    return v


def _bounds(s: SliceVal, length, site: str):
    """(start, step, count) of ``s`` over an axis of ``length``, as Python normalises it."""
    step = 1 if s.step is None else s.step
    if np.ndim(step):
        if np.unique(step).size != 1:
            raise Unsupported(f"the simulator does not support per-thread slice steps yet ({site})")
        step = np.asarray(step).reshape(-1)[0]
    step = int(step)
    if step == 0:
        raise Unsupported(f"slice step cannot be zero ({site})")
    n = np.asarray(length, dtype=np.int64)
    if step > 0:
        lo, hi = np.zeros_like(n), n
    else:
        lo, hi = np.full_like(n, -1), n - 1

    def norm(v, default):
        if v is None:
            return default
        v = np.asarray(v, dtype=np.int64)
        v = np.where(v < 0, v + n, v)
        return np.clip(v, lo, hi)

    start = norm(s.start, lo if step > 0 else hi)
    stop = norm(s.stop, hi if step > 0 else lo)
    if step > 0:
        count = np.maximum(0, (stop - start + step - 1) // step)
    else:
        count = np.maximum(0, (start - stop - step - 1) // (-step))
    return start, step, count


class View:
    """A view of a SimArray (see the module docstring).

    ``dims`` has one entry per base dimension: ``("fix", index)`` or
    ``("slice", start, step, count)``; the view's own dimensions are the slices, in the
    order ``axes`` gives (base dimensions; their order in ``dims`` unless transposed).
    """

    __slots__ = ("base", "dims", "axes")

    def __init__(self, base, dims, axes=None):
        self.base, self.dims = base, dims
        self.axes = [k for k, d in enumerate(dims) if d[0] == "slice"] if axes is None else axes

    @property
    def name(self) -> str:
        return self.base.name

    @property
    def dtype(self):
        return self.base.dtype

    @property
    def kind(self):
        return self.base.kind

    @property
    def shape(self) -> tuple:
        return tuple(self.dims[k][3] for k in self.axes)

    @property
    def size(self):
        out = np.int64(1)
        for s in self.shape:
            out = out * s
        return out

    def resolve(self, index, index_und):
        """The base array and the base index of a view index (a tuple of vectors)."""
        if len(index) != len(self.shape):
            raise Unsupported(
                f"[{self.name}] expected {len(self.shape)} indices for this view, got {len(index)}"
            )
        at = {k: j for j, k in enumerate(self.axes)}  # base dimension -> view dimension
        out, und = [], []
        for k, d in enumerate(self.dims):
            if d[0] == "fix":
                out.append(d[1])
                und.append(None)
            else:
                ix, u = index[at[k]], index_und[at[k]]
                out.append(d[1] + d[2] * np.asarray(ix, dtype=np.int64))
                und.append(u)
        return self.base, tuple(out), tuple(und)


def transpose(arr):
    """``arr.T``: the same elements with the order of the dimensions reversed."""
    if isinstance(arr, View):
        return View(arr.base, list(arr.dims), arr.axes[::-1])
    dims = [("slice", 0, 1, s) for s in arr.shape]
    return View(arr, dims, list(range(len(dims)))[::-1])


def make_view(arr, index, site: str):
    """``arr[index]`` when the result is an array: a View (``arr`` a SimArray or a View)."""
    if isinstance(arr, View):
        base = arr.base
        sliced = list(arr.axes)
        shape = arr.shape
    else:
        base = arr
        sliced = list(range(len(arr.shape)))
        shape = arr.shape
    index = tuple(as_slice(i) for i in index)
    if len(index) > len(shape):
        raise Unsupported(f"[{base.name}] too many indices for a view ({site})")
    index = index + (SliceVal(),) * (len(shape) - len(index))
    dims = list(arr.dims) if isinstance(arr, View) else [("slice", 0, 1, s) for s in shape]
    for k, ix in zip(sliced, index):
        _, start, step, count = dims[k]
        if isinstance(ix, SliceVal):
            s0, st, n = _bounds(ix, count, site)
            dims[k] = ("slice", start + step * s0, step * st, n)
        else:
            v = np.asarray(ix, dtype=np.int64)
            v = np.where(v < 0, v + count, v)  # numba wraps a negative index
            dims[k] = ("fix", start + step * v)
    return View(base, dims, [k for k in sliced if dims[k][0] == "slice"])

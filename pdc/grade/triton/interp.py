"""Count the loads and stores Triton's interpreter makes, and stop those out of range.

Under ``TRITON_INTERPRET=1`` every ``tl.load`` and ``tl.store`` ends in
``InterpreterBuilder.create_masked_load`` / ``create_masked_store`` with a NumPy array of
addresses and one of mask bits. ``Tracer`` wraps those two methods: each active lane's
address is matched to the tensors the launch was given; a lane outside all of them is a
finding (with the program and the element it reached) and is masked off before the real
load or store, so a missing mask reports instead of reading or corrupting this process's
memory. Per tensor it counts loads and stores per element; per program, the range of
elements each program stored. (triton-viz records the same operations for drawing them; a
wrapper of these methods is all grading needs, with no extra dependency.)

Programs run in no set order on a GPU, while the interpreter runs them one after the
other: a store of a value into an element another program stored a different value into is
a race between programs (the result depends on which stores last on a GPU, never here), and
is recorded as one, with its first example.

An atomic (``create_atomic_rmw`` / ``create_atomic_cas``) reads and writes global memory as
a GPU's does: it is one load and one store of each lane's element, checked against the
tensors the same way. A ``tl.dot`` of float32 blocks computes as an A100's tensor cores do:
its default ``input_precision="tf32"`` rounds each input to TF32 (10 bits of mantissa, to
nearest) before the products. The interpreter alone keeps float32 there, so a kernel that
leaves the default would pass here and miss the tolerance on a GPU.
"""

from __future__ import annotations

import dataclasses
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

MAX_EXAMPLES = 3


@dataclass
class Watched:
    """One tensor of a launch: where its allocation starts and ends, and its counters."""

    name: str
    base: int
    nbytes: int
    itemsize: int
    numel: int
    loads: np.ndarray = field(repr=False)
    stores: np.ndarray = field(repr=False)
    data: np.ndarray | None = field(default=None, repr=False)  # the tensor's elements
    writer: np.ndarray | None = field(default=None, repr=False)  # last program to store, or -1


@dataclass
class Trace:
    """What one launch did to memory."""

    tensors: dict = field(default_factory=dict)  # name -> Watched
    out_of_range: int = 0
    examples: list = field(default_factory=list)
    races: list = field(default_factory=list)  # the first race between programs found
    # (program, tensor name) -> [first element stored, last element stored, stores]
    programs: dict = field(default_factory=dict)

    def watch(self, name: str, tensor) -> None:
        """Count accesses to ``tensor`` (a CPU torch tensor) under ``name``."""
        storage = tensor.untyped_storage()
        size = tensor.element_size()
        numel = storage.nbytes() // size
        self.tensors[name] = Watched(
            name,
            storage.data_ptr(),
            storage.nbytes(),
            size,
            numel,
            np.zeros(numel, np.int64),
            np.zeros(numel, np.int64),
        )
        if tensor.is_contiguous() and tensor.storage_offset() == 0 and tensor.numel() == numel:
            self.tensors[name].data = tensor.numpy().reshape(-1)  # shares the tensor's memory
            self.tensors[name].writer = np.full(numel, -1, np.int64)

    def _find(self, addr: np.ndarray):
        """For each address: the watched tensor's index (or -1) and the element it is."""
        owner = np.full(addr.shape, -1, np.int64)
        elem = np.zeros(addr.shape, np.int64)
        for k, w in enumerate(self.tensors.values()):
            inside = (addr >= w.base) & (addr < w.base + w.nbytes)
            owner[inside] = k
            elem[inside] = (addr[inside] - w.base) // w.itemsize
        return owner, elem

    def _nearest(self, addr: int) -> str:
        best = min(
            self.tensors.values(),
            key=lambda w: min(abs(addr - w.base), abs(addr - w.base - w.nbytes)),
        )
        index = (addr - best.base) // best.itemsize
        return f"{best.name}[{index}] (it has {best.numel} elements)"

    def access(self, kind: str, ptrs: np.ndarray, mask: np.ndarray, program) -> np.ndarray:
        """Count one load, store or atomic (a load and a store); returns the mask with
        out-of-range lanes switched off."""
        addr = np.asarray(ptrs, np.int64).ravel()
        active = np.broadcast_to(np.asarray(mask, bool), np.shape(ptrs)).ravel()
        owner, elem = self._find(addr)
        bad = active & (owner < 0)
        if bad.any():
            self.out_of_range += int(bad.sum())
            if len(self.examples) < MAX_EXAMPLES:
                first = int(addr[np.argmax(bad)])
                pid = ", ".join(map(str, program))
                self.examples.append(
                    f"program ({pid}) {kind} {int(bad.sum())} element(s) outside every "
                    f"tensor, the first at {self._nearest(first)}: "
                    f"{'an' if kind == 'atomic' else 'a'} {kind} without a mask?"
                )
        names = list(self.tensors)
        for k, w in enumerate(self.tensors.values()):
            mine = active & (owner == k)
            if not mine.any():
                continue
            hits = np.bincount(elem[mine], minlength=w.numel)[: w.numel]
            if kind != "store":
                w.loads += hits
            if kind != "load":
                w.stores += hits
                key = (tuple(int(p) for p in program), names[k])
                lo, hi = int(elem[mine].min()), int(elem[mine].max())
                seen = self.programs.setdefault(key, [lo, hi, 0])
                seen[0], seen[1] = min(seen[0], lo), max(seen[1], hi)
                seen[2] += int(mine.sum())
        return (active & ~bad).reshape(np.shape(ptrs))

    def store_order(self, ptrs: np.ndarray, values: np.ndarray, mask: np.ndarray, program):
        """Before a store: note a race where another program stored a different value into an
        element this store writes, then mark this program as the elements' writer."""
        addr = np.asarray(ptrs, np.int64).ravel()
        active = np.broadcast_to(np.asarray(mask, bool), np.shape(ptrs)).ravel()
        new = np.broadcast_to(np.asarray(values), np.shape(ptrs)).ravel()
        owner, elem = self._find(addr)
        me = int(np.ravel_multi_index(tuple(int(p) for p in program), (1 << 20,) * 3))
        for k, w in enumerate(self.tensors.values()):
            mine = active & (owner == k)
            if w.writer is None or not mine.any():
                continue
            at, value = elem[mine], new[mine].astype(w.data.dtype)
            before = w.writer[at]
            old = w.data[at]
            other = (
                (before >= 0) & (before != me) & (old != value) & ~(np.isnan(old) & np.isnan(value))
            )
            if other.any() and not self.races:
                j = int(np.argmax(other))
                them = ", ".join(map(str, np.unravel_index(int(before[j]), (1 << 20,) * 3)))
                pid = ", ".join(map(str, program))
                self.races.append(
                    f"a race between programs: program ({pid}) stores {w.name}[{int(at[j])}], "
                    f"which program ({them}) stored a different value into; programs run in no "
                    "set order on a GPU, so the result depends on which one stores last"
                )
            w.writer[at] = me


def tf32(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to TF32 (``cvt.rna.tf32.f32``: to nearest, ties away from 0)."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32)
    # the sign is its own bit: adding half a unit of the 13 dropped bits rounds the magnitude
    kept = (bits + np.uint32(1 << 12)) & np.uint32(0xFFFFE000)
    return np.where(np.isfinite(x), kept.view(np.float32), x).astype(np.float32)


def _patching_once(patch_builtin):
    """Triton's ``_patch_builtin``, listing each package's builtins once, not per call.

    The interpreter re-patches ``triton.language`` on every call of a ``@triton.jit``
    function from a kernel (a reduction's combine function, ``tl.cdiv``), and each patch
    walks the package with ``inspect.getmembers``: about a third of a softmax's or a
    matmul's interpreted time. The builtins of a package do not change, so they are listed
    on the first patch (made before anything is patched, at a launch) and each later patch
    replaces those still in place, as the original does.
    """
    import inspect

    from triton.runtime import interpreter as it

    builtins: dict = {}

    def patch(pkg, builder, scope):
        found = builtins.get(pkg)
        if found is None:
            found = builtins[pkg] = [
                (name, member, _builtin_within(member))
                for name, member in inspect.getmembers(pkg)
                if _builtin_within(member) is not None
            ]
        for name, member, target in found:
            if getattr(pkg, name, None) is member:
                it._patch_attr(pkg, name, target, builder, scope)

    patch.__wrapped__ = patch_builtin
    return patch


def _builtin_within(member):
    """The Triton builtin ``member`` is or forwards to, else None.

    ``x.exp()`` calls a tensor method that forwards to ``exp``: Triton marks the forwarding
    function as a builtin only where the function was one when the method was made, which
    the math functions are not yet (their ``builtin`` decorator comes after), so the
    interpreter would leave ``x.exp()`` unpatched and fail where the compiler accepts it.
    The function it forwards to (it takes ``_semantic``) is patched in its place.
    """
    import inspect

    import triton.language as tl

    if tl.core.is_builtin(member):
        return member
    if getattr(member, "__name__", "") == "wrapper" and getattr(member, "__closure__", None):
        inner = [c.cell_contents for c in member.__closure__ if inspect.isfunction(c.cell_contents)]
        if len(inner) == 1 and "_semantic" in inspect.signature(inner[0]).parameters:
            return inner[0]
    return None


def compiled_builtins(namespace: dict) -> None:
    """Bind ``min`` and ``max`` in a kernel module's ``namespace`` as Triton's compiler reads
    them: over tensors, ``tl.minimum`` / ``tl.maximum`` element by element (Triton's
    ``builtin_min``); over plain numbers, Python's. The interpreter runs a kernel as Python,
    where ``min(rm, M - 1)`` would compare whole tensors and return one of them."""
    import builtins

    import triton.language as tl

    def as_compiled(python, name):
        def f(*args, **kwargs):
            if not any(isinstance(a, tl.tensor) for a in args) or len(args) < 2 or kwargs:
                return python(*args, **kwargs)
            out = args[0]
            for a in args[1:]:
                out = getattr(tl, name)(out, a)  # looked up now: patched while a kernel runs
            return out

        return f

    namespace["min"] = as_compiled(builtins.min, "minimum")
    namespace["max"] = as_compiled(builtins.max, "maximum")


@contextmanager
def tracing(trace: Trace):
    """Route the interpreter's loads and stores through ``trace`` while the block runs."""
    import triton.language as tl
    from triton.runtime import interpreter as it

    builder = it.InterpreterBuilder
    load, store = builder.create_masked_load, builder.create_masked_store

    # The cache and eviction arguments after the mask differ between Triton releases: they
    # are passed through as they come.
    def masked_load(self, ptrs, mask, other, *rest):
        keep = trace.access("load", ptrs.data, mask.data, self.grid_idx)
        mask = it.TensorHandle(keep, tl.int1)
        return load(self, ptrs, mask, other, *rest)

    def masked_store(self, ptrs, value, mask, *rest):
        keep = trace.access("store", ptrs.data, mask.data, self.grid_idx)
        trace.store_order(ptrs.data, value.data, keep, self.grid_idx)
        return store(self, ptrs, value, it.TensorHandle(keep, tl.int1), *rest)

    rmw, cas = builder.create_atomic_rmw, builder.create_atomic_cas

    def atomic_rmw(self, op, ptrs, value, mask, *rest):
        keep = trace.access("atomic", ptrs.data, mask.data, self.grid_idx)
        return rmw(self, op, ptrs, value, it.TensorHandle(keep, tl.int1), *rest)

    def atomic_cas(self, ptrs, cmp, value, *rest):
        # no mask: the lanes outside every tensor are left out of the call, and read 0
        keep = trace.access("atomic", ptrs.data, np.ones(np.shape(ptrs.data), bool), self.grid_idx)
        if keep.all():
            return cas(self, ptrs, cmp, value, *rest)
        shape = np.broadcast_shapes(np.shape(ptrs.data), np.shape(cmp.data))
        out = np.zeros(shape, np.asarray(cmp.data).dtype)
        if keep.any():

            def part(h):
                return it.TensorHandle(np.broadcast_to(h.data, shape)[keep], h.dtype)

            out[keep] = cas(self, part(ptrs), part(cmp), part(value), *rest).data
        return it.TensorHandle(out, cmp.dtype.scalar)

    dot = builder.create_dot

    def create_dot(self, a, b, acc, precision, *rest):
        if getattr(precision, "name", "") == "TF32" and a.dtype == tl.float32 == b.dtype:
            a = it.TensorHandle(tf32(a.data), a.dtype)
            b = it.TensorHandle(tf32(b.data), b.dtype)
        return dot(self, a, b, acc, precision, *rest)

    cvt = it._implicit_cvt

    def implicit_cvt(arg):
        # A bool argument is an i1 on a GPU (a @triton.heuristics flag not annotated
        # constexpr); the interpreter stores it as an int32 array typed int1 and fails.
        if isinstance(arg, bool):
            return tl.tensor(it.TensorHandle(np.array([arg], np.bool_), tl.int1), tl.int1)
        return cvt(arg)

    builder.create_masked_load, builder.create_masked_store = masked_load, masked_store
    builder.create_atomic_rmw, builder.create_atomic_cas = atomic_rmw, atomic_cas
    builder.create_dot = create_dot
    it._implicit_cvt = implicit_cvt
    patch_builtin = it._patch_builtin
    it._patch_builtin = _patching_once(patch_builtin)
    # Without debug, Triton drops device assertions, and with them the int32 overflow checks
    # of every integer add, sub and mul; the interpreter still computes each check (in int64)
    # before it drops the assertion: over half its time on a matmul. Skip the unused work.
    options = it.interpreter_builder.options
    if not options.debug:
        it.interpreter_builder.options = dataclasses.replace(options, sanitize_overflow=False)
    try:
        yield trace
    finally:
        builder.create_masked_load, builder.create_masked_store = load, store
        builder.create_atomic_rmw, builder.create_atomic_cas = rmw, cas
        builder.create_dot = dot
        it._implicit_cvt = cvt
        it._patch_builtin = patch_builtin
        it.interpreter_builder.options = options

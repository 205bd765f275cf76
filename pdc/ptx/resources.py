"""``pdc.resources``: what a kernel you wrote costs on a real GPU, told without one."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .build import Build
from .occupancy import Occupancy


@dataclass
class Resources:
    """A kernel's sm_90 and sm_80 builds, and its occupancy on an H100 for one block size.

    Attributes:
        name: The kernel's name.
        sm90: The build for compute capability 9.0 (H100).
        sm80: The build for compute capability 8.0 (A100).
        block: Threads per block the occupancy is computed for.
        occupancy: The H100 occupancy, or None when the kernel does not compile.
    """

    name: str
    sm90: Build
    sm80: Build
    block: int
    occupancy: Occupancy | None
    block_shape: tuple[int, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the kernel compiles for both architectures."""
        return self.sm90.ok and self.sm80.ok

    def __str__(self) -> str:
        if not self.sm90.ok:
            return self.sm90.summary()
        text = self.sm90.summary()
        if self.occupancy is not None:
            text += f": {self.occupancy.occupancy * 100:.0f} % occupancy on an H100 "
            text += f"(block {' x '.join(map(str, self.block_shape or (self.block,)))})"
        if not self.sm80.ok:
            text += f"; does not compile for sm_80: {self.sm80.error}"
        elif (self.sm80.registers, self.sm80.shared_bytes) != (
            self.sm90.registers,
            self.sm90.shared_bytes,
        ):
            text += f"; sm_80: {self.sm80.registers} registers"
        return text

    __repr__ = __str__


def resources(
    kernel: Any,
    *args: Any,
    block: int | tuple[int, ...] | None = None,
    compiler: Callable[..., list] | None = None,
    **constexprs: Any,
) -> Resources:
    """Compile ``kernel`` for an H100 (sm_90) and an A100 (sm_80) and report its resources.

    Works without a GPU, from a notebook running numba's simulator: the kernel's source,
    with the device functions and constants it uses, is compiled in a child process by
    numba and NVIDIA's ``ptxas``. Results are cached, so asking again is instant. A Triton
    kernel (``triton.jit``, interpreted or not) is lowered by Triton in a child process, and
    ``ptxas`` reads Triton's PTX; its shared memory is Triton's dynamic allocation.

    Args:
        kernel: A ``@cuda.jit`` kernel (or its Python function) defined in this process.
        *args: Example arguments (arrays and scalars of the types it will be launched with).
        block: Threads per block (or the block shape) for the occupancy (default 256).
        compiler: What compiles a ``@cuda.jit`` kernel not found in the cache (default
            ``pdc.ptx.compile_many``, a fresh child process; see ``compile_cached``).
        **constexprs: For a Triton kernel: its ``tl.constexpr`` values, and ``num_warps``
            (default 4; a program of ``num_warps`` warps is the block).

    Returns:
        A :class:`Resources`; printed, it is one line such as "matmul_tiled: 32 registers,
        2 KiB shared, 0 spills: 100 % occupancy on an H100 (block 256)".

    Raises:
        pdc.ptx.CompilerMissing: If NVIDIA's compiler wheels are not installed.
        ValueError: If the block size is out of range or the source cannot be found.
    """
    from .compile import compile_function_for
    from .triton_build import is_triton

    if is_triton(kernel):  # resources(kernel, *args, BLOCK=..., num_warps=4)
        return _triton_resources(kernel, args, dict(constexprs))
    shape = (256,) if block is None else tuple(block) if isinstance(block, tuple) else (int(block),)
    size = math.prod(shape)
    if not 1 <= size <= 1024:
        raise ValueError(f"[pdc.resources] expected a block of 1..1024 threads, got {size}")
    sm90, sm80 = compile_function_for(kernel, args, [(9, 0), (8, 0)], compiler)
    occ = sm90.occupancy(size, "H100") if sm90.ok else None
    return Resources(sm90.name, sm90, sm80, size, occ, shape)


def _triton_resources(kernel: Any, args: tuple, constexprs: dict) -> Resources:
    from .triton_build import triton_builds

    warps = int(constexprs.pop("num_warps", 4))
    builds = triton_builds(kernel, args, constexprs, [(9, 0), (8, 0)], num_warps=warps)
    sm90, sm80 = (b for b, _ in builds)
    occ = sm90.occupancy(32 * warps, "H100") if sm90.ok else None
    return Resources(sm90.name, sm90, sm80, 32 * warps, occ, (32 * warps,))


def check_line(
    kernel: Any, args: list, block: tuple, compiler: Callable[..., list] | None = None
) -> str:
    """The line an exercise check prints: the kernel's resources on a real GPU, or why not.

    Args:
        kernel: The kernel (or its Python function).
        args: Example arguments (the exercise's first public case).
        block: The block it is launched with.
        compiler: As for :func:`resources`.
    """
    from .build import WHEELS, CompilerMissing

    try:
        r = resources(kernel, *args, block=tuple(block), compiler=compiler)
    except CompilerMissing:
        return f"Real-GPU resources: not shown, NVIDIA's compiler is not installed ({WHEELS})."
    except (ValueError, TypeError, OSError) as exc:
        return f"Real-GPU resources: not available ({type(exc).__name__}: {exc})."
    if not r.sm90.ok:
        return f"On a real GPU: {r.sm90.summary()}"
    text = f"On a real GPU (sm_90): {r}"
    if r.sm80.ok and "sm_80" not in text:
        text += f"; sm_80: {r.sm80.registers} registers"
    return text


def ring_resources(kdef: Any) -> list[Build]:
    """The sm_90 and sm_80 builds of the ring kernel around a ``ring_kernel`` handler.

    Raises:
        pdc.ptx.CompilerMissing: If NVIDIA's compiler wheels are not installed.
        ValueError: If the handler's source cannot be found.
    """
    import hashlib
    import json
    from pathlib import Path

    from pdc.cachedir import cache_dir

    from .compile import cache_key, compile_many, keep_json
    from .gather import dtype_literal, function_source

    spec = kdef.spec
    source, name = function_source(spec.function)
    source += f"\n_REQUEST = {dtype_literal(spec.request)}\n_REPLY = {dtype_literal(spec.reply)}\n"
    if spec.state is not None:
        source += f"_STATE = {dtype_literal(spec.state)}\n"
    ccs = [(9, 0), (8, 0)]
    # The ring kernel is pdc's code around the handler: a change to it is a new build.
    ring_dir = Path(__file__).resolve().parents[1] / "ring"
    runtime = "".join(p.read_text() for p in sorted(ring_dir.rglob("*.py")))
    key_source = source + "\n# pdc.ring " + hashlib.sha256(runtime.encode()).hexdigest()
    folder = cache_dir("ptx")
    paths = [folder / f"{cache_key(key_source, 'ring:' + name, [], cc)}.json" for cc in ccs]
    if all(p.is_file() for p in paths):
        try:
            return [Build.from_dict(json.loads(p.read_text())) for p in paths]
        except (ValueError, TypeError, KeyError):
            pass  # rebuilt below
    params = {"source": source, "handler": name, "request": "_REQUEST", "reply": "_REPLY"}
    if spec.state is not None:
        params["state"] = "_STATE"
    job = {
        "kind": "call",
        "name": f"ring kernel ({name})",
        "target": "pdc.ptx.manifest:ring_unit",
        "params": {**params, "filename": f"<ring handler {name}>"},
    }
    builds = compile_many([job], ccs=ccs, timeout=300)
    for b, p in zip(builds, paths):
        if b.ok:
            keep_json(p, b.to_dict(ptx=True))
    return builds


def ring_check_line(kdef: Any) -> str:
    """The line the ring exercise's check prints: its ring kernel's real resources."""
    from .build import WHEELS, CompilerMissing

    try:
        sm90, sm80 = ring_resources(kdef)
    except CompilerMissing:
        return f"Real-GPU resources: not shown, NVIDIA's compiler is not installed ({WHEELS})."
    except (ValueError, TypeError, OSError) as exc:
        return f"Real-GPU resources: not available ({type(exc).__name__}: {exc})."
    if not sm90.ok:
        return f"On a real GPU: {sm90.summary()}"
    text = f"On a real GPU (sm_90): {sm90.summary()} (one thread, launched once)"
    if sm80.ok:
        text += f"; sm_80: {sm80.registers} registers"
    return text

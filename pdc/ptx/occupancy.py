"""Theoretical occupancy of one streaming multiprocessor (SM), from CUDA's occupancy rules.

The limits are those of the CUDA C++ Programming Guide's "Technical Specifications per
Compute Capability" table; the allocation granularities (registers per warp in units of
256, spread over four SM sub-partitions; shared memory in units of 128 bytes with 1 KiB
reserved per block from sm_80, 256 bytes and nothing reserved before) are those of NVIDIA's
occupancy calculator (``cuda_occupancy.h``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class SMLimits:
    """Per-SM resource limits that decide how many blocks can be resident at once."""

    name: str
    cc: tuple[int, int]
    sm_count: int
    warp_size: int = 32
    max_threads_per_block: int = 1024
    max_threads_per_sm: int = 2048
    max_warps_per_sm: int = 64
    max_blocks_per_sm: int = 32
    regs_per_sm: int = 65536
    regs_per_block: int = 65536
    reg_partitions: int = 4
    max_regs_per_thread: int = 255
    reg_alloc_unit: int = 256
    smem_per_sm: int = 228 * 1024
    max_smem_per_block: int = 227 * 1024
    smem_alloc_unit: int = 128
    smem_reserved_per_block: int = 1024


def allocation_units(cc: tuple[int, int]) -> tuple[int, int]:
    """Shared-memory allocation unit and bytes reserved per block for compute capability ``cc``.

    ``cuda_occupancy.h``: 256-byte units before 8.0, 128-byte units after; the system reserves
    1 KiB of shared memory in every block from 8.0 on, nothing before.
    """
    return (256, 0) if cc < (8, 0) else (128, 1024)


H100 = SMLimits(name="H100", cc=(9, 0), sm_count=132)
A100 = SMLimits(
    name="A100",
    cc=(8, 0),
    sm_count=108,
    smem_per_sm=164 * 1024,
    max_smem_per_block=163 * 1024,
)
# The GPUs of free hosted notebooks (Colab's T4 and L4) and the newest data-centre one.
T4 = SMLimits(
    name="T4",
    cc=(7, 5),
    sm_count=40,
    max_threads_per_sm=1024,
    max_warps_per_sm=32,
    max_blocks_per_sm=16,
    smem_per_sm=64 * 1024,
    max_smem_per_block=64 * 1024,
    smem_alloc_unit=256,
    smem_reserved_per_block=0,
)
L4 = SMLimits(
    name="L4",
    cc=(8, 9),
    sm_count=58,
    max_threads_per_sm=1536,
    max_warps_per_sm=48,
    max_blocks_per_sm=24,
    smem_per_sm=100 * 1024,
    max_smem_per_block=99 * 1024,
)
B200 = SMLimits(name="B200", cc=(10, 0), sm_count=148)
DEVICES = {"H100": H100, "A100": A100, "T4": T4, "L4": L4, "B200": B200}


@dataclass(frozen=True)
class Occupancy:
    """Resident blocks and warps of one SM for a launch, and which limit binds."""

    device: str
    block_size: int
    warps_per_block: int
    blocks_per_sm: int
    limiter: str  # "warps", "registers", "shared memory" or "blocks"
    active_warps: int
    occupancy: float  # active warps / most warps an SM holds, 0 to 1

    def __str__(self) -> str:
        return (
            f"{self.occupancy * 100:.0f} % occupancy on an {self.device} "
            f"(block {self.block_size}, {self.blocks_per_sm} blocks per SM, "
            f"limited by {self.limiter})"
        )


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def limits_for(device: str | SMLimits) -> SMLimits:
    """The limits of a named device (one of ``DEVICES``), or ``device`` itself."""
    if isinstance(device, SMLimits):
        return device
    if device not in DEVICES:
        raise ValueError(f"[occupancy] expected a device among {sorted(DEVICES)}, got {device!r}")
    return DEVICES[device]


def block_limits(lim: SMLimits, size: int, registers: int, shared_bytes: int) -> dict[str, int]:
    """Resident blocks per SM that each limit allows, in a fixed order (ties read the same).

    The one place pdc applies CUDA's occupancy rules; the course's explorer calls it too.

    Args:
        lim: The SM limits (an :class:`SMLimits`, or any object with the same fields).
        size: Threads per block.
        registers: 32-bit registers per thread.
        shared_bytes: Shared memory per block in bytes.

    Returns:
        ``{"warps": n, "registers": n, "shared memory": n, "blocks": n}``.
    """
    warps = math.ceil(size / lim.warp_size)
    by_warps = min(lim.max_warps_per_sm, lim.max_threads_per_sm // lim.warp_size) // warps
    regs_per_warp = _round_up(max(registers, 1) * lim.warp_size, lim.reg_alloc_unit)
    # A block's warps are spread over the sub-partitions, so it is charged as if its warp
    # count were rounded up to a multiple of them.
    if regs_per_warp * _round_up(warps, lim.reg_partitions) > lim.regs_per_block:
        by_regs = 0
    else:
        per_partition = (lim.regs_per_sm // lim.reg_partitions) // regs_per_warp
        by_regs = per_partition * lim.reg_partitions // warps
    smem = _round_up(shared_bytes + lim.smem_reserved_per_block, lim.smem_alloc_unit)
    # A block that needs no shared memory at all (no reservation before sm_80) is not limited
    # by it, as in cuda_occupancy.h.
    by_smem = lim.max_blocks_per_sm if smem == 0 else lim.smem_per_sm // smem
    return {
        "warps": by_warps,
        "registers": by_regs,
        "shared memory": by_smem,
        "blocks": lim.max_blocks_per_sm,
    }


def occupancy(
    block: int | tuple[int, ...],
    registers: int,
    shared_bytes: int = 0,
    device: str | SMLimits = "H100",
) -> Occupancy:
    """Theoretical occupancy of a kernel launched with ``block`` threads per block.

    Args:
        block: Threads per block, or the block shape (its product counts).
        registers: 32-bit registers per thread (``ptxas -v``).
        shared_bytes: Shared memory per block in bytes (static plus dynamic).
        device: A name in ``DEVICES`` ("H100", "A100", "T4", "L4", "B200"), or an
            :class:`SMLimits`.

    Returns:
        The :class:`Occupancy`; ``blocks_per_sm`` is 0 when the block can never launch.

    Raises:
        ValueError: If the block size, register count or shared memory is out of range.
    """
    lim = limits_for(device)
    size = math.prod(block) if isinstance(block, tuple) else int(block)
    if not 1 <= size <= lim.max_threads_per_block:
        raise ValueError(
            f"[occupancy] expected a block of 1..{lim.max_threads_per_block} threads, got {size}"
        )
    if not 0 <= registers <= lim.max_regs_per_thread:
        raise ValueError(
            f"[occupancy] expected 0..{lim.max_regs_per_thread} registers, got {registers}"
        )
    if not 0 <= shared_bytes <= lim.max_smem_per_block:
        raise ValueError(
            f"[occupancy] expected 0..{lim.max_smem_per_block} bytes of shared memory, "
            f"got {shared_bytes}"
        )
    warps = math.ceil(size / lim.warp_size)
    candidates = block_limits(lim, size, registers, shared_bytes)
    blocks = min(candidates.values())
    limiter = next(k for k, v in candidates.items() if v == blocks)  # fixed order on ties
    return Occupancy(
        device=lim.name,
        block_size=size,
        warps_per_block=warps,
        blocks_per_sm=blocks,
        limiter=limiter,
        active_warps=blocks * warps,
        occupancy=blocks * warps / lim.max_warps_per_sm,
    )

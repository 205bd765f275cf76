"""Small, tested functions shared by the course chapters (``from pdc.course import kit as ck``).

The chapters import this module so that the prose, the widgets and the tests agree on one
implementation: the occupancy rules of an NVIDIA streaming multiprocessor (SM), the memory
sectors one warp touches, a timing function that warms up and synchronises, and the crossover
point of two measured timing curves.

Timing has one entry point, :func:`measure`, which every chapter uses: it warms up, times each
call with CUDA events on a real NVIDIA GPU (``perf_counter`` plus a synchronise elsewhere), and
reports the median with its spread. :func:`evidence` records a measurement next to a baseline
measured in the same run (for example a memory copy of the same bytes), so that a committed
number that is implausible against its baseline is caught by ``tests/test_notebook_evidence.py``.

Reference limits (compute capability 9.0, NVIDIA H100 SXM5) come from:

* NVIDIA CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"
  (max 1024 threads/block, 2048 threads/SM, 64 warps/SM, 32 blocks/SM, 64 K 32-bit
  registers/SM, 255 registers/thread, 228 KB shared memory/SM, 227 KB/block, 1 KB of shared
  memory reserved per block);
* NVIDIA's occupancy calculator header ``cuda_occupancy.h`` (shipped with the CUDA toolkit;
  registers allocated per warp in units of 256 and per SM sub-partition, shared memory in
  units of 128 bytes);
* NVIDIA H100 Tensor Core GPU Architecture whitepaper (132 SMs on H100 SXM5, 114 on H100 PCIe).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from pdc.ptx.occupancy import allocation_units, block_limits
from pdc.timing import Timing, fit_threads, format_seconds, measure

__all__ = [
    "EVIDENCE_MIME",
    "DRIVER_ATTRIBUTES",
    "H100_SXM",
    "Occupancy",
    "SMLimits",
    "Timing",
    "crossover",
    "device_limits",
    "evidence",
    "evidence_problems",
    "evidence_record",
    "fit_threads",
    "format_seconds",
    "keep_freed_memory",
    "limits_of",
    "measure",
    "occupancy",
    "sectors_touched",
    "setup_torch",
    "warp_addresses",
]


@dataclass(frozen=True)
class SMLimits:
    """Per-SM resource limits that decide how many blocks can be resident at once.

    Attributes:
        name: Human-readable name of the GPU these limits describe.
        sm_count: Number of streaming multiprocessors on the GPU.
        warp_size: Threads per warp.
        max_threads_per_block: Largest block a kernel may be launched with.
        max_threads_per_sm: Resident threads per SM.
        max_warps_per_sm: Resident warps per SM.
        max_blocks_per_sm: Resident blocks per SM.
        regs_per_sm: 32-bit registers in one SM's register file.
        regs_per_block: Most registers one block may hold.
        reg_partitions: The register file is split evenly over this many SM sub-partitions
            (processing blocks); a warp's registers live in one of them.
        max_regs_per_thread: Most registers the compiler may give one thread.
        reg_alloc_unit: Registers are handed out per warp, rounded up to this many.
        smem_per_sm: Shared memory per SM in bytes (largest carve-out).
        max_smem_per_block: Largest shared-memory allocation of one block in bytes, with the
            opt-in (``cudaFuncAttributeMaxDynamicSharedMemorySize``) for dynamic shared memory.
        max_static_smem_per_block: Largest allocation without the opt-in: every static
            ``cuda.shared.array`` of a kernel together (48 KiB on every GPU since sm_70).
        smem_alloc_unit: Shared memory is handed out per block, rounded up to this many bytes.
        smem_reserved_per_block: Bytes the system reserves in every resident block.
        source: Where the numbers come from.
    """

    name: str
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
    max_static_smem_per_block: int = 48 * 1024
    smem_alloc_unit: int = 128
    smem_reserved_per_block: int = 1024
    source: str = ""


H100_SXM = SMLimits(
    name="NVIDIA H100 SXM5 (reference, compute capability 9.0)",
    sm_count=132,
    source=(
        "NVIDIA H100 Tensor Core GPU Architecture whitepaper (132 SMs); CUDA C++ Programming "
        "Guide, Technical Specifications per Compute Capability (9.0)"
    ),
)


@dataclass(frozen=True)
class Occupancy:
    """Result of :func:`occupancy` for one launch configuration.

    Attributes:
        block_size: Threads per block.
        warps_per_block: Warps per block (a partial warp still costs a whole warp).
        blocks_by_warps: Blocks per SM allowed by the warp/thread limit.
        blocks_by_regs: Blocks per SM allowed by the register file.
        blocks_by_smem: Blocks per SM allowed by shared memory.
        blocks_by_limit: The hardware cap on resident blocks per SM.
        blocks_per_sm: Resident blocks per SM: the minimum of the four limits.
        limiter: Which limit is binding ("warps", "registers", "shared memory", "blocks").
        active_warps: Resident warps per SM.
        occupancy: ``active_warps / max_warps_per_sm``, between 0 and 1.
        needs_opt_in: The block asks for more shared memory than a kernel gets without the
            opt-in (``max_static_smem_per_block``): only dynamic shared memory, with the
            opt-in, can have it.
    """

    block_size: int
    warps_per_block: int
    blocks_by_warps: int
    blocks_by_regs: int
    blocks_by_smem: int
    blocks_by_limit: int
    blocks_per_sm: int
    limiter: str
    active_warps: int
    occupancy: float
    needs_opt_in: bool = False


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def occupancy(
    block_size: int,
    regs_per_thread: int = 32,
    smem_per_block: int = 0,
    limits: SMLimits = H100_SXM,
) -> Occupancy:
    """Compute theoretical occupancy of one SM, following CUDA's occupancy rules.

    Args:
        block_size: Threads per block, 1 to ``limits.max_threads_per_block``.
        regs_per_thread: 32-bit registers per thread, 1 to ``limits.max_regs_per_thread``.
        smem_per_block: Shared memory per block in bytes (static plus dynamic).
        limits: The SM limits to apply; defaults to the H100 SXM reference.

    Returns:
        An :class:`Occupancy` with every intermediate quantity.

    Raises:
        ValueError: If a resource request can never be launched on ``limits``.
    """
    if not 1 <= block_size <= limits.max_threads_per_block:
        raise ValueError(
            f"[occupancy] expected block_size in 1..{limits.max_threads_per_block}, "
            f"got {block_size}"
        )
    if not 1 <= regs_per_thread <= limits.max_regs_per_thread:
        raise ValueError(
            f"[occupancy] expected regs_per_thread in 1..{limits.max_regs_per_thread}, "
            f"got {regs_per_thread}"
        )
    if smem_per_block < 0:
        raise ValueError(f"[occupancy] expected smem_per_block >= 0 bytes, got {smem_per_block}")
    warps_per_block = math.ceil(block_size / limits.warp_size)
    # The rules themselves live in pdc, which also applies them to compiled kernels; they read
    # only the fields this SMLimits shares with pdc.ptx.occupancy.SMLimits.
    candidates = block_limits(limits, block_size, regs_per_thread, smem_per_block)  # type: ignore[arg-type]
    if smem_per_block > limits.max_smem_per_block:
        # More than one block may ever hold on this GPU (100 KiB on a T4's 64 KiB): no block
        # can be resident, as CUDA's occupancy calculator answers, instead of an error.
        candidates["shared memory"] = 0
    blocks_per_sm = min(candidates.values())
    # Report the first binding limit in a fixed order so ties read the same every time.
    limiter = next(name for name, value in candidates.items() if value == blocks_per_sm)
    active_warps = blocks_per_sm * warps_per_block
    return Occupancy(
        block_size=block_size,
        warps_per_block=warps_per_block,
        blocks_by_warps=candidates["warps"],
        blocks_by_regs=candidates["registers"],
        blocks_by_smem=candidates["shared memory"],
        blocks_by_limit=limits.max_blocks_per_sm,
        blocks_per_sm=blocks_per_sm,
        limiter=limiter,
        active_warps=active_warps,
        occupancy=active_warps / limits.max_warps_per_sm,
        needs_opt_in=smem_per_block > limits.max_static_smem_per_block,
    )


# SMLimits field -> the driver's attribute (cuda.bindings' CUdevice_attribute without its
# CU_DEVICE_ATTRIBUTE_ prefix, which is how numba's Device names them).
DRIVER_ATTRIBUTES = {
    "sm_count": "MULTIPROCESSOR_COUNT",
    "warp_size": "WARP_SIZE",
    "max_threads_per_block": "MAX_THREADS_PER_BLOCK",
    "max_threads_per_sm": "MAX_THREADS_PER_MULTIPROCESSOR",
    "max_blocks_per_sm": "MAX_BLOCKS_PER_MULTIPROCESSOR",
    "regs_per_sm": "MAX_REGISTERS_PER_MULTIPROCESSOR",
    "regs_per_block": "MAX_REGISTERS_PER_BLOCK",
    "smem_per_sm": "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
    "max_smem_per_block": "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
    "max_static_smem_per_block": "MAX_SHARED_MEMORY_PER_BLOCK",
    "smem_reserved_per_block": "RESERVED_SHARED_MEMORY_PER_BLOCK",
}


def _driver_errors(dev) -> tuple[type[BaseException], ...]:
    """The error the device's driver module raises for an attribute it refuses.

    numba's ``Device`` lives beside its ``CudaAPIError``; taking it from there imports nothing
    (importing numba's driver module here would start numba.cuda outside the simulator).
    """
    error = getattr(sys.modules.get(type(dev).__module__), "CudaAPIError", None)
    return (error,) if isinstance(error, type) and issubclass(error, Exception) else ()


def limits_of(dev, fallback: SMLimits = H100_SXM) -> SMLimits:
    """The :class:`SMLimits` of a numba CUDA device, read from its driver attributes.

    An attribute the driver refuses keeps the fallback's value; a misspelt name is a bug and
    raises. The allocation granularities follow the compute capability (``cuda_occupancy.h``).

    Args:
        dev: A numba ``Device`` (``cuda.get_current_device()``).
        fallback: Values for attributes this driver does not report.

    Returns:
        The device's limits.
    """
    errors = _driver_errors(dev)
    values = {}
    for field_name, attribute in DRIVER_ATTRIBUTES.items():
        try:
            values[field_name] = int(getattr(dev, attribute))
        except errors:  # the driver does not know this attribute
            values[field_name] = getattr(fallback, field_name)
    cc = tuple(dev.compute_capability)
    unit, _ = allocation_units(cc)
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    return replace(
        fallback,
        name=f"{name} (this machine, compute capability {cc[0]}.{cc[1]})",
        max_warps_per_sm=values["max_threads_per_sm"] // values["warp_size"],
        smem_alloc_unit=unit,
        source="queried from the CUDA driver through numba",
        **values,
    )


def device_limits(fallback: SMLimits = H100_SXM) -> SMLimits:
    """Return the SM limits of the real CUDA GPU, or ``fallback`` when there is none.

    The real device is asked through numba's CUDA driver only when ``pdc.has_gpu()`` is
    true; any attribute the driver does not report keeps the fallback's value.

    Args:
        fallback: Limits used when no GPU is present, and for attributes not reported.

    Returns:
        The device's :class:`SMLimits`.
    """
    import pdc

    if not pdc.has_gpu():
        return fallback
    return limits_of(pdc.numba_cuda().get_current_device(), fallback)


def warp_addresses(
    stride: int, itemsize: int = 4, offset: int = 0, warp_size: int = 32
) -> np.ndarray:
    """Byte addresses one warp reads when thread ``t`` loads element ``offset + t * stride``.

    Args:
        stride: Distance in elements between neighbouring threads' loads (1 = coalesced).
        itemsize: Bytes per element.
        offset: Element index read by thread 0.
        warp_size: Threads per warp.

    Returns:
        An int64 array of ``warp_size`` byte addresses.

    Raises:
        ValueError: If ``stride`` or ``itemsize`` is not positive.
    """
    if stride < 1 or itemsize < 1:
        raise ValueError(
            f"[warp_addresses] expected stride >= 1 and itemsize >= 1, got {stride}, {itemsize}"
        )
    threads = np.arange(warp_size, dtype=np.int64)
    return (offset + threads * stride) * itemsize


def sectors_touched(addresses: np.ndarray, itemsize: int = 4, sector: int = 32) -> np.ndarray:
    """The distinct memory sectors (default 32 bytes) a set of loads falls into.

    Global memory is served in 32-byte sectors (CUDA C++ Best Practices Guide, "Coalesced
    Access to Global Memory"), so a warp pays for every sector any of its loads touches.

    Args:
        addresses: Byte addresses of the loads.
        itemsize: Bytes read at each address.
        sector: Sector size in bytes.

    Returns:
        Sorted array of sector indices.
    """
    addresses = np.asarray(addresses, dtype=np.int64)
    first = addresses // sector
    last = (addresses + itemsize - 1) // sector
    spans = [np.arange(a, b + 1) for a, b in zip(first, last, strict=True)]
    return np.unique(np.concatenate(spans)) if spans else np.array([], dtype=np.int64)


def crossover(sizes: Sequence[float], t_a: Sequence[float], t_b: Sequence[float]) -> float | None:
    """Smallest size from which ``b`` is faster than ``a`` for every larger measured size.

    Between the last size where ``a`` wins and the first where ``b`` wins, the crossing is
    interpolated linearly in log(size) on the log of the time ratio.

    Args:
        sizes: Problem sizes, strictly increasing.
        t_a: Measured times of implementation ``a`` at each size.
        t_b: Measured times of implementation ``b`` at each size.

    Returns:
        The interpolated crossover size; ``sizes[0]`` if ``b`` wins everywhere; ``None`` if
        ``b`` does not win at the largest size.

    Raises:
        ValueError: If the sequences differ in length, are empty, sizes do not increase, or a
            time or size is not positive.
    """
    s = np.asarray(sizes, dtype=float)
    a = np.asarray(t_a, dtype=float)
    b = np.asarray(t_b, dtype=float)
    if not (s.shape == a.shape == b.shape) or s.ndim != 1 or s.size == 0:
        raise ValueError(
            f"[crossover] expected three equal-length 1-D sequences, got shapes "
            f"{s.shape}, {a.shape}, {b.shape}"
        )
    if np.any(np.diff(s) <= 0) or np.any(s <= 0) or np.any(a <= 0) or np.any(b <= 0):
        raise ValueError("[crossover] expected increasing positive sizes and positive times")
    log_ratio = np.log(b / a)  # < 0 where b is faster
    if log_ratio[-1] >= 0:
        return None
    losing = np.nonzero(log_ratio >= 0)[0]
    if losing.size == 0:
        return float(s[0])
    i = int(losing[-1])  # last size where a still wins (or ties); i + 1 is where b wins
    x0, x1 = math.log(s[i]), math.log(s[i + 1])
    y0, y1 = log_ratio[i], log_ratio[i + 1]
    frac = y0 / (y0 - y1)
    return float(math.exp(x0 + frac * (x1 - x0)))


setup_torch = fit_threads  # the name the chapters use


def keep_freed_memory(limit_bytes: int = 1 << 30) -> bool:
    """Keep freed blocks of up to ``limit_bytes`` in the process instead of returning them.

    glibc's ``malloc`` serves a large request (from 128 KiB, raised adaptively up to 32 MiB) by
    mapping fresh pages from the operating system and unmaps them again at ``free``. A CPU
    tensor of 64 MiB freed and allocated again on every call then page-faults all of its
    16,384 pages back in each time, which can take longer than the arithmetic. This sets
    ``M_MMAP_THRESHOLD`` and ``M_TRIM_THRESHOLD`` (``mallopt(3)``) so such blocks come from
    the heap and stay there after ``free``, for this process: what PyTorch's caching
    allocator does for GPU memory. Nothing here replaces a library: it is two calls.

    Returns:
        True when glibc accepted both settings; False elsewhere (macOS, musl), where
        nothing changed.
    """
    import ctypes
    import ctypes.util

    if limit_bytes < 1 or limit_bytes > 1 << 31:
        raise ValueError(f"[keep_freed_memory] expected 1 B to 2 GiB, got {limit_bytes} B")
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3  # from glibc's <malloc.h>
    limit = min(int(limit_bytes), (1 << 31) - 1)
    return bool(mallopt(m_mmap_threshold, limit)) and bool(mallopt(m_trim_threshold, limit))


EVIDENCE_MIME = "application/vnd.pdc.evidence+json"


def evidence_problems(record: dict) -> list[str]:
    """Why a recorded measurement is implausible against its baseline ([] if it is not).

    A record claims that ``seconds`` (the measured work) lies within
    ``[min_ratio * baseline_seconds, max_ratio * baseline_seconds + slack_s]``. The bounds are
    kept loose (``max_ratio`` at most 100, ``slack_s`` at most 1 ms) so that only broken
    measurements fail, such as a 65k-element SAXPY taking 24 ms where a copy of its bytes
    takes microseconds.

    Args:
        record: A dict as written by :func:`evidence`.

    Returns:
        Human-readable problems; empty when the record is plausible.
    """
    name = record.get("name", "?")
    problems = []
    for key in ("seconds", "baseline_seconds", "max_ratio", "slack_s"):
        if not isinstance(record.get(key), (int, float)) or record[key] < 0:
            problems.append(f"{name}: field {key!r} must be a non-negative number")
    if problems:
        return problems
    if record["max_ratio"] > 100 or record["slack_s"] > 1e-3:
        problems.append(
            f"{name}: bound too loose to check anything (max_ratio {record['max_ratio']} > 100 "
            f"or slack {format_seconds(record['slack_s'])} > 1 ms)"
        )
    seconds, base = record["seconds"], record["baseline_seconds"]
    upper = record["max_ratio"] * base + record["slack_s"]
    if seconds > upper:
        problems.append(
            f"{name}: {format_seconds(seconds)} is implausibly slow against "
            f"{record.get('baseline', 'the baseline')} ({format_seconds(base)}): more than "
            f"{record['max_ratio']}x + {format_seconds(record['slack_s'])} = "
            f"{format_seconds(upper)}"
        )
    min_ratio = record.get("min_ratio")
    if isinstance(min_ratio, (int, float)) and seconds < min_ratio * base:
        problems.append(
            f"{name}: {format_seconds(seconds)} is implausibly fast against "
            f"{record.get('baseline', 'the baseline')} ({format_seconds(base)}): less than "
            f"{min_ratio}x (was the work synchronised?)"
        )
    return problems


def evidence_record(
    name: str,
    measured: Timing | float,
    baseline: Timing | float,
    *,
    baseline_name: str,
    max_ratio: float,
    slack_s: float = 0.0,
    min_ratio: float | None = None,
    on_host: bool = False,
) -> dict:
    """The JSON-ready record that :func:`evidence` shows; arguments as there.

    ``device`` is where the measured work was timed ("cpu" for host work, else a
    :class:`Timing`'s device; None for plain seconds): a GPU machine's report keeps it, so
    that a figure its CPU measured is never quoted as the GPU's.
    """
    device = "cpu" if on_host else (measured.device if isinstance(measured, Timing) else None)
    return {
        "name": name,
        "device": device,
        "seconds": measured.median_s if isinstance(measured, Timing) else float(measured),
        "baseline": baseline_name,
        "baseline_seconds": baseline.median_s if isinstance(baseline, Timing) else float(baseline),
        "max_ratio": max_ratio,
        "slack_s": slack_s,
        "min_ratio": min_ratio,
    }


def evidence(
    name: str,
    measured: Timing | float,
    baseline: Timing | float,
    *,
    baseline_name: str,
    max_ratio: float,
    slack_s: float = 0.0,
    min_ratio: float | None = None,
    on_host: bool = False,
) -> None:
    """Record a measurement beside a baseline from the same run, and say if it is plausible.

    The record is shown as one line of text and stored in the cell's output under the MIME
    type :data:`EVIDENCE_MIME`, where ``tests/test_notebook_evidence.py`` finds it in the
    committed notebook and applies :func:`evidence_problems` again. Outside IPython the line
    is printed.

    Args:
        name: Unique name, ``"chNN.what"``.
        measured: The measured work, a :class:`Timing` (its median is used) or seconds.
        baseline: The reference measured in the same run, e.g. a copy of the same bytes.
        baseline_name: What the baseline is, in words.
        max_ratio: ``measured`` may be at most this many times the baseline ...
        slack_s: ... plus this many seconds (fixed call overheads).
        min_ratio: Optional lower bound; faster than this means the work was not waited for.
        on_host: The measured work runs on the host CPU on every machine (NumPy, a CPU input
            pipeline): the GPU reference machine's figure is then its CPU's, and says so.
    """
    record = evidence_record(
        name,
        measured,
        baseline,
        baseline_name=baseline_name,
        max_ratio=max_ratio,
        slack_s=slack_s,
        min_ratio=min_ratio,
        on_host=on_host,
    )
    problems = evidence_problems(record)
    ratio = record["seconds"] / record["baseline_seconds"] if record["baseline_seconds"] else 0.0
    verdict = "; ".join(problems) if problems else "plausible"
    text = (
        f"check {name}: {format_seconds(record['seconds'])} = {ratio:.3g}x {baseline_name} "
        f"({format_seconds(record['baseline_seconds'])}): {verdict}"
    )
    # The same cell's measurement in the committed GPU reference run, if one is recorded:
    # that machine's figure, which its CPU measured where the cell times host work.
    from pdc.gpu_report import evidence_reference

    text += "\n  same cell on the GPU reference machine: " + evidence_reference(name, on_host)
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        print(text)
        return
    if get_ipython() is None:
        print(text)
    else:
        display({"text/plain": text, EVIDENCE_MIME: json.loads(json.dumps(record))}, raw=True)

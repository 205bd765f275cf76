"""What one simulated launch did (``LaunchReport``), and how its memory analysis travels.

The grader runs kernels in a child process and trusts nothing it sends back
(pdc.grade.grader). Per-thread counters come back as ``.npz`` arrays; the memory analysis
(bank conflicts, sectors, atomics per element) comes back as plain JSON written by
``extras_to_json`` and checked field by field by ``extras_from_json``.
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

Dim3 = namedtuple("Dim3", "x y z")
#: What pdc.sim reports: a kernel error (a division by zero, or it does not compile), an
#: out-of-range access, a data race, a divergent barrier, an undefined value used, a
#: warp-intrinsic misuse, a stale read, threads stopped by the kernel's own raise or assert.
FINDING_KINDS = (
    "error",
    "oob",
    "race",
    "divergence",
    "uninitialized",
    "warp",
    "stale",
    "stopped",
)
#: Findings that cost no criterion by themselves: notes that explain wrong outputs (a plain
#: read racing only with atomics sees a real value, maybe an old one; see pdc.sim.races; a
#: thread that reached a raise or a failing assert stopped there, as on a GPU without debug).
NOTES = ("stale", "stopped")

_MAX_TEXT = 200  # characters of a source line carried back from the child


@dataclass
class LaunchReport:
    """What one simulated launch did.

    Warps are 32 consecutive threads of a block in linear order (x, then y, then z). A
    warp-wide access is the k-th access to one array from one kernel line by each thread of
    one warp (pdc.sim runs all threads of a warp together, one instruction at a time).

    Attributes:
        grid: Blocks per dimension (x, y, z).
        block: Threads per block (x, y, z).
        loads: Global loads per thread, by argument name (int64 arrays of length nthreads).
        stores: Global stores per thread, by argument name.
        written: Distinct global elements each thread wrote, by argument name.
        shared_loads: Shared-memory loads per thread.
        shared_stores: Shared-memory stores per thread.
        atomics: Atomic operations per thread (each also counted as a load and a store).
        ops: Operations per thread: arithmetic, loop steps, warp collectives and memory
            operations (pdc.sim.work).
        span: Per thread, the most operations it made between two ``syncthreads`` (or the
            launch's start or end): the critical path its block waits for.
        shuffles: Shuffles per thread (``shfl_*_sync``): values it read from other lanes.
        findings: Category -> {"count": int, "examples": [str, ...]}.
        barriers: Largest number of barriers any block passed.
        shared_arrays: Number of shared arrays a block allocated.
        bank_conflicts: Kernel line (counted from the function's first line, as findings
            count) -> {"text": the source line, "accesses": shared-memory requests made
            there, "wavefronts": transactions they cost, "worst": the largest degree}. 32
            banks of 4 bytes; the degree of a request is the largest number of distinct
            4-byte words in one bank (lanes reading one word share it), and it costs that
            many wavefronts. A request is one warp-wide access for elements of 4 bytes or
            less; 8-byte elements are served per half-warp and 16-byte ones per quarter-warp
            (two and four requests), as on the hardware. Atomics are not included.
        sectors: ``"<arg>:load"`` / ``"<arg>:store"`` for every global array argument ->
            {"accesses": warp-wide accesses, "sectors": 32-byte sectors they touched,
            "ideal": the fewest sectors the same elements could fill}. Coalesced means
            sectors == ideal. Atomics are not included.
        requests: ``"<arg>:<load|store>:<line>"`` for every kernel line that loads or stores a
            global array argument -> {"requests": warp requests made there, "sectors",
            "ideal": as in ``sectors``, "over": requests that touched more than one sector
            beyond their ideal (a contiguous run straddles at most one more boundary: these
            are strided or scattered), "worst": the most sectors one request touched beyond
            its ideal}: sectors per request per instruction, as a profiler counts them.
        atomic_counts: Global array argument -> int64 array of its shape: atomics per element.
        shared_atomics: Atomics on shared memory in total.
        shared_contention: The most atomics one element of one block's shared array received.
        access: Only with ``launch(..., record=True)``, else None: for every global array
            argument (by name) and every shared array of block 0 (``"shared:<k>"`` in
            allocation order) -> {"shape": tuple, "thread": int64 array of that shape with
            the global linear id of the last thread that touched each element (-1: none),
            "reads": int64 array, "writes": int64 array (an atomic is both), "oob": up to
            100 (thread, index tuple) out-of-range attempts}.
    """

    grid: Dim3
    block: Dim3
    loads: dict = field(default_factory=dict)
    stores: dict = field(default_factory=dict)
    written: dict = field(default_factory=dict)
    shared_loads: np.ndarray | None = None
    shared_stores: np.ndarray | None = None
    atomics: np.ndarray | None = None
    ops: np.ndarray | None = None
    span: np.ndarray | None = None
    shuffles: np.ndarray | None = None
    findings: dict = field(default_factory=dict)
    barriers: int = 0
    shared_arrays: int = 0
    bank_conflicts: dict = field(default_factory=dict)
    sectors: dict = field(default_factory=dict)
    requests: dict = field(default_factory=dict)
    atomic_counts: dict = field(default_factory=dict)
    shared_atomics: int = 0
    shared_contention: int = 0
    access: dict | None = None

    @property
    def nthreads(self) -> int:
        """Threads launched in total."""
        return math.prod(self.grid) * math.prod(self.block)

    def count(self, kind: str) -> int:
        """Number of findings of one category (see FINDING_KINDS)."""
        return int(self.findings.get(kind, {}).get("count", 0))

    def work(self) -> np.ndarray:
        """Memory operations (loads and stores, atomics included) per thread."""
        total = np.zeros(self.nthreads, dtype=np.int64)
        for d in (self.loads, self.stores):
            for v in d.values():
                total += v
        for v in (self.shared_loads, self.shared_stores):
            if v is not None:
                total += v
        return total

    def conflicts(self) -> int:
        """Extra shared-memory wavefronts caused by bank conflicts (0: conflict-free)."""
        return sum(int(v["wavefronts"]) - int(v["accesses"]) for v in self.bank_conflicts.values())

    def global_atomics(self) -> int:
        """Atomic operations on global memory in total."""
        return sum(int(v.sum()) for v in self.atomic_counts.values())

    def contention(self, name: str) -> int:
        """The largest number of atomics any one element of global array ``name`` received.

        Raises:
            ValueError: ``name`` is not a global array argument of the launch.
        """
        if name not in self.atomic_counts:
            raise ValueError(
                f"[contention] expected one of {sorted(self.atomic_counts)}, got {name!r}"
            )
        v = self.atomic_counts[name]
        return int(v.max()) if v.size else 0


def extras_to_json(rep: LaunchReport) -> dict:
    """The memory analysis of ``rep`` as JSON-ready data (atomic counts sparse: [index, n])."""
    atomics = {}
    for name, v in rep.atomic_counts.items():
        flat = v.reshape(-1)
        nz = np.flatnonzero(flat)
        atomics[name] = [[int(i), int(flat[i])] for i in nz]
    return {
        "bank_conflicts": {
            str(line): {
                "text": str(v["text"])[:_MAX_TEXT],
                "accesses": int(v["accesses"]),
                "wavefronts": int(v["wavefronts"]),
                "worst": int(v["worst"]),
            }
            for line, v in rep.bank_conflicts.items()
        },
        "sectors": {
            k: {f: int(v[f]) for f in ("accesses", "sectors", "ideal")}
            for k, v in rep.sectors.items()
        },
        "requests": {k: {f: int(v[f]) for f in _REQUEST_FIELDS} for k, v in rep.requests.items()},
        "atomic_counts": atomics,
        "shared_atomics": int(rep.shared_atomics),
        "shared_contention": int(rep.shared_contention),
    }


_REQUEST_FIELDS = ("requests", "sectors", "ideal", "over", "worst")


def _count(v, what: str) -> int:
    if type(v) is not int or v < 0:
        raise ValueError(f"{what}: expected a count (int >= 0), got {v!r}")
    return v


def extras_from_json(rep: LaunchReport, data, shapes: dict) -> None:
    """Check data from ``extras_to_json`` (written by an untrusted process) and fill ``rep``.

    Args:
        rep: The report to fill.
        data: The decoded JSON.
        shapes: Global array argument name -> its shape, as the grader created it.

    Raises:
        ValueError: Anything malformed: unknown names, wrong types, indices out of range.
    """
    if not isinstance(data, dict) or set(data) != {
        "bank_conflicts",
        "sectors",
        "requests",
        "atomic_counts",
        "shared_atomics",
        "shared_contention",
    }:
        raise ValueError(
            "memory analysis: expected bank_conflicts, sectors, requests, atomic_counts, "
            "shared_atomics, shared_contention"
        )
    banks = {}
    for line, v in _dict(data["bank_conflicts"], "bank_conflicts").items():
        if not line.lstrip("-").isdigit() or not isinstance(v, dict):
            raise ValueError(f"bank_conflicts: expected line numbers, got {line!r}")
        if not isinstance(v.get("text"), str):
            raise ValueError("bank_conflicts: expected a source line as text")
        entry = {"text": v["text"][:_MAX_TEXT]}
        for f in ("accesses", "wavefronts", "worst"):
            entry[f] = _count(v.get(f), f"bank_conflicts {f}")
        banks[int(line)] = entry
    sectors = {}
    allowed = {f"{a}:{k}" for a in shapes for k in ("load", "store")}
    for key, v in _dict(data["sectors"], "sectors").items():
        if key not in allowed or not isinstance(v, dict):
            raise ValueError(f"sectors: expected keys in {sorted(allowed)}, got {key!r}")
        fields = ("accesses", "sectors", "ideal")
        sectors[key] = {f: _count(v.get(f), f"sectors {f}") for f in fields}
    requests = {}
    for key, v in _dict(data["requests"], "requests").items():
        name, _, line = key.rpartition(":")
        if name not in allowed or not line.lstrip("-").isdigit() or not isinstance(v, dict):
            raise ValueError(f"requests: expected '<arg>:<load|store>:<line>', got {key!r}")
        requests[key] = {f: _count(v.get(f), f"requests {f}") for f in _REQUEST_FIELDS}
    counts = {}
    atomic_json = _dict(data["atomic_counts"], "atomic_counts")
    if set(atomic_json) != set(shapes):
        raise ValueError(f"atomic_counts: expected {sorted(shapes)}, got {sorted(atomic_json)}")
    for name, pairs in atomic_json.items():
        a = np.zeros(math.prod(shapes[name]), dtype=np.int64)
        if not isinstance(pairs, list):
            raise ValueError(f"atomic_counts {name}: expected [index, count] pairs")
        for p in pairs:
            if not isinstance(p, list) or len(p) != 2:
                raise ValueError(f"atomic_counts {name}: expected [index, count] pairs")
            i, n = _count(p[0], "atomic index"), _count(p[1], "atomic count")
            if i >= a.size:
                raise ValueError(f"atomic_counts {name}: index {i} outside {a.size} elements")
            a[i] = n
        counts[name] = a.reshape(shapes[name])
    rep.bank_conflicts = banks
    rep.sectors = sectors
    rep.requests = requests
    rep.atomic_counts = counts
    rep.shared_atomics = _count(data["shared_atomics"], "shared_atomics")
    rep.shared_contention = _count(data["shared_contention"], "shared_contention")


def _dict(v, what: str) -> dict:
    if not isinstance(v, dict):
        raise ValueError(f"{what}: expected an object, got {type(v).__name__}")
    return v


def read_extras(rep: LaunchReport, meta: dict, case) -> None:
    """Fill ``rep`` from the ``"sim"`` entry of a case's JSON written by the grading child.

    Args:
        rep: The report the grader builds for the case.
        meta: The case's decoded JSON.
        case: The pdc.grade.exercises.Case the grader wrote the inputs of.

    Raises:
        ValueError: The entry is missing or malformed.
    """
    shapes = {k: tuple(v.shape) for k, v in case.args.items() if isinstance(v, np.ndarray)}
    if "sim" not in meta:
        raise ValueError("memory analysis: expected a 'sim' entry")
    extras_from_json(rep, meta["sim"], shapes)

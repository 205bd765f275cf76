"""One kernel compiled for one GPU architecture: its PTX and what ``ptxas -v`` says of it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .occupancy import Occupancy, occupancy

WHEELS = "nvidia-cuda-nvcc-cu12==12.9.86 nvidia-cuda-nvrtc-cu12==12.9.86"


class CompilerMissing(RuntimeError):
    """NVIDIA's compiler (libNVVM, NVRTC, ptxas) is not installed in this Python."""


@dataclass
class Build:
    """A kernel compiled for compute capability ``cc``: PTX, then SASS by ``ptxas``.

    Attributes:
        name: The kernel's name.
        cc: Target compute capability, e.g. ``(9, 0)``.
        ok: True when numba produced PTX and ptxas assembled it.
        error: Why not, in one line (empty when ``ok``).
        error_full: The compiler's whole message.
        ptx: The PTX text ("" on failure).
        registers: 32-bit registers per thread.
        shared_bytes: Static shared memory per block.
        local_bytes: Stack frame per thread (local memory).
        spill_stores: Bytes spilled from registers to local memory.
        spill_loads: Bytes loaded back from spills.
        seconds: Time spent compiling (numba + ptxas).
        where: The file the kernel comes from, when known.
    """

    name: str
    cc: tuple[int, int]
    ok: bool = False
    error: str = ""
    error_full: str = ""
    ptx: str = field(default="", repr=False)
    registers: int = 0
    shared_bytes: int = 0
    local_bytes: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    seconds: float = 0.0
    where: str = ""

    @property
    def spills(self) -> int:
        """Bytes spilled and reloaded, together."""
        return self.spill_stores + self.spill_loads

    def summary(self) -> str:
        """One line: "matmul_tiled: 32 registers, 2 KiB shared, 0 spills"."""
        if not self.ok:
            return f"{self.name}: does not compile for sm_{self.cc[0]}{self.cc[1]}: {self.error}"
        text = f"{self.name}: {self.registers} registers, {_bytes(self.shared_bytes)} shared"
        if self.local_bytes:
            text += f", {_bytes(self.local_bytes)} local"
        spills = f"{self.spills} bytes spilled" if self.spills else "0 spills"
        return f"{text}, {spills}"

    def occupancy(self, block: int | tuple[int, ...], device: str = "H100") -> Occupancy:
        """The occupancy this kernel reaches with ``block`` threads per block on ``device``.

        Raises:
            ValueError: If the kernel did not compile, or the block cannot launch at all.
        """
        if not self.ok:
            raise ValueError(f"[Build.occupancy] {self.name} did not compile: {self.error}")
        return occupancy(block, self.registers, self.shared_bytes, device)

    def to_dict(self, ptx: bool = False) -> dict:
        """A JSON-ready dict (without the PTX unless ``ptx``)."""
        d = asdict(self)
        d["cc"] = list(self.cc)
        if not ptx:
            d.pop("ptx")
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Build:
        """Inverse of :meth:`to_dict`."""
        return cls(**{**d, "cc": tuple(d["cc"])})


def _bytes(n: int) -> str:
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KiB"
    if n >= 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n} B"


def _site_dirs() -> list[Path]:
    import site

    dirs = [Path(p) for p in sys.path if p]
    try:
        dirs += [Path(p) for p in site.getsitepackages()]
    except AttributeError:  # some virtualenv layouts have no getsitepackages
        pass
    return dirs


def find_ptxas() -> str:
    """Path of the ``ptxas`` from NVIDIA's nvcc wheel (CUDA 12 or 13) or a CUDA toolkit.

    Raises:
        CompilerMissing: If neither is installed.
    """
    for d in _site_dirs():
        # CUDA 12 wheels keep one folder per component; CUDA 13 wheels share nvidia/cu13.
        for exe in (
            d / "nvidia" / "cuda_nvcc" / "bin" / "ptxas",
            d / "nvidia" / "cu13" / "bin" / "ptxas",
        ):
            if exe.is_file():
                return str(exe)
    found = shutil.which("ptxas")
    if found:
        return found
    raise CompilerMissing(
        "[pdc ptx] NVIDIA's compiler is not installed in this Python: "
        f"pip install {WHEELS} (no GPU needed)"
    )


_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")


def parse_ptxas(text: str) -> dict[str, int]:
    """Registers, shared, local and spill bytes of the entry function in ``ptxas -v`` output.

    Spills are summed over every function listed (a spill in a device function that was
    not inlined costs the kernel as much as one in its body).
    """
    out = {"registers": 0, "shared_bytes": 0, "local_bytes": 0, "spill_stores": 0, "spill_loads": 0}
    in_entry = False
    for line in text.splitlines():
        if _ENTRY.search(line):
            in_entry = True
            continue
        frame = _FRAME.search(line)
        if frame:
            out["spill_stores"] += int(frame.group(2))
            out["spill_loads"] += int(frame.group(3))
            if in_entry:
                out["local_bytes"] = int(frame.group(1))
        used = _USED.search(line)
        if used and in_entry:
            out["registers"] = int(used.group(1))
            smem = _SMEM.search(line)
            out["shared_bytes"] = int(smem.group(1)) if smem else 0
            in_entry = False
    return out


def assemble(build: Build, ptxas: str | None = None, timeout: float = 120) -> Build:
    """Run ``ptxas -arch=sm_XX -v`` on ``build.ptx`` and fill in its resource figures."""
    if not build.ptx:
        return build
    exe = ptxas or find_ptxas()
    arch = f"sm_{build.cc[0]}{build.cc[1]}"
    with tempfile.TemporaryDirectory(prefix="pdc-ptx-") as tmp:
        src = Path(tmp) / "kernel.ptx"
        src.write_text(build.ptx)
        try:
            run = subprocess.run(
                [exe, f"-arch={arch}", "-v", str(src), "-o", str(Path(tmp) / "kernel.cubin")],
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            build.ok, build.error = False, f"ptxas {arch} timed out after {timeout:.0f} s"
            return build
    if run.returncode != 0:
        msg = (run.stderr or run.stdout).strip()
        build.ok, build.error_full = False, msg
        line = next((ln for ln in msg.splitlines() if "error" in ln), msg)
        # ptxas names the entry by its mangled symbol; the reader wrote the kernel's name.
        line = _MANGLED.sub(f"'{build.name}'", line).replace("ptxas error   : ", "")
        line = _HEX_LIMIT.sub(lambda m: f"({int(m[1], 16)} bytes, at most {int(m[2], 16)})", line)
        build.error = "ptxas: " + line[:300]
        return build
    for key, value in parse_ptxas(run.stderr + run.stdout).items():
        setattr(build, key, value)
    build.ok = True
    return build


def _lines_naming(source: str, name: str) -> set[int]:
    """The (0-based) lines of ``source`` where ``name`` is read as a name: not in a string,
    a comment or an attribute (``x.name``)."""
    import io
    import tokenize

    found: set[int] = set()
    prev = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.NAME and tok.string == name and prev != ".":
                found.add(tok.start[0] - 1)
            if tok.type not in (tokenize.NL, tokenize.COMMENT):
                prev = tok.string
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_MANGLED = re.compile(r"'_Z\w+'")
_HEX_LIMIT = re.compile(r"\(0x([0-9a-f]+) bytes, 0x([0-9a-f]+) max\)")
_FILE_LINE = re.compile(r'File "([^"]*)", line (\d+)')
_UNDEFINED = re.compile(r"name '(\w+)' is not defined")
_OPERATORS = {"matmul": " @ ", "imatmul": " @= ", "pow": " ** ", "truediv": " / "}
_FUNCTION = re.compile(r"Function\(<(?:function|built-in function) ([\w.]+)[^>]*>\)")


def shorten_error(kind: str, message: str, source: str = "", line: int | None = None) -> str:
    """numba's multi-paragraph error, cut to its first useful line and the kernel line.

    Args:
        kind: The exception's class name.
        message: Its message.
        source: The compiled module's text, to quote the offending line.
        line: The offending line's number, when the error carries it.
    """
    lines = [ln.rstrip() for ln in _ANSI.sub("", message).splitlines()]
    skip = ("Failed in ", "During:", "Enable logging", "Rewrite", "This error may have")
    useful = next((ln.strip() for ln in lines if ln.strip() and not ln.startswith(skip)), "")
    useful = _FUNCTION.sub(r"\1", useful)
    called = _FUNCTION.search(message)
    sig = next((ln.strip()[4:] for ln in lines if ln.strip().startswith(">>> ")), "")
    if sig and useful.endswith("signature:"):
        useful = f"{useful} {sig}"
    where = ""
    for i, ln in enumerate(lines):
        if ln.strip() == "^" and i > 0:  # numba points at the offending line with a caret
            where = lines[i - 1].strip()
            for back in reversed(lines[:i]):
                m = _FILE_LINE.search(back)
                if m:
                    where = f"at: {where}"
                    break
    src = source.splitlines()
    if not where and line and 0 < line <= len(src):
        where = f"at: {src[line - 1].strip()}"
    # No location, or only the kernel's def line: quote the first line that uses the name.
    needle = ""
    if called:
        name = called.group(1).rsplit(".", 1)[-1]
        needle = _OPERATORS.get(name, ".".join(called.group(1).rsplit(".", 2)[-2:]) + "(")
    undefined = _UNDEFINED.search(message)
    if undefined:
        needle = undefined.group(1)
    if needle and (not where or where.split(": ", 1)[-1].startswith("def ")):
        # An undefined name is a name in the code (np, not the np of _pdc_np, nor the
        # float32 of a constant's dtype='float32'); a call a substring of a line.
        lines_named = _lines_naming(source, needle) if undefined else None

        def uses(i: int, ln: str) -> bool:
            return i in lines_named if lines_named is not None else needle in ln

        hit = next((i for i, ln in enumerate(src) if uses(i, ln) and "def " not in ln), None)
        if hit is not None:
            where = f"at: {src[hit].strip()}"
    text = f"{kind}: {useful[:200]}"
    return f"{text} ({where})" if where else text

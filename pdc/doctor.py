"""``pdc doctor``: what this machine can run, and how to fix what is broken.

It initialises every installed backend for real (importing numba.cuda or MLX as a user's
program would) and reports the device each one runs on, so a simulated device is named
as such. Exit status 0 means the course runs here; 1 means something needs fixing, and
the output says what to do.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from importlib import metadata
from typing import Any

from . import __version__
from .backends import (
    ORDER,
    _probe,
    available_backends,
    backend_class,
    default_backend,
    get_backend,
)

LIBRARIES = (
    "numpy",
    "numba",
    "numba-cuda",
    "cupy",
    "mlx",
    "torch",
    "jupyterlab",
    "ipywidgets",
    "matplotlib",
    "nbval",
    "jupyter-book",
    "nvidia-cuda-nvcc-cu12",
)
# CuPy ships one wheel per CUDA major version; GPU machines with CUDA 13 have cupy-cuda13x.
CUPY_WHEELS = ("cupy-cuda12x", "cupy-cuda13x", "cupy")
HINTS = {
    "cuda": (
        "install the CUDA extras: pip install -e '.[cuda]' (numba-cuda, cupy-cuda12x; "
        "cupy-cuda13x on CUDA 13 machines works as well, except chapter 3's "
        "memPrefetchAsync, whose CUDA 13 signature differs: that cell then says so)"
    ),
    "metal": "install MLX: pip install -e '.[metal]' (mlx on macOS, mlx[cpu] on Linux)",
    "cpu": "reinstall numpy and numba: make clean && make test",
}


def _version(dist: str) -> str | None:
    if dist == "cupy":  # whichever CuPy wheel is installed, named with its version
        for wheel in CUPY_WHEELS:
            found = _version(wheel) if wheel != "cupy" else _dist_version("cupy")
            if found:
                return found if wheel == "cupy" else f"{found} ({wheel})"
        return None
    return _dist_version(dist)


def _dist_version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def collect() -> dict[str, Any]:
    """Gather the report as plain data (also used by ``--json``)."""
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "pdc": __version__,
        "cpu_cores": os.cpu_count(),
        "cuda_gpus": _probe.cuda_device_count(),
        "cuda_init_error": _probe.cuda_init_error(),
        "cuda_driver": _probe.cuda_driver_version(),
        "backends": {},
        "libraries": {lib: _version(lib) for lib in LIBRARIES},
        "problems": [],
    }
    avail = available_backends()
    for name in ORDER:
        entry: dict[str, Any] = {"installed": name in avail}
        if name in avail:
            try:
                backend = get_backend(name)
                entry.update(backend.info())
                entry["ok"] = True
            except Exception as exc:  # report any failure to initialise, never crash
                entry.update(ok=False, error=f"{type(exc).__name__}: {exc}")
                report["problems"].append(
                    f"backend {name!r} failed to start: {exc}. Fix: {HINTS[name]}"
                )
                report["backends"][name] = entry
                continue
            try:  # a device that is found may still fail its first compile or launch
                entry.update(backend.self_test())
            except Exception as exc:
                entry.update(ok=False, error=f"kernel launch: {type(exc).__name__}: {exc}")
                report["problems"].append(
                    f"backend {name!r} starts, but a one-thread kernel failed: {exc}. "
                    f"Fix: {HINTS[name]}"
                )
        else:
            entry["ok"] = not backend_class(name).required
            entry["hint"] = HINTS[name]
        report["backends"][name] = entry
    if _version("numba") is None:
        report["problems"].append("numba is not installed. Fix: make clean && make test")
    try:
        report["default_backend"] = default_backend()
    except ValueError as exc:
        report["default_backend"] = None
        report["problems"].append(f"{exc}. Fix: unset PDC_BACKEND or name an available backend")
    return report


def _status(entry: dict[str, Any]) -> str:
    if not entry["installed"]:
        return "not installed"
    if not entry.get("ok"):
        return "BROKEN: " + entry.get("error", "")
    return entry.get("device", "?") + (" (simulated)" if entry.get("simulated") else "")


def render(report: dict[str, Any]) -> str:
    """The human-readable report."""
    lines = [
        f"pdc {report['pdc']} on Python {report['python']} ({report['platform']}, "
        f"{report['cpu_cores']} CPU cores)",
        "",
        "backends:",
    ]
    for name, entry in report["backends"].items():
        lines.append(f"  {name:<6} {_status(entry)}")
        extra = {
            k: v
            for k, v in entry.items()
            if k
            in {
                "compute_capability",
                "multiprocessors",
                "memory_total_gib",
                "memory_free_gib",
                "default_device",
                "cores",
                "kernel_first_launch_ms",
                "kernel_event_ms",
                "driver_cuda",
            }
        }
        if extra:
            lines.append("         " + ", ".join(f"{k}={v}" for k, v in extra.items()))
        if entry.get("versions"):
            lines.append("         " + ", ".join(f"{k} {v}" for k, v in entry["versions"].items()))
        if entry.get("hint") and not entry["installed"]:
            lines.append(f"         to enable: {entry['hint']}")
    if report.get("cuda_init_error"):
        lines.append(
            f"  note: an NVIDIA driver (CUDA {report['cuda_driver']}) is here but CUDA did not "
            f"start: CUresult {report['cuda_init_error']} (803: driver and CUDA libraries "
            "mismatch; 999: reload the driver or reboot; 34: a stub libcuda)"
        )
    elif report["cuda_gpus"] == 0:
        lines.append(
            "  note: no GPU found; CUDA kernels run on numba's CUDA simulator (slow,"
            " but correct for learning)"
        )
    lines += [
        "",
        f"default backend: {report['default_backend']} (set PDC_BACKEND=cpu|cuda|metal to choose)",
        "",
        "libraries:",
    ]
    for lib, ver in report["libraries"].items():
        lines.append(f"  {lib:<22} {ver or '-'}")
    if report["problems"]:
        lines += ["", "PROBLEMS:"] + [f"  - {p}" for p in report["problems"]]
    else:
        lines += ["", "All good: the course runs on this machine."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the report; exit 1 if the environment is broken."""
    parser = argparse.ArgumentParser(prog="pdc doctor", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    args = parser.parse_args(argv)
    report = collect()
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 1 if report["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())

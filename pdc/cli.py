"""The ``pdc`` command line: doctor, bench, grade, assign.

Each subcommand lives in its own module and is imported only when it runs, so
``pdc doctor`` works even when a feature's dependencies are broken.
"""

from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "doctor": ("pdc.doctor", "check this machine's GPU setup and installed libraries"),
    "bench": ("pdc.ring.tools.bench", "benchmarks: `pdc bench ring|sim|grade|check`"),
    "stress": ("pdc.ring.tools.stress", "ring kernels under threads, toggles and faults: 0 lost"),
    "grade": ("pdc.grade.cli", "grade exercise submissions (notebooks or folders)"),
    "assign": ("pdc.grade.assign", "generate student exercises from the solutions"),
    "ptx": ("pdc.ptx.cli", "compile every kernel for sm_80/sm_90 (no GPU needed): registers"),
}


def usage() -> str:
    lines = ["usage: pdc COMMAND [ARGS]", "", "commands:"]
    lines += [f"  {name:<8} {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "Run `pdc COMMAND --help` for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``pdc COMMAND ARGS`` to the command's ``main(argv)``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in {"-h", "--help", "help"}:
        print(usage())
        return 0
    if argv[0] in {"-V", "--version"}:
        from . import __version__

        print(f"pdc {__version__}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"pdc: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module_name = COMMANDS[name][0]
    if name == "bench":
        benches = {
            "ring": "pdc.ring.tools.bench",
            "sim": "pdc.sim.bench",
            "grade": "pdc.grade.bench",
            "check": "pdc.grade.bench_check",
        }
        if not rest or rest[0] not in benches:
            print(
                "usage: pdc bench {ring,sim,grade,check} [options]  "
                "(`pdc bench NAME --help` for each)",
                file=sys.stderr,
            )
            return 2
        module_name, rest = benches[rest[0]], rest[1:]
    module = importlib.import_module(module_name)
    return int(module.main(rest) or 0)

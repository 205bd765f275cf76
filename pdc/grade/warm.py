"""``python -m pdc.grade.warm``: compile, once per machine, what the exercises' checks compile
in the notebook's own process, so that a course folder set up by ``make env`` answers the
first check of every exercise at once.

These are the plug-in parts whose check runs in the notebook (``Part.warm_with``): their
``warm`` compiles what every check of them compiles besides the student's code, and the
runtime they use keeps that on disk. The other exercises check on pdc.sim's worker, whose
compiles are the student's kernel's own.
"""

from __future__ import annotations

import sys
import time


def main() -> int:
    """Warm every such part; print what each took. Exit 1 if one failed (and say why)."""
    from pdc.grade import exercises as exs

    failed = 0
    for key, part in exs.warmed_parts():
        warm = part.warm
        if warm is None:  # warmed_parts() gives only parts with one
            continue
        t0 = time.perf_counter()
        try:
            warm()
        except Exception as exc:  # noqa: BLE001 - reported: the check would fail the same way
            failed += 1
            print(f"{key} {part.name}: FAILED: {type(exc).__name__}: {exc}")
            continue
        print(f"{key} {part.name}: compiled or loaded in {time.perf_counter() - t0:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

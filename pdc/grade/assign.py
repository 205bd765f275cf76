"""``pdc assign SRC DST``: generate student notebooks from solution notebooks.

Solutions are the single source. In code cells, the lines between ``# BEGIN SOLUTION`` and
``# END SOLUTION`` become ``# FILL ME IN`` and ``pass`` at the same indentation; in Markdown
cells, text between ``<!-- BEGIN SOLUTION -->`` and ``<!-- END SOLUTION -->`` is removed.
Outputs and execution counts are cleared. ``--check`` only compares and exits 1 when the
committed student notebooks differ from what would be generated.
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

CODE_BEGIN = re.compile(r"^(\s*)#\s*BEGIN SOLUTION\s*$")
CODE_END = re.compile(r"^\s*#\s*END SOLUTION\s*$")
MD_BEGIN = re.compile(r"^\s*<!--\s*BEGIN SOLUTION\s*-->\s*$")
MD_END = re.compile(r"^\s*<!--\s*END SOLUTION\s*-->\s*$")
STUB = "FILL ME IN"


def strip_solution(text: str, markdown: bool, where: str) -> str:
    """Remove solution blocks from one cell's source.

    Raises:
        ValueError: A marker without its partner.
    """
    begin, end = (MD_BEGIN, MD_END) if markdown else (CODE_BEGIN, CODE_END)
    out, inside, start = [], False, 0
    for n, line in enumerate(text.splitlines(), 1):
        m = begin.match(line)
        if m:
            if inside:
                raise ValueError(
                    f"[assign] expected END SOLUTION before line {n} of {where}, "
                    "got a second BEGIN SOLUTION"
                )
            inside, start = True, n
            if not markdown:
                out += [f"{m.group(1)}# {STUB}", f"{m.group(1)}pass"]
            continue
        if end.match(line):
            if not inside:
                raise ValueError(
                    f"[assign] expected BEGIN SOLUTION before line {n} of {where}, got END SOLUTION"
                )
            inside = False
            continue
        if not inside:
            out.append(line)
    if inside:
        raise ValueError(
            f"[assign] expected END SOLUTION after line {start} of {where}, got the end of the cell"
        )
    return "\n".join(out)


def student_notebook(nb, name: str = "notebook"):
    """The student version of a solution notebook (a new nbformat object)."""
    nb = copy.deepcopy(nb)
    # Widget state belongs to the solution's own run (progress bars, sliders): none of it
    # describes the student's notebook, which has no outputs yet.
    nb.metadata.pop("widgets", None)
    for k, cell in enumerate(nb.cells):
        where = f"cell {k} of {name}"
        cell.source = strip_solution(cell.source, cell.cell_type == "markdown", where)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)
        if "SOLUTION" in cell.source.upper().replace("FILL ME IN", ""):
            raise ValueError(f"[assign] expected no SOLUTION marker left in {where}, found one")
    return nb


def generate(src: Path, dst: Path, check: bool = False) -> list[str]:
    """Write (or, with ``check``, compare) the student version of every notebook in ``src``.

    Returns:
        The names of notebooks that were written (or that differ, with ``check``).
    """
    from pdc.grade.notebook import nbformat_module

    nbformat = nbformat_module()

    src, dst = Path(src), Path(dst)
    if not src.is_dir():
        raise FileNotFoundError(f"[assign] expected a folder of solution notebooks, got {src}")
    changed = []
    for path in sorted(src.glob("*.ipynb")):
        nb = nbformat.read(str(path), as_version=4)
        text = nbformat.writes(student_notebook(nb, path.name)) + "\n"
        target = dst / path.name
        old = target.read_text() if target.exists() else None
        if old != text:
            changed.append(path.name)
            if not check:
                dst.mkdir(parents=True, exist_ok=True)
                target.write_text(text)
    if dst.is_dir():
        sources = {p.name for p in src.glob("*.ipynb")}
        changed += [
            f"{p.name} (no solution)" for p in sorted(dst.glob("*.ipynb")) if p.name not in sources
        ]
    return changed


def main(argv: list[str] | None = None) -> int:
    """``pdc assign SRC DST [--check]``."""
    ap = argparse.ArgumentParser(
        prog="pdc assign", description="Generate student notebooks from solution notebooks."
    )
    ap.add_argument("src", type=Path, help="folder of solution notebooks")
    ap.add_argument("dst", type=Path, help="folder for the student notebooks")
    ap.add_argument("--check", action="store_true", help="compare only; exit 1 if out of sync")
    args = ap.parse_args(argv)
    try:
        changed = generate(args.src, args.dst, check=args.check)
    except (ValueError, FileNotFoundError) as e:
        print(f"pdc assign: {e}", file=sys.stderr)
        return 2
    if args.check:
        for name in changed:
            print(f"out of sync: {args.dst / name}")
        if not changed:
            print(f"{args.dst}: student notebooks are in sync with {args.src}")
        return 1 if changed else 0
    for name in changed:
        print(f"wrote {args.dst / name}")
    if not changed:
        print(f"{args.dst}: already up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Tier 1: every map from chapters to exercises names the exercises that exist.

The exercises are the notebooks in ``solutions/``; the book's *Exercises* page lists each once,
in order, and every exercise key a chapter mentions (``03_matmul``) is one of them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEY = re.compile(r"`(?:exercises/)?(\d\d_[a-z0-9_]+)`")
NUMBERS = "zero one two three four five six seven eight nine ten eleven twelve thirteen".split()


def exercise_keys() -> list[str]:
    return sorted(p.stem for p in (ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))


def markdown_of(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def test_the_book_lists_every_exercise_once_in_order():
    page = (ROOT / "book" / "exercises.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\d\d_[a-z0-9_]+)` \|", page, flags=re.M)
    assert rows == exercise_keys()


def test_chapters_name_only_exercises_that_exist():
    keys = set(exercise_keys())
    for chapter in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        named = set(KEY.findall(markdown_of(chapter)))
        assert named <= keys, f"{chapter.name} names {sorted(named - keys)}, not in solutions/"


def test_chapter_5_counts_the_exercises():
    text = markdown_of(ROOT / "notebooks" / "05_shared_memory_atomics.ipynb")
    count = NUMBERS[len(exercise_keys())]
    assert re.search(rf"\bThe {count}\s+exercises\b", text), f"expected 'The {count} exercises'"
